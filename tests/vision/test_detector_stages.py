"""The detector as declared stages: every profile of the shipped card loads and runs, each stage is timed, the card's
stage entries are checked and round-trip."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dokocam.vision.detections import Detections
from dokocam.vision.detector.model import DEFAULT_MODEL, CardDetector, ModelCard, ModelNotFoundError, Profile
from dokocam.vision.detector.stages import (
    CONFIGS,
    Frame,
    GroupConfig,
    LocateConfig,
    config_from_dict,
    config_to_dict,
)


@pytest.fixture(scope="module")
def scene() -> np.ndarray:
    from dokocam.vision.synth.dataset import DeckPool, SceneConfig, generate_image

    config = SceneConfig(imgsz=640, closeup_fraction=1.0)
    return generate_image(3, 5, config, DeckPool(5, config.procedural_decks))[0]


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped model in models/")
@pytest.mark.parametrize("profile", ["photo", "table"])
def test_every_profile_of_the_shipped_card_loads_runs_and_times_each_stage(profile: str, scene: np.ndarray):
    card = ModelCard.load(DEFAULT_MODEL)
    assert set(card.profiles) == {"photo", "table"}
    detector = CardDetector.load(DEFAULT_MODEL, profile)
    assert detector.profile == card.profile(profile) and str(detector).startswith(profile)
    cards = detector.cards(scene)
    assert len(cards) > 0 and cards.data["corners"].min() >= 1
    assert list(detector.timing.ms) == [s.stage for s in detector.profile.stages]
    assert all(ms >= 0 for ms in detector.timing.ms.values()) and detector.timing.passes >= 1


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped model in models/")
def test_the_stages_run_by_hand_give_the_detectors_reads(scene: np.ndarray):
    detector = CardDetector.load(DEFAULT_MODEL)
    frame = Frame(scene, float(detector.conf), float(detector.conf))  # type: ignore[arg-type]
    if detector.rescorer is not None and detector.profile.stage("rescore") is not None:
        frame.floor = detector.rescorer.floor
    found = Detections.empty()
    for stage in detector.stages:
        found = stage(frame, found)
    reads = detector.reads(scene)
    assert np.array_equal(found.xyxy, reads.xyxy) and np.array_equal(found.class_id, reads.class_id)
    assert np.array_equal(found.confidence, reads.confidence)


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped model in models/")
@pytest.mark.parametrize("profile", ["photo", "table"])
def test_light_print_on_dark_stock_is_read_from_the_images_negative(profile: str, scene: np.ndarray):
    from dataclasses import replace

    detector = CardDetector.load(DEFAULT_MODEL, profile)
    locate = detector.profile.stage("locate")
    assert locate.negative == ("frame" if profile == "photo" else "stream")  # the table's frames: see the model card
    locate = replace(locate, negative="frame")
    detector = detector._rebuilt(profile=detector.profile.with_stage(locate))
    dark = 255 - scene  # the scene's cards printed light on dark stock
    plain = {int(c) for c in detector.cards(scene).class_id}
    assert plain and {int(c) for c in detector.cards(dark).class_id} == plain
    blind = detector._rebuilt(profile=detector.profile.with_stage(replace(locate, negative="off")))
    assert len(blind.cards(dark)) < len(plain)


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped model in models/")
def test_a_stream_decides_its_decks_print_once_and_reads_every_later_frame_so(scene: np.ndarray):
    from dokocam.vision.detector.stages import STREAM_VOTES

    detector = CardDetector.load(DEFAULT_MODEL, "table")
    assert detector.profile.stage("locate").negative == "stream"
    dark = 255 - scene
    plain = {int(c) for c in detector.cards(scene).class_id}
    detector.reset()
    detector.cards(np.full_like(scene, 30))  # the table before the cards came
    seen = [{int(c) for c in detector.cards(dark).class_id} for _ in range(STREAM_VOTES + 1)]
    # Read as they are (nothing) until enough frames showed the dark print; then read through the negative.
    assert all(len(s) < len(plain) for s in seen[:STREAM_VOTES]) and seen[STREAM_VOTES] == plain
    assert detector._locate.print == "dark" and detector.timing.passes == 1
    # An empty frame, a frame of few indices: the decided stream reads it the same way, with no second pass.
    detector.cards(np.full_like(scene, 30))
    assert detector._locate.print == "dark" and detector.timing.passes == 1
    detector.reset()
    assert detector._locate.print is None
    for _ in range(STREAM_VOTES):
        assert {int(c) for c in detector.cards(scene).class_id} == plain
    assert detector._locate.print == "light"
    # A light deck's stream never reads a negative once decided, however few indices a frame shows.
    detector.cards(np.full_like(scene, 30))
    assert detector.timing.passes == 1


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped model in models/")
def test_what_lies_on_the_table_from_the_streams_first_frame_never_decides_its_print(scene: np.ndarray):
    """A table whose negative the stages read as indices surely (a patterned cloth) shows no deck while nothing
    comes onto it: only what changed since the stream's first frame votes for a print read through the negative."""
    from dokocam.vision.detector.stages import STREAM_VOTES

    detector = CardDetector.load(DEFAULT_MODEL, "table")
    dark = 255 - scene  # read surely through its negative, and there from the first frame on
    for _ in range(3 * STREAM_VOTES):
        detector.cards(dark)
    assert detector._locate.print is None  # the same frames coming onto an empty table decide it dark (above)


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped model in models/")
def test_unrelated_images_are_each_read_as_they_are_with_no_vote(scene: np.ndarray):
    """``eval``'s images share no deck: a stream's detector reads them as a stream does before deciding, and runs
    no vote on their negatives (one locator pass a frame)."""
    stream = CardDetector.load(DEFAULT_MODEL, "table")
    images = stream.for_images()
    assert images.profile.stage("locate").negative == "off"
    few = np.full_like(scene, 30)  # no index at all: a deciding stream reads its negative to vote
    for image in (scene, 255 - scene, few):
        stream.reset()
        assert {int(c) for c in images.cards(image).class_id} == {int(c) for c in stream.cards(image).class_id}
    assert images.timing.passes == 1 and stream.timing.passes == 2
    photo = CardDetector.load(DEFAULT_MODEL, "photo")
    assert photo.for_images() is photo


def test_a_locate_stage_takes_a_known_negative_mode_and_reads_a_cards_true_or_false():
    assert config_from_dict({"stage": "locate", "negative": True}).negative == "frame"
    assert config_from_dict({"stage": "locate", "negative": False}).negative == "off"
    with pytest.raises(ValueError, match="negative is one of off, frame, stream"):
        config_from_dict({"stage": "locate", "negative": "sometimes"})


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped model in models/")
def test_a_stage_left_out_is_not_run(scene: np.ndarray):
    detector = CardDetector.load(DEFAULT_MODEL)
    name = detector.profile.stages[-2].stage  # the last stage before grouping
    without = detector.without(name)
    without.cards(scene)
    assert name not in without.timing.ms and name in [s.stage for s in detector.profile.stages]


class _Sure:
    """A classifier that reads every box as one card."""

    def __init__(self, code: str) -> None:
        from dokocam.vision.synth.faces import CARD_CODES

        self.probs = np.eye(25, dtype=np.float32)[CARD_CODES.index(code)]

    def probabilities(self, image: np.ndarray, xyxy: np.ndarray, pool: object = None, shares: int = 1) -> np.ndarray:
        return np.tile(self.probs, (len(xyxy), 1))


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped model in models/")
def test_a_reader_swapped_in_place_reads_the_next_image(scene: np.ndarray):
    from dokocam.vision.synth.faces import CARD_CODES

    detector = CardDetector.load(DEFAULT_MODEL, "table")
    locate = detector.stage("locate")
    assert len({CARD_CODES[c] for c in detector.reads(scene).class_id}) > 1
    detector.use_reader(_Sure("QC"))  # a live camera's detector: its locator and threads stay
    reads = detector.reads(scene)
    assert len(reads) and {CARD_CODES[c] for c in reads.class_id} == {"QC"} and detector.stage("locate") is locate
    with pytest.raises(ValueError, match="reads no boxes"):
        detector.without("read", "refine", "score").use_reader(_Sure("QC"))


class _FacesOf:
    """Whole-face templates that find one card in every frame."""

    def __init__(self, code: str) -> None:
        from dokocam.vision.synth.faces import CARD_CODES

        self.p = np.eye(24)[CARD_CODES.index(code)]

    def probabilities(self, image: np.ndarray, ends: np.ndarray, temperature: float, grey: object = None) -> np.ndarray:
        return self.p


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped model in models/")
def test_a_decks_faces_read_cards_of_two_corners_again_and_can_be_swapped_in_and_out():
    from dokocam.vision.synth.dataset import DeckPool, SceneConfig, generate_image
    from dokocam.vision.synth.faces import CARD_CODES

    config = SceneConfig(imgsz=640, closeup_fraction=0.0)
    scene = generate_image(1, 5, config, DeckPool(5, config.procedural_decks))[0]  # a table: three cards, no KD

    detector = CardDetector.load(DEFAULT_MODEL, "table")
    matched = detector.with_faces(_FacesOf("KD"))
    assert "match" in str(matched) and matched.profile.stage("match") is not None
    cards = matched.cards(scene)
    paired = cards.data["corners"] >= 2
    assert paired.any() and {CARD_CODES[c] for c in cards.class_id[paired]} == {"KD"}
    assert list(matched.timing.ms)[-2:] == ["group", "match"] and set(cards.data) == {"corners"}
    assert "KD" not in {CARD_CODES[c] for c in detector.cards(scene).class_id}  # the scene holds no Karo-König

    detector.use_reader(detector.reader, _FacesOf("KD"))  # a deck switched in at a live table
    assert {CARD_CODES[c] for c in detector.cards(scene).class_id[paired]} == {"KD"}
    detector.use_reader(detector.reader)  # and the shipped classifier back: no faces, no match stage
    assert detector.stage("match") is None and detector.profile.stage("match") is None
    assert "KD" not in {CARD_CODES[c] for c in detector.cards(scene).class_id}


def test_every_stage_config_round_trips_through_its_card_entry():
    for kind in CONFIGS.values():
        config = kind()
        assert config_from_dict(json.loads(json.dumps(config_to_dict(config)))) == config


def test_a_card_entry_naming_an_unknown_stage_or_setting_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="unknown stage 'blur': the stages are locate, read"):
        config_from_dict({"stage": "blur"})
    with pytest.raises(ValueError, match="stage 'locate' has no setting turned_scales: it takes"):
        config_from_dict({"stage": "locate", "turned_scales": [1.0]})


def test_an_unreadable_card_says_which_file(tmp_path: Path):
    (tmp_path / "m.pt").write_bytes(b"")
    (tmp_path / "m.json").write_text(json.dumps({"profiles": {"photo": {"conf": 0.3, "stages": [{"stage": "x"}]}}}))
    with pytest.raises(ModelNotFoundError, match="m.json is not a model card this version reads: unknown stage"):
        ModelCard.load(tmp_path / "m.pt")


def test_a_profile_needs_a_locate_stage_and_a_network_for_each_stage():
    with pytest.raises(ValueError, match="no locate stage"):
        CardDetector(Profile("photo", stages=(GroupConfig(),)), yolo=None)
    with pytest.raises(ValueError, match="a read stage and a score stage go together"):
        CardDetector(Profile("photo", stages=(LocateConfig(), config_from_dict({"stage": "read"}))), yolo=None)
    stages = (LocateConfig(), config_from_dict({"stage": "refine", "refiner": "r.pt"}), GroupConfig())
    with pytest.raises(ValueError, match="has a refine stage but no network for it"):
        CardDetector(Profile("photo", stages=stages), yolo=None)
