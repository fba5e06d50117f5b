"""The seam to the pipeline: recorded events stand in for the camera."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from svc_helpers import PLAYERS

from dokocam.service.config import Settings
from dokocam.service.feed import Box, FeedError, FeedEvent, FeedFrame, Pacer, RecordedFeed, load_event_list
from dokocam.service.main import create_app
from dokocam.service.recorded import game_events, legal_plays


def _wait(client: TestClient, until, timeout: float = 10.0) -> dict:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        state = client.get("/state").json()
        if until(state):
            return state
        assert time.monotonic() < deadline, "the feed did not get there"
        time.sleep(0.02)


def test_camera_plays_land_in_the_log_and_an_uncertain_card_can_be_confirmed(tmp_path: Path) -> None:
    events = game_events(31, interval=0.0, uncertain=(2,))[:7]  # 5 cards, one doubted, one trick_complete
    app = create_app(Settings(db=tmp_path / "t.db"), feed=RecordedFeed(events, realtime=False), players=PLAYERS)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        state = _wait(client, lambda s: len(s["game"]["current_trick"]["plays"]) == 1)
        game = state["game"]
        assert [(p["seat"], p["card"]["code"]) for t in game["tricks"] for p in t["plays"]] == legal_plays(31)[:4]
        doubted = game["uncertain"]
        assert [p["card"]["code"] for p in doubted] == [legal_plays(31)[2][1]] and doubted[0]["confidence"] == 0.55
        kinds = [e["kind"] for e in client.get("/events").json()]
        assert kinds == ["partie_started"] + ["card_observed"] * 3 + ["card_doubted"] + ["card_observed"] * 2
        confirmed = client.post(f"/games/cards/{doubted[0]['event_id']}/confirm", json={})
        assert confirmed.status_code == 200 and confirmed.json()["state"]["game"]["uncertain"] == []
        assert client.post(f"/games/cards/{doubted[0]['event_id']}/confirm", json={}).status_code == 409


def test_pipeline_seats_count_from_vorhand(tmp_path: Path) -> None:
    """In the second game Ben (table seat 1) is Vorhand: the pipeline's seat 0 is Ben."""
    app = create_app(Settings(db=tmp_path / "t.db"), players=PLAYERS)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        client.post("/games/current/end", json={})
        table = app.state.table
        table.observe(FeedEvent("card_played", 1.0, {"seat": 0, "card": "QC", "confidence": 0.9}), 1)
        play = client.get("/games/current").json()["current_trick"]["plays"][0]
        assert (play["seat"], play["player"]) == (1, "Ben")
        assert table.observe(FeedEvent("trick_complete", 1.0, {"trick": 0}), 2) is None
        # A card the engine cannot read is refused without touching the log.
        before = len(client.get("/events").json())
        assert table.observe(FeedEvent("card_played", 2.0, {"seat": 1, "card": "XX"}), 3) is None
        assert len(client.get("/events").json()) == before


def test_frames_are_kept_for_the_pages(tmp_path: Path) -> None:
    frame = FeedFrame(7, 0.5, b"\xff\xd8jpeg", 640, 360, [Box((1, 2, 30, 40), "QC", 0.9)])
    app = create_app(Settings(db=tmp_path / "t.db"), feed=RecordedFeed([], realtime=False))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        assert client.get("/frame.jpg").status_code == 404
        app.state.table.show_frame(frame)
        response = client.get("/frame.jpg", params={"index": 7})
        assert response.status_code == 200 and response.content == frame.jpeg
        assert client.get("/frame.jpg", params={"index": 3}).status_code == 404


def test_recorded_lists_are_checked(tmp_path: Path) -> None:
    with pytest.raises(FeedError, match="needs a 'kind'"):
        RecordedFeed([{"time": 0}])
    with pytest.raises(FeedError, match="sort the list"):
        RecordedFeed([{"time": 2, "kind": "card_played"}, {"time": 1, "kind": "card_played"}])
    bad = tmp_path / "bad.json"
    bad.write_text("[{")
    with pytest.raises(FeedError, match="not valid JSON"):
        load_event_list(bad)
    lines = tmp_path / "ok.jsonl"
    lines.write_text("\n".join(json.dumps(e) for e in game_events(1)[:3]))
    assert [e.kind for e in RecordedFeed(lines, realtime=False)] == ["card_played"] * 3
    with pytest.raises(FeedError, match="cannot read"):
        load_event_list(tmp_path / "missing.json")


def test_the_pacer_catches_up_fast_then_plays_in_real_time(monkeypatch: pytest.MonkeyPatch) -> None:
    from dokocam.service import feed as feed_module

    clock = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(feed_module.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(feed_module.time, "sleep", sleep)
    pacer = Pacer(realtime=True)
    pacer.wait(2.0)
    assert sum(slept) == pytest.approx(2.0)  # source time 0 is when playing started
    pacer.realtime = False
    slept.clear()
    pacer.wait(50.0)
    assert slept == []
    pacer.realtime = True
    pacer.wait(51.0)
    assert slept == []  # real time restarts from this item
    pacer.wait(52.5)
    assert sum(slept) == pytest.approx(1.5)


class _FollowingFeed:
    """A feed with its own engine game, like the camera pipeline; yields nothing."""

    pacer = None

    def __init__(self) -> None:
        self.game_factory = None
        self.seating = None
        self.contracts: list[object] = []
        self.abandoned = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(())

    def contract_changed(self, contract: object) -> None:
        self.contracts.append(contract)

    def game_abandoned(self) -> None:
        self.abandoned += 1

    def close(self) -> None:
        pass


def test_the_pipeline_game_follows_the_table(tmp_path: Path) -> None:
    feed = _FollowingFeed()
    app = create_app(Settings(db=tmp_path / "t.db"), feed=feed, players=PLAYERS)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        client.post("/games/current/end", json={})  # game 2: Ben is Vorhand
        assert feed.abandoned == 1
        assert feed.game_factory is not None and feed.game_factory().players == ("Ben", "Cem", "Dora", "Anna")
        client.put("/games/current/contract", json={"type": "solo", "kind": "queens", "declarer": 2})
        assert [c.to_dict() for c in feed.contracts] == [
            {"type": "solo", "kind": "queens", "declarer": 1}
        ]  # Cem: game seat 1
        assert feed.game_factory().contract.to_dict()["kind"] == "queens"


def test_a_card_the_pipeline_withdraws_leaves_the_game(tmp_path: Path) -> None:
    """``card_withdrawn`` undoes the camera's last play and leaves a note; an older play stays."""
    app = create_app(Settings(db=tmp_path / "t.db"), players=PLAYERS)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        table = app.state.table
        table.observe(FeedEvent("card_played", 1.0, {"seat": 0, "card": "QC", "confidence": 0.9}), 1)
        table.observe(FeedEvent("card_played", 2.0, {"seat": 1, "card": "9H", "confidence": 0.9}), 2)
        withdrawn = {"reason": "card_withdrawn", "trick": 0, "card": "9H", "message": "9H left with the trick"}
        table.observe(FeedEvent("needs_confirmation", 3.0, withdrawn), 3)
        plays = client.get("/games/current").json()["current_trick"]["plays"]
        assert [p["card"]["code"] for p in plays] == ["QC"]
        kinds = [e["kind"] for e in client.get("/events").json()]
        assert kinds[-2:] == ["undo", "pipeline_flag"]
        # Not the last play any more: nothing is undone, only the note is kept.
        table.observe(FeedEvent("needs_confirmation", 4.0, {**withdrawn, "card": "AS"}), 4)
        assert [p["card"]["code"] for p in client.get("/games/current").json()["current_trick"]["plays"]] == ["QC"]
        flag = client.get("/state").json()["pipeline_flags"][-1]
        assert flag["message"] == "Kamera: eine Karte in Stich 1 wurde zurückgenommen"  # German, the trick 1-based
        assert (
            flag["message_en"] == "camera: a card of trick 1 was taken back" and flag["detail"] == withdrawn["message"]
        )


class _LiveCamera:
    """A live camera as the table sees it: it follows the game and reports what it sees, no pacing."""

    pacer = None

    def __init__(self, events: list[FeedEvent]) -> None:
        self.events = events
        self.game_factory = None
        self.seating = None
        self.first_game = None

    def __iter__(self):  # type: ignore[no-untyped-def]
        self.first_game = self.game_factory()  # type: ignore[misc]
        yield from self.events

    def close(self) -> None:
        pass

    def contract_changed(self, contract: object) -> None:
        pass

    def game_abandoned(self) -> None:
        pass


def test_a_live_camera_restarted_mid_trick_follows_the_game_and_logs_no_card_twice(tmp_path: Path) -> None:
    from dokocam.service.scorekeeper import Scorekeeper
    from dokocam.service.store import EventStore
    from dokocam.service.table import PARTIE_STARTED

    plays = legal_plays(31)

    def seen(i: int) -> FeedEvent:
        seat, card = plays[i]
        return FeedEvent("card_played", float(i), {"seat": seat, "card": card, "confidence": 0.9})

    store = EventStore(tmp_path / "t.db")
    table = Scorekeeper(store)
    rules = table.state.rules.to_dict()
    table.submit(PARTIE_STARTED, {"players": PLAYERS, "first_dealer": PLAYERS[-1], "rules": rules, "length": {}})
    for i in range(6):  # a whole trick and two cards of the second, then the server dies
        table.observe(seen(i), i + 1)
    store.close()

    store = EventStore(tmp_path / "t.db")
    table = Scorekeeper(store)
    camera = _LiveCamera([seen(4), seen(5), seen(6), seen(7)])  # the two cards still lie there, two more come
    table.attach(camera)  # type: ignore[arg-type]
    table._feed_thread.join(timeout=10)  # type: ignore[union-attr]
    followed = camera.first_game
    assert followed is not None and len(followed.tricks) == 1 and not followed.current_trick.plays
    cards = [(e.payload["seat"], e.payload["card"]) for e in store.events() if e.kind == "card_observed"]
    assert cards == [(s, c) for s, c in plays[:8]]  # every card once
    assert len(table.state.current.game.tricks) == 2  # type: ignore[union-attr]
    store.close()
