"""Detections recorded once and replayed: the file round trip, its errors, and `analyze --detections`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from service.cli import main
from vision.detections import Detections
from vision.table.recording import DetectionsFileError, RecordingHeader, load_detections, save_detections
from vision.table.render import GameVideo


def test_a_recording_gives_back_the_frames_it_passed_on(tmp_path):
    path = tmp_path / "d.jsonl"
    frames = [
        (0, 0.0, Detections.empty().with_columns(data={"corners": np.zeros(0, np.int64)})),
        (3, 0.75, Detections(xyxy=[[1, 2, 30, 40], [5, 5, 9, 9]], confidence=[0.9, 0.41234], class_id=[3, 22],
                             data={"corners": np.array([2, 1])})),
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
