"""The trick-area detector: what it crops, and that its boxes come back in frame pixels."""

from __future__ import annotations

import numpy as np

from dokocam.engine import Game
from dokocam.vision.detections import Detections
from dokocam.vision.table.focus import TrickAreaDetector
from dokocam.vision.table.geometry import TableGeometry
from dokocam.vision.table.live import LiveDecoder
from dokocam.vision.table.pipeline import TablePipeline


class Recorder:
    """A detector that reports one box around the brightest pixel of what it is shown."""

    def __init__(self) -> None:
        self.imgsz = 640
        self.shapes: list[tuple[int, int]] = []
        self.sizes: list[int] = []

    def update(self, image: np.ndarray) -> Detections:
        self.shapes.append(image.shape[:2])
        self.sizes.append(self.imgsz)
        y, x = np.unravel_index(int(np.argmax(image[..., 0])), image.shape[:2])
        return Detections(xyxy=[[x - 5, y - 5, x + 5, y + 5]], confidence=[0.9], class_id=[3])

    def reset(self) -> None:
        pass


def frame_with_spot(x: int, y: int) -> np.ndarray:
    image = np.zeros((720, 1280, 3), dtype=np.uint8)
    image[y, x] = 255
    return image


def test_without_a_trick_area_the_whole_frame_is_searched():
    inner = Recorder()
    found = TrickAreaDetector(inner).update(frame_with_spot(100, 50))
    assert inner.shapes == [(720, 1280)]
    assert found.xyxy[0].tolist() == [95, 45, 105, 55]


def test_the_trick_area_is_cropped_and_boxes_come_back_in_frame_pixels():
    inner = Recorder()
    detector = TrickAreaDetector(inner)
    live = LiveDecoder(Game, TableGeometry(center=(700.0, 400.0), radius=200.0))
    detector.follow(live)
    found = detector.update(frame_with_spot(760, 350))
    ((h, w),) = inner.shapes
    assert (w, h) == (460, 460)  # the radius and its margin, both ways
    assert detector.box == (470, 170, 930, 630)
    assert found.xyxy[0].tolist() == [755, 345, 765, 355]
    # A 460 px crop is searched at 480 px, not blown up to the detector's 640.
    assert inner.sizes == [480] and inner.imgsz == 640


def test_calibration_moves_the_crop_with_the_trick_area():
    inner = Recorder()
    detector = TrickAreaDetector(inner)
    pipeline = TablePipeline.for_video(1280, 720, detector=detector)
    detector.update(frame_with_spot(640, 360))
    pipeline.live.geometry = TableGeometry(center=(300.0, 300.0), radius=100.0)
    detector.update(frame_with_spot(300, 300))
    assert detector.box == (185, 185, 415, 415)


def test_a_degenerate_trick_area_falls_back_to_the_whole_frame():
    inner = Recorder()
    detector = TrickAreaDetector(inner)
    detector.follow(LiveDecoder(Game, TableGeometry(center=(2000.0, 2000.0), radius=10.0)))
    detector.update(frame_with_spot(10, 10))
    assert inner.shapes == [(720, 1280)] and detector.box is None
