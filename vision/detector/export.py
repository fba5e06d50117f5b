"""Exporting the detector for fast CPU inference (the locator to ONNX or OpenVINO, its classifier to ONNX) and the
speed benchmark."""

from __future__ import annotations

import os
import shutil
import statistics
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("YOLO_OFFLINE", "1")

FORMATS = ("onnx", "openvino")
BACKENDS = ("torch", *FORMATS)


class BackendNotExportedError(ValueError):
    """The benchmark or detection asked for an exported model that does not exist yet."""


def exported_path(model: Path, fmt: str) -> Path:
    """Where ``dokocam detector export`` puts ``model`` in format ``fmt`` (Ultralytics' naming)."""
    if fmt == "torch":
        return model
    if fmt == "onnx":
        return model.with_suffix(".onnx")
    return model.parent / f"{model.stem}_openvino_model"


def export(model: Path, fmt: str, *, imgsz: int | None = None) -> Path:
    """Exports the YOLO in ``model`` (a ``.pt``) to ``fmt`` beside it, and its classifiers (photos'
    and table frames') and box refiner to ONNX beside their checkpoints; the model card is shared.

    The export keeps a dynamic input size, so 16:9 frames are letterboxed to 16:9 and not padded
    to a square (fewer pixels to compute).
    """
    from ultralytics import YOLO

    from dokocam.vision.detector.model import ModelCard

    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    card = ModelCard.load(model)
    produced = Path(
        YOLO(str(model), task="detect").export(
            format=fmt, imgsz=imgsz or card.imgsz, dynamic=True, simplify=True, half=False, batch=1
        )
    )
    target = exported_path(model, fmt)
    if produced.resolve() != target.resolve():
        if target.exists():
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        shutil.move(str(produced), str(target))
    if fmt == "onnx":
        from dokocam.vision.detector.classifier import tag_export

        # So that the default model is this export only while it matches the .pt (``default_model``).
        tag_export(target, model)
    from dokocam.vision.detector.classifier import export_onnx

    for classifier in dict.fromkeys(c for c in (card.classifier, card.table_classifier, card.context_classifier) if c):
        # onnxruntime reads the crops whichever runtime the locator was exported for: the
        # classifier in torch was a third of a frame's time.
        export_onnx(ModelCard.path_for(model).parent / classifier)
    if card.refiner:
        from dokocam.vision.detector import refiner

        refiner.export_onnx(ModelCard.path_for(model).parent / card.refiner)
    return target


def _frames(images: Path | None, width: int, height: int, seed: int) -> list[np.ndarray]:
    """Test frames: the given images resized to ``width`` x ``height``, else a drawn table."""
    import cv2

    from dokocam.vision.detector.model import iter_images

    if images is not None:
        frames = [cv2.imread(str(p)) for p in iter_images([str(images)])]
        frames = [cv2.resize(f, (width, height)) for f in frames if f is not None][:50]
        if frames:
            return frames
    rng = np.random.default_rng(seed)
    base = (rng.random((height, width, 3)) * 60 + 60).astype(np.uint8)
    for _ in range(4):
        x, y = int(rng.integers(200, width - 300)), int(rng.integers(100, height - 250))
        cv2.rectangle(base, (x, y), (x + 110, y + 160), (235, 235, 235), -1)
        cv2.putText(base, "Q", (x + 8, y + 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (20, 20, 200), 2)
    return [np.roll(base, 37 * i, axis=1) for i in range(10)]


def benchmark(
    model: Path,
    *,
    backend: str = "torch",
    frames: int = 100,
    images: Path | None = None,
    width: int = 1280,
    height: int = 720,
    seed: int = 0,
    scales: tuple[float, ...] | None = None,
    stretches: tuple[float, ...] | None = None,
    fine_scale: float | None = None,
    min_contrast: float | None = None,
    workers: int = 1,
    turned_scales: tuple[float, ...] | None = None,
) -> dict[str, float]:
    """Median and spread of per-frame detection time (full pipeline, ``CardDetector.cards``).

    Frames are ``images`` resized to ``width`` x ``height`` (real photos make the classifier and
    grouping work as in use), else a drawn table. ``scales`` overrides the model card's locator
    passes (``(1.0,)``: one pass), ``turned_scales`` its passes on the frame turned a quarter (``()``: none),
    ``stretches`` its classifier views (``()``: one view) and
    ``fine_scale`` its fine pass (``0``: none), ``min_contrast`` its grey-level stretch (``0``: none), ``workers``
    the threads the passes share; ``passes`` is the mean number of locator passes a frame took.
    Returns milliseconds.

    Raises:
        BackendNotExportedError: the exported model is missing (run ``dokocam detector export``).
    """
    from dokocam.vision.detector.model import CardDetector

    path = exported_path(model, backend)
    if not path.exists():
        raise BackendNotExportedError(
            f"no {backend} model at {path}: run `dokocam detector export --format {backend}` first"
        )
    detector = CardDetector.load(
        path,
        scales=scales,
        stretches=stretches,
        fine_scale=fine_scale,
        min_contrast=min_contrast,
        workers=workers,
        turned_scales=turned_scales,
    )
    pool = _frames(images, width, height, seed)
    for frame in pool[:5]:
        detector.cards(frame)
    total, locate, classify, refine, passes = [], [], [], [], []
    for i in range(frames):
        frame = pool[i % len(pool)]
        start = time.perf_counter()
        detector.cards(frame)
        total.append((time.perf_counter() - start) * 1000)
        locate.append(detector.timing.locate)
        classify.append(detector.timing.classify)
        refine.append(detector.timing.refine)
        passes.append(detector.timing.passes)
    return {
        "frames": frames,
        "median_ms": statistics.median(total),
        "p90_ms": float(np.percentile(total, 90)),
        "locate_median_ms": statistics.median(locate),
        "passes": float(np.mean(passes)),
        "classify_median_ms": statistics.median(classify),
        "refine_median_ms": statistics.median(refine),
        "threads": float(__import__("torch").get_num_threads()),
        "workers": float(workers),
    }
