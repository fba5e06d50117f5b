"""The gate before every change: foreign pages and host names, content types, sizes, strict JSON and types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from svc_helpers import PLAYERS, play_game, start

from dokocam.service.config import Settings
from dokocam.service.main import create_app

CHANGES = [
    ("POST", "/partie", {"players": PLAYERS, "replace": True}),
    ("POST", "/games/current/cards", {"seat": 3, "card": "QC"}),
    ("POST", "/games/current/calls", {"seat": 0, "call": "re"}),
    ("PUT", "/games/current/contract", {"type": "normal"}),
    ("POST", "/games/current/end", {}),
    ("POST", "/events/undo", {}),
    ("PUT", "/settings/rules", {"rules": {"preset": "pub"}}),
]


def _unchanged(client: TestClient, before: dict[str, Any]) -> bool:
    after = client.get("/state").json()
    return all(after[k] == before[k] for k in ("seq", "partie", "game", "rules"))


@pytest.fixture
def running(client: TestClient) -> TestClient:
    start(client)
    play_game(client, seed=5, upto=3)
    return client


@pytest.mark.parametrize(("method", "path", "body"), CHANGES)
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},  # a foreign page
        {"Origin": "null"},  # a sandboxed frame or a file
        {"Origin": "http://127.0.0.1:3000"},  # another program's page on this machine
        {"Host": "evil.example"},  # DNS rebinding: the attacker's name, this machine's address
        {"Host": "evil.example", "Origin": "http://evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Content-Type": "text/plain"},  # what a no-cors fetch or a form may send
        {"Content-Type": "application/x-www-form-urlencoded"},
    ],
)
def test_a_foreign_origin_or_host_changes_nothing(
    running: TestClient, method: str, path: str, body: dict, headers: dict[str, str]
) -> None:
    before = running.get("/state").json()
    response = running.request(
        method, path, content=_json(body), headers={"Content-Type": "application/json", **headers}
    )
    assert response.status_code in (403, 415, 421), response.text
    assert response.json()["detail"] and response.json()["detail_en"]
    assert _unchanged(running, before)


def _json(body: dict) -> bytes:
    import json

    return json.dumps(body).encode()


def test_a_bodiless_post_without_json_type_is_refused(running: TestClient) -> None:
    """The attack of the issue: ``fetch(url, {method: "POST", mode: "no-cors"})`` sends no content type."""
    before = running.get("/state").json()
    for path in ("/games/current/end", "/events/undo"):
        response = running.post(path)
        assert response.status_code == 415 and "JSON" in response.json()["detail"]
    assert _unchanged(running, before)


def test_the_page_itself_and_tools_without_origin_get_through(running: TestClient) -> None:
    same = running.post("/games/current/calls", json={"seat": 0, "call": "kontra"}, headers={"Origin": LOCAL})
    assert same.status_code in (201, 409), same.text  # through the gate; the engine decides
    ipv6 = running.post("/events/undo", json={}, headers={"Host": "[::1]:8000"})
    assert ipv6.status_code == 200, ipv6.text
    lan = running.post("/events/undo", json={}, headers={"Host": "192.168.1.20:8000"})
    assert lan.status_code in (200, 409), lan.text


LOCAL = "http://127.0.0.1:8000"


def test_a_reverse_proxys_name_is_allowed_when_given(db_path: Path) -> None:
    app = create_app(Settings(db=db_path, allowed_hosts=["doko.example.org"]))
    with TestClient(app, base_url="https://doko.example.org") as client:
        assert start(client)["partie"]["players"] == PLAYERS
        behind = client.post(
            "/events/undo",
            json={},
            headers={"Host": "127.0.0.1:8000", "Origin": "https://doko.example.org"},
        )
        assert behind.status_code == 409  # through the gate: nothing to undo yet
        other = client.post("/events/undo", json={}, headers={"Host": "doko.evil.org"})
        assert other.status_code == 421


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("/games/current/cards", '{"seat": NaN, "card": "QC"}'),
        ("/games/current/cards", '{"seat": Infinity, "card": "QC"}'),
        ("/games/current/calls", '{"seat": -Infinity, "call": "re"}'),
        ("/partie", '{"players": ["A", "B", "C", "D"], "first_dealer": NaN, "replace": true}'),
        ("/games/current/cards", '{"seat": true, "card": "QC"}'),
        ("/games/current/cards", '{"seat": "1", "card": "QC"}'),
        ("/games/current/cards", '{"seat": 1.0, "card": "QC"}'),
        ("/games/current/calls", '{"seat": false, "call": "re"}'),
        ("/partie", '{"players": ["A", "B", "C", "D"], "rules": {"preset": ["pub"]}, "replace": true}'),
        ("/partie", '{"players": ["A", "B", "C", "D"], "rules": {"preset": {"a": 1}}, "replace": true}'),
        ("/settings/rules", '{"rules": {"preset": "pub", "schweinchen": 1}}'),
        ("/settings/rules", '{"rules": []}'),
        ("/games/current/cards", '{"seat": 0, "card": ["QC"]}'),
        ("/games/current/cards", "[1, 2, 3]"),
        ("/games/current/cards", '"QC"'),
        ("/games/current/cards", "{seat: 0"),
        ("/games/current/cards", '{"seat": 0, "card": "QC", "extra": 1}'),
        ("/games/current/cards", "[" * 5000 + "]" * 5000),
    ],
)
def test_malformed_json_and_wrong_types_are_a_short_422(running: TestClient, path: str, text: str) -> None:
    before = running.get("/state").json()
    method = "PUT" if path == "/settings/rules" else "POST"
    response = running.request(method, path, content=text.encode(), headers={"Content-Type": "application/json"})
    assert response.status_code == 422, response.text
    assert response.json()["detail"] and len(response.content) < 1500
    assert _unchanged(running, before)


def test_a_huge_body_is_a_413_and_nothing_is_echoed(running: TestClient) -> None:
    before = running.get("/state").json()
    name = "=HYPERLINK(" * 10_000
    response = running.post("/partie", json={"players": [name, "B", "C", "D"], "replace": True})
    assert response.status_code == 413 and len(response.content) < 500
    assert "HYPERLINK" not in response.text
    chunked = running.post(
        "/partie",
        content=iter([b'{"players": ["', b"x" * 70_000, b'"]}']),
        headers={"Content-Type": "application/json"},
    )
    assert chunked.status_code == 413
    assert _unchanged(running, before)


def test_a_long_field_is_refused_without_copying_it_back(running: TestClient) -> None:
    response = running.post("/games/current/end", json={"left": "x" * 20_000})
    assert response.status_code == 422 and "xxxxxxxxxx" not in response.text


def test_error_replies_are_german_first_with_english_beside(running: TestClient) -> None:
    response = running.post("/games/current/cards", json={"seat": 9, "card": "QC"})
    body = response.json()
    assert response.status_code == 422
    assert "höchstens 3" in body["detail"] and "at most 3" in body["detail_en"]
    assert body["errors"][0]["loc"] == ["body", "seat"] and "input" not in body["errors"][0]
    missing = running.post("/games/cards/999999/confirm", json={}).json()
    assert missing["detail"].startswith("Keine Karte mit Nummer 999999") and missing["code"] == "no_such_card"
