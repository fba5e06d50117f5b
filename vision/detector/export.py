"""Exporting the detector for fast CPU inference (the locator to ONNX or OpenVINO, its classifier to ONNX) and the
speed benchmark."""

from __future__ import annotations

import shutil
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

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
    from dokocam.vision.detector.model import ModelCard
    from dokocam.vision.yolo import ultralytics_yolo

    YOLO = ultralytics_yolo()

    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    card = ModelCard.load(model)
    locate = card.profile("photo").stage("locate") if "photo" in card.profiles else None
    produced = Path(
        YOLO(str(model), task="detect").export(
            format=fmt,
            imgsz=imgsz or (locate.imgsz if locate else 640),
            dynamic=True,
            simplify=True,
            half=False,
            batch=1,
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

    folder = ModelCard.path_for(model).parent
    stages = [s for p in card.profiles.values() for s in p.stages]
    readers = [getattr(s, k, None) for s in stages for k in ("classifier", "context_classifier")]
    for classifier in dict.fromkeys(c for c in readers if c):
        # onnxruntime reads the crops whichever runtime the locator was exported for: the
        # classifier in torch was a third of a frame's time.
        export_onnx(folder / classifier)
    from dokocam.vision.detector import refiner
    from dokocam.vision.detector.stages import RefineConfig

    for name in dict.fromkeys(s.refiner for s in stages if isinstance(s, RefineConfig)):
        refiner.export_onnx(folder / name)
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


BASELINE = "yolo11n.yaml"  # the plain Ultralytics detector the photo profile is timed against


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
    workers: int = 1,
    baseline: str | None = BASELINE,
) -> dict[str, Any]:
    """Per-frame detection time of each profile (``CardDetector.cards``, each stage's median too) beside a plain
    Ultralytics YOLO (``baseline``, untrained, PyTorch, at 640 px) on the same frames in the same run.

    Frames are ``images`` resized to ``width`` x ``height`` (real photos make the classifier and grouping work as
    in use), else a drawn table. ``scales``, ``stretches`` and ``fine_scale`` (``0``: none)
    override the photo profile's; ``workers`` is the threads its passes share. ``ratio`` is the photo profile's
    median over the baseline's. Times in milliseconds.

    Raises:
        BackendNotExportedError: the exported model is missing (run ``dokocam detector export``).
    """
    from dokocam.vision.detector.model import CardDetector

    path = exported_path(model, backend)
    if not path.exists():
        raise BackendNotExportedError(
            f"no {backend} model at {path}: run `dokocam detector export --format {backend}` first"
        )
    pool = _frames(images, width, height, seed)
    views: dict[str, Any] = {"scales": scales, "stretches": stretches, "fine_scale": fine_scale}
    result: dict[str, Any] = {"frames": frames, "width": width, "height": height}
    for profile in ("photo", "table"):
        detector = CardDetector.load(path, profile, workers=workers, **(views if profile == "photo" else {}))
        result[profile] = _timed(detector.cards, pool, frames, detector)
        detector.close()
    if baseline:
        from dokocam.vision.yolo import ultralytics_yolo

        yolo = ultralytics_yolo()(baseline, task="detect")
        result[baseline] = _timed(lambda f: yolo.predict(f, imgsz=640, verbose=False), pool, frames)
        result["ratio"] = result["photo"]["median_ms"] / result[baseline]["median_ms"]
    result["threads"] = float(__import__("torch").get_num_threads())
    return result


def _timed(run: Any, pool: list[np.ndarray], frames: int, detector: Any = None) -> dict[str, Any]:
    """Median and 90th percentile of ``run(frame)`` over ``frames`` frames (after 5 to warm up), and with a
    ``detector`` each stage's median and the mean number of locator passes."""
    for frame in pool[:5]:
        run(frame)
    total, stages, passes = [], [], []
    for i in range(frames):
        start = time.perf_counter()
        run(pool[i % len(pool)])
        total.append((time.perf_counter() - start) * 1000)
        if detector is not None:
            stages.append(dict(detector.timing.ms))
            passes.append(detector.timing.passes)
    out: dict[str, Any] = {"median_ms": statistics.median(total), "p90_ms": float(np.percentile(total, 90))}
    if detector is not None:
        out["stages_median_ms"] = {k: statistics.median(s.get(k, 0.0) for s in stages) for k in stages[0]}
        out["passes"] = float(np.mean(passes))
    return out
