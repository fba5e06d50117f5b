"""A real server process killed with SIGKILL mid-game loses nothing it has acknowledged."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from svc_helpers import Server

from dokocam.service.recorded import deal, game_events, legal_plays


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        server.stop()


def _without_time(view: dict) -> dict:
    return {k: v for k, v in view.items() if k != "engine_time"}


def test_sigkill_in_the_middle_of_a_trick_loses_no_event(tmp_path: Path, servers: list[Server]) -> None:
    db = tmp_path / "table.db"
    first = Server(db)
    servers.append(first)
    qc = next(seat for seat, hand in enumerate(deal(11)) if "QC" in hand)
    assert first.post("/games/current/calls", {"seat": qc, "call": "re"}).status_code == 201
    for seat, card in legal_plays(11):  # game 1 (Dora deals: game seats are table seats)
        assert first.post("/games/current/cards", {"seat": seat, "card": card}).status_code == 201
    card = first.get("/state")["last_game"]["tricks"][1]["plays"][2]
    assert (
        httpx.patch(f"{first.url}/games/cards/{card['event_id']}", json={"card": "9H"}, timeout=10).status_code == 200
    )
    for seat, card in legal_plays(12)[:6]:  # game 2: Ben (table seat 1) is Vorhand
        assert first.post("/games/current/cards", {"seat": (seat + 1) % 4, "card": card}).status_code == 201
    before_events = first.get("/events")
    before = first.get("/state")
    first.kill()

    second = Server(db)
    servers.append(second)
    assert second.get("/events") == before_events
    after = second.get("/state")
    assert _without_time(after) == _without_time(before)
    assert len(after["partie"]["sheet"]) == 1 and after["partie"]["totals"] == before["partie"]["totals"]
    assert after["game"]["number"] == 2 and after["game"]["trick_number"] == 2
    assert len(after["game"]["current_trick"]["plays"]) == 2
    assert after["last_game"]["calls"][0]["call"] == "re"


def test_a_recorded_source_resumes_where_the_log_ends(tmp_path: Path, servers: list[Server]) -> None:
    db = tmp_path / "table.db"
    source = tmp_path / "game.json"
    source.write_text(json.dumps(game_events(12, start=0.5, interval=0.08)))
    first = Server(db, "--source", str(source))
    servers.append(first)
    deadline = time.monotonic() + 30
    while sum(e["kind"] == "card_observed" for e in first.get("/events")) < 12:
        assert time.monotonic() < deadline, "the recorded source did not play"
        time.sleep(0.05)
    first.kill()

    second = Server(db, "--source", str(source))  # real time again after catching up with the log
    servers.append(second)
    deadline = time.monotonic() + 30
    while not second.get("/state")["partie"]["sheet"]:
        assert time.monotonic() < deadline, "the resumed game did not finish"
        time.sleep(0.1)
    events = second.get("/events")
    plays = [e for e in events if e["kind"] == "card_observed"]
    assert len(plays) == 48
    assert len({e["payload"]["source_seq"] for e in plays}) == 48
    state = second.get("/state")
    assert state["last_game"]["number"] == 1 and len(state["last_game"]["tricks"]) == 12
