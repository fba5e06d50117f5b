"""Contact sheets of generated scenes with their label boxes drawn, to look at the data."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from dokocam.vision.synth.faces import CARD_CODES
from dokocam.vision.synth.scene import SceneAnnotation


def draw_labels(image: np.ndarray, annotation: SceneAnnotation, target: str = "corners") -> np.ndarray:
    """A copy of ``image`` with the label boxes of ``target`` and their card codes drawn."""
    out = image.copy()
    thickness = max(1, round(max(image.shape[:2]) / 400))
    for class_id, (x1, y1, x2, y2) in annotation.boxes(target):
        p1, p2 = (int(x1), int(y1)), (int(round(x2)) - 1, int(round(y2)) - 1)
        cv2.rectangle(out, p1, p2, (255, 0, 255), thickness)
        cv2.putText(
            out,
            CARD_CODES[class_id],
            (p1[0], max(10, p1[1] - 3)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4 * thickness,
            (255, 0, 255),
            thickness,
            cv2.LINE_AA,
        )
    return out


def contact_sheet(images: Sequence[np.ndarray], columns: int = 4, tile: int = 320) -> np.ndarray:
    """Tiles ``images`` (resized to ``tile`` pixels square) into one BGR image."""
    if not images:
        raise ValueError("a contact sheet needs at least one image")
    tiles = [cv2.resize(im, (tile, tile), interpolation=cv2.INTER_AREA) for im in images]
    rows = -(-len(tiles) // columns)
    sheet = np.zeros((rows * tile, columns * tile, 3), np.uint8)
    for k, t in enumerate(tiles):
        r, c = divmod(k, columns)
        sheet[r * tile : (r + 1) * tile, c * tile : (c + 1) * tile] = t
    return sheet
