"""The grey-level stretch before detection: which frames it stretches and how, and that the detector reads the
stretched frame."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dokocam.service.cli import main
from dokocam.vision.detector.contrast import contrast_lut, stretch_contrast
from dokocam.vision.detector.model import CardDetector, ModelCard


def _card_photo(ink: int, paper: int, table: int) -> np.ndarray:
    """A card with a red index and a black pip on a table, in the given grey levels (BGR)."""
    image = np.full((120, 160, 3), table, np.uint8)
    image[20:100, 40:110] = paper
    image[30:50, 48:60] = (ink, ink, min(255, ink + 60))
    image[60:80, 60:80] = ink
    return image


def _span(image: np.ndarray) -> int:
    return int(image.max()) - int(image.min())


def test_a_washed_out_photo_is_stretched_to_the_contrast_asked_for():
    washed = _card_photo(ink=100, paper=190, table=140)  # 90 grey levels from ink to paper
    out = stretch_contrast(washed, 160)
    assert 158 <= _span(out) <= 162
    # One table for every channel: the red index stays redder than it is blue.
    assert out[40, 54, 2] > out[40, 54, 0]
    assert int(out[25, 45, 0]) > 210  # the paper is nearly white again (190 before)


def test_a_photo_with_that_contrast_already_is_left_as_it_is():
    photo = _card_photo(ink=40, paper=230, table=120)
    assert stretch_contrast(photo, 160) is photo
    assert stretch_contrast(photo, 0) is photo


def test_a_flat_photo_is_stretched_at_most_four_times_and_kept_inside_the_range():
    flat = np.full((64, 64, 3), 230, np.uint8)
    flat[16:48, 16:48] = 250  # 20 grey levels near white
    out = stretch_contrast(flat, 200)
    assert int(out[0, 0, 0]) - int(out[32, 32, 0]) == -80
    assert out.max() <= 255 and int(out[32, 32, 0]) >= 250  # pushed down from white, not clipped


@pytest.mark.parametrize("bad", [-1, 256])
def test_a_contrast_outside_the_grey_levels_is_refused(bad: float):
    with pytest.raises(ValueError, match="min_range"):
        contrast_lut(np.zeros((4, 4), np.uint8), bad)


class _SeeingLocator:
    """Stands in for the Ultralytics model: keeps the frames it is shown and finds nothing."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def predict(self, image: np.ndarray, **kwargs: object) -> list[object]:
        import torch

        self.seen.append(image)

        class _Boxes:
            xyxy = torch.zeros((0, 4))
            conf = torch.zeros(0)
            cls = torch.zeros(0)

            def __len__(self) -> int:
                return 0

        class _Result:
            boxes = _Boxes()

        return [_Result()]


@pytest.mark.parametrize("min_contrast", [None, 160.0])
def test_the_detector_shows_its_networks_the_stretched_frame(min_contrast: float | None):
    locator = _SeeingLocator()
    detector = CardDetector(yolo=locator, card=ModelCard(imgsz=160), conf=0.25, imgsz=160, min_contrast=min_contrast)
    washed = _card_photo(ink=100, paper=190, table=140)
    detector.detect(washed)
    detector.locate(washed)
    expected = stretch_contrast(washed, min_contrast) if min_contrast else washed
    assert len(locator.seen) == 2
    for seen in locator.seen:
        np.testing.assert_array_equal(seen, expected)


def test_the_contrast_travels_in_the_model_card_with_its_own_table_value(tmp_path: Path):
    model = tmp_path / "m.pt"
    ModelCard(imgsz=320, min_contrast=128.0, table_min_contrast=0.0).save(model)
    loaded = ModelCard.load(model)
    assert loaded.min_contrast == 128.0
    assert loaded.for_table().min_contrast == 0.0
    assert ModelCard(min_contrast=128.0).for_table().min_contrast == 128.0  # no table value: the photos'


@pytest.mark.parametrize("bad", ["-1", "300", "strong"])
def test_a_bad_min_contrast_is_refused_with_a_message(bad: str, capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        main(["detect", "x.jpg", "--min-contrast", bad])
    assert "--min-contrast" in capsys.readouterr().err
