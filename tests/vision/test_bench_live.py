"""``dokocam bench live``: the demo game looped through the live loop of ``dokocam run``."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from dokocam.service.cli import main
from dokocam.vision.bench.live import DEMO_VIDEO, LiveBenchError, LoopingSource, TruthReplay, run_live_bench
from dokocam.vision.detections import Detections


def tiny_video(path, frames: int = 5, fps: float = 4.0):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (32, 24))
    for k in range(frames):
        writer.write(np.full((24, 32, 3), 40 * k, np.uint8))
    writer.release()
    return path


def test_the_looping_source_numbers_and_times_frames_on_across_passes(tmp_path):
    source = LoopingSource(tiny_video(tmp_path / "five.mp4"), stride=1, passes=3)
    frames = list(source)
    assert [f.index for f in frames] == list(range(15))
    times = [f.time for f in frames]
    assert all(b > a for a, b in zip(times, times[1:]))
    assert times[5] == pytest.approx(5 / source.fps)  # the second pass goes on one frame later
    assert source.passes_started == 3 and source.position == 4
    assert all(f.image.shape == (24, 32, 3) for f in frames)


def test_ground_truth_that_misses_a_frame_of_the_video_is_an_error_naming_it(tmp_path):
    video = tiny_video(tmp_path / "five.mp4")
    truth = [(k, k / 4.0, Detections.empty()) for k in (0, 1, 2)]
    with pytest.raises(LiveBenchError, match="give its ground truth"):
        run_live_bench(hours=0.01, every_minutes=0.1, video=video, truth=None)
    source = LoopingSource(video, stride=1, passes=1)
    replay = TruthReplay(truth, source)
    with pytest.raises(LiveBenchError, match="frame 3 of .*five.mp4"):
        for frame in source:
            replay.update(frame.image)


def test_a_short_run_samples_memory_and_follows_a_new_game_after_each_one(tmp_path):
    # Six simulated minutes hold two passes of the demo game (156 s each) and a third begun.
    report = run_live_bench(hours=0.1, every_minutes=2.0)
    samples, summary = report["samples"], report["summary"]
    assert [s["minutes"] for s in samples] == [0.0, 2.0, 4.0, 6.0]
    assert all(s["rss_mib"] > 0 and s["heap_mib"] > 0 for s in samples)
    assert summary["frames"] == 6 * 60 * 4 and summary["passes"] == 3
    # The second game is only followed if the loop started a new one after the first.
    assert summary["games"] == 2 and samples[-1]["games"] == 2
    assert summary["warmup_minutes"] == 2.0 and summary["simulated_hours"] == 0.1
    for key in (
        "rss_growth_mib",
        "rss_slope_mib_per_hour",
        "heap_growth_mib",
        "heap_slope_mib_per_hour",
        "wall_seconds",
    ):
        assert isinstance(summary[key], float)


def test_a_detector_that_keeps_frames_shows_up_as_heap_growth():
    class Hoarder:
        def __init__(self):
            self.kept = []
            self.seen = 0

        def update(self, image):
            self.seen += 1
            if self.seen % 40 == 0:
                self.kept.append(image)
            return Detections.empty()

    report = run_live_bench(hours=0.05, every_minutes=1.0, detector=Hoarder())
    frame_mib = 960 * 540 * 3 / 2**20
    # 480 frames after the one-minute warm-up: twelve frames kept.
    assert report["summary"]["heap_growth_mib"] > 10 * frame_mib
    assert report["summary"]["heap_slope_mib_per_hour"] > 0
    # The images were allocated where the source decodes them.
    assert "sources.py" in report["top_growth"][0]["where"]


def test_the_command_writes_its_report_and_refuses_a_zero_duration(tmp_path, capsys):
    out = tmp_path / "live.json"
    assert main(["bench", "live", "--hours", "0.02", "--every-minutes", "0.5", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["summary"]["video"] == str(DEMO_VIDEO) and report["summary"]["detector"] == "ground truth"
    assert "sim min" in capsys.readouterr().out
    assert main(["bench", "live", "--hours", "0"]) == 2
    assert "--hours and --every-minutes must be positive" in capsys.readouterr().err
