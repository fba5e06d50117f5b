"""The game type a person enters on the dashboard reaches the camera's decoder: a solo told after the
first trick decides who leads the next ones; a camera started again mid-game decodes it from the log.

The detector is replaced by scripted boxes of a made-up solo; the source, tracker, decoder and
table are the real ones.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path

import cv2
import numpy as np
from fastapi.testclient import TestClient
from svc_helpers import PLAYERS

from dokocam.engine import Card, Contract, Game, SoloKind
from dokocam.service.config import Settings
from dokocam.service.main import create_app
from dokocam.service.recorded import legal_plays
from dokocam.service.vision_feed import VisionFeed
from dokocam.vision.detections import Detections
from dokocam.vision.sources import Frame

FPS = 5.0
WIDTH, HEIGHT = 1280, 720
SOLO = Contract.solo(SoloKind.QUEENS, 2)


def solo_plays(seed: int = 1) -> list[tuple[int, str]]:
    """A whole queens solo of seat 2: random legal cards from a random deal (seed 1's first trick goes to
    another seat under the normal trumps)."""
    return legal_plays(seed, SOLO)


def boxes(plays: list[tuple[int, str]], start: float, end: float) -> list[Detections]:
    """What a sure detector sees at ``FPS`` from ``start`` to ``end`` seconds: each card lies towards its
    seat (seat 0 at the bottom, clockwise) from 2 s after the card before; a trick is collected 2 s after its last."""
    frames = []
    for step in range(int(start * FPS), int(end * FPS)):
        time = step / FPS
        xyxy, cls = [], []
        for n, (seat, code) in enumerate(plays):
            trick, k = divmod(n, 4)
            if not 14.0 * trick + 2.0 * k <= time < 14.0 * trick + 8.0:
                continue
            angle = math.radians(90.0 + 90.0 * seat + (n % 3 - 1) * 8.0)
            x, y = WIDTH / 2 + 110 * math.cos(angle), HEIGHT / 2 + 110 * math.sin(angle)
            xyxy.append([x - 35, y - 50, x + 35, y + 50])
            cls.append(Card.parse(code).index)
        found = Detections(xyxy=np.array(xyxy), confidence=np.full(len(cls), 0.9), class_id=np.array(cls))
        frames.append(found if cls else Detections.empty())
    return frames


class Scripted:
    """Stands in for the detector: the scripted boxes frame by frame; waits at frame ``pause`` until told to go on."""

    def __init__(self, frames: list[Detections], pause: int | None = None) -> None:
        self.frames, self.pause, self.seen = frames, pause, 0
        self.paused, self.go = threading.Event(), threading.Event()

    def update(self, image: np.ndarray) -> Detections:
        if self.seen == self.pause:
            self.paused.set()
            assert self.go.wait(30)
        self.seen += 1
        return self.frames[self.seen - 1]


def camera(folder: Path, detector: Scripted) -> VisionFeed:
    """A live camera: frames timed from 0 when it starts, each read by ``detector``."""
    feed = VisionFeed(str(folder), realtime=False, detector=detector)
    image = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    feed.source = [Frame(image, i, i / FPS) for i in range(len(detector.frames))]  # type: ignore[assignment]
    return feed


def test_a_solo_entered_after_the_first_trick_leads_the_camera_and_survives_a_restart(tmp_path: Path) -> None:
    plays = solo_plays()
    normal = Game()
    for seat, code in plays[:4]:
        normal.play(seat, code)
    assert normal.tricks[0].winner() != plays[4][0]  # the normal trumps would have another seat lead trick 2
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "0.png"), np.zeros((8, 8, 3), np.uint8))
    db = tmp_path / "t.db"

    # Three tricks, the solo entered once the first is collected; then the server stops.
    first = Scripted(boxes(plays, 0.0, 42.0), pause=int(10.0 * FPS))
    app = create_app(Settings(db=db), feed=camera(folder, first), players=PLAYERS)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        assert first.paused.wait(60)
        response = client.put("/games/current/contract", json={"type": "solo", "kind": "queens", "declarer": 2})
        assert response.status_code == 200, response.text
        first.go.set()
        app.state.table._feed_thread.join(timeout=120)
        current = app.state.table.state.current
        assert [(p.seat, str(p.card)) for p in current.plays] == plays[:12]  # first game: table seats are game seats

    # The camera starts again (its clock at 0) and sees the rest of the game.
    rest = Scripted(boxes(plays, 42.0, 14.0 * 12 + 4.0))
    again = create_app(Settings(db=db), feed=camera(folder, rest), players=PLAYERS)
    with TestClient(again, base_url="http://127.0.0.1:8000"):
        again.state.table._feed_thread.join(timeout=300)
        game = again.state.table.state.finished[-1].state
        assert game.contract == SOLO
        assert [(p.seat, str(p.card)) for p in game.plays] == plays


class _Told:
    """A feed standing in for the camera's decoder: it keeps what the table tells it."""

    pacer = None

    def __init__(self) -> None:
        self.game_factory = None
        self.seating = None
        self.contracts: list[dict] = []
        self.calls: list[list[tuple[int, int, str]]] = []

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(())

    def contract_changed(self, contract: Contract) -> None:
        self.contracts.append(contract.to_dict())

    def calls_changed(self, calls: list[tuple[int, int, str]]) -> None:
        self.calls.append(list(calls))

    def game_abandoned(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_calls_and_their_undo_reach_the_cameras_decoder_in_game_seats(tmp_path: Path) -> None:
    feed = _Told()
    app = create_app(Settings(db=tmp_path / "t.db"), feed=feed, players=PLAYERS)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        client.post("/games/current/end", json={})  # game 2: Ben is Vorhand, so table seat 2 (Cem) is game seat 1
        client.post("/games/current/cards", json={"seat": 1, "card": "AC"})
        made = client.post("/games/current/calls", json={"seat": 2, "call": "kontra"})
        assert made.status_code == 201, made.text
        assert feed.calls == [[(1, 1, "kontra")]]  # said after one card, by game seat 1
        told = client.put("/games/current/contract", json={"type": "solo", "kind": "hearts", "declarer": 0})
        assert told.status_code == 200, told.text
        assert feed.contracts[-1] == {"type": "solo", "kind": "hearts", "declarer": 3}  # Anna: game seat 3
        client.post(f"/events/{made.json()['event']['id']}/undo", json={})
        assert feed.calls[-1] == [] and feed.contracts[-1]["kind"] == "hearts"
