"""The index-crop generator and the classifier's use of crop files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dokocam.vision.synth.crops import BACKGROUND, CropConfig, _DeckFaces, _render_crop, render_crops


def test_same_seed_same_crops_and_another_seed_others() -> None:
    a_x, a_y = render_crops(30, seed=5)
    b_x, b_y = render_crops(30, seed=5)
    c_x, _ = render_crops(30, seed=6)
    assert np.array_equal(a_x, b_x) and np.array_equal(a_y, b_y)
    assert not np.array_equal(a_x, c_x)


def test_labels_cover_cards_and_background_in_the_configured_shares() -> None:
    _, y = render_crops(600, seed=2, config=CropConfig(per_deck=50))
    background = float((y == BACKGROUND).mean())
    # 18% non-index crops plus 7% ranks 2-8, both labelled background.
    assert 0.15 < background < 0.35
    assert len(set(y[y != BACKGROUND].tolist())) == 24


def test_the_labelled_index_lies_in_the_middle_of_its_crop() -> None:
    rng = np.random.default_rng(0)
    config = CropConfig(backgrounds=0.0, distractors=0.0, size=64)
    deck = _DeckFaces(rng, None)
    for _ in range(40):
        image, label, quad = _render_crop(deck, rng, config)
        assert label != BACKGROUND and quad is not None and image.shape == (64, 64, 3)
        lo, hi = quad.min(axis=0), quad.max(axis=0)
        centre = (lo + hi) / 2
        # The window is the index box grown by 15% per side and jittered like a locator's box.
        assert np.all(np.abs(centre - 32) < 64 * 0.3), centre
        assert 0.5 * 64 < (hi - lo).max() < 1.05 * 64


def test_the_index_is_drawn_where_the_label_says() -> None:
    """On a clean, large crop the index area holds ink: darker than the plain card around it."""
    rng = np.random.default_rng(3)
    config = CropConfig(backgrounds=0.0, distractors=0.0, size=64, min_px=80, max_px=90)
    deck = _DeckFaces(rng, None)
    deck.style = replace(deck.style, stock=(250, 250, 250))
    ink_fraction = []
    for _ in range(30):
        image, _, quad = _render_crop(deck, rng, config)
        import cv2

        mask = np.zeros(image.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
        grey = image.mean(axis=2)
        inside = grey[mask == 1]
        ink_fraction.append(float((inside < np.percentile(grey, 90) * 0.7).mean()))
    # Most crops show ink inside the quad (some are covered by a card or finger on purpose).
    assert np.median(ink_fraction) > 0.08


def test_crops_file_trains_the_classifier_and_a_wrong_size_is_refused(tmp_path: Path) -> None:
    from dokocam.service.cli import main
    from dokocam.vision.detector.classifier import CropFileError, IndexReader, load_crops

    crops = tmp_path / "c.npz"
    assert main(["dataset", "crops", str(crops), "--crops", "60", "--seed", "1", "--size", "24"]) == 0
    x, y = load_crops(crops, 24)
    assert x.shape == (60, 24, 24, 3) and len(y) == 60
    out = tmp_path / "cls.pt"
    assert (
        main(
            [
                "detector",
                "train",
                "classifier",
                "--crops",
                str(crops),
                "--crop-size",
                "24",
                "--out",
                str(out),
                "--epochs",
                "1",
            ]
        )
        == 0
    )
    reader = IndexReader.load(out)
    assert reader.crop_size == 24
    image = np.full((100, 100, 3), 200, np.uint8)
    probs = reader.probabilities(image, np.array([[10, 10, 40, 50]], float))
    assert probs.shape == (1, 25) and abs(float(probs.sum()) - 1) < 1e-4
    with pytest.raises(CropFileError, match="reads"):
        load_crops(crops, 32)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(CropFileError, match="not a crops file"):
        load_crops(tmp_path / "bad.npz")
    with pytest.raises(SystemExit, match="--data DIR and/or --crops"):
        main(["detector", "train", "classifier", "--out", str(out)])


def test_rotation_averaging_is_invariant_to_quarter_turns(tmp_path: Path) -> None:
    import torch

    from dokocam.vision.detector.classifier import IndexClassifier, IndexReader

    torch.manual_seed(0)
    reader = IndexReader(IndexClassifier().eval(), turns=4)
    batch = torch.rand(3, 3, 32, 32)
    turned = torch.rot90(batch, 1, (2, 3))
    assert np.allclose(reader.read(batch), reader.read(turned), atol=1e-5)
    single = IndexReader(reader.model, turns=1)
    assert not np.allclose(single.read(batch), single.read(turned), atol=1e-5)


def test_a_loaded_reader_reads_with_folded_batch_norms_as_the_saved_network_does(
    tmp_path: Path, scramble_batch_norms: Callable[..., None]
) -> None:
    import torch

    from dokocam.vision.detector.classifier import IndexClassifier, IndexReader, _save

    torch.manual_seed(2)
    model = IndexClassifier(width=8)
    scramble_batch_norms(model, 2)
    _save(model.eval(), tmp_path / "c.pt", crop_size=32)
    loaded = IndexReader.load(tmp_path / "c.pt")
    assert loaded.net is not None
    assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in loaded.net.modules())
    # The network that training continues from (--init) keeps its BatchNorms.
    assert any(isinstance(m, torch.nn.BatchNorm2d) for m in loaded.model.modules())
    batch = torch.rand(12, 3, 32, 32)
    unfolded = IndexReader(model, turns=4).read(batch)
    assert np.allclose(loaded.read(batch), unfolded, atol=1e-5)
    assert not np.allclose(unfolded, IndexReader(IndexClassifier(width=8).eval(), turns=4).read(batch), atol=1e-3)


def test_views_shared_by_threads_read_as_one_batch() -> None:
    from concurrent.futures import ThreadPoolExecutor

    import torch

    from dokocam.vision.detector.classifier import MIN_VIEWS, IndexClassifier, IndexReader

    torch.manual_seed(0)
    reader = IndexReader(IndexClassifier().eval(), turns=4)
    calls: list[int] = []
    logits = reader._logits

    def counted(views: torch.Tensor) -> torch.Tensor:
        calls.append(len(views))
        return logits(views)

    reader._logits = counted  # type: ignore[method-assign]
    batch = torch.rand(5, 3, 32, 32)  # 20 views: two shares of 10
    whole = reader.read(batch)
    assert calls == [20]
    with ThreadPoolExecutor(2) as pool:
        shared = reader.read(batch, pool, shares=2)
        assert calls == [20, 10, 10]
        calls.clear()
        reader.read(batch[:1], pool, shares=2)  # 4 views: too few to share
    assert np.allclose(whole, shared, atol=1e-6) and calls == [4] and 4 < 2 * MIN_VIEWS


def test_training_geometry_squashes_indices_along_one_axis_within_the_bound() -> None:
    import torch

    from dokocam.vision.detector.classifier import STRETCH, random_affine

    theta = random_affine(4000, torch.Generator().manual_seed(0))
    linear = theta[:, :, :2]
    singular = torch.linalg.svdvals(linear)
    ratio = singular[:, 0] / singular[:, 1]
    # Without a stretch every matrix is a turn times a uniform scale (ratio 1).
    assert float(ratio.max()) > np.exp(STRETCH) * 0.95
    assert float(ratio.max()) <= np.exp(STRETCH) + 1e-4
    assert float((ratio > 1.1).float().mean()) > 0.4
    # The squash keeps the area near the uniform scale: it changes shape, not mostly size.
    area = torch.linalg.det(linear).abs()
    assert float(area.min()) > np.exp(-0.3) * 0.99 and float(area.max()) < np.exp(0.3) * 1.01
    flat = random_affine(500, torch.Generator().manual_seed(0), stretch=0.0)[:, :, :2]
    flat_singular = torch.linalg.svdvals(flat)
    assert torch.allclose(flat_singular[:, 0], flat_singular[:, 1], atol=1e-5)


def test_suit_variants_change_the_shape_but_not_the_suit_box() -> None:
    from dokocam.vision.synth.faces import UnknownCardCodeError, suit_polygons

    for suit in "CSHD":
        classic = np.concatenate(suit_polygons(suit))
        other = np.concatenate(suit_polygons(suit, 7))
        assert classic.shape != other.shape or not np.allclose(classic, other)
        assert np.allclose(np.concatenate(suit_polygons(suit, 7)), other)  # repeatable
        # Every variant stays inside the unit box the pip is scaled by.
        assert np.abs(other).max() <= 0.66
    with pytest.raises(UnknownCardCodeError):
        suit_polygons("X", 3)


def test_small_indices_get_their_own_number_of_crops(tmp_path: Path) -> None:
    import cv2

    from dokocam.vision.detector.classifier import extract_crops
    from dokocam.vision.yolo import read_folder

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.png"), np.full((200, 200, 3), 128, np.uint8))
    # class 3 is 10 x 20 px (small: shorter side under 16), class 5 is 40 x 60 px
    (tmp_path / "labels" / "a.txt").write_text("3 0.25 0.25 0.05 0.1\n5 0.7 0.7 0.2 0.3\n")
    folder = read_folder(tmp_path)
    _, labels = extract_crops([folder], variants=2, small_variants=5, backgrounds=0.0)
    assert (labels == 3).sum() == 5 and (labels == 5).sum() == 2
    _, labels = extract_crops([folder], variants=2, backgrounds=0.0)
    assert (labels == 3).sum() == 2 and (labels == 5).sum() == 2
    _, labels = extract_crops([folder], variants=2, small_variants=5, backgrounds=0.0, min_size=25)
    assert (labels == 3).sum() == 0 and (labels == 5).sum() == 2


def test_a_narrow_classifier_is_widened_keeping_its_readings_and_a_narrowing_is_refused(tmp_path: Path) -> None:
    import torch

    from dokocam.service.cli import main
    from dokocam.vision.detector.classifier import IndexReader, widen

    crops = tmp_path / "c.npz"
    assert main(["dataset", "crops", str(crops), "--crops", "40", "--seed", "2", "--size", "24"]) == 0
    narrow, wide = tmp_path / "narrow.pt", tmp_path / "wide.pt"
    common = ["detector", "train", "classifier", "--crops", str(crops), "--crop-size", "24", "--epochs", "1"]
    assert main([*common, "--width", "4", "--out", str(narrow)]) == 0
    trained = IndexReader.load(narrow).model
    x = torch.rand(8, 3, 24, 24)
    with torch.no_grad():
        exact = widen(trained, 7, noise=0.0).eval()(x)
        nudged = widen(trained, 7).eval()(x)
        assert torch.allclose(trained(x), exact, atol=1e-5)
        assert not torch.equal(exact, nudged) and torch.allclose(exact, nudged, atol=0.5)
    assert main([*common, "--width", "7", "--init", str(narrow), "--out", str(wide)]) == 0
    assert IndexReader.load(wide).model.width == 7
    with pytest.raises(SystemExit, match="has width 7 .* this run uses 4"):
        main([*common, "--width", "4", "--init", str(wide), "--out", str(tmp_path / "back.pt")])


def test_defocus_blurs_a_share_of_the_training_crops_the_more_the_larger_its_sigma(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import torch

    from dokocam.service.cli import main
    from dokocam.vision.detector.classifier import gaussian_blur, photometric

    # Fine stripes, 3 px a period: what survives of them is what a blurred crop keeps of an index's strokes.
    stripes = torch.zeros(600, 3, 48, 48)
    stripes[..., ::3] = 1.0

    def contrast(batch: torch.Tensor) -> torch.Tensor:
        return (batch[..., 1:] - batch[..., :-1]).abs().mean(dim=(1, 2, 3))

    assert float(contrast(gaussian_blur(stripes[:1], 2.0))) < 0.1 * float(contrast(gaussian_blur(stripes[:1], 0.3)))
    assert torch.allclose(
        gaussian_blur(torch.full((1, 3, 48, 48), 0.5), 3.0), torch.full((1, 3, 48, 48), 0.5)
    )  # keeps the level
    plain = contrast(photometric(stripes.clone(), torch.Generator().manual_seed(0)))
    defocused = contrast(photometric(stripes.clone(), torch.Generator().manual_seed(0), (1.0, 2.0, 3.0)))
    # The usual blur already flattens some crops' stripes; defocus flattens about 30% of the rest too.
    flat_before = float((plain < 0.2 * float(plain.median())).float().mean())
    flat_after = float((defocused < 0.2 * float(plain.median())).float().mean())
    assert flat_before < 0.3 and 0.15 < (flat_after - flat_before) / (1 - flat_before) < 0.45, (flat_before, flat_after)
    with pytest.raises(SystemExit):
        main(["detector", "train", "classifier", "--crops", "x.npz", "--out", "x.pt", "--defocus", "1", "20"])
    assert "argument --defocus: 20 is outside [0.1, 8]: a Gaussian's sigma in crop pixels" in capsys.readouterr().err


def test_crop_decks_draw_every_training_font_family_and_no_held_out_one() -> None:
    from dokocam.vision.synth.designs import font_families

    rng = np.random.default_rng(7)
    train = {f: d.name for d in font_families("train") for f in d.fonts}
    held_out = {f for d in font_families("heldout") for f in d.fonts}
    drawn = [_DeckFaces(rng, None).style.font for _ in range(40 * len(font_families("train")))]
    assert not set(drawn) & held_out
    assert {train[f] for f in drawn} == set(train.values())
