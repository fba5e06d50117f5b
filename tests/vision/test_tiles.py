"""Native-resolution tiles: the window's pixels are the source's, and no label is cut in two."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from dokocam.vision.synth.tiles import TileError, choose_tiles, cut_tiles, write_tiles
from dokocam.vision.yolo import read_folder


def _labelled_folder(
    root: Path, boxes: list[tuple[int, int, int, int, int]], size: tuple[int, int] = (480, 640)
) -> np.ndarray:
    """One image with a distinct solid patch under each label (class, x1, y1, x2, y2) and its YOLO labels."""
    height, width = size
    rng = np.random.default_rng(1)
    image = rng.integers(0, 60, (height, width, 3), dtype=np.uint8)
    rows = []
    for k, (cls, x1, y1, x2, y2) in enumerate(boxes):
        image[y1:y2, x1:x2] = (80 + 20 * k, 255 - 20 * k, 40 + 30 * k)
        rows.append(f"{cls} {(x1 + x2) / 2 / width} {(y1 + y2) / 2 / height} {(x2 - x1) / width} {(y2 - y1) / height}")
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    cv2.imwrite(str(root / "images" / "train" / "a.png"), image)
    (root / "labels" / "train" / "a.txt").write_text("\n".join(rows) + "\n")
    (root / "data.yaml").write_text(
        "path: x\ntrain: images/train\nval: images/train\ntarget: corners\nnames:\n  0: 9C\n  3: QC\n"
    )
    return image


def test_a_tile_holds_whole_labels_at_the_source_pixels(tmp_path: Path) -> None:
    boxes = [(3, 40, 40, 58, 64), (0, 100, 90, 116, 110), (3, 500, 380, 520, 404), (0, 300, 200, 330, 240)]
    image = _labelled_folder(tmp_path / "src", boxes)
    total, progress = write_tiles(tmp_path / "src", tmp_path / "out", size=256, per_image=3, seed=4)
    assert total == 1 and list(progress) == [1]
    folder = read_folder(tmp_path / "out", split="train")
    assert len(folder.items) == 3
    covered = set()
    for item in folder.items:
        tile = cv2.imread(str(item.image))
        assert tile.shape[:2] == (256, 256)
        for cls, (x1, y1, x2, y2) in zip(item.label_class, item.label_xyxy(256, 256).round().astype(int), strict=True):
            patch = tile[y1:y2, x1:x2].reshape(-1, 3).astype(int)
            # The same solid colour as under the source label: same pixels, same scale, a whole label.
            match = [k for k, b in enumerate(boxes) if b[0] == cls and (b[3] - b[1], b[4] - b[2]) == (x2 - x1, y2 - y1)]
            assert match, (cls, x1, y1, x2, y2)
            source = image[boxes[match[0]][2] + 2, boxes[match[0]][1] + 2].astype(int)
            assert np.abs(np.median(patch, axis=0) - source).max() <= 6
            covered.add(match[0])
    # Three windows of 256 px reach labels in three corners and the middle of the image: the later ones go to
    # missed labels.
    assert len(covered) >= 3
    import yaml

    meta = yaml.safe_load((tmp_path / "out" / "data.yaml").read_text())
    assert (
        meta["target"] == "corners" and meta["names"][3] == "QC" and Path(meta["path"]) == (tmp_path / "out").resolve()
    )


def test_windows_never_cut_a_label_when_one_fits() -> None:
    rng = np.random.default_rng(0)
    boxes = np.array([[150.0, 150.0, 175.0, 180.0], [300.0, 140.0, 330.0, 170.0], [10.0, 600.0, 30.0, 630.0]])
    for x, y in choose_tiles(boxes, 640, 640, 320, 4, rng):
        inside = (boxes[:, 0] >= x) & (boxes[:, 1] >= y) & (boxes[:, 2] <= x + 320) & (boxes[:, 3] <= y + 320)
        touches = (boxes[:, 2] > x) & (boxes[:, 0] < x + 320) & (boxes[:, 3] > y) & (boxes[:, 1] < y + 320)
        assert not (touches & ~inside).any()
    tiles = cut_tiles(boxes, np.array([1, 2, 3]), 640, 640, 320, 1, np.random.default_rng(0))
    assert sorted(tiles[0].classes.tolist()) == [1, 2]  # the two nearby labels, not the lone one
    assert (tiles[0].boxes >= 0).all() and (tiles[0].boxes <= 320).all()


def test_small_images_are_copied_whole(tmp_path: Path) -> None:
    _labelled_folder(tmp_path / "src", [(0, 10, 10, 30, 40)], size=(200, 200))
    list(write_tiles(tmp_path / "src", tmp_path / "out", size=256)[1])
    (item,) = read_folder(tmp_path / "out", split="train").items
    assert item.label_class.tolist() == [0]
    assert np.allclose(item.label_xyxy(200, 200), [[10, 10, 30, 40]])


def test_bad_sizes_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TileError):
        choose_tiles(np.zeros((0, 4)), 640, 640, 0, 1, np.random.default_rng(0))
    from dokocam.service.cli import build_parser

    parser = build_parser()
    for argv, message in (
        (["dataset", "tiles", str(tmp_path / "none"), str(tmp_path / "out")], "has no images"),
        (["dataset", "tiles", str(tmp_path), str(tmp_path / "out"), "--size", "0"], "must be positive"),
    ):
        args = parser.parse_args(argv)
        with pytest.raises(SystemExit, match=message):
            args.func(args)
