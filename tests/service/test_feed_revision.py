"""The camera's revisions: logged, shown with the players' names, outranked by a person's correction,
replayed the same after a restart; a person's correction reaches the camera's decoder."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from svc_helpers import PLAYERS

from dokocam.engine import Card, Game
from dokocam.service.config import Settings
from dokocam.service.feed import FeedEvent, RecordedFeed
from dokocam.service.main import create_app
from dokocam.service.recorded import legal_plays

PLAYS = legal_plays(31)[:3]


def _camera_cards(table: object) -> None:
    for seq, (seat, card) in enumerate(PLAYS, start=1):
        table.observe(FeedEvent("card_played", float(seq), {"seat": seat, "card": card, "confidence": 0.9}), seq)  # type: ignore[attr-defined]


def _revision(play: int, old: str, new: str, seat: int, seq: int) -> FeedEvent:
    return FeedEvent(
        "card_revised",
        float(seq),
        {"trick": play // 4, "play": play, "seat": seat, "old": old, "new": new, "new_seat": seat, "message": "m"},
    )


def _other_card(code: str) -> str:
    return next(c for c in ("9H", "9S", "9C") if c != code)


def _plays(client: TestClient) -> list[dict]:
    return client.get("/games/current").json()["current_trick"]["plays"]


def test_a_revision_changes_the_card_is_shown_with_names_and_survives_a_restart(tmp_path: Path) -> None:
    seat, old = PLAYS[1]
    new = _other_card(old)
    app = create_app(Settings(db=tmp_path / "t.db"), players=PLAYERS)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        table = app.state.table
        _camera_cards(table)
        assert table.observe(_revision(1, old, new, seat, 4), 4) is not None
        plays = _plays(client)
        assert [(p["card"]["code"], p["revised"]) for p in plays] == [
            (PLAYS[0][1], False),
            (new, True),
            (PLAYS[2][1], False),
        ]
        flag = client.get("/state").json()["pipeline_flags"][-1]
        german = f"Stich 1, {PLAYERS[seat]}: {Card.parse(new).german_name}, nicht {Card.parse(old).german_name}"
        assert flag["message"] == f"Kamera: {german}"
        before = client.get("/state").json()
    again = create_app(Settings(db=tmp_path / "t.db"), players=PLAYERS)
    with TestClient(again, base_url="http://127.0.0.1:8000") as client:
        after = client.get("/state").json()
        assert after["game"] == before["game"] and after["pipeline_flags"] == before["pipeline_flags"]


class _Decoding(RecordedFeed):
    """A feed standing in for the camera's decoder: it keeps the corrections it is told."""

    def __init__(self) -> None:
        super().__init__([], realtime=False)
        self.fixed: list[tuple[int, int, str]] = []

    def card_fixed(self, trick: int, seat: int, card: str) -> None:
        self.fixed.append((trick, seat, card))


def test_a_persons_correction_outranks_the_cameras_revision_and_reaches_its_decoder(tmp_path: Path) -> None:
    seat, old = PLAYS[1]
    person, camera = _other_card(old), "QC"
    feed = _Decoding()
    app = create_app(Settings(db=tmp_path / "t.db"), feed=feed, players=PLAYERS)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        table = app.state.table
        _camera_cards(table)
        target = _plays(client)[1]["event_id"]
        response = client.patch(f"/games/cards/{target}", json={"card": person})
        assert response.status_code == 200, response.text
        assert feed.fixed == [(0, seat, person)]  # the first game: game seats are table seats
        assert table.observe(_revision(1, old, camera, seat, 4), 4) is None  # nothing logged
        assert [(p["card"]["code"], p["corrected"], p["revised"]) for p in _plays(client)][1] == (person, True, False)


class _RestartedCamera(RecordedFeed):
    """A live camera started again: it follows the table's game and decodes the logged evidence first."""

    def __init__(self) -> None:
        super().__init__([], realtime=False)
        self.pacer = None
        self.game_factory = None
        self.seating = None
        self.primed: list[dict] = []

    def contract_changed(self, contract: object) -> None:
        pass

    def game_abandoned(self) -> None:
        pass

    def prime(self, evidence: list[dict]) -> None:
        self.primed = list(evidence)


def test_the_evidence_in_the_log_decodes_a_restarted_camera_to_the_same_game(tmp_path: Path) -> None:
    from dokocam.service.scorekeeper import Scorekeeper
    from dokocam.service.store import EventStore
    from dokocam.service.table import PARTIE_STARTED
    from dokocam.vision.synth.video import GameVideo
    from dokocam.vision.table.geometry import TableGeometry
    from dokocam.vision.table.live import LiveDecoder
    from dokocam.vision.table.tracker import CardTracker

    store = EventStore(tmp_path / "t.db")
    table = Scorekeeper(store)
    rules = table.state.rules.to_dict()
    table.submit(PARTIE_STARTED, {"players": PLAYERS, "first_dealer": PLAYERS[-1], "rules": rules, "length": {}})
    video = GameVideo(seed=23, fps=5.0)
    geometry = TableGeometry.default(video.width, video.height)
    setup = table.new_game()

    def empty() -> Game:
        return Game(setup.rules, setup.contract, setup.players)

    tracker, live = CardTracker(geometry), LiveDecoder(empty, geometry)
    seq = 0
    for index, time in video.frame_times():  # the camera as VisionFeed reports it: evidence first, then events
        if time > 60.0:
            break  # the server dies in the middle of the game
        logged = len(live.evidence_dict())
        events = live.update(tracker.update(video.truth(time), index, time))
        entries = [FeedEvent("camera_evidence", time, {"entry": e}) for e in live.evidence_dict()[logged:]]
        for item in [*entries, *(FeedEvent(e.type, time, e.to_dict()) for e in events)]:
            seq += 1
            table.observe(item, seq)
    shown = [(p.seat, str(p.card)) for p in table.state.current.plays]  # type: ignore[union-attr]
    assert len(shown) > 8 and shown == [(s, str(c)) for s, c in live.game.history]
    store.close()

    store = EventStore(tmp_path / "t.db")
    table = Scorekeeper(store)
    camera = _RestartedCamera()
    table.attach(camera)  # type: ignore[arg-type]
    table._feed_thread.join(timeout=10)  # type: ignore[union-attr]
    assert camera.primed == live.evidence_dict()
    again = LiveDecoder(empty, geometry)
    assert [e.to_dict() for e in again.replay(camera.primed)] != []
    assert [(s, str(c)) for s, c in again.game.history] == [(s, str(c)) for s, c in live.game.history]
    store.close()
