"""The live reader swap: a camera feed switched to an enrolled deck between two frames, none lost."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import pytest

from dokocam.vision.decks.adapt import AdaptConfig

pytestmark = pytest.mark.slow
# The swap needs an adapted checkpoint, not a good one: the fewest crops that make a few training steps.
TINY = AdaptConfig(crops=72, epochs=1, batch=32, workers=1, roles=("classifier",))
STRIDE = 3


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from dokocam.service.cli import main

    out = tmp_path_factory.mktemp("video") / "trick.mp4"
    args = ["dataset", "render-game", str(out), "--seed", "4", "--tricks", "1", "--size", "480x270", "--fps", "6"]
    assert main(args) == 0
    return out


@pytest.fixture
def deck(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An enrolled deck with a (tiny) adapted classifier, in a home of its own."""
    from dokocam.vision.decks.adapt import adapt_folder
    from dokocam.vision.decks.store import save_deck
    from dokocam.vision.synth.faces import FaceStyle, load_face_folder, write_face_folder

    monkeypatch.setenv("DOKOCAM_HOME", str(tmp_path / "home"))
    folder = tmp_path / "faces"
    write_face_folder(folder, FaceStyle.random(np.random.default_rng(3), width=300), seed=3)
    faces = {code: face.image for code, face in load_face_folder(folder).items()}
    save_deck("familie", faces, {"source": "folder"}, lambda f: adapt_folder(f, TINY, progress=False))
    return "familie"


def _frames(video: Path) -> list[int]:
    from dokocam.vision.sources import open_source

    return [frame.index for frame in open_source(str(video), stride=STRIDE)]


def _wait_for(condition: object, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"{what} within {timeout} s"
        time.sleep(0.05)


def test_a_deck_is_swapped_in_between_frames_and_no_frame_is_lost(video: Path, deck: str) -> None:
    from dokocam.service.feed import FeedFrame
    from dokocam.service.vision_feed import VisionFeed

    expected = _frames(video)
    feed = VisionFeed(str(video), realtime=False, stride=STRIDE, fps=1000.0)  # every frame encoded: none hides
    inner = feed.detector.detector
    shipped = inner.reader
    seen: list[int] = []
    swapped_at = None
    for item in feed:
        if not isinstance(item, FeedFrame):
            continue
        seen.append(item.index)
        if len(seen) == 3:
            feed.use_deck(deck)
            # The generator is paused here: the weights load on their own thread, the loop takes them next frame.
            _wait_for(lambda: feed._next_reading is not None, "the deck's classifier loaded")
            swapped_at = len(seen)
        if swapped_at is not None and len(seen) == swapped_at + 1:
            # In use from the very next frame: the stages that read the boxes read with it.
            assert inner.reader is not shipped and inner.stage("read").reading.reader is inner.reader
            assert inner.stage("match") is not None  # and its faces read whole cards again
            assert feed.deck == deck
    assert seen == expected and feed.frames_detected == len(expected)  # every frame read, in order, once
    assert swapped_at is not None and len(seen) > swapped_at + 1
    assert inner.reader is not shipped and feed._next_reading is None


def test_a_deck_that_cannot_be_loaded_leaves_the_reader_and_the_frames_as_they_were(
    video: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from dokocam.service.feed import FeedFrame
    from dokocam.service.vision_feed import VisionFeed

    monkeypatch.setenv("DOKOCAM_HOME", str(tmp_path / "empty-home"))
    expected = _frames(video)
    feed = VisionFeed(str(video), realtime=False, stride=STRIDE, fps=1000.0)
    shipped = feed.detector.detector.reader
    seen: list[int] = []
    with caplog.at_level(logging.ERROR, logger="dokocam.service.vision_feed"):
        for item in feed:
            if isinstance(item, FeedFrame):
                seen.append(item.index)
                if len(seen) == 2:
                    feed.use_deck("nobody")
                    _wait_for(lambda: "nobody could not be loaded" in caplog.text, "the failed load logged")
    assert seen == expected and feed.detector.detector.reader is shipped and feed.deck is None
    assert feed.detector.detector.stage("read").reading.reader is shipped
    assert feed.detector.detector.stage("match") is None
