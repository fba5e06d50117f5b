"""`dokocam dataset perturb`: labels turn with the pixels, light changes leave them, bad requests are refused."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from dokocam.service.cli import main
from dokocam.vision.synth.perturb import KINDS, PHOTOMETRIC, PerturbError, perturb, write_perturbed
from dokocam.vision.yolo import read_folder

# Two labelled indices and one ignored card, each drawn as a rectangle of its own colour (BGR).
BOXES = {3: ((20, 30, 50, 70), (0, 0, 255)), 7: ((140, 10, 190, 40), (0, 255, 0))}
IGNORED = ((90, 80, 120, 110), (255, 0, 0))
WIDTH, HEIGHT = 200, 120


def _source(root: Path) -> Path:
    for sub in ("images", "labels", "ignore"):
        (root / sub).mkdir(parents=True)
    image = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    rows = []
    for cls, ((x1, y1, x2, y2), colour) in BOXES.items():
        image[y1:y2, x1:x2] = colour
        rows.append(f"{cls} {(x1 + x2) / 2 / WIDTH} {(y1 + y2) / 2 / HEIGHT} {(x2 - x1) / WIDTH} {(y2 - y1) / HEIGHT}")
    (x1, y1, x2, y2), colour = IGNORED
    image[y1:y2, x1:x2] = colour
    cv2.imwrite(str(root / "images" / "a.png"), image)
    (root / "labels" / "a.txt").write_text("\n".join(rows) + "\n")
    (root / "ignore" / "a.txt").write_text(
        f"8H {(x1 + x2) / 2 / WIDTH} {(y1 + y2) / 2 / HEIGHT} {(x2 - x1) / WIDTH} {(y2 - y1) / HEIGHT}\n"
    )
    return root


def _drawn_box(image: np.ndarray, colour: tuple[int, int, int]) -> np.ndarray:
    """The pixel box of the rectangle drawn in ``colour`` (JPEG-tolerant)."""
    mask = np.all(np.abs(image.astype(int) - colour) < 60, axis=2)
    ys, xs = np.nonzero(mask)
    return np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], float)


@pytest.mark.parametrize("kind", ["rot90", "rot180", "rot270"])
def test_turned_labels_lie_on_the_turned_pixels(tmp_path: Path, kind: str):
    total, progress = write_perturbed(_source(tmp_path / "src"), tmp_path / "out", [kind])
    assert total == 1 and list(progress) == [1]
    (item,) = read_folder(tmp_path / "out" / kind).items
    image = cv2.imread(str(item.image))
    assert image.shape[:2] == ((HEIGHT, WIDTH) if kind == "rot180" else (WIDTH, HEIGHT))
    h, w = image.shape[:2]
    labels = dict(zip(item.label_class.tolist(), item.label_xyxy(w, h), strict=True))
    assert sorted(labels) == sorted(BOXES)
    for cls, (_, colour) in BOXES.items():
        np.testing.assert_allclose(labels[cls], _drawn_box(image, colour), atol=1.0)
    np.testing.assert_allclose(item.ignore_xyxy(w, h)[0], _drawn_box(image, IGNORED[1]), atol=1.0)


def test_a_change_of_light_keeps_the_labels_and_is_the_same_every_run(tmp_path: Path):
    source = _source(tmp_path / "src")
    for out in ("one", "two"):
        _, progress = write_perturbed(source, tmp_path / out, ["noise", "washed"])
        list(progress)
    original = read_folder(source).items[0]
    for kind in ("noise", "washed"):
        (item,) = read_folder(tmp_path / "one" / kind).items
        np.testing.assert_allclose(item.label_cxcywh, original.label_cxcywh, atol=1e-6)
        assert item.label_class.tolist() == original.label_class.tolist()
        np.testing.assert_array_equal(
            cv2.imread(str(item.image)), cv2.imread(str(tmp_path / "two" / kind / "images" / "a.jpg"))
        )
    black_and_white = np.array([[[0, 0, 0], [255, 255, 255]]], np.uint8)
    assert perturb(black_and_white, "washed")[0, :, 0].tolist() == [80, 208]  # half the contrast, lifted off black


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_changes_the_pixels_and_keeps_the_type(kind: str):
    image = np.random.default_rng(1).integers(0, 256, (40, 60, 3), dtype=np.uint8)
    out = perturb(image, kind)
    assert out.dtype == np.uint8 and out.ndim == 3 and out.size == image.size
    assert not np.array_equal(out, image)


@pytest.mark.parametrize("kinds", [["fog"], [], ["dark", "dark"]])
def test_a_bad_request_is_refused_before_anything_is_written(tmp_path: Path, kinds: list[str]):
    with pytest.raises(PerturbError):
        write_perturbed(_source(tmp_path / "src"), tmp_path / "out", kinds)
    assert not (tmp_path / "out").exists()


def test_the_command_writes_a_folder_eval_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    source = _source(tmp_path / "src")
    assert main(["dataset", "perturb", str(source), str(tmp_path / "out"), "--kinds", "dark, rot90"]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["dark", "rot90"]
    assert "1 images x 2 perturbations" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="unknown perturbation 'fog'"):
        main(["dataset", "perturb", str(source), str(tmp_path / "out2"), "--kinds", "fog"])


def test_the_cli_spells_the_changes_as_the_module_does() -> None:
    from dokocam.service.cli.dataset import LIGHT_KINDS, PERTURB_KINDS

    assert LIGHT_KINDS == tuple(PHOTOMETRIC) and PERTURB_KINDS == KINDS


def test_noise_is_the_same_for_one_seed_and_another_for_another() -> None:
    image = np.full((40, 60, 3), 128, np.uint8)
    first, again, other = perturb(image, "noise"), perturb(image, "noise", seed=0), perturb(image, "noise", seed=1)
    assert np.array_equal(first, again) and not np.array_equal(first, other)
    assert 10 < (other.astype(int) - 128).std() < 14
