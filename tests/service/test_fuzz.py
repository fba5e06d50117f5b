"""Requests generated from the API's own OpenAPI document, valid and invalid (schemathesis).

Every reply is below 500, every error reply is short JSON, and after every 4xx the table is
exactly as it was: a refused request changes nothing.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from svc_helpers import PLAYERS, play_game

from dokocam.service.config import Settings
from dokocam.service.main import create_app

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed (pip install -e .[test])")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402

_DB = Path(tempfile.mkdtemp(prefix="dokocam-fuzz-")) / "table.db"
APP = create_app(Settings(db=_DB))
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
# The live stream never ends: it is tested where a reader can stop (test_hub, the browser tests).
schema = schema.exclude(path="/stream")

LOCAL = {"Host": "127.0.0.1:8000"}


@pytest.fixture(scope="module")
def table() -> Iterator[TestClient]:
    """The app with its table running (the lifespan), a Partie started and a trick begun."""
    with TestClient(APP, base_url="http://127.0.0.1:8000") as client:
        client.post("/partie", json={"players": PLAYERS})
        play_game(client, seed=5, upto=3)
        yield client


def _snapshot(client: TestClient) -> dict[str, Any]:
    state = client.get("/state").json()
    return {key: state[key] for key in ("seq", "rules", "partie", "game", "last_game", "undo")}


def _fresh_partie(client: TestClient) -> None:
    """Starts the Partie over when generated calls have ended it, so later cases meet a running game."""
    state = client.get("/state").json()
    if state["game"] is None or (state["partie"] or {}).get("is_over"):
        client.post("/partie", json={"players": PLAYERS, "replace": True})


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_request_gets_a_5xx_and_a_refusal_changes_nothing(case: Any, table: TestClient) -> None:
    _fresh_partie(table)
    before = _snapshot(table)
    response = case.call(headers={**LOCAL, **(case.headers or {})})
    assert response.status_code < 500, f"{case.method} {case.path}: {response.status_code} {response.text[:300]}"
    if response.status_code >= 400:
        assert len(response.content) < 2000, "an error reply is short, never the input echoed"
        body = response.json()
        assert isinstance(body["detail"], str) and body["detail"]
        assert _snapshot(table) == before, f"{case.method} {case.path} was refused ({response.status_code}) but changed"
