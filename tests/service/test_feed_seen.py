"""A card the camera sees before its turn (a seat before it not read yet): shown in its seat's place, not
counted, until its play is logged in turn order; a malformed one is refused and changes nothing."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from svc_helpers import PLAYERS

from dokocam.service.config import Settings
from dokocam.service.feed import FeedEvent
from dokocam.service.main import create_app
from dokocam.service.recorded import legal_plays

PLAYS = legal_plays(31)[:4]


def _played(seq: int) -> FeedEvent:
    seat, card = PLAYS[seq]
    return FeedEvent("card_played", float(seq), {"seat": seat, "card": card, "confidence": 0.9})


def _seen(seq: int, card: str | None = None) -> FeedEvent:
    seat, code = PLAYS[seq]
    return FeedEvent("card_seen", float(seq) + 0.5, {"trick": 0, "seat": seat, "card": card or code})


def test_a_card_seen_before_its_turn_is_shown_until_its_play_is_logged(tmp_path: Path) -> None:
    app = create_app(Settings(db=tmp_path / "t.db"), players=PLAYERS)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        table = app.state.table
        table.observe(_played(0), 1)
        logged = len(client.get("/events").json())
        assert table.observe(_seen(2), 2) is None  # shown, not logged
        assert table.observe(_seen(3), 3) is None
        game = client.get("/games/current").json()
        assert [s["card"]["code"] for s in game["seen"]] == [PLAYS[2][1], PLAYS[3][1]]
        assert len(game["current_trick"]["plays"]) == 1 and len(client.get("/events").json()) == logged
        table.observe(_played(1), 4)
        table.observe(_played(2), 5)
        game = client.get("/games/current").json()
        # The seen card of the seat that has played now is its play; the one still to come stays shown.
        assert game["current_trick"]["plays"][2]["card"]["code"] == PLAYS[2][1]
        assert [(s["seat"], s["card"]["code"]) for s in game["seen"]] == [(game["to_move"], PLAYS[3][1])]
        table.observe(_played(3), 6)
        game = client.get("/games/current").json()
        assert game["seen"] == [] and len(game["tricks"]) == 1


def test_a_seen_card_with_a_malformed_code_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    app = create_app(Settings(db=tmp_path / "t.db"), players=PLAYERS)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        table = app.state.table
        table.observe(_played(0), 1)
        before = client.get("/state").json()
        assert table.observe(_seen(2, card="11X"), 2) is None
        after = client.get("/state").json()
        assert after["game"]["seen"] == [] and after["seq"] == before["seq"]
