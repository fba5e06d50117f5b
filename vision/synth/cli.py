"""``dokocam dataset generate``: write a synthetic YOLO dataset of Doppelkopf scenes."""

from __future__ import annotations

import argparse
import time


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    dataset = subparsers.add_parser("dataset", help="synthetic training data")
    actions = dataset.add_subparsers(dest="dataset_command", metavar="ACTION")
    gen = actions.add_parser(
        "generate",
        help="render synthetic Doppelkopf scenes with YOLO labels",
        description="Render synthetic Doppelkopf table scenes and close-ups into an Ultralytics dataset: "
        "OUT/images/{train,val}, OUT/labels/{train,val}, OUT/meta/{train,val} (per-image JSON geometry), OUT/data.yaml.",
    )
    gen.add_argument("out", metavar="OUT", help="output folder (created)")
    gen.add_argument("--images", type=int, required=True, help="number of images")
    gen.add_argument("--seed", type=int, default=0, help="same seed, same images and labels")
    gen.add_argument("--imgsz", type=int, default=640, help="square image side in pixels (default 640)")
    gen.add_argument("--target", choices=("corners", "cards", "both"), default="corners", help="what a label box covers (default corners: one box per visible corner index)")
    gen.add_argument("--val-fraction", type=float, default=0.1, help="share of images in the val split (default 0.1)")
    gen.add_argument("--faces", action="append", default=[], metavar="DIR", help="folder of face images named by code (QC.png ...); repeatable")
    gen.add_argument("--closeup-fraction", type=float, default=0.5, help="share of phone-style close-ups (default 0.5)")
    gen.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    gen.set_defaults(func=_generate)
    dataset.set_defaults(func=lambda args: dataset.print_help() or 2)


def _generate(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from vision.synth.dataset import SceneConfig, write_dataset
    from vision.synth.faces import FaceFolderError

    if not 0 <= args.closeup_fraction <= 1:
        raise SystemExit(f"--closeup-fraction must be in [0, 1], got {args.closeup_fraction}")
    config = SceneConfig(imgsz=args.imgsz, closeup_fraction=args.closeup_fraction)
    start = time.perf_counter()
    labels = 0
    try:
        progress = write_dataset(
            args.out,
            args.images,
            args.seed,
            config=config,
            target=args.target,
            val_fraction=args.val_fraction,
            folders=args.faces,
            workers=args.workers,
        )
        for count in tqdm(progress, total=args.images, unit="img", desc="generate"):
            labels += count
    except (FaceFolderError, ValueError) as exc:
        raise SystemExit(f"dokocam dataset generate: {exc}") from None
    elapsed = time.perf_counter() - start
    print(f"{args.images} images, {labels} labels in {elapsed:.1f} s ({args.images / elapsed:.1f} images/s) -> {args.out}/data.yaml")
    return 0
