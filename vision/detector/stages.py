"""The detector's stages: each turns one image's :class:`Detections` into the next, with a frozen config and a timer.

A profile (:class:`~vision.detector.model.Profile`) lists their configs; :class:`~vision.detector.model.CardDetector`
builds the stages and runs them in order. Each stage is called as ``stage(frame, found) -> Detections``: ``frame``
carries the image as the networks see it and the thresholds of this call.

1. :class:`Locate` finds corner indices (YOLO, several passes merged; on the image's negative where the image shows
   almost none, or where a stream's frames have shown a deck printed light on dark stock); scores are the locator's.
2. :class:`Read` names the card of each box (an index classifier; ``data["probs"]`` with a background column).
3. :class:`Refine` moves each box that could still reach the threshold onto its index and reads it again.
4. :class:`Score` scores each box from its locator score and its reading and keeps those that reach the threshold.
5. :class:`Rescore` scores each reading again from its neighbours' readings (a small MLP, photos only).
6. :class:`Group` joins the corner indices of one physical card into one row.
7. :class:`Match` reads each card seen by two corners again by its whole face, against an enrolled deck's faces
   (only a deck's detectors have it: :func:`~vision.decks.adapt.deck_detector`).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from dokocam.vision.detections import Detections
from dokocam.vision.detector.faces import colourless
from dokocam.vision.detector.grouping import corner_score, group_corners
from dokocam.vision.detector.matching import box_iou, short_side

SURE = 0.25  # the locator's score of a box located surely (judging the indices' size, the print's polarity)
# Fewer indices located surely than this, and the image's negative is tried (a dark deck shows a stray box or two).
NEGATIVE_BELOW = 3
NEGATIVE_MODES = ("off", "frame", "stream")
# Frames of a stream that show one print surely (and three times as many as show the other) before the stream's
# deck is read so for good: a stray reading of one frame never decides it.
STREAM_VOTES = 5
# A pixel whose grey level differs by more than this from the stream's first frame has changed (a card came, a hand).
CHANGED_LEVEL = 30
# An index read through the negative shows the deck only where this share of its box changed since the stream's
# first frame: the table itself does not change, and the negative of a patterned cloth shows index-like marks.
CHANGED_SHARE = 0.2


@dataclass
class Frame:
    """One image on its way through the stages.

    Attributes:
        image: the image the networks read.
        conf: the score the detections of this call must reach.
        floor: the plain score a box must reach to go on to a rescorer (``conf`` without one).
    """

    image: np.ndarray
    conf: float
    floor: float


@dataclass(frozen=True)
class LocateConfig:
    """Attributes:
    imgsz: the locator's inference size.
    conf: the locator's own threshold (``None``: the call's, halved when a classifier reads the boxes).
    scales: a pass at each of these fractions of ``imgsz``, merged (one box per index).
    fine_scale: one more pass at this fraction of ``imgsz`` (at most ``fine_zoom`` times the image), run only
        when the indices found are small (median short side under ``fine_below`` pixels of the ``imgsz``
        pass, or none found surely); it adds only its boxes under that size.
    iou: boxes of the passes overlapping more than this are one index.
    negative: light print on dark card stock (a black deck with gold or white ink) is read from the image's
        negative, which shows the dark print on light stock the networks know. ``"frame"``: when the passes
        locate fewer than :data:`NEGATIVE_BELOW` indices surely, they run again on the negative, and the stages
        after read the negative where it shows more surely. ``"stream"`` (a camera's frames of one deck): the
        deck's print is decided once, when :data:`STREAM_VOTES` frames agree (:meth:`Locate.vote`: the print
        located surely as it is, or indices read surely only through the negative), and every later frame is
        read so (until :meth:`Locate.reset`); frames before that are read as they are. A frame with few
        indices (an empty trick, its first card) cannot then let a stray reading of the negative win.
        ``"off"``: images are read as they are.
    """

    stage: ClassVar[str] = "locate"
    imgsz: int = 640
    conf: float | None = None
    scales: tuple[float, ...] = (1.0,)
    fine_scale: float | None = None
    fine_below: float = 12.0
    fine_zoom: float = 1.0
    iou: float = 0.6
    negative: str = "off"

    def __post_init__(self) -> None:
        if self.negative not in NEGATIVE_MODES:
            raise ValueError(f"locate: negative is one of {', '.join(NEGATIVE_MODES)}, not {self.negative!r}")


@dataclass(frozen=True)
class ReadConfig:
    """Attributes:
    classifier: the index classifier's checkpoint, relative to the model card.
    stretches: more views per crop, widened and heightened by these factors (:attr:`IndexReader.stretches`).
    """

    stage: ClassVar[str] = "read"
    classifier: str = ""
    stretches: tuple[float, ...] = ()


@dataclass(frozen=True)
class RefineConfig:
    """Attributes:
    refiner: the box refiner's checkpoint (:mod:`vision.detector.refiner`), relative to the model card.
    """

    stage: ClassVar[str] = "refine"
    refiner: str = ""


@dataclass(frozen=True)
class ScoreConfig:
    """The weight of the locator in a score is the profile's ``locate_weight``.

    Attributes:
        conf: the threshold of these plain scores for a detector of this profile without its rescore stage
            (a rescore stage keeps the boxes from its rescorer's floor on); ``None``: the profile's.
    """

    stage: ClassVar[str] = "score"
    conf: float | None = None


@dataclass(frozen=True)
class RescoreConfig:
    """Attributes:
    rescorer: the reading rescorer (:mod:`vision.detector.rescorer`), relative to the model card (``None``: the
        stage only adds the context classifier's reading, what a rescorer is fitted on).
    context_classifier: a classifier reading a window four times each box, whose probabilities the
        rescorer reads (``None``: a rescorer fitted without them).
    """

    stage: ClassVar[str] = "rescore"
    rescorer: str | None = None
    context_classifier: str | None = None


@dataclass(frozen=True)
class GroupConfig:
    """No settings: corner indices of one card are grouped with the profile's ``locate_weight``."""

    stage: ClassVar[str] = "group"


@dataclass(frozen=True)
class MatchConfig:
    """The size at which a card and the deck's faces are compared is the templates'
    (:class:`~vision.detector.faces.FaceTemplates`).

    Attributes:
        temperature: how far apart two faces' errors must be for one to be ``e`` times as probable as the other.
    """

    stage: ClassVar[str] = "match"
    temperature: float = 0.1


StageConfig = LocateConfig | ReadConfig | RefineConfig | ScoreConfig | RescoreConfig | GroupConfig | MatchConfig
CONFIGS: dict[str, type[StageConfig]] = {
    c.stage: c for c in (LocateConfig, ReadConfig, RefineConfig, ScoreConfig, RescoreConfig, GroupConfig, MatchConfig)
}


def config_from_dict(data: dict[str, Any]) -> StageConfig:
    """A stage config from its card entry (``{"stage": "locate", "imgsz": 320, ...}``).

    Raises:
        ValueError: an unknown stage or setting.

    >>> config_from_dict({"stage": "locate", "imgsz": 320, "scales": [1.2, 1.0]})  # doctest: +NORMALIZE_WHITESPACE
    LocateConfig(imgsz=320, conf=None, scales=(1.2, 1.0), fine_scale=None, fine_below=12.0, fine_zoom=1.0, iou=0.6,
                 negative='off')
    """
    data = dict(data)
    name = data.pop("stage", None)
    if name not in CONFIGS:
        raise ValueError(f"unknown stage {name!r}: the stages are {', '.join(CONFIGS)}")
    kind = CONFIGS[name]
    known = {f.name for f in fields(kind)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"stage {name!r} has no setting {', '.join(unknown)}: it takes {', '.join(sorted(known))}")
    settings: dict[str, Any] = {k: tuple(float(x) for x in v) if isinstance(v, list) else v for k, v in data.items()}
    if isinstance(settings.get("negative"), bool):  # a card that says true or false: per frame, or never
        settings["negative"] = "frame" if settings["negative"] else "off"
    return kind(**settings)


def config_to_dict(config: StageConfig) -> dict[str, Any]:
    """A stage config as its card entry: the stage's name and every setting.

    >>> config_to_dict(LocateConfig(imgsz=320, scales=(1.2, 1.0)))  # doctest: +NORMALIZE_WHITESPACE
    {'stage': 'locate', 'imgsz': 320, 'conf': None, 'scales': [1.2, 1.0], 'fine_scale': None, 'fine_below': 12.0,
     'fine_zoom': 1.0, 'iou': 0.6, 'negative': 'off'}
    """
    out: dict[str, Any] = {"stage": config.stage}
    for f in fields(config):
        value = getattr(config, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


class Stage:
    """One step of a profile: ``stage(frame, found) -> Detections``, timed (:attr:`ms`, the last call's)."""

    name: ClassVar[str] = ""
    config: Any
    ms: float = 0.0

    def __call__(self, frame: Frame, found: Detections) -> Detections:
        start = time.perf_counter()
        try:
            return self.run(frame, found)
        finally:
            self.ms = (time.perf_counter() - start) * 1000

    def run(self, frame: Frame, found: Detections) -> Detections:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config})"


class Locate(Stage):
    """The locator's passes over the image, merged: one box per index, scored by the locator, ``data["votes"]``
    counting the passes that found it. The incoming detections are replaced.

    Args:
        yolo: an Ultralytics ``YOLO``.
        read: whether a classifier reads the boxes (the locator's threshold is then half the call's, unless set).
        path: the weights file, for each pass thread's own copy of the locator.
        workers: passes run at once, each thread with its own copy (Ultralytics predictors are not thread-safe).
    """

    name = "locate"

    def __init__(
        self, config: LocateConfig, yolo: Any, *, read: bool, path: Path | None = None, workers: int = 1
    ) -> None:
        self.config = config
        self.yolo = yolo
        self.read = read
        self.path = path
        self.workers = workers
        self.passes = 0  # the passes of the last call
        self.sure = 0  # the indices the last call located surely
        self.print: str | None = None  # a stream's deck once decided ("light" or "dark"), with negative "stream"
        self._shown = {"light": 0, "dark": 0}  # frames of the stream that showed each print surely
        self._first: np.ndarray | None = None  # the stream's first frame (grey), while its print is undecided
        self._pool: ThreadPoolExecutor | None = None
        self._local = threading.local()

    def reset(self) -> None:
        """Forgets the stream's print: the next frames decide it again (another deck, another camera)."""
        self.print = None
        self._shown = {"light": 0, "dark": 0}
        self._first = None

    def run(self, frame: Frame, found: Detections) -> Detections:
        c, image = self.config, frame.image
        conf = frame.conf
        # With a classifier the locator runs at a lower threshold: the classifier scores false boxes down.
        if self.read:
            conf = c.conf if c.conf is not None else conf * 0.5
        sizes = [pass_size(c.imgsz, s) for s in c.scales]
        if self.print == "dark" and c.negative == "stream":
            image = frame.image = 255 - image
        passes = self._passes(image, sizes, conf)
        tried = len(passes)
        sure = self.sure = _sure(passes)
        if c.negative == "frame" and sure < NEGATIVE_BELOW:
            negative = 255 - image
            other = self._passes(negative, sizes, conf)
            tried += len(other)
            if _sure(other) > sure:
                image = frame.image = negative
                passes = other
        if c.fine_scale is not None:
            side = max(image.shape[:2])
            size = fine_pass_size(c.imgsz, c.fine_scale, side, c.fine_zoom)
            if size > max(sizes) and wants_fine_pass(Detections.merge(passes), side, c.imgsz, c.fine_below):
                fine = self._pass(image, size, conf)
                # It adds only what the coarse passes cannot see: boxes small at ``imgsz``.
                passes.append(fine[short_side(fine.xyxy) * c.imgsz / side < c.fine_below])
                sizes.append(size)
                tried += 1
        self.passes = tried
        return merge_passes(passes, c.iou, sizes)

    @property
    def deciding(self) -> bool:
        """Whether a stream's print is still to be decided (negative ``"stream"``, see :meth:`vote`)."""
        return self.config.negative == "stream" and self.print is None

    def vote(self, image: np.ndarray, plain: int, negative: np.ndarray | None) -> None:
        """One frame's evidence of the stream's print: ``plain`` indices read surely in ``image`` as it is, and
        ``negative`` the boxes of those read surely through its negative (``None``: not tried, because the
        locator found the plain print surely).

        Only indices a classifier read count for the negative (the negative of a patterned cloth shows the
        locator dozens of index-like marks), and only where the frame changed since the stream's first frame:
        a deck's print shows on the cards that come onto the table, never on the table itself, whose negative
        the stages may read as a few indices surely in every frame. What lay there from the stream's first
        frame is judged once something new comes."""
        import cv2

        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        grey = cv2.GaussianBlur(grey, (5, 5), 0).astype(np.int16)
        if self._first is None or self._first.shape != grey.shape:
            self._first = grey  # the first frame, or a new view (the trick area grew or shrank): nothing came yet
        if negative is None:
            self._shown["light"] += 1
        elif (arrived := self._arrived(grey, negative)) >= NEGATIVE_BELOW and arrived > plain:
            self._shown["dark"] += 1
        self._decide()

    def _arrived(self, grey: np.ndarray, boxes: np.ndarray) -> int:
        """How many of ``boxes`` lie where ``grey`` (blurred) changed since the stream's first frame."""
        assert self._first is not None
        changed = np.abs(grey - self._first) > CHANGED_LEVEL
        height, width = changed.shape
        arrived = 0
        for x1, y1, x2, y2 in np.asarray(boxes, dtype=np.float64).reshape(-1, 4):
            x1, x2 = int(np.clip(x1, 0, width - 1)), int(np.clip(np.ceil(x2), 1, width))
            y1, y2 = int(np.clip(y1, 0, height - 1)), int(np.clip(np.ceil(y2), 1, height))
            arrived += bool(changed[y1 : max(y2, y1 + 1), x1 : max(x2, x1 + 1)].mean() >= CHANGED_SHARE)
        return arrived

    def _decide(self) -> None:
        """Settles the stream's print once one has shown itself surely often enough, and far more than the other."""
        light, dark = self._shown["light"], self._shown["dark"]
        if light >= STREAM_VOTES and light >= 3 * dark:
            self.print = "light"
        elif dark >= STREAM_VOTES and dark >= 3 * light:
            self.print = "dark"

    def _pass(self, image: np.ndarray, size: int, conf: float, yolo: Any = None) -> Detections:
        """One locator pass, by ``yolo`` (a pass thread's own copy) or the stage's locator."""
        result = (yolo or self.yolo).predict(
            image, imgsz=size, conf=conf, iou=self.config.iou, verbose=False, max_det=100
        )
        return from_ultralytics(result[0])

    def _passes(self, image: np.ndarray, sizes: list[int], conf: float) -> list[Detections]:
        """One pass per size, in order, spread over ``workers`` threads when there are several."""
        if self.workers == 1 or len(sizes) == 1 or self.path is None:
            return [self._pass(image, size, conf) for size in sizes]
        pool = self.executor()
        # The largest pass first: the others fill the second thread meanwhile.
        order = sorted(range(len(sizes)), key=lambda k: -sizes[k])
        futures = {k: pool.submit(self._threaded_pass, image, sizes[k], conf) for k in order}
        return [futures[k].result() for k in range(len(sizes))]

    def executor(self) -> ThreadPoolExecutor:
        """The pass threads (shared with the classifier's views), started on first use."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="detector")
        return self._pool

    def _threaded_pass(self, image: np.ndarray, size: int, conf: float) -> Detections:
        yolo = getattr(self._local, "yolo", None)
        first = yolo is None
        if yolo is None:
            from dokocam.vision.yolo import ultralytics_yolo

            YOLO = ultralytics_yolo()
            # Made in the thread that uses it, as Ultralytics' thread-safety guide asks.
            yolo = self._local.yolo = YOLO(str(self.path), task="detect")
        found = self._pass(image, size, conf, yolo)
        if first and self.path is not None and self.path.suffix == ".onnx":
            _one_core_session(yolo, self.path)
        return found

    def close(self) -> None:
        """Stops the pass threads."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


@dataclass
class Reading:
    """What :class:`Read` and :class:`Refine` share: the classifier, the profile's locator weight, the threads."""

    reader: Any  # classifier.IndexReader
    locate_weight: float
    pool: Any = None  # a callable giving a ThreadPoolExecutor, or None
    workers: int = 1

    def probabilities(self, image: np.ndarray, xyxy: np.ndarray, reader: Any = None) -> np.ndarray:
        """``reader``'s (default: the classifier's) probabilities for ``xyxy`` (``(n, 25)``)."""
        pool = self.pool() if self.pool is not None and self.workers > 1 else None
        probs: np.ndarray = (reader or self.reader).probabilities(image, xyxy, pool=pool, shares=self.workers)
        return probs

    def scored(self, found: Detections, probs: np.ndarray, xyxy: np.ndarray | None = None) -> Detections:
        """``found`` (boxes ``xyxy``) read as ``probs``: its card, its score, ``data["located"]``.

        How sure it is that an index is there is the locator's score and the classifier's "not background",
        both; a box read as background is scored down, not vetoed, so a half-hidden index read 45% as its
        card and 50% as background stays.
        """
        from dokocam.vision.yolo import BACKGROUND

        locator = found.data["locator"]
        located = locator * (1 - probs[:, BACKGROUND])
        best = probs[:, :BACKGROUND].argmax(1)
        score = corner_score(located, probs[np.arange(len(best)), best], self.locate_weight)
        return Detections(
            xyxy=found.xyxy if xyxy is None else xyxy,
            confidence=score,
            class_id=best,
            data={**found.data, "probs": probs, "located": located},
        )


class Read(Stage):
    """Names the card of each box: ``data["probs"]`` (24 cards and background), ``data["located"]``, the score
    (:func:`~vision.detector.grouping.corner_score`) as confidence; ``data["locator"]`` keeps the locator's."""

    name = "read"

    def __init__(self, config: ReadConfig, reading: Reading) -> None:
        self.config = config
        self.reading = reading

    def run(self, frame: Frame, found: Detections) -> Detections:
        probs = self.reading.probabilities(frame.image, found.xyxy)
        located = found.with_columns(data={**found.data, "locator": found.confidence})
        return self.reading.scored(located, probs)


class Refine(Stage):
    """Moves boxes onto their indices (a small CNN); after :class:`Read`, only the boxes that could still reach
    the frame's floor, whose refined crops are read too and averaged with their first reading.

    Both crops are read: the refined one is centred on the index, the located one is framed as the
    classifier's training crops are (a locator's error around the label). A box that could not reach the
    floor even if its refined crop read as a certain card is neither moved nor read again.
    """

    name = "refine"

    def __init__(self, config: RefineConfig, refiner: Any, reading: Reading | None) -> None:
        self.config = config
        self.refiner = refiner
        self.reading = reading

    def run(self, frame: Frame, found: Detections) -> Detections:
        if self.reading is None:
            xyxy = self.refiner.refine(frame.image, found.xyxy) if len(found) else found.xyxy.copy()
            return found.with_columns(xyxy=xyxy)
        if not len(found):
            return found
        from dokocam.vision.yolo import BACKGROUND

        probs = found.data["probs"].copy()
        hope = (probs[:, :BACKGROUND].max(1) + 1) / 2
        hopeful = corner_score(found.data["locator"], hope, self.reading.locate_weight) >= frame.floor
        xyxy = found.xyxy.copy()
        if not hopeful.any():
            return found
        xyxy[hopeful] = self.refiner.refine(frame.image, xyxy[hopeful])
        probs[hopeful] = (probs[hopeful] + self.reading.probabilities(frame.image, xyxy[hopeful])) / 2
        return self.reading.scored(found, probs, xyxy)


class Score(Stage):
    """Keeps the boxes whose score reaches the frame's floor, with the columns the next stages read
    (``data["probs"]`` of the 24 cards, ``data["located"]``, ``data["votes"]``)."""

    name = "score"

    def __init__(self, config: ScoreConfig) -> None:
        self.config = config

    def run(self, frame: Frame, found: Detections) -> Detections:
        from dokocam.vision.yolo import BACKGROUND

        keep = found.confidence >= frame.floor
        data = {"probs": found.data["probs"][keep, :BACKGROUND], "located": found.data["located"][keep]}
        data["votes"] = found.data["votes"][keep]
        return Detections(
            xyxy=found.xyxy[keep], confidence=found.confidence[keep], class_id=found.class_id[keep], data=data
        )


class Rescore(Stage):
    """Scores each reading again (:mod:`vision.detector.rescorer`) from the box's readings and its neighbours';
    a box's score is then its likeliest reading's probability of being right, ``data["scores"]`` holds every
    card's. Keeps those that reach the call's threshold.

    Without a rescorer it only adds the context classifier's reading (``data["context"]``): what a rescorer is
    fitted on (:func:`~vision.detector.rescorer.collect_readings`).
    """

    name = "rescore"

    def __init__(self, config: RescoreConfig, rescorer: Any, context: Any, reading: Reading) -> None:
        self.config = config
        self.rescorer = rescorer
        self.context = context
        self.reading = reading

    def run(self, frame: Frame, found: Detections) -> Detections:
        needs = self.context is not None and (self.rescorer is None or self.rescorer.needs_context)
        context = self.reading.probabilities(frame.image, found.xyxy, self.context) if needs else None
        if self.rescorer is None:
            return found if context is None else found.with_columns(data={**found.data, "context": context})
        data = found.data
        scores = self.rescorer.scores(found.xyxy, data["probs"], data["located"], data["votes"], context)
        best = scores.argmax(1) if len(scores) else np.zeros(0, np.int64)
        score = scores[np.arange(len(best)), best]
        keep = score >= frame.conf
        return Detections(
            xyxy=found.xyxy[keep],
            confidence=score[keep],
            class_id=best[keep],
            data={
                "probs": data["probs"][keep],
                "located": data["located"][keep],
                "votes": data["votes"][keep],
                "scores": scores[keep],
            },
        )


class Group(Stage):
    """One row per physical card: corner indices of one card joined (``data["corners"]`` counts them); whole-card
    boxes pass as they are."""

    name = "group"

    def __init__(self, config: GroupConfig, *, corners: bool, locate_weight: float, evidence: bool = False) -> None:
        self.config = config
        self.corners = corners
        self.locate_weight = locate_weight
        self.evidence = evidence  # keep what a Match stage reads (``group_corners``'s ``evidence``)

    def run(self, frame: Frame, found: Detections) -> Detections:
        if self.corners:
            return group_corners(found, locate_weight=self.locate_weight, evidence=self.evidence)
        return found.with_columns(data={"corners": np.zeros(len(found), np.int64)})


class Match(Stage):
    """Each card seen by two corners read again by its whole face (:class:`~vision.detector.faces.FaceTemplates`):
    the face's probabilities multiply the corners' reading, and the card's score is the locator's and that
    product's (:func:`corner_score`). Cards seen by one corner keep their reading. The group's evidence
    columns are dropped, so a matched card has the columns of any grouped one; without an image (cards grouped
    from reads kept aside) nothing is matched."""

    name = "match"
    EVIDENCE = ("probs", "located", "ends")

    def __init__(self, config: MatchConfig, templates: Any, locate_weight: float) -> None:
        self.config = config
        self.templates = templates  # a FaceTemplates
        self.locate_weight = locate_weight

    def run(self, frame: Frame, found: Detections) -> Detections:
        data = {k: v for k, v in found.data.items() if k not in self.EVIDENCE}
        if not all(k in found.data for k in self.EVIDENCE) or not frame.image.size:
            return found.with_columns(data=data)
        class_id, confidence = found.class_id.copy(), found.confidence.copy()
        paired = np.flatnonzero(~np.isnan(found.data["ends"][:, 0]))
        grey = colourless(frame.image) if len(paired) else False
        for k in paired:
            face = self.templates.probabilities(frame.image, found.data["ends"][k], self.config.temperature, grey)
            fused = found.data["probs"][k, : len(face)] * face
            fused = fused / max(float(fused.sum()), 1e-12)
            class_id[k] = int(fused.argmax())
            confidence[k] = float(corner_score(found.data["located"][k], fused[class_id[k]], self.locate_weight))
        return Detections(xyxy=found.xyxy, confidence=confidence, class_id=class_id, data=data)


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


def _sure(passes: list[Detections]) -> int:
    """How many boxes ``passes`` located surely, together."""
    return sum(int((p.confidence >= SURE).sum()) for p in passes)


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
    sure = found.xyxy[found.confidence >= SURE]
    if len(sure) == 0:
        return True
    return bool(np.median(short_side(sure)) * imgsz / image_side < below)


def merge_passes(passes: list[Detections], iou: float, sizes: list[int] | None = None) -> Detections:
    """One box per object from several locator passes: greedy NMS over their union, best score first.

    With each pass's inference size in ``sizes``, a kept box takes the corners of the box from the
    largest pass among those it suppresses (its score stays its own): a coarse pass draws a small
    index up to half as big again as it is, and the finest pass has the most pixels to place a box with.

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

    onnxruntime's default is one spinning thread per core; two pass threads with that on two cores fight each
    other. Ultralytics takes no session options, so the session its predictor built on the first pass is
    replaced by one of the same file; where that attribute is not found (another Ultralytics version) the
    default session stays, only slower.
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


@dataclass
class Timing:
    """Milliseconds each stage took in the last call (by stage name), and the locator's passes."""

    ms: dict[str, float] = field(default_factory=dict)
    passes: int = 0

    @property
    def total(self) -> float:
        return sum(self.ms.values())

    def __getattr__(self, name: str) -> float:
        # ``timing.locate``: a stage's time, 0 when the profile has no such stage.
        if name.startswith("_") or name not in CONFIGS:
            raise AttributeError(name)
        return self.ms.get(name, 0.0)
