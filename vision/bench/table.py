"""``dokocam bench table``: render games with unseen seeds, reconstruct them, count what came out right.

A trick counts as reconstructed exactly when its four cards, their seats and their order equal the
ground truth's; a game when its final points per seat equal the ground truth's.

By default every game is drawn in a design held out of the detector's training (the held-out designs in
turn, by seed) and shows real-table events at realistic rates (:class:`~dokocam.vision.synth.video.Mishaps`):
a benchmark on the project's own decks and tidy players would flatter it.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dokocam.vision.detections import Detections
from dokocam.vision.synth.video import Mishaps
from dokocam.vision.table.events import CardPlayed, CardRevised, CardSeen, TableEvent

DESIGN_CHOICES = ("heldout", "train", "drawn")


def noisy(
    det: Detections,
    rng: np.random.Generator,
    *,
    drop: float,
    misread: float,
    corner: float = 0.0,
    jitter: float = 3.0,
) -> Detections:
    """Ground truth made to look like a detector: missed cards, misread cards, wobbly boxes,
    scores below 1, and (``corner``) cards seen by one corner index only (a box a fifth of the
    card's size in one of its corners, as a corner-index detector reports a half-hidden card)."""
    n = len(det)
    if n == 0:
        return det
    keep = rng.random(n) >= drop
    class_id = det.class_id.copy()
    wrong = rng.random(n) < misread
    class_id[wrong] = (class_id[wrong] + rng.integers(1, 24, wrong.sum())) % 24
    confidence = np.where(wrong, rng.uniform(0.3, 0.6, n), rng.uniform(0.55, 0.98, n)).astype(np.float32)
    xyxy = det.xyxy + rng.normal(0, jitter, det.xyxy.shape).astype(np.float32)
    for i in np.nonzero(rng.random(n) < corner)[0]:
        x1, y1, x2, y2 = xyxy[i]
        w, h = (x2 - x1) * 0.22, (y2 - y1) * 0.22
        cx, cy = (x1, y1) if rng.random() < 0.5 else (x2 - w, y2 - h)
        xyxy[i] = (cx, cy, cx + w, cy + h)
    return Detections(xyxy=xyxy[keep], confidence=confidence[keep], class_id=class_id[keep])


def compare(truth_tricks: list[list[tuple[int, str]]], got_tricks: list[list[tuple[int, str]]]) -> int:
    """How many of the true tricks were reconstructed exactly (same index, cards, seats, order)."""
    return sum(1 for k, t in enumerate(truth_tricks) if k < len(got_tricks) and got_tricks[k] == t)


@dataclass(frozen=True)
class TableBench:
    """What ``bench table`` runs: one value the CLI builds from its flags and :func:`run_bench` takes.

    Attributes:
        games, seed_base: how many games, rendered with seeds ``seed_base`` on.
        fps, stride: the videos' frame rate; every ``stride``-th frame is analysed.
        detector: ``truth`` (rendered ground truth as detections, no pixels), ``noisy`` (ground truth
            with detector-like errors: ``drop``, ``misread``, ``corner``, see :func:`noisy`), or a model
            path / ``model`` (the shipped model; renders pixels).
        whole_fraction: tracker: boxes smaller than this part of a card only confirm it (``None``: as
            the detector's model card says).
        whole_frame: model detector: search whole frames, not the trick area only.
        width, height: frame size in pixels.
        cache: model detector: a folder of detection recordings, one per game. A game recorded there
            is replayed instead of rendered and detected (seconds instead of minutes), so tracker
            changes can be measured on real detector output again and again. Use one folder per
            detector: a recording does not know which weights made it (nor whether the trick area was
            cropped: ``whole_frame`` searches every frame whole).
        faces: a face folder every game is played with instead (a user's deck); recordings made with
            it are named after the folder.
        deck: an enrolled deck (``dokocam deck enroll``) whose adapted classifier the model detector
            reads with; recordings made with it are named after it.
        light: one of :data:`vision.synth.perturb.PHOTOMETRIC` (``shadow``, ``dark``, ``washed`` ...)
            laid over every rendered frame before the detector reads it: the same games in another
            room or through another camera. Noise is drawn anew for every frame. Model detectors only.
        decode: decode each whole game from all its sightings (the game decoder, as ``analyze``
            does) instead of the live decoder that ``run`` and ``serve`` use; the event
            latency is then not measured (the events come at the end).
        designs: ``heldout`` draws game ``seed`` in design ``design_for_seed(seed, "heldout")`` (SVG
            decks and font families the detector never saw, in turn), ``train`` cycles through the
            training designs, ``drawn`` plays each seed's own drawn deck (any font, trained on or not).
        mishaps: the real-table events each game stages (``Mishaps()`` for none). Each game's row
            lists the events of its tricks that came out wrong.

    Raises:
        ValueError: ``designs`` is not ``heldout``, ``train`` or ``drawn``.
    """

    games: int = 20
    seed_base: int = 10000
    fps: float = 10.0
    stride: int = 1
    detector: str = "truth"
    drop: float = 0.15
    misread: float = 0.05
    corner: float = 0.0
    whole_fraction: float | None = None
    whole_frame: bool = False
    width: int = 1280
    height: int = 720
    cache: str | Path | None = None
    faces: str | Path | None = None
    deck: str | None = None
    light: str | None = None
    decode: bool = False
    designs: str = "heldout"
    mishaps: Mishaps = field(default_factory=Mishaps.realistic)

    def __post_init__(self) -> None:
        if self.designs not in DESIGN_CHOICES:
            raise ValueError(f"designs must be one of {', '.join(DESIGN_CHOICES)}, got {self.designs!r}")


def run_bench(bench: TableBench, *, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Renders ``bench.games`` games, follows each with a fresh pipeline and scores the result
    (see :class:`TableBench` for what each setting does); ``progress`` is told each game's line.

    Raises:
        PerturbError: ``light`` is not a change of light, or the detector reads no pixels.
    """
    from dokocam.engine.record import load_record
    from dokocam.vision.synth.video import GameVideo, design_for_seed
    from dokocam.vision.table.pipeline import TablePipeline
    from dokocam.vision.table.recording import RecordingHeader, load_detections, save_detections

    light, detector, stride, mishaps = bench.light, bench.detector, bench.stride, bench.mishaps
    width, height, fps, faces = bench.width, bench.height, bench.fps, bench.faces
    if light is not None:
        from dokocam.vision.synth.perturb import PHOTOMETRIC, PerturbError, perturb

        if light not in PHOTOMETRIC:
            raise PerturbError(f"unknown change of light {light!r}; choose from {', '.join(PHOTOMETRIC)}")
        if detector in ("truth", "noisy"):
            raise PerturbError(f"a change of light needs a detector that reads pixels (a model), not {detector!r}")
    model = None
    if detector not in ("truth", "noisy"):
        from dokocam.vision.table.focus import table_detector

        model = table_detector(None if detector == "model" else detector, bench.deck)
        if bench.whole_frame:
            model = model.detector  # every frame whole, as before the trick-area crop
    rows: list[dict[str, Any]] = []
    tricks_total = tricks_exact = games_exact = 0
    pipeline_seconds = detect_seconds = render_seconds = 0.0
    frames_total = 0
    latencies: list[float] = []  # each play's card at rest to the first event showing it as played (seen or played)
    in_turn: list[float] = []  # ... to its first CardPlayed (or revision) so, which waits for every seat before it
    for_good: list[float] = []  # ... to the last revision of its play (a seat relabelled and back counts)
    for g in range(bench.games):
        seed = bench.seed_base + g
        design = None if faces or bench.designs == "drawn" else design_for_seed(seed, bench.designs)
        video = GameVideo(seed=seed, width=width, height=height, fps=fps, faces=faces, design=design, mishaps=mishaps)
        rng = np.random.default_rng(seed)
        if model is not None:
            model.reset()  # each game its own deck
        pipeline = TablePipeline.for_video(width, height, detector=model, offline=bench.decode)
        if bench.whole_fraction is not None:
            pipeline.tracker.whole_fraction = bench.whole_fraction
        shown = ShownPlays()
        questions = 0
        tag = f"-faces-{Path(faces).resolve().name}" if faces else ""
        tag += f"-design-{design.replace(':', '-')}" if design else ""
        tag += f"-events-{mishaps.tag}" if mishaps.tag else ""
        tag += f"-light-{light}" if light else ""
        tag += f"-deck-{bench.deck}" if bench.deck else ""
        recording = (
            Path(bench.cache) / f"seed{seed}-{width}x{height}-fps{fps:g}-stride{stride}{tag}.jsonl"
            if bench.cache and model is not None
            else None
        )

        def detected(video: GameVideo, rng: np.random.Generator) -> Iterator[tuple[int, float, Detections]]:
            nonlocal frames_total, render_seconds, detect_seconds
            for index, t in video.frame_times():
                frames_total += 1
                if index % stride:
                    continue
                t0 = time.perf_counter()
                if model is not None:
                    image, _ = video.render(t, frame=index)
                    if light is not None:
                        image = perturb(image, light, seed=index)
                    t1 = time.perf_counter()
                    det = model.update(image)
                    detect_seconds += time.perf_counter() - t1
                    render_seconds += t1 - t0
                else:
                    det = video.truth(t)
                    if detector == "noisy":
                        det = noisy(det, rng, drop=bench.drop, misread=bench.misread, corner=bench.corner)
                    render_seconds += time.perf_counter() - t0
                yield index, t, det

        frames: Iterator[tuple[int, float, Detections]]
        partial: Path | None = None
        if recording is not None and recording.exists():
            header, replay = load_detections(recording)
            frames_total += header.frames or len(replay)
            frames = iter(replay)
        elif recording is not None:
            recording.parent.mkdir(parents=True, exist_ok=True)
            header = RecordingHeader(
                width=width,
                height=height,
                target=model.card.target if model else "cards",
                frames=sum(1 for _ in video.frame_times()),
            )
            # Written aside and renamed once whole: an interrupted game is recorded again, never replayed short,
            # and two benches recording the same game at once each write their own file.
            partial = recording.with_name(f"{recording.name}.{os.getpid()}.partial")
            frames = save_detections(partial, header, detected(video, rng))
        else:
            frames = detected(video, rng)
        for index, t, det in frames:
            t2 = time.perf_counter()
            events = pipeline.update(det, index, t)
            pipeline_seconds += time.perf_counter() - t2
            shown.note(events)
            # What the dashboard would have asked the table: each one a player's interruption.
            questions += sum(e.type == "needs_confirmation" for e in events)
        if partial is not None and recording is not None:
            partial.replace(recording)
        t2 = time.perf_counter()
        events = pipeline.finish()
        pipeline_seconds += time.perf_counter() - t2
        shown.note(events)
        questions += sum(e.type == "needs_confirmation" for e in events)
        truth_game = load_record(video.game.record()).to_game()
        game = pipeline.game
        truth_tricks = [[(s, str(c)) for s, c in tr.plays] for tr in truth_game.tricks]
        got_tricks = [[(s, str(c)) for s, c in tr.plays] for tr in game.tricks]
        exact = compare(truth_tricks, got_tricks)
        truth_points = list(truth_game.result().points)
        try:
            got_points = list(game.result().points) if game.is_over else None
        except ValueError:
            got_points = None
        same = got_points == truth_points
        if exact == len(truth_tricks) and not bench.decode:
            # The timeline is in play order (cards taken back apart): how long after each card came to rest was it
            # first shown as it was played, and shown so for good?
            plays = [(k, seat, card) for k, trick in enumerate(truth_tricks) for seat, card in trick]
            for n, (play, rest) in enumerate(zip(plays, video.timeline, strict=True)):
                first, played, settled = shown.times(n, play)
                latencies.append(first - rest.land)
                in_turn.append(played - rest.land)
                for_good.append(settled - rest.land)
        tricks_total += len(truth_tricks)
        tricks_exact += exact
        games_exact += int(same)
        odd = video.trick_mishaps()
        wrong = [k for k, t in enumerate(truth_tricks) if k >= len(got_tricks) or got_tricks[k] != t]
        wrong_events = {k: odd.get(k, []) for k in wrong}
        row = {
            "seed": seed,
            "design": str(faces) if faces else design or "drawn",
            "tricks": len(truth_tricks),
            "tricks_exact": exact,
            "points_truth": truth_points,
            "points_got": got_points,
            "points_equal": same,
            "flags": [f.to_dict() for f in game.flags],
            "questions": questions,
            "calibration": (pipeline.decoded.geometry if pipeline.decoded else pipeline.live.geometry).method,
            "events": _count_events(odd),
            "wrong_tricks": wrong_events,
            # What each wrong trick held and what was read ("seat:card", in play order): a misreading, a card in
            # the wrong trick or a seat mixed up each look different.
            "wrong_plays": {
                k: {
                    "truth": [f"{s}:{c}" for s, c in truth_tricks[k]],
                    "got": [f"{s}:{c}" for s, c in got_tricks[k]] if k < len(got_tricks) else [],
                }
                for k in wrong
            },
        }
        rows.append(row)
        if progress:
            progress(
                f"seed {seed} ({row['design']}): {exact}/{len(truth_tricks)} tricks exact, "
                f"points {'equal' if same else 'DIFFER'}, {len(game.flags)} flags, {questions} questions"
                + "".join(f"; trick {k + 1} wrong ({', '.join(e) or 'no event'})" for k, e in wrong_events.items())
            )
    analysed = frames_total
    summary = {
        "detector": detector if model is None else f"model ({detector})",
        "games": bench.games,
        "seed_base": bench.seed_base,
        "video_fps": fps,
        "stride": stride,
        "faces": str(faces) if faces else None,
        "designs": None if faces else bench.designs,
        "events": asdict(mishaps),
        "light": light,
        "whole_fraction": pipeline.tracker.whole_fraction,
        "game_from": "decoder" if bench.decode else "live decoder",
        "tricks_exact_pct": round(100.0 * tricks_exact / max(1, tricks_total), 2),
        "games_points_equal_pct": round(100.0 * games_exact / max(1, bench.games), 2),
        "questions_per_game": round(sum(r["questions"] for r in rows) / max(1, bench.games), 2),
        "pipeline_ms_per_analysed_frame": round(1000.0 * pipeline_seconds / max(1, analysed // stride), 3),
        "detect_ms_per_analysed_frame": round(1000.0 * detect_seconds / max(1, analysed // stride), 2)
        if model
        else None,
        "frames": frames_total,
        "event_latency_s": _spread(latencies),
        "in_turn_latency_s": _spread(in_turn),
        "settled_latency_s": _spread(for_good),
    }
    if model is not None:
        per_frame = (pipeline_seconds + detect_seconds) / max(1, frames_total // stride)
        summary["analyze_video_fps"] = round(stride / per_frame, 1) if per_frame > 0 else None
    if detector == "noisy":
        summary["noise"] = {"drop": bench.drop, "misread": bench.misread, "corner": bench.corner}
    return {"summary": summary, "games": rows}


class ShownPlays:
    """The plays a dashboard shows, in turn order, as the live decoder's events leave them, and when each took
    each of its values (a play shown right, revised to a relabelled seat or another card and revised back has
    three)."""

    def __init__(self) -> None:
        self.history: list[list[tuple[float, tuple[int, str]]]] = []  # per play: (time, (seat, card)), in order
        self.seen: dict[tuple[int, int, str], float] = {}  # (trick, seat, card) first shown ahead of its turn

    def note(self, events: Sequence[TableEvent]) -> None:
        for e in events:
            if isinstance(e, CardPlayed):
                self.history.append([(e.time, (e.seat, e.card))])
            elif isinstance(e, CardRevised):
                self.history[e.play].append((e.time, (e.new_seat, e.new)))
            elif isinstance(e, CardSeen):
                self.seen.setdefault((e.trick, e.seat, e.card), e.time)

    def times(self, n: int, play: tuple[int, int, str]) -> tuple[float, float, float]:
        """For play ``n`` (``(trick, seat, card)``, shown so at the end): when it was first shown so (seen ahead of
        its turn or played), first played so, and shown so for good (its last revision).

        Raises:
            ValueError: the play is not shown so at the end.
        """
        trick, seat, card = play
        if n >= len(self.history) or self.history[n][-1][1] != (seat, card):
            raise ValueError(f"play {n} is not shown as {card} of seat {seat}")
        played = next(t for t, value in self.history[n] if value == (seat, card))
        return min(played, self.seen.get(play, played)), played, self.history[n][-1][0]


def _spread(seconds: list[float]) -> dict[str, float | None]:
    """Median, 95th percentile and largest of ``seconds`` (``None`` each when there are none).

    >>> _spread([0.2, 0.4, 1.0])
    {'median': 0.4, 'p95': 0.94, 'max': 1.0}
    """
    if not seconds:
        return {"median": None, "p95": None, "max": None}
    return {
        "median": round(float(np.median(seconds)), 3),
        "p95": round(float(np.percentile(seconds, 95)), 3),
        "max": round(float(max(seconds)), 3),
    }


def _count_events(by_trick: dict[int, list[str]]) -> dict[str, int]:
    """How many tricks saw each real-table event."""
    return dict(Counter(event for events in by_trick.values() for event in events))
