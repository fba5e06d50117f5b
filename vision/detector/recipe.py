"""One command from nothing to a measured detector: scenes, tiles, crops, locator, classifier, refiner, model, eval.

``dokocam detector build OUT`` runs the stages the model card's recipe lists, in order, each into its
own place under ``OUT``, and trains every network the shipped card's profiles name: the locator, the index
classifier (trained again on the hard examples it misread), the box refiner, the table frames' classifier,
the context classifier and the reading rescorer.

A stage leaves a marker when it is complete, so a build stopped anywhere (a
time limit, a lost machine, Ctrl-C) goes on where it stopped when run again with the same recipe:
finished stages are skipped, the locator resumes from its last epoch, and a generation stage that did
not finish is drawn again (the same seed draws the same data).

The same recipe runs on this project's 2-core CPU machine (small numbers, about the shipped model's
budget) and on a GPU machine, where the locator and the classifier train on CUDA and generation
uses every core.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

STAGES = (
    "scenes",
    "tiles",
    "crops",
    "locator",
    "classifier",
    "refiner",
    "hard",
    "table-classifier",
    "context",
    "rescorer",
    "model",
    "eval",
)
# How a build runs, not what it makes: a build may go on on another machine with these changed.
RUNTIME_FIELDS = ("device", "workers")
MODEL_NAME = "dokocam-corners"


class RecipeMismatchError(ValueError):
    """``OUT`` holds a build started with another recipe; continuing it would mix two."""


class RecipeError(ValueError):
    """A recipe value out of its range (a count under its minimum, a fraction outside [0, 1])."""


class StageError(ValueError):
    """A stage name that is not one of :data:`STAGES`."""


@dataclass(frozen=True)
class Recipe:
    """Everything that decides what a build makes (saved as ``OUT/recipe.json``).

    Attributes:
        seed: seeds the scenes, tiles, crops and both trainings.
        scenes: training scenes, drawn only with the training designs (:mod:`~dokocam.vision.synth.designs`).
        scene_size: side of the generated scenes in pixels.
        closeup_fraction, near_fraction, webcam_fraction, odd_print: as ``dokocam dataset generate``.
        heldout_scenes: validation scenes drawn only with the held-out designs (``OUT/heldout``): every
            choice the build makes (the locator's best epoch, the classifiers' checks) and its scores are on
            them; as many drawn with training designs (``OUT/train-designs``, never trained on) show the gap.
        faces: face folders mixed into the scenes and crops (e.g. the English-pattern folder).
        tiles_per_image: native-resolution tiles of each training scene (0: none).
        crops: drawn index crops for the classifier, beside the scenes' own boxes (0: none).
        crop_size: the classifier's input side.
        locator_model: the YOLO config the locator starts from (never downloaded weights).
        imgsz, batch: the locator's training size and batch.
        locator_epochs, locator_hours: its schedule; with hours, Ultralytics fits the epochs to the time.
        locator_init: a locator ``.pt`` this project trained, to continue instead of starting from scratch.
        locator_val_images: val scenes the locator is validated on after each epoch.
        classifier_width, classifier_epochs, classifier_minutes, classifier_batch, classifier_lr,
        classifier_init: the index classifier's training (``dokocam detector train classifier``).
        refiner_epochs, refiner_minutes, refiner_lr, refiner_scenes, refiner_init: the box refiner's
            training (``dokocam detector train refiner``) on the locator's boxes of up to ``refiner_scenes``
            training scenes; ``refiner_epochs`` 0 builds a model without one.
        hard_epochs, hard_copies, hard_minutes, hard_lr: the classifier trained on from itself with
            the hard examples the build's detector mines from its own training scenes
            (``dokocam dataset mine``), ``hard_copies`` times each, beside its other data;
            ``hard_epochs`` 0 ships the classifier as the classifier stage made it.
        table_classifier_epochs, table_classifier_minutes: the table frames' classifier, trained on from the
            photos' with defocused crops as well (a table camera is a webcam, often out of focus).
        context_epochs, context_minutes: the context classifier (a window four times each box) the rescorer reads.
        rescorer_scenes, rescorer_epochs: the reading rescorer, fitted on the build's detector's readings of
            ``rescorer_scenes`` scenes of training designs drawn for it alone (``OUT/calibration``), never
            trained on: readings of training scenes are surer than a new photo's.
        device: ``cpu``, a CUDA index such as ``0``, or ``None`` for CUDA when present.
        workers: processes for generation and for the locator's data loading.
    """

    seed: int = 0
    scenes: int = 2500
    scene_size: int = 640
    closeup_fraction: float = 0.3
    near_fraction: float = 0.0
    webcam_fraction: float = 0.3
    odd_print: float = 0.2
    heldout_scenes: int = 300
    faces: tuple[str, ...] = ()
    tiles_per_image: int = 1
    crops: int = 50_000
    crop_size: int = 48
    locator_model: str = "yolo11t.yaml"
    imgsz: int = 320
    batch: int = 8
    locator_epochs: int = 30
    locator_hours: float | None = 1.0
    locator_init: str | None = None
    locator_val_images: int = 100
    classifier_width: int = 16
    classifier_epochs: int = 3
    classifier_minutes: float | None = 30.0
    classifier_batch: int = 128
    classifier_lr: float = 3e-3
    classifier_init: str | None = None
    refiner_epochs: int = 8
    refiner_minutes: float | None = 20.0
    refiner_lr: float = 3e-3
    refiner_scenes: int = 2000
    refiner_init: str | None = None
    hard_epochs: int = 2
    hard_copies: int = 3
    hard_minutes: float | None = 25.0
    hard_lr: float = 1e-3
    table_classifier_epochs: int = 2
    table_classifier_minutes: float | None = 10.0
    context_epochs: int = 3
    context_minutes: float | None = 15.0
    rescorer_scenes: int = 300
    rescorer_epochs: int = 600
    device: str | None = None
    workers: int = 2

    def __post_init__(self) -> None:
        problems = [
            f"--{name.replace('_', '-')} must be {rule}"
            for name, ok, rule in (
                ("scenes", self.scenes >= 1, "at least 1"),
                ("heldout_scenes", self.heldout_scenes >= 1, "at least 1"),
                ("scene_size", self.scene_size >= 64, "at least 64"),
                ("tiles_per_image", self.tiles_per_image >= 0, "0 or more"),
                ("crops", self.crops >= 0, "0 or more"),
                ("crop_size", self.crop_size >= 8, "at least 8"),
                ("imgsz", self.imgsz >= 32, "at least 32"),
                ("batch", self.batch >= 1, "at least 1"),
                ("locator_epochs", self.locator_epochs >= 1, "at least 1"),
                ("classifier_epochs", self.classifier_epochs >= 1, "at least 1"),
                ("refiner_epochs", self.refiner_epochs >= 0, "0 or more"),
                ("refiner_scenes", self.refiner_scenes >= 1, "at least 1"),
                ("hard_epochs", self.hard_epochs >= 0, "0 or more"),
                ("hard_copies", self.hard_copies >= 1, "at least 1"),
                ("table_classifier_epochs", self.table_classifier_epochs >= 1, "at least 1"),
                ("context_epochs", self.context_epochs >= 1, "at least 1"),
                ("rescorer_scenes", self.rescorer_scenes >= 1, "at least 1"),
                ("rescorer_epochs", self.rescorer_epochs >= 1, "at least 1"),
                ("workers", self.workers >= 0, "0 or more"),
                ("closeup_fraction", 0 <= self.closeup_fraction <= 1, "in [0, 1]"),
                ("near_fraction", 0 <= self.near_fraction <= 1, "in [0, 1]"),
                ("webcam_fraction", 0 <= self.webcam_fraction <= 1, "in [0, 1]"),
                ("odd_print", 0 <= self.odd_print <= 1, "in [0, 1]"),
            )
            if not ok
        ]
        if problems:
            raise RecipeError("; ".join(problems))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["faces"] = list(self.faces)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Recipe:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["faces"] = tuple(values.get("faces", ()))
        return cls(**values)


@dataclass
class BuildReport:
    """What a build did: seconds per stage run now, stages skipped as already done, and the scores."""

    out: Path
    seconds: dict[str, float] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)

    @property
    def model(self) -> Path:
        return self.out / "model" / f"{MODEL_NAME}.pt"


def _done(out: Path, stage: str) -> Path:
    return out / ".done" / stage


def _consume(progress: Iterator[Any]) -> None:
    for _ in progress:
        pass


def build(
    out: str | Path,
    recipe: Recipe,
    *,
    until: str = "eval",
    eval_folders: tuple[str, ...] = (),
    log: Callable[[str], None] = print,
) -> BuildReport:
    """Runs the stages of ``recipe`` into ``out`` up to and including ``until``; see the module doc.

    ``eval_folders`` (labelled folders such as the real photos) are scored beside the build's own
    synthetic validation split in the ``eval`` stage, each into ``OUT/eval/<folder name>/``; asking
    for other folders than last time runs that stage again. ``device`` and ``workers`` may differ
    from the run that started ``out`` (a build started on a CPU can go on on a GPU); nothing else.

    Raises:
        RecipeMismatchError: ``out`` was started with another recipe.
        StageError: ``until`` is not a stage.
    """
    if until not in STAGES:
        raise StageError(f"no stage {until!r}; the stages are {', '.join(STAGES)}")
    from dokocam.vision.detector.classifier import ClassifierCheckpointError
    from dokocam.vision.detector.train import check_init

    # Checked before anything is drawn: a typo should not cost the scenes' minutes first.
    check_init(recipe.locator_init, "--locator-init")
    if recipe.classifier_init and not Path(recipe.classifier_init).is_file():
        raise ClassifierCheckpointError(f"--classifier-init {recipe.classifier_init}: no such file")
    if recipe.refiner_init and not Path(recipe.refiner_init).is_file():
        raise ClassifierCheckpointError(f"--refiner-init {recipe.refiner_init}: no such file")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    saved = out / "recipe.json"
    if saved.exists():
        before = Recipe.from_json(json.loads(saved.read_text())).to_json()
        changed = sorted(k for k, v in recipe.to_json().items() if before.get(k) != v and k not in RUNTIME_FIELDS)
        if changed:
            raise RecipeMismatchError(
                f"{out} was started with another recipe ({', '.join(changed)} differ); continue it with the same "
                f"options or build into a new folder"
            )
    else:
        saved.write_text(json.dumps(recipe.to_json(), indent=1) + "\n")
    (out / ".done").mkdir(exist_ok=True)
    report = BuildReport(out)
    steps: dict[str, Callable[[], None]] = {
        "scenes": lambda: _scenes(out, recipe),
        "tiles": lambda: _tiles(out, recipe),
        "crops": lambda: _crops(out, recipe),
        "locator": lambda: _locator(out, recipe, log),
        "classifier": lambda: _classifier(out, recipe, log),
        "refiner": lambda: _refiner(out, recipe, log),
        "hard": lambda: _hard(out, recipe, log),
        "table-classifier": lambda: _table_classifier(out, recipe, log),
        "context": lambda: _context(out, recipe, log),
        "rescorer": lambda: _rescorer(out, recipe, log),
        "model": lambda: _model(out, recipe),
        "eval": lambda: report.metrics.update(_eval(out, eval_folders, log)),
    }
    scores = out / "eval" / "scores.json"
    if scores.exists() and list(json.loads(scores.read_text())) != _eval_names(eval_folders):
        _done(out, "eval").unlink(missing_ok=True)  # other folders to score: the eval stage runs again
    for stage in STAGES[: STAGES.index(until) + 1]:
        if _done(out, stage).exists():
            report.skipped.append(stage)
            log(f"build: {stage} already done")
            continue
        log(f"build: {stage} ...")
        start = time.monotonic()
        # What follows a stage that runs now was made from what it replaces (or lacks it): made again.
        for later in STAGES[STAGES.index(stage) + 1 :]:
            _done(out, later).unlink(missing_ok=True)
        steps[stage]()
        report.seconds[stage] = round(time.monotonic() - start, 1)
        _done(out, stage).write_text(f"{report.seconds[stage]}\n")
        log(f"build: {stage} done in {report.seconds[stage]:.0f} s")
    if not report.metrics and scores.exists():
        report.metrics = json.loads(scores.read_text())
    # Seconds add up over the runs that made the build, so a resumed build still says what it cost.
    summary_path = out / "build.json"
    before = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    seconds = {
        k: round(before.get("seconds", {}).get(k, 0.0) + report.seconds.get(k, 0.0), 1)
        for k in STAGES
        if k in report.seconds or k in before.get("seconds", {})
    }
    summary = {
        "recipe": recipe.to_json(),
        "seconds": seconds,
        "runs": before.get("runs", 0) + 1,
        "metrics": report.metrics,
    }
    summary_path.write_text(json.dumps(summary, indent=1) + "\n")
    return report


# The build's scene sets: (folder, designs, seed offset, all of it validation).
SCENE_SETS = (
    ("scenes", "train", 0, False),
    ("heldout", "heldout", 1, True),
    ("train-designs", "train", 2, True),
    ("calibration", "train", 3, True),
)


def _scenes(out: Path, recipe: Recipe) -> None:
    from dataclasses import replace

    from dokocam.vision.synth.dataset import SceneConfig, write_dataset

    config = SceneConfig(
        imgsz=recipe.scene_size,
        closeup_fraction=recipe.closeup_fraction,
        near_fraction=recipe.near_fraction,
        webcam_fraction=recipe.webcam_fraction,
        odd_print=recipe.odd_print,
    )
    for folder, designs, offset, validation in SCENE_SETS:
        # A user's own --faces folders are training material: the validation sets draw only designs.
        _consume(
            write_dataset(
                out / folder,
                {"scenes": recipe.scenes, "calibration": recipe.rescorer_scenes}.get(folder, recipe.heldout_scenes),
                recipe.seed + offset,
                config=replace(config, designs=designs),
                val_fraction=1.0 if validation else 0.0,
                folders=() if validation else recipe.faces,
                workers=max(recipe.workers, 1),
            )
        )


def _tiles(out: Path, recipe: Recipe) -> None:
    from dokocam.vision.synth.tiles import write_tiles

    if recipe.tiles_per_image:
        _, progress = write_tiles(
            out / "scenes", out / "tiles", size=recipe.imgsz, per_image=recipe.tiles_per_image, seed=recipe.seed
        )
        _consume(progress)


def _crops(out: Path, recipe: Recipe) -> None:
    from dokocam.vision.synth.crops import CropConfig, write_crops
    from dokocam.vision.synth.dataset import design_folders

    if recipe.crops:
        _consume(
            write_crops(
                out / "crops.npz",
                recipe.crops,
                recipe.seed,
                CropConfig(size=recipe.crop_size),
                [str(folder) for folder in design_folders(recipe.faces, "train")],
                max(recipe.workers, 1),
            )
        )


def locator_data(out: Path, recipe: Recipe) -> Path:
    """Writes the locator's dataset file: the scenes' and tiles' train splits, a few held-out-design scenes."""
    from dokocam.vision.synth.faces import CARD_CODES
    from dokocam.vision.yolo import read_folder

    val = sorted(item.image.resolve() for item in read_folder(out / "heldout", split="val").items)[
        : recipe.locator_val_images
    ]
    (out / "locator-val.txt").write_text("".join(f"{path}\n" for path in val))
    train = [str((out / "scenes" / "images" / "train").resolve())]
    if recipe.tiles_per_image:
        train.insert(0, str((out / "tiles" / "images" / "train").resolve()))
    names = "".join(f"  {i}: {code}\n" for i, code in enumerate(CARD_CODES))
    path = out / "locator-data.yaml"
    path.write_text(
        f"# dokocam detector build: the locator's data\ntrain: {json.dumps(train)}\n"
        f"val: {(out / 'locator-val.txt').resolve()}\nnames:\n{names}"
    )
    return path


def _locator(out: Path, recipe: Recipe, log: Callable[[str], None]) -> None:
    from dokocam.vision.detector.train import train_locator

    data = locator_data(out, recipe)
    run = out / "locator"
    if (run / "weights" / "last.pt").exists():
        log("build: resuming the locator from its last epoch")
        train_locator(data, out=run, resume=True, device=recipe.device, workers=recipe.workers)
        return
    # A continued locator starts gently (train_locator's own settings); a fresh one with a short warm-up.
    tuning: dict[str, Any] = {} if recipe.locator_init else dict(warmup_epochs=1)
    train_locator(
        data,
        model=recipe.locator_model,
        out=run,
        epochs=recipe.locator_epochs,
        imgsz=recipe.imgsz,
        batch=recipe.batch,
        time_hours=recipe.locator_hours,
        single_cls=True,
        workers=recipe.workers,
        seed=recipe.seed,
        device=recipe.device,
        init=recipe.locator_init,
        nbs=recipe.batch,
        close_mosaic=1,
        cache="ram",
        scale=0.6,
        **tuning,
    )


def _classifier(out: Path, recipe: Recipe, log: Callable[[str], None]) -> None:
    crops = [out / "crops.npz"] if recipe.crops else []
    _train_reader(
        out,
        recipe,
        log,
        out / f"{MODEL_NAME}.classifier.pt",
        epochs=recipe.classifier_epochs,
        time_minutes=recipe.classifier_minutes,
        init=recipe.classifier_init,
        crops=crops,
        lr=recipe.classifier_lr,
    )


def _card(out: Path, recipe: Recipe) -> Any:
    """The model card of a build: the shipped card's profiles (stages, passes, thresholds) at this build's size,
    naming the build's networks (those made so far)."""
    from dataclasses import replace

    from dokocam.vision.detector.model import DEFAULT_MODEL, ModelCard
    from dokocam.vision.detector.stages import LocateConfig, ReadConfig, RefineConfig, RescoreConfig

    shipped = ModelCard.load(DEFAULT_MODEL)
    profiles = {}
    for name, profile in shipped.profiles.items():
        classifier = NETWORKS["table-classifier" if name == "table" else "classifier"]
        if not (out / classifier).exists():
            classifier = NETWORKS["classifier"]
        stages = []
        for stage in profile.stages:
            if isinstance(stage, LocateConfig):
                stage = replace(stage, imgsz=recipe.imgsz * (2 if name == "table" else 1))
            elif isinstance(stage, ReadConfig):
                stage = replace(stage, classifier=classifier)
            elif isinstance(stage, RefineConfig):
                stage = replace(stage, refiner=NETWORKS["refiner"])
            elif isinstance(stage, RescoreConfig):
                context = NETWORKS["context"] if (out / NETWORKS["context"]).exists() else None
                stage = replace(stage, rescorer=NETWORKS["rescorer"], context_classifier=context)
            networks = [getattr(stage, k, None) for k in ("refiner", "rescorer")]
            if any(n and not (out / n).exists() for n in networks):
                profile = profile.without(stage.stage)
                continue
            stages.append(stage)
        profiles[name] = replace(profile, stages=tuple(stages))
    return replace(shipped, profiles=profiles)


# The networks a build trains, by stage, as the card names them (each in ``OUT``; the hard stage's classifier
# in ``OUT/hard`` replaces the classifier stage's in the model).
NETWORKS = {
    "classifier": f"{MODEL_NAME}.classifier.pt",
    "refiner": f"{MODEL_NAME}.refiner.pt",
    "table-classifier": f"{MODEL_NAME}.table-classifier.pt",
    "context": f"{MODEL_NAME}.context-classifier.pt",
    "rescorer": f"{MODEL_NAME}.rescorer.json",
}
TABLE_DEFOCUS = (1.0, 2.0, 3.0)  # blur radii of the table classifier's extra crops (``train_classifier(defocus=)``)
CONTEXT_PAD = 1.5  # the context classifier's window: the box padded to four times its area
RESCORER_FLOOR = 0.05  # the plain score a box needs to be rescored, as the shipped rescorer


def _locator_weights(out: Path) -> Path:
    best = out / "locator" / "weights" / "best.pt"
    return best if best.exists() else out / "locator" / "weights" / "last.pt"


def _classifier_path(out: Path) -> Path:
    """The photos' classifier of the build so far: the hard stage's when it made one."""
    hard = out / "hard" / NETWORKS["classifier"]
    return hard if hard.exists() else out / NETWORKS["classifier"]


def _detector(out: Path, recipe: Recipe, *, refiner: bool, context: bool = False) -> Any:
    """The build's locator and classifier (with ``refiner`` its refiner, with ``context`` its context
    classifier, when it has them) as a detector of the photo profile without its rescorer, at the plain
    scores' threshold, as the model will be."""
    from dokocam.vision.detector.classifier import IndexReader
    from dokocam.vision.detector.model import CardDetector
    from dokocam.vision.detector.refiner import BoxReader
    from dokocam.vision.yolo import ultralytics_yolo

    YOLO = ultralytics_yolo()

    profile = _card(out, recipe).profile("photo").without("rescore")
    refined, contexts = out / NETWORKS["refiner"], out / NETWORKS["context"]
    if not (refiner and refined.exists()):
        profile = profile.without("refine")
    if context and contexts.exists():
        from dokocam.vision.detector.stages import RescoreConfig

        profile = profile.with_stage(RescoreConfig(None, NETWORKS["context"]))
    return CardDetector(
        profile,
        YOLO(str(_locator_weights(out)), task="detect"),
        reader=IndexReader.load(_classifier_path(out)),
        refiner=BoxReader.load(refined) if profile.stage("refine") else None,
        context=IndexReader.load(contexts) if profile.stage("rescore") else None,
    )


def _refiner(out: Path, recipe: Recipe, log: Callable[[str], None]) -> None:
    from dataclasses import replace

    from dokocam.vision.detector.refiner import make_pairs, train_refiner
    from dokocam.vision.yolo import read_folder, train_split

    target = out / f"{MODEL_NAME}.refiner.pt"
    target.unlink(missing_ok=True)
    if not recipe.refiner_epochs:
        return
    # The boxes the refiner learns to move are this build's locator's, read by its classifier.
    detector = _detector(out, recipe, refiner=False)
    train, val = train_split(out / "scenes"), read_folder(out / "heldout", split="val")
    train = replace(train, items=train.items[: recipe.refiner_scenes])
    locate = lambda image: detector.locate(image).xyxy  # noqa: E731
    pairs, val_pairs = make_pairs(train, locate, seed=recipe.seed), make_pairs(val, locate, seed=recipe.seed + 1)
    log(f"build: refiner: {len(pairs)} training pairs from {len(train.items)} scenes, {len(val_pairs)} val pairs")
    train_refiner(
        pairs,
        target,
        val=val_pairs,
        epochs=recipe.refiner_epochs,
        lr=recipe.refiner_lr,
        seed=recipe.seed,
        time_minutes=recipe.refiner_minutes,
        init=recipe.refiner_init,
        device=recipe.device,
        log=log,
    )


def _hard(out: Path, recipe: Recipe, log: Callable[[str], None]) -> None:
    from dokocam.vision.detector.mining import mine_crops, save_crops
    from dokocam.vision.yolo import BACKGROUND, train_split

    target = out / "hard" / f"{MODEL_NAME}.classifier.pt"
    target.unlink(missing_ok=True)
    if not recipe.hard_epochs:
        return
    # The build's whole detector mines its scenes.
    crops, classes = mine_crops(train_split(out / "scenes"), _detector(out, recipe, refiner=True), seed=recipe.seed)
    mined = save_crops(out / "hard" / "hard.npz", crops, classes)
    log(
        f"build: hard: {int((classes == BACKGROUND).sum())} boxes on no index, {int((classes != BACKGROUND).sum())} "
        f"crops of misread labels"
    )
    _train_reader(
        out,
        recipe,
        log,
        target,
        epochs=recipe.hard_epochs,
        time_minutes=recipe.hard_minutes,
        init=out / f"{MODEL_NAME}.classifier.pt",
        crops=([out / "crops.npz"] if recipe.crops else []) + [mined] * recipe.hard_copies,
        lr=recipe.hard_lr,
    )


def _table_classifier(out: Path, recipe: Recipe, log: Callable[[str], None]) -> None:
    target = out / NETWORKS["table-classifier"]
    target.unlink(missing_ok=True)
    _train_reader(
        out,
        recipe,
        log,
        target,
        epochs=recipe.table_classifier_epochs,
        time_minutes=recipe.table_classifier_minutes,
        init=_classifier_path(out),
        crops=[out / "crops.npz"] if recipe.crops else [],
        lr=recipe.hard_lr,
        defocus=TABLE_DEFOCUS,
    )


def _context(out: Path, recipe: Recipe, log: Callable[[str], None]) -> None:
    target = out / NETWORKS["context"]
    target.unlink(missing_ok=True)
    # The drawn crops are cut at the index classifier's pad: the context classifier learns from the scenes alone.
    _train_reader(
        out,
        recipe,
        log,
        target,
        epochs=recipe.context_epochs,
        time_minutes=recipe.context_minutes,
        lr=recipe.classifier_lr,
        pad=CONTEXT_PAD,
    )


def _rescorer(out: Path, recipe: Recipe, log: Callable[[str], None]) -> None:
    from dokocam.vision.detector.rescorer import collect_readings, features_for, fit_rescorer
    from dokocam.vision.yolo import read_folder

    target = out / NETWORKS["rescorer"]
    target.unlink(missing_ok=True)
    detector = _detector(out, recipe, refiner=True, context=True)
    folder = read_folder(out / "calibration", split="val")
    try:
        features, hits = collect_readings(folder, detector, floor=RESCORER_FLOOR)
    except ValueError as exc:
        # A locator too young to find anything: the model scores its photos plainly (``_card`` drops the stage).
        log(f"build: rescorer: none fitted ({exc}); the photo profile keeps the plain scores")
        return
    info = {"model": str(out), "data": [str(out / "calibration")], "images": len(folder.items)}
    rescorer = fit_rescorer(
        features,
        hits,
        epochs=recipe.rescorer_epochs,
        seed=recipe.seed,
        floor=RESCORER_FLOOR,
        weight=detector.profile.locate_weight,
        info=info,
        names=features_for(detector.context is not None),
    )
    rescorer.save(target)
    log(f"build: rescorer: fitted on {len(hits)} readings of {len(folder.items)} scenes, {int(hits.sum())} right")


def _model(out: Path, recipe: Recipe) -> None:
    from dokocam.vision.detector.train import TrainResult, ship

    run = out / "locator"
    result = TrainResult(run, _locator_weights(out), run / "weights" / "last.pt")
    card = _card(out, recipe)
    checkpoints = {name: out / name for name in card.files()}
    checkpoints[NETWORKS["classifier"]] = _classifier_path(out)
    ship(result, out / "model" / f"{MODEL_NAME}.pt", card, checkpoints)


# What the eval stage scores with each profile: the held-out designs (what every choice is made on) and
# scenes of the training designs never trained on, side by side so the gap shows.
EVAL_SETS = ("heldout", "train-designs")
PROFILES = ("photo", "table")


def _eval_names(extra: tuple[str, ...]) -> list[str]:
    """What the eval stage scores, by name: each validation set under each profile, then each extra folder."""
    return [f"{name}/{profile}" for name in EVAL_SETS for profile in PROFILES] + [Path(f).name for f in extra]


def _eval(out: Path, extra: tuple[str, ...], log: Callable[[str], None]) -> dict[str, Any]:
    from dokocam.vision.detector.evaluate import MAP_CONF, evaluate
    from dokocam.vision.detector.model import CardDetector
    from dokocam.vision.yolo import read_folder

    model = out / "model" / f"{MODEL_NAME}.pt"
    photo, table = CardDetector.load(model), CardDetector.load(model, "table")
    targets = [
        (f"{name}/{profile}", read_folder(out / name, split="val"), photo if profile == "photo" else table)
        for name in EVAL_SETS
        for profile in PROFILES
    ] + [(Path(folder).name, read_folder(folder), photo) for folder in extra]
    metrics: dict[str, Any] = {}
    for name, folder, detector in targets:
        # F1 where the model's detections are used; mAP50 as the model card counts it (one detection run).
        report = evaluate(detector, folder, out=out / "eval" / name, examples=4, map_conf=MAP_CONF)
        p, r, f1 = report.overall
        metrics[name] = {
            "precision": round(p, 4),
            "recall": round(r, 4),
            "f1": round(f1, 4),
            "map50_conf": MAP_CONF,
            "map50": report.map50,
            "map50_by_size": report.map50_by_size,
            "map50_visible": None if report.visible is None else report.visible.map50,
        }
        log(f"build: eval {name}: F1 {f1:.3f} (P {p:.3f}, R {r:.3f}), mAP50 {report.map50} at conf {MAP_CONF}")
    (out / "eval" / "scores.json").write_text(json.dumps(metrics, indent=1) + "\n")
    return metrics


def _train_reader(out: Path, recipe: Recipe, log: Callable[[str], None], target: Path, **settings: Any) -> None:
    """Trains one crop classifier of the build on its scenes, chosen on the held-out designs, with the recipe's
    batch, width, seed, crop size and device; ``settings`` are the network's own (epochs, init, pad ...)."""
    from dokocam.vision.detector.classifier import train_classifier

    train_classifier(
        [out / "scenes"],
        target,
        val=[out / "heldout"],
        batch=recipe.classifier_batch,
        width=recipe.classifier_width,
        seed=recipe.seed,
        crop_size=recipe.crop_size,
        device=recipe.device,
        log=log,
        **settings,
    )
