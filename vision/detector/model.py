"""The card detector: a model card's profile built into stages (:mod:`vision.detector.stages`) and run.

This module and :mod:`vision.detector.stages` are the only ones that touch Ultralytics types; everything leaves
them as :class:`vision.detections.Detections`. A model is a YOLO weights file (``.pt``, ``.onnx`` or an
``*_openvino_model/`` folder) plus a JSON card beside it (``<stem>.json``) that says what the YOLO finds and
lists each profile's stages (:class:`ModelCard`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from dokocam.models import DEFAULT_MODEL as DEFAULT_MODEL
from dokocam.vision.detections import Detections
from dokocam.vision.detector.grouping import drop_twins
from dokocam.vision.detector.stages import (
    CONFIGS,
    NEGATIVE_BELOW,
    Frame,
    Group,
    GroupConfig,
    Locate,
    LocateConfig,
    Match,
    MatchConfig,
    Read,
    ReadConfig,
    Reading,
    Refine,
    RefineConfig,
    Rescore,
    RescoreConfig,
    Score,
    ScoreConfig,
    Stage,
    StageConfig,
    Timing,
    config_from_dict,
    config_to_dict,
    merge_passes,
    pass_size,
)
from dokocam.vision.yolo import ultralytics_yolo

log = logging.getLogger(__name__)

OPENVINO_SUFFIX = "_openvino_model"
PROFILES = ("photo", "table")
__all__ = ["CardDetector", "ModelCard", "Profile", "merge_passes", "pass_size", "read_image"]


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


class ModelNotFoundError(ValueError):
    """The model path does not exist (train one with ``dokocam detector train locator`` or pass ``--model``), or a file
    its model card names beside it is missing or cannot be read."""


class UnreadableImageError(ValueError):
    """An image file is missing or not an image OpenCV can decode."""


@dataclass(frozen=True)
class Profile:
    """How one kind of image becomes cards: the stages' configs in order, and the threshold of the last score.

    Attributes:
        name: ``photo`` (close-up photos, ``dokocam detect``) or ``table`` (a camera's frames of the trick area).
        conf: the score a detection must reach (the rescorer's probability where the profile rescores).
        stages: the stages' configs (:mod:`vision.detector.stages`), in the order they run.
        target: ``"corners"`` (corner indices, grouped into cards) or ``"cards"`` (whole cards).
        locate_weight: a box's score is ``locator ** w * classifier ** (1 - w)``; below 0.5 the classifier,
            which also rejects non-indices, counts for more than the locator.
    """

    name: str
    conf: float = 0.25
    stages: tuple[StageConfig, ...] = (LocateConfig(), GroupConfig())
    target: str = "corners"
    locate_weight: float = 0.5

    def stage(self, name: str) -> Any:
        """The config of stage ``name``, or ``None`` when the profile has no such stage."""
        return next((s for s in self.stages if s.stage == name), None)

    def with_stage(self, config: StageConfig) -> Profile:
        """This profile with ``config`` in place of its stage of that name (added in the stages' order if absent)."""
        if self.stage(config.stage) is not None:
            return replace(self, stages=tuple(config if s.stage == config.stage else s for s in self.stages))
        order = list(CONFIGS)
        at = sum(1 for s in self.stages if order.index(s.stage) < order.index(config.stage))
        return replace(self, stages=(*self.stages[:at], config, *self.stages[at:]))

    def without(self, *names: str) -> Profile:
        """This profile without the stages ``names``; without its rescore stage its threshold is the score stage's."""
        conf = self.conf
        if "rescore" in names and self.stage("rescore") and (score := self.stage("score")) and score.conf is not None:
            conf = score.conf
        return replace(self, conf=conf, stages=tuple(s for s in self.stages if s.stage not in names))

    def to_dict(self) -> dict[str, Any]:
        return {
            "conf": self.conf,
            "locate_weight": self.locate_weight,
            "stages": [config_to_dict(s) for s in self.stages],
        }

    def __str__(self) -> str:
        """The stages, one a line, as the card lists them.

        >>> print(Profile("photo", 0.3, (LocateConfig(imgsz=320), GroupConfig())))  # doctest: +NORMALIZE_WHITESPACE
        photo (conf 0.3)
          1. locate imgsz=320 conf=None scales=[1.0] fine_scale=None fine_below=12.0 fine_zoom=1.0 iou=0.6
             negative=off
          2. group
        """
        parts = [
            " ".join([s.stage, *(f"{k}={v}" for k, v in config_to_dict(s).items() if k != "stage")])
            for s in self.stages
        ]
        return "\n".join([f"{self.name} (conf {self.conf})", *(f"  {k}. {p}" for k, p in enumerate(parts, 1))])


@dataclass(frozen=True)
class ModelCard:
    """A locator's model card (``<stem>.json`` beside its weights): what it finds and its named profiles.

    ``{"target": "corners", "profiles": {"photo": {"conf": ..., "locate_weight": ..., "stages": [{"stage":
    "locate", "imgsz": 320, ...}, ...]}, "table": {...}}}``. Checkpoints are named relative to the card.
    A card in the older flat form (one field per setting, ``table_*`` fields for table frames) is read as
    these profiles (:meth:`from_flat`).
    """

    profiles: dict[str, Profile] = field(default_factory=lambda: {n: Profile(n) for n in PROFILES})
    target: str = "corners"

    @staticmethod
    def path_for(model: Path) -> Path:
        stem = model.name[: -len(OPENVINO_SUFFIX)] if model.name.endswith(OPENVINO_SUFFIX) else model.stem
        return model.parent / f"{stem}.json"

    @classmethod
    def load(cls, model: Path) -> ModelCard:
        """The card beside ``model`` (a YOLO finding corner indices, read by nothing else, when there is none).

        Raises:
            ModelNotFoundError: the card cannot be read.
        """
        path = cls.path_for(model)
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text())
            return cls.from_dict(data) if "profiles" in data else cls.from_flat(data)
        except (ValueError, TypeError, KeyError) as exc:
            raise ModelNotFoundError(f"{path} is not a model card this version reads: {exc}") from None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelCard:
        target = str(data.get("target", "corners"))
        profiles = {
            name: Profile(
                name,
                conf=float(p["conf"]),
                stages=tuple(config_from_dict(s) for s in p["stages"]),
                target=target,
                locate_weight=float(p.get("locate_weight", 0.5)),
            )
            for name, p in data["profiles"].items()
        }
        return cls(profiles, target)

    @classmethod
    def from_flat(cls, data: dict[str, Any]) -> ModelCard:
        """The profiles of a flat card: ``photo`` from its fields, ``table`` from its ``table_*`` fields where
        given (one locator pass, one classifier view, no fine pass, no rescorer: the table pipeline shows the
        locator only the trick area at its own size, at thresholds measured on plain scores).

        >>> card = ModelCard.from_flat({"imgsz": 320, "conf": 0.35, "table_imgsz": 640, "locate_conf": 0.05,
        ...     "table_conf": 0.4, "table_locate_conf": 0.2, "scales": [1.2, 1.0], "fine_scale": 2.0,
        ...     "classifier": "c.pt", "table_classifier": "t.pt", "rescorer": "r.json", "rescorer_conf": 0.5})
        >>> print(card.profiles["photo"])  # doctest: +NORMALIZE_WHITESPACE
        photo (conf 0.5)
          1. locate imgsz=320 conf=0.05 scales=[1.2, 1.0] fine_scale=2.0 fine_below=12.0 fine_zoom=1.0 iou=0.6
             negative=off
          2. read classifier=c.pt stretches=[]
          3. score conf=0.35
          4. rescore rescorer=r.json context_classifier=None
          5. group
        >>> print(card.profiles["table"])  # doctest: +NORMALIZE_WHITESPACE
        table (conf 0.4)
          1. locate imgsz=640 conf=0.2 scales=[1.0] fine_scale=None fine_below=12.0 fine_zoom=1.0 iou=0.6
             negative=off
          2. read classifier=t.pt stretches=[]
          3. score conf=None
          4. group
        """

        def get(key: str, table: bool, default: Any = None) -> Any:
            value = data.get(f"table_{key}") if table else None
            return data.get(key, default) if value is None else value

        target = str(data.get("target", "corners"))
        profiles = {}
        for name in PROFILES:
            table = name == "table"
            classifier = get("classifier", table)
            stages: list[StageConfig] = []
            locate = LocateConfig(
                imgsz=int(get("imgsz", table, 640)),
                conf=get("locate_conf", table),
                scales=(1.0,) if table else tuple(float(s) for s in data.get("scales", (1.0,))),
                fine_scale=None if table else data.get("fine_scale"),
                fine_below=12.0 if table else float(data.get("fine_below", 12.0)),
                fine_zoom=1.0 if table else float(data.get("fine_zoom", 1.0)),
            )
            stages.append(locate)
            if classifier:
                stretches = () if table else tuple(float(s) for s in data.get("stretches", ()))
                stages.append(ReadConfig(classifier, stretches))
            if data.get("refiner"):
                stages.append(RefineConfig(data["refiner"]))
            conf = float(get("conf", table, 0.25))
            if classifier:
                rescore = not table and (data.get("rescorer") or data.get("context_classifier"))
                stages.append(ScoreConfig(conf if rescore and data.get("rescorer") else None))
                if rescore:
                    stages.append(RescoreConfig(data.get("rescorer"), data.get("context_classifier")))
                    if data.get("rescorer") and data.get("rescorer_conf") is not None:
                        conf = float(data["rescorer_conf"])
            stages.append(GroupConfig())
            weight = float(get("locate_weight", table, 0.5))
            profiles[name] = Profile(name, conf, tuple(stages), target, weight)
        return cls(profiles, target)

    def save(self, model: Path) -> Path:
        """Writes the card beside ``model``; returns its path."""
        path = self.path_for(model)
        # One stage a line: the card reads as the list of stages it is.
        profiles = []
        for name, profile in self.profiles.items():
            head = {k: v for k, v in profile.to_dict().items() if k != "stages"}
            stages = ",\n".join(f"    {json.dumps(config_to_dict(s))}" for s in profile.stages)
            profiles.append(f'  {json.dumps(name)}: {json.dumps(head)[:-1]}, "stages": [\n{stages}\n  ]}}')
        body = ",\n".join(profiles)
        path.write_text(f'{{\n "target": {json.dumps(self.target)},\n "profiles": {{\n{body}\n }}\n}}\n')
        return path

    def profile(self, name: str) -> Profile:
        """The profile ``name``.

        Raises:
            ValueError: the card has no such profile.
        """
        if name not in self.profiles:
            raise ValueError(f"no profile {name!r} in this model card: it has {', '.join(self.profiles)}")
        return self.profiles[name]

    def classifier(self, profile: str) -> str | None:
        """The index classifier that profile ``profile`` reads with (``None``: none)."""
        read = self.profile(profile).stage("read")
        return None if read is None else str(read.classifier)

    def files(self) -> list[str]:
        """Every checkpoint the profiles name, once each, in order."""
        names = []
        for p in self.profiles.values():
            for s in p.stages:
                names += [getattr(s, k, None) for k in ("classifier", "refiner", "rescorer", "context_classifier")]
        return list(dict.fromkeys(n for n in names if n))


def _load_reader(checkpoint: Path, model: Path) -> Any:
    """A classifier checkpoint beside ``model``, run by onnxruntime when ``model`` is an export."""
    from dokocam.vision.detector.classifier import IndexReader

    reader = IndexReader.load(checkpoint)
    if model.suffix == ".onnx" or model.name.endswith(OPENVINO_SUFFIX):
        # An exported locator is asked for speed; the classifier's export gives it too.
        reader = reader.using_onnx(checkpoint)
    return reader


def _with_stretches(reader: Any, config: ReadConfig) -> Any:
    """``reader`` reading the extra views ``config`` asks for (a reader that takes none: as it is)."""
    if hasattr(reader, "stretches") and reader.stretches != config.stretches:
        return replace(reader, stretches=config.stretches)
    return reader


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
class CardDetector:
    """Finds Doppelkopf cards in BGR frames by running a profile's stages (:mod:`vision.detector.stages`).

    Use :meth:`load`; then :meth:`detect` gives one row per corner index (or whole card) seen,
    :meth:`cards` one row per physical card, both with ``class_id`` = ``engine.Card.index``.
    ``print(detector)`` shows the stages.

    Attributes:
        profile: the stages' configs.
        yolo, reader, refiner, rescorer, context: the networks the stages run (a stage whose network is
            ``None`` cannot be built).
        conf: the score a detection must reach (default: the profile's).
        path: the locator's weights file, for the per-thread copies of the locator.
        workers: locator passes run at once, each thread with its own copy of the locator.
    """

    profile: Profile
    yolo: Any
    reader: Any = None  # classifier.IndexReader
    refiner: Any = None  # refiner.BoxReader
    rescorer: Any = None  # rescorer.Rescorer
    context: Any = None  # a context classifier's classifier.IndexReader
    faces: Any = None  # faces.FaceTemplates of an enrolled deck, for a match stage
    conf: float | None = None
    path: Path | None = None
    workers: int = 1
    timing: Timing = field(default_factory=Timing, init=False, repr=False)
    stages: list[Stage] = field(init=False, repr=False)
    group: Group = field(init=False, repr=False)
    match: Match | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")
        if self.conf is None:
            self.conf = self.profile.conf
        p = self.profile
        locate = p.stage("locate")
        if locate is None:
            raise ValueError(f"profile {p.name!r} has no locate stage")
        if (p.stage("read") is None) != (p.stage("score") is None):
            raise ValueError(f"profile {p.name!r}: a read stage and a score stage go together")
        if p.stage("rescore") is not None and p.stage("read") is None:
            raise ValueError(f"profile {p.name!r}: the rescore stage rescores a read stage's readings")
        needed = {"read": self.reader, "refine": self.refiner, "match": self.faces}
        for name, part in needed.items():
            if p.stage(name) is not None and part is None:
                raise ValueError(f"profile {p.name!r} has a {name} stage but no network for it")
        pool = None
        self.stages = []
        reading = None
        for config in p.stages:
            if isinstance(config, LocateConfig):
                located = Locate(
                    config,
                    self.yolo,
                    read=self.reader is not None and p.stage("read") is not None,
                    path=self.path,
                    workers=self.workers,
                )
                pool = located.executor
                self.stages.append(located)
            elif isinstance(config, ReadConfig):
                reading = Reading(_with_stretches(self.reader, config), p.locate_weight, pool, self.workers)
                self.stages.append(Read(config, reading))
            elif isinstance(config, RefineConfig):
                self.stages.append(Refine(config, self.refiner, reading))
            elif isinstance(config, ScoreConfig):
                self.stages.append(Score(config))
            elif isinstance(config, RescoreConfig):
                assert reading is not None
                if self.rescorer is not None and self.rescorer.needs_context and self.context is None:
                    raise ValueError(
                        f"{config.rescorer} reads a context classifier's probabilities, but the profile names none"
                    )
                self.stages.append(Rescore(config, self.rescorer, self.context, reading))
        match = p.stage("match")
        if match is not None and (p.target != "corners" or p.stage("read") is None):
            raise ValueError(f"profile {p.name!r}: the match stage reads again corner indices a read stage read")
        self.match = None if match is None else Match(match, self.faces, p.locate_weight)
        group = p.stage("group") or GroupConfig()
        self.group = Group(
            group, corners=p.target == "corners", locate_weight=p.locate_weight, evidence=self.match is not None
        )

    @classmethod
    def load(
        cls,
        model: str | Path | None = None,
        profile: str = "photo",
        *,
        conf: float | None = None,
        imgsz: int | None = None,
        scales: tuple[float, ...] | None = None,
        stretches: tuple[float, ...] | None = None,
        fine_scale: float | None = None,
        workers: int = 1,
    ) -> CardDetector:
        """Loads a model (the shipped one by default) with one of its card's profiles.

        Args:
            model: ``.pt``, ``.onnx`` or ``*_openvino_model`` folder; its ``<stem>.json`` is read.
                ``None``: the shipped model, exported if it can be (:func:`default_model`).
            profile: ``photo`` (close-up photos) or ``table`` (a table camera's frames of the trick area).
            conf: score threshold; lower finds more cards and more false alarms.
            imgsz: the locator's inference size; larger sees smaller cards, at a higher cost.
            scales: the locator's passes as fractions of ``imgsz`` (default: the profile's).
            stretches: the classifier's extra views (default: the profile's; ``()``: one view).
            fine_scale: the fine pass for small indices (default: the profile's; ``0``: none).
            workers: locator passes run at once, each thread with its own copy of the locator
                (Ultralytics predictors are not thread-safe); the boxes are the same for any number.

        Raises:
            ModelNotFoundError: the path does not exist, or a file its card names is missing.
            ValueError: ``workers`` is less than 1, or the card has no such profile.
        """
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        path = Path(model) if model is not None else default_model()
        if not path.exists():
            raise ModelNotFoundError(
                f"no model at {path}: train one with `dokocam detector train locator` or pass --model"
            )
        YOLO = ultralytics_yolo()
        card = ModelCard.load(path)
        chosen = _overridden(card.profile(profile), imgsz, scales, stretches, fine_scale)
        folder = ModelCard.path_for(path).parent
        for part in ModelCard({chosen.name: chosen}).files():
            if not (folder / part).exists():
                raise ModelNotFoundError(
                    f"{ModelCard.path_for(path)} names {part} beside the model, but there is no such file: copy it "
                    f"there or remove it from the card"
                )
        parts: dict[str, Any] = {}
        if read := chosen.stage("read"):
            parts["reader"] = _load_reader(folder / read.classifier, path)
        if refine := chosen.stage("refine"):
            from dokocam.vision.detector.refiner import BoxReader

            parts["refiner"] = BoxReader.load(folder / refine.refiner)
            if path.suffix == ".onnx" or path.name.endswith(OPENVINO_SUFFIX):
                parts["refiner"] = parts["refiner"].using_onnx(folder / refine.refiner)
        if rescore := chosen.stage("rescore"):
            from dokocam.vision.detector.rescorer import Rescorer, RescorerFileError

            if rescore.rescorer:
                try:
                    parts["rescorer"] = Rescorer.load(folder / rescore.rescorer)
                except RescorerFileError as exc:
                    raise ModelNotFoundError(str(exc)) from None
                if parts["rescorer"].needs_context and not rescore.context_classifier:
                    raise ModelNotFoundError(
                        f"{rescore.rescorer} reads a context classifier's probabilities, but "
                        f"{ModelCard.path_for(path)} names no context_classifier"
                    )
            if rescore.context_classifier:
                parts["context"] = _load_reader(folder / rescore.context_classifier, path)
        yolo = YOLO(str(path), task="detect")
        return cls(chosen, yolo, conf=conf, path=path, workers=workers, **parts)

    @property
    def card(self) -> Profile:
        """The profile (its ``target`` and ``locate_weight``)."""
        return self.profile

    @property
    def imgsz(self) -> int:
        """The locator's inference size; set it to look at the next images at another size."""
        return int(self._locate.config.imgsz)

    @imgsz.setter
    def imgsz(self, size: int) -> None:
        self._locate.config = replace(self._locate.config, imgsz=size)
        self.profile = self.profile.with_stage(self._locate.config)

    @property
    def _locate(self) -> Locate:
        return next(s for s in self.stages if isinstance(s, Locate))

    def stage(self, name: str) -> Stage | None:
        """The stage ``name`` (``None``: the profile has none)."""
        return next((s for s in [*self.stages, self.group, self.match] if s is not None and s.name == name), None)

    def with_reader(self, reader: Any) -> CardDetector:
        """This detector reading its boxes with ``reader`` (a deck's adapted classifier)."""
        return self._rebuilt(reader=reader)

    def use_reader(self, reader: Any, faces: Any = None, match: MatchConfig | None = None) -> None:
        """Reads the next images with ``reader`` (a deck's adapted classifier) and, with ``faces``, a match stage
        against them (:meth:`with_faces`), in place: a live camera's detector keeps its locator and its threads
        (:meth:`with_reader` builds a copy instead).

        Raises:
            ValueError: the profile reads no boxes.
        """
        read = next((s for s in self.stages if isinstance(s, Read)), None)
        if read is None:
            raise ValueError(f"profile {self.profile.name!r} reads no boxes: no classifier to replace")
        self.reader = reader
        # Read, Refine and Rescore share one Reading: all of them read with it from the next image on.
        read.reading.reader = _with_stretches(reader, read.config)
        self.faces = faces
        match = match or MatchConfig()
        self.profile = self.profile.without("match") if faces is None else self.profile.with_stage(match)
        self.match = None if faces is None else Match(match, faces, self.profile.locate_weight)
        self.group.evidence = self.match is not None
        self.reset()  # another deck: its print is decided again

    def for_images(self) -> CardDetector:
        """This detector for unrelated images (``eval``): no stream's print is decided over them, so a locate
        stage that decides it once a stream (negative ``"stream"``) reads each image as it is, with no vote."""
        locate = self.profile.stage("locate")
        if not isinstance(locate, LocateConfig) or locate.negative != "stream":
            return self
        return self._rebuilt(profile=self.profile.with_stage(replace(locate, negative="off")))

    def without(self, *names: str, conf: float | None = None) -> CardDetector:
        """This detector without the stages ``names`` (at threshold ``conf``, default: :meth:`Profile.without`'s)."""
        profile = self.profile.without(*names)
        return self._rebuilt(profile=profile, conf=profile.conf if conf is None else conf)

    def with_faces(self, faces: Any, config: MatchConfig = MatchConfig()) -> CardDetector:
        """This detector reading each card seen by two corners again by its whole face, against ``faces`` (an
        enrolled deck's :class:`~vision.detector.faces.FaceTemplates`)."""
        return self._rebuilt(profile=self.profile.with_stage(config), faces=faces)

    def _rebuilt(self, **changes: Any) -> CardDetector:
        fields = {
            k: getattr(self, k)
            for k in ("profile", "yolo", "reader", "refiner", "rescorer", "context", "faces", "conf")
        }
        return CardDetector(**{**fields, "path": self.path, "workers": self.workers, **changes})

    def __str__(self) -> str:
        return str(self.profile)

    def detect(self, image: np.ndarray) -> Detections:
        """What the locator saw, read by the classifier if there is one: one row per corner index (or
        whole card) seen; a second box on an index, read as the same card, is fused into the surer one
        (``drop_twins``).

        ``data["kind"]`` is ``0`` for a corner index, ``1`` for a whole card.
        """
        return drop_twins(self.reads(image))

    def reads(self, image: np.ndarray, conf: float | None = None) -> Detections:
        """Every box the stages kept at score ``conf`` (default: the detector's) or more, twins included
        (grouping joins a twin to its card, and the twin's reading is one more vote for the card).

        The reads at a higher threshold are exactly those of a lower one that score that much
        (:meth:`at`): a box that could not reach a threshold is neither refined nor read again for it,
        and one that is, is treated the same at any lower threshold (with a classifier this needs the
        locate stage's own ``conf``, as the shipped card has). With a rescore stage every box whose plain
        score reaches the rescorer's floor is rescored, whatever ``conf`` is: a box's new score depends on
        its neighbours'.
        """
        conf = float(self.conf if conf is None else conf)  # type: ignore[arg-type]
        floor = self.rescorer.floor if self.rescorer is not None and self.profile.stage("rescore") else conf
        self.timing.ms.clear()
        found = self._staged(Frame(image, conf, floor))
        self.timing.passes = self._locate.passes
        if self._locate.deciding:
            self._vote(image, found, floor)
        kind = 0 if self.profile.target == "corners" else 1
        return found.with_columns(data={**found.data, "kind": np.full(len(found), kind, dtype=np.int64)})

    def _vote(self, image: np.ndarray, found: Detections, floor: float) -> None:
        """Lets a stream decide its deck's print by this frame (:meth:`Locate.vote`): where the locator found
        few indices surely, the stages read the frame's negative too, and the indices each reading reaches the
        detector's threshold with are compared (their time is added to the frame's)."""
        locate = self._locate
        threshold = float(self.conf)  # type: ignore[arg-type]
        plain = int((found.confidence >= threshold).sum())
        if locate.sure >= NEGATIVE_BELOW:
            locate.vote(image, plain, None)
            return
        other = self._staged(Frame(255 - image, threshold, floor))
        self.timing.passes += locate.passes
        locate.vote(image, plain, other.xyxy[other.confidence >= threshold])

    def _staged(self, frame: Frame) -> Detections:
        """The stages run over ``frame`` in order, each one's time added to the frame's."""
        found = Detections.empty()
        for stage in self.stages:
            found = stage(frame, found)
            self.timing.ms[stage.name] = self.timing.ms.get(stage.name, 0.0) + stage.ms
        return found

    def locate(self, image: np.ndarray, conf: float | None = None) -> Detections:
        """The boxes of the stages up to the locator, before any classifier reads them (scores are the
        locator's), for detections scored ``conf`` (default: the detector's) or more."""
        conf = float(self.conf if conf is None else conf)  # type: ignore[arg-type]
        frame = Frame(image, conf, conf)
        found = Detections.empty()
        for stage in self.stages:
            found = stage(frame, found)
            if isinstance(stage, Locate):
                return found
        return found

    def close(self) -> None:
        """Stops the pass threads (they are started on first use when ``workers`` > 1)."""
        self._locate.close()

    def cards(self, image: np.ndarray) -> Detections:
        """One row per physical card: its corner indices grouped (``data["corners"]`` counts them)."""
        return self._grouped(self.reads(image), image)

    def detect_and_group(self, image: np.ndarray) -> tuple[Detections, Detections]:
        """:meth:`detect` and :meth:`cards` of one image from one run of the stages (``dokocam eval`` scores both)."""
        return self.at(self.reads(image), float(self.conf), image)  # type: ignore[arg-type]

    def detect_at(self, found: Detections, conf: float) -> Detections:
        """:meth:`detect` at threshold ``conf`` from :meth:`reads` at that or a lower one."""
        return drop_twins(found[found.confidence >= conf])

    def at(self, found: Detections, conf: float, image: np.ndarray | None = None) -> tuple[Detections, Detections]:
        """:meth:`detect` and :meth:`cards` at threshold ``conf`` from :meth:`reads` at that or a lower one (of
        ``image``, which a match stage reads again; without it the cards are not matched)."""
        found = found[found.confidence >= conf]
        return drop_twins(found), self._grouped(found, image)

    def _grouped(self, found: Detections, image: np.ndarray | None = None) -> Detections:
        frame = Frame(np.zeros((0, 0, 3), np.uint8) if image is None else image, 0.0, 0.0)
        grouped = self.group(frame, found)
        self.timing.ms["group"] = self.group.ms
        if self.match is not None:
            grouped = self.match(frame, grouped)
            self.timing.ms["match"] = self.match.ms
        return grouped

    def update(self, frame: np.ndarray) -> Detections:
        """The pipeline-stage form of :meth:`cards`."""
        return self.cards(frame)

    def reset(self) -> None:
        """Forgets what the frames so far showed of the deck (its print, with a locate stage's negative "stream"):
        call it between unrelated images or streams."""
        self._locate.reset()


def _overridden(
    profile: Profile,
    imgsz: int | None,
    scales: tuple[float, ...] | None,
    stretches: tuple[float, ...] | None,
    fine_scale: float | None,
) -> Profile:
    """``profile`` with the settings given in place of its own (``0``: no fine pass)."""
    locate = profile.stage("locate") or LocateConfig()
    locate = replace(
        locate,
        imgsz=imgsz or locate.imgsz,
        scales=tuple(scales) if scales else locate.scales,
        fine_scale=locate.fine_scale if fine_scale is None else (fine_scale or None),
    )
    profile = profile.with_stage(locate)
    if stretches is not None and (read := profile.stage("read")) is not None:
        profile = profile.with_stage(replace(read, stretches=tuple(stretches)))
    return profile


def iter_images(paths: list[str]) -> Iterator[Path]:
    """Image files named directly or found (sorted) inside directories."""
    from dokocam.vision.yolo import IMAGE_SUFFIXES

    for name in paths:
        path = Path(name)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
        else:
            yield path
