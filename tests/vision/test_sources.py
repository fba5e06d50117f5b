"""Frame sources: files, folders, errors, and a live source that drops out and comes back."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from dokocam.vision.sources import (
    ImageFolderSource,
    LiveSource,
    SourceError,
    VideoFileSource,
    open_source,
)


def write_video(path: Path, n: int = 12, fps: float = 10.0) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (64, 48))
    for i in range(n):
        image = np.full((48, 64, 3), i * 20, np.uint8)
        writer.write(image)
    writer.release()


def test_a_missing_file_names_the_path(tmp_path):
    with pytest.raises(SourceError, match="nope.mp4: no such file"):
        open_source(tmp_path / "nope.mp4")


def test_a_corrupt_video_is_a_clear_error(tmp_path):
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 8)
    with pytest.raises(SourceError, match=r"broken\.mp4.*(cannot be opened|no frame could be decoded)"):
        open_source(bad)


def test_a_video_file_yields_timed_frames_and_honours_the_stride(tmp_path):
    path = tmp_path / "clip.mp4"
    write_video(path, n=12, fps=10.0)
    frames = list(VideoFileSource(path))
    assert [f.index for f in frames] == list(range(12))
    assert frames[5].time == pytest.approx(0.5)
    assert frames[0].image.shape == (48, 64, 3)
    strided = list(VideoFileSource(path, stride=3))
    assert [f.index for f in strided] == [0, 3, 6, 9]
    assert strided[2].time == pytest.approx(0.6)


def test_a_folder_of_images_in_natural_order(tmp_path):
    for i in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((8, 8, 3), i, np.uint8))
    (tmp_path / "notes.txt").write_text("not an image")
    source = open_source(tmp_path, fps=5.0)
    assert isinstance(source, ImageFolderSource)
    frames = list(source)
    assert [int(f.image[0, 0, 0]) for f in frames] == [1, 2, 10]
    assert frames[2].time == pytest.approx(0.4)


def test_an_empty_folder_and_an_unreadable_image_are_clear_errors(tmp_path):
    with pytest.raises(SourceError, match="holds no images"):
        open_source(tmp_path)
    (tmp_path / "a.png").write_bytes(b"garbage")
    with pytest.raises(SourceError, match=r"a\.png: cannot be read as an image"):
        list(open_source(tmp_path))


class FakeCapture:
    """A camera that gives ``frames`` images and then fails, as an unplugged webcam does."""

    def __init__(self, frames: int, opened: bool = True) -> None:
        self.frames, self.opened = frames, opened

    def isOpened(self) -> bool:  # noqa: N802
        return self.opened

    def read(self):
        if self.frames <= 0:
            return False, None
        self.frames -= 1
        return True, np.zeros((4, 4, 3), np.uint8)

    def grab(self) -> bool:
        return self.frames > 0

    def get(self, prop: int) -> float:
        return 25.0

    def release(self) -> None:
        self.opened = False


def test_a_camera_that_disappears_is_reopened_with_growing_backoff_and_reported():
    # Opened fine (3 frames), lost, two failed reopenings, back (2 frames), lost for good.
    captures = iter([FakeCapture(3), FakeCapture(0, False), FakeCapture(0, False), FakeCapture(2)])
    sleeps: list[float] = []
    events = []
    source = LiveSource(
        0,
        opener=lambda target: next(captures, FakeCapture(0, False)),
        sleep=sleeps.append,
        initial_backoff=0.5,
        max_backoff=1.5,
        max_attempts=3,
        on_event=events.append,
    )
    frames = list(source)
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    kinds = [e.kind for e in events]
    assert kinds[:4] == ["lost", "retry", "retry", "reconnected"]
    assert kinds[-1] == "lost" and source.reconnects == 1
    assert sleeps == [0.5, 1.0, 1.5, 0.5, 1.0, 1.5]  # doubling, capped, again after the second loss
    assert events[0].to_dict()["type"] == "source_lost"


def test_a_camera_that_never_opens_is_an_error_not_an_endless_retry():
    with pytest.raises(SourceError, match="cannot be opened"):
        LiveSource(7, opener=lambda target: FakeCapture(0, False))
