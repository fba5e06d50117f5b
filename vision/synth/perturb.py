"""Copies of a labelled folder under one named change of camera or light each, labels moved with the pixels.

A detector is judged on photos and tables it has never seen: other rooms, lamps, phones and
webcams. ``dokocam eval`` of each copy says which of these costs it what, on the same cards (the
real photos: card F1 0.935 as taken, 0.871 washed out, 0.902 darkened). The changes are
fixed and deterministic, so two detectors (or two rounds of one) meet the same photos.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

from dokocam.vision.yolo import YoloFolder, derived_data_yaml, read_folder, write_label_file


class PerturbError(ValueError):
    """An unknown perturbation, one asked for twice, or none."""


def _levels(image: np.ndarray, table: np.ndarray) -> np.ndarray:
    return cv2.LUT(image, np.clip(np.rint(table), 0, 255).astype(np.uint8))


def _gamma(power: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda image: _levels(image, (np.arange(256) / 255.0) ** power * 255)


def _washed(image: np.ndarray) -> np.ndarray:
    """Half the contrast, lifted: glare on the table, haze, a cheap webcam's flat picture."""
    return _levels(image, np.arange(256) * 0.5 + 80)


def _shadow(image: np.ndarray) -> np.ndarray:
    """One lamp at the left edge: the light falls to 35% at the right edge."""
    ramp = np.linspace(1.0, 0.35, image.shape[1], dtype=np.float32)[None, :, None]
    return np.clip(image * ramp, 0, 255).astype(np.uint8)


def _warm(image: np.ndarray) -> np.ndarray:
    """A tungsten bulb's cast (BGR gains): blue down, red up."""
    return np.clip(image * np.array([0.75, 0.95, 1.15], np.float32), 0, 255).astype(np.uint8)


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def _noise(image: np.ndarray, seed: int = 0) -> np.ndarray:
    """Sensor noise of a dim room (sigma 12 grey levels), the same for every run of one ``seed``."""
    rng = np.random.default_rng(seed)
    return np.clip(image + rng.normal(0, 12, image.shape), 0, 255).astype(np.uint8)


def _blur(image: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(image, (0, 0), 1.5)


def _jpeg(image: np.ndarray) -> np.ndarray:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 30])
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
    return image if decoded is None else decoded


# Changes of light and camera: the pixels change, the labels stay.
PHOTOMETRIC: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "dark": _gamma(2.2),
    "bright": _gamma(0.5),
    "washed": _washed,
    "shadow": _shadow,
    "warm": _warm,
    "grey": _grey,
    "noise": _noise,
    "blur": _blur,
    "jpeg30": _jpeg,
}
# The camera turned by quarter turns clockwise: the labels turn with it.
TURNS = {"rot90": 1, "rot180": 2, "rot270": 3}
KINDS = (*TURNS, *PHOTOMETRIC)


def turn_boxes(cxcywh: np.ndarray, turns: int) -> np.ndarray:
    """Normalised ``cx cy w h`` boxes of an image turned ``turns`` quarter turns clockwise.

    >>> turn_boxes(np.array([[0.1, 0.2, 0.04, 0.06]]), 1).round(6).tolist()
    [[0.8, 0.1, 0.06, 0.04]]
    >>> turn_boxes(np.array([[0.1, 0.2, 0.04, 0.06]]), 4).round(6).tolist()
    [[0.1, 0.2, 0.04, 0.06]]
    """
    boxes = np.asarray(cxcywh, dtype=np.float64).reshape(-1, 4).copy()
    for _ in range(turns % 4):
        cx, cy, w, h = boxes.T.copy()
        boxes = np.stack([1 - cy, cx, h, w], axis=1)
    return boxes


def perturb(image: np.ndarray, kind: str, *, seed: int = 0) -> np.ndarray:
    """``image`` (BGR) under the change ``kind`` (one of :data:`KINDS`).

    ``seed`` draws the sensor noise (``noise``): a video's frames each take their own, as a
    camera's do; a folder's copies all take 0, so two runs write the same files.

    Raises:
        PerturbError: ``kind`` is not one of them.
    """
    if kind in TURNS:
        return np.ascontiguousarray(np.rot90(image, -TURNS[kind]))
    if kind == "noise":
        return _noise(image, seed)
    if kind in PHOTOMETRIC:
        return PHOTOMETRIC[kind](image)
    raise PerturbError(f"unknown perturbation {kind!r}; choose from {', '.join(KINDS)}")


def write_perturbed(
    source: str | Path, out: str | Path, kinds: list[str], *, split: str | None = None
) -> tuple[int, Iterator[int]]:
    """Writes ``out/<kind>/`` (``images/``, ``labels/``, ``ignore/``, ``data.yaml``) for each of ``kinds``.

    The kinds and the folder are checked at once; the returned iterator then writes image by image
    (every kind of one image) and yields how many are done, for a progress bar. Label rows are
    written as card indices; rows of cards outside the deck are dropped, as ``eval`` drops them.

    Returns:
        ``(number of images, the writing iterator)``.

    Raises:
        PerturbError: an unknown kind, a kind twice, or none at all.
        dokocam.vision.yolo.DatasetFolderError: ``source`` has no labelled images.
    """
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise PerturbError(f"unknown perturbation {', '.join(map(repr, unknown))}; choose from {', '.join(KINDS)}")
    if not kinds or len(set(kinds)) != len(kinds):
        raise PerturbError(f"perturbations {', '.join(kinds) or '(none)'}: give at least one, each once")
    folder = read_folder(source, split=split)
    return len(folder.items), _write(folder, Path(source), Path(out), kinds)


def _write(folder: YoloFolder, source: Path, out: Path, kinds: list[str]) -> Iterator[int]:
    for kind in kinds:
        for sub in ("images", "labels", "ignore"):
            (out / kind / sub).mkdir(parents=True, exist_ok=True)
        (out / kind / "data.yaml").write_text(
            derived_data_yaml(source, out / kind, "images", f"{source} under the perturbation {kind}")
        )
    for done, item in enumerate(folder.items, 1):
        image = cv2.imread(str(item.image))
        if image is None:
            continue  # an unreadable image is skipped, as eval skips it
        name = item.image.with_suffix(".txt").name
        for kind in kinds:
            turns = TURNS.get(kind, 0)
            # JPEG at quality 95: a PNG of each photo would be ten times the disk for artefacts few
            # photos are free of anyway.
            cv2.imwrite(
                str(out / kind / "images" / f"{item.image.stem}.jpg"),
                perturb(image, kind),
                [cv2.IMWRITE_JPEG_QUALITY, 95],
            )
            write_label_file(
                out / kind / "labels" / name, [str(c) for c in item.label_class], turn_boxes(item.label_cxcywh, turns)
            )
            write_label_file(
                out / kind / "ignore" / name,
                ["ignore"] * len(item.ignore_cxcywh),
                turn_boxes(item.ignore_cxcywh, turns),
            )
        yield done
