"""Frame sources: a webcam, a video file, a network stream or a folder of images, behind one interface.

Every source is an iterable of :class:`Frame` (a BGR image, its index and its time in seconds).
Files fail loudly with :class:`SourceError`; live sources (cameras, streams) that drop out are
reopened with exponential backoff and reported through ``on_event`` and the log, never a crash.

>>> source = open_source("no/such/video.mp4")
Traceback (most recent call last):
...
dokocam.vision.sources.SourceError: no/such/video.mp4: no such file or folder
"""

from __future__ import annotations

import logging
import re
import time as _time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")

# Frames analysed per video second when no stride is given: the tracker wants every card seen
# at rest in a few frames, and more frames than this only cost detector time.
ANALYSED_PER_SECOND = 8.0


def stride_for(fps: float, per_second: float = ANALYSED_PER_SECOND) -> int:
    """The stride that analyses at least ``per_second`` frames of each video second.

    >>> stride_for(30.0), stride_for(25.0), stride_for(4.0)
    (3, 3, 1)
    """
    return max(1, int(fps // per_second)) if fps > 0 else 1


class SourceError(ValueError):
    """A source that cannot be opened or read; the message names the path and what is wrong."""


@dataclass(frozen=True, eq=False)
class Frame:
    """One image from a source.

    Attributes:
        image: ``(h, w, 3)`` uint8 BGR pixels.
        index: position of the frame in its source, counting every frame (skipped ones too).
        time: seconds since the start of the source (video time for files, wall time for live ones).
    """

    image: np.ndarray
    index: int
    time: float


@dataclass(frozen=True)
class SourceEvent:
    """Something a live source reports: ``kind`` is ``"lost"``, ``"reconnected"`` or ``"retry"``."""

    kind: str
    source: str
    message: str
    time: float

    def to_dict(self) -> dict[str, Any]:
        return {"type": f"source_{self.kind}", "source": self.source, "message": self.message, "time": self.time}


class FrameSource(Protocol):
    """What every source offers."""

    fps: float

    def __iter__(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` the sources use (so tests can pass a fake)."""

    def isOpened(self) -> bool: ...  # noqa: N802

    def read(self) -> tuple[bool, np.ndarray | None]: ...

    def grab(self) -> bool: ...

    def get(self, prop: int) -> float: ...

    def release(self) -> None: ...


def _natural_key(path: Path) -> list[Any]:
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]


class VideoFileSource:
    """Frames of a video file, in video time.

    Args:
        path: the video file.
        stride: yield every ``stride``-th frame (the others are grabbed, not decoded to images);
            raising it speeds analysis up and coarsens the time resolution. ``None``: by the
            video's frame rate, about ``ANALYSED_PER_SECOND`` frames a second.

    Raises:
        SourceError: the file is missing or cannot be decoded as video.
    """

    def __init__(self, path: str | Path, *, stride: int | None = None) -> None:
        import cv2

        if stride is not None and stride < 1:
            raise SourceError(f"{path}: stride must be at least 1, got {stride}")
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"{self.path}: no such file")
        self._capture: Any = cv2.VideoCapture(str(self.path))
        if not self._capture.isOpened():
            raise SourceError(f"{self.path}: cannot be opened as video (corrupt, or not a video format OpenCV reads)")
        fps = float(self._capture.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 0.0 < fps < 1000.0 else 30.0
        self.stride = stride if stride is not None else stride_for(self.fps)
        self.frame_count = int(self._capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        ok, first = self._capture.read()
        if not ok or first is None:
            self._capture.release()
            raise SourceError(f"{self.path}: opened, but no frame could be decoded (corrupt or empty video)")
        self._first: np.ndarray | None = first
        self.width, self.height = int(first.shape[1]), int(first.shape[0])

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        if self._first is None:
            raise SourceError(f"{self.path}: a video file source can be iterated only once")
        image, self._first = self._first, None
        yield Frame(image, 0, 0.0)
        while True:
            for _ in range(self.stride - 1):
                if not self._capture.grab():
                    return
                index += 1
            ok, image = self._capture.read()
            if not ok or image is None:
                return
            index += 1
            yield Frame(image, index, index / self.fps)

    def close(self) -> None:
        self._capture.release()


class ImageFolderSource:
    """The images of a folder in natural name order (``2.png`` before ``10.png``), as frames at ``fps``.

    Raises:
        SourceError: the folder is missing or holds no images, or an image cannot be read
            (raised when that image is reached, naming it).
    """

    def __init__(self, path: str | Path, *, fps: float = 10.0) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise SourceError(f"{self.path}: no such folder")
        self.files = sorted(
            (p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()), key=_natural_key
        )
        if not self.files:
            raise SourceError(f"{self.path}: the folder holds no images ({', '.join(IMAGE_SUFFIXES)})")
        self.fps = fps

    def __iter__(self) -> Iterator[Frame]:
        import cv2

        for index, file in enumerate(self.files):
            image = cv2.imread(str(file), cv2.IMREAD_COLOR)
            if image is None:
                raise SourceError(f"{file}: cannot be read as an image (corrupt or unsupported format)")
            yield Frame(image, index, index / self.fps)

    def close(self) -> None:
        pass


class LiveSource:
    """A camera or a network stream that is reopened with exponential backoff when it drops out.

    Args:
        target: camera index or stream URL, passed to ``cv2.VideoCapture``.
        initial_backoff: seconds to wait before the first reopening attempt.
        max_backoff: the longest wait between attempts; the wait doubles after each failure
            up to this (raising it spares a dead camera, lowering it reconnects sooner).
        max_attempts: give up (end the stream) after this many failed attempts in a row;
            ``None`` retries forever, as a live table wants.
        on_event: called with a :class:`SourceEvent` when the source is lost, retried or back.
        opener: builds the capture (``cv2.VideoCapture`` by default; tests pass a fake).
        clock, sleep: time functions (injectable for tests).

    Raises:
        SourceError: the source cannot be opened at all the first time (a wrong index or URL
            should be fixed, not retried forever).
    """

    def __init__(
        self,
        target: int | str,
        *,
        initial_backoff: float = 0.5,
        max_backoff: float = 30.0,
        max_attempts: int | None = None,
        on_event: Callable[[SourceEvent], None] | None = None,
        opener: Callable[[int | str], Capture] | None = None,
        clock: Callable[[], float] = _time.monotonic,
        sleep: Callable[[float], None] = _time.sleep,
    ) -> None:
        self.target = target
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.max_attempts = max_attempts
        self.on_event = on_event
        self._opener = opener or _cv2_opener
        self._clock = clock
        self._sleep = sleep
        self._start = clock()
        self.reconnects = 0
        self._capture: Capture | None = self._opener(target)
        if not self._capture.isOpened():
            raise SourceError(f"{target}: cannot be opened (no such camera, or the stream is unreachable)")
        fps = float(self._capture.get(5) or 0.0)  # 5 == cv2.CAP_PROP_FPS
        self.fps = fps if 0.0 < fps < 1000.0 else 30.0

    def _report(self, kind: str, message: str) -> None:
        event = SourceEvent(kind, str(self.target), message, self._clock() - self._start)
        log.warning("source %s: %s", self.target, message)
        if self.on_event is not None:
            self.on_event(event)

    def _reopen(self) -> bool:
        wait = self.initial_backoff
        attempt = 0
        while self.max_attempts is None or attempt < self.max_attempts:
            attempt += 1
            self._sleep(wait)
            capture = self._opener(self.target)
            if capture.isOpened():
                self._capture = capture
                self.reconnects += 1
                self._report("reconnected", f"reconnected after {attempt} attempt(s)")
                return True
            capture.release()
            wait = min(wait * 2.0, self.max_backoff)
            self._report("retry", f"attempt {attempt} failed; next in {wait:.1f} s")
        self._report("lost", f"gave up after {attempt} attempts")
        return False

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        while self._capture is not None:
            ok, image = self._capture.read()
            if ok and image is not None:
                yield Frame(image, index, self._clock() - self._start)
                index += 1
                continue
            self._capture.release()
            self._capture = None
            self._report("lost", "no frame; reopening with backoff")
            if not self._reopen():
                return

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


def _cv2_opener(target: int | str) -> Capture:
    import cv2

    return cv2.VideoCapture(target)


def open_source(spec: str | int | Path, *, stride: int | None = None, fps: float = 10.0, **live: Any) -> FrameSource:
    """Opens what ``spec`` names: a camera index (``0`` or ``"0"``), a URL (``rtsp://``, ``http://``...),
    a folder of images or a video file.

    Args:
        spec: the source.
        stride: for video files, yield every ``stride``-th frame (``None``: about
            ``ANALYSED_PER_SECOND`` frames a video second).
        fps: for image folders, the frame rate the images are timed at.
        **live: keyword arguments for :class:`LiveSource` (backoff, ``on_event``...).

    Raises:
        SourceError: the source does not exist or cannot be opened.
    """
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return LiveSource(int(spec), **live)
    if isinstance(spec, str) and "://" in spec:
        return LiveSource(spec, **live)
    path = Path(spec)
    if path.is_dir():
        return ImageFolderSource(path, fps=fps)
    if path.is_file():
        return VideoFileSource(path, stride=stride)
    raise SourceError(f"{spec}: no such file or folder")
