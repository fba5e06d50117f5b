"""Detections recorded once and replayed: the file round trip, its errors, and `analyze --detections`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dokocam.service.cli import main
from dokocam.vision.detections import Detections
from dokocam.vision.synth.video import GameVideo
from dokocam.vision.table.recording import DetectionsFileError, RecordingHeader, load_detections, save_detections


def test_a_recording_gives_back_the_frames_it_passed_on(tmp_path):
    path = tmp_path / "d.jsonl"
    frames = [
        (0, 0.0, Detections.empty().with_columns(data={"corners": np.zeros(0, np.int64)})),
        (
            3,
            0.75,
            Detections(
                xyxy=[[1, 2, 30, 40], [5, 5, 9, 9]],
                confidence=[0.9, 0.41234],
                class_id=[3, 22],
                data={"corners": np.array([2, 1])},
            ),
        ),
    ]
    header = RecordingHeader(960, 540, "corners", 624)
    passed = list(save_detections(path, header, frames))
    assert [f[0] for f in passed] == [0, 3]
    got_header, got = load_detections(path)
    assert got_header == header
    assert [(i, t) for i, t, _ in got] == [(0, 0.0), (3, 0.75)]
    det = got[1][2]
    assert det.xyxy.tolist() == [[1, 2, 30, 40], [5, 5, 9, 9]] and det.class_id.tolist() == [3, 22]
    assert det.confidence.tolist() == pytest.approx([0.9, 0.4123]) and det.data["corners"].tolist() == [2, 1]
    assert len(got[0][2]) == 0


def test_a_file_that_is_not_a_recording_is_refused_with_the_line_named(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"frame": 0, "time": 0.0, "cards": []}\n')
    with pytest.raises(DetectionsFileError, match=r"d.jsonl:1: the first line must be a 'dokocam-detections/1' header"):
        load_detections(path)
    path.write_text(json.dumps({"format": "dokocam-detections/1", "width": 4, "height": 3}) + '\n{"frame": 1}\n')
    with pytest.raises(DetectionsFileError, match=r"d.jsonl:2: not a frame of detections"):
        load_detections(path)
    with pytest.raises(DetectionsFileError, match="cannot read"):
        load_detections(tmp_path / "missing.jsonl")


def test_analyze_replays_recorded_detections_into_the_game(tmp_path, capsys):
    video = GameVideo(seed=11, tricks=1, fps=5.0)
    recording = tmp_path / "game.detections.jsonl"
    frames = ((i, t, video.truth(t)) for i, t in video.frame_times())
    for _ in save_detections(recording, RecordingHeader(video.width, video.height, "cards"), frames):
        pass
    out = tmp_path / "found.json"
    assert main(["analyze", "unused.mp4", "--json", str(out), "--detections", str(recording), "--stride", "1"]) == 0
    assert json.loads(out.read_text())["events"] == video.game.record()["events"]
    assert main(["analyze", "unused.mp4", "--json", str(out), "--detections", str(recording), "--truth", "x"]) == 2
    assert "give one" in capsys.readouterr().err


def test_bench_table_records_a_game_once_and_replays_it(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from dokocam.vision.bench.table import TableBench, run_bench
    from dokocam.vision.detector import model as model_module

    calls = []

    class Seen:
        """Stands in for the detector: every frame shows one Karo-Ass in the middle."""

        card = SimpleNamespace(target="corners")

        def update(self, image):
            calls.append(image.shape)
            return Detections(xyxy=np.array([[150, 80, 170, 100]], np.float32), confidence=[0.9], class_id=[23])

    monkeypatch.setattr(model_module.CardDetector, "load", classmethod(lambda cls, *a, **k: Seen()))
    args = dict(games=1, seed_base=5, fps=1.0, detector="fake.pt", width=320, height=180, cache=tmp_path)
    first = run_bench(TableBench(**args))
    detected = len(calls)
    assert detected > 0 and len(list(tmp_path.glob("seed5-320x180-*.jsonl"))) == 1
    second = run_bench(TableBench(**args))
    assert len(calls) == detected  # replayed: the detector did not run again
    assert second["games"] == first["games"] and second["summary"]["frames"] == first["summary"]["frames"]


def test_bench_table_lays_a_change_of_light_over_every_frame_the_detector_reads(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from dokocam.vision.bench.table import TableBench, run_bench
    from dokocam.vision.detector import model as model_module
    from dokocam.vision.synth.perturb import PerturbError

    seen: list[np.ndarray] = []

    class Seen:
        card = SimpleNamespace(target="corners")

        def update(self, image):
            seen.append(image.copy())
            return Detections.empty()

    monkeypatch.setattr(model_module.CardDetector, "load", classmethod(lambda cls, *a, **k: Seen()))
    args = dict(games=1, seed_base=5, fps=0.5, detector="fake.pt", width=320, height=180, cache=tmp_path)
    run_bench(TableBench(**args))
    plain, seen[:] = list(seen), []
    report = run_bench(TableBench(**args, light="dark"))
    assert report["summary"]["light"] == "dark" and len(seen) == len(plain) > 3
    # gamma 2.2: every frame darker than the same frame as rendered, and recorded under its own name
    assert all(d.mean() < 0.8 * p.mean() for d, p in zip(seen, plain, strict=True))
    assert len(list(tmp_path.glob("seed5-*-light-dark.jsonl"))) == 1 and len(list(tmp_path.glob("seed5-*.jsonl"))) == 2
    seen.clear()
    run_bench(TableBench(**args, light="noise"))
    # a camera's noise is drawn anew for every frame, not one pattern for the whole video
    residues = [n.astype(int) - p.astype(int) for n, p in zip(seen, plain, strict=True)]
    assert all(8 < r.std() < 16 for r in residues) and not np.array_equal(residues[0], residues[1])
    with pytest.raises(
        PerturbError, match="change of light 'rot90'; choose from dark"
    ):  # a turned camera moves the seats
        run_bench(TableBench(**args, light="rot90"))
    with pytest.raises(PerturbError, match="reads pixels"):
        run_bench(TableBench(games=1, seed_base=5, detector="truth", light="dark"))
