"""YOLO folders and crop geometry, shared by the synthesis (which writes them) and the detector (which reads them).

Folders of images with YOLO labels (``images/``, ``labels/``, optional ``ignore/``) are read here,
and the label files and ``data.yaml`` of folders derived from them (tiles, perturbed copies) written.
Label lines are ``class cx cy w h`` (normalised); ``class`` is a card index (``3``) or a card
code (``QC``). ``ignore/`` files name boxes of cards outside a Doppelkopf deck (``8H ...``).
A ``data.yaml`` may say what was labelled (``target: corners`` or ``target: cards``); a generated
dataset's ``meta/`` JSON says whether each image was blurred and how much of each labelled thing shows.

The crop classifier's input is framed here too (numpy only, no torch), so the synthesis draws
training crops exactly as the detector cuts them from a frame. Ultralytics' ``YOLO`` class is imported here
(:func:`ultralytics_yolo`), offline and with its log lines sent to stderr, by every part that loads, trains or
exports a locator.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, cast

import numpy as np

from dokocam.engine import CARD_CODES

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
LABEL_KINDS = ("corners", "cards")


class DatasetFolderError(ValueError):
    """A folder is not laid out as ``images/`` + ``labels/`` with YOLO label lines."""


@dataclass(frozen=True)
class LabelledImage:
    """One image and its normalised label rows."""

    image: Path
    label_class: np.ndarray  # (n,) int64 card index
    label_cxcywh: np.ndarray  # (n, 4) normalised
    ignore_cxcywh: np.ndarray  # (m, 4) normalised
    blurred: bool | None = None  # a generated image's motion or focus blur (its ``meta/`` JSON); None: unknown
    # Per label, the fraction of it unoccluded and inside the image (a generated image's ``meta/``); None: unknown.
    visibility: np.ndarray | None = None
    # Every Doppelkopf index the generator drew, labelled or not (partly hidden ones too), as pixel
    # boxes (a generated image's ``meta/``); None: unknown.
    indices: np.ndarray | None = None
    # The card design the image was drawn in (``svg:gm-paris``; a generated image's ``meta/``); None: unknown.
    design: str | None = None

    def label_xyxy(self, width: int, height: int) -> np.ndarray:
        return _to_xyxy(self.label_cxcywh, width, height)

    def ignore_xyxy(self, width: int, height: int) -> np.ndarray:
        return _to_xyxy(self.ignore_cxcywh, width, height)


@dataclass(frozen=True)
class YoloFolder:
    """A labelled folder: its images (sorted) and what its labels mark."""

    root: Path
    items: tuple[LabelledImage, ...]
    kind: str  # "corners" or "cards"


def _to_xyxy(cxcywh: np.ndarray, width: int, height: int) -> np.ndarray:
    b = np.asarray(cxcywh, dtype=np.float64).reshape(-1, 4)
    return np.stack(
        [
            (b[:, 0] - b[:, 2] / 2) * width,
            (b[:, 1] - b[:, 3] / 2) * height,
            (b[:, 0] + b[:, 2] / 2) * width,
            (b[:, 1] + b[:, 3] / 2) * height,
        ],
        axis=1,
    )


def parse_class(token: str, *, path: Path | None = None) -> int | None:
    """A label's class as a card index; ``None`` for a card outside the deck (``8H``).

    >>> parse_class("3"), parse_class("QC"), parse_class("8H")
    (3, 3, None)
    """
    if token.isdigit():
        index = int(token)
        if not 0 <= index < len(CARD_CODES):
            raise DatasetFolderError(f"{path or 'label'}: class {index} is outside 0..23")
        return index
    return CARD_CODES.index(token) if token in CARD_CODES else None


def read_label_file(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """``(class (n,), cxcywh (n, 4))`` of a label file; rows of non-deck cards are left out."""
    classes: list[int] = []
    boxes: list[list[float]] = []
    if path.exists():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 5:
                raise DatasetFolderError(f"{path}:{number}: expected 'class cx cy w h', got {line!r}")
            cls = parse_class(parts[0], path=path)
            if cls is not None:
                classes.append(cls)
                boxes.append([float(v) for v in parts[1:]])
    return np.array(classes, dtype=np.int64), np.array(boxes, dtype=np.float64).reshape(-1, 4)


def read_ignore_file(path: Path) -> np.ndarray:
    """``(n, 4)`` normalised boxes of an ignore file (any class token)."""
    boxes = (
        [[float(v) for v in line.split()[1:5]] for line in path.read_text().splitlines() if len(line.split()) == 5]
        if path.exists()
        else []
    )
    return np.array(boxes, dtype=np.float64).reshape(-1, 4)


def read_meta(path: Path) -> dict[str, Any]:
    """A generated image's ``meta/`` JSON, read once for :func:`read_blurred` and :func:`read_visibility`;
    empty when there is none or it is damaged (photos, older datasets)."""
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def read_blurred(meta: dict[str, Any]) -> bool | None:
    """Whether a generated image was blurred, from its ``meta/`` JSON (:func:`read_meta`; ``look.blurred``,
    written by ``dokocam dataset generate``); ``None`` when there is no such file or it does not say
    (photos, older datasets, a damaged file).
    """
    look = meta.get("look") or {}
    blurred = look.get("blurred") if isinstance(look, dict) else None
    return blurred if isinstance(blurred, bool) else None


def read_indices(meta: dict[str, Any]) -> np.ndarray | None:
    """``(n, 4)`` pixel boxes of every Doppelkopf index a generated image shows at all, labelled or too
    hidden to be (its ``meta/`` JSON, :func:`read_meta`); ``None`` when the file cannot say.

    >>> card = {"class_id": 3, "index_boxes": [[1, 2, 5, 9], None], "index_visibility": [0.2, 0.0]}
    >>> read_indices({"cards": [card]}).tolist()
    [[1.0, 2.0, 5.0, 9.0]]
    """
    try:
        boxes = [
            box
            for card in meta["cards"]
            if card.get("class_id") is not None
            for box, visible in zip(card.get("index_boxes", []), card.get("index_visibility", []))
            if box is not None and float(visible) > 0
        ]
        return np.array(boxes, dtype=np.float64).reshape(-1, 4)
    except (KeyError, TypeError, ValueError, AttributeError):  # no meta, or a damaged or foreign one
        return None


def read_visibility(meta: dict[str, Any], label_cxcywh: np.ndarray, tolerance: float = 1.5) -> np.ndarray | None:
    """Per label row, the visible fraction the generator recorded for it in its ``meta/`` JSON
    (:func:`read_meta`): ``index_visibility`` for a corner-index box, ``visible_fraction`` for a
    whole-card box. A row is found by its box (within ``tolerance`` pixels); one that is not found
    gets ``nan``. ``None`` when the file cannot say (photos, older datasets, a damaged file).
    """
    try:
        width, height = float(meta["width"]), float(meta["height"])
        if not len(label_cxcywh) and isinstance(meta["cards"], list):
            return np.zeros(0)
        known = [
            (box, float(v))
            for card in meta["cards"]
            for box, v in zip(card.get("index_boxes", []), card.get("index_visibility", []))
            if box is not None
        ]
        known += [
            (card["box"], float(card["visible_fraction"]))
            for card in meta["cards"]
            if card.get("box") is not None and "visible_fraction" in card
        ]
        boxes = np.array([box for box, _ in known], dtype=np.float64).reshape(-1, 4)
    except (KeyError, TypeError, ValueError, AttributeError):  # a damaged or foreign file
        return None
    if not known:
        return None
    fractions = np.array([v for _, v in known])
    labels = _to_xyxy(label_cxcywh, int(width), int(height))
    out = np.full(len(labels), np.nan)
    for k, label in enumerate(labels):
        error = np.abs(boxes - label).max(axis=1)
        if error.min() <= tolerance:
            out[k] = fractions[error.argmin()]
    return out


def _label_kind(root: Path) -> str:
    for name in ("data.yaml", "dataset.yaml"):
        path = root / name
        if path.exists():
            import yaml

            text = path.read_text()
            meta = yaml.safe_load(text) or {}
            target = str(meta.get("target", meta.get("kind", ""))).lower()
            if target in LABEL_KINDS:
                return target
            if "whole card" in text.lower() or target == "card":
                return "cards"
    return "corners"


def _layout(root: Path, split: str | None) -> tuple[Path, Path, Path, Path]:
    """``(images, labels, ignore, meta)`` folders of either ``X/images`` or Ultralytics' ``images/X`` layout."""
    splits = [split] if split else ["", "val", "train"]
    for name in splits:
        for images, labels, ignore, meta in (
            (root / name / "images", root / name / "labels", root / name / "ignore", root / name / "meta"),
            (root / "images" / name, root / "labels" / name, root / "ignore" / name, root / "meta" / name),
        ):
            if images.is_dir() and any(p.suffix.lower() in IMAGE_SUFFIXES for p in images.iterdir()):
                return images, labels, ignore, meta
    raise DatasetFolderError(
        f"{root} has no images (expected images/*.jpg with labels/*.txt beside it, or images/val/ + labels/val/)"
    )


def read_folder(path: str | Path, *, split: str | None = None) -> YoloFolder:
    """Reads a labelled folder (or the folder of a ``data.yaml``).

    Args:
        path: folder holding ``images/`` and ``labels/`` (or ``images/<split>``...), or a ``data.yaml``.
        split: sub-folder to read (``"val"``); by default the folder itself, else ``val``, else ``train``.

    Raises:
        DatasetFolderError: no images found.
    """
    root = Path(path)
    if root.is_file():
        root = root.parent
    images_dir, labels_dir, ignore_dir, meta_dir = _layout(root, split)
    items = []
    for image in sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        name = image.with_suffix(".txt").name
        classes, boxes = read_label_file(labels_dir / name)
        meta = read_meta(meta_dir / image.with_suffix(".json").name)
        items.append(
            LabelledImage(
                image=image,
                label_class=classes,
                label_cxcywh=boxes,
                ignore_cxcywh=read_ignore_file(ignore_dir / name),
                blurred=read_blurred(meta),
                visibility=read_visibility(meta, boxes),
                indices=read_indices(meta),
                design=meta["design"] if isinstance(meta.get("design"), str) and meta["design"] else None,
            )
        )
    return YoloFolder(root=images_dir, items=tuple(items), kind=_label_kind(root))


def images_of(
    folder: YoloFolder, *, desc: str = "images", progress: bool = False, failed: list[str] | None = None
) -> Iterator[tuple[LabelledImage, np.ndarray]]:
    """Each item of ``folder`` with its image (BGR), in order; an unreadable image is skipped and its
    path added to ``failed`` when given. ``progress`` shows a bar named ``desc``."""
    import cv2

    items = folder.items
    if progress:
        from tqdm import tqdm

        items = tqdm(items, desc=desc, unit="img")
    for item in items:
        image = cv2.imread(str(item.image))
        if image is None:
            if failed is not None:
                failed.append(str(item.image))
            continue
        yield item, image


def train_split(path: str | Path) -> YoloFolder:
    """The ``train`` split of a generated dataset, or the folder itself when it has no splits."""
    try:
        return read_folder(path, split="train")
    except DatasetFolderError:
        return read_folder(path)


def write_label_file(path: Path, names: list[str], cxcywh: np.ndarray) -> None:
    """Label (or ignore) lines ``name cx cy w h`` of normalised boxes, as :func:`read_label_file` reads them."""
    rows = [
        f"{n} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}"
        for n, (cx, cy, w, h) in zip(names, np.asarray(cxcywh).reshape(-1, 4), strict=True)
    ]
    path.write_text("\n".join(rows) + ("\n" if rows else ""))


def derived_data_yaml(source: Path, out: Path, images: str, comment: str) -> str:
    """The ``data.yaml`` of a folder made from ``source`` (a folder or its YAML): the source's names
    and target, with ``path`` on ``out`` and ``train`` and ``val`` on its ``images`` folder, under a
    ``# comment`` line."""
    import yaml

    source_yaml = source / "data.yaml" if source.is_dir() else source
    meta = (yaml.safe_load(source_yaml.read_text()) or {}) if source_yaml.is_file() else {}
    meta.update(path=str(out.resolve()), train=images, val=images)
    text: str = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)
    return f"# {comment}\n" + text


# -- crop geometry --------------------------------------------------------------------------


BACKGROUND = 24  # class id of "no Doppelkopf index here"
# A crop is the box grown by this fraction on every side, made square: the index plus some card.
CROP_PAD = 0.15


def square_boxes(xyxy: np.ndarray, pad: float = CROP_PAD) -> np.ndarray:
    """Grows boxes by ``pad`` on every side and makes them square around their centre.

    >>> square_boxes([[0, 0, 10, 20]]).tolist()
    [[-8.0, -3.0, 18.0, 23.0]]
    """
    xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    cx, cy = (xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2
    half = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]) * (0.5 + pad)
    return np.stack([cx - half, cy - half, cx + half, cy + half], axis=1)


def jitter_box(box: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """A box shifted and scaled like a locator's imperfect prediction of it."""
    w, h = box[2] - box[0], box[3] - box[1]
    dx, dy = rng.normal(0, amount, 2) * (w, h)
    sw, sh = np.exp(rng.normal(0, amount, 2))
    cx, cy = (box[0] + box[2]) / 2 + dx, (box[1] + box[3]) / 2 + dy
    return np.array([cx - w * sw / 2, cy - h * sh / 2, cx + w * sw / 2, cy + h * sh / 2])


def ultralytics_yolo() -> Any:
    """Ultralytics' ``YOLO`` class, imported offline and with its log lines sent to stderr: every place that loads,
    trains or exports a locator takes it from here.

    Ultralytics must never reach for the network (fonts, telemetry, hub checks). It writes its log lines to
    stdout, and loading an exported model logs "Loading ... for ONNX Runtime inference...": four lines of text in
    the middle of ``detect --json``'s JSON lines, or of ``detector benchmark``'s result. The first import on a
    new machine announces the settings file it creates, so that import happens here, with stdout pointing at stderr.
    """
    os.environ.setdefault("YOLO_OFFLINE", "1")
    with contextlib.redirect_stdout(cast(TextIO, _Stderr())):
        from ultralytics.utils import LOGGER

    for handler in LOGGER.handlers:
        if type(handler) is logging.StreamHandler and not isinstance(handler.stream, _Stderr):
            handler.setStream(_Stderr())
    from ultralytics import YOLO

    return YOLO


class _Stderr:
    """Whatever ``sys.stderr`` is when a line is written (a test's capture, a redirected stream)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()
