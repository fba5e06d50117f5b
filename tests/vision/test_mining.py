"""Hard-example mining for the classifier: what it keeps, what it must never teach as background."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from dokocam.service.cli import main
from dokocam.vision.detections import Detections
from dokocam.vision.detector.classifier import load_crops
from dokocam.vision.detector.mining import mine_crops, save_crops
from dokocam.vision.yolo import BACKGROUND, LabelledImage, YoloFolder, read_folder, read_indices

QC, KH, AD = 3, 16, 23
SIZE = 200


class ScriptedReads:
    """A detector stand-in: the same reads for every image, at a threshold of 0.35."""

    conf = 0.35
    reader = SimpleNamespace(crop_size=16)

    def __init__(self, found: Detections) -> None:
        self.found = found
        self.asked: list[float] = []

    def reads(self, image: np.ndarray, conf: float) -> Detections:
        self.asked.append(conf)
        return self.found[self.found.confidence >= conf]


def _cxcywh(boxes: list[list[float]]) -> np.ndarray:
    b = np.array(boxes, dtype=np.float64).reshape(-1, 4)
    return np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2, b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]], 1) / SIZE


def test_mining_keeps_boxes_on_no_index_and_misread_labels_and_spares_hidden_indices(tmp_path: Path):
    image = np.full((SIZE, SIZE, 3), 200, np.uint8)
    image[100:130, 10:30] = (0, 0, 255)  # something to crop on the misread label
    cv2.imwrite(str(tmp_path / "a.png"), image)
    read_right, misread, unlabelled = [10, 10, 30, 40], [10, 100, 30, 130], [100, 10, 120, 40]
    item = LabelledImage(
        image=tmp_path / "a.png",
        label_class=np.array([QC, KH]),
        label_cxcywh=_cxcywh([read_right, misread]),
        ignore_cxcywh=np.zeros((0, 4)),
        indices=np.array([read_right, misread, unlabelled], dtype=np.float64),  # the third too hidden to be labelled
    )
    found = Detections(
        xyxy=[read_right, misread, unlabelled, [150, 150, 170, 180], [160, 40, 180, 70]],
        confidence=[0.9, 0.6, 0.5, 0.3, 0.01],
        class_id=[QC, AD, QC, QC, QC],  # the KH label read as AD; a pip read as QC at 0.3; one at 0.01
    )
    detector = ScriptedReads(found)
    crops, classes = mine_crops(YoloFolder(root=tmp_path, items=(item,), kind="corners"), detector, variants=3)
    assert detector.asked == [0.05]
    # The pip (not the read-right label, not the hidden index, not the box under 0.05), and the misread label
    # three times.
    assert classes.tolist() == [BACKGROUND, KH, KH, KH]
    assert crops.shape == (4, 16, 16, 3) and crops.dtype == np.uint8
    assert crops[1, 8, 8].tolist() == [0, 0, 255]  # the misread label's own crop comes first
    # Without the generator's meta the hidden index is a box on no known index.
    bare = LabelledImage(
        image=item.image, label_class=item.label_class, label_cxcywh=item.label_cxcywh, ignore_cxcywh=item.ignore_cxcywh
    )
    _, classes = mine_crops(YoloFolder(root=tmp_path, items=(bare,), kind="corners"), ScriptedReads(found), variants=1)
    assert sorted(classes.tolist()) == [KH, BACKGROUND, BACKGROUND]
    path = save_crops(tmp_path / "hard.npz", crops, np.array([BACKGROUND, KH, KH, KH]))
    x, y = load_crops(path, 16)
    assert np.array_equal(x, crops) and y.tolist() == [BACKGROUND, KH, KH, KH]


def test_generated_scenes_record_every_drawn_index_for_mining(tmp_path: Path):
    from dokocam.vision.synth.dataset import SceneConfig, write_dataset

    for _ in write_dataset(tmp_path, 3, seed=4, config=SceneConfig(imgsz=320), val_fraction=0):
        pass
    folder = read_folder(tmp_path)
    for item in folder.items:
        meta = json.loads((tmp_path / "meta" / "train" / item.image.with_suffix(".json").name).read_text())
        assert item.indices is not None and np.array_equal(item.indices, read_indices(meta))
        labels = item.label_xyxy(320, 320)
        # Every label is one of the drawn indices (the generator labels the visible ones).
        for box in labels:
            assert np.abs(item.indices - box).max(1).min() <= 1.5
    assert sum(len(i.indices) for i in folder.items) >= sum(len(i.label_class) for i in folder.items)
    assert read_indices({}) is None and read_indices({"cards": "x"}) is None


def test_cli_mines_a_generated_folder_and_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    models = Path(__file__).parents[2] / "models"
    if not (models / "dokocam-corners.pt").exists():
        pytest.skip("no shipped model")
    assert (
        main(["dataset", "generate", str(tmp_path / "scenes"), "--images", "3", "--seed", "5", "--val-fraction", "0"])
        == 0
    )
    capsys.readouterr()
    assert (
        main(
            [
                "dataset",
                "mine",
                str(tmp_path / "scenes"),
                "--out",
                str(tmp_path / "hard.npz"),
                "--model",
                str(models / "dokocam-corners.pt"),
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    x, y = load_crops(tmp_path / "hard.npz", 48)
    assert report["images"] == 3 and report["background"] + report["misread"] == len(y)
    assert report["background"] == int((y == BACKGROUND).sum())
    with pytest.raises(SystemExit, match="--variants"):
        main(["dataset", "mine", str(tmp_path / "scenes"), "--out", str(tmp_path / "x.npz"), "--variants", "0"])
    with pytest.raises(SystemExit, match="dataset mine:"):
        main(["dataset", "mine", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x.npz")])
