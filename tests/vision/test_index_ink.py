"""The index label of a face nobody labelled (an SVG deck, a face folder, an enrolled deck), found by its ink:
printed decks join, split and surround their indices in ways drawn decks never do."""

from __future__ import annotations

import cv2
import numpy as np

from dokocam.vision.synth.faces import index_ink_box, rounded_mask

W, H = 360, 540
STOCK = (236, 236, 236)
INK = (20, 20, 20)


def _face(stock: tuple[int, int, int] = STOCK) -> np.ndarray:
    return np.full((H, W, 3), stock, np.uint8)


def _index(face: np.ndarray, top: int = 20) -> tuple[int, int, int, int]:
    """A "10" (two glyphs) and a suit sign under it at the top left; returns the index's ink box."""
    face[top : top + 50, 16:24] = INK
    face[top : top + 50, 30:56] = INK
    face[top + 12 : top + 38, 36:50] = STOCK[0]
    face[top + 58 : top + 88, 20:52] = INK
    return 16, top, 56, top + 88


def _inside(box: tuple[float, float, float, float] | None, ink: tuple[int, int, int, int]) -> bool:
    """``box`` is the ink's box with at most a label's margin (a few percent of its height) around it."""
    slack = 2 + 0.06 * (ink[3] - ink[1])
    return box is not None and all(abs(a - b) <= slack for a, b in zip(box, ink))


def test_the_cards_own_outline_is_not_its_index() -> None:
    face = _face()
    card = np.zeros((H, W), np.uint8)
    card[1:-1, 1:-1] = rounded_mask(W - 2, H - 2, 0.05 * W)
    edge = card - cv2.erode(card, np.ones((5, 5), np.uint8))
    face[edge > 0] = (90, 90, 90)  # a thin dark outline just inside the card's rounded edge
    ink = _index(face)
    assert _inside(index_ink_box(face), ink)


def test_an_index_printed_against_the_outline_keeps_its_glyph() -> None:
    face = _face()
    face[:, :3] = face[:3, :] = (90, 90, 90)  # the outline along the edges
    face[20:70, 3:12] = INK  # the "1" of a "10" printed against it
    face[20:70, 20:50] = INK
    face[32:58, 26:44] = STOCK[0]
    face[78:108, 20:50] = INK
    assert _inside(index_ink_box(face), (3, 20, 50, 108))


def test_a_court_picture_filling_the_corner_is_not_taken_for_the_stock() -> None:
    face = _face()
    # A court picture in a frame covers most of the corner region, in many colours, none as wide as the stock.
    face[120:-60, 8:62] = (180, 40, 150)
    for k, x in enumerate(range(62, W - 62, 48)):
        face[60:-60, x : min(x + 48, W - 62)] = ((60 * k) % 256, (110 + 70 * k) % 256, (200 - 40 * k) % 256)
    ink = _index(face)
    assert _inside(index_ink_box(face), ink)


def test_one_suit_sign_joins_the_rank_and_what_hangs_below_it_does_not() -> None:
    face = _face()
    ink = _index(face)
    face[ink[3] + 6 : ink[3] + 40, 30:42] = INK  # the top of a court's sceptre right under the sign
    face[ink[3] + 40 : 300, 34:38] = INK
    assert _inside(index_ink_box(face), ink)


def test_a_bold_glyphs_long_crossbar_is_not_a_frame_line() -> None:
    face = _face()
    face[20:90, 14:20] = face[20:90, 80:86] = INK  # a wide bold "A": two legs and a thin bar across
    face[20:26, 14:86] = INK
    face[60:63, 14:86] = INK
    face[98:130, 30:70] = INK  # its suit sign
    assert _inside(index_ink_box(face), (14, 20, 86, 130))


def test_a_rank_joined_to_its_sign_is_found_when_the_two_run_out_of_the_corner_region() -> None:
    face = _face()
    face[20:130, 16:60] = INK  # a large bold Q whose tail runs into the sign under it: one shape
    face[130:260, 20:90] = INK
    assert _inside(index_ink_box(face), (16, 20, 90, 260))


def test_no_label_when_the_index_is_joined_to_the_picture() -> None:
    face = _face()
    face[20:60, 20:50] = INK  # the letter, joined by a sign to a large pip that runs out of the corner region
    face[50:130, 40:200] = INK
    face[150:190, 30:80] = INK  # a rose in the picture, far from the corner
    assert index_ink_box(face) is None
