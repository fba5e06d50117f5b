"""Enrolment never keeps an outline that is not its card's edge: a shadow or a pale table taken into the
outline is refused by place, not stored as a miscropped face."""

from __future__ import annotations

import numpy as np
import pytest

from dokocam.vision.decks.enrol import EnrolmentError, _check_shapes, enrol_grid, shape_errors
from dokocam.vision.decks.grid import Placement
from dokocam.vision.decks.layout import COLUMNS, ROWS, place_name
from dokocam.vision.decks.outline import outline_of

CARD = (140.0, 215.0)  # a card's width and height in the photo, pixels
SHADOWED_SEED = 909  # a gridbench photo on a pale table whose cards' shadows close their outlines


def _placement(size: dict[tuple[int, int], tuple[float, float]] | None = None) -> Placement:
    """A 4 x 6 layout of upright card outlines, each ``CARD`` sized unless ``size`` says otherwise."""
    places = {}
    for r in range(ROWS):
        for c in range(COLUMNS):
            w, h = (size or {}).get((r, c), CARD)
            x, y = 100 + c * 180, 100 + r * 260
            places[(r, c)] = outline_of(np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], float))
    return Placement(places, (0.0, 1.0))


def test_card_shaped_outlines_pass() -> None:
    aspect, errors = shape_errors(_placement())
    assert aspect == pytest.approx(CARD[1] / CARD[0])
    assert max(errors.values()) == pytest.approx(0.0)
    _check_shapes(_placement())


def test_an_outline_widened_by_its_shadow_is_refused_by_place() -> None:
    placement = _placement({(2, 4): (CARD[0] * 1.3, CARD[1])})
    with pytest.raises(EnrolmentError, match=place_name(2, 4)) as refusal:
        _check_shapes(placement)
    assert place_name(2, 3) not in str(refusal.value)  # its neighbours are their cards


def test_outlines_that_are_not_card_shaped_are_refused() -> None:
    wide = {(r, c): (CARD[0] * 1.3, CARD[1]) for r in range(ROWS) for c in range(COLUMNS)}
    with pytest.raises(EnrolmentError, match="nicht kartenförmig"):
        _check_shapes(_placement(wide))


def test_a_photo_whose_shadows_close_the_outlines_is_refused_not_enrolled_wrong() -> None:
    from dokocam.vision.decks.enrol import shipped_reader
    from dokocam.vision.decks.gridbench import grid_case, misplaced
    from dokocam.vision.decks.layout import render_grid_scene

    faces, shot, table, look, _ = grid_case(SHADOWED_SEED)
    photo, annotation = render_grid_scene(faces, shot, seed=SHADOWED_SEED, look=look, table=table)
    try:
        enrolment = enrol_grid(photo, reader=shipped_reader())
    except EnrolmentError as refusal:
        assert "Umriss" in str(refusal) or "Leer:" in str(refusal)
    else:
        assert misplaced(enrolment.outlines, annotation) == []
