"""The reading rescorer: its features, its fit, its file, and how the detector and mAP use its scores."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dokocam.vision.detections import Detections
from dokocam.vision.detector.grouping import every_reading, group_corners
from dokocam.vision.detector.matching import average_precision
from dokocam.vision.detector.model import CardDetector, ModelCard, Profile
from dokocam.vision.detector.rescorer import (
    CONTEXT_FEATURES,
    FEATURES,
    PLAIN_FEATURES,
    Rescorer,
    RescorerFileError,
    features_for,
    fit_rescorer,
    reading_features,
)
from dokocam.vision.detector.stages import GroupConfig, LocateConfig, ReadConfig, RescoreConfig, ScoreConfig

PARTNER, TWIN = FEATURES.index("log_partner"), FEATURES.index("log_twin")


def _probs(*rows: dict[int, float], cards: int = 4) -> np.ndarray:
    out = np.zeros((len(rows), cards))
    for k, row in enumerate(rows):
        for c, p in row.items():
            out[k, c] = p
    return out


def test_a_corner_is_supported_by_its_cards_other_corner_only_at_a_cards_distance():
    # Box 0 and box 1: 10x14 indices 50 px apart (3.6 index sizes, a card's two corners); box 2 far off (80
    # sizes); box 3 on box 0's print.
    xyxy = np.array([[0, 0, 10, 14], [50, 0, 60, 14], [1100, 0, 1110, 14], [1, 1, 11, 15]], float)
    probs = _probs({1: 0.5, 2: 0.4}, {1: 0.9}, {2: 0.95}, {2: 0.6})
    f = reading_features(xyxy, probs, np.array([0.8, 0.9, 0.9, 0.5]), 0.35)
    assert np.exp(f[0, 1, PARTNER]) == pytest.approx(0.9 * 0.9 + 1e-3)  # its partner reads card 1
    assert np.exp(f[0, 2, PARTNER]) == pytest.approx(1e-3)  # the far box's card 2 does not count
    assert np.exp(f[0, 2, TWIN]) == pytest.approx(0.6 * 0.5 + 1e-3)  # the box on the same print does
    assert f[2, :, FEATURES.index("has_partner")].tolist() == [0.0] * 4
    # A box of a very different size at that distance is no partner (two corners are printed alike).
    small = reading_features(
        np.array([[0, 0, 10, 14], [50, 0, 53, 4]], float), _probs({1: 0.5}, {1: 0.9}), np.array([0.8, 0.9]), 0.35
    )
    assert np.exp(small[0, 1, PARTNER]) == pytest.approx(1e-3)


def test_a_box_is_sized_against_the_photos_sure_indices():
    # Three sure 10x14 indices and, on a card's pips, a less sure box twice their size.
    xyxy = np.array([[0, 0, 10, 14], [100, 0, 110, 14], [200, 0, 210, 14], [300, 0, 320, 28]], float)
    f = reading_features(xyxy, _probs({1: 0.9}, {2: 0.9}, {3: 0.9}, {1: 0.6}), np.array([0.9, 0.8, 0.7, 0.3]), 0.35)
    assert np.exp(f[:, 0, FEATURES.index("log_relative_size")]) == pytest.approx([1.0, 1.0, 1.0, 2.0])
    # With no sure box the median of all boxes stands in.
    g = reading_features(xyxy[2:], _probs({3: 0.9}, {1: 0.6}), np.array([0.2, 0.3]), 0.35)
    assert np.exp(g[:, 0, FEATURES.index("log_relative_size")]) == pytest.approx(
        [14 / 21, 28 / 21]
    )  # median size 21 px


def test_the_fit_learns_what_the_plain_score_cannot_see():
    # Readings of equal plain score, right exactly when the card's other corner reads it too.
    rng = np.random.default_rng(0)
    n = 4000
    features = rng.normal(size=(n, len(FEATURES)))
    supported = rng.random(n) < 0.3
    features[:, PARTNER] = np.where(supported, np.log(0.8), np.log(1e-3)) + rng.normal(0, 0.05, n)
    hits = supported & (rng.random(n) < 0.95)
    rescorer = fit_rescorer(features, hits, hidden=8, epochs=200)
    scores = rescorer.apply(features)
    plain = rng.random(n)  # what a score blind to the partner ranks by
    assert (
        average_precision(scores, hits, int(hits.sum())) > 0.9 > average_precision(plain, hits, int(hits.sum())) + 0.4
    )
    assert rescorer.info is not None and rescorer.info["readings"] == n and rescorer.info["hits"] == int(hits.sum())


def _one_feature_decides(
    name: str,
    when_right: float,
    when_wrong: float,
    seed: int,
    blind_names: tuple[str, ...],
    seeing_names: tuple[str, ...],
) -> tuple[np.ndarray, np.ndarray, Rescorer, Rescorer]:
    """Readings right exactly when feature ``name`` says so: a fit that reads it ranks them (AP > 0.9), one blind
    to it cannot."""
    rng = np.random.default_rng(seed)
    n = 3000
    features = rng.normal(size=(n, len(FEATURES)))
    right = rng.random(n) < 0.4
    features[:, FEATURES.index(name)] = np.log(np.where(right, when_right, when_wrong))
    hits = right & (rng.random(n) < 0.95)
    blind, seeing = (
        fit_rescorer(features, hits, hidden=8, epochs=200, names=names) for names in (blind_names, seeing_names)
    )
    k = int(hits.sum())
    assert (
        average_precision(seeing.apply(features), hits, k)
        > 0.9
        > average_precision(blind.apply(features), hits, k) + 0.3
    )
    return features, hits, blind, seeing


def test_a_rescorer_reads_only_the_features_it_was_fitted_on(tmp_path: Path):
    # Right exactly when more than one locator pass found the box: only a fit that reads the votes sees it.
    blind_names = tuple(f for f in PLAIN_FEATURES if f != "log_votes")
    features, hits, blind, _ = _one_feature_decides("log_votes", 3.0, 1.0, 2, blind_names, PLAIN_FEATURES)
    loaded = Rescorer.load(blind.save(tmp_path / "blind.json"))
    assert "log_votes" not in loaded.features and np.allclose(loaded.apply(features), blind.apply(features))
    with pytest.raises(ValueError, match="not log_moon_phase"):
        fit_rescorer(features, hits, names=("log_moon_phase",))


def test_a_context_classifiers_readings_are_features_only_for_a_rescorer_fitted_on_them(tmp_path: Path):
    xyxy, probs, located = (
        np.array([[0, 0, 10, 14], [50, 0, 60, 14]], float),
        _probs({1: 0.5, 2: 0.4}, {1: 0.9}),
        np.array([0.8, 0.9]),
    )
    # Background last, as the classifier gives it: box 0's window reads card 2, box 1's "no index".
    context = np.array([[0.0, 0.1, 0.8, 0.0, 0.1], [0.0, 0.0, 0.0, 0.0, 1.0]])
    f = reading_features(xyxy, probs, located, 0.35, context=context)
    assert np.exp(f[0, :, FEATURES.index("log_context_probability")]) == pytest.approx([1e-4, 0.1001, 0.8001, 1e-4])
    assert np.exp(f[1, :, FEATURES.index("log_context_background")]) == pytest.approx([1.0001] * 4)
    assert np.isnan(reading_features(xyxy, probs, located, 0.35)[..., FEATURES.index("log_context_background")]).all()
    # Right exactly when the context agrees: only a fit that reads it can learn that.
    features, hits, blind, seeing = _one_feature_decides(
        "log_context_probability", 0.9, 0.05, 3, features_for(False), features_for(True)
    )
    assert (
        seeing.needs_context
        and not blind.needs_context
        and Rescorer.load(seeing.save(tmp_path / "c.json")).needs_context
    )
    with pytest.raises(ValueError, match="has no context classifier"):
        seeing.scores(xyxy, probs, located)
    assert seeing.scores(xyxy, probs, located, context=context).shape == (2, 4)
    # Readings collected without a context classifier cannot fit one that reads it.
    features[:, FEATURES.index(CONTEXT_FEATURES[1])] = np.nan
    with pytest.raises(ValueError, match="lack log_context_probability, log_context_background"):
        fit_rescorer(features, hits, names=features_for(True))
    assert not np.isnan(fit_rescorer(features, hits, hidden=4, epochs=5).apply(features)).any()


def test_a_rescorer_file_round_trips_and_a_foreign_or_damaged_one_is_refused(tmp_path: Path):
    rng = np.random.default_rng(1)
    k = len(PLAIN_FEATURES)
    rescorer = Rescorer(
        mean=rng.normal(size=k),
        std=rng.random(k) + 0.5,
        w1=rng.normal(size=(k, 5)),
        b1=rng.normal(size=5),
        w2=rng.normal(size=5),
        b2=0.3,
        floor=0.07,
    )
    path = rescorer.save(tmp_path / "r.json")
    loaded = Rescorer.load(path)
    features = rng.normal(size=(3, 4, len(FEATURES)))
    assert np.allclose(loaded.apply(features), rescorer.apply(features)) and loaded.floor == 0.07
    (tmp_path / "other.json").write_text(json.dumps({"kind": "something else"}))
    with pytest.raises(RescorerFileError, match="not a dokocam rescorer"):
        Rescorer.load(tmp_path / "other.json")
    data = json.loads(path.read_text())
    data["features"] = data["features"][:-1] + ["log_moon_phase"]
    (tmp_path / "foreign.json").write_text(json.dumps(data))
    with pytest.raises(RescorerFileError, match="other features"):
        Rescorer.load(tmp_path / "foreign.json")
    data["features"] = data["features"][:-1]  # names fewer features than it has weights for
    (tmp_path / "short.json").write_text(json.dumps(data))
    with pytest.raises(RescorerFileError, match="damaged"):
        Rescorer.load(tmp_path / "short.json")
    data = json.loads(path.read_text())
    data["w2"] = data["w2"][:2]
    (tmp_path / "cut.json").write_text(json.dumps(data))
    with pytest.raises(RescorerFileError, match="damaged"):
        Rescorer.load(tmp_path / "cut.json")
    (tmp_path / "half.json").write_text(path.read_text()[:100])
    with pytest.raises(RescorerFileError, match="cannot be read"):
        Rescorer.load(tmp_path / "half.json")


def _partner_rescorer() -> Rescorer:
    """A hand-made rescorer: a reading's score rises with its partner's support and its own probability."""
    k = len(PLAIN_FEATURES)
    w1 = np.zeros((k, 2))
    w1[PLAIN_FEATURES.index("log_partner"), 0], w1[PLAIN_FEATURES.index("log_probability"), 1] = 1.0, 1.0
    return Rescorer(
        mean=np.zeros(k), std=np.ones(k), w1=w1, b1=np.array([7.0, 10.0]), w2=np.array([1.0, 1.0]), b2=-12.0
    )


class _Reader:
    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows

    def probabilities(self, image: np.ndarray, xyxy: np.ndarray, **kwargs: object) -> np.ndarray:
        return self.rows[: len(xyxy)].copy()


class _Locator:
    def __init__(self, boxes: list[tuple[float, float, float, float, float]]) -> None:
        self.boxes = boxes

    def predict(self, image: np.ndarray, **kwargs: object) -> list[object]:
        import torch

        from tests.vision.test_detector_passes import _Boxes, _Result

        rows = torch.tensor(self.boxes, dtype=torch.float32).reshape(-1, 5)
        return [_Result(_Boxes(rows[:, :4], rows[:, 4], torch.zeros(len(rows))))]


def _profile(rescore: RescoreConfig) -> Profile:
    """A photo profile that reads, scores and rescores at 0.05."""
    stages = (LocateConfig(imgsz=320, conf=0.05), ReadConfig("c.pt"), ScoreConfig(), rescore, GroupConfig())
    return Profile("photo", 0.05, stages, locate_weight=0.35)


def test_photos_are_scored_by_the_rescorer_with_the_cards_other_corner_and_tables_never():
    from dokocam.vision.yolo import BACKGROUND

    # Two corners of one card 50 px apart read 0.55/0.4 and 0.9 as card 3, and a lone corner read 0.55 as card 5.
    probs = np.zeros((3, 25))
    probs[0, [3, 7, BACKGROUND]] = (0.55, 0.4, 0.05)
    probs[1, [3, BACKGROUND]] = (0.9, 0.1)
    probs[2, [5, BACKGROUND]] = (0.55, 0.45)
    locator = _Locator([(10, 10, 24, 30, 0.8), (60, 10, 74, 30, 0.8), (200, 100, 214, 120, 0.8)])
    detector = CardDetector(
        _profile(RescoreConfig("r.json")), locator, reader=_Reader(probs), rescorer=_partner_rescorer()
    )
    image = np.zeros((200, 300, 3), np.uint8)
    found = detector.reads(image)
    assert found.class_id.tolist() == [3, 3, 5]
    assert found.confidence.tolist() == pytest.approx(found.data["scores"].max(1).tolist())
    # The lone corner reads as surely as the first, but has no partner: it is scored below it.
    assert found.confidence[2] < found.confidence[0]
    # The reads at a threshold are those of a lower one that score that much, scored the same.
    high = detector.reads(image, conf=float(found.confidence[2]) + 1e-6)
    assert high.class_id.tolist() == [3, 3] and high.confidence.tolist() == pytest.approx(found.confidence[:2].tolist())
    # mAP ranks every reading by its fitted score; the first corner's second reading is there too.
    readings = every_reading(found, 0.0)
    assert sorted(readings.confidence.tolist()) == pytest.approx(
        sorted(found.data["scores"][found.data["scores"] > 0].tolist())
    )
    # Table frames keep the plain score: their thresholds were measured on it.
    flat = ModelCard.from_flat({"classifier": "c.pt", "rescorer": "r.json", "rescorer_conf": 0.5, "conf": 0.3})
    assert flat.profile("photo").stage("rescore") is not None and flat.profile("table").stage("rescore") is None
    assert (flat.profile("photo").conf, flat.profile("table").conf) == (0.5, 0.3)


def test_a_context_classifiers_reading_moves_a_photos_scores_when_the_rescorer_reads_it():
    from dokocam.vision.yolo import BACKGROUND

    # One box read 0.5/0.45 between cards 3 and 7; its context window reads card 7.
    probs = np.zeros((1, 25))
    probs[0, [3, 7, BACKGROUND]] = (0.5, 0.45, 0.05)
    context = np.zeros((1, 25))
    context[0, [3, 7]] = (0.05, 0.95)
    k = len(FEATURES)
    w1 = np.zeros((k, 1))
    w1[FEATURES.index("log_context_probability"), 0] = 1.0
    trusts_context = Rescorer(
        mean=np.zeros(k), std=np.ones(k), w1=w1, b1=np.array([5.0]), w2=np.ones(1), b2=-5.0, features=FEATURES
    )
    image = np.zeros((200, 300, 3), np.uint8)
    detector = CardDetector(
        _profile(RescoreConfig("r.json", "x.pt")),
        _Locator([(10, 10, 24, 30, 0.8)]),
        reader=_Reader(probs),
        rescorer=trusts_context,
        context=_Reader(context),
    )
    assert detector.reads(image).class_id.tolist() == [7]  # the plain score would say 3
    # Without a rescorer (as ``collect_readings`` reads) the context travels in the data, unscored.
    plain = replace(detector, rescorer=None).reads(image)
    assert plain.class_id.tolist() == [3] and plain.data["context"].tolist() == context.tolist()
    # A rescorer that reads the context cannot run without the classifier that gives it.
    with pytest.raises(ValueError, match="reads a context classifier's probabilities"):
        replace(detector, context=None)


def test_a_pair_read_two_ways_takes_its_surer_corners_fitted_score_for_the_joint_card():
    scores = np.array([[0.0, 0.7, 0.2], [0.0, 0.3, 0.6]])
    probs = np.array([[0.0, 0.6, 0.4], [0.0, 0.45, 0.55]])
    corners = Detections(
        xyxy=[[0, 0, 10, 14], [50, 0, 60, 14]],
        confidence=[0.7, 0.6],
        class_id=[1, 2],
        data={"probs": probs, "located": np.array([0.9, 0.9]), "scores": scores},
    )
    cards = group_corners(corners, locate_weight=0.35)
    assert len(cards) == 1 and cards.class_id.tolist() == [1]  # 0.6 * 0.45 beats 0.4 * 0.55
    assert cards.confidence.tolist() == pytest.approx([0.7])


def test_a_lower_reading_floor_rescores_second_readings_the_box_floor_would_drop():
    k = len(PLAIN_FEATURES)
    flat = dict(
        mean=np.zeros(k), std=np.ones(k), w1=np.zeros((k, 1)), b1=np.zeros(1), w2=np.zeros(1), b2=0.0
    )  # every counted reading: 0.5
    xyxy, probs, located = np.array([[0, 0, 10, 14]], float), np.array([[0.9, 0.005, 0.0001]]), np.array([0.9])
    assert Rescorer(**flat, floor=0.05).scores(xyxy, probs, located).tolist() == [[0.5, 0.0, 0.0]]
    assert Rescorer(**flat, floor=0.05, reading_floor=0.005).scores(xyxy, probs, located).tolist() == [[0.5, 0.5, 0.0]]
