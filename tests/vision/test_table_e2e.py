"""Rendered games reconstructed end to end: renderer -> detections -> tracker -> decoder -> engine."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dokocam.engine.record import load_record
from dokocam.service.cli import main
from dokocam.service.cli import table as table_cli
from dokocam.vision.bench.table import noisy
from dokocam.vision.detector.model import DEFAULT_MODEL
from dokocam.vision.synth.video import GameVideo, Mishaps
from dokocam.vision.table.pipeline import TablePipeline, analyze_stream, truth_frames


def tricks_of(game) -> list[list[tuple[int, str]]]:
    return [[(s, str(c)) for s, c in t.plays] for t in game.tricks]


def test_a_three_trick_game_is_reconstructed_from_its_ground_truth_detections():
    video = GameVideo(seed=11, tricks=3, fps=5.0)
    frames = [(i, t, video.truth(t)) for i, t in video.frame_times()]
    pipeline = TablePipeline.for_video(video.width, video.height)
    analysis = analyze_stream(frames, pipeline)
    truth = load_record(video.game.record()).to_game()
    assert tricks_of(pipeline.game) == tricks_of(truth)
    assert pipeline.game.flags == []
    kinds = [e.type for e in analysis.events]
    assert kinds.count("card_played") == 12 and kinds.count("trick_complete") == 3
    assert kinds.count("trick_cleared") == 3 and "calibrated" in kinds
    # Every card is reported within a second of coming to rest.
    rest = sorted(c.land for c in video.timeline)
    played = [e.time for e in analysis.events if e.type == "card_played"]
    assert all(0 <= p - r <= 1.0 for p, r in zip(played, rest, strict=True))


def test_a_noisy_detector_is_voted_and_held_into_the_same_tricks():
    video = GameVideo(seed=12, tricks=3, fps=10.0)
    rng = np.random.default_rng(0)
    frames = [(i, t, noisy(video.truth(t), rng, drop=0.15, misread=0.05)) for i, t in video.frame_times()]
    pipeline = TablePipeline.for_video(video.width, video.height)
    analyze_stream(frames, pipeline)
    truth = load_record(video.game.record()).to_game()
    assert tricks_of(pipeline.game) == tricks_of(truth)


def test_the_table_benchmark_counts_the_questions_a_game_raised():
    from dokocam.vision.bench.table import TableBench, run_bench

    tidy = Mishaps()  # no real-table events: only the misreadings raise questions
    clean = run_bench(TableBench(games=1, seed_base=5, fps=2.0, detector="truth", mishaps=tidy))
    misread = run_bench(
        TableBench(games=1, seed_base=5, fps=2.0, detector="noisy", misread=0.6, drop=0.2, mishaps=tidy)
    )
    assert clean["games"][0]["questions"] == 0 and clean["summary"]["questions_per_game"] == 0.0
    # Most cards read as others at random, a fifth never seen: where the game stays unsure, the decoder asks.
    assert misread["games"][0]["questions"] > 0
    assert misread["summary"]["questions_per_game"] == misread["games"][0]["questions"]


@pytest.mark.slow
def test_render_game_analyze_and_run_commands_round_trip_through_files(tmp_path, capsys, monkeypatch):
    out = tmp_path / "game.mp4"
    assert (
        main(["dataset", "render-game", str(out), "--seed", "5", "--fps", "4", "--tricks", "2", "--size", "320x180"])
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["tricks"] == 2 and out.stat().st_size > 0
    truth = json.loads((tmp_path / "game.json").read_text())
    assert truth["format"] == "dokocam-game/1" and len(truth["events"]) == 8
    record = tmp_path / "found.json"
    code = main(
        [
            "analyze",
            str(out),
            "--json",
            str(record),
            "--truth",
            str(tmp_path / "game.frames.jsonl"),
            "--stride",
            "1",
            "--players",
            "Anna,Ben,Cem,Dora",
        ]
    )
    assert code == 0
    found = json.loads(record.read_text())
    assert found["events"] == truth["events"] and found["players"] == ["Anna", "Ben", "Cem", "Dora"]
    events = [json.loads(line) for line in (tmp_path / "found.events.jsonl").read_text().splitlines()]
    assert sum(e["type"] == "card_played" for e in events) == 8
    assert all(0 <= e["confidence"] <= 1 and e["frame"] >= 0 for e in events if e["type"] == "card_played")

    # `run` on the same video, the ground truth standing in for the detector.
    frames = iter(truth_frames(tmp_path / "game.frames.jsonl"))

    class TruthDetector:
        def update(self, image):
            return next(frames)[2]

    monkeypatch.setattr(table_cli, "_load_detector", lambda model, deck=None: TruthDetector())
    capsys.readouterr()
    assert main(["run", "--source", str(out), "--jsonl"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(e["seat"], e["card"]) for e in printed if e["type"] == "card_played"] == [
        (e["seat"], e["play"]) for e in truth["events"]
    ]


def test_a_game_is_played_with_a_face_folder_when_given_one(tmp_path, capsys):
    from dokocam.vision.synth.faces import FaceStyle, write_face_folder

    # An all-red deck on blue stock: no seed draws it, so its pixels can be told apart.
    style = FaceStyle(width=120, stock=(200, 60, 40), inks={s: (0, 0, 255) for s in "CSHD"})
    write_face_folder(tmp_path / "deck", style)
    drawn = GameVideo(seed=5, tricks=1, width=320, height=180, fps=4.0, steady=True)
    folder = GameVideo(seed=5, tricks=1, width=320, height=180, fps=4.0, steady=True, faces=tmp_path / "deck")
    assert folder.game.record() == drawn.game.record() and folder.timeline == drawn.timeline  # only the pixels change
    landed = drawn.timeline[0].land + 0.1
    a, truth_a = drawn.render(landed)
    b, truth_b = folder.render(landed)
    assert truth_a.class_id.tolist() == truth_b.class_id.tolist() != []
    x0, y0, x1, y1 = (int(v) for v in truth_b.xyxy[0])
    card = b[y0:y1, x0:x1].reshape(-1, 3).astype(int)
    # The folder's blue stock shows on the played card (BGR: blue high, red low); the drawn deck's does not.
    assert ((card[:, 0] - card[:, 2]) > 80).mean() > 0.15
    drawn_card = a[y0:y1, x0:x1].reshape(-1, 3).astype(int)
    assert ((drawn_card[:, 0] - drawn_card[:, 2]) > 80).mean() < 0.05, (
        (drawn_card[:, 0] - drawn_card[:, 2]) > 80
    ).mean()
    assert (
        main(
            [
                "dataset",
                "render-game",
                str(tmp_path / "g.mp4"),
                "--seed",
                "5",
                "--tricks",
                "1",
                "--faces",
                str(tmp_path / "none"),
            ]
        )
        == 2
    )
    assert "--faces" in capsys.readouterr().err and not (tmp_path / "g.mp4").exists()
    assert (
        main(["bench", "table", "--games", "1", "--faces", str(tmp_path / "none"), "--json", str(tmp_path / "b.json")])
        == 2
    )
    assert "--faces" in capsys.readouterr().err and not (tmp_path / "b.json").exists()


def test_analyze_refuses_a_bad_contract_with_a_message(tmp_path, capsys):
    assert (
        main(
            [
                "analyze",
                str(tmp_path / "x.mp4"),
                "--json",
                str(tmp_path / "o.json"),
                "--contract",
                "solo:nope:1",
                "--truth",
                "x",
            ]
        )
        == 2
    )
    assert "--contract 'solo:nope:1'" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped detector model in models/ yet")
@pytest.mark.parametrize("seed", [21, 27])  # 27: a deck with an index in every corner, both 10C in one trick
def test_one_rendered_trick_is_reconstructed_by_the_shipped_detector(seed):
    from dokocam.vision.detector.model import CardDetector

    # the table profile: the size the camera pipeline runs the detector at (whole tables, small indices).
    detector = CardDetector.load(profile="table")
    video = GameVideo(seed=seed, tricks=1, fps=4.0)
    frames = []
    for i, t in video.frame_times():
        image, _ = video.render(t, frame=i)
        frames.append((i, t, detector.update(image)))
    pipeline = TablePipeline.for_video(video.width, video.height, detector=detector)
    analyze_stream(frames, pipeline)
    truth = load_record(video.game.record()).to_game()
    assert tricks_of(pipeline.game) == tricks_of(truth)
