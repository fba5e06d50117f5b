"""Native-resolution tiles of a labelled folder, for a locator that must find small indices.

A locator trained at 320 px on 640 px scenes sees every index at half its size: a 12 px index is
6 px, under the stride-8 head's reach. Cutting a 320 px tile out of the scene keeps the pixels
as drawn, at the training cost of a 320 px image. A tile never cuts a label in two (a half
index is neither a label nor background); labels it cannot hold whole are not in it.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from dokocam.vision.yolo import YoloFolder, derived_data_yaml, read_folder, write_label_file

GRID_STEP = 16  # tile offsets tried, in pixels: fine enough to fit around a few cards


class TileError(ValueError):
    """A tile size or count that cannot be cut."""


@dataclass(frozen=True)
class Tile:
    """One cut: the image's pixel window and the labels wholly inside it (pixels in the window)."""

    x: int
    y: int
    size: int
    classes: np.ndarray  # (n,) int64
    boxes: np.ndarray  # (n, 4) xyxy, tile pixels


def choose_tiles(
    boxes: np.ndarray, width: int, height: int, size: int, count: int, rng: np.random.Generator
) -> list[tuple[int, int]]:
    """Top-left corners of ``count`` windows that cut no box, the fullest first.

    A window is scored by how many boxes it holds whole; windows that cut a box are never chosen
    (unless every window does, then the one cutting fewest). Ties go by chance, and a later tile
    prefers boxes the earlier ones missed.

    >>> rng = np.random.default_rng(0)
    >>> boxes = np.array([[500.0, 500.0, 520.0, 516.0]])
    >>> x, y = choose_tiles(boxes, 640, 640, 320, 1, rng)[0]
    >>> x <= 500 and x + 320 >= 520 and y <= 500 and y + 320 >= 516
    True
    """
    if size <= 0 or count <= 0:
        raise TileError(f"tile size {size} and count {count} must be positive")
    xs = np.unique(np.r_[np.arange(0, max(width - size, 0) + 1, GRID_STEP), max(width - size, 0)])
    ys = np.unique(np.r_[np.arange(0, max(height - size, 0) + 1, GRID_STEP), max(height - size, 0)])
    ox, oy = (a.ravel() for a in np.meshgrid(xs, ys))
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    inside = (
        (b[None, :, 0] >= ox[:, None])
        & (b[None, :, 1] >= oy[:, None])
        & (b[None, :, 2] <= ox[:, None] + size)
        & (b[None, :, 3] <= oy[:, None] + size)
    )
    touches = (
        (b[None, :, 2] > ox[:, None])
        & (b[None, :, 0] < ox[:, None] + size)
        & (b[None, :, 3] > oy[:, None])
        & (b[None, :, 1] < oy[:, None] + size)
    )
    cut = (touches & ~inside).sum(axis=1)
    seen = np.zeros(len(b), dtype=bool)
    chosen: list[tuple[int, int]] = []
    for _ in range(count):
        score = (inside & ~seen).sum(axis=1) + 0.1 * inside.sum(axis=1) - 100.0 * (cut - cut.min())
        best = np.flatnonzero(score >= score.max() - 1e-9)
        pick = int(rng.choice(best))
        chosen.append((int(ox[pick]), int(oy[pick])))
        seen |= inside[pick]
    return chosen


def cut_tiles(
    boxes: np.ndarray, classes: np.ndarray, width: int, height: int, size: int, count: int, rng: np.random.Generator
) -> list[Tile]:
    """The windows of :func:`choose_tiles` with the labels each holds whole, moved into it."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    tiles = []
    for x, y in choose_tiles(b, width, height, size, count, rng):
        keep = (b[:, 0] >= x) & (b[:, 1] >= y) & (b[:, 2] <= x + size) & (b[:, 3] <= y + size)
        tiles.append(Tile(x=x, y=y, size=size, classes=np.asarray(classes)[keep], boxes=b[keep] - [x, y, x, y]))
    return tiles


def write_tiles(
    source: str | Path, out: str | Path, *, size: int = 320, per_image: int = 1, split: str = "train", seed: int = 0
) -> tuple[int, Iterator[int]]:
    """Cuts ``per_image`` tiles of each image of ``source``'s ``split`` into ``out/images/<split>``.

    The arguments and the folder are checked at once; the returned iterator then writes the
    images one by one and yields how many are done, for a progress bar. ``out`` gets a
    ``data.yaml`` like the source's, with ``train`` and ``val`` pointing at the tiles' split.

    Returns:
        ``(number of images, the writing iterator)``.

    Raises:
        TileError: ``size`` or ``per_image`` is not positive.
        dokocam.vision.yolo.DatasetFolderError: ``source`` has no labelled images.
    """
    if size <= 0 or per_image <= 0:
        raise TileError(f"--size ({size}) and --per-image ({per_image}) must be positive")
    folder = read_folder(source, split=split)
    return len(folder.items), _write(folder, Path(source), Path(out), size, per_image, split, seed)


def _write(
    folder: YoloFolder, source: Path, out: Path, size: int, per_image: int, split: str, seed: int
) -> Iterator[int]:
    images_dir, labels_dir = out / "images" / split, out / "labels" / split
    images_dir.mkdir(parents=True, exist_ok=True)
    labels_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for done, item in enumerate(folder.items, 1):
        image = cv2.imread(str(item.image))
        if image is None:
            continue  # an unreadable image is skipped, as Ultralytics would
        height, width = image.shape[:2]
        if width <= size and height <= size:
            shutil.copy(item.image, images_dir / item.image.name)
            _write_labels(
                labels_dir / item.image.with_suffix(".txt").name,
                item.label_class,
                item.label_xyxy(width, height),
                width,
                height,
            )
            yield done
            continue
        for k, tile in enumerate(
            cut_tiles(item.label_xyxy(width, height), item.label_class, width, height, size, per_image, rng)
        ):
            name = f"{item.image.stem}-t{k}"
            window = image[tile.y : tile.y + size, tile.x : tile.x + size]
            cv2.imwrite(str(images_dir / f"{name}.jpg"), window, [cv2.IMWRITE_JPEG_QUALITY, 95])
            _write_labels(labels_dir / f"{name}.txt", tile.classes, tile.boxes, window.shape[1], window.shape[0])
        yield done
    (out / "data.yaml").write_text(
        derived_data_yaml(source, out, f"images/{split}", f"native-resolution {size} px tiles of {source}")
    )


def _write_labels(path: Path, classes: np.ndarray, xyxy: np.ndarray, width: int, height: int) -> None:
    """YOLO label lines (``class cx cy w h``, normalised) of pixel boxes in a ``width`` x ``height`` image."""
    b = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    cxcywh = np.stack(
        [
            (b[:, 0] + b[:, 2]) / 2 / width,
            (b[:, 1] + b[:, 3]) / 2 / height,
            (b[:, 2] - b[:, 0]) / width,
            (b[:, 3] - b[:, 1]) / height,
        ],
        axis=1,
    )
    write_label_file(path, [str(c) for c in classes], cxcywh)
