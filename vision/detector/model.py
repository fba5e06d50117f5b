"""The card detector: an Ultralytics YOLO locator, an optional index classifier, corner grouping.

This is the only module that touches Ultralytics types; everything leaves it as
:class:`vision.detections.Detections`. A model is a YOLO weights file (``.pt``, ``.onnx`` or an
``*_openvino_model/`` folder) plus an optional JSON card beside it (``<stem>.json``) that says what
the YOLO finds (``"target": "corners"`` or ``"cards"``) and which classifier reads its boxes.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from dokocam.models import DEFAULT_MODEL as DEFAULT_MODEL
from dokocam.vision.detections import Detections
from dokocam.vision.detector.grouping import corner_score, drop_twins, group_corners
from dokocam.vision.detector.matching import box_iou, short_side

# Ultralytics must never reach for the network here (fonts, telemetry, hub checks).
os.environ.setdefault("YOLO_OFFLINE", "1")

log = logging.getLogger(__name__)

OPENVINO_SUFFIX = "_openvino_model"


def default_model() -> Path:
    """The shipped detector in its fastest runtime: the ONNX export of ``models/dokocam-corners.pt``
    when ``dokocam detector export`` made it from that very file, else the ``.pt`` itself.

    The export reads photos and table frames alike (real photos: the same F1) in about half the
    time. An export left over from weights shipped before is never used: the ``.pt`` is, with a warning.
    """
    from dokocam.vision.detector.classifier import export_source_digest, file_digest

    exported = DEFAULT_MODEL.with_suffix(".onnx")
    if not exported.exists() or not DEFAULT_MODEL.exists():
        return DEFAULT_MODEL
    if export_source_digest(exported) != file_digest(DEFAULT_MODEL):
        log.warning(
            "%s was not exported from %s; using the .pt (run `dokocam detector export --format onnx`)",
            exported,
            DEFAULT_MODEL,
        )
        return DEFAULT_MODEL
    return exported


def ultralytics_logs_to_stderr() -> None:
    """Sends Ultralytics' log lines to stderr. It writes them to stdout, and loading an exported
    model logs "Loading ... for ONNX Runtime inference...": four lines of text in the middle of
    ``detect --json``'s JSON lines, or of ``detector benchmark``'s result."""
    from ultralytics.utils import LOGGER

    for handler in LOGGER.handlers:
        if type(handler) is logging.StreamHandler and not isinstance(handler.stream, _Stderr):
            handler.setStream(_Stderr())


class _Stderr:
    """Whatever ``sys.stderr`` is when a line is written (a test's capture, a redirected stream)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


class ModelNotFoundError(ValueError):
    """The model path does not exist (train one with ``dokocam detector train locator`` or pass ``--model``), or a file
    its model card names beside it is missing or cannot be read."""


class UnreadableImageError(ValueError):
    """An image file is missing or not an image OpenCV can decode."""


@dataclass(frozen=True)
class ModelCard:
    """What a YOLO weights file finds and how its boxes become cards (``<stem>.json``).

    Attributes:
        target: ``"corners"`` (corner indices, grouped into cards) or ``"cards"`` (whole cards).
        classifier: path of the index classifier, relative to the JSON file, or ``None`` when the
            YOLO names the 24 cards itself.
        refiner: path of the box refiner (:mod:`vision.detector.refiner`) that moves each located
            box onto its index, relative to the JSON file; ``None``: the locator's boxes as they are.
        imgsz: inference size the model was trained for (close-up photos).
        conf: default score threshold (chosen on synthetic validation data).
        table_imgsz: inference size for whole table frames seen from above, where a corner index
            is only a few pixels; ``None`` means ``imgsz``. Chosen on rendered game frames.
        locate_conf: the locator's own threshold when a classifier follows (``None``: ``conf / 2``).
        locate_weight: a corner's score is ``locator ** w * classifier ** (1 - w)``; below 0.5 the
            classifier, which also rejects non-indices, counts for more than the locator.
        scales: the locator looks at a photo at each of these fractions of ``imgsz`` and keeps the
            union (one box per index). Photos show indices of every size, larger and smaller than
            most training scenes; each pass brings some of them into the sizes the locator learnt.
        turned_scales: the locator also looks at a photo turned a quarter at each of these fractions of
            ``imgsz`` (boxes merged with the others); photos only. The locator learnt indices at every
            angle, but its grid cells and anchors fall on other pixels of a turned photo, so a turned
            pass finds some indices, blurred or half hidden, that the upright passes miss.
        stretches: the classifier also reads each index through windows widened and heightened by
            these factors and averages (:attr:`IndexReader.stretches`); photos only.
        fine_scale: one more locator pass at this fraction of ``imgsz`` (never larger than
            ``fine_zoom`` times the photo), run only when the indices the ``scales`` passes found
            are small: their median short side under ``fine_below`` pixels of the ``imgsz`` pass,
            or none found surely. It adds only its boxes under that size. A whole table in one photo shows indices a few
            pixels tall at ``imgsz``; a close-up is left alone, where a larger pass reads picture
            details as indices.
        fine_zoom: how far the fine pass may enlarge the photo (``1``: never). Enlarged, an index
            too small for the locator at the photo's own size comes into the sizes it learnt; the
            pass adds only small boxes, so the picture details it reads as indices stay out.
        min_contrast: an image whose grey levels (0.5th to 99.5th percentile) span fewer than this
            many is stretched until they do (:func:`vision.detector.contrast.stretch_contrast`): a
            washed-out photo; ``None`` or ``0``: every image read as given.
        rescorer: path of the reading rescorer (:mod:`vision.detector.rescorer`) for photos, relative to
            the JSON file: each reading's score is then its fitted probability of being right, from
            the box's readings and its neighbours', instead of :func:`~vision.detector.grouping.corner_score`.
            Table frames never use it: they are read by their own classifier and at thresholds measured
            on plain scores.
        rescorer_conf: the score threshold for photos when they are rescored (``conf`` stays the plain
            scores' threshold, for a detector of these weights without the rescorer).
        table_classifier: path of the classifier for table frames, relative to the JSON file; ``None``:
            ``classifier``. A table camera is a webcam, often out of focus, while photos are sharp: a
            classifier trained on blurred crops as well reads the one better and the other worse.
        context_classifier: path of a context classifier (``detector train classifier --pad 1.5``), relative to
            the JSON file, for photos: it reads a window four times each box, with the card's pips or
            picture beside the index, and the rescorer reads its probabilities
            (:data:`~vision.detector.rescorer.CONTEXT_FEATURES`). Only a rescorer fitted with it uses it.
        table_conf, table_locate_conf, table_locate_weight, table_min_contrast: ``conf``,
            ``locate_conf``, ``locate_weight`` and ``min_contrast`` for table frames (``None``: the photo
            values). The table pipeline was measured at its own
            operating point, so tuning the photo one must not move it.
    """

    target: str = "corners"
    classifier: str | None = None
    refiner: str | None = None
    imgsz: int = 640
    conf: float = 0.25
    table_imgsz: int | None = None
    locate_conf: float | None = None
    locate_weight: float = 0.5
    scales: tuple[float, ...] = (1.0,)
    turned_scales: tuple[float, ...] = ()
    stretches: tuple[float, ...] = ()
    fine_scale: float | None = None
    fine_below: float = 12.0
    fine_zoom: float = 1.0
    table_conf: float | None = None
    table_locate_conf: float | None = None
    table_locate_weight: float | None = None
    min_contrast: float | None = None
    table_min_contrast: float | None = None
    table_classifier: str | None = None
    rescorer: str | None = None
    rescorer_conf: float | None = None
    context_classifier: str | None = None

    @staticmethod
    def path_for(model: Path) -> Path:
        stem = model.name[: -len(OPENVINO_SUFFIX)] if model.name.endswith(OPENVINO_SUFFIX) else model.stem
        return model.parent / f"{stem}.json"

    @classmethod
    def load(cls, model: Path) -> ModelCard:
        path = cls.path_for(model)
        if not path.exists():
            return cls()
        data = json.loads(path.read_text())
        names = (
            "target",
            "classifier",
            "refiner",
            "imgsz",
            "conf",
            "table_imgsz",
            "locate_conf",
            "locate_weight",
            "fine_scale",
            "fine_below",
            "fine_zoom",
            "table_conf",
            "table_locate_conf",
            "table_locate_weight",
            "min_contrast",
            "table_min_contrast",
            "table_classifier",
            "rescorer",
            "rescorer_conf",
            "context_classifier",
        )
        fields = {k: data[k] for k in names if k in data}
        for key in ("scales", "turned_scales", "stretches"):
            if key in data:
                fields[key] = tuple(float(s) for s in data[key])
        return cls(**fields)

    def save(self, model: Path, **extra: Any) -> Path:
        path = self.path_for(model)
        data = {"target": self.target, "classifier": self.classifier, "imgsz": self.imgsz, "conf": self.conf, **extra}
        if self.refiner is not None:
            data.setdefault("refiner", self.refiner)
        if self.table_imgsz is not None:
            data.setdefault("table_imgsz", self.table_imgsz)
        if self.locate_conf is not None:
            data.setdefault("locate_conf", self.locate_conf)
        data.setdefault("locate_weight", self.locate_weight)
        if self.scales != (1.0,):
            data.setdefault("scales", list(self.scales))
        if self.turned_scales:
            data.setdefault("turned_scales", list(self.turned_scales))
        if self.stretches:
            data.setdefault("stretches", list(self.stretches))
        if self.fine_scale is not None:
            data.setdefault("fine_scale", self.fine_scale)
            data.setdefault("fine_below", self.fine_below)
            if self.fine_zoom != 1.0:
                data.setdefault("fine_zoom", self.fine_zoom)
        for key in (
            "table_conf",
            "table_locate_conf",
            "table_locate_weight",
            "min_contrast",
            "table_min_contrast",
            "table_classifier",
            "rescorer",
            "rescorer_conf",
            "context_classifier",
        ):
            if getattr(self, key) is not None:
                data.setdefault(key, getattr(self, key))
        path.write_text(json.dumps(data, indent=2) + "\n")
        return path

    def for_table(self) -> ModelCard:
        """The settings for whole table frames: the ``table_*`` values where given, one locator pass, one
        classifier view.

        The table pipeline shows the locator only the trick area at its own size (``vision.table.focus``),
        so it has no use for a fine pass.

        >>> card = ModelCard(
        ...     imgsz=320, conf=0.35, table_imgsz=640, locate_conf=0.05, table_conf=0.4, table_locate_conf=0.2,
        ...     scales=(1.2, 1.0), stretches=(1.3,), fine_scale=2.0,
        ... )
        >>> table = card.for_table()
        >>> table.imgsz, table.conf, table.locate_conf, table.locate_weight
        (640, 0.4, 0.2, 0.5)
        >>> table.scales, table.stretches, table.fine_scale
        ((1.0,), (), None)
        >>> card = ModelCard(classifier="c.pt", table_classifier="t.pt", rescorer="r.json", context_classifier="x.pt")
        >>> table = card.for_table()
        >>> table.classifier, table.rescorer, table.context_classifier
        ('t.pt', None, None)
        """
        return replace(
            self,
            classifier=self.table_classifier or self.classifier,
            rescorer=None,
            context_classifier=None,
            rescorer_conf=None,
            imgsz=self.table_imgsz or self.imgsz,
            conf=self.conf if self.table_conf is None else self.table_conf,
            locate_conf=self.locate_conf if self.table_locate_conf is None else self.table_locate_conf,
            locate_weight=self.locate_weight if self.table_locate_weight is None else self.table_locate_weight,
            min_contrast=self.min_contrast if self.table_min_contrast is None else self.table_min_contrast,
            scales=(1.0,),
            turned_scales=(),
            stretches=(),
            fine_scale=None,
        )


def _load_reader(checkpoint: Path, model: Path) -> Any:
    """A classifier checkpoint beside ``model``, run by onnxruntime when ``model`` is an export."""
    from dokocam.vision.detector.classifier import IndexReader

    reader = IndexReader.load(checkpoint)
    if model.suffix == ".onnx" or model.name.endswith(OPENVINO_SUFFIX):
        # An exported locator is asked for speed; the classifier's export gives it too.
        reader = reader.using_onnx(checkpoint)
    return reader


def from_ultralytics(result: Any) -> Detections:
    """Adapter: one Ultralytics ``Results`` to :class:`Detections` (class ids as the model numbers them)."""
    boxes = result.boxes
    if boxes is None or len(boxes) == 0:
        return Detections.empty()
    return Detections(
        xyxy=boxes.xyxy.cpu().numpy(),
        confidence=boxes.conf.cpu().numpy(),
        class_id=boxes.cls.cpu().numpy().astype(np.int64),
    )


def pass_size(imgsz: int, scale: float) -> int:
    """The inference size of one locator pass: ``imgsz * scale`` to the nearest step of YOLO's 32-pixel grid.

    >>> pass_size(320, 1.2), pass_size(320, 0.8), pass_size(320, 1.25), pass_size(320, 0.01)
    (384, 256, 416, 32)
    """
    return max(32, int(imgsz * scale / 32 + 0.5) * 32)


def fine_pass_size(imgsz: int, fine_scale: float, side: int, zoom: float = 1.0) -> int:
    """The fine pass's size: ``fine_scale`` of ``imgsz``, but at most ``zoom`` times the photo's long ``side``.

    >>> fine_pass_size(320, 2.0, 1280), fine_pass_size(320, 2.0, 480)
    (640, 480)
    >>> fine_pass_size(320, 3.0, 640, zoom=2.0), fine_pass_size(320, 3.0, 400, zoom=2.0)
    (960, 800)
    """
    return min(pass_size(imgsz, fine_scale), pass_size(side, zoom))


def turned_back(xyxy: np.ndarray, width: int) -> np.ndarray:
    """Boxes found on ``np.rot90(image)`` (a quarter turn anticlockwise) in the pixels of ``image``,
    ``width`` pixels wide: a point ``(x, y)`` of the turned photo is ``(width - y, x)`` of the photo.

    >>> image = np.zeros((4, 6)); image[1:3, 4:6] = 1  # rows 1-2, columns 4-5
    >>> rows, cols = np.nonzero(np.rot90(image))
    >>> turned_back(np.array([[cols.min(), rows.min(), cols.max() + 1, rows.max() + 1]]), 6).tolist()
    [[4.0, 1.0, 6.0, 3.0]]
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    return np.stack([width - xyxy[:, 3], xyxy[:, 0], width - xyxy[:, 1], xyxy[:, 2]], 1)


FINE_SURE = 0.25  # the locator's score of a box that counts when judging the indices' size


def wants_fine_pass(found: Detections, image_side: int, imgsz: int, below: float) -> bool:
    """Whether a photo's indices are too small for the ``imgsz`` passes: the median short side of
    the surely located boxes, in pixels of an ``imgsz`` pass over the photo's long side
    ``image_side``, is under ``below``; or no box was located surely.

    >>> boxes = Detections(
    ...     xyxy=np.array([[0.0, 0, 14, 20], [50, 50, 66, 70], [9, 9, 90, 90]]),
    ...     confidence=np.array([0.9, 0.8, 0.1]),
    ...     class_id=np.zeros(3, np.int64),
    ... )
    >>> wants_fine_pass(boxes, 640, 320, 12.0), wants_fine_pass(boxes, 640, 320, 6.0)
    (True, False)
    >>> wants_fine_pass(Detections.empty(), 640, 320, 12.0)
    True
    """
    sure = found.xyxy[found.confidence >= FINE_SURE]
    if len(sure) == 0:
        return True
    return bool(np.median(short_side(sure)) * imgsz / image_side < below)


def merge_passes(passes: list[Detections], iou: float, sizes: list[int] | None = None) -> Detections:
    """One box per object from several locator passes: greedy NMS over their union, best score first.

    With each pass's inference size in ``sizes``, a kept box takes the corners of the box from the
    largest pass among those it suppresses (its score stays its own). A coarse pass draws a small
    index up to half as big again as it is. On 300 generated scenes such boxes (the right card,
    centred, 1.47x as wide as the label in the median) were 36 of the 215 false positives scoring
    0.3 or more, each also a miss at IoU 0.5. The finest pass has the most pixels to place a box with.

    >>> coarse = Detections(xyxy=[[9, 9, 21, 23]], confidence=[0.9], class_id=[0])
    >>> fine = Detections(xyxy=[[10, 10, 20, 22]], confidence=[0.7], class_id=[0])
    >>> m = merge_passes([coarse, fine], 0.6, sizes=[256, 640])
    >>> m.xyxy.tolist(), [round(float(c), 2) for c in m.confidence], m.data["votes"].tolist()
    ([[10.0, 10.0, 20.0, 22.0]], [0.9], [2.0])

    ``data["votes"]`` counts the passes that found each kept box (a box overlapping it by more than
    ``iou``): an index seen at several sizes is surer than one a single pass saw.
    """
    found = Detections.merge(passes)
    if len(passes) == 1 or len(found) < 2:
        return found.with_columns(data={**found.data, "votes": np.ones(len(found))})
    origin = np.concatenate([np.full(len(p), k) for k, p in enumerate(passes)])
    size = (
        np.concatenate([np.full(len(p), s) for p, s in zip(passes, sizes, strict=True)])
        if sizes is not None
        else np.zeros(len(found))
    )
    overlap = box_iou(found.xyxy, found.xyxy)
    xyxy = found.xyxy.copy()
    left = np.ones(len(found), bool)
    keep = []
    for i in np.argsort(-found.confidence, kind="stable"):
        if not left[i]:
            continue
        # torchvision's rule: boxes overlapping the kept one by more than ``iou`` go.
        cluster = np.flatnonzero(left & (overlap[i] > iou))
        cluster = cluster[cluster != i]
        left[cluster] = left[i] = False
        keep.append(i)
        if len(cluster) and size[cluster].max() > size[i]:
            finest = cluster[size[cluster] == size[cluster].max()]
            xyxy[i] = found.xyxy[finest[np.argmax(found.confidence[finest])]]
    rows = np.sort(np.asarray(keep, np.int64))
    votes = np.array(
        [len(np.unique(origin[(overlap[i] > iou) | (np.arange(len(found)) == i)])) for i in rows], np.float64
    )
    return found.with_columns(xyxy=xyxy)[rows].with_columns(data={**found[rows].data, "votes": votes})


def _one_core_session(yolo: Any, path: Path) -> None:
    """Gives a pass thread's ONNX locator a session that runs on one core and sleeps when idle.

    onnxruntime's default is one spinning thread per core; two pass threads with that on two cores
    fight each other (one photo's passes took 46 ms of locating, against 42 ms in one thread and
    28 ms with this). Ultralytics takes no session options, so the session its predictor built on
    the first pass is replaced by one of the same file; where that attribute is not found (another
    Ultralytics version) the default session stays, only slower.
    """
    backend = getattr(getattr(getattr(yolo, "predictor", None), "model", None), "backend", None)
    if backend is None or getattr(backend, "session", None) is None:
        return
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    backend.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image from disk.

    Raises:
        UnreadableImageError: missing file or undecodable data.
    """
    import cv2

    if not Path(path).is_file():
        raise UnreadableImageError(f"{path}: no such file")
    image: np.ndarray | None = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise UnreadableImageError(f"{path}: not an image OpenCV can read")
    return image


@dataclass
class Timing:
    """Milliseconds spent in the last call, split like Ultralytics' predictor."""

    locate: float = 0.0
    classify: float = 0.0
    refine: float = 0.0
    group: float = 0.0
    passes: int = 0  # locator passes run

    @property
    def total(self) -> float:
        return self.locate + self.classify + self.refine + self.group


@dataclass
class CardDetector:
    """Finds Doppelkopf cards in BGR frames.

    Use :meth:`load`; then :meth:`detect` gives one row per corner index (or whole card) seen,
    :meth:`cards` one row per physical card, both with ``class_id`` = ``engine.Card.index``.
    """

    yolo: Any
    card: ModelCard
    reader: Any = None  # classifier.IndexReader or None
    refiner: Any = None  # refiner.BoxReader or None
    rescorer: Any = None  # rescorer.Rescorer or None
    context: Any = None  # a context classifier's classifier.IndexReader, read only for the rescorer
    conf: float = 0.25
    iou: float = 0.6
    imgsz: int = 640
    scales: tuple[float, ...] = (1.0,)
    turned_scales: tuple[float, ...] = ()
    fine_scale: float | None = None
    min_contrast: float | None = None
    workers: int = 1
    path: Path | None = None  # the weights file, for the per-thread copies of the locator
    timing: Timing = field(default_factory=Timing)
    _pool: ThreadPoolExecutor | None = field(default=None, init=False, repr=False)
    _local: threading.local = field(default_factory=threading.local, init=False, repr=False)

    @classmethod
    def load(
        cls,
        model: str | Path | None = None,
        *,
        conf: float | None = None,
        imgsz: int | None = None,
        table: bool = False,
        scales: tuple[float, ...] | None = None,
        stretches: tuple[float, ...] | None = None,
        fine_scale: float | None = None,
        min_contrast: float | None = None,
        workers: int = 1,
        turned_scales: tuple[float, ...] | None = None,
    ) -> CardDetector:
        """Loads a model (the shipped one by default).

        Args:
            model: ``.pt``, ``.onnx`` or ``*_openvino_model`` folder; its ``<stem>.json`` is read.
                ``None``: the shipped model, exported if it can be (:func:`default_model`).
            conf: score threshold; lower finds more cards and more false alarms.
            imgsz: inference size; larger sees smaller cards, at a higher cost.
            table: the frames are whole tables from above (the camera pipeline): use the model
                card's table settings (:meth:`ModelCard.for_table`); ``imgsz`` still overrides the size.
            scales: the locator's passes as fractions of ``imgsz`` (default: the model card's).
            turned_scales: its passes on the photo turned a quarter (default: the model card's; ``()``: none).
            stretches: the classifier's extra views (default: the model card's; ``()``: one view).
            fine_scale: the fine pass for small indices (default: the model card's; ``0``: none).
            min_contrast: grey levels a flatter image is stretched to span (default: the model card's; ``0``: none).
            workers: locator passes run at once, each thread with its own copy of the locator
                (Ultralytics predictors are not thread-safe). A photo's passes are independent, and
                one small network keeps only about one core busy, so on a 2-core machine two workers
                read a photo in about half the locator time. The boxes are the same for any number.

        Raises:
            ModelNotFoundError: the path does not exist.
            ValueError: ``workers`` is less than 1.
        """
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        path = Path(model) if model is not None else default_model()
        if not path.exists():
            raise ModelNotFoundError(
                f"no model at {path}: train one with `dokocam detector train locator` or pass --model"
            )
        from ultralytics import YOLO

        ultralytics_logs_to_stderr()
        card = ModelCard.load(path)
        if table:
            card = card.for_table()
        for part in (card.classifier, card.refiner, card.rescorer, card.context_classifier):
            if part and not (ModelCard.path_for(path).parent / part).exists():
                raise ModelNotFoundError(
                    f"{ModelCard.path_for(path)} names {part} beside the model, but there is no such file: copy it "
                    f"there or remove it from the card"
                )
        yolo = YOLO(str(path), task="detect")
        reader = None
        if card.classifier:
            reader = replace(
                _load_reader(ModelCard.path_for(path).parent / card.classifier, path),
                stretches=card.stretches if stretches is None else tuple(stretches),
            )
        refiner = None
        if card.refiner:
            from dokocam.vision.detector.refiner import BoxReader

            checkpoint = ModelCard.path_for(path).parent / card.refiner
            refiner = BoxReader.load(checkpoint)
            if path.suffix == ".onnx" or path.name.endswith(OPENVINO_SUFFIX):
                refiner = refiner.using_onnx(checkpoint)
        rescorer = None
        if card.rescorer and reader is not None:
            from dokocam.vision.detector.rescorer import Rescorer, RescorerFileError

            try:
                rescorer = Rescorer.load(ModelCard.path_for(path).parent / card.rescorer)
            except RescorerFileError as exc:
                raise ModelNotFoundError(str(exc)) from None
        if rescorer is not None and rescorer.needs_context and not card.context_classifier:
            raise ModelNotFoundError(
                f"{card.rescorer} reads a context classifier's probabilities, but {ModelCard.path_for(path)} names no "
                f"context_classifier"
            )
        context = (
            _load_reader(ModelCard.path_for(path).parent / card.context_classifier, path)
            if card.context_classifier and reader is not None
            else None
        )
        return cls(
            yolo=yolo,
            card=card,
            reader=reader,
            refiner=refiner,
            rescorer=rescorer,
            context=context,
            conf=(card.rescorer_conf if rescorer is not None and card.rescorer_conf is not None else card.conf)
            if conf is None
            else conf,
            imgsz=imgsz or card.imgsz,
            scales=scales or card.scales,
            turned_scales=card.turned_scales if turned_scales is None else tuple(turned_scales),
            fine_scale=(card.fine_scale if fine_scale is None else fine_scale) or None,
            min_contrast=(card.min_contrast if min_contrast is None else min_contrast) or None,
            workers=workers,
            path=path,
        )

    def detect(self, image: np.ndarray) -> Detections:
        """What the YOLO saw, read by the classifier if there is one: one row per corner index (or
        whole card) seen; a second box on an index, read as the same card, is fused into the surer one
        (``drop_twins``).

        ``data["kind"]`` is ``0`` for a corner index, ``1`` for a whole card.
        """
        return drop_twins(self.reads(image))

    def reads(self, image: np.ndarray, conf: float | None = None) -> Detections:
        """Every box the locator's passes kept, moved onto its index by the refiner and read by the
        classifier, scored ``conf`` (default: the detector's) or more; twins included (grouping joins
        a twin to its card, and the twin's reading is one more vote for the card). A box's score is
        :func:`~vision.detector.grouping.corner_score` of its card's probability and of how sure it is
        that an index is there at all (``data["located"]``: the locator's score times the classifier's
        probability that the crop is not background).

        The reads at a higher threshold are exactly those of a lower one that score that much
        (:meth:`at`): a box that could not reach a threshold is neither refined nor read again for it,
        and one that is, is treated the same at any lower threshold. (With a classifier this needs
        the model card's ``locate_conf``, as the shipped card has; without one the locator's own
        threshold follows ``conf``.)

        With a rescorer (photos, :mod:`vision.detector.rescorer`) every box whose plain score reaches
        the rescorer's floor is refined, read and rescored, whatever ``conf`` is: a box's new score
        depends on its neighbours'. Its score is then its likeliest reading's probability of being
        right, ``data["scores"]`` holds every card's, and its card is the likeliest of those.
        """
        conf = self.conf if conf is None else conf
        plain_conf = conf if self.rescorer is None else self.rescorer.floor
        image = self.prepared(image)
        found = self._locate(image, conf)
        self.timing.refine = self.timing.classify = 0.0
        if self.reader is None:
            return self._kind(found.with_columns(xyxy=self._refined(image, found.xyxy, np.ones(len(found), bool))))
        from dokocam.vision.yolo import BACKGROUND

        start = time.perf_counter()
        probs = self._read(image, found.xyxy)
        self.timing.classify = (time.perf_counter() - start) * 1000
        xyxy = found.xyxy
        if self.refiner is not None and len(found):
            # Both crops are read and averaged: the refined one is centred on the index, the located
            # one is framed as the classifier's training crops are (a locator's error around the
            # label). With one refinement round, seed 77 measured mAP50 0.9767 reading
            # the refined crop alone and 0.9776 both; real photos F1 0.900 and 0.907.
            # A box that could not reach ``conf`` even if its refined crop read as a certain card is
            # neither moved nor read again (the same boxes, in a fraction of the time).
            hopeful = (
                corner_score(found.confidence, (probs[:, :BACKGROUND].max(1) + 1) / 2, self.card.locate_weight)
                >= plain_conf
            )
            xyxy = self._refined(image, found.xyxy, hopeful)
            start = time.perf_counter()
            if hopeful.any():
                probs[hopeful] = (probs[hopeful] + self._read(image, xyxy[hopeful])) / 2
            self.timing.classify += (time.perf_counter() - start) * 1000
        # How sure it is that an index is there: the locator's score and the classifier's "not
        # background", both. This replaces a veto of boxes read as background first, which dropped
        # a half-hidden index read 45% as its card and 50% as background while keeping one read 45/50
        # between two cards. Pooled seeds 77/78/90: mAP50 0.9630 -> 0.9676, labels no
        # box found 120 -> 65, false positives at 0.35 71 -> 65; real photos F1 0.926 -> 0.928.
        located = found.confidence * (1 - probs[:, BACKGROUND])
        votes = found.data["votes"]
        best = probs[:, :BACKGROUND].argmax(1)
        score = corner_score(located, probs[np.arange(len(best)), best], self.card.locate_weight)
        if self.rescorer is not None:
            return self._kind(
                self._rescored(image, xyxy, probs[:, :BACKGROUND], located, votes, score >= plain_conf, conf)
            )
        keep = score >= conf
        # The card probabilities travel on: grouping lets two corners of one card outvote a misread.
        data = {"probs": probs[keep, :BACKGROUND], "located": located[keep], "votes": votes[keep]}
        if self.context is not None:  # what a rescorer is fitted on (``collect_readings``)
            data["context"] = self._context(image, xyxy[keep])
        return self._kind(Detections(xyxy=xyxy[keep], confidence=score[keep], class_id=best[keep], data=data))

    def _rescored(
        self,
        image: np.ndarray,
        xyxy: np.ndarray,
        probs: np.ndarray,
        located: np.ndarray,
        votes: np.ndarray,
        candidates: np.ndarray,
        conf: float,
    ) -> Detections:
        """The ``candidates`` rescored together (:attr:`rescorer`), those scoring ``conf`` or more."""
        xyxy, probs, located, votes = xyxy[candidates], probs[candidates], located[candidates], votes[candidates]
        context = self._context(image, xyxy) if self.context is not None and self.rescorer.needs_context else None
        start = time.perf_counter()
        scores = self.rescorer.scores(xyxy, probs, located, votes, context)
        best = scores.argmax(1) if len(scores) else np.zeros(0, np.int64)
        score = scores[np.arange(len(best)), best]
        keep = score >= conf
        self.timing.classify += (time.perf_counter() - start) * 1000
        return Detections(
            xyxy=xyxy[keep],
            confidence=score[keep],
            class_id=best[keep],
            data={"probs": probs[keep], "located": located[keep], "votes": votes[keep], "scores": scores[keep]},
        )

    def _context(self, image: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
        """The context classifier's probabilities (``(n, 25)``) for the boxes ``xyxy``."""
        start = time.perf_counter()
        probs = self._read(image, xyxy, self.context)
        self.timing.classify += (time.perf_counter() - start) * 1000
        return probs

    def _refined(self, image: np.ndarray, xyxy: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``xyxy`` with its ``rows`` moved onto their indices by the refiner (as they are without one)."""
        start = time.perf_counter()
        xyxy = xyxy.copy()
        if self.refiner is not None and rows.any():
            xyxy[rows] = self.refiner.refine(image, xyxy[rows])
        self.timing.refine = (time.perf_counter() - start) * 1000
        return xyxy

    def _kind(self, found: Detections) -> Detections:
        kind = 0 if self.card.target == "corners" else 1
        return found.with_columns(data={**found.data, "kind": np.full(len(found), kind, dtype=np.int64)})

    def prepared(self, image: np.ndarray) -> np.ndarray:
        """``image`` as the networks see it: its grey levels stretched when the model card says so."""
        if not self.min_contrast:
            return image
        from dokocam.vision.detector.contrast import stretch_contrast

        return stretch_contrast(image, self.min_contrast)

    def locate(self, image: np.ndarray, conf: float | None = None) -> Detections:
        """The boxes of the locator's passes, merged, before any classifier reads them (scores are the
        locator's), for detections scored ``conf`` (default: the detector's) or more."""
        return self._locate(self.prepared(image), conf)

    def _locate(self, image: np.ndarray, conf: float | None) -> Detections:
        start = time.perf_counter()
        conf = self.conf if conf is None else conf
        # With a classifier the locator runs at a lower threshold: the classifier scores false boxes down.
        if self.reader is not None:
            conf = self.card.locate_conf if self.card.locate_conf is not None else conf * 0.5
        sizes = [pass_size(self.imgsz, s) for s in self.scales]
        turned = [pass_size(self.imgsz, s) for s in self.turned_scales]
        passes = self._passes(image, sizes, conf, turned)
        sizes += turned
        if self.fine_scale is not None:
            side = max(image.shape[:2])
            size = fine_pass_size(self.imgsz, self.fine_scale, side, self.card.fine_zoom)
            if size > max(sizes) and wants_fine_pass(Detections.merge(passes), side, self.imgsz, self.card.fine_below):
                fine = self._pass(image, size, conf)
                # It adds only what the coarse passes cannot see: boxes small at ``imgsz``.
                passes.append(fine[short_side(fine.xyxy) * self.imgsz / side < self.card.fine_below])
                sizes.append(size)
        self.timing.passes = len(passes)
        found = merge_passes(passes, self.iou, sizes)
        self.timing.locate = (time.perf_counter() - start) * 1000
        return found

    def _pass(self, image: np.ndarray, size: int, conf: float, yolo: Any = None) -> Detections:
        """One locator pass, by ``yolo`` (a pass thread's own copy) or the detector's locator."""
        return from_ultralytics(
            (yolo or self.yolo).predict(image, imgsz=size, conf=conf, iou=self.iou, verbose=False, max_det=100)[0]
        )

    def _passes(
        self, image: np.ndarray, sizes: list[int], conf: float, turned: list[int] | tuple[int, ...] = ()
    ) -> list[Detections]:
        """One locator pass per size, in order, then one per ``turned`` size on the photo turned a
        quarter (its boxes turned back); spread over ``workers`` threads when there are several."""
        jobs = [(image, size) for size in sizes]
        if turned:
            quarter = np.ascontiguousarray(np.rot90(image))
            jobs += [(quarter, size) for size in turned]
        if self.workers == 1 or len(jobs) == 1 or self.path is None:
            found = [self._pass(frame, size, conf) for frame, size in jobs]
        else:
            pool = self._executor()
            # The largest pass first: the others fill the second thread meanwhile.
            order = sorted(range(len(jobs)), key=lambda k: -jobs[k][1])
            futures = {k: pool.submit(self._threaded_pass, jobs[k][0], jobs[k][1], conf) for k in order}
            found = [futures[k].result() for k in range(len(jobs))]
        width = image.shape[1]
        return found[: len(sizes)] + [f.with_columns(xyxy=turned_back(f.xyxy, width)) for f in found[len(sizes) :]]

    def _read(self, image: np.ndarray, xyxy: np.ndarray, reader: Any = None) -> np.ndarray:
        """``reader``'s (default: the classifier's) probabilities for ``xyxy``, its views shared by the workers'
        threads."""
        pool = self._executor() if self.workers > 1 else None
        reader = self.reader if reader is None else reader
        probs: np.ndarray = reader.probabilities(image, xyxy, pool=pool, shares=self.workers)
        return probs

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="detector")
        return self._pool

    def _threaded_pass(self, image: np.ndarray, size: int, conf: float) -> Detections:
        yolo = getattr(self._local, "yolo", None)
        first = yolo is None
        if yolo is None:
            from ultralytics import YOLO

            # Made in the thread that uses it, as Ultralytics' thread-safety guide asks.
            yolo = self._local.yolo = YOLO(str(self.path), task="detect")
        found = self._pass(image, size, conf, yolo)
        if first and self.path is not None and self.path.suffix == ".onnx":
            _one_core_session(yolo, self.path)
        return found

    def close(self) -> None:
        """Stops the pass threads (they are started on first use when ``workers`` > 1)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def cards(self, image: np.ndarray) -> Detections:
        """One row per physical card: its corner indices grouped (``data["corners"]`` counts them)."""
        return self._grouped(self.reads(image))

    def detect_and_group(self, image: np.ndarray) -> tuple[Detections, Detections]:
        """:meth:`detect` and :meth:`cards` of one image from one run of the locator and classifier
        (``dokocam eval`` scores both)."""
        return self.at(self.reads(image), self.conf)

    def detect_at(self, found: Detections, conf: float) -> Detections:
        """:meth:`detect` at threshold ``conf`` from :meth:`reads` at that or a lower one."""
        return drop_twins(found[found.confidence >= conf])

    def at(self, found: Detections, conf: float) -> tuple[Detections, Detections]:
        """:meth:`detect` and :meth:`cards` at threshold ``conf`` from :meth:`reads` at that or a lower one."""
        found = found[found.confidence >= conf]
        return drop_twins(found), self._grouped(found)

    def _grouped(self, found: Detections) -> Detections:
        start = time.perf_counter()
        if self.card.target == "corners":
            found = group_corners(found, locate_weight=self.card.locate_weight)
        else:
            found = found.with_columns(data={"corners": np.zeros(len(found), np.int64)})
        self.timing.group = (time.perf_counter() - start) * 1000
        return found

    def update(self, frame: np.ndarray) -> Detections:
        """The pipeline-stage form of :meth:`cards`."""
        return self.cards(frame)

    def reset(self) -> None:
        """Nothing to forget between games: detection is per frame."""


def iter_images(paths: list[str]) -> Iterator[Path]:
    """Image files named directly or found (sorted) inside directories."""
    from dokocam.vision.yolo import IMAGE_SUFFIXES

    for name in paths:
        path = Path(name)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
        else:
            yield path
