"""Several looks at one photo: the locator's passes (sizes, merged boxes), the classifier's stretched views, the
profiles of the model card."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch

from dokocam.service.cli import main
from dokocam.vision.detections import Detections
from dokocam.vision.detector.model import CardDetector, ModelCard, Profile, merge_passes, pass_size
from dokocam.vision.detector.stages import GroupConfig, LocateConfig, ReadConfig, ScoreConfig


@dataclass
class _Boxes:
    xyxy: torch.Tensor
    conf: torch.Tensor
    cls: torch.Tensor

    def __len__(self) -> int:
        return len(self.conf)


@dataclass
class _Result:
    boxes: _Boxes


class _Locator:
    """Stands in for the Ultralytics model: remembers each pass's size, answers per size."""

    def __init__(self, answers: dict[int, list[tuple[float, float, float, float, float]]]) -> None:
        self.answers = answers
        self.sizes: list[int] = []

    def predict(self, image: np.ndarray, *, imgsz: int, **kwargs: object) -> list[_Result]:
        self.sizes.append(imgsz)
        rows = torch.tensor(self.answers.get(imgsz, []), dtype=torch.float32).reshape(-1, 5)
        return [_Result(_Boxes(rows[:, :4], rows[:, 4], torch.zeros(len(rows))))]


def _plain(locator: object, conf: float = 0.25, **locate: object) -> CardDetector:
    """A detector of ``locator`` alone (no classifier), its locate stage set by ``locate``."""
    return CardDetector(Profile("photo", conf, (LocateConfig(**locate), GroupConfig())), locator)  # type: ignore[arg-type]


def _detections(rows: list[tuple[float, float, float, float, float]]) -> Detections:
    a = np.array(rows, dtype=np.float32).reshape(-1, 5)
    return Detections(xyxy=a[:, :4], confidence=a[:, 4], class_id=np.zeros(len(a), np.int64))


def test_pass_sizes_stay_on_the_stride_grid():
    assert [pass_size(320, s) for s in (1.2, 1.0, 0.8)] == [384, 320, 256]
    assert pass_size(320, 1.25) == 416  # halves round up, not to even
    assert pass_size(640, 0.01) == 32


def test_merge_keeps_one_box_per_index_and_every_other_box():
    big = _detections([(10, 10, 30, 40, 0.3), (200, 50, 220, 80, 0.6)])
    small = _detections([(11, 9, 31, 41, 0.8)])  # the same index, surer at the smaller size
    merged = merge_passes([big, small], iou=0.6)
    assert len(merged) == 2
    assert sorted(merged.confidence.tolist()) == pytest.approx([0.6, 0.8])
    assert dict(zip((merged.confidence * 10).round().astype(int).tolist(), merged.data["votes"].tolist())) == {
        8: 2.0,
        6: 1.0,
    }  # both passes saw the first index
    alone = merge_passes([big], iou=0.6)
    assert np.array_equal(alone.xyxy, big.xyxy) and alone.data["votes"].tolist() == [1.0, 1.0]
    assert len(merge_passes([Detections.empty(), Detections.empty()], iou=0.6)) == 0


def test_detector_runs_one_pass_per_scale_and_merges_them():
    locator = _Locator({416: [(10, 10, 30, 40, 0.3)], 320: [(11, 9, 31, 41, 0.8), (100, 100, 120, 130, 0.5)]})
    detector = _plain(locator, imgsz=320, scales=(1.25, 1.0))
    found = detector.detect(np.zeros((200, 300, 3), np.uint8))
    assert locator.sizes == [416, 320]
    assert len(found) == 2 and found.confidence.max() == pytest.approx(0.8)


def test_a_merged_box_takes_its_corners_from_the_largest_pass_and_keeps_its_score():
    # The 320 px pass is surer of the index but draws it bigger than the 416 px pass (IoU 0.69).
    locator = _Locator({416: [(10, 10, 30, 40, 0.5)], 320: [(8, 8, 33, 43, 0.8)]})
    detector = _plain(locator, imgsz=320, scales=(1.25, 1.0))
    found = detector.detect(np.zeros((200, 300, 3), np.uint8))
    assert found.xyxy.tolist() == [[10, 10, 30, 40]] and found.confidence.tolist() == pytest.approx([0.8])


def test_detect_gives_one_box_per_index_while_cards_still_count_the_twin():
    # Two passes put shifted boxes on one index (IoU 0.43: under the merge's 0.6, over drop_twins' 0.3).
    locator = _Locator({416: [(10, 10, 30, 40, 0.3)], 320: [(18, 10, 38, 40, 0.8)]})
    detector = _plain(locator, imgsz=320, scales=(1.25, 1.0))
    image = np.zeros((200, 300, 3), np.uint8)
    found = detector.detect(image)
    assert len(found) == 1 and found.confidence.tolist() == pytest.approx([0.8])
    # The kept box is the twins' average weighted by score ** 4: the surer box leads.
    assert found.xyxy[0].tolist() == pytest.approx(
        [(10 * 0.3**4 + 18 * 0.8**4) / (0.3**4 + 0.8**4), 10, (30 * 0.3**4 + 38 * 0.8**4) / (0.3**4 + 0.8**4), 40],
        abs=1e-4,
    )
    cards = detector.cards(image)
    assert len(cards) == 1 and cards.data["corners"].tolist() == [2]  # the twin joined its card


def test_a_flat_card_becomes_two_profiles_and_table_frames_keep_their_own_operating_point(tmp_path: Path):
    flat = {
        "imgsz": 320,
        "conf": 0.35,
        "table_imgsz": 640,
        "locate_conf": 0.05,
        "locate_weight": 0.35,
        "scales": [1.2, 1.0, 0.8],
        "stretches": [1.3],
        "table_conf": 0.4,
        "table_locate_conf": 0.2,
        "table_locate_weight": 0.5,
        "classifier": "c.pt",
    }
    (tmp_path / "m.json").write_text(json.dumps(flat))
    card = ModelCard.load(tmp_path / "m.pt")
    photo, table = card.profile("photo"), card.profile("table")
    assert (photo.conf, photo.locate_weight, photo.stage("locate").scales, photo.stage("read").stretches) == (
        0.35,
        0.35,
        (1.2, 1.0, 0.8),
        (1.3,),
    )
    locate = table.stage("locate")
    assert (locate.imgsz, table.conf, locate.conf, table.locate_weight, locate.scales) == (640, 0.4, 0.2, 0.5, (1.0,))
    assert table.stage("read").stretches == ()
    # Written once in the profiles' form, it reads back the same.
    card.save(tmp_path / "m.pt")
    assert "profiles" in json.loads((tmp_path / "m.json").read_text()) and ModelCard.load(tmp_path / "m.pt") == card
    # Without table values the table frames use the photo ones.
    old = ModelCard.from_flat({"imgsz": 320, "locate_conf": 0.05, "locate_weight": 0.35})
    assert old.profile("table").stage("locate").conf == 0.05
    with pytest.raises(ValueError, match="no profile 'night'"):
        card.profile("night")


@pytest.mark.parametrize("bad", ["0", "-1", "3", "big"])
def test_a_bad_scale_is_refused_with_a_message(bad: str, capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        main(["detect", "x.jpg", "--scales", "1", bad])
    assert "--scales" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["0.9", "2.5", "wide"])
def test_a_bad_stretch_is_refused_with_a_message(bad: str, capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        main(["eval", "data", "--stretches", bad])
    assert "--stretches" in capsys.readouterr().err


def test_stretched_views_average_the_crops_of_widened_and_heightened_windows():
    from dokocam.vision.detector.classifier import IndexClassifier, IndexReader, crop, stretch_boxes, to_tensor
    from dokocam.vision.yolo import square_boxes

    torch.manual_seed(0)
    image = np.random.default_rng(0).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    boxes = np.array([[20.0, 30.0, 40.0, 60.0], [90.0, 20.0, 130.0, 50.0]])
    plain = IndexReader(IndexClassifier().eval(), turns=1)
    views = IndexReader(plain.model, turns=1, stretches=(1.3,))
    square = square_boxes(boxes)
    windows = [square, stretch_boxes(square, 1.3, 0), stretch_boxes(square, 1.3, 1)]
    expected = np.mean(
        [plain.read(to_tensor(np.stack([crop(image, b, plain.crop_size) for b in w]))) for w in windows], axis=0
    )
    got = views.probabilities(image, boxes)
    assert got.shape == (2, 25)
    assert np.allclose(got, expected, atol=1e-6)
    # An untrained network answers almost the same for any crop, so any difference shows the views were read.
    assert np.abs(got - plain.probabilities(image, boxes)).max() > 1e-6
    # The widened window is wider, not taller, than the square; the heightened one the reverse.
    wide, tall = windows[1][0], windows[2][0]
    assert wide[2] - wide[0] == pytest.approx(1.3 * (square[0, 2] - square[0, 0])) and wide[3] - wide[
        1
    ] == pytest.approx(square[0, 3] - square[0, 1])
    assert tall[3] - tall[1] == pytest.approx(1.3 * (square[0, 3] - square[0, 1])) and tall[2] - tall[
        0
    ] == pytest.approx(square[0, 2] - square[0, 0])


def _fine_detector(
    answers: dict[int, list[tuple[float, float, float, float, float]]], scale: float = 2.0, zoom: float = 1.0
) -> tuple[CardDetector, _Locator]:
    locator = _Locator(answers)
    return _plain(locator, imgsz=320, fine_scale=scale, fine_below=12.0, fine_zoom=zoom), locator


def test_small_indices_get_a_fine_pass_that_adds_only_small_boxes():
    # A 640 px photo: at the 320 pass a 16 px index is 8 px (small), so the 640 pass runs. It finds
    # a second small index and a 60 px picture detail; only the small box is added.
    coarse = [(100, 100, 116, 120, 0.6)]
    fine = [(101, 99, 117, 121, 0.9), (300, 300, 318, 322, 0.7), (400, 400, 460, 470, 0.8)]
    detector, locator = _fine_detector({320: coarse, 640: fine})
    found = detector.detect(np.zeros((640, 640, 3), np.uint8))
    assert locator.sizes == [320, 640] and detector.timing.passes == 2
    assert sorted(found.xyxy[:, 0].round().tolist()) == [101, 300]


def test_large_indices_skip_the_fine_pass_and_it_never_enlarges_the_photo():
    detector, locator = _fine_detector({320: [(100, 100, 140, 150, 0.6), (300, 300, 336, 346, 0.5)]})
    detector.detect(np.zeros((640, 640, 3), np.uint8))
    assert locator.sizes == [320]  # 20 px indices at 320: not small
    detector, locator = _fine_detector({})
    detector.detect(np.zeros((480, 480, 3), np.uint8))
    assert locator.sizes == [320, 480]  # nothing found surely: fine pass, capped at the photo's own 480 px
    detector.detect(np.zeros((300, 300, 3), np.uint8))
    assert locator.sizes[2:] == [320]  # a photo no larger than the pass: nothing finer to see


def test_a_fine_zoom_lets_the_fine_pass_enlarge_a_small_photo_and_still_adds_only_small_boxes():
    # A 640 px photo whose 16 px index is 8 px at 320: zoomed, the 960 px pass (3 x 320) runs. It
    # places the index anew and finds a 12 px one; the 60 px picture detail is left out.
    fine = [(101, 99, 117, 121, 0.9), (300, 300, 312, 314, 0.5), (400, 400, 460, 470, 0.8)]
    detector, locator = _fine_detector({320: [(100, 100, 116, 120, 0.6)], 960: fine}, scale=3.0, zoom=2.0)
    found = detector.detect(np.zeros((640, 640, 3), np.uint8))
    assert locator.sizes == [320, 960]
    assert sorted(found.xyxy.round().tolist()) == [[101, 99, 117, 121], [300, 300, 312, 314]]
    detector, locator = _fine_detector({}, scale=3.0, zoom=2.0)
    detector.detect(np.zeros((400, 400, 3), np.uint8))
    assert locator.sizes == [320, 800]  # capped at twice the photo's 400 px
    detector, locator = _fine_detector({}, scale=3.0)
    detector.detect(np.zeros((400, 400, 3), np.uint8))
    assert locator.sizes == [320, 416]  # without a zoom: the photo's own size


def test_the_fine_pass_is_in_the_photo_profile_and_off_for_table_frames(tmp_path: Path):
    (tmp_path / "m.json").write_text(
        json.dumps({"imgsz": 320, "fine_scale": 2.0, "fine_below": 10.0, "fine_zoom": 1.5})
    )
    card = ModelCard.load(tmp_path / "m.pt")
    locate = card.profile("photo").stage("locate")
    assert (locate.fine_scale, locate.fine_below, locate.fine_zoom) == (2.0, 10.0, 1.5)
    assert card.profile("table").stage("locate").fine_scale is None
    assert ModelCard.load(tmp_path / "other.pt").profile("photo").stage("locate").fine_scale is None


def test_cli_refuses_a_fine_pass_no_larger_than_the_inference_size(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        main(["eval", "somewhere", "--fine", "0.5"])
    assert "outside (1, 4]" in capsys.readouterr().err


MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.mark.parametrize("name", ["dokocam-corners.pt", "dokocam-corners.onnx"])
def test_passes_and_crops_spread_over_two_threads_find_the_same_cards_as_one(name: str):
    import threading

    from dokocam.vision.synth.dataset import DeckPool, SceneConfig, generate_image

    if not (MODELS / name).exists():
        pytest.skip(f"no {name} in models/")
    config = SceneConfig(imgsz=640, closeup_fraction=0.5)
    pool = DeckPool(5, config.procedural_decks)
    images = [generate_image(i, 5, config, pool)[0] for i in range(3)]
    one = CardDetector.load(MODELS / name)
    two = CardDetector.load(MODELS / name, workers=2)
    locate = two.stage("locate")
    assert locate.config == one.stage("locate").config and len(locate.config.scales) > 1
    used: set[str] = set()
    session_threads: set[int] = set()
    threaded = locate._threaded_pass

    def spy(*args, **kwargs):
        used.add(threading.current_thread().name)
        found = threaded(*args, **kwargs)
        if name.endswith(".onnx"):  # each pass thread's locator runs on one core (_one_core_session)
            session_threads.add(
                locate._local.yolo.predictor.model.backend.session.get_session_options().intra_op_num_threads
            )
        return found

    locate._threaded_pass = spy  # type: ignore[method-assign]
    found = 0
    for image in images:
        a, b = one.cards(image), two.cards(image)
        assert np.array_equal(a.class_id, b.class_id)
        # The refiner's boxes are a regression: onnxruntime sums in another order on another thread
        # count, which moves an edge by thousandths of a pixel.
        np.testing.assert_allclose(a.xyxy, b.xyxy, rtol=0, atol=0.01)
        np.testing.assert_allclose(a.confidence, b.confidence, rtol=0, atol=1e-4)  # read from crops cut at those boxes
        found += len(a)
    two.close()
    assert found > 0 and len(used) == 2 and threading.main_thread().name not in used
    assert session_threads == ({1} if name.endswith(".onnx") else set())


def test_workers_below_one_are_refused(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(ValueError, match="workers must be at least 1"):
        CardDetector.load(workers=0)
    with pytest.raises(SystemExit):
        main(["detect", "x.jpg", "--workers", "0"])
    assert "--workers" in capsys.readouterr().err


def test_merge_keeps_the_boxes_torchvision_nms_keeps():
    import torch
    from torchvision.ops import nms

    rng = np.random.default_rng(0)
    for _ in range(100):
        n = int(rng.integers(2, 60))
        xy, wh = rng.uniform(0, 200, (n, 2)), rng.uniform(5, 40, (n, 2))
        boxes, scores = np.hstack([xy, xy + wh]).astype(np.float32), rng.uniform(0.05, 1, n).astype(np.float32)
        k = int(rng.integers(1, n))
        parts = [
            Detections(xyxy=boxes[:k], confidence=scores[:k], class_id=np.zeros(k)),
            Detections(xyxy=boxes[k:], confidence=scores[k:], class_id=np.zeros(n - k)),
        ]
        kept = np.sort(nms(torch.from_numpy(boxes), torch.from_numpy(scores), 0.6).numpy())
        assert np.array_equal(merge_passes(parts, iou=0.6).xyxy, boxes[kept])


def test_eval_reads_each_image_once_for_f1_and_map50_and_both_match_two_runs(tmp_path: Path):
    from dokocam.vision.detector.evaluate import MAP_CONF, evaluate
    from dokocam.vision.synth.dataset import SceneConfig, write_dataset
    from dokocam.vision.yolo import read_folder

    # Twelve scenes: on eight the shipped rescorer ranks no right reading under its threshold, and the mAP50 at
    # both thresholds is the same.
    for _ in write_dataset(tmp_path, 12, seed=18, config=SceneConfig(imgsz=640, closeup_fraction=0.5), val_fraction=0):
        pass
    folder = read_folder(tmp_path)
    model = MODELS / "dokocam-corners.pt"
    detector = CardDetector.load(model)
    calls = 0
    reads = detector.reads

    def counted(image: np.ndarray, conf: float | None = None):
        nonlocal calls
        calls += 1
        return reads(image, conf)

    detector.reads = counted  # type: ignore[method-assign]
    once = evaluate(detector, folder, map_conf=MAP_CONF)
    assert calls == len(folder.items) and detector.conf > MAP_CONF
    at_conf, ranked = (
        evaluate(CardDetector.load(model), folder),
        evaluate(CardDetector.load(model, conf=MAP_CONF), folder),
    )
    assert np.array_equal(np.stack([once.tp, once.fp, once.hits]), np.stack([at_conf.tp, at_conf.fp, at_conf.hits]))
    assert once.overall == pytest.approx(at_conf.overall)
    assert once.map50 == pytest.approx(ranked.map50, abs=1e-6) and once.map50 != pytest.approx(at_conf.map50, abs=1e-3)
    assert (once.conf, once.map50_conf) == (detector.conf, MAP_CONF)


class _Reader:
    """Stands in for the classifier: the probabilities of each box, in the locator's order."""

    def __init__(self, rows: list[list[float]]) -> None:
        self.rows = np.array(rows, np.float64)

    def probabilities(self, image: np.ndarray, xyxy: np.ndarray, **kwargs: object) -> np.ndarray:
        return self.rows[: len(xyxy)].copy()


def test_a_box_read_mostly_as_background_is_scored_down_not_dropped():
    from dokocam.vision.detector.grouping import corner_score
    from dokocam.vision.yolo import BACKGROUND

    # Two indices read 45% as the Kreuz-Dame (class 3); the first 50% as background, the second 50% as
    # another card. Both say as much about the Kreuz-Dame, but the first is less surely an index at all.
    hidden, torn = np.zeros(25), np.zeros(25)
    hidden[[3, BACKGROUND]], torn[[3, 7]] = (0.45, 0.5), (0.45, 0.5)
    torn[BACKGROUND] = 0.05
    locator = _Locator({320: [(10, 10, 30, 40, 0.8), (100, 100, 120, 130, 0.8)]})
    profile = Profile("photo", 0.05, (LocateConfig(imgsz=320), ReadConfig("r.pt"), ScoreConfig()), locate_weight=0.35)
    detector = CardDetector(profile, locator, reader=_Reader([hidden.tolist(), torn.tolist()]))
    found = detector.reads(np.zeros((200, 300, 3), np.uint8))
    assert len(found) == 2
    assert found.class_id.tolist() == [3, 7]
    assert found.data["located"].tolist() == pytest.approx([0.8 * 0.5, 0.8 * 0.95])
    assert found.confidence.tolist() == pytest.approx(
        [float(corner_score(0.4, 0.45, 0.35)), float(corner_score(0.76, 0.5, 0.35))]
    )
    # At a working threshold the half-background box goes: its score is under the torn one's.
    assert detector.reads(np.zeros((200, 300, 3), np.uint8), conf=0.5).class_id.tolist() == [7]


def test_ship_refuses_a_fine_zoom_below_one(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        main(["detector", "ship", "somewhere", "--fine-scale", "3", "--fine-zoom", "0.5"])
    assert "outside [1, 4]" in capsys.readouterr().err
