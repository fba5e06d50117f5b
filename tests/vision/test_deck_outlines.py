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


def _shadowed_card(table: int, shadow: int, card: int) -> np.ndarray:
    """A card from (100, 100) to (260, 310) whose shadow reaches 10 px past its right and bottom edges."""
    photo = np.full((400, 400, 3), table, np.uint8)
    photo[100:320, 110:270] = shadow
    photo[100:310, 100:260] = card
    return photo


CARD_EDGES = np.array([[100, 100], [260, 100], [260, 310], [100, 310]], float)
SHADOW_EDGES = np.array([[100, 100], [270, 100], [270, 320], [100, 320]], float)  # the mask took the shadow in


def test_light_cards_are_told_from_dark_ones() -> None:
    from dokocam.vision.decks.outline import cards_lighter, outline_of

    assert cards_lighter(_shadowed_card(170, 90, 240), [outline_of(CARD_EDGES)])
    assert not cards_lighter(_shadowed_card(200, 20, 40), [outline_of(CARD_EDGES)])  # a black deck


def test_a_side_snaps_onto_the_cards_edge_not_its_shadows() -> None:
    from dokocam.vision.decks.outline import EdgeMap

    photo = _shadowed_card(250, 60, 235)  # a glossy white table: the shadow's outer edge is the strongest
    assert np.abs(EdgeMap(photo).snap(SHADOW_EDGES, reach=0.08) - SHADOW_EDGES).max() <= 4
    snapped = EdgeMap(photo, light_inside=True).snap(SHADOW_EDGES, reach=0.08)
    assert np.abs(snapped - CARD_EDGES).max() <= 4  # the snap moves in steps of 4 px here


def test_a_side_on_a_printed_frame_line_moves_out_to_the_cards_edge() -> None:
    """A pale table (190) a little darker than the stock (235), a grey frame line (180) printed 3 px inside the
    edge: the line's inner side rises more into the card than the card's edge does, but lies inside it."""
    from dokocam.vision.decks.outline import EdgeMap

    photo = np.full((400, 400, 3), 190, np.uint8)
    photo[100:310, 100:260] = 235
    photo[103:307, 103:257] = 180
    photo[106:304, 106:254] = 235
    on_line = np.array([[106, 106], [254, 106], [254, 304], [106, 304]], float)
    snapped = EdgeMap(photo, light_inside=True).snap(on_line, 0.06)
    assert np.abs(snapped - CARD_EDGES).max() <= 4.0  # the snap's steps; the line's inner side lies 6 px inside
