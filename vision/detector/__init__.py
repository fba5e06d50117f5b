"""Card detection: an Ultralytics YOLO (the only place its types appear), training, eval, export.

``CardDetector.load(path).cards(frame)`` gives :class:`vision.detections.Detections`, one row per
physical card, ``class_id`` = ``engine.Card.index``. Submodules are imported on use, so importing
this package stays cheap.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CardDetector"]


def __getattr__(name: str) -> Any:
    if name == "CardDetector":
        from dokocam.vision.detector.model import CardDetector

        return CardDetector
    raise AttributeError(name)
