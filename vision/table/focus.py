"""Detection where the trick lies: each frame cropped to the trick area before the detector sees it."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from dokocam.vision.detections import Detections
from dokocam.vision.table.geometry import TableGeometry


class HasGeometry(Protocol):
    """Whatever knows where the trick lies now (the live decoder: its seating moves with the cards)."""

    geometry: TableGeometry


# A crop smaller than this (pixels a side) says the geometry is off, not where the cards are.
MIN_SIDE = 64


class TrickAreaDetector:
    """Runs a detector on the part of each frame that holds the trick area, not the whole frame.

    A camera above a table sees the trick in the middle of the picture, and a corner index of a
    card there may be 10 pixels high. Shrunk with the whole 1280x720 frame to the detector's 640
    pixel input it is 5 pixels, too few to read; the trick area alone (about 600 pixels square
    with the default geometry) keeps it at full size for a similar cost. Cards outside the trick
    area are never played (the tracker lands none there), so the pipeline loses nothing.

    The trick area is the decoded game's: :meth:`follow` points the detector at the live decoder
    (as :meth:`TablePipeline.for_video` does), whose seating moves with where the cards lie.
    Until then, and for a geometry whose area is no real part of the frame, the whole frame is
    searched.

    Args:
        detector: anything with ``update(image) -> Detections`` (boxes in that image's pixels).
        margin: the crop reaches this many trick-area radii from the centre; raising it keeps
            cards lying at the area's rim whole, and shrinks every index in the detector's input.
    """

    def __init__(self, detector: Any, *, margin: float = 1.15) -> None:
        self.detector = detector
        self.margin = margin
        self.source: HasGeometry | None = None
        self.box: tuple[int, int, int, int] | None = None  # the crop of the last frame

    @property
    def card(self) -> Any:
        """The wrapped detector's model card (what it finds)."""
        return getattr(self.detector, "card", None)

    def follow(self, source: HasGeometry) -> None:
        """Takes the trick area from ``source.geometry`` from the next frame on."""
        self.source = source

    def update(self, image: np.ndarray) -> Detections:
        height, width = image.shape[:2]
        self.box = None
        if self.source is not None:
            x1, y1, x2, y2 = self.source.geometry.trick_box(width, height, margin=self.margin)
            if x2 - x1 >= MIN_SIDE and y2 - y1 >= MIN_SIDE:
                self.box = (x1, y1, x2, y2)
        if self.box is None:
            whole: Detections = self.detector.update(image)
            return whole
        x1, y1, x2, y2 = self.box
        full = getattr(self.detector, "imgsz", None)
        if full is not None:
            # Never enlarge the crop: interpolated pixels show the detector details it misreads.
            self.detector.imgsz = min(full, 32 * -(-max(x2 - x1, y2 - y1) // 32))
        try:
            found: Detections = self.detector.update(image[y1:y2, x1:x2])
        finally:
            if full is not None:
                self.detector.imgsz = full
        return found.with_columns(xyxy=found.xyxy + np.array([x1, y1, x1, y1], dtype=found.xyxy.dtype))

    def reset(self) -> None:
        forget_deck(self.detector)


def forget_deck(detector: Any) -> None:
    """Lets a detector that learns the deck from the frames (its print) learn it again, as a new game or another
    deck needs; a detector that learns nothing across frames has no ``reset`` and is left as it is."""
    reset = getattr(detector, "reset", None)
    if reset is not None:
        reset()


def table_detector(model: str | None = None, deck: str | None = None) -> TrickAreaDetector:
    """The shipped (or ``model``'s) card detector set up for whole table frames, looking at the trick area;
    with ``deck``, reading with that enrolled deck's adapted classifier (``dokocam deck enroll``)."""
    from dokocam.vision.decks.adapt import load_detector

    return TrickAreaDetector(load_detector(model, deck=deck, table=True))
