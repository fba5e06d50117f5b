"""End to end on a handful of generated images: train 1 epoch, ship, `detect --json`, `eval`, errors.

The model is far too small and short-trained to find cards; these tests check the training path
and the command contracts. `test_shipped_model_*` check the real shipped model.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from dokocam.service.cli import main
from dokocam.vision.detector.model import DEFAULT_MODEL, CardDetector, ModelCard
from dokocam.vision.detector.train import FromScratchError, InitWeightsError, ResumeError, train_locator

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny")
    data = root / "data"
    assert (
        main(
            [
                "dataset",
                "generate",
                str(data),
                "--images",
                "8",
                "--seed",
                "3",
                "--imgsz",
                "160",
                "--val-fraction",
                "0.25",
            ]
        )
        == 0
    )
    run = root / "run"
    assert (
        main(
            [
                "train",
                "--data",
                str(data / "data.yaml"),
                "--model",
                "yolo11t.yaml",
                "--epochs",
                "1",
                "--imgsz",
                "64",
                "--batch",
                "4",
                "--single-cls",
                "--out",
                str(run),
                "--workers",
                "0",
            ]
        )
        == 0
    )
    assert (run / "weights" / "last.pt").exists()
    classifier = root / "tiny.classifier.pt"
    assert (
        main(
            [
                "detector",
                "train",
                "classifier",
                "--data",
                str(data),
                "--out",
                str(classifier),
                "--epochs",
                "1",
                "--variants",
                "1",
            ]
        )
        == 0
    )
    model = root / "models" / "tiny.pt"
    assert (
        main(
            [
                "detector",
                "ship",
                str(run),
                str(model),
                "--classifier",
                str(classifier),
                "--imgsz",
                "64",
                "--conf",
                "0.01",
                "--table-imgsz",
                "96",
            ]
        )
        == 0
    )
    return {"data": data, "model": model, "run": run}


def test_trained_model_loads_with_its_card(tiny: dict[str, Path]):
    detector = CardDetector.load(tiny["model"])
    assert detector.card.target == "corners" and detector.reader is not None
    assert detector.imgsz == 64 and detector.conf == pytest.approx(0.01)
    # Whole table frames get their own inference size; an explicit size still wins.
    assert CardDetector.load(tiny["model"], "table").imgsz == 96
    assert CardDetector.load(tiny["model"], "table", imgsz=128).imgsz == 128
    cards = detector.cards(np.full((90, 160, 3), 200, np.uint8))
    assert cards.xyxy.shape[1] == 4 and set(cards.data) == {"corners"}


def test_detect_json_contract(tiny: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg")
    images = tiny["data"] / "images" / "val"
    rc = main(["detect", str(images), str(broken), "--json", "--model", str(tiny["model"])])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rc == 1  # one image failed
    assert len(lines) == len(list(images.iterdir())) + 1
    *good, bad = lines
    assert bad["image"] == str(broken) and "error" in bad
    for line in good:
        assert set(line) == {"image", "width", "height", "cards"}
        assert (line["width"], line["height"]) == (160, 160)
        for card in line["cards"]:
            assert set(card) == {"card", "confidence", "box"} and len(card["box"]) == 4


def test_eval_writes_its_report(tiny: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "eval"
    assert main(["eval", str(tiny["data"]), "--model", str(tiny["model"]), "--out", str(out), "--examples", "1"]) == 0
    assert "all" in capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["images"] == 2 and metrics["map50"] is not None
    assert (out / "confusion.png").exists()


def test_eval_reads_with_the_profile_asked_for(tiny: dict[str, Path], tmp_path: Path):
    card = ModelCard.load(DEFAULT_MODEL)
    assert card.profile("table").conf != card.profile("photo").conf  # else this test could not tell them apart
    for profile in ("photo", "table"):
        out = tmp_path / profile
        assert main(["eval", str(tiny["data"]), "--profile", profile, "--out", str(out), "--split", "val"]) == 0
        assert json.loads((out / "metrics.json").read_text())["conf"] == card.profile(profile).conf


def test_training_refuses_weights_and_missing_resume(tmp_path: Path):
    with pytest.raises(FromScratchError, match="from scratch"):
        train_locator("data.yaml", model="yolo11n.pt")
    with pytest.raises(ResumeError, match="last.pt"):
        train_locator("data.yaml", out=tmp_path / "nothing", resume=True)


def test_training_continues_own_weights_only(tiny: dict[str, Path], tmp_path: Path, caplog: pytest.LogCaptureFixture):
    # A hub name must be refused before Ultralytics could try to fetch it.
    with pytest.raises(InitWeightsError, match="local .pt"):
        train_locator("data.yaml", model="yolo11t.yaml", init="yolo11n.pt")
    with pytest.raises(SystemExit, match="gone.pt: not a local .pt file"):
        main(
            [
                "detector",
                "train",
                "locator",
                "--data",
                "data.yaml",
                "--model",
                "yolo11t.yaml",
                "--init",
                str(tmp_path / "gone.pt"),
            ]
        )
    earlier = tiny["run"] / "weights" / "last.pt"
    # Another architecture would silently keep a fraction of the earlier weights.
    with pytest.raises(InitWeightsError, match="yolo11t network; --model yolo11n.yaml would keep only part"):
        train_locator("data.yaml", model="yolo11n.yaml", init=earlier)
    run = tmp_path / "again"
    args = [  # no --model: the run takes --init's own architecture
        "train",
        "--data",
        str(tiny["data"] / "data.yaml"),
        "--epochs",
        "1",
        "--imgsz",
        "64",
        "--batch",
        "4",
        "--single-cls",
        "--workers",
        "0",
    ]
    with caplog.at_level(logging.INFO, logger="ultralytics"):
        assert main([*args, "--out", str(run), "--init", str(earlier)]) == 0
    transferred = re.findall(r"Transferred (\d+)/(\d+) items", caplog.text)
    assert transferred and transferred[-1][0] == transferred[-1][1]  # every tensor came from the earlier run


def test_missing_model_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["detect", str(tmp_path), "--model", str(tmp_path / "none.pt")]) == 2
    assert "dokocam detector train locator" in capsys.readouterr().err


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped model in models/")
def test_shipped_model_finds_a_clear_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    # Phone-style synthetic close-ups (not in the training seed): big, clear corner indices.
    data = tmp_path / "data"
    assert (
        main(
            [
                "dataset",
                "generate",
                str(data),
                "--images",
                "6",
                "--seed",
                "11",
                "--closeup-fraction",
                "1",
                "--val-fraction",
                "0",
            ]
        )
        == 0
    )
    capsys.readouterr()
    rc = main(["detect", str(data / "images" / "train"), "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rc == 0 and len(lines) == 6
    found = sum(len(line["cards"]) for line in lines)
    assert found >= 3, lines


def test_bench_detect_times_both_profiles_beside_a_plain_yolo(
    tiny: dict[str, Path], capsys: pytest.CaptureFixture[str]
):
    assert main(["detector", "benchmark", "--frames", "2", "--model", str(tiny["model"]), "--scales", "1", "0.5"]) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    photo, table, plain = result["photo"], result["table"], result["yolo11n.yaml"]
    assert photo["passes"] == 2 and table["passes"] == 1 and result["frames"] == 2
    assert set(photo["stages_median_ms"]) == {"locate", "read", "score", "group"} and table["median_ms"] > 0
    assert result["ratio"] == pytest.approx(photo["median_ms"] / plain["median_ms"])


def test_export_onnx_carries_the_classifier_and_reads_as_torch(
    tiny: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    models = tmp_path / "models"
    shutil.copytree(tiny["model"].parent, models)
    model = models / tiny["model"].name
    assert main(["detector", "export", "--format", "onnx", "--model", str(model)]) == 0
    assert "exported" in capsys.readouterr().out
    onnx_detector = CardDetector.load(model.with_suffix(".onnx"))
    torch_detector = CardDetector.load(model)
    assert onnx_detector.reader.session is not None and torch_detector.reader.session is None
    image = cv2.imread(str(next((tiny["data"] / "images" / "val").iterdir())))
    boxes = np.array([[10, 10, 40, 50], [60, 20, 75, 45], [100, 100, 150, 140]], float)
    assert np.allclose(
        onnx_detector.reader.probabilities(image, boxes), torch_detector.reader.probabilities(image, boxes), atol=1e-5
    )
    from dokocam.vision.detector.classifier import export_source_digest, file_digest

    assert export_source_digest(model.with_suffix(".onnx")) == file_digest(model)  # the locator's export is tagged too


def test_table_frames_read_with_their_own_classifier_shipped_and_exported_beside(tiny: dict[str, Path], tmp_path: Path):
    import torch

    from dokocam.vision.detector.classifier import IndexReader

    # Another classifier for table frames: the tiny one with its weights changed, so the two read differently.
    photo = tiny["model"].parent / "tiny.classifier.pt"
    table = tmp_path / "table.classifier.pt"
    state = torch.load(photo, weights_only=True)
    state["model"] = {k: v * 1.5 if v.is_floating_point() else v for k, v in state["model"].items()}
    torch.save(state, table)
    model = tmp_path / "models" / "t.pt"
    args = [
        "detector",
        "ship",
        str(tiny["run"]),
        str(model),
        "--classifier",
        str(photo),
        "--imgsz",
        "64",
        "--table-classifier",
        str(table),
    ]
    assert main(args) == 0
    assert ModelCard.load(model).classifier("table") == "table.classifier.pt"
    assert (model.parent / "table.classifier.pt").exists()

    image = cv2.imread(str(next((tiny["data"] / "images" / "val").iterdir())))
    boxes = np.array([[10, 10, 40, 50], [60, 20, 75, 45]], float)
    photos, frames = (
        CardDetector.load(model).reader.probabilities(image, boxes),
        CardDetector.load(model, "table").reader.probabilities(image, boxes),
    )
    assert not np.allclose(photos, frames)
    assert np.allclose(frames, IndexReader.load(table).probabilities(image, boxes), atol=1e-6)

    assert main(["detector", "export", "--format", "onnx", "--model", str(model)]) == 0
    assert (model.parent / "tiny.classifier.onnx").exists() and (model.parent / "table.classifier.onnx").exists()
    exported = CardDetector.load(model.with_suffix(".onnx"), "table").reader
    assert exported.session is not None
    assert np.allclose(exported.probabilities(image, boxes), frames, atol=1e-5)


def test_the_default_model_is_the_export_only_while_it_matches_the_pt(
    tiny: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    from dokocam.vision.detector import model as model_module

    models = tmp_path / "models"
    shutil.copytree(tiny["model"].parent, models)
    pt = models / tiny["model"].name
    monkeypatch.setattr(model_module, "DEFAULT_MODEL", pt)
    assert model_module.default_model() == pt  # nothing exported yet
    assert main(["detector", "export", "--format", "onnx", "--model", str(pt)]) == 0
    assert model_module.default_model() == pt.with_suffix(".onnx")
    assert CardDetector.load().path == pt.with_suffix(".onnx")
    shutil.copy(tiny["run"] / "weights" / "last.pt", pt)  # other weights shipped, the export not redone
    with caplog.at_level(logging.WARNING, logger="dokocam.vision.detector.model"):
        assert model_module.default_model() == pt
    assert "was not exported from" in caplog.text


def test_a_stale_missing_or_damaged_classifier_export_is_not_used(
    tiny: dict[str, Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    import torch

    models = tmp_path / "models"
    shutil.copytree(tiny["model"].parent, models)
    model = models / tiny["model"].name
    assert main(["detector", "export", "--format", "onnx", "--model", str(model)]) == 0
    # The classifier is retrained (here: its weights change) after the export.
    checkpoint = next(models.glob("*.classifier.pt"))
    state = torch.load(str(checkpoint), weights_only=True)
    state["model"] = {k: v + 0.5 if v.is_floating_point() else v for k, v in state["model"].items()}
    torch.save(state, str(checkpoint))
    with caplog.at_level(logging.WARNING, logger="dokocam.vision.detector.classifier"):
        detector = CardDetector.load(model.with_suffix(".onnx"))
    assert detector.reader.session is None
    assert "exported from another checkpoint" in caplog.text
    checkpoint.with_suffix(".onnx").unlink()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="dokocam.vision.detector.classifier"):
        assert CardDetector.load(model.with_suffix(".onnx")).reader.session is None
    assert "no ONNX export of the classifier" in caplog.text
    checkpoint.with_suffix(".onnx").write_bytes(b"half a file")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="dokocam.vision.detector.classifier"):
        assert CardDetector.load(model.with_suffix(".onnx")).reader.session is None
    assert "not a readable ONNX model" in caplog.text


def test_train_refiner_learns_from_the_locators_boxes_and_ships_beside_the_model(
    tiny: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    refiner = tmp_path / "tiny.refiner.pt"
    args = [
        "detector",
        "train",
        "refiner",
        "--data",
        str(tiny["data"]),
        "--val",
        str(tiny["data"]),
        "--model",
        str(tiny["model"]),
        "--out",
        str(refiner),
        "--epochs",
        "1",
    ]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert result["refiner"] == str(refiner) and result["epoch"] == 1 and 0 <= result["iou_after"] <= 1
    model = tmp_path / "models" / "tiny.pt"
    assert (
        main(
            [
                "detector",
                "ship",
                str(tiny["run"]),
                str(model),
                "--classifier",
                str(next(tiny["model"].parent.glob("*.classifier.pt"))),
                "--refiner",
                str(refiner),
                "--imgsz",
                "64",
            ]
        )
        == 0
    )
    detector = CardDetector.load(model)
    assert detector.refiner is not None and (model.parent / refiner.name).exists()
    # Exported with the model, and read through onnxruntime beside an exported locator.
    assert main(["detector", "export", "--format", "onnx", "--model", str(model)]) == 0
    assert CardDetector.load(model.with_suffix(".onnx")).refiner.session is not None


def test_train_refiner_refuses_a_foreign_init_and_a_missing_folder(tiny: dict[str, Path], tmp_path: Path):
    with pytest.raises(SystemExit, match="train refiner: .*not a dokocam box refiner"):
        main(
            [
                "detector",
                "train",
                "refiner",
                "--data",
                str(tiny["data"]),
                "--model",
                str(tiny["model"]),
                "--out",
                str(tmp_path / "r.pt"),
                "--init",
                str(next(tiny["model"].parent.glob("*.classifier.pt"))),
            ]
        )
    with pytest.raises(SystemExit, match="train refiner: "):
        main(
            [
                "detector",
                "train",
                "refiner",
                "--data",
                str(tmp_path / "nowhere"),
                "--model",
                str(tiny["model"]),
                "--out",
                str(tmp_path / "r.pt"),
            ]
        )


def test_detect_json_stdout_is_only_json_lines_with_an_exported_model(tiny: dict[str, Path], tmp_path: Path):
    import subprocess
    import sys

    models = tmp_path / "models"
    shutil.copytree(tiny["model"].parent, models)
    model = models / tiny["model"].name
    assert main(["detector", "export", "--format", "onnx", "--model", str(model)]) == 0
    image = next((tiny["data"] / "images" / "train").iterdir())
    # A process of its own: Ultralytics' log handler keeps the stdout it found at import. A new user's first run:
    # no Ultralytics settings file yet, whose creation Ultralytics announces while it is imported.
    fresh = {**os.environ, "YOLO_CONFIG_DIR": str(tmp_path / "new-user-config")}
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))",
            "detect",
            str(image),
            "--json",
            "--model",
            str(model.with_suffix(".onnx")),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=fresh,
    )
    assert run.returncode == 0, run.stderr
    assert list((tmp_path / "new-user-config").rglob("settings.json"))  # the first run's case was met
    lines = run.stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["image"] == str(image)
    assert "ONNX Runtime" in run.stderr  # the load is still reported, where a person reads it


def test_ultralytics_is_imported_for_every_locator_use_without_a_line_on_stdout(tmp_path: Path):
    import subprocess
    import sys

    # Loading, training, exporting and benchmarking a locator all take YOLO from ultralytics_yolo(); a new user's
    # first import (no settings file yet) announces the file it creates, which must not reach stdout.
    fresh = {**os.environ, "YOLO_CONFIG_DIR": str(tmp_path / "new-user-config")}
    code = "from dokocam.vision.yolo import ultralytics_yolo; print(ultralytics_yolo().__name__, end='')"
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False, env=fresh
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == "YOLO"
    assert list((tmp_path / "new-user-config").rglob("settings.json"))


def test_a_context_classifier_is_trained_fitted_on_and_shipped_for_photos_only(
    tiny: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    from dokocam.vision.detector.classifier import IndexReader
    from dokocam.vision.detector.model import ModelNotFoundError
    from dokocam.vision.detector.rescorer import CONTEXT_FEATURES

    context = tmp_path / "ctx.pt"
    assert (
        main(
            [
                "detector",
                "train",
                "classifier",
                "--data",
                str(tiny["data"]),
                "--out",
                str(context),
                "--epochs",
                "1",
                "--variants",
                "1",
                "--pad",
                "1.5",
            ]
        )
        == 0
    )
    assert (
        IndexReader.load(context).pad == 1.5
        and IndexReader.load(tiny["model"].parent / "tiny.classifier.pt").pad == 0.15
    )
    # The readings of a detector with a context classifier carry it, and the rescorer is fitted on it.
    with_context = tmp_path / "c" / "t.pt"
    photo = tiny["model"].parent / "tiny.classifier.pt"
    assert (
        main(
            [
                "detector",
                "ship",
                str(tiny["run"]),
                str(with_context),
                "--classifier",
                str(photo),
                "--imgsz",
                "64",
                "--conf",
                "0.01",
                "--context-classifier",
                str(context),
            ]
        )
        == 0
    )
    rescorer = tmp_path / "r.json"
    assert (
        main(
            [
                "detector",
                "train",
                "rescorer",
                str(tiny["data"]),
                "--out",
                str(rescorer),
                "--model",
                str(with_context),
                "--floor",
                "0.001",
                "--hidden",
                "4",
                "--epochs",
                "20",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert set(CONTEXT_FEATURES) <= set(json.loads(rescorer.read_text())["features"])
    model = tmp_path / "models" / "t.pt"
    assert (
        main(
            [
                "detector",
                "ship",
                str(tiny["run"]),
                str(model),
                "--classifier",
                str(photo),
                "--imgsz",
                "64",
                "--conf",
                "0.01",
                "--rescorer",
                str(rescorer),
                "--context-classifier",
                str(context),
            ]
        )
        == 0
    )
    photos, frames = CardDetector.load(model), CardDetector.load(model, "table")
    assert photos.context is not None and photos.context.pad == 1.5 and photos.rescorer.needs_context
    assert frames.context is None and frames.rescorer is None
    image = cv2.imread(str(next((tiny["data"] / "images" / "val").iterdir())))
    assert "scores" in photos.reads(image, 0.0).data
    # The export carries it, and onnxruntime reads its wide windows as torch does.
    assert main(["detector", "export", "--format", "onnx", "--model", str(model)]) == 0
    exported = CardDetector.load(model.with_suffix(".onnx")).context
    boxes = np.array([[10, 10, 40, 50], [60, 20, 75, 45]], float)
    assert exported.session is not None and exported.pad == 1.5
    assert np.allclose(exported.probabilities(image, boxes), photos.context.probabilities(image, boxes), atol=1e-5)
    # Mined crops are framed with the pad asked for, and a classifier trains only on crops framed as it reads.
    mined = tmp_path / "hard.npz"
    assert main(["dataset", "mine", str(tiny["data"]), "--out", str(mined), "--model", str(model), "--pad", "1.5"]) == 0
    assert float(np.load(mined)["pad"]) == 1.5
    assert (
        main(
            [
                "detector",
                "train",
                "classifier",
                "--crops",
                str(mined),
                "--out",
                str(tmp_path / "x.pt"),
                "--epochs",
                "1",
                "--crop-size",
                "32",
                "--pad",
                "1.5",
            ]
        )
        == 0
    )
    with pytest.raises(SystemExit, match="framed with pad 1.5; this classifier reads crops framed with pad 0.15"):
        main(
            [
                "detector",
                "train",
                "classifier",
                "--crops",
                str(mined),
                "--out",
                str(tmp_path / "x.pt"),
                "--crop-size",
                "32",
            ]
        )
    # A card whose rescorer reads a context classifier it does not name is refused when loaded.
    card = json.loads(model.with_suffix(".json").read_text())
    for stage in card["profiles"]["photo"]["stages"]:
        stage.pop("context_classifier", None)
    model.with_suffix(".json").write_text(json.dumps(card))
    with pytest.raises(ModelNotFoundError, match="names no context_classifier"):
        CardDetector.load(model)
    with pytest.raises(SystemExit):
        main(
            [
                "detector",
                "train",
                "classifier",
                "--data",
                str(tiny["data"]),
                "--out",
                str(tmp_path / "x.pt"),
                "--pad",
                "9",
            ]
        )


def test_a_rescorer_is_fitted_shipped_and_read_for_photos_only(
    tiny: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    rescorer = tmp_path / "r.json"
    # The tiny locator finds junk at best: a low floor gives it readings to fit on (nearly all misses).
    assert (
        main(
            [
                "detector",
                "train",
                "rescorer",
                str(tiny["data"]),
                "--out",
                str(rescorer),
                "--model",
                str(tiny["model"]),
                "--floor",
                "0.001",
                "--hidden",
                "4",
                "--epochs",
                "20",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["readings"] > 0 and report["images"] == 6 and rescorer.exists()
    model = tmp_path / "models" / "t.pt"
    photo = tiny["model"].parent / "tiny.classifier.pt"
    assert (
        main(
            [
                "detector",
                "ship",
                str(tiny["run"]),
                str(model),
                "--classifier",
                str(photo),
                "--imgsz",
                "64",
                "--conf",
                "0.01",
                "--rescorer",
                str(rescorer),
            ]
        )
        == 0
    )
    assert ModelCard.load(model).profile("photo").stage("rescore").rescorer == "r.json"
    photos, frames = CardDetector.load(model), CardDetector.load(model, "table")
    assert photos.rescorer is not None and photos.rescorer.floor == pytest.approx(0.001) and frames.rescorer is None
    image = cv2.imread(str(next((tiny["data"] / "images" / "val").iterdir())))
    found = photos.reads(image, 0.0)
    assert "scores" in found.data and found.confidence.tolist() == pytest.approx(found.data["scores"].max(1).tolist())
    # A damaged rescorer beside the model is a clear error, not a crash deep in a frame.
    (model.parent / "r.json").write_text("{")
    with pytest.raises(ValueError, match="cannot be read as a rescorer"):
        CardDetector.load(model)
    (model.parent / "r.json").unlink()
    assert (
        main(["detect", str(next((tiny["data"] / "images" / "val").iterdir())), "--model", str(model), "--json"]) == 2
    )
    assert "names r.json beside the model, but there is no such file" in capsys.readouterr().err
    assert CardDetector.load(model, "table").rescorer is None  # table frames never needed it
    with pytest.raises(SystemExit, match="--floor must lie between 0 and 1"):
        main(
            [
                "detector",
                "train",
                "rescorer",
                str(tiny["data"]),
                "--out",
                str(rescorer),
                "--model",
                str(tiny["model"]),
                "--floor",
                "2",
            ]
        )
