"""The one seam between the table pipeline and the service: an iterator of events and frames.

The service never sees the detector or the tracker. A *feed* yields ``FeedEvent`` (what the
pipeline concluded: a card was played, a trick is complete, a card needs a person's look) and
``FeedFrame`` (an encoded camera image and the boxes drawn on it). A recorded event list
(``RecordedFeed``) stands in for the camera in tests and in the load benchmark.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

# The pipeline's event kinds (vision/table); anything else is ignored by the service.
CARD_PLAYED = "card_played"
CARD_SEEN = "card_seen"  # a card of the trick in play seen before its turn: shown, not counted
NEEDS_CONFIRMATION = "needs_confirmation"
TRICK_COMPLETE = "trick_complete"
TRICK_CLEARED = "trick_cleared"
FLAG = "flag"


class FeedError(ValueError):
    """A source cannot be opened or a recorded event list is malformed."""


@dataclass(frozen=True)
class FeedEvent:
    """One conclusion of the pipeline.

    Attributes:
        kind: ``card_played``, ``card_seen``, ``needs_confirmation``, ``trick_complete``, ``trick_cleared``,
            ``flag``.
        time: seconds into the source (video time), increasing.
        data: the event's fields; for a card: ``seat`` (0..3), ``card`` (``"QC"``), ``confidence``.
    """

    kind: str
    time: float
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Box:
    """One detected card as the page draws it: pixel box, card code, score."""

    xyxy: tuple[float, float, float, float]
    card: str
    confidence: float


@dataclass(frozen=True)
class FeedFrame:
    """One camera image, JPEG-encoded, with the cards found in it."""

    index: int
    time: float
    jpeg: bytes
    width: int
    height: int
    boxes: Sequence[Box] = ()
    scale: float = 1.0  # width over the camera's own width (a frame shrunk for the pages is < 1)


FeedItem = FeedEvent | FeedFrame


class Feed(Protocol):
    """What the service consumes: iterate it on a worker thread; ``close()`` stops it early.

    ``pacer`` (None for a live camera) lets a resumed file run fast until it reaches new events.
    """

    pacer: Pacer | None

    def __iter__(self) -> Iterator[FeedItem]: ...

    def close(self) -> None: ...


class Pacer:
    """Sleeps so that items come at the pace of their source time, from where pacing (re)starts.

    Setting ``realtime`` False runs as fast as possible (a resumed file catching up with its
    log); turning it on again continues at real speed from the next item on.
    """

    def __init__(self, *, realtime: bool, speed: float = 1.0) -> None:
        self.realtime = realtime
        self.speed = speed
        self._anchor: tuple[float, float] | None = (time.monotonic(), 0.0) if realtime else None

    def wait(self, when: float, stop: Callable[[], bool] = lambda: False) -> None:
        """Returns when the item at source time ``when`` is due (or ``stop()`` is true)."""
        if not self.realtime:
            self._anchor = None
            return
        if self._anchor is None:
            self._anchor = (time.monotonic(), when)
        wall, source = self._anchor
        delay = (when - source) / self.speed - (time.monotonic() - wall)
        while delay > 0 and not stop():
            time.sleep(min(delay, 0.1))
            delay = (when - source) / self.speed - (time.monotonic() - wall)


@runtime_checkable
class FollowsGame(Protocol):
    """A feed that runs its own engine game to tell seats apart (the camera pipeline).

    The table keeps it in step with the game really played: ``game_factory`` builds the next
    game as the table has it set up; ``seating`` names everyone at the table in seating order
    (4, or 5 when the dealer sits out; empty before a Partie); ``contract_changed`` replays the
    running one under the game type people announced; ``game_abandoned`` starts the next game
    (one ended early).
    """

    game_factory: Callable[[], Any] | None
    seating: Callable[[], Sequence[str]] | None

    def contract_changed(self, contract: Any) -> None: ...

    def game_abandoned(self) -> None: ...


@runtime_checkable
class ReadsDeck(Protocol):
    """A feed whose detector can read with an enrolled deck (the camera pipeline).

    ``use_deck`` is called by the table when a ``deck_set`` event is logged; the feed swaps its
    detector between two frames, so no frame is read half with one deck and half with another.
    """

    def use_deck(self, name: str | None) -> None: ...


@runtime_checkable
class Resumes(Protocol):
    """A file the pipeline reads again after a restart: it can start at a time, following a given game.

    The table calls ``resume_at`` before iterating (see ``Scorekeeper.attach``).
    """

    def resume_at(self, seconds: float, game: Any = None) -> None: ...


class RecordedFeed:
    """A recorded list of pipeline events played back as if a camera saw them.

    Each entry is ``{"time": seconds, "kind": ..., **data}``. An entry of kind ``frame`` is a
    camera image: ``{"kind": "frame", "time", "index", "jpeg": base64, "width", "height",
    "boxes": [{"xyxy": [...], "card": "QC", "confidence": 0.9}]}``.

    Args:
        entries: the events, or a path to a ``.json`` list or a ``.jsonl`` file.
        realtime: sleep between entries as their ``time`` says (False: yield at once).
        speed: playback speed factor when ``realtime`` (2.0: twice as fast).

    Raises:
        FeedError: the file is missing or an entry has no ``kind`` or a non-increasing ``time``.
    """

    def __init__(
        self, entries: str | Path | Iterable[Mapping[str, Any]], *, realtime: bool = True, speed: float = 1.0
    ) -> None:
        if isinstance(entries, (str, Path)):
            entries = load_event_list(entries)
        self.events = [_to_item(i, e) for i, e in enumerate(entries)]
        for before, after in zip(self.events, self.events[1:]):
            if after.time < before.time:
                raise FeedError(f"recorded event at time {after.time} comes after time {before.time}; sort the list")
        self.pacer: Pacer | None = Pacer(realtime=realtime, speed=speed)
        self._closed = False

    def __iter__(self) -> Iterator[FeedItem]:
        for event in self.events:
            if self._closed:
                return
            if self.pacer is not None:
                self.pacer.wait(event.time, lambda: self._closed)
            yield event

    def close(self) -> None:
        self._closed = True


def load_event_list(path: str | Path) -> list[dict[str, Any]]:
    """Reads a ``.json`` list or a ``.jsonl`` file of recorded pipeline events."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FeedError(f"cannot read recorded events from {path}: {exc.strerror}") from exc
    try:
        if path.suffix == ".jsonl":
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FeedError(f"{path} is not valid JSON (line {exc.lineno}): {exc.msg}") from exc
    if isinstance(data, dict):
        data = data.get("events", [])
    if not isinstance(data, list):
        raise FeedError(f"{path} must hold a list of events or an object with an 'events' list")
    return data


def _to_item(position: int, entry: Mapping[str, Any]) -> FeedItem:
    if not isinstance(entry, Mapping) or not isinstance(entry.get("kind"), str):
        raise FeedError(f"recorded event #{position} needs a 'kind' string, got {entry!r}")
    data = {k: v for k, v in entry.items() if k not in ("kind", "time")}
    try:
        when = float(entry.get("time", position))
        if entry["kind"] != "frame":
            return FeedEvent(entry["kind"], when, data)
        boxes = [_box(b) for b in data.get("boxes", [])]
        return FeedFrame(
            int(data["index"]),
            when,
            base64.b64decode(data["jpeg"]),
            int(data["width"]),
            int(data["height"]),
            boxes,
            float(data.get("scale", 1.0)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise FeedError(f"recorded event #{position} ({entry['kind']}) is malformed: {exc!r}") from exc


def _box(entry: Mapping[str, Any]) -> Box:
    x1, y1, x2, y2 = (float(v) for v in entry["xyxy"])
    return Box((x1, y1, x2, y2), str(entry["card"]), float(entry.get("confidence", 1.0)))


def is_recorded(source: str) -> bool:
    """True when ``source`` names a recorded event list rather than a camera or a video."""
    return source.endswith((".json", ".jsonl"))
