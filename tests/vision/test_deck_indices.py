"""An enrolled deck's index boxes: found by the locator on its faces, carried by its face folder, and read
with the context classifier's window beside the index's own."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dokocam.vision.decks.indices import label_face_folder, locate_indices
from dokocam.vision.detector.classifier import WithContext
from dokocam.vision.synth.faces import (
    CARD_CODES,
    INDEX_FILE,
    FaceFolderError,
    FaceStyle,
    draw_face,
    load_face_folder,
    write_face_folder,
)

DECK_SEEDS = (3, 11)  # drawn decks: their faces carry the true index quads to check the located boxes against


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    inter = np.clip(np.minimum(a[2:], b[2:]) - np.maximum(a[:2], b[:2]), 0, None).prod()
    return float(inter / ((a[2:] - a[:2]).prod() + (b[2:] - b[:2]).prod() - inter))


@pytest.mark.parametrize("seed", DECK_SEEDS)
def test_the_locator_finds_each_faces_indices_where_they_are_printed(seed: int) -> None:
    style = FaceStyle.random(np.random.default_rng(seed), width=300)
    faces = {code: draw_face(code, style, seed) for code in CARD_CODES}
    located = locate_indices({code: face.image for code, face in faces.items()})
    hits = 0
    for code, face in faces.items():
        truth = [np.r_[q.min(axis=0), q.max(axis=0)] for q in face.indices]
        boxes = located.get(code, [])
        # Every box it gives is one of the printed indices, and it finds at least two of them.
        assert all(max(_iou(np.array(b), t) for t in truth) > 0.3 for b in boxes), code
        hits += len(boxes) >= 2 and all(max(_iou(np.array(b), t) for t in truth) > 0.5 for b in boxes)
    assert hits >= 22, f"{hits}/24 faces' indices located"


def test_a_face_folder_carries_its_index_boxes(tmp_path: Path) -> None:
    folder = tmp_path / "faces"
    write_face_folder(folder, FaceStyle.random(np.random.default_rng(3), width=300), seed=3)
    by_ink = load_face_folder(folder)
    assert label_face_folder(folder) >= 22
    written = json.loads((folder / INDEX_FILE).read_text())
    # A face the locator found nothing on keeps the boxes its ink gives.
    written.pop("QC", None)
    (folder / INDEX_FILE).write_text(json.dumps(written))
    located = load_face_folder(folder)
    assert len(located["QC"].indices) == len(by_ink["QC"].indices)
    assert all(np.allclose(a, b) for a, b in zip(located["QC"].indices, by_ink["QC"].indices))
    # A face framed by a border (transparent art) has its boxes moved with it; the top-left box comes first.
    framed = load_face_folder(folder, border=0.05)
    pad = round(0.05 * framed["QH"].size[0] / 1.1)
    for code, boxes in written.items():
        for faces, shift in ((located, 0), (framed, pad)):
            quads = faces[code].indices
            assert len(quads) == len(boxes)
            top_left = np.array(min(boxes, key=lambda b: b[0] + b[1])) + shift
            assert np.allclose(np.r_[quads[0].min(axis=0), quads[0].max(axis=0)], top_left, atol=0.05)

    (folder / INDEX_FILE).write_text('{"QC": [[1, 2, 3]]}')
    with pytest.raises(FaceFolderError, match="index boxes"):
        load_face_folder(folder)
    (folder / INDEX_FILE).write_text('{"QX": [[1, 2, 3, 4]]}')
    with pytest.raises(FaceFolderError, match="QX"):
        load_face_folder(folder)


class _Fixed:
    """A reader that gives every box the same probabilities."""

    def __init__(self, probs: list[float]) -> None:
        self.probs = np.array(probs, np.float32)

    def probabilities(self, image: np.ndarray, xyxy: np.ndarray, pool: object = None, shares: int = 1) -> np.ndarray:
        return np.tile(self.probs, (len(xyxy), 1))


def _probs(**cards: float) -> list[float]:
    probs = np.full(25, 1e-4)
    for code, p in cards.items():
        probs[CARD_CODES.index(code)] = p
    return list(probs / probs.sum())


def test_the_context_window_tells_the_suit_the_index_crop_leaves_open() -> None:
    index = _Fixed(_probs(QC=0.5, QS=0.5))  # the rank alone: Kreuz or Pik
    context = _Fixed(_probs(QC=0.8, QS=0.1, KC=0.1))  # the picture beside it: Kreuz
    boxes = np.array([[0, 0, 10, 14], [20, 0, 30, 14]], float)
    probs = WithContext(index, context).probabilities(np.zeros((40, 40, 3), np.uint8), boxes)  # type: ignore[arg-type]
    assert probs.shape == (2, 25) and np.allclose(probs.sum(axis=1), 1, atol=1e-5)
    assert CARD_CODES[int(probs[0].argmax())] == "QC"
    # The index says Dame: a König only the context allows stays as unlikely as a product makes it (a mean: 0.05).
    assert probs[0, CARD_CODES.index("KC")] < 0.01
    assert WithContext(index, context).probabilities(np.zeros((4, 4, 3), np.uint8), np.zeros((0, 4))).shape[0] == 0  # type: ignore[arg-type]
