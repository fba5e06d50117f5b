"""The box refiner: its crop units, its flips, that it learns to move boxes, its checkpoints and exports."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
import torch

from dokocam.vision.detector.classifier import crop
from dokocam.vision.detector.matching import box_iou
from dokocam.vision.detector.refiner import (
    BoxReader,
    BoxRefiner,
    Pairs,
    RefinerCheckpointError,
    dihedral,
    export_onnx,
    from_crop_units,
    make_pairs,
    to_crop_units,
    train_refiner,
)
from dokocam.vision.yolo import read_folder, square_boxes


def _mask_box_in_units(crop_image: np.ndarray) -> np.ndarray:
    """The bright rectangle's pixel-edge box in a crop, over the crop's side."""
    ys, xs = np.nonzero(crop_image[..., 0] > 127)
    size = crop_image.shape[0]
    return np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]) / size


@pytest.mark.parametrize("box", [[40.0, 30.0, 52.0, 48.0], [100.0, 60.0, 124.0, 70.0], [10.0, 12.0, 58.0, 90.0]])
def test_crop_units_say_where_the_crop_shows_a_box(box: list[float]) -> None:
    # A white rectangle covering exactly the pixels of ``box`` (pixel i spans [i, i + 1]).
    image = np.zeros((160, 200, 3), np.uint8)
    x1, y1, x2, y2 = (int(v) for v in box)
    image[y1:y2, x1:x2] = 255
    located = np.array([[box[0] + 3, box[1] - 2, box[2] + 2, box[3] + 4]])
    window = square_boxes(located)
    for size in (48, 96):
        seen = _mask_box_in_units(crop(image, window[0], size))
        units = to_crop_units(np.array([box]), window, size)[0]
        # Within a crop pixel: the crop resamples, so an edge may land half a pixel either way.
        assert np.abs(seen - units).max() <= 1.0 / size + 1e-6, (size, seen, units)
    assert np.allclose(from_crop_units(to_crop_units(np.array([box]), window), window), [box], atol=1e-4)


def test_flipping_a_crop_moves_its_box_exactly() -> None:
    image = np.zeros((120, 120, 3), np.uint8)
    image[40:52, 50:58] = 255
    window = square_boxes(np.array([[47.0, 38, 60, 55]]))
    crops = torch.from_numpy(crop(image, window[0], 48)[None].transpose(0, 3, 1, 2).astype(np.float32) / 255)
    box = torch.from_numpy(to_crop_units(np.array([[50.0, 40, 58, 52]]), window))
    yes, no = torch.tensor([True]), torch.tensor([False])
    for flips in [(yes, no, no), (no, yes, no), (no, no, yes), (yes, yes, yes)]:
        moved, moved_box = dihedral(crops, box, *flips)
        seen = _mask_box_in_units((moved[0].numpy().transpose(1, 2, 0) * 255).astype(np.uint8))
        assert np.abs(seen - moved_box[0].numpy()).max() <= 1.0 / 48 + 1e-6, flips


def test_an_untrained_refiner_leaves_boxes_where_they_are() -> None:
    reader = BoxReader(BoxRefiner().eval())
    image = np.random.default_rng(0).integers(0, 255, (100, 140, 3), np.uint8)
    boxes = np.array([[10.0, 12, 30, 40], [60, 50, 75, 62]])
    assert np.allclose(reader.refine(image, boxes), boxes, atol=1e-3)
    assert reader.refine(image, np.zeros((0, 4))).shape == (0, 4)


def _rectangles(root: Path, n: int, seed: int) -> Path:
    """A YOLO folder of dark images with one to three grey-framed white rectangles each: "indices" whose box is
    plain to see."""
    rng = np.random.default_rng(seed)
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for i in range(n):
        image = (rng.random((96, 128, 3)) * 60).astype(np.uint8)
        rows = []
        for _ in range(int(rng.integers(1, 4))):
            w, h = rng.uniform(8, 20), rng.uniform(10, 24)
            x, y = rng.uniform(4, 124 - w), rng.uniform(4, 92 - h)
            cv2.rectangle(image, (round(x), round(y)), (round(x + w) - 1, round(y + h) - 1), (255, 255, 255), -1)
            x1, y1, x2, y2 = round(x), round(y), round(x + w), round(y + h)
            rows.append(
                f"0 {(x1 + x2) / 2 / 128:.6f} {(y1 + y2) / 2 / 96:.6f} {(x2 - x1) / 128:.6f} {(y2 - y1) / 96:.6f}"
            )
        cv2.imwrite(str(root / "images" / f"{i:03d}.png"), image)
        (root / "labels" / f"{i:03d}.txt").write_text("\n".join(rows) + "\n")
    return root


def test_the_refiner_learns_to_move_jittered_boxes_onto_what_they_found(tmp_path: Path) -> None:
    torch.manual_seed(0)
    train = make_pairs(read_folder(_rectangles(tmp_path / "train", 120, 1)), jittered=8, jitter=0.12, seed=1)
    val = make_pairs(read_folder(_rectangles(tmp_path / "val", 30, 2)), jittered=4, jitter=0.12, seed=2)
    assert len(train) > 500 and train.crops.shape[1:] == (48, 48, 3)
    # The pairs' targets are the labels: a crop of the label itself needs no moving.
    metrics = train_refiner(train, tmp_path / "r.pt", val=val, epochs=6, batch=64, width=8, lr=5e-3, log=lambda _: None)
    assert metrics["iou_after"] > metrics["iou_before"] + 0.1, metrics
    assert metrics["at_50_after"] > metrics["at_50_before"], metrics
    # Through the whole inference path (crops cut from the images, two rounds): every val label,
    # located a few pixels off, comes back nearer on average.
    reader = BoxReader.load(tmp_path / "r.pt")
    before, after = [], []
    for item in read_folder(tmp_path / "val").items:
        image = cv2.imread(str(item.image))
        labels = item.label_xyxy(128, 96)
        located = labels + np.array([2.5, -2.0, 3.0, 1.5])
        before += box_iou(located, labels).diagonal().tolist()
        after += box_iou(reader.refine(image, located), labels).diagonal().tolist()
    assert np.mean(after) > np.mean(before), (np.mean(after), np.mean(before))


def test_pairs_from_a_locator_keep_only_its_boxes_near_a_label_and_round_trip(tmp_path: Path) -> None:
    folder = read_folder(_rectangles(tmp_path / "f", 1, 3))
    labels = folder.items[0].label_xyxy(128, 96)
    near = labels + np.array([1.0, -1.0, 2.0, 0.5])
    far = np.array([[0.0, 0.0, 3.0, 3.0]])  # found where no label is: nothing the refiner could learn from
    pairs = make_pairs(folder, lambda image: np.concatenate([near, far]), jittered=2, seed=4)
    assert len(pairs) == 3 * len(labels)
    windows = square_boxes(near)
    assert np.allclose(pairs.located[-len(labels) :], to_crop_units(near, windows), atol=1e-6)
    assert np.allclose(pairs.target[-len(labels) :], to_crop_units(labels, windows), atol=1e-6)
    pairs.save(tmp_path / "p.npz")
    again = Pairs.load(tmp_path / "p.npz")
    assert np.array_equal(again.crops, pairs.crops) and np.allclose(again.target, pairs.target)


def test_a_foreign_or_damaged_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"half a checkpoint")
    with pytest.raises(RefinerCheckpointError, match="cannot be read"):
        BoxReader.load(junk)
    with pytest.raises(RefinerCheckpointError, match="not a dokocam box refiner"):
        BoxReader.load(Path("models") / "dokocam-corners.classifier.pt")


def test_a_loaded_refiner_reads_with_folded_batch_norms_as_the_saved_network_does(
    tmp_path: Path, scramble_batch_norms: Callable[..., None]
) -> None:
    from dokocam.vision.detector.refiner import _save

    torch.manual_seed(4)
    model = BoxRefiner(width=8)
    torch.nn.init.normal_(model.head[-1].weight, std=0.05)
    scramble_batch_norms(model, 4)
    _save(model.eval(), tmp_path / "r.pt")
    loaded = BoxReader.load(tmp_path / "r.pt")
    assert loaded.net is not None and not any(isinstance(m, torch.nn.BatchNorm2d) for m in loaded.net.modules())
    crops, units = torch.rand(6, 3, 48, 48), torch.tensor([[0.3, 0.3, 0.7, 0.7]] * 6)
    unfolded = BoxReader(model).read(crops, units)
    assert not np.allclose(unfolded, units.numpy(), atol=1e-3)
    assert np.allclose(loaded.read(crops, units), unfolded, atol=1e-5)


def test_the_onnx_export_refines_as_torch_does_and_a_stale_one_is_not_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    torch.manual_seed(3)
    model = BoxRefiner(width=8)
    torch.nn.init.normal_(model.head[-1].weight, std=0.05)  # not the identity, so the export is put to work
    from dokocam.vision.detector.refiner import _save

    checkpoint = tmp_path / "r.pt"
    _save(model.eval(), checkpoint)
    export_onnx(checkpoint)
    image = np.random.default_rng(1).integers(0, 255, (100, 140, 3), np.uint8)
    boxes = np.array([[10.0, 12, 30, 40], [60, 50, 75, 62], [100, 10, 112, 30]])
    torch_reader = BoxReader.load(checkpoint)
    onnx_reader = torch_reader.using_onnx(checkpoint)
    assert onnx_reader.session is not None
    refined = torch_reader.refine(image, boxes)
    assert not np.allclose(refined, boxes, atol=0.05)
    assert np.allclose(onnx_reader.refine(image, boxes), refined, atol=1e-4)
    _save(BoxRefiner(width=8).eval(), checkpoint)  # retrained after the export
    with caplog.at_level(logging.WARNING, logger="dokocam.vision.detector.refiner"):
        assert BoxReader.load(checkpoint).using_onnx(checkpoint).session is None
    assert "exported from another checkpoint" in caplog.text


@pytest.mark.slow
def test_a_model_card_naming_a_refiner_moves_the_shipped_detectors_boxes(tmp_path: Path) -> None:
    from dokocam.vision.detector.model import DEFAULT_MODEL, CardDetector, ModelCard
    from dokocam.vision.detector.refiner import _save
    from dokocam.vision.detector.stages import RefineConfig

    models = tmp_path / "models"
    models.mkdir()
    for name in (DEFAULT_MODEL.name, "dokocam-corners.classifier.pt"):
        shutil.copy(DEFAULT_MODEL.parent / name, models / name)
    refiner = BoxRefiner()
    with torch.no_grad():  # a refiner that pulls every edge inwards by a twentieth of its crop, in every view
        refiner.head[-1].bias.copy_(torch.tensor([0.2, 0.2, -0.2, -0.2]))
    _save(refiner.eval(), models / "moved.refiner.pt")
    shipped = ModelCard.load(DEFAULT_MODEL)
    # Plain scores: a rescorer weighs box sizes and neighbours, so twins would be fused by other weights than the
    # plain boxes'.
    photo = shipped.profile("photo").without("refine", "rescore")
    ModelCard({"photo": photo}).save(models / DEFAULT_MODEL.name)
    plain = CardDetector.load(models / DEFAULT_MODEL.name)
    ModelCard({"photo": photo.with_stage(RefineConfig("moved.refiner.pt"))}).save(models / DEFAULT_MODEL.name)
    refined = CardDetector.load(models / DEFAULT_MODEL.name)
    assert plain.refiner is None and refined.refiner is not None
    images = sorted(Path("datasets/synth-sample/images").rglob("*.jpg"))
    image = max((cv2.imread(str(p)) for p in images), key=lambda im: len(plain.detect(im)))
    # Reads before twins are fused: a fused box averages two boxes by their scores, which the
    # classifier gives anew to the pulled-in crops.
    a, b = plain.reads(image), refined.reads(image)
    # Each refined box is a plain one pulled in twice, by a twentieth of that round's crop. (The
    # classifier also reads the pulled-in crop, so boxes near the threshold may drop out: how many
    # depends on the shipped networks.)
    assert len(a) >= 4 and len(b) >= max(4, len(a) // 2)
    expected = a.xyxy.copy()
    for _ in range(2):
        side = (square_boxes(expected)[:, 2] - square_boxes(expected)[:, 0])[:, None]
        expected = expected + side * np.array([0.05, 0.05, -0.05, -0.05])
    for box, card in zip(b.xyxy, b.class_id):
        off = np.abs(expected - box).max(1)
        assert off[a.class_id == card].min() <= 0.05
    assert refined.timing.refine > 0
