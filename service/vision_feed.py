"""The camera or video feed: frames through the detector and ``vision.table``'s pipeline.

Imported only when a camera or video source is used (it loads OpenCV and the detector).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2

from dokocam.engine import CARD_CODES, Game
from dokocam.service.feed import Box, FeedEvent, FeedFrame, FeedItem, Pacer
from dokocam.service.table import calls_of
from dokocam.vision.detections import Detections
from dokocam.vision.sources import open_source
from dokocam.vision.table.focus import forget_deck
from dokocam.vision.table.pipeline import TablePipeline

log = logging.getLogger(__name__)

_JPEG_QUALITY = 75
_MAX_WIDTH = 960  # pages need no more; smaller JPEGs reach phones sooner


class TruthDetector:
    """Stands in for the card detector with a rendered video's ground truth (``*.frames.jsonl``).

    Gives the true cards of the frame with the index asked for. For the demo without a trained
    model, and for tests.
    """

    def __init__(self, frames_jsonl: str | Path, *, stride: int = 1) -> None:
        from dokocam.vision.table.pipeline import truth_frames

        self._frames = {index: found for index, _, found in truth_frames(frames_jsonl, stride=stride)}

    def at(self, index: int) -> Detections:
        """The true cards of frame ``index`` (none for a frame without truth)."""
        return self._frames.get(index, Detections.empty())


class VisionFeed:
    """Yields the pipeline's events and, ``fps`` times a second, an encoded frame with its boxes.

    Args:
        source: camera index, stream URL, video file or image folder (``vision.sources``).
        realtime: pace a file at its own frame rate (a live camera paces itself).
        fps: how many frames a second are encoded for the pages.
        stride: run the detector on every ``stride``-th frame of a file; ``None`` (default)
            analyses about as many frames a video second as ``dokocam analyze`` does, so a 4 fps
            demo is read frame by frame and a 30 fps recording every few frames.
        model: detector weights; the shipped model when None.
        deck: an enrolled deck whose adapted classifier reads the cards (``dokocam deck enroll``).
        detector: anything with ``update(image) -> Detections`` to use instead of loading ``model``.

    Raises:
        SourceError, ModelNotFoundError: the source or the model cannot be opened.
    """

    def __init__(
        self,
        source: str,
        *,
        realtime: bool = True,
        fps: float = 5.0,
        stride: int | None = None,
        model: str | None = None,
        deck: str | None = None,
        detector: Any = None,
    ) -> None:
        self.source = open_source(source, stride=stride)  # first: a wrong path fails before the model loads
        if detector is None:
            from dokocam.vision.table.focus import table_detector

            detector = table_detector(model, deck)
        self.detector = detector
        self.model = model
        self.deck = deck
        # A deck's detector, loaded on its own thread; its reading is swapped in between frames.
        self._next_reading: Any = None
        # A live camera paces itself; a file is paced by its frame times.
        self.pacer = Pacer(realtime=realtime) if Path(str(source)).is_file() else None
        self.frame_interval = 1.0 / fps
        # The table sets this to build each game as it stands (players, rules, contract), so the
        # pipeline follows the turn order of the game that is really played.
        self.game_factory: Callable[[], Any] | None = None
        # Everyone at the table, clockwise from place 0; the table sets it (see ``_use_current_game``).
        self.seating: Callable[[], Sequence[str]] | None = None
        self._new_contract: Any = None  # set by the table's thread, taken up by the feed's
        self._new_calls: list[tuple[int, int, str]] | None = None  # the same way
        self._fixes: list[tuple[int, int, str]] = []  # people's corrections, the same way
        self._primed: list[dict[str, Any]] = []  # the game's evidence from the log, decoded before the first frame
        self._restart = False
        self._places: tuple[str, ...] | None = None  # players clockwise from place 0
        self._closed = False
        self._start_time = 0.0  # frames before it are skipped undetected (a resumed file)
        self._first_game: Any = None  # the game the pipeline follows first, when not the table's current one
        self.frames_detected = 0

    def resume_at(self, seconds: float, game: Any = None) -> None:
        """Starts detecting at ``seconds`` into the file, following ``game`` first (None: the table's current game).

        The table resumes a file after a restart here: at the start of the last game the camera
        saw, so the pipeline knows that game's tricks again without detecting the whole file.
        """
        self._start_time = max(0.0, seconds)
        self._first_game = game

    def contract_changed(self, contract: Any) -> None:
        """Decodes the pipeline's game under ``contract`` (engine seats) before the next frame."""
        self._new_contract = contract

    def calls_changed(self, calls: Sequence[tuple[int, int, str]]) -> None:
        """Decodes the pipeline's game with the table's announcements before the next frame:
        ``(cards played before, engine seat, call)``, all of the game's so far."""
        self._new_calls = list(calls)

    def prime(self, evidence: Sequence[dict[str, Any]]) -> None:
        """Decodes the running game from its logged evidence before the first frame (a camera started
        again mid-game): the game, its revisions and what was shown are as before; nothing is reported again."""
        self._primed = list(evidence)

    def card_fixed(self, trick: int, seat: int, card: str) -> None:
        """A person corrected a camera card: the decoder holds ``seat`` (engine seat) to ``card`` in
        ``trick`` from the next frame on, whatever it sees later."""
        self._fixes.append((trick, seat, card))

    def game_abandoned(self) -> None:
        """Starts the table's next game before the next frame (the running one ended early)."""
        self._restart = True

    def use_deck(self, name: str | None) -> None:
        """Reads with the enrolled deck ``name`` (None: the shipped classifier) from a frame soon after.

        Only the card detector's classifier changes: its weights load on a thread of their own
        (a second or two), and the loop swaps them in between two frames, so the camera never waits
        for them and the trick area, the tracker and the game followed stay as they are.
        """
        inner = getattr(self.detector, "detector", self.detector)
        if getattr(inner, "reader", None) is None:
            log.warning("this feed's detector has no classifier a deck could replace; deck %s not used", name)
            return

        def load() -> None:
            from dokocam.vision.decks.adapt import load_detector

            try:
                self._next_reading = load_detector(self.model, deck=name, table=True)
                self.deck = name
            except (ValueError, OSError):
                log.exception("deck %s could not be loaded; the camera reads on with the classifier it had", name)

        threading.Thread(target=load, name=f"deck-{name}", daemon=True).start()

    def __iter__(self) -> Iterator[FeedItem]:
        pipeline: TablePipeline | None = None
        last_sent = -1e9
        game_over = False
        for frame in self.source:
            if self._closed:
                return
            if frame.time < self._start_time:
                continue
            if self.pacer is not None:
                self.pacer.wait(frame.time, lambda: self._closed)
            if pipeline is None:
                height, width = frame.image.shape[:2]
                pipeline = TablePipeline.for_video(width, height, detector=self.detector)
                self._use_current_game(pipeline, self._first_game)
                if self._primed:
                    pipeline.prime(self._primed)  # its events are in the log already
            if self._restart:
                self._restart = False
                self._use_current_game(pipeline)
            reading, self._next_reading = self._next_reading, None
            if reading is not None:
                current = getattr(self.detector, "detector", self.detector)
                current.use_reader(reading.reader, reading.faces, reading.profile.stage("match"))
            logged = len(pipeline.live.evidence_dict())
            events = self._take_table_news(pipeline, frame.index, frame.time)
            detections = self._detect(frame)
            events += pipeline.update(detections, frame.index, frame.time)
            # What the decoder decodes from goes into the log first, so that a restart decodes it again.
            evidence = pipeline.live.evidence_dict()
            for entry in evidence[logged:]:
                yield FeedEvent("camera_evidence", frame.time, {"entry": entry})
            for event in events:
                data = event.to_dict()
                kind = data.pop("type")
                data.pop("time", None)
                yield FeedEvent(kind, frame.time, data)
                if kind == "game_over":
                    game_over = True
                elif kind == "trick_cleared" and game_over:
                    # The last trick is off the table: the next cards belong to a new game.
                    game_over = False
                    self._use_current_game(pipeline)
            if frame.time - last_sent >= self.frame_interval:
                last_sent = frame.time
                yield self._encode(frame.image, detections, frame.index, frame.time)

    def _take_table_news(self, pipeline: TablePipeline, index: int, when: float) -> list[Any]:
        """What the table said since the last frame, given to the decoder as evidence: a contract, the
        announcements, people's corrections."""
        events: list[Any] = []
        contract, self._new_contract = self._new_contract, None
        calls, self._new_calls = self._new_calls, None
        live = pipeline.live
        if contract is not None:
            events += live.set_contract(contract, frame=index, time=when)
        if calls is not None:
            events += live.set_calls(calls, frame=index, time=when)
        fixes, self._fixes = self._fixes, []
        for trick, seat, card in fixes:
            try:
                events += live.fix(trick, seat, card, frame=index, time=when)
            except ValueError:
                log.warning("correction of trick %s seat %s to %s not given to the decoder", trick, seat, card)
        return events

    def _detect(self, frame: Any) -> Detections:
        self.frames_detected += 1
        if isinstance(self.detector, TruthDetector):
            return self.detector.at(frame.index)
        found: Detections = self.detector.update(frame.image)
        return found

    def _use_current_game(self, pipeline: TablePipeline, game: Any = None) -> None:
        """Starts the pipeline on the table's next game (``game``'s set-up when given), Vorhand where it sits."""
        live = pipeline.live
        if self.game_factory is not None:
            # The decoder decodes the game from its first card: the game's set-up, none of its plays.
            setup = game if game is not None else self.game_factory()
            live.game_factory = lambda: Game(setup.rules, setup.contract, setup.players)
            live.calls = calls_of(setup)
            players = tuple(setup.players)
            seating = tuple(self.seating()) if self.seating is not None else ()
            # The places around the table are the table seats (seat 0 at the bottom of the picture), so a
            # camera starting again mid-Partie finds Vorhand where the game has it; Vorhand moves on each game.
            if self._places is None:
                self._places = seating if len(seating) == 4 else players
            if len(seating) == 5 and players[0] in seating:
                # Five chairs, the dealer's empty this game: the geometry skips the place before Vorhand.
                live.initial_geometry = replace(live.initial_geometry, places=5, vorhand=seating.index(players[0]))
            elif players[0] in self._places:
                live.initial_geometry = live.initial_geometry.with_vorhand(self._places.index(players[0]))
        pipeline.reset()
        forget_deck(self.detector)  # a new game may bring another deck

    def _encode(self, image: Any, detections: Any, index: int, when: float) -> FeedFrame:
        height, width = image.shape[:2]
        scale = min(1.0, _MAX_WIDTH / width)
        if scale < 1.0:
            image = cv2.resize(image, (int(width * scale), int(height * scale)), interpolation=cv2.INTER_AREA)
        ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, _JPEG_QUALITY])
        boxes = [
            Box((x1 * scale, y1 * scale, x2 * scale, y2 * scale), CARD_CODES[int(cls)], float(conf))
            for (x1, y1, x2, y2), cls, conf in zip(detections.xyxy.tolist(), detections.class_id, detections.confidence)
        ]
        return FeedFrame(index, when, buffer.tobytes() if ok else b"", image.shape[1], image.shape[0], boxes, scale)

    def close(self) -> None:
        self._closed = True
