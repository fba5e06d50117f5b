"""Reading a grouped card by its whole face against an enrolled deck's faces (``vision/detector/faces.py``), and the
match stage that multiplies it into the corners' reading."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from dokocam.engine import CARD_CODES
from dokocam.vision.detections import Detections
from dokocam.vision.detector.faces import FaceTemplates, colourless
from dokocam.vision.detector.grouping import group_corners
from dokocam.vision.detector.stages import Frame, Match, MatchConfig


@pytest.fixture(scope="module")
def deck() -> dict:
    from dokocam.vision.synth.scene import Deck

    drawn = Deck.procedural(seed=11, face_width=240)
    return {code: drawn.face(code) for code in CARD_CODES}


@pytest.fixture(scope="module")
def templates(deck: dict) -> FaceTemplates:
    boxes = {code: [(*q.min(axis=0).tolist(), *q.max(axis=0).tolist()) for q in f.indices] for code, f in deck.items()}
    return FaceTemplates.from_faces({code: f.image for code, f in deck.items()}, boxes)


def _laid(face, angle_deg: float, width: float, centre=(320.0, 240.0), table=(40, 110, 30)):
    """A 640x480 frame of a green table with ``face`` on it, turned and ``width`` px wide; and its two index centres."""
    h, w = face.image.shape[:2]
    scale = width / w
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, scale)
    turn[:, 2] += np.array(centre) - np.array([w / 2, h / 2])
    frame = np.zeros((480, 640, 3), np.uint8)
    frame[:] = table
    card = cv2.warpAffine(face.image, turn, (640, 480), flags=cv2.INTER_AREA)
    mask = cv2.warpAffine(face.mask, turn, (640, 480), flags=cv2.INTER_AREA)[..., None] / 255.0
    frame = (card * mask + frame * (1 - mask)).astype(np.uint8)
    ends = [turn @ np.r_[q.mean(axis=0), 1.0] for q in face.indices[:2]]
    return frame, np.r_[ends[0], ends[1]]


@pytest.mark.parametrize("angle", [0.0, 37.0, 90.0, 200.0, -60.0])
def test_a_card_at_any_angle_is_named_by_its_whole_face_from_either_end(
    deck: dict, templates: FaceTemplates, angle: float
):
    for code in ("QH", "QD", "10S", "9C", "AD", "KC"):
        frame, ends = _laid(deck[code], angle, width=55)
        assert CARD_CODES[int(templates.errors(frame, ends).argmin())] == code
        swapped = np.r_[ends[2:], ends[:2]]  # which corner the grouping listed first says nothing
        assert CARD_CODES[int(templates.errors(frame, swapped).argmin())] == code


def test_probabilities_sum_to_one_and_favour_the_fitting_face(deck: dict, templates: FaceTemplates):
    frame, ends = _laid(deck["JS"], 15.0, width=60)
    p = templates.probabilities(frame, ends, temperature=0.1)
    assert math.isclose(float(p.sum()), 1.0, rel_tol=1e-6) and CARD_CODES[int(p.argmax())] == "JS" and p.max() > 0.5
    flat = templates.probabilities(frame, ends, temperature=100.0)
    assert flat.max() < 0.1  # a high temperature says little


def test_a_frame_without_colour_is_compared_with_grey_faces(deck: dict, templates: FaceTemplates):
    frame, ends = _laid(deck["9H"], 20.0, width=60)
    grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    assert colourless(grey) and not colourless(frame)
    assert CARD_CODES[int(templates.errors(grey, ends).argmin())] == "9H"
    # Compared with its coloured faces, the grey red card fits a black one's better than its own.
    warp = templates.warp(grey, ends, ("TL", "BR"))
    from dokocam.vision.detector.faces import _normalised

    colour_errors = ((templates.templates - _normalised(warp)[None]) ** 2).mean(axis=(1, 2, 3))
    assert CARD_CODES[int(colour_errors.argmin())] != "9H"


def test_templates_need_every_face_and_two_opposite_corners(deck: dict):
    faces = {code: f.image for code, f in deck.items()}
    with pytest.raises(ValueError, match="no face for QC"):
        FaceTemplates.from_faces({c: f for c, f in faces.items() if c != "QC"}, {})
    top_left_only = {code: [(2.0, 2.0, 20.0, 30.0)] for code in CARD_CODES}
    with pytest.raises(ValueError, match="two opposite corners"):
        FaceTemplates.from_faces(faces, top_left_only)


def test_a_deck_printing_two_indices_tries_its_diagonals_only(deck: dict, templates: FaceTemplates):
    two = {code: [(2.0, 2.0, 20.0, 30.0), (220.0, 340.0, 238.0, 368.0)] for code in CARD_CODES}
    assert len(FaceTemplates.from_faces({c: f.image for c, f in deck.items()}, two).ways()) == 2
    assert len(templates.ways()) in (2, 4, 12)


def _corners(rows: list[tuple[tuple[float, float, float, float], str, float]]) -> Detections:
    probs = np.zeros((len(rows), 25))
    for k, (_, code, p) in enumerate(rows):
        probs[k, CARD_CODES.index(code)] = p
        probs[k, 24] = 1 - p
    return Detections(
        xyxy=np.array([r[0] for r in rows], np.float32),
        confidence=np.full(len(rows), 0.8, np.float32),
        class_id=np.array([CARD_CODES.index(r[1]) for r in rows]),
        data={"probs": probs, "located": np.array([0.9, 0.7, 0.6][: len(rows)])},
    )


def test_grouping_keeps_the_evidence_a_whole_card_read_needs():
    corners = _corners(
        [((100, 100, 110, 115), "QH", 0.6), ((150, 170, 160, 185), "QH", 0.8), ((400, 50, 410, 65), "9S", 0.9)]
    )
    plain = group_corners(corners)
    assert set(plain.data) == {"corners"}
    cards = group_corners(corners, evidence=True)
    pair = int(np.flatnonzero(cards.data["corners"] == 2)[0])
    single = 1 - pair
    assert sorted(cards.data["ends"][pair].tolist()) == sorted([105.0, 107.5, 155.0, 177.5])
    assert np.isnan(cards.data["ends"][single]).all()
    assert cards.data["located"][pair] == pytest.approx(0.9)
    assert cards.data["probs"][pair, CARD_CODES.index("QH")] == pytest.approx(math.sqrt(0.6 * 0.8))


class _Faces:
    """Templates that find one card's face in any frame."""

    def __init__(self, code: str, p: float) -> None:
        self.p = np.full(24, (1 - p) / 23)
        self.p[CARD_CODES.index(code)] = p
        self.calls = 0

    def probabilities(self, image: np.ndarray, ends: np.ndarray, temperature: float, grey: object = None) -> np.ndarray:
        self.calls += 1
        return self.p


def test_the_match_stage_reads_pairs_again_and_leaves_single_corners_as_read():
    corners = _corners(
        [((100, 100, 110, 115), "QH", 0.5), ((150, 170, 160, 185), "QH", 0.5), ((400, 50, 410, 65), "9S", 0.9)]
    )
    cards = group_corners(corners, evidence=True)
    probs = cards.data["probs"]
    pair = int(np.flatnonzero(cards.data["corners"] == 2)[0])
    probs[pair, CARD_CODES.index("QD")] = 0.4  # the corners were unsure between Herz- and Karo-Dame
    faces = _Faces("QD", 0.9)
    matched = Match(MatchConfig(), faces, locate_weight=0.5)(Frame(np.zeros((10, 10, 3), np.uint8), 0.0, 0.0), cards)
    assert faces.calls == 1  # the single corner is not matched
    assert CARD_CODES[int(matched.class_id[pair])] == "QD"
    assert (
        matched.class_id[1 - pair] == cards.class_id[1 - pair]
        and matched.confidence[1 - pair] == cards.confidence[1 - pair]
    )
    assert set(matched.data) == {"corners"}  # the evidence is dropped: a matched card looks like any grouped one
    assert 0 < matched.confidence[pair] <= 1
