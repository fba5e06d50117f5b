"""`evaluate` on a tiny hand-labelled folder with a scripted detector: totals, mAP50, files."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from dokocam.vision.detections import Detections
from dokocam.vision.detector.evaluate import NONE, evaluate
from dokocam.vision.detector.grouping import group_corners
from dokocam.vision.detector.matching import average_precision
from dokocam.vision.detector.model import Profile
from dokocam.vision.yolo import DatasetFolderError, read_folder, read_meta, read_visibility

QC, QS, KH, C9, AD = 3, 9, 16, 0, 23


class ScriptedDetector:
    """Returns prepared corner detections image by image (in file order)."""

    card = Profile("photo", target="corners")
    conf = card.conf

    def __init__(self, frames: list[Detections]) -> None:
        self.frames = list(frames)

    def detect_and_group(self, image: np.ndarray) -> tuple[Detections, Detections]:
        corners = self.frames.pop(0)
        return corners, group_corners(corners)


def _yolo(box: list[float], size: int = 200) -> str:
    x1, y1, x2, y2 = box
    return f"{(x1 + x2) / 2 / size} {(y1 + y2) / 2 / size} {(x2 - x1) / size} {(y2 - y1) / size}"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for sub in ("images", "labels", "ignore"):
        (tmp_path / sub).mkdir()
    for name in ("a", "b"):
        cv2.imwrite(str(tmp_path / "images" / f"{name}.jpg"), np.full((200, 200, 3), 128, np.uint8))
    # a: one QC card (two corners) and a KH corner; class tokens may be ids or codes.
    (tmp_path / "labels" / "a.txt").write_text(
        f"3 {_yolo([10, 10, 30, 40])}\nQC {_yolo([90, 120, 110, 150])}\n16 {_yolo([150, 10, 170, 40])}\n"
    )
    # b: one 9C corner, and an 8H card that is not in a Doppelkopf deck.
    (tmp_path / "labels" / "b.txt").write_text(f"0 {_yolo([10, 10, 30, 40])}\n")
    (tmp_path / "ignore" / "b.txt").write_text(f"8H {_yolo([100, 100, 120, 130])}\n")
    return tmp_path


def test_eval_counts_hits_false_alarms_ignores_and_confusions(folder: Path, tmp_path: Path):
    frames = [
        Detections(
            xyxy=[[11, 11, 29, 39], [91, 121, 109, 149], [150, 10, 170, 40]],
            confidence=[0.9, 0.8, 0.7],
            class_id=[QC, QC, QS],
        ),
        Detections(
            xyxy=[[10, 10, 30, 40], [101, 101, 119, 129], [150, 150, 170, 180]],
            confidence=[0.9, 0.6, 0.5],
            class_id=[C9, KH, AD],
        ),
    ]
    out = tmp_path / "report"
    report = evaluate(ScriptedDetector(frames), read_folder(folder), out=out, examples=2)

    assert report.images == 2
    assert int(report.labels.sum()) == 4 and int(report.hits.sum()) == 3
    assert (int(report.tp.sum()), int(report.fp.sum()), report.ignored) == (2, 2, 1)
    precision, recall, f1 = report.overall
    assert (precision, recall) == (0.5, 0.75) and f1 == pytest.approx(0.6)
    assert report.confusion[KH, QS] == 1 and report.confusion[NONE, AD] == 1 and report.confusion[QC, QC] == 2
    # QC and 9C found exactly, KH never: mean over the three labelled cards.
    assert report.map50 == pytest.approx(2 / 3)

    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["f1"] == pytest.approx(0.6)
    assert {row["card"]: row["recall"] for row in metrics["per_card"]}["KH"] == 0.0
    assert (out / "confusion.png").stat().st_size > 1000
    assert len(list((out / "examples").glob("*.jpg"))) == 2


def test_cards_scored_against_card_labels_skip_map(folder: Path):
    detector = ScriptedDetector([Detections.empty(), Detections.empty()])
    report = evaluate(detector, read_folder(folder), label_kind="cards")
    assert report.map50 is None
    assert report.overall == (0.0, 0.0, 0.0)


def test_read_folder_layouts_and_errors(tmp_path: Path):
    (tmp_path / "images" / "val").mkdir(parents=True)
    (tmp_path / "labels" / "val").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "val" / "x.png"), np.zeros((8, 8, 3), np.uint8))
    (tmp_path / "labels" / "val" / "x.txt").write_text("23 0.5 0.5 0.2 0.2\n7H 0.1 0.1 0.1 0.1\n")
    folder = read_folder(tmp_path)
    assert [i.label_class.tolist() for i in folder.items] == [[AD]]  # 7H is not a Doppelkopf card
    with pytest.raises(DatasetFolderError, match="no images"):
        read_folder(tmp_path / "labels")
    (tmp_path / "labels" / "val" / "x.txt").write_text("31 0.5 0.5 0.2 0.2\n")
    with pytest.raises(DatasetFolderError, match="outside 0..23"):
        read_folder(tmp_path)


def test_map50_is_broken_down_by_label_size(tmp_path: Path):
    for sub in ("images", "labels"):
        (tmp_path / sub).mkdir()
    cv2.imwrite(str(tmp_path / "images" / "c.jpg"), np.full((200, 200, 3), 128, np.uint8))
    # A small QC index (short side 10 px) and a large KH one (40 px).
    (tmp_path / "labels" / "c.txt").write_text(f"QC {_yolo([10, 10, 20, 22])}\nKH {_yolo([100, 100, 140, 160])}\n")
    frames = [
        Detections(
            xyxy=[
                [100, 100, 140, 160],
                [15, 15, 25, 27],
                [60, 60, 80, 80],
            ],  # KH exact; QC off by half (IoU 0.17); AD on nothing
            confidence=[0.9, 0.8, 0.95],
            class_id=[KH, QC, AD],
        )
    ]
    report = evaluate(ScriptedDetector(frames), read_folder(tmp_path), out=tmp_path / "report", examples=0)
    assert report.map50 == pytest.approx(0.5)
    assert report.map50_by_size == {"small": 0.0, "medium": None, "large": 1.0}
    assert report.labels_by_size.sum(1).tolist() == [1, 0, 1]
    assert (
        "mAP50 by label size (short side): <16 px 0.0000 (1 labels), 16-32 px n/a (0 labels), >=32 px 1.0000 (1 labels)"
        in report.table()
    )
    metrics = json.loads((tmp_path / "report" / "metrics.json").read_text())
    assert metrics["map50_by_size"]["large"] == {"short_side_px": ">=32", "labels": 1, "map50": 1.0}


def test_map50_without_each_kind_of_mistake_says_where_it_is_lost(tmp_path: Path):
    for sub in ("images", "labels"):
        (tmp_path / sub).mkdir()
    cv2.imwrite(str(tmp_path / "images" / "m.jpg"), np.full((200, 200, 3), 128, np.uint8))
    a, b, c, d = [10, 10, 30, 40], [100, 10, 120, 40], [10, 100, 30, 130], [100, 100, 120, 130]
    (tmp_path / "labels" / "m.txt").write_text(f"QC {_yolo(a)}\nQC {_yolo(b)}\nKH {_yolo(c)}\nAD {_yolo(d)}\n")
    frames = [
        Detections(
            # Both QC found, less surely than three QC mistakes: one on the KH label (misnamed), one
            # on nothing (background), one half off a QC label (IoU 0.2: off its label). AD is missed.
            xyxy=[a, b, c, [150, 150, 170, 180], [20, 20, 40, 50], c],
            confidence=[0.5, 0.4, 0.9, 0.8, 0.7, 0.9],
            class_id=[QC, QC, QC, QC, QC, KH],
        )
    ]
    report = evaluate(ScriptedDetector(frames), read_folder(tmp_path), out=tmp_path / "report", examples=0)

    def qc(*mistakes: float) -> float:
        confidence = [*mistakes, 0.5, 0.4]
        return average_precision(confidence, [False] * len(mistakes) + [True, True], 2)

    assert report.map50 == pytest.approx((qc(0.9, 0.8, 0.7) + 1.0 + 0.0) / 3)
    assert report.map50_if == pytest.approx(
        {
            "misnamed": (qc(0.8, 0.7) + 1.0) / 3,
            "background": (qc(0.9, 0.7) + 1.0) / 3,
            "off_label": (qc(0.9, 0.8) + 1.0) / 3,
            "missed": (qc(0.9, 0.8, 0.7) + 1.0 + 1.0) / 3,
        }
    )
    assert all(value > report.map50 for value in report.map50_if.values())
    assert report.mistake_counts() == {"misnamed": 1, "background": 1, "off_label": 1, "missed": 1}
    assert "mAP50 without each kind of mistake (misnamed 1, background 1, off_label 1, missed 1)" in report.table()
    metrics = json.loads((tmp_path / "report" / "metrics.json").read_text())
    assert metrics["map50_if"]["no_missed"] == pytest.approx(report.map50_if["missed"])


def test_map50_is_split_by_the_generated_images_blur(tmp_path: Path):
    for sub in ("images", "labels", "meta"):
        (tmp_path / sub).mkdir()
    for name, blurred in (("a", False), ("b", True), ("c", None)):
        cv2.imwrite(str(tmp_path / "images" / f"{name}.jpg"), np.full((200, 200, 3), 128, np.uint8))
        (tmp_path / "labels" / f"{name}.txt").write_text(f"QC {_yolo([100, 100, 140, 160])}\n")
        if blurred is not None:
            (tmp_path / "meta" / f"{name}.json").write_text(
                json.dumps({"look": {"motion_blur_px": 4.0 * blurred, "blurred": blurred}})
            )
        else:
            (tmp_path / "meta" / f"{name}.json").write_text("{not json")  # a damaged meta file: blur unknown
    folder = read_folder(tmp_path)
    assert [item.blurred for item in folder.items] == [False, True, None]
    hit = Detections(xyxy=[[100, 100, 140, 160]], confidence=[0.9], class_id=[QC])
    miss = Detections(xyxy=[[10, 10, 50, 70]], confidence=[0.9], class_id=[QC])
    report = evaluate(ScriptedDetector([hit, miss, hit]), folder, out=tmp_path / "report", examples=0)
    assert report.by_blur["sharp"].images == 1 and report.by_blur["blurred"].images == 1
    assert report.by_blur["sharp"].map50 == pytest.approx(1.0)
    assert report.by_blur["blurred"].map50 == pytest.approx(0.0)
    assert (
        "mAP50 by image blur (generated data): sharp 1.0000 (1 images, 1 labels), blurred 0.0000 (1 images, 1 labels)"
        in report.table()
    )
    metrics = json.loads((tmp_path / "report" / "metrics.json").read_text())
    assert metrics["map50_by_blur"]["blurred"]["labels"] == 1 and metrics["map50_by_blur"]["sharp"]["map50"] == 1.0


def test_each_design_is_scored_apart(tmp_path: Path):
    for sub in ("images", "labels", "meta"):
        (tmp_path / sub).mkdir()
    for name, design in (("a", "svg:gm-paris"), ("b", "font:liberation-sans"), ("c", "svg:gm-paris"), ("d", None)):
        cv2.imwrite(str(tmp_path / "images" / f"{name}.jpg"), np.full((200, 200, 3), 128, np.uint8))
        (tmp_path / "labels" / f"{name}.txt").write_text(f"QC {_yolo([100, 100, 140, 160])}\n")
        (tmp_path / "meta" / f"{name}.json").write_text(json.dumps({"design": design} if design else {}))
    folder = read_folder(tmp_path)
    assert [item.design for item in folder.items] == ["svg:gm-paris", "font:liberation-sans", "svg:gm-paris", None]
    hit = Detections(xyxy=[[100, 100, 140, 160]], confidence=[0.9], class_id=[QC])
    miss = Detections(xyxy=[[10, 10, 50, 70]], confidence=[0.9], class_id=[QC])
    report = evaluate(ScriptedDetector([hit, miss, miss, hit]), folder, out=tmp_path / "report", examples=0)
    paris, sans = report.by_design["svg:gm-paris"], report.by_design["font:liberation-sans"]
    assert set(report.by_design) == {"svg:gm-paris", "font:liberation-sans"}  # no part for an unknown design
    assert (paris.images, paris.overall[1], sans.images, sans.overall[1]) == (2, 0.5, 1, 0.0)
    assert report.overall[1] == 0.5 and paris.map50 is not None and sans.map50 == pytest.approx(0.0)
    assert "svg:gm-paris" in report.table()
    metrics = json.loads((tmp_path / "report" / "metrics.json").read_text())
    assert metrics["by_design"]["svg:gm-paris"]["images"] == 2 and metrics["by_design"]["svg:gm-paris"]["recall"] == 0.5


def test_map50_of_the_fully_visible_labels_leaves_out_partly_hidden_ones(tmp_path: Path):
    for sub in ("images", "labels", "meta"):
        (tmp_path / sub).mkdir()
    for name in ("a", "b"):
        cv2.imwrite(str(tmp_path / "images" / f"{name}.jpg"), np.full((200, 200, 3), 128, np.uint8))
    qc, kh, c9 = [10, 10, 30, 40], [150, 10, 170, 40], [80, 80, 100, 110]
    (tmp_path / "labels" / "a.txt").write_text(f"QC {_yolo(qc)}\nKH {_yolo(kh)}\n9C {_yolo(c9)}\n")
    # The generator's record: QC whole, KH 70% visible; 9C is not in it (its visibility is unknown).
    cards = [
        {"index_boxes": [qc, None], "index_visibility": [1.0, 0.0], "box": None},
        {"index_boxes": [kh], "index_visibility": [0.7], "box": None},
    ]
    (tmp_path / "meta" / "a.json").write_text(json.dumps({"width": 200, "height": 200, "cards": cards}))
    (tmp_path / "meta" / "b.json").write_text(json.dumps({"width": 200, "height": 200, "cards": []}))
    folder = read_folder(tmp_path)
    assert np.allclose(folder.items[0].visibility, [1.0, 0.7, np.nan], equal_nan=True)
    assert folder.items[1].visibility is not None and len(folder.items[1].visibility) == 0
    for damaged in (
        '{"width": 200, "height": 200, "cards": [1]}',
        "[1]",
        '{"width": 200, "height": 200, "cards": [{"index_boxes": [[0, 0, 1]], "index_visibility": [1]}]}',
    ):
        (tmp_path / "damaged.json").write_text(damaged)
        assert read_visibility(read_meta(tmp_path / "damaged.json"), folder.items[0].label_cxcywh) is None
    frames = [
        # QC and 9C read right; the half-hidden KH misread as AH.
        Detections(xyxy=[qc, c9, kh], confidence=[0.9, 0.9, 0.8], class_id=[QC, C9, 17]),
        Detections(xyxy=[[60, 60, 80, 90]], confidence=[0.95], class_id=[C9]),  # a false alarm on an empty image
    ]
    report = evaluate(ScriptedDetector(frames), folder, out=tmp_path / "report", examples=0)
    assert report.map50 == pytest.approx((1.0 + 0.0 + 0.5) / 3)  # QC, KH missed, 9C behind the false alarm
    assert report.visible is not None and report.visible.images == 2 and report.hidden_labels == 1
    assert report.visible.map50 == pytest.approx((1.0 + 0.5) / 2)  # KH and the AH on it not scored
    assert (
        "mAP50 of the fully visible labels (generated data, >= 95% visible): 0.7500 (2 images, 2 labels; 1 partly "
        "hidden ones not scored)" in report.table()
    )
    metrics = json.loads((tmp_path / "report" / "metrics.json").read_text())
    assert metrics["map50_visible"]["labels"] == 2 and metrics["map50_visible"]["hidden_labels_ignored"] == 1


def test_a_folder_without_blur_in_its_meta_reports_no_split(folder: Path):
    frames = [Detections(xyxy=[[10, 10, 20, 20]], confidence=[0.5], class_id=[QC]), Detections.empty()]
    report = evaluate(ScriptedDetector(frames), read_folder(folder))
    assert report.by_blur == {} and "image blur" not in report.table() and report.to_dict()["map50_by_blur"] is None
    assert (
        report.visible is None and "fully visible" not in report.table() and report.to_dict()["map50_visible"] is None
    )


def test_map50_counts_every_reading_of_a_box_unless_top1(tmp_path: Path):
    for sub in ("images", "labels"):
        (tmp_path / sub).mkdir()
    cv2.imwrite(str(tmp_path / "images" / "d.jpg"), np.full((200, 200, 3), 128, np.uint8))
    (tmp_path / "labels" / "d.txt").write_text(f"QC {_yolo([100, 100, 140, 160])}\n")
    probs = np.zeros((1, 24))
    probs[0, KH], probs[0, QC] = 0.6, 0.4  # a small index read 60/40, the wrong card first

    def frames() -> list[Detections]:
        return [
            Detections(
                xyxy=[[100, 100, 140, 160]], confidence=[0.73], class_id=[KH], data={"probs": probs, "located": [0.9]}
            )
        ]

    every = evaluate(ScriptedDetector(frames()), read_folder(tmp_path))
    first = evaluate(ScriptedDetector(frames()), read_folder(tmp_path), top1=True)
    assert every.map50 == pytest.approx(1.0) and first.map50 == pytest.approx(0.0)
    assert every.to_dict()["map50_readings"] == "every" and "(first reading of each box)" in first.table()
    # The card's name (precision, recall, F1) is the first reading either way.
    assert every.overall == first.overall == (0.0, 0.0, 0.0)
