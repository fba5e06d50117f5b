"""`dokocam detector build`: every stage on a tiny recipe, skipping what is done, resuming, refusing a mixed build."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import polars
import pytest
import torch

from dokocam.service.cli import main
from dokocam.vision.detector.classifier import DeviceError, train_classifier
from dokocam.vision.detector.evaluate import MAP_CONF, evaluate
from dokocam.vision.detector.model import DEFAULT_MODEL, CardDetector, ModelCard
from dokocam.vision.detector.recipe import STAGES, Recipe, RecipeError, RecipeMismatchError, StageError, build
from dokocam.vision.yolo import read_folder

# A recipe small enough for CI: a handful of 160 px scenes, a 64 px locator, one epoch each.
TINY = Recipe(
    seed=5,
    scenes=8,
    scene_size=160,
    crops=60,
    crop_size=32,
    imgsz=64,
    batch=4,
    locator_epochs=1,
    locator_hours=None,
    locator_val_images=2,
    heldout_scenes=2,
    classifier_epochs=1,
    classifier_minutes=None,
    refiner_epochs=1,
    refiner_minutes=None,
    hard_epochs=1,
    hard_minutes=None,
    table_classifier_epochs=1,
    table_classifier_minutes=None,
    context_epochs=1,
    context_minutes=None,
    rescorer_scenes=4,
    locator_init=str(DEFAULT_MODEL),  # a locator that finds indices after one epoch: the rescorer has readings
    rescorer_epochs=5,
    workers=0,
    device="cpu",
)


@pytest.mark.slow
def test_build_runs_every_stage_then_skips_them(tmp_path: Path):
    logged: list[str] = []
    first = build(tmp_path / "b", TINY, log=logged.append)
    assert list(first.seconds) == list(STAGES) and not first.skipped
    assert all((tmp_path / "b" / ".done" / stage).exists() for stage in STAGES)
    # The model is a real detector with the shipped card's stages at the build's size, every network its own.
    detector = CardDetector.load(first.model)
    shipped = ModelCard.load(DEFAULT_MODEL)
    assert [s.stage for s in detector.profile.stages] == [s.stage for s in shipped.profile("photo").stages]
    locate = detector.profile.stage("locate")
    assert detector.imgsz == 64 and locate.scales == shipped.profile("photo").stage("locate").scales
    assert detector.refiner is not None and detector.profile.stage("refine").refiner == "dokocam-corners.refiner.pt"
    assert detector.profile.stage("rescore").rescorer == "dokocam-corners.rescorer.json"
    assert detector.rescorer is not None and detector.context is not None and detector.context.pad == 1.5
    table = CardDetector.load(first.model, "table")
    assert table.imgsz == 128 and table.profile.stage("read").classifier == "dokocam-corners.table-classifier.pt"
    assert len(set(ModelCard.load(first.model).files())) == 5
    assert all((first.model.parent / name).exists() for name in ModelCard.load(first.model).files())
    for profile in (detector, table):  # every profile loads and runs
        assert profile.cards(np.full((120, 160, 3), 90, np.uint8)).xyxy.shape[1] == 4
    # The shipped classifier is the one trained on from the classifier stage's with the mined hard examples.
    hard = tmp_path / "b" / "hard"
    assert (hard / "hard.npz").exists() and detector.profile.stage("read").classifier == "dokocam-corners.classifier.pt"
    shipped = (tmp_path / "b" / "model" / "dokocam-corners.classifier.pt").read_bytes()
    assert (
        shipped
        == (hard / "dokocam-corners.classifier.pt").read_bytes()
        != (tmp_path / "b" / "dokocam-corners.classifier.pt").read_bytes()
    )
    assert detector.cards(np.full((120, 160, 3), 90, np.uint8)).xyxy.shape[1] == 4
    # Every validation set is scored with both profiles: held-out designs beside unseen scenes of training designs.
    assert list(first.metrics) == ["heldout/photo", "heldout/table", "train-designs/photo", "train-designs/table"]
    scores = first.metrics["heldout/photo"]
    assert (
        set(scores) >= {"precision", "recall", "f1", "map50", "map50_by_size", "map50_visible"}
        and 0 <= scores["f1"] <= 1
    )
    # mAP50 is counted at the model card's low threshold, not at the model's own.
    ranked = evaluate(
        CardDetector.load(first.model, conf=MAP_CONF), read_folder(tmp_path / "b" / "heldout", split="val")
    )
    assert (
        scores["map50_conf"] == MAP_CONF
        and scores["map50"] == ranked.map50
        and scores["map50_visible"] == ranked.visible.map50
    )
    assert json.loads((tmp_path / "b" / "eval" / "heldout" / "photo" / "metrics.json").read_text())["images"] == 2

    again = build(tmp_path / "b", TINY, log=logged.append)
    assert again.skipped == list(STAGES) and not again.seconds
    assert again.metrics == first.metrics  # read back, not lost
    summary = json.loads((tmp_path / "b" / "build.json").read_text())
    assert summary["runs"] == 2 and summary["seconds"]["locator"] == first.seconds["locator"]
    assert sum("already done" in line for line in logged) == len(STAGES)

    # The GPU machine's stand-in for polars reads the trainer's results.csv as polars does.
    results = (tmp_path / "b" / "locator" / "results.csv").read_bytes()
    assert _device_polars().read_csv(results).to_dict(as_series=False) == polars.read_csv(
        results, infer_schema_length=None
    ).to_dict(as_series=False)

    # Another folder to score runs the eval stage again, and only it.
    third = build(tmp_path / "b", TINY, eval_folders=(str(tmp_path / "b" / "scenes"),), log=logged.append)
    assert list(third.seconds) == ["eval"] and set(third.metrics) == {*first.metrics, "scenes"}
    assert third.metrics["heldout/photo"] == first.metrics["heldout/photo"]

    # A stage made again makes what follows it again: a refiner retrained is shipped and scored.
    (tmp_path / "b" / ".done" / "refiner").unlink()
    fourth = build(tmp_path / "b", TINY, log=logged.append)
    assert list(fourth.seconds) == ["refiner", "hard", "table-classifier", "context", "rescorer", "model", "eval"]

    # Without hard examples (--hard-epochs 0) the model ships the classifier stage's own classifier.
    from dokocam.vision.detector.recipe import _hard, _model

    _hard(tmp_path / "b", replace(TINY, hard_epochs=0), logged.append)
    _model(tmp_path / "b", TINY)
    assert not (hard / "dokocam-corners.classifier.pt").exists()
    assert (tmp_path / "b" / "model" / "dokocam-corners.classifier.pt").read_bytes() == (
        tmp_path / "b" / "dokocam-corners.classifier.pt"
    ).read_bytes()


def _device_polars():
    path = Path(__file__).resolve().parents[2] / "scripts" / "device" / "polars" / "__init__.py"
    spec = importlib.util.spec_from_file_location("device_polars", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_a_half_drawn_stage_is_drawn_again_the_same(tmp_path: Path):
    recipe = replace(TINY, scenes=4)
    build(tmp_path / "b", recipe, until="scenes", log=lambda _: None)
    image = sorted((tmp_path / "b" / "scenes" / "images" / "train").iterdir())[0]
    drawn = image.read_bytes()
    # A run killed while drawing: no marker, one image half written.
    (tmp_path / "b" / ".done" / "scenes").unlink()
    image.write_bytes(drawn[: len(drawn) // 2])
    report = build(tmp_path / "b", recipe, until="scenes", log=lambda _: None)
    assert "scenes" in report.seconds and image.read_bytes() == drawn
    assert cv2.imread(str(image)) is not None


@pytest.mark.slow
def test_a_build_killed_in_the_locator_resumes_its_last_epoch(tmp_path: Path):
    out = tmp_path / "b"
    recipe = replace(TINY, locator_epochs=6)
    build(out, recipe, until="crops", log=lambda _: None)
    script = (
        "import sys; from dokocam.vision.detector.recipe import Recipe, build; import json; "
        "build(sys.argv[1], Recipe.from_json(json.loads(open(sys.argv[2]).read())), until='locator')"
    )
    recipe_file = tmp_path / "recipe.json"
    recipe_file.write_text(json.dumps(recipe.to_json()))
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(out), str(recipe_file)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    last = out / "locator" / "weights" / "last.pt"
    deadline = time.monotonic() + 240
    while not last.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    # Killed just after the first save (a few ms of writing), far from the next one an epoch later.
    time.sleep(0.1)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    assert last.exists() and not (out / ".done" / "locator").exists(), "the run ended before it could be killed"
    epochs_before = len((out / "locator" / "results.csv").read_text().splitlines()) - 1
    logged: list[str] = []
    build(out, recipe, until="locator", log=logged.append)
    assert any("resuming the locator" in line for line in logged)
    # The epoch being trained at the kill may be logged twice (its row written, its weights not yet).
    epochs = [int(float(row.split(",")[0])) for row in (out / "locator" / "results.csv").read_text().splitlines()[1:]]
    assert 1 <= epochs_before < 6 and sorted(set(epochs)) == list(range(1, 7)) and len(epochs) <= 7


def test_another_recipe_in_the_same_folder_is_refused(tmp_path: Path):
    recipe = replace(TINY, scenes=2, scene_size=64)
    build(tmp_path / "b", recipe, until="scenes", log=lambda _: None)
    saved = (tmp_path / "b" / "recipe.json").read_text()
    with pytest.raises(RecipeMismatchError, match="seed differ"):
        build(tmp_path / "b", replace(recipe, seed=6), until="scenes")
    assert (tmp_path / "b" / "recipe.json").read_text() == saved
    # Where it runs is not what it makes: another device or worker count continues the build.
    assert build(
        tmp_path / "b", replace(recipe, workers=1, device=None), until="scenes", log=lambda _: None
    ).skipped == ["scenes"]
    with pytest.raises(StageError, match="the stages are scenes, tiles"):
        build(tmp_path / "b", recipe, until="train")


def test_recipe_values_and_the_cli_say_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    with pytest.raises(RecipeError, match="--scenes must be at least 1.*--closeup-fraction must be in"):
        Recipe(scenes=0, closeup_fraction=1.5)
    with pytest.raises(SystemExit, match="detector build: --crop-size must be at least 8"):
        main(["detector", "build", str(tmp_path / "b"), "--crop-size", "4"])
    with pytest.raises(SystemExit, match="--locator-init nope.pt: not a local .pt file"):
        main(["detector", "build", str(tmp_path / "c"), "--locator-init", "nope.pt"])
    with pytest.raises(SystemExit, match="--classifier-init gone.pt: no such file"):
        main(["detector", "build", str(tmp_path / "c"), "--classifier-init", "gone.pt"])
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()  # a bad recipe starts nothing


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message on a machine without CUDA")
def test_classifier_training_on_a_missing_gpu_is_a_clear_error(tmp_path: Path):
    with pytest.raises(DeviceError, match="no CUDA device"):
        train_classifier([tmp_path], tmp_path / "c.pt", device="cuda")
    with pytest.raises(SystemExit, match="train classifier: --device 'tpu': not a torch device"):
        main(
            [
                "detector",
                "train",
                "classifier",
                "--data",
                str(tmp_path),
                "--out",
                str(tmp_path / "c.pt"),
                "--device",
                "tpu",
            ]
        )
