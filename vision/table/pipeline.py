"""The whole table pipeline in one stage: detections -> tracker -> decoder -> events, the live
loop that follows game after game (:class:`LiveTable`), and the offline analysis of a video into
a ``dokocam-game/1`` record (the tracker's sightings of the whole video decoded at once into the
most probable game by :class:`GameDecoder`).

Also the command-line shorthands for contracts and calls that ``analyze`` accepts.
"""

from __future__ import annotations

import json
import time as _time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dokocam.vision.detections import Detections
from dokocam.vision.table.decoder import DecodedGame, GameDecoder
from dokocam.vision.table.events import GameOver, TableEvent, TrickCleared
from dokocam.vision.table.focus import TrickAreaDetector, forget_deck
from dokocam.vision.table.geometry import TableGeometry
from dokocam.vision.table.live import LiveDecoder
from dokocam.vision.table.tracker import CardTracker

if TYPE_CHECKING:
    from dokocam.vision.sources import Frame


# Seconds between the last logged evidence and the first frame of a camera started again on it.
RESUME_GAP = 1.0


class SpecError(ValueError):
    """A ``--contract``, ``--calls`` or ``--players`` value that cannot be understood."""


SOLO_KINDS = ("queens", "jacks", "fleischlos", "clubs", "spades", "hearts", "diamonds")


def parse_contract(text: str | None) -> dict[str, Any]:
    """A contract from JSON or a shorthand: ``normal``, ``hochzeit:S``, ``silent_hochzeit:S``,
    ``solo:KIND:S``, ``armut:S:PARTNER``.

    >>> parse_contract("solo:queens:2")
    {'type': 'solo', 'kind': 'queens', 'declarer': 2}

    Raises:
        SpecError: neither JSON nor a known shorthand.
    """
    if not text or text == "normal":
        return {"type": "normal"}
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SpecError(f"--contract: not JSON ({exc.msg})") from None
        if not isinstance(data, dict) or "type" not in data:
            raise SpecError('--contract JSON must be an object with a "type", e.g. {"type": "normal"}')
        return data
    parts = text.split(":")
    try:
        if parts[0] in ("hochzeit", "silent_hochzeit") and len(parts) == 2:
            return {"type": parts[0], "declarer": _seat(parts[1])}
        if parts[0] == "solo" and len(parts) == 3 and parts[1] in SOLO_KINDS:
            return {"type": "solo", "kind": parts[1], "declarer": _seat(parts[2])}
        if parts[0] == "armut" and len(parts) == 3:
            return {"type": "armut", "declarer": _seat(parts[1]), "partner": _seat(parts[2])}
    except ValueError:
        pass
    raise SpecError(
        f"--contract {text!r}: use normal, hochzeit:SEAT, silent_hochzeit:SEAT, solo:KIND:SEAT "
        f"(KIND one of {', '.join(SOLO_KINDS)}), armut:SEAT:PARTNER, or a JSON object"
    )


def _seat(text: str) -> int:
    seat = int(text)
    if not 0 <= seat <= 3:
        raise ValueError(seat)
    return seat


CALLS = ("re", "kontra", "no90", "no60", "no30", "black")


def parse_calls(text: str | None) -> list[tuple[int, int, str]]:
    """Announcements as ``SEAT:CALL[@CARDS]`` items separated by commas; ``CARDS`` is how many
    cards had been played when it was said (default 0, before the first card).

    >>> parse_calls("1:re,2:kontra@5")
    [(0, 1, 're'), (5, 2, 'kontra')]

    Raises:
        SpecError: a malformed item (named).
    """
    out: list[tuple[int, int, str]] = []
    for item in filter(None, (t.strip() for t in (text or "").split(","))):
        head, _, at = item.partition("@")
        seat_text, _, call = head.partition(":")
        try:
            seat = _seat(seat_text)
            after = int(at) if at else 0
            if call not in CALLS or not 0 <= after <= 48:
                raise ValueError(item)
        except ValueError:
            raise SpecError(
                f"--calls item {item!r}: use SEAT:CALL[@CARDS], SEAT 0-3, CALL one of {', '.join(CALLS)}"
            ) from None
        out.append((after, seat, call))
    return sorted(out, key=lambda c: c[0])


def parse_players(text: str | None) -> tuple[str, str, str, str]:
    """Raises:
    SpecError: not four comma-separated names."""
    if not text:
        return ("A", "B", "C", "D")
    names = tuple(n.strip() for n in text.split(","))
    if len(names) != 4 or not all(names):
        raise SpecError(f"--players needs four names separated by commas (seat 0 = Vorhand first), got {text!r}")
    return names


@dataclass
class GameSpec:
    """What a person tells the pipeline that no camera sees."""

    players: tuple[str, str, str, str] = ("A", "B", "C", "D")
    contract: dict[str, Any] = field(default_factory=lambda: {"type": "normal"})
    rules: dict[str, Any] = field(default_factory=lambda: {"preset": "tournament"})
    calls: list[tuple[int, int, str]] = field(default_factory=list)

    def game_factory(self) -> Callable[[], Any]:
        from dokocam.engine import Contract, Game, Rules

        rules = Rules.from_dict(self.rules)
        contract = Contract.from_dict(self.contract)
        return lambda: Game(rules, contract, self.players)


class TablePipeline:
    """Detections of one frame in, table events out: the tracker's sightings decoded into the game.

    Live (the default), each frame's landings and departures go to the :class:`LiveDecoder`, whose
    events (plays, revisions, tricks, questions) :meth:`update` returns. Offline (``offline``),
    the sightings are only kept, and :meth:`finish` decodes them all at once into the most
    probable game and returns its events (``dokocam analyze``: the fastest way through a video).

    Args:
        live: the live decoder (holds the evidence, the game so far and the seating).
        tracker: tracks cards (built on the decoder's geometry when ``None``).
        offline: decode once, at :meth:`finish`, with ``decoder``.
        decoder: the costs and beam of the offline decode (a default one when ``None``).
    """

    def __init__(
        self,
        live: LiveDecoder,
        tracker: CardTracker | None = None,
        *,
        offline: bool = False,
        decoder: GameDecoder | None = None,
    ) -> None:
        self.live = live
        self.tracker = tracker or CardTracker(live.geometry)
        self.offline = offline
        self.decoder = decoder or live.decoder
        self.reset()

    @classmethod
    def for_video(
        cls,
        width: int,
        height: int,
        spec: GameSpec | None = None,
        *,
        geometry: TableGeometry | None = None,
        detector: Any = None,
        target: str | None = None,
        offline: bool = False,
    ) -> TablePipeline:
        """A pipeline for frames of ``width x height``; with a ``detector`` whose model card says it
        finds corner indices (or ``target="corners"``, for recorded detections), boxes of one
        corner only confirm a card instead of moving it. A :class:`TrickAreaDetector` is pointed
        at this pipeline's trick area. ``offline``: decode the whole game at :meth:`finish`."""
        spec = spec or GameSpec()
        live = LiveDecoder(spec.game_factory(), geometry or TableGeometry.default(width, height), calls=spec.calls)
        target = target or getattr(getattr(detector, "card", None), "target", None)
        corners = target == "corners"
        tracker = CardTracker(live.geometry, whole_fraction=0.75 if corners else 0.0)
        if isinstance(detector, TrickAreaDetector):
            detector.follow(live)
        return cls(live, tracker, offline=offline)

    def reset(self) -> None:
        """Starts the next game on the same table."""
        self.tracker.reset()
        self.live.reset()
        self.tracker.geometry = self.live.geometry
        self.decoded: DecodedGame | None = None
        self._primed_until: tuple[int, float] | None = None  # the last logged frame and time, until the next frame
        self._shift = (0, 0.0)  # added to the frame index and time of every frame

    def prime(self, evidence: Sequence[Mapping[str, Any]]) -> list[TableEvent]:
        """Decodes the game so far from its logged evidence (a camera started again mid-game) and
        returns the events it leads to. A camera's clock starts again at 0, so frames that come
        earlier than the last logged one are counted on from it, ``RESUME_GAP`` seconds later; new
        tracks are numbered after the logged ones, so no new card takes the place of an old one.

        Raises:
            ValueError: an entry that is no evidence (named).
        """
        events = self.live.replay(evidence)
        tracked = [e for entry in evidence if entry.get("kind") == "tracked" for e in entry["events"]]
        if tracked:
            self.tracker.skip_ids(max(int(e["track"]) for e in tracked))
            self._primed_until = (max(int(e["frame"]) for e in tracked), max(float(e["time"]) for e in tracked))
        return events

    @property
    def calls(self) -> list[tuple[int, int, str]]:
        return self.live.calls

    @property
    def call_errors(self) -> list[str]:
        """Announcements the engine refused."""
        if self.decoded is not None:
            return list(self.decoded.call_errors)
        return self.live.call_errors

    @property
    def game(self) -> Any:
        """The engine's game: the decoded one once :meth:`finish` ran, else the live decoder's."""
        return self.decoded.game if self.decoded is not None else self.live.game

    def update(self, detections: Detections, frame: int, time: float) -> list[TableEvent]:
        if self._primed_until is not None:
            last_frame, last_time = self._primed_until
            self._primed_until = None
            if time <= last_time:
                self._shift = (last_frame + 1 - frame, last_time + RESUME_GAP - time)
        frame, time = frame + self._shift[0], time + self._shift[1]
        landed = self.tracker.update(detections, frame, time)
        if self.offline:
            self.live.evidence.add(landed)
            return []
        events = self.live.update(landed)
        self.tracker.geometry = self.live.geometry  # the seating found from the cards moves the trick area
        return events

    def finish(self) -> list[TableEvent]:
        """Decodes every sighting so far into the game (an offline pipeline only; once) and
        returns its events: plays, tricks, flags, questions."""
        if not self.offline or self.decoded is not None:
            return []
        self.decoded = self.decoder.decode(
            self.live.evidence.sightings,
            self.live.game_factory,
            self.live.initial_geometry,
            calls=self.calls,
            fixed=self.live.fixed,
        )
        return self.decoded.events()

    def record(self) -> dict[str, Any]:
        """The game so far as a ``dokocam-game/1`` record (plays and calls only)."""
        self.finish()
        game = self.game
        events = [e.to_dict() for e in game.history if hasattr(e, "card") or hasattr(e, "call")]
        return {
            "format": "dokocam-game/1",
            "players": list(game.players),
            "rules": game.rules.to_dict(),
            "contract": game.contract.to_dict(),
            "events": events,
        }


class LiveTable:
    """Follows game after game at one table, frame by frame: the loop of ``dokocam run``.

    A game is over when its twelfth trick is complete; once that trick is off the table the
    pipeline is reset, and the next cards start a new game whose Vorhand sits one place clockwise.

    Args:
        detector: anything with ``update(image) -> Detections``.
        make_pipeline: builds the pipeline for frames of ``(width, height)``; called with the
            first frame, because a live source knows its size only then.
        on_event: called with each table event as it comes, before a new game replaces the
            finished one (so it can still read that game from ``self.pipeline``).
        on_new_game: called when a new game starts.
    """

    def __init__(
        self,
        detector: Any,
        make_pipeline: Callable[[int, int], TablePipeline],
        *,
        on_event: Callable[[TableEvent], None] | None = None,
        on_new_game: Callable[[], None] | None = None,
    ) -> None:
        self.detector = detector
        self.make_pipeline = make_pipeline
        self.on_event = on_event
        self.on_new_game = on_new_game
        self.pipeline: TablePipeline | None = None
        self.frames = 0
        self.games = 0  # games over so far
        self._game_over = False

    def run(self, frames: Iterable[Frame]) -> None:
        """Follows every frame until the source ends (closing it is the caller's)."""
        for frame in frames:
            self.update(frame)

    def update(self, frame: Frame) -> list[TableEvent]:
        """Detects, tracks and follows one frame; returns its table events."""
        if self.pipeline is None:
            height, width = frame.image.shape[:2]
            self.pipeline = self.make_pipeline(width, height)
        pipeline = self.pipeline
        events = pipeline.update(self.detector.update(frame.image), frame.index, frame.time)
        self.frames += 1
        for event in events:
            if self.on_event is not None:
                self.on_event(event)
            if isinstance(event, GameOver):
                self._game_over = True
                self.games += 1
            elif isinstance(event, TrickCleared) and self._game_over:
                self._game_over = False
                live = pipeline.live
                live.initial_geometry = live.initial_geometry.with_vorhand(live.initial_geometry.vorhand + 1)
                pipeline.reset()
                forget_deck(self.detector)  # a new game may bring another deck
                if self.on_new_game is not None:
                    self.on_new_game()
        return events


@dataclass
class Analysis:
    """The outcome of analysing one video."""

    record: dict[str, Any]
    events: list[TableEvent]
    frames_read: int
    frames_analysed: int
    seconds: float
    detect_seconds: float

    @property
    def fps(self) -> float:
        """Video frames per wall-clock second (skipped frames count: they were covered)."""
        return self.frames_read / self.seconds if self.seconds > 0 else 0.0


def analyze_stream(
    frames: Iterable[tuple[int, float, Detections]],
    pipeline: TablePipeline,
    *,
    total_frames: int | None = None,
    on_event: Callable[[TableEvent], None] | None = None,
    detect_seconds: Callable[[], float] | None = None,
) -> Analysis:
    """Runs ``pipeline`` over ``(frame index, time, detections)``; returns the record and events."""
    start = _time.perf_counter()
    events: list[TableEvent] = []
    analysed = 0
    last = -1
    for index, time, detections in frames:
        analysed += 1
        last = index
        for event in pipeline.update(detections, index, time):
            events.append(event)
            if on_event is not None:
                on_event(event)
    for event in pipeline.finish():
        events.append(event)
        if on_event is not None:
            on_event(event)
    seconds = _time.perf_counter() - start
    return Analysis(
        record=pipeline.record(),
        events=events,
        frames_read=total_frames if total_frames else last + 1,
        frames_analysed=analysed,
        seconds=seconds,
        detect_seconds=detect_seconds() if detect_seconds else 0.0,
    )


def detect_video(
    path: str | Path, detector: Any, *, stride: int | None = None
) -> tuple[Iterable[tuple[int, float, Detections]], Any, Callable[[], float]]:
    """``(frame, time, detections)`` of every ``stride``-th frame of a video (``None``: about
    ``ANALYSED_PER_SECOND`` frames a video second), by ``detector`` (anything with
    ``update(image) -> Detections``); also returns the source and a timer."""
    from dokocam.vision.sources import VideoFileSource

    source = VideoFileSource(path, stride=stride)
    spent = [0.0]

    def gen() -> Iterable[tuple[int, float, Detections]]:
        for frame in source:
            t0 = _time.perf_counter()
            det = detector.update(frame.image)
            spent[0] += _time.perf_counter() - t0
            yield frame.index, frame.time, det

    return gen(), source, lambda: spent[0]


def truth_frames(path: str | Path, *, stride: int | None = 1) -> list[tuple[int, float, Detections]]:
    """Per-frame ground truth (``.frames.jsonl`` of ``dataset render-game``) as detections, every
    ``stride``-th (``None``: by the frame rate, as for a video)."""
    from dokocam.vision.synth.video import truth_detections

    lines = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    return every_nth(list(truth_detections(lines)), stride)


def frame_rate(frames: Sequence[tuple[int, float, Detections]]) -> float:
    """Video frames per second, from the indices and times of (possibly skipped) frames; 0 when
    fewer than two frames are timed apart."""
    if len(frames) < 2 or frames[-1][1] <= frames[0][1]:
        return 0.0
    return (frames[-1][0] - frames[0][0]) / (frames[-1][1] - frames[0][1])


def every_nth(
    frames: Sequence[tuple[int, float, Detections]], stride: int | None
) -> list[tuple[int, float, Detections]]:
    """The frames whose index is a multiple of ``stride`` (``None``: the stride that keeps about
    ``ANALYSED_PER_SECOND`` frames a video second, as a video source would)."""
    from dokocam.vision.sources import stride_for

    step = stride if stride is not None else stride_for(frame_rate(frames))
    return [f for f in frames if f[0] % step == 0]
