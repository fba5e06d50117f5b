"""The camera path end to end on a rendered video: source -> detections -> vision.table -> table.

The detector is replaced by the video's ground truth (no weights needed); everything after it
is the real pipeline.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dokocam.service.config import Settings
from dokocam.service.main import create_app

pytestmark = pytest.mark.slow
STRIDE = 2


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from dokocam.service.cli import main

    out = tmp_path_factory.mktemp("video") / "game.mp4"
    assert (
        main(["dataset", "render-game", str(out), "--seed", "3", "--tricks", "1", "--size", "480x270", "--fps", "8"])
        == 0
    )
    return out


def test_a_rendered_trick_reaches_the_table_with_its_frames(tmp_path: Path, video: Path) -> None:
    from dokocam.service.vision_feed import TruthDetector, VisionFeed

    truth = json.loads(video.with_suffix(".json").read_text())
    feed = VisionFeed(
        str(video),
        realtime=False,
        stride=STRIDE,
        detector=TruthDetector(video.with_suffix(".frames.jsonl"), stride=STRIDE),
    )
    app = create_app(Settings(db=tmp_path / "t.db"), feed=feed, players=truth["players"])
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        deadline = time.monotonic() + 60
        while not client.get("/state").json()["game"]["tricks"]:
            assert time.monotonic() < deadline, "the trick never completed"
            time.sleep(0.1)
        game = client.get("/games/current").json()
        assert [(p["seat"], p["card"]["code"]) for p in game["tricks"][0]["plays"]] == [
            (e["seat"], e["play"]) for e in truth["events"]
        ]
        frame = app.state.table.frame()
        assert frame is not None and frame.jpeg[:2] == b"\xff\xd8" and frame.width == 480
        response = client.get("/frame.jpg")
        assert response.status_code == 200 and response.headers["content-type"] == "image/jpeg"


def test_vorhand_moves_around_the_table_with_each_game(video: Path) -> None:
    from dokocam.engine import Game
    from dokocam.service.vision_feed import TruthDetector, VisionFeed
    from dokocam.vision.table.pipeline import TablePipeline

    feed = VisionFeed(str(video), detector=TruthDetector(video.with_suffix(".frames.jsonl")))
    pipeline = TablePipeline.for_video(480, 270)
    deals = iter([("A", "B", "C", "D"), ("B", "C", "D", "A"), ("C", "D", "A", "B")])
    vorhand_places = []
    for _ in range(3):
        players = next(deals)
        feed.game_factory = lambda players=players: Game(players=players)
        feed._use_current_game(pipeline)
        vorhand_places.append(pipeline.live.geometry.vorhand)
        assert pipeline.game.players == players
    assert vorhand_places == [0, 1, 2]


def test_each_game_lets_the_detector_learn_the_deck_again(video: Path) -> None:
    """A detector that learns the deck's print from the frames forgets it when a game starts: another deck may come."""
    from dokocam.engine import Game
    from dokocam.service.vision_feed import TruthDetector, VisionFeed
    from dokocam.vision.table.pipeline import TablePipeline

    class Learning(TruthDetector):
        resets = 0

        def reset(self) -> None:
            self.resets += 1

    detector = Learning(video.with_suffix(".frames.jsonl"))
    feed = VisionFeed(str(video), detector=detector)
    feed.game_factory = lambda: Game(players=("A", "B", "C", "D"))
    pipeline = TablePipeline.for_video(480, 270)
    for _ in range(2):
        feed._use_current_game(pipeline)
    assert detector.resets == 2


def test_with_five_at_the_table_the_dealers_place_is_skipped(video: Path) -> None:
    from dokocam.engine import Game
    from dokocam.service.vision_feed import TruthDetector, VisionFeed
    from dokocam.vision.table.pipeline import TablePipeline

    feed = VisionFeed(str(video), detector=TruthDetector(video.with_suffix(".frames.jsonl")))
    feed.seating = lambda: ("A", "B", "C", "D", "E")
    pipeline = TablePipeline.for_video(480, 270)
    places = []
    for players in [("A", "B", "C", "D"), ("B", "C", "D", "E"), ("D", "E", "A", "B")]:  # E, A, C deal
        feed.game_factory = lambda players=players: Game(players=players)
        feed._use_current_game(pipeline)
        geometry = pipeline.live.geometry
        places.append([geometry.place_of_seat(seat) for seat in range(4)])
        assert geometry.places == 5 and pipeline.game.players == players
    assert places == [[0, 1, 2, 3], [1, 2, 3, 4], [3, 4, 0, 1]]


@pytest.fixture(scope="module")
def two_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rendered video of three tricks."""
    from dokocam.service.cli import main

    out = tmp_path_factory.mktemp("video") / "tricks.mp4"
    args = ["dataset", "render-game", str(out), "--seed", "5", "--tricks", "3", "--size", "480x270", "--fps", "8"]
    assert main(args) == 0
    return out


def _cards(store_path: Path) -> list[tuple[int, str, float]]:
    from dokocam.service.store import EventStore

    store = EventStore(store_path)
    cards = [
        (e.payload["seat"], e.payload["card"], e.payload["source_time"])
        for e in store.events()
        if e.kind == "card_observed"
    ]
    store.close()
    return cards


def _run(feed: object, db: Path, players: list[str], *, resume: bool = False, cards: int = 12) -> None:
    from dokocam.service.scorekeeper import Scorekeeper
    from dokocam.service.store import EventStore
    from dokocam.service.table import PARTIE_STARTED

    store = EventStore(db)
    table = Scorekeeper(store)
    if table.state.partie is None:
        rules = table.state.rules.to_dict()
        table.submit(PARTIE_STARTED, {"players": players, "first_dealer": players[-1], "rules": rules, "length": {}})
    table.attach(feed, resume=resume)  # type: ignore[arg-type]
    table._feed_thread.join(timeout=60)  # type: ignore[union-attr]
    table.detach()
    store.close()


def test_a_video_resumes_at_the_last_game_without_detecting_it_from_the_start(tmp_path: Path, two_games: Path) -> None:
    """Killed after the second trick, it picks up at the game's start: the same cards, none twice, fewer frames."""
    from dokocam.service.vision_feed import TruthDetector, VisionFeed

    truth = json.loads(two_games.with_suffix(".json").read_text())
    frames = two_games.with_suffix(".frames.jsonl")

    def feed() -> VisionFeed:
        return VisionFeed(str(two_games), realtime=False, stride=STRIDE, detector=TruthDetector(frames, stride=STRIDE))

    whole = feed()
    _run(whole, tmp_path / "whole.db", truth["players"])
    expected = _cards(tmp_path / "whole.db")
    assert len(expected) == 12

    first = feed()
    cut = expected[7][2] + 0.2  # the process dies just after the eighth card (the second trick's last)
    first.source = (f for f in first.source if f.time <= cut)  # type: ignore[assignment]
    _run(first, tmp_path / "resumed.db", truth["players"])
    assert len(_cards(tmp_path / "resumed.db")) == 8

    again = feed()
    _run(again, tmp_path / "resumed.db", truth["players"], resume=True)
    got = _cards(tmp_path / "resumed.db")
    assert [(s, c) for s, c, _ in got] == [(s, c) for s, c, _ in expected]  # every card once, in order
    assert again.frames_detected < whole.frames_detected
