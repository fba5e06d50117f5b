"""``dokocam bench live``: does memory stay flat over hours of live play?

A recorded game is played again and again through the live loop of ``dokocam run``
(:class:`~vision.table.pipeline.LiveTable`), its frames decoded by the real source class and
numbered and timed on as one long session, so anything that keeps frames, events or games shows
up as growth. The detector is by default a stand-in that replays the video's per-frame ground
truth (two simulated hours in minutes); the real one can be used for short runs.
"""

from __future__ import annotations

import gc
import json
import resource
import time as _time
import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dokocam.demo import DEMO_TRUTH, DEMO_VIDEO
from dokocam.vision.detections import Detections
from dokocam.vision.sources import Frame, open_source

MIB = 1024.0 * 1024.0


class LiveBenchError(ValueError):
    """A bench-live setting that cannot be run: non-positive durations, or ground truth that
    does not cover the video."""


class LoopingSource:
    """A video (or image folder) played again and again as one long live session: frame
    numbers and times go on across passes, each pass starting one frame after the last one.

    Each pass opens the file anew with :func:`~vision.sources.open_source`, so frames are
    decoded exactly as ``dokocam run`` decodes them.

    Args:
        path: the video file or image folder.
        stride: as for :func:`~vision.sources.open_source`.
        passes: how many times to play it (``None``: without end).

    Attributes:
        position: the frame number within its pass of the frame yielded last (what a replayed
            ground truth is looked up by); -1 before the first frame.
        passes_started: passes begun so far.

    Raises:
        SourceError: the file cannot be opened.
    """

    def __init__(self, path: str | Path, *, stride: int | None = None, passes: int | None = None) -> None:
        self.path = Path(path)
        self.stride = stride
        self.passes = passes
        probe = open_source(self.path, stride=stride)  # fails now, not at the first frame
        self.fps = probe.fps
        probe.close()
        self.position = -1
        self.passes_started = 0

    def __iter__(self) -> Iterator[Frame]:
        index_offset, time_offset = 0, 0.0
        while self.passes is None or self.passes_started < self.passes:
            source = open_source(self.path, stride=self.stride)
            self.passes_started += 1
            last: Frame | None = None
            try:
                for frame in source:
                    self.position = frame.index
                    last = frame
                    yield Frame(frame.image, index_offset + frame.index, time_offset + frame.time)
            finally:
                source.close()
            if last is None:
                return
            index_offset += last.index + 1
            time_offset += last.time + 1.0 / self.fps

    def close(self) -> None:
        """Nothing to close between passes: each pass closes its own source."""


class TruthReplay:
    """Stands in for the detector: the ground truth of the frame ``source`` yielded last.

    Raises:
        LiveBenchError: (from ``update``) a frame of the video has no ground truth.
    """

    def __init__(self, truth: Iterable[tuple[int, float, Detections]], source: LoopingSource) -> None:
        self.truth = {index: det for index, _, det in truth}
        self.source = source

    def update(self, image: np.ndarray) -> Detections:
        try:
            return self.truth[self.source.position]
        except KeyError:
            raise LiveBenchError(
                f"frame {self.source.position} of {self.source.path} has no line in the ground truth: "
                "give the FRAMES.jsonl written with this video"
            ) from None


@dataclass(frozen=True)
class Sample:
    """Memory at one point of simulated time (taken between two frames)."""

    minutes: float  # simulated time
    frames: int
    games: int
    rss_mib: float
    heap_mib: float  # Python allocations (tracemalloc), numpy buffers included
    wall_seconds: float


def rss_mib() -> float:
    """The resident set size of this process now (the peak where ``/proc`` is missing)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def slope_per_hour(samples: list[Sample], field: str) -> float | None:
    """Least-squares growth of ``field`` in MiB per simulated hour; ``None`` under two samples."""
    if len(samples) < 2:
        return None
    hours = np.array([s.minutes / 60.0 for s in samples])
    values = np.array([getattr(s, field) for s in samples])
    if np.ptp(hours) == 0:
        return None
    return float(np.polyfit(hours, values, 1)[0])


def run_live_bench(
    *,
    hours: float = 2.0,
    every_minutes: float = 10.0,
    video: str | Path = DEMO_VIDEO,
    truth: str | Path | None = DEMO_TRUTH,
    detector: Any = None,
    detector_label: str | None = None,
    stride: int | None = None,
    top: int = 8,
    progress: Callable[[Sample], None] | None = None,
) -> dict[str, Any]:
    """Plays ``video`` in a loop through :class:`~vision.table.pipeline.LiveTable` for
    ``hours`` of video time and samples memory every ``every_minutes``.

    The first sample at or after ``every_minutes`` is the warm-up baseline (imports, caches and
    the first game's state are in place by then); growth and slopes are measured from it.
    ``gc.collect()`` runs before each sample, so what grows is what is still held.

    Args:
        detector: anything with ``update(image) -> Detections``; ``None``: replay ``truth``.
        detector_label: how the report names ``detector`` (default: its class).
        top: how many of the allocation sites that grew most (tracemalloc, baseline to end)
            to report.

    Returns:
        ``{"samples": [...], "summary": {...}, "top_growth": [...]}``.

    Raises:
        LiveBenchError: non-positive ``hours`` or ``every_minutes``, no ``truth`` and no
            ``detector``, or ground truth that misses a frame.
        SourceError: the video cannot be opened.
    """
    from dokocam.vision.table.pipeline import LiveTable, TablePipeline, truth_frames

    if hours <= 0 or every_minutes <= 0:
        raise LiveBenchError(f"--hours and --every-minutes must be positive, got {hours} and {every_minutes}")
    if detector is None and truth is None:
        raise LiveBenchError(f"{video}: give its ground truth (FRAMES.jsonl) or a detector model")
    truth_path = Path(truth) if truth is not None else None
    started = tracemalloc.is_tracing()
    if not started:
        tracemalloc.start()
    try:
        source = LoopingSource(video, stride=stride)
        if detector is None and truth_path is not None:
            detector = TruthReplay(truth_frames(truth_path, stride=1), source)
        live = LiveTable(detector, lambda w, h: TablePipeline.for_video(w, h, detector=detector))
        samples: list[Sample] = []
        snapshots: list[tracemalloc.Snapshot] = []
        warmup = every_minutes * 60.0
        t0 = _time.perf_counter()

        def sample(at: float) -> None:
            gc.collect()
            s = Sample(
                minutes=round(at / 60.0, 3),
                frames=live.frames,
                games=live.games,
                rss_mib=round(rss_mib(), 2),
                heap_mib=round(tracemalloc.get_traced_memory()[0] / MIB, 3),
                wall_seconds=round(_time.perf_counter() - t0, 2),
            )
            samples.append(s)
            if at >= warmup and not snapshots:
                snapshots.append(tracemalloc.take_snapshot())
            if progress is not None:
                progress(s)

        def timed(frames: Iterable[Frame]) -> Iterator[Frame]:
            """The frames until ``hours`` are over, sampling before each frame that passes a mark."""
            next_at, until, last_time = 0.0, hours * 3600.0, 0.0
            for frame in frames:
                if frame.time >= until:
                    break
                if frame.time >= next_at:
                    sample(frame.time)
                    next_at += every_minutes * 60.0
                last_time = frame.time
                yield frame
            sample(min(until, last_time + 1.0 / source.fps))

        live.run(timed(source))
        wall = _time.perf_counter() - t0
        end = tracemalloc.take_snapshot()
    finally:
        if not started:
            tracemalloc.stop()
    after = [s for s in samples if s.minutes * 60.0 >= warmup] or samples[-1:]
    first, last = after[0], after[-1]
    diffs = end.compare_to(snapshots[0], "lineno") if snapshots else []
    growth = sorted((d for d in diffs if d.size_diff > 0), key=lambda d: -d.size_diff)[:top]
    summary = {
        "video": str(video),
        "detector": "ground truth" if isinstance(detector, TruthReplay) else detector_label or type(detector).__name__,
        "simulated_hours": round(last.minutes / 60.0, 3),
        "warmup_minutes": first.minutes,
        "frames": live.frames,
        "passes": source.passes_started,
        "games": live.games,
        "wall_seconds": round(wall, 1),
        "frames_per_wall_second": round(live.frames / wall, 1) if wall > 0 else None,
        "rss_start_mib": first.rss_mib,
        "rss_end_mib": last.rss_mib,
        "rss_growth_mib": round(last.rss_mib - first.rss_mib, 2),
        "rss_slope_mib_per_hour": _round(slope_per_hour(after, "rss_mib"), 3),
        "rss_peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1),
        "heap_start_mib": first.heap_mib,
        "heap_end_mib": last.heap_mib,
        "heap_growth_mib": round(last.heap_mib - first.heap_mib, 3),
        "heap_slope_mib_per_hour": _round(slope_per_hour(after, "heap_mib"), 4),
    }
    return {
        "samples": [asdict(s) for s in samples],
        "summary": summary,
        "top_growth": [
            {"where": str(stat.traceback), "growth_kib": round(stat.size_diff / 1024.0, 1), "blocks": stat.count_diff}
            for stat in growth
        ],
    }


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def format_table(samples: list[dict[str, Any]]) -> str:
    """The samples as a small text table."""
    lines = [f"{'sim min':>8} {'frames':>7} {'games':>5} {'RSS MiB':>8} {'heap MiB':>9} {'wall s':>7}"]
    for s in samples:
        lines.append(
            f"{s['minutes']:8.1f} {s['frames']:7d} {s['games']:5d} {s['rss_mib']:8.1f} {s['heap_mib']:9.3f} "
            f"{s['wall_seconds']:7.1f}"
        )
    return "\n".join(lines)


def write_report(report: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(report, indent=1) + "\n")
