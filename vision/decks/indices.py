"""Where an enrolled deck's indices lie on its faces: where the locator finds them.

At the table the classifiers read crops cut around the locator's boxes, so the crops a deck's
classifiers are adapted on must be cut around the same boxes. An index found by its ink alone may be
the rank without its suit sign (a sign set apart from the rank, as on XSkat's court cards) or a strip of
table left at a rectified face's edge; a classifier fine-tuned on such crops learns to tell Kreuz from
Pik by a letter that does not say it. The locator is run on each face laid on a plain table, and the best
box near each corner is that corner's index; a corner it misses takes the opposite corner's box turned
half round (a deck's print is point-symmetric). A face it finds no index on keeps its ink boxes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

Box = tuple[float, float, float, float]

# A box whose own corner lies this near a corner of the face (of its width, from both edges) is that
# corner's index; a court picture's pips and frame lie further in.
CORNER_GAP = 0.1
MAX_SIDE = 0.5  # a box wider or taller than this (of the face's width) is a picture or the card, not an index
MIN_SCORE = 0.25  # locator scores below this are not taken as an index
MARGIN = 0.15  # plain table around the face, of its longer side
TABLE_GREY = 90


def corner_boxes(xyxy: np.ndarray, scores: np.ndarray, width: float, height: float) -> list[Box]:
    """The best-scoring box near each corner of a ``width`` x ``height`` face, with a corner that has none
    taking its opposite corner's box turned half round.

    >>> boxes = np.array([[5, 6, 25, 40], [6, 5, 24, 41], [150, 30, 180, 60]], float)  # two at top left, a pip
    >>> corner_boxes(boxes, np.array([0.9, 0.5, 0.9]), 200, 300)
    [(5.0, 6.0, 25.0, 40.0), (175.0, 260.0, 195.0, 294.0)]
    """
    xyxy = np.asarray(xyxy, float).reshape(-1, 4)
    small = (xyxy[:, 2:] - xyxy[:, :2]).max(axis=1, initial=0.0) <= MAX_SIDE * width
    # Each box's gaps to the face's edges, left, top, right, bottom; the corners in turn take two of them.
    gaps = np.stack([xyxy[:, 0], xyxy[:, 1], width - xyxy[:, 2], height - xyxy[:, 3]], axis=1)
    best: list[Box | None] = []
    # Top left, bottom right, top right, bottom left: each index and then its 180-degree copy, as faces list them.
    for across, down in ((0, 1), (2, 3), (2, 1), (0, 3)):
        near = np.flatnonzero(small & (np.maximum(gaps[:, across], gaps[:, down]) <= CORNER_GAP * width))
        if len(near):
            x0, y0, x1, y1 = (float(v) for v in xyxy[near[np.argmax(scores[near])]])
            best.append((x0, y0, x1, y1))
        else:
            best.append(None)
    boxes: list[Box] = []
    for k, box in enumerate(best):
        opposite = best[k ^ 1]
        if box is None and opposite is not None:
            x0, y0, x1, y1 = opposite
            box = (width - x1, height - y1, width - x0, height - y0)
        if box is not None:
            boxes.append(box)
    return boxes


def locate_indices(faces: Mapping[str, np.ndarray], detector: Any = None) -> dict[str, list[Box]]:
    """Each face's index boxes (face pixels) as the locator of ``detector`` (default: the shipped photo
    profile) finds them; faces it finds none on are left out."""
    if detector is None:
        from dokocam.vision.detector.model import CardDetector

        detector = CardDetector.load(None, "photo")
    found: dict[str, list[Box]] = {}
    for code, face in faces.items():
        h, w = face.shape[:2]
        margin = int(MARGIN * max(h, w))
        canvas = np.full((h + 2 * margin, w + 2 * margin, 3), TABLE_GREY, np.uint8)
        canvas[margin : margin + h, margin : margin + w] = face[:, :, :3]
        located = detector.locate(canvas, conf=MIN_SCORE)
        boxes = corner_boxes(located.xyxy - margin, np.asarray(located.confidence), w, h)
        if boxes:
            found[code] = boxes
    return found


def label_face_folder(folder: Path, detector: Any = None) -> int:
    """Writes the located index boxes of an enrolled deck's face folder ``folder`` (``QC.png`` ...) into it
    (its ``indices.json``, which :func:`~vision.synth.faces.load_face_folder` reads); returns how many faces
    got boxes."""
    from dokocam.vision.decks.store import read_faces
    from dokocam.vision.synth.faces import write_index_boxes

    boxes = locate_indices(read_faces(folder), detector)
    write_index_boxes(folder, boxes)
    return len(boxes)
