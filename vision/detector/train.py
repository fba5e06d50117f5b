"""Training from scratch: the YOLO locator (Ultralytics) and the index classifier.

Only model configs (``*.yaml``) start a run: no pretrained hub weights exist on this machine and
none may be downloaded. A run can be resumed from its ``weights/last.pt``.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dokocam.vision.detector.model import ModelCard

CONFIG_DIR = Path(str(files("dokocam.vision.detector") / "configs"))


class FromScratchError(ValueError):
    """Training was asked to start from weights; only model configs (``.yaml``) may start a run."""


class InitWeightsError(ValueError):
    """``init`` is not a local weights file: a run may continue this project's own weights, never fetch any."""


class ResumeError(ValueError):
    """There is no ``weights/last.pt`` to resume from in the run folder."""


@dataclass(frozen=True)
class TrainResult:
    """Where a run left its weights."""

    run_dir: Path
    best: Path
    last: Path


def resolve_config(model: str) -> str:
    """A model config path: a file, one of ours (``yolo11t.yaml``), or an Ultralytics name (``yolo11n.yaml``).

    Raises:
        FromScratchError: ``model`` is a weights file.
    """
    if not model.endswith((".yaml", ".yml")):
        raise FromScratchError(
            f"{model!r} is not a model config: dokocam trains from scratch only (e.g. --model yolo11n.yaml)"
        )
    if Path(model).exists():
        return str(Path(model))
    ours = CONFIG_DIR / model
    return str(ours) if ours.exists() else model


def check_init(init: str | Path | None, flag: str = "--init") -> None:
    """Refuses ``init`` unless it is an existing local ``.pt`` file (``None`` passes).

    Ultralytics would try to download a missing name such as ``yolo11n.pt``; this refuses before it can.

    Raises:
        InitWeightsError: ``init`` is not such a file; the message names the option ``flag``.
    """
    if init is not None and not (Path(init).is_file() and str(init).endswith(".pt")):
        raise InitWeightsError(
            f"{flag} {init}: not a local .pt file (only weights this project trained may start a run)"
        )


def init_config(init: str | Path) -> str:
    """The model config a locator ``.pt`` this project trained was built from (``yolo11t.yaml`` for the shipped one).

    Raises:
        InitWeightsError: ``init`` holds no detector built from a config.
    """
    import torch

    checkpoint = torch.load(init, map_location="cpu", weights_only=False)
    network = checkpoint.get("ema") or checkpoint.get("model") if isinstance(checkpoint, dict) else None
    config = getattr(network, "yaml", None)
    if not isinstance(config, dict) or not config.get("yaml_file"):
        raise InitWeightsError(f"--init {init}: holds no YOLO detector this project trained")
    return resolve_config(Path(str(config["yaml_file"])).name)


def train_locator(
    data: str | Path,
    *,
    model: str | None = None,
    out: str | Path = "runs/detector",
    epochs: int = 30,
    imgsz: int = 640,
    batch: int = 16,
    resume: bool = False,
    time_hours: float | None = None,
    single_cls: bool = False,
    workers: int = 2,
    seed: int = 0,
    device: str | None = None,
    init: str | Path | None = None,
    **overrides: object,
) -> TrainResult:
    """Trains an Ultralytics YOLO from a config on a YOLO ``data.yaml``.

    Args:
        data: dataset YAML (``train``/``val`` image folders, 24 card names).
        model: model config; ``yolo11t.yaml`` is dokocam's thin variant. By default ``init``'s own config, or
            ``yolo11n.yaml`` without ``init``.
        out: run folder (``runs/NAME``); ``weights/best.pt`` and ``last.pt`` land inside.
        epochs: passes over the training images.
        imgsz: training size; smaller trains faster and sees small cards worse.
        resume: continue ``out/weights/last.pt`` with its own settings.
        time_hours: wall-clock budget; Ultralytics fits the learning-rate schedule to it.
        single_cls: learn one class (a locator whose boxes a classifier names).
        device: ``"cpu"`` or a CUDA index; by default CUDA when present.
        init: a local ``.pt`` this project trained earlier (e.g. the shipped locator) whose weights
            start the new run: a longer schedule on more data without repeating the first hours. It starts
            gently (AdamW, lr 0.0005 falling to a fifth, no warm-up) unless ``overrides`` say otherwise.

    Raises:
        FromScratchError: ``model`` is a weights file.
        InitWeightsError: ``init`` is not an existing local ``.pt`` file, or ``model`` is another architecture
            than ``init``'s (most of its weights would be dropped).
        ResumeError: ``resume`` without a ``last.pt``.
    """
    from dokocam.vision.yolo import ultralytics_yolo

    YOLO = ultralytics_yolo()
    out = Path(out).resolve()
    check_init(init)
    if init is not None and not resume:
        own = init_config(init)
        if model is not None and Path(resolve_config(model)).name != Path(own).name:
            raise InitWeightsError(
                f"--init {init} is a {Path(own).stem} network; --model {model} would keep only part of its weights "
                f"(leave --model out, or name {Path(own).name})"
            )
        model = own
    if resume:
        last = out / "weights" / "last.pt"
        if not last.exists():
            raise ResumeError(f"cannot resume: {last} does not exist (start the run without --resume)")
        # Where and with how many loaders may change on resume (Ultralytics allows it); nothing else.
        moved = {k: v for k, v in (("device", device), ("workers", workers)) if v is not None}
        YOLO(str(last)).train(resume=True, **moved)
    else:
        import torch

        if device is None:
            device = "0" if torch.cuda.is_available() else "cpu"
        args: dict[str, object] = dict(
            data=str(data),
            epochs=epochs,
            imgsz=imgsz,
            batch=batch,
            project=str(out.parent),
            name=out.name,
            exist_ok=True,
            pretrained=str(Path(init).resolve()) if init is not None else False,
            # Ultralytics' AMP self-check on a GPU downloads yolo26n.pt (minutes of retries offline); a
            # locator this small is bound by its data loading, not by fp32 arithmetic.
            amp=False,
            plots=False,  # plotting labels fetches a font
            single_cls=single_cls,
            workers=workers,
            seed=seed,
            deterministic=False,
            device=device,
            # Cards are not mirror-symmetric: a flipped "K" or suit is not a real index.
            fliplr=0.0,
            val=True,
        )
        if time_hours is not None:
            args["time"] = time_hours
        if init is not None:
            # A trained network is continued gently: a fresh warm-up at the from-scratch rate would undo it.
            args.update(optimizer="AdamW", lr0=0.0005, lrf=0.2, warmup_epochs=0)
        args.update(overrides)
        YOLO(resolve_config(model or "yolo11n.yaml")).train(**args)
    return TrainResult(run_dir=out, best=out / "weights" / "best.pt", last=out / "weights" / "last.pt")


def ship(
    result: TrainResult, destination: str | Path, card: ModelCard, checkpoints: dict[str, str | Path] | None = None
) -> Path:
    """Copies a run's best weights to ``destination``, the ``checkpoints`` beside them (the card names
    them by file name), and writes ``card`` as the model card JSON beside them."""
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(result.best, destination)
    for checkpoint in (checkpoints or {}).values():
        name = Path(checkpoint).name
        if Path(checkpoint).resolve() != (destination.parent / name).resolve():
            shutil.copyfile(checkpoint, destination.parent / name)
    card.save(destination)
    return destination
