"""The scoring rule of `dokocam eval` and corner grouping, as pure functions."""

from __future__ import annotations

import numpy as np
import pytest

from dokocam.vision.detections import Detections
from dokocam.vision.detector.grouping import group_corners, pair_corners
from dokocam.vision.detector.matching import average_precision, box_iou, iou_assign, match_image

QC, QS, KH = 3, 9, 16
# A card 100x150 px at the origin with its two corner-index labels.
TOP_LEFT = [2, 2, 22, 42]
BOTTOM_RIGHT = [78, 108, 98, 148]


def test_whole_card_prediction_recalls_both_corner_labels_as_one_true_positive():
    r = match_image([[0, 0, 100, 150]], [QC], [0.9], [TOP_LEFT, BOTTOM_RIGHT], [QC, QC])
    assert r.pred_status == ("tp",)
    assert r.label_hit.tolist() == [0, 0]
    assert (r.true_positives, r.false_positives) == (1, 0)


def test_corner_predictions_hit_their_own_labels():
    r = match_image([[1, 1, 21, 41], [79, 109, 97, 147]], [QC, QC], [0.8, 0.7], [TOP_LEFT, BOTTOM_RIGHT], [QC, QC])
    assert r.pred_status == ("tp", "tp")
    assert r.label_hit.tolist() == [0, 1]


def test_wrong_card_is_a_false_positive_and_a_confusion():
    r = match_image([[0, 0, 30, 50]], [QS], [0.9], [TOP_LEFT], [QC])
    assert r.pred_status == ("fp",)
    assert r.label_hit.tolist() == [-1]
    assert r.label_confused.tolist() == [QS]


def test_box_must_cover_the_label_centre():
    # Overlaps the label but stops short of its centre (12, 22).
    r = match_image([[0, 0, 11, 40]], [QC], [0.9], [TOP_LEFT], [QC])
    assert r.pred_status == ("fp",)
    assert r.label_confused.tolist() == [-1]


def test_duplicate_prediction_is_a_false_positive():
    r = match_image([[0, 0, 30, 50], [1, 1, 29, 49]], [QC, QC], [0.6, 0.9], [TOP_LEFT], [QC])
    assert r.pred_status == ("fp", "tp")  # the more confident one claims the label


def test_prediction_on_an_ignored_card_counts_as_nothing():
    r = match_image([[200, 200, 230, 250]], [KH], [0.9], [TOP_LEFT], [QC], ignore_xyxy=[[205, 205, 225, 245]])
    assert r.pred_status == ("ignored",)
    assert r.label_hit.tolist() == [-1]


def test_one_prediction_recalls_at_most_two_labels():
    labels = [[0, 0, 10, 10], [20, 20, 30, 30], [40, 40, 50, 50]]
    r = match_image([[0, 0, 50, 50]], [QC], [0.9], labels, [QC, QC, QC])
    assert sorted(r.label_hit.tolist()) == [-1, 0, 0]


def test_no_predictions_no_labels():
    r = match_image(np.zeros((0, 4)), [], [], np.zeros((0, 4)), [])
    assert r.pred_status == () and r.label_hit.size == 0


def test_iou_and_ap():
    assert box_iou([[0, 0, 10, 10]], [[5, 0, 15, 10]])[0, 0] == pytest.approx(1 / 3)
    hit = iou_assign([[0, 0, 10, 10], [0, 0, 10, 10]], [QC, QC], [0.9, 0.5], [[0, 0, 10, 11]], [QC]) >= 0
    assert hit.tolist() == [True, False]
    # Two labels, a hit, then a miss, then a hit: precision 1 up to recall 0.5, then 2/3.
    ap = average_precision([0.9, 0.8, 0.7], [True, False, True], 2)
    assert ap == pytest.approx((51 * 1.0 + 50 * (2 / 3)) / 101)
    assert np.isnan(average_precision([], [], 0))


def test_pairing_joins_the_two_corners_of_a_card_and_keeps_copies_apart():
    boxes = [TOP_LEFT, BOTTOM_RIGHT, [302, 2, 322, 42], [378, 108, 398, 148]]
    groups = pair_corners(boxes, [QC, QC, QC, QC], [0.9, 0.9, 0.8, 0.8])
    assert groups == [(0, 1), (2, 3)]


def test_two_copies_side_by_side_pair_each_corner_with_its_own_partner():
    # From a rendered trick: copy A's upper corner lies nearer to copy B's lower corner (82 px)
    # than to its own partner (88 px). Pairing that nearest couple first leaves two corners
    # 160 px apart to pair across the trick: one card too many for the tracker.
    def box(x: float, y: float) -> list[float]:
        return [x - 10.5, y - 10.5, x + 10.5, y + 10.5]

    boxes = [box(555, 433), box(631, 477), box(560, 328), box(490, 380)]
    assert pair_corners(boxes, [QC] * 4, [0.9, 0.9, 0.9, 0.9]) == [(0, 1), (2, 3)]


def test_pairing_never_joins_different_cards_or_far_corners():
    assert pair_corners([TOP_LEFT, BOTTOM_RIGHT], [QC, QS], [0.9, 0.9]) == [(0,), (1,)]
    assert pair_corners([TOP_LEFT, [600, 600, 620, 640]], [QC, QC], [0.9, 0.9]) == [(0,), (1,)]


def test_group_corners_gives_one_card_box_covering_both_corners():
    corners = Detections(
        xyxy=[TOP_LEFT, BOTTOM_RIGHT, [300, 300, 320, 340]], confidence=[0.9, 0.7, 0.8], class_id=[QC, QC, KH]
    )
    cards = group_corners(corners)
    assert len(cards) == 2
    assert cards.xyxy[0].tolist() == [2, 2, 98, 148]
    assert cards.confidence[0] == pytest.approx(0.9)
    assert cards.data["corners"].tolist() == [2, 1]
    r = match_image(cards.xyxy, cards.class_id, cards.confidence, [TOP_LEFT, BOTTOM_RIGHT], [QC, QC])
    assert r.pred_status == ("tp", "fp")


def test_pairing_prefers_the_nearer_partner_over_the_more_confident_one():
    # The copy's corner B1 is more confident than A's own lower corner, but further away.
    boxes = [TOP_LEFT, BOTTOM_RIGHT, [302, 2, 322, 42], [378, 108, 398, 148]]
    assert pair_corners(boxes, [QC] * 4, [0.9, 0.3, 0.9, 0.3]) == [(0, 1), (2, 3)]


def _probs(**cards: float) -> np.ndarray:
    p = np.zeros(24)
    for name, value in cards.items():
        p[{"QC": QC, "QS": QS, "KH": KH}[name]] = value
    return p


def test_a_misread_corner_is_outvoted_by_its_partner_when_probabilities_are_known():
    # Upper corner reads QC clearly; the lower one leans QS but QC is close behind.
    probs = np.stack([_probs(QC=0.9, QS=0.1), _probs(QS=0.55, QC=0.45)])
    corners = Detections(
        xyxy=[TOP_LEFT, BOTTOM_RIGHT],
        confidence=[0.9, 0.7],
        class_id=[QC, QS],
        data={"probs": probs, "located": np.array([0.9, 0.9])},
    )
    cards = group_corners(corners)
    assert cards.class_id.tolist() == [QC] and cards.data["corners"].tolist() == [2]
    assert cards.confidence[0] == pytest.approx(np.sqrt(0.9 * np.sqrt(0.9 * 0.45)), abs=1e-5)
    r = match_image(cards.xyxy, cards.class_id, cards.confidence, [TOP_LEFT, BOTTOM_RIGHT], [QC, QC])
    assert r.pred_status == ("tp",) and r.label_hit.tolist() == [0, 0]


def test_corners_that_agree_on_no_card_stay_two_cards():
    probs = np.stack([_probs(QC=0.95, QS=0.05), _probs(KH=0.97, QC=0.03)])
    corners = Detections(xyxy=[TOP_LEFT, BOTTOM_RIGHT], confidence=[0.9, 0.9], class_id=[QC, KH], data={"probs": probs})
    assert group_corners(corners).class_id.tolist() == [QC, KH]


def _index_corners(
    cx: float, cy: float, angle: float, w: float = 50, h: float = 76, index: float = 20
) -> list[list[float]]:
    """The four index boxes of a card printing its index in every corner, centred at (cx, cy),
    rotated by ``angle`` degrees (``w`` x ``h``: the rectangle of the index centres)."""
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    centres = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]) @ rot.T + (cx, cy)
    return [[x - index / 2, y - index / 2, x + index / 2, y + index / 2] for x, y in centres]


@pytest.mark.parametrize("angle", [0.0, 30.0, 75.0, 120.0])
def test_a_card_with_an_index_in_every_corner_is_one_card_at_any_rotation(angle):
    boxes = _index_corners(300, 200, angle)
    assert pair_corners(boxes, [QC] * 4, [0.9, 0.8, 0.7, 0.6]) == [(0, 1, 2, 3)]
    cards = group_corners(Detections(xyxy=boxes, confidence=[0.9, 0.8, 0.7, 0.6], class_id=[QC] * 4))
    assert len(cards) == 1 and cards.data["corners"].tolist() == [4]


def test_three_corners_of_a_four_index_card_and_a_twin_box_are_one_card():
    boxes = _index_corners(300, 200, 30.0)[:3]
    x1, y1, x2, y2 = boxes[0]
    twin = [x1 + 3, y1 - 2, x2 + 4, y2 - 1]  # the locator found one index twice
    assert pair_corners([*boxes, twin], [QC] * 4, [0.9, 0.8, 0.7, 0.5]) == [(0, 1, 2, 3)]


def test_two_four_index_copies_of_a_card_overlapping_stay_two_cards():
    first, second = _index_corners(300, 200, 10.0), _index_corners(350, 260, 100.0)
    groups = pair_corners([*first, *second], [QC] * 8, [0.9] * 8)
    assert sorted(groups) == [(0, 1, 2, 3), (4, 5, 6, 7)]


def test_a_card_found_by_its_four_indices_recalls_all_four_labels():
    boxes = _index_corners(300, 200, 30.0)
    cards = group_corners(Detections(xyxy=boxes, confidence=[0.9] * 4, class_id=[QC] * 4))
    r = match_image(cards.xyxy, cards.class_id, cards.confidence, boxes, [QC] * 4, pred_claims=cards.data["corners"])
    assert r.pred_status == ("tp",) and (r.label_hit == 0).all()
    # Without saying how many corners it joins, a prediction recalls at most two labels.
    assert (match_image(cards.xyxy, cards.class_id, cards.confidence, boxes, [QC] * 4).label_hit == 0).sum() == 2
