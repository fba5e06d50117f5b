"""How the crop classifier's input is framed, for inference and for the crop generator alike.

Numpy only (no torch), so ``vision.synth`` can draw training crops exactly as the detector will
cut them from a frame without importing the network.
"""

from __future__ import annotations

import numpy as np

BACKGROUND = 24  # class id of "no Doppelkopf index here"
# A crop is the box grown by this fraction on every side, made square: the index plus some card.
CROP_PAD = 0.15


def square_boxes(xyxy: np.ndarray, pad: float = CROP_PAD) -> np.ndarray:
    """Grows boxes by ``pad`` on every side and makes them square around their centre.

    >>> square_boxes([[0, 0, 10, 20]]).tolist()
    [[-8.0, -3.0, 18.0, 23.0]]
    """
    xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    cx, cy = (xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2
    half = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]) * (0.5 + pad)
    return np.stack([cx - half, cy - half, cx + half, cy + half], axis=1)


def jitter_box(box: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """A box shifted and scaled like a locator's imperfect prediction of it."""
    w, h = box[2] - box[0], box[3] - box[1]
    dx, dy = rng.normal(0, amount, 2) * (w, h)
    sw, sh = np.exp(rng.normal(0, amount, 2))
    cx, cy = (box[0] + box[2]) / 2 + dx, (box[1] + box[3]) / 2 + dy
    return np.array([cx - w * sw / 2, cy - h * sh / 2, cx + w * sw / 2, cy + h * sh / 2])
