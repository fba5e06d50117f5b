"""``dokocam detector``: train locator | train-classifier | mine-crops | train-refiner | detect | eval | export |
bench-detect.

Heavy libraries (torch, Ultralytics, OpenCV) are imported inside the handlers only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


def _default_model() -> Path:
    from dokocam.vision.detector.model import DEFAULT_MODEL

    return DEFAULT_MODEL


def register(groups: Mapping[str, Any]) -> None:
    """Adds this module's verbs to the ``dokocam`` parser's groups (``top``, ``bench``, ...)."""
    train = groups["train"].add_parser(
        "locator",
        help="train a YOLO card/corner detector from scratch",
        description="Train an Ultralytics YOLO from a model config (never from downloaded weights).",
    )
    train.add_argument("--data", required=True, help="dataset YAML (from `dokocam dataset generate`)")
    train.add_argument(
        "--model",
        default=None,
        help="model config: yolo11n.yaml, or dokocam's thin yolo11t.yaml (default: --init's own, else yolo11n.yaml)",
    )
    train.add_argument("--epochs", type=int, default=30)
    train.add_argument("--imgsz", type=int, default=640)
    train.add_argument("--batch", type=int, default=16)
    train.add_argument("--resume", action="store_true", help="continue OUT/weights/last.pt")
    train.add_argument("--out", default="runs/detector", help="run folder (default runs/detector)")
    train.add_argument("--time-hours", type=float, default=None, help="wall-clock budget; the schedule is fitted to it")
    train.add_argument(
        "--single-cls",
        action="store_true",
        help="one class: a corner locator whose boxes `detector train classifier`'s model names",
    )
    train.add_argument("--workers", type=int, default=2, help="data-loading processes")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--device", default=None, help="cpu or a CUDA index (default: CUDA if present)")
    train.add_argument(
        "--init",
        default=None,
        metavar="PT",
        help="start from weights this project trained (a local .pt, e.g. models/dokocam-corners.pt)",
    )
    train.set_defaults(func=_train)

    cls = groups["train"].add_parser(
        "classifier",
        help="train the corner-index crop classifier",
        description="Train the small CNN that names the card of a corner-index crop, on the labelled boxes of YOLO "
        "folders.",
    )
    cls.add_argument("--data", action="append", default=[], help="YOLO folder or data.yaml (train split); repeatable")
    cls.add_argument(
        "--crops",
        action="append",
        default=[],
        metavar="NPZ",
        help="crops file from `dokocam dataset crops`; repeatable",
    )
    cls.add_argument("--crop-size", type=int, default=32, help="network input side in pixels (default 32)")
    cls.add_argument(
        "--lr", type=float, default=3e-3, help="peak learning rate (default 0.003; lower to fine-tune from --init)"
    )
    cls.add_argument("--val", action="append", default=[], help="folder to report accuracy on; repeatable")
    cls.add_argument("--out", required=True, help="checkpoint to write (.pt)")
    cls.add_argument("--epochs", type=int, default=10)
    cls.add_argument("--batch", type=int, default=128)
    cls.add_argument("--width", type=int, default=16, help="channels of the first layer")
    cls.add_argument("--variants", type=int, default=3, help="jittered crops per labelled box")
    cls.add_argument(
        "--small-variants",
        type=int,
        help="jittered crops per box under 16 px on its shorter side (default: --variants)",
    )
    cls.add_argument("--time-minutes", type=float, default=None)
    cls.add_argument("--seed", type=int, default=0)
    cls.add_argument("--min-size", type=float, default=12.0, help="skip labelled boxes smaller than this many pixels")
    cls.add_argument(
        "--init",
        default=None,
        help="classifier checkpoint to continue training from (a narrower one is widened to --width, keeping what it "
        "learnt)",
    )
    cls.add_argument("--threads", type=int, default=None, help="torch threads (1 is faster on a busy machine)")
    cls.add_argument("--device", default=None, help="cpu, cuda or cuda:N (default: CUDA if present)")
    cls.add_argument(
        "--defocus",
        type=_sigma,
        nargs="+",
        default=[],
        metavar="SIGMA",
        help="blur a further 30%% of the crops by a Gaussian of one of these sigmas (crop pixels), as a camera "
        "out of focus does; e.g. 1 2 3 (default: none)",
    )
    cls.add_argument(
        "--pad",
        type=_pad,
        default=None,
        help="how far a crop reaches past its box, as a fraction of the box's longer side on each side (default 0.15: "
        "the index and a rim of card); 1.5 trains a context classifier for the model card's context_classifier",
    )
    cls.set_defaults(func=_train_classifier)

    mine = groups["dataset"].add_parser(
        "mine",
        help="hard examples for the classifier: what a detector gets wrong on labelled scenes",
        description="Run a detector over labelled folders (their train split) and keep, as crops for `detector train "
        "classifier --crops`, "
        "every box it reads on no index (class 24; in generated scenes also no index too hidden to be labelled) and "
        "every label "
        "it does not read right at its own threshold (--variants crops each).",
    )
    mine.add_argument("data", nargs="+", help="generated YOLO folder or data.yaml (train split)")
    mine.add_argument("--out", required=True, help="crops file to write (.npz)")
    mine.add_argument("--model", default=None, help="the detector to mine (default: the shipped one)")
    mine.add_argument(
        "--variants",
        type=int,
        default=3,
        help="crops per misread label (default 3; the first as labelled, the others jittered)",
    )
    mine.add_argument("--seed", type=int, default=0)
    mine.add_argument(
        "--pad",
        type=_pad,
        default=None,
        help="frame the crops as a classifier trained with this --pad reads them (default 0.15, the index "
        "classifier's)",
    )
    mine.set_defaults(func=_mine_crops)

    ref = groups["train"].add_parser(
        "refiner",
        help="train the box refiner that moves located boxes onto their indices",
        description="Train the small CNN that moves each box the locator found onto its corner index. Its examples "
        "are the locator's own boxes "
        "on the labelled folders (run through --model's photo passes) and jittered copies of the labels.",
    )
    ref.add_argument(
        "--data", action="append", required=True, help="generated YOLO folder or data.yaml (train split); repeatable"
    )
    ref.add_argument(
        "--val", action="append", default=[], help="folder to report box IoU on after each epoch; repeatable"
    )
    ref.add_argument("--out", required=True, help="checkpoint to write (.pt)")
    ref.add_argument(
        "--model", default=None, help="the detector whose locator makes the boxes (default: the shipped one)"
    )
    ref.add_argument("--epochs", type=int, default=10)
    ref.add_argument("--batch", type=int, default=256)
    ref.add_argument("--width", type=int, default=16, help="channels of the first layer")
    ref.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (default 0.003)")
    ref.add_argument(
        "--jittered", type=int, default=2, help="jittered copies of each label besides the locator's boxes (default 2)"
    )
    ref.add_argument("--time-minutes", type=float, default=None)
    ref.add_argument("--seed", type=int, default=0)
    ref.add_argument("--init", default=None, help="refiner checkpoint to continue training from")
    ref.add_argument("--threads", type=int, default=None, help="torch threads")
    ref.add_argument("--device", default=None, help="cpu, cuda or cuda:N (default: CUDA if present)")
    ref.set_defaults(func=_train_refiner)

    resc = groups["train"].add_parser(
        "rescorer",
        help="fit the reading rescorer that scores each box's readings with its neighbours' (photos)",
        description="Read labelled folders (their train split) with a detector's plain scores and fit a small network "
        "that gives each "
        "reading its probability of lying on an index of that card, from the box's readings, its size and the "
        "readings of boxes around it "
        "(the card's other corner). Ship it with `detector ship --rescorer`; photos are then scored by it, table "
        "frames never.",
    )
    resc.add_argument(
        "data", nargs="+", help="generated YOLO folder or data.yaml (train split); not the folders you score on"
    )
    resc.add_argument("--out", required=True, help="rescorer to write (.json)")
    resc.add_argument("--model", default=None, help="the detector whose reads it scores (default: the shipped one)")
    resc.add_argument(
        "--floor", type=float, default=0.05, help="plain score a box and a reading need to be rescored (default 0.05)"
    )
    resc.add_argument(
        "--reading-floor",
        type=float,
        default=None,
        help="plain score a box's other readings need to be rescored (default: --floor)",
    )
    resc.add_argument("--hidden", type=int, default=32, help="hidden units (default 32)")
    resc.add_argument("--epochs", type=int, default=600, help="full-batch Adam steps (default 600)")
    resc.add_argument("--seed", type=int, default=0)
    resc.set_defaults(func=_train_rescorer)

    ship = groups["detector"].add_parser(
        "ship",
        help="copy a run's weights into models/ with their model card",
        description="Copy OUT/weights/best.pt to a models/ path and write its <stem>.json model card.",
    )
    ship.add_argument("run", help="run folder of `dokocam detector train locator`")
    ship.add_argument("dest", help="destination .pt, e.g. models/dokocam-corners.pt")
    ship.add_argument("--target", choices=("corners", "cards"), default="corners")
    ship.add_argument("--classifier", default=None, help="classifier checkpoint to ship beside it")
    ship.add_argument(
        "--refiner", default=None, help="box refiner checkpoint to ship beside it (`dokocam detector train refiner`)"
    )
    ship.add_argument(
        "--rescorer",
        default=None,
        help="reading rescorer to ship beside it, for photos (`dokocam detector train rescorer`)",
    )
    ship.add_argument(
        "--context-classifier",
        default=None,
        help="context classifier (`detector train classifier --pad 1.5`) whose readings the rescorer reads, for photos",
    )
    ship.add_argument(
        "--rescorer-conf", type=float, default=None, help="score threshold for rescored photos (default: --conf)"
    )
    ship.add_argument(
        "--table-classifier",
        default=None,
        help="classifier checkpoint for table frames (`run`, `analyze`, `serve`), e.g. one trained with --defocus "
        "(default: --classifier)",
    )
    ship.add_argument("--imgsz", type=int, default=640)
    ship.add_argument("--conf", type=float, default=0.25)
    ship.add_argument(
        "--table-imgsz", type=int, default=None, help="inference size for whole table frames (default: --imgsz)"
    )
    ship.add_argument(
        "--locate-conf",
        type=float,
        default=None,
        help="the locator's own threshold before the classifier (default: conf / 2)",
    )
    ship.add_argument(
        "--locate-weight", type=float, default=0.5, help="score = locator**w * classifier**(1-w) (default 0.5)"
    )
    ship.add_argument("--table-conf", type=float, default=None, help="--conf for table frames (default: the same)")
    ship.add_argument(
        "--table-locate-conf", type=float, default=None, help="--locate-conf for table frames (default: the same)"
    )
    ship.add_argument(
        "--table-locate-weight", type=float, default=None, help="--locate-weight for table frames (default: the same)"
    )
    ship.add_argument(
        "--scales",
        type=_scale,
        nargs="+",
        default=[1.0],
        help="locator passes on photos as fractions of --imgsz (default: 1)",
    )
    ship.add_argument(
        "--stretches",
        type=_stretch,
        nargs="*",
        default=[],
        help="classifier views on photos: windows widened and heightened by these factors (default: none)",
    )
    ship.add_argument(
        "--fine-scale",
        type=_fine_scale,
        default=None,
        help="one more locator pass on photos whose indices are small, as a fraction of --imgsz, in (1, 4] (default: "
        "none)",
    )
    ship.add_argument(
        "--fine-zoom",
        type=_fine_zoom,
        default=1.0,
        help="how far the fine pass may enlarge a photo, in [1, 4] (default 1: never larger than the photo)",
    )
    ship.add_argument(
        "--fine-below",
        type=float,
        default=12.0,
        help="'small': the located indices' median short side in pixels of the --imgsz pass (default 12)",
    )
    ship.set_defaults(func=_ship)

    detect = groups["top"].add_parser(
        "detect",
        help="find cards in images",
        description="Detect Doppelkopf cards; one JSON line per image with one entry per physical card.",
    )
    detect.add_argument("paths", nargs="+", metavar="IMAGE_OR_DIR")
    detect.add_argument("--json", action="store_true", help="JSON lines (the only output format; kept for scripts)")
    detect.add_argument(
        "--model", default=None, help="weights (.pt, .onnx, *_openvino_model); default: the shipped model"
    )
    detect.add_argument("--conf", type=float, default=None, help="score threshold (default: the model card's)")
    detect.add_argument("--imgsz", type=int, default=None)
    _add_views(detect)
    detect.add_argument(
        "--deck", metavar="NAME", help="read with this enrolled deck's adapted classifier (`dokocam deck list`)"
    )
    detect.set_defaults(func=_detect)

    ev = groups["top"].add_parser(
        "eval",
        help="score a detector on a labelled folder",
        description="Per-card precision/recall/F1 (a hit names the right card and covers the label's centre), mAP50, "
        "confusion table.",
    )
    ev.add_argument("data", metavar="DATA_DIR")
    ev.add_argument("--model", default=None)
    ev.add_argument(
        "--out", default=None, help="folder for metrics.json, confusion.png, examples/ (default runs/eval/<folder>)"
    )
    ev.add_argument(
        "--conf",
        type=float,
        default=None,
        help="score threshold of the detections counted for precision, recall and F1 (default: the model card's)",
    )
    ev.add_argument(
        "--map-conf",
        type=float,
        default=None,
        help="score threshold of the boxes ranked for mAP50 (default 0.001, as the model card and Ultralytics' "
        "validator count it); one detection run serves both",
    )
    ev.add_argument("--imgsz", type=int, default=None)
    _add_views(ev)
    ev.add_argument(
        "--deck", metavar="NAME", help="read with this enrolled deck's adapted classifier (`dokocam deck list`)"
    )
    ev.add_argument(
        "--profile",
        choices=("photo", "table"),
        default="photo",
        help="the model card's profile to read with: photo (as `detect`) or table (as the camera's `run`, `serve` "
        "and `analyze` read their frames; default photo)",
    )
    ev.add_argument("--split", default=None, help="sub-split to read (val, train)")
    ev.add_argument(
        "--labels",
        choices=("corners", "cards"),
        default=None,
        help="what the labels mark (default: data.yaml's target, else corners)",
    )
    ev.add_argument("--examples", type=int, default=6)
    ev.add_argument(
        "--top1",
        action="store_true",
        help="mAP50 from each box's first reading only (default: every card the classifier gives a box above --conf, "
        "as Ultralytics' validator counts)",
    )
    ev.set_defaults(func=_eval)

    ex = groups["detector"].add_parser("export", help="export the detector for fast CPU inference")
    ex.add_argument("--format", choices=("onnx", "openvino"), default="onnx")
    ex.add_argument("--model", default=None)
    ex.add_argument("--imgsz", type=int, default=None)
    ex.set_defaults(func=_export)

    build = groups["detector"].add_parser(
        "build",
        help="generate data, train the locator, the classifier and the box refiner, ship and score a detector, in one "
        "resumable run",
        description="Run the whole recipe into OUT: scenes, tiles, crops, locator, classifier, refiner, model\n"
        "(OUT/model/dokocam-corners.pt with its card), eval (OUT/eval/*/metrics.json). Finished stages are\n"
        "skipped when run again with the same options, and the locator resumes from its last epoch.\n"
        "The defaults are the shipped model's budget on a 2-core CPU.",
        epilog="examples:\n"
        "  dokocam detector build runs/b1 --faces my-deck/ --eval my-labelled-photos/      # from scratch, ~1.5 h on "
        "2 cores\n"
        "  dokocam detector build runs/b2 --locator-init models/dokocam-corners.pt \\\n"
        "      --classifier-init models/dokocam-corners.classifier.pt --classifier-lr 0.001   # continue the shipped "
        "model\n"
        "  dokocam detector build runs/b3 --device 0 --workers 14 --batch 64 --classifier-batch 512 --scenes 8000",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    build.add_argument("out", metavar="OUT", help="build folder (created; run again to continue)")
    _recipe_options(build)
    build.add_argument(
        "--until",
        default="eval",
        help="stop after this stage: scenes, tiles, crops, locator, classifier, refiner, hard, model or eval",
    )
    build.add_argument(
        "--eval",
        action="append",
        default=[],
        metavar="DIR",
        help="labelled folder scored beside the synthetic val split (e.g. real photos); repeatable",
    )
    build.set_defaults(func=_build)

    bench = groups["detector"].add_parser("benchmark", help="median ms per 1280x720 frame on this CPU")
    bench.add_argument("--frames", type=int, default=100)
    bench.add_argument("--model", default=None, help="the .pt; exported siblings are found by name")
    bench.add_argument("--backend", choices=("torch", "onnx", "openvino"), default="torch")
    bench.add_argument(
        "--images", default=None, help="folder of images to resize into 1280x720 frames (default: a drawn table)"
    )
    _add_views(bench)
    bench.set_defaults(func=_bench)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def _within(low: float, high: float, why: str) -> Callable[[str], float]:
    """An argparse type for a number in [low, high]; ``why`` says what the number is.

    >>> _within(1, 2, "a factor")("1.5")
    1.5
    >>> _within(0.1, 8, "a sigma")("20")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 20 is outside [0.1, 8]: a sigma
    """

    def parse(text: str) -> float:
        value = _number(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is outside [{low:g}, {high:g}]: {why}")
        return value

    return parse


_fine_zoom = _within(1, 4, "the fine pass enlarges a photo by at most this factor (1: never)")
_stretch = _within(1, 2, "a view widens or heightens the crop window by this factor")
_sigma = _within(0.1, 8, "a Gaussian's sigma in crop pixels")
_pad = _within(0.0, 4, "a crop's reach past its box, as a fraction of the box's longer side")


def _scale(text: str) -> float:
    """A locator pass size as a fraction of the inference size, in (0, 2]."""
    value = _number(text)
    if not 0 < value <= 2:
        raise argparse.ArgumentTypeError(f"{text} is outside (0, 2]: a pass is a fraction of the inference size")
    return value


# A photo takes three locator passes; two threads run them in about half the time, more gain little.
DEFAULT_WORKERS = max(1, min(2, os.cpu_count() or 1))


def _add_views(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scales",
        type=_scale,
        nargs="+",
        default=None,
        help="locator passes as fractions of the inference size, e.g. 1.2 1 0.8 (default: the model card's; 1 = one "
        "pass)",
    )
    parser.add_argument(
        "--stretches",
        type=_stretch,
        nargs="*",
        default=None,
        help="classifier views: windows widened and heightened by these factors, e.g. 1.3 (default: the model card's; "
        "none given = one view)",
    )
    parser.add_argument(
        "--fine",
        type=_fine_scale,
        default=None,
        metavar="SCALE",
        help="one more locator pass at this fraction of the inference size when the indices found are small (default: "
        "the model card's; 0 = never)",
    )
    parser.add_argument(
        "--workers",
        type=_workers,
        default=DEFAULT_WORKERS,
        help=f"locator passes run at once, one thread each (default {DEFAULT_WORKERS}: this machine's cores, at most "
        f"2; the boxes are the same for any number)",
    )


def _workers(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: at least one worker runs the passes")
    return value


def _fine_scale(text: str) -> float:
    """The fine pass's size as a fraction of the inference size; 0 turns it off."""
    value = _number(text)
    if value != 0 and not 1 < value <= 4:
        raise argparse.ArgumentTypeError(
            f"{text} is outside (1, 4]: the fine pass is larger than the inference size (0 turns it off)"
        )
    return value


def _views(args: argparse.Namespace) -> dict[str, Any]:
    """The options :func:`_add_views` adds, as ``CardDetector.load`` and ``benchmark`` take them (``None``: the
    model card's)."""
    return {
        "scales": tuple(args.scales) if args.scales else None,
        "stretches": None if args.stretches is None else tuple(args.stretches),
        "fine_scale": args.fine,
        "workers": args.workers,
    }


# The build's options, one per Recipe field; a time of 0 means "no time limit: the epochs decide".
RECIPE_HELP = {
    "seed": "seeds the data and both trainings",
    "scenes": "training scenes, drawn with the training designs only",
    "scene_size": "scene side in pixels",
    "closeup_fraction": "share of phone-style close-ups",
    "near_fraction": "share of close-ups held over one card's corner",
    "faces": "face folder (QC.png ...) mixed into scenes and crops; repeatable",
    "tiles_per_image": "native-resolution tiles per training scene (0: none)",
    "crops": "drawn index crops for the classifier (0: none)",
    "crop_size": "the classifier's input side in pixels",
    "locator_model": "YOLO config the locator starts from",
    "imgsz": "the locator's training size",
    "batch": "the locator's batch",
    "locator_epochs": "the locator's epochs",
    "locator_hours": "the locator's time budget in hours (0: none)",
    "locator_init": "a locator .pt this project trained, to continue (e.g. models/dokocam-corners.pt)",
    "locator_val_images": "held-out-design scenes the locator is checked on each epoch (its best epoch by them)",
    "webcam_fraction": "share of table scenes seen by a webcam (small, tilted, distorted, compressed)",
    "odd_print": "share of scenes with a deck reprinted oddly (light on dark, inverted, hue-turned ...)",
    "heldout_scenes": "validation scenes drawn with the held-out designs only, and as many with training designs",
    "classifier_width": "channels of the classifier's first layer",
    "classifier_epochs": "the classifier's epochs",
    "classifier_minutes": "the classifier's time budget in minutes (0: none)",
    "classifier_batch": "the classifier's batch",
    "classifier_lr": "the classifier's peak learning rate",
    "classifier_init": (
        "a classifier checkpoint to continue (same crop size; a narrower one is widened to --classifier-width)"
    ),
    "refiner_epochs": "the box refiner's epochs (0: a model without one)",
    "refiner_minutes": "the box refiner's time budget in minutes (0: none)",
    "refiner_lr": "the box refiner's peak learning rate",
    "refiner_scenes": "training scenes whose located boxes the refiner learns from",
    "refiner_init": "a box refiner checkpoint to continue",
    "hard_epochs": "the classifier's epochs on the hard examples the build's detector mines from its scenes (0: none)",
    "hard_copies": "times each mined crop is in the classifier's data",
    "hard_minutes": "that training's time budget in minutes (0: none)",
    "hard_lr": "that training's peak learning rate",
    "table_classifier_epochs": "epochs of the table frames' classifier, trained on from the photos' with blurred crops",
    "table_classifier_minutes": "its time limit in minutes (0: none)",
    "context_epochs": "epochs of the context classifier the rescorer reads",
    "context_minutes": "its time limit in minutes (0: none)",
    "rescorer_scenes": "scenes of training designs, never trained on, the rescorer is fitted on",
    "rescorer_epochs": "the rescorer's fitting epochs",
    "device": "cpu or a CUDA index such as 0 (default: CUDA if present)",
    "workers": "processes for generation and the locator's data loading",
}


def _recipe_options(parser: argparse.ArgumentParser) -> None:
    from dataclasses import MISSING, fields

    from dokocam.vision.detector.recipe import Recipe

    for spec in fields(Recipe):
        flag = "--" + spec.name.replace("_", "-")
        default = spec.default if spec.default is not MISSING else None
        if spec.name == "faces":
            parser.add_argument(flag, action="append", default=[], metavar="DIR", help=RECIPE_HELP[spec.name])
            continue
        kinds: dict[str, Callable[[str], Any]] = {"int": int, "float": _number}
        kind = kinds.get(type(default).__name__, str)
        parser.add_argument(flag, type=kind, default=default, help=f"{RECIPE_HELP[spec.name]} (default {default})")


def _build(args: argparse.Namespace) -> int:
    from dataclasses import fields

    from dokocam.vision.detector.classifier import ClassifierCheckpointError, CropFileError, DeviceError
    from dokocam.vision.detector.recipe import Recipe, RecipeError, RecipeMismatchError, StageError, build
    from dokocam.vision.detector.train import FromScratchError, InitWeightsError
    from dokocam.vision.synth.faces import FaceFolderError
    from dokocam.vision.yolo import DatasetFolderError

    values = {spec.name: getattr(args, spec.name) for spec in fields(Recipe)}
    values["faces"] = tuple(args.faces)
    for name in (
        "locator_hours",
        "classifier_minutes",
        "refiner_minutes",
        "hard_minutes",
        "table_classifier_minutes",
        "context_minutes",
    ):
        values[name] = values[name] or None
    try:
        report = build(args.out, Recipe(**values), until=args.until, eval_folders=tuple(args.eval))
    except (
        RecipeError,
        RecipeMismatchError,
        StageError,
        ClassifierCheckpointError,
        CropFileError,
        DeviceError,
        DatasetFolderError,
        FromScratchError,
        InitWeightsError,
        FaceFolderError,
    ) as exc:
        raise SystemExit(f"dokocam detector build: {exc}") from None
    if report.model.exists():
        print(f"model: {report.model}")
    for name, scores in report.metrics.items():
        print(f"{name}: F1 {scores['f1']:.3f}, mAP50 {scores['map50']}")
    return 0


def _train(args: argparse.Namespace) -> int:
    from dokocam.vision.detector.train import FromScratchError, InitWeightsError, train_locator

    try:
        result = train_locator(
            args.data,
            model=args.model,
            out=args.out,
            epochs=args.epochs,
            imgsz=args.imgsz,
            batch=args.batch,
            resume=args.resume,
            time_hours=args.time_hours,
            single_cls=args.single_cls,
            workers=args.workers,
            seed=args.seed,
            device=args.device,
            init=args.init,
        )
    except (FromScratchError, InitWeightsError) as exc:
        raise SystemExit(f"dokocam detector train locator: {exc}") from None
    print(f"weights: {result.best} (last: {result.last})")
    return 0


def _train_classifier(args: argparse.Namespace) -> int:
    from dokocam.vision.detector.classifier import (
        ClassifierCheckpointError,
        CropFileError,
        DeviceError,
        train_classifier,
    )

    if not args.data and not args.crops:
        raise SystemExit(
            "dokocam detector train classifier: give training data with --data DIR and/or --crops FILE.npz"
        )
    try:
        metrics = train_classifier(
            args.data,
            args.out,
            val=args.val,
            epochs=args.epochs,
            batch=args.batch,
            width=args.width,
            variants=args.variants,
            small_variants=args.small_variants,
            seed=args.seed,
            time_minutes=args.time_minutes,
            threads=args.threads,
            min_size=args.min_size,
            init=args.init,
            crops=args.crops,
            crop_size=args.crop_size,
            lr=args.lr,
            device=args.device,
            defocus=tuple(args.defocus),
            **({} if args.pad is None else {"pad": args.pad}),
        )
    except (ClassifierCheckpointError, CropFileError, DeviceError) as exc:
        raise SystemExit(f"dokocam detector train classifier: {exc}") from None
    print(json.dumps({"classifier": args.out, **metrics}))
    return 0


def _train_refiner(args: argparse.Namespace) -> int:
    import torch

    from dokocam.vision.detector.classifier import DeviceError
    from dokocam.vision.detector.model import CardDetector, ModelNotFoundError
    from dokocam.vision.detector.refiner import Pairs, RefinerCheckpointError, make_pairs, train_refiner
    from dokocam.vision.yolo import DatasetFolderError, read_folder, train_split

    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        detector = CardDetector.load(args.model)
        locate = lambda image: detector.locate(image).xyxy  # noqa: E731
        train = Pairs.join(
            [
                make_pairs(train_split(d), locate, jittered=args.jittered, seed=args.seed + k, progress=True)
                for k, d in enumerate(args.data)
            ]
        )
        val = (
            Pairs.join(
                [
                    make_pairs(read_folder(d), locate, jittered=args.jittered, seed=args.seed + 1000 + k)
                    for k, d in enumerate(args.val)
                ]
            )
            if args.val
            else None
        )
        print(f"refiner: {len(train)} training pairs" + (f", {len(val)} val pairs" if val is not None else ""))
        metrics = train_refiner(
            train,
            args.out,
            val=val,
            epochs=args.epochs,
            batch=args.batch,
            width=args.width,
            lr=args.lr,
            seed=args.seed,
            time_minutes=args.time_minutes,
            init=args.init,
            device=args.device,
        )
    except (ModelNotFoundError, DatasetFolderError, RefinerCheckpointError, DeviceError, ValueError) as exc:
        raise SystemExit(f"dokocam detector train refiner: {exc}") from None
    print(json.dumps({"refiner": args.out, **metrics}))
    return 0


def _train_rescorer(args: argparse.Namespace) -> int:
    import dataclasses

    import numpy as np

    from dokocam.vision.detector.model import CardDetector, ModelNotFoundError
    from dokocam.vision.detector.rescorer import collect_readings, features_for, fit_rescorer
    from dokocam.vision.yolo import DatasetFolderError, train_split

    for name, value in (("--floor", args.floor), ("--reading-floor", args.reading_floor)):
        if value is not None and not 0 < value < 1:
            raise SystemExit(f"dokocam detector train rescorer: {name} must lie between 0 and 1, got {value}")
    try:
        detector = CardDetector.load(args.model, workers=2)
        folders = [train_split(d) for d in args.data]
    except (ModelNotFoundError, DatasetFolderError) as exc:
        raise SystemExit(f"dokocam detector train rescorer: {exc}") from None
    if detector.reader is None:
        raise SystemExit(
            f"dokocam detector train rescorer: {args.model} has no classifier whose readings could be rescored"
        )
    # Plain reads, with the context classifier's reading where the card names one (what the rescorer reads).
    detector = dataclasses.replace(detector, rescorer=None)
    try:
        parts = [
            collect_readings(
                f, detector, floor=args.floor, reading_floor=args.reading_floor, progress=sys.stderr.isatty()
            )
            for f in folders
        ]
    except ValueError as exc:
        raise SystemExit(f"dokocam detector train rescorer: {exc}") from None
    features, hits = np.concatenate([x for x, _ in parts]), np.concatenate([y for _, y in parts])
    info = {
        "model": str(args.model or "shipped"),
        "data": [str(d) for d in args.data],
        "images": sum(len(f.items) for f in folders),
    }
    rescorer = fit_rescorer(
        features,
        hits,
        hidden=args.hidden,
        epochs=args.epochs,
        seed=args.seed,
        floor=args.floor,
        reading_floor=args.reading_floor,
        weight=detector.card.locate_weight,
        info=info,
        names=features_for(detector.context is not None),
    )
    rescorer.save(args.out)
    print(json.dumps({"rescorer": args.out, **(rescorer.info or {})}))
    return 0


def _ship(args: argparse.Namespace) -> int:
    from dokocam.vision.detector.model import ModelCard
    from dokocam.vision.detector.train import TrainResult, ship

    run = Path(args.run)
    files = {
        key: getattr(args, key)
        for key in ("classifier", "refiner", "table_classifier", "rescorer", "context_classifier")
        if getattr(args, key)
    }
    flat = {
        key: getattr(args, key)
        for key in (
            "target", "imgsz", "conf", "table_imgsz", "locate_conf", "locate_weight", "scales", "stretches",
            "fine_scale", "fine_below", "fine_zoom", "table_conf", "table_locate_conf", "table_locate_weight",
            "rescorer_conf",
        )
    }  # fmt: skip
    card = ModelCard.from_flat({**flat, **{key: Path(name).name for key, name in files.items()}})
    dest = ship(TrainResult(run, run / "weights" / "best.pt", run / "weights" / "last.pt"), args.dest, card, files)
    print(f"shipped {dest}")
    return 0


def _mine_crops(args: argparse.Namespace) -> int:
    import numpy as np

    from dokocam.vision.detector.mining import mine_crops, save_crops
    from dokocam.vision.detector.model import CardDetector, ModelNotFoundError
    from dokocam.vision.yolo import BACKGROUND, DatasetFolderError, train_split

    if args.variants < 1:
        raise SystemExit("dokocam dataset mine: --variants must be 1 or more")
    try:
        detector = CardDetector.load(args.model)
        folders = [train_split(d) for d in args.data]
    except (ModelNotFoundError, DatasetFolderError) as exc:
        raise SystemExit(f"dokocam dataset mine: {exc}") from None
    if detector.reader is None:
        raise SystemExit(f"dokocam dataset mine: {args.model} has no classifier to mine crops for")
    framing = {} if args.pad is None else {"pad": args.pad}
    parts = [
        mine_crops(f, detector, variants=args.variants, seed=args.seed + k, progress=sys.stderr.isatty(), **framing)
        for k, f in enumerate(folders)
    ]
    crops, classes = np.concatenate([c for c, _ in parts]), np.concatenate([y for _, y in parts])
    path = save_crops(args.out, crops, classes, **framing)
    print(
        json.dumps(
            {
                "crops": str(path),
                "background": int((classes == BACKGROUND).sum()),
                "misread": int((classes != BACKGROUND).sum()),
                "images": sum(len(f.items) for f in folders),
            }
        )
    )
    return 0


def _detect(args: argparse.Namespace) -> int:
    from dokocam.engine import CARD_CODES
    from dokocam.vision.decks.adapt import load_detector
    from dokocam.vision.decks.store import DeckError
    from dokocam.vision.detector.model import ModelNotFoundError, UnreadableImageError, iter_images, read_image

    try:
        detector = load_detector(args.model, deck=args.deck, conf=args.conf, imgsz=args.imgsz, **_views(args))
    except (ModelNotFoundError, DeckError) as exc:
        print(f"dokocam detect: {exc}", file=sys.stderr)
        return 2
    failed = 0
    for path in iter_images(args.paths):
        try:
            image = read_image(path)
        except UnreadableImageError as exc:
            failed += 1
            print(json.dumps({"image": str(path), "error": str(exc)}), flush=True)
            continue
        cards = detector.cards(image)
        entries = [
            {"card": CARD_CODES[int(c)], "confidence": round(float(s), 4), "box": [round(float(v), 1) for v in box]}
            for box, s, c in zip(cards.xyxy, cards.confidence, cards.class_id)
        ]
        print(
            json.dumps({"image": str(path), "width": image.shape[1], "height": image.shape[0], "cards": entries}),
            flush=True,
        )
    return 1 if failed else 0


def _eval(args: argparse.Namespace) -> int:
    from dokocam.vision.decks.adapt import load_detector
    from dokocam.vision.decks.store import DeckError
    from dokocam.vision.detector.evaluate import MAP_CONF, evaluate
    from dokocam.vision.detector.model import ModelNotFoundError
    from dokocam.vision.yolo import DatasetFolderError, read_folder

    try:
        folder = read_folder(args.data, split=args.split)
        detector = load_detector(
            args.model,
            deck=args.deck,
            table=args.profile == "table",
            conf=args.conf,
            imgsz=args.imgsz,
            **_views(args),
        )
    except (DatasetFolderError, ModelNotFoundError, DeckError) as exc:
        print(f"dokocam eval: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path("runs") / "eval" / Path(args.data).resolve().name
    map_conf = MAP_CONF if args.map_conf is None else args.map_conf
    report = evaluate(
        detector,
        folder,
        out=out,
        examples=args.examples,
        label_kind=args.labels,
        progress=sys.stderr.isatty(),
        top1=args.top1,
        map_conf=map_conf,
    )
    print(report.table())
    print(f"wrote {out}/metrics.json, confusion.png, examples/")
    return 0


def _export(args: argparse.Namespace) -> int:
    from dokocam.vision.detector.export import export

    model = Path(args.model) if args.model else _default_model()
    print(f"exported {export(model, args.format, imgsz=args.imgsz)}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from dokocam.vision.detector.export import benchmark

    model = Path(args.model) if args.model else _default_model()
    result = benchmark(
        model,
        backend=args.backend,
        frames=args.frames,
        images=Path(args.images) if args.images else None,
        **_views(args),
    )
    print(json.dumps({"backend": args.backend, "model": str(model), **result}))
    return 0
