"""Drawing detections and labels on images (kept apart from the model code)."""

from __future__ import annotations

import cv2
import numpy as np

from dokocam.engine import CARD_CODES
from dokocam.vision.detections import Detections

LABEL_COLOR = (80, 200, 80)  # BGR green: ground truth
HIT_COLOR = (255, 160, 0)  # blue: prediction that hit
MISS_COLOR = (40, 40, 230)  # red: false alarm
IGNORE_COLOR = (160, 160, 160)


def _text(image: np.ndarray, text: str, x: float, y: float, color: tuple[int, int, int], scale: float) -> None:
    org = (int(max(x, 0)), int(max(y - 4, 12)))
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, color, 1, cv2.LINE_AA)


def annotate(
    image: np.ndarray,
    detections: Detections,
    *,
    status: tuple[str, ...] | None = None,
    labels: tuple[np.ndarray, np.ndarray] | None = None,
    ignore: np.ndarray | None = None,
) -> np.ndarray:
    """A copy of ``image`` with labels (green), hits (blue) and false alarms (red) drawn on it.

    Args:
        detections: predicted cards; ``status`` per row (``"tp"``, ``"fp"``, ``"ignored"``) picks colours.
        labels: ``(xyxy, class_id)`` ground truth in pixels.
        ignore: boxes of non-Doppelkopf cards.
    """
    out = image.copy()
    scale = max(out.shape[:2]) / 1400
    thick = max(1, int(round(scale * 2)))
    for box in [] if ignore is None else ignore:
        cv2.rectangle(out, tuple(int(v) for v in box[:2]), tuple(int(v) for v in box[2:]), IGNORE_COLOR, thick)
    if labels is not None:
        for box, cls in zip(*labels):
            cv2.rectangle(out, tuple(int(v) for v in box[:2]), tuple(int(v) for v in box[2:]), LABEL_COLOR, thick)
            _text(out, CARD_CODES[int(cls)], box[0], box[3] + 18 * scale, LABEL_COLOR, 0.5 * scale + 0.2)
    for k, (box, cls, conf) in enumerate(zip(detections.xyxy, detections.class_id, detections.confidence)):
        state = "tp" if status is None else status[k]
        color = {"tp": HIT_COLOR, "fp": MISS_COLOR}.get(state, IGNORE_COLOR)
        cv2.rectangle(out, tuple(int(v) for v in box[:2]), tuple(int(v) for v in box[2:]), color, thick)
        _text(out, f"{CARD_CODES[int(cls)]} {conf:.2f}", box[0], box[1], color, 0.5 * scale + 0.2)
    return out
