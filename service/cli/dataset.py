"""``dokocam dataset``: write synthetic YOLO datasets of Doppelkopf scenes, index crops and tiles."""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dokocam.vision.synth.dataset import SceneConfig

# The names of vision.synth.perturb's changes, spelled here so that building the CLI's help imports
# no OpenCV (`dokocam score` stays instant); tests/vision/test_perturb.py keeps the two the same.
LIGHT_KINDS = ("dark", "bright", "washed", "shadow", "warm", "grey", "noise", "blur", "jpeg30")
PERTURB_KINDS = ("rot90", "rot180", "rot270", *LIGHT_KINDS)


def register(groups: Mapping[str, Any]) -> None:
    """Adds this module's verbs to the ``dokocam`` parser's groups (``top``, ``bench``, ...)."""
    actions = groups["dataset"]
    gen = actions.add_parser(
        "generate",
        help="render synthetic Doppelkopf scenes with YOLO labels",
        description="Render synthetic Doppelkopf table scenes and close-ups into an Ultralytics dataset: "
        "OUT/images/{train,val}, OUT/labels/{train,val}, OUT/meta/{train,val} (per-image JSON geometry), "
        "OUT/data.yaml.",
    )
    gen.add_argument("out", metavar="OUT", help="output folder (created)")
    gen.add_argument("--images", type=int, required=True, help="number of images")
    gen.add_argument("--seed", type=int, default=0, help="same seed, same images and labels")
    gen.add_argument("--imgsz", type=int, default=640, help="square image side in pixels (default 640)")
    gen.add_argument(
        "--target",
        choices=("corners", "cards", "both"),
        default="corners",
        help="what a label box covers (default corners: one box per visible corner index)",
    )
    gen.add_argument("--val-fraction", type=float, default=0.1, help="share of images in the val split (default 0.1)")
    gen.add_argument(
        "--faces",
        action="append",
        default=[],
        metavar="DIR",
        help="folder of face images named by code (QC.png ...); repeatable",
    )
    gen.add_argument("--closeup-fraction", type=float, default=0.5, help="share of phone-style close-ups (default 0.5)")
    gen.add_argument(
        "--near-fraction",
        type=float,
        default=0.0,
        help="share of close-ups held over one card's corner, its index about a tenth to a quarter of the frame "
        "(default 0)",
    )
    gen.add_argument(
        "--designs",
        choices=("train", "heldout"),
        default=None,
        help="draw only the training or only the held-out card designs (fonts, SVG decks; datasets/designs.md); "
        "default: every procedural font and only the --faces folders",
    )
    gen.add_argument(
        "--webcam-fraction",
        type=float,
        default=0.0,
        help="share of table scenes seen by a webcam: 640x480 or 720p, indices 8-14 px, tilted up to 50 degrees, "
        "wide-angle lens, video compression (default 0)",
    )
    gen.add_argument(
        "--odd-print",
        type=float,
        default=0.0,
        help="share of scenes whose deck is reprinted oddly: light ink on dark stock (white, gold, silver), inverted, "
        "hue-turned, four-colour, thinner or bolder, courts without indices (default 0)",
    )
    gen.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    gen.set_defaults(func=_generate)

    crops = actions.add_parser(
        "crops",
        help="render index crops for the crop classifier (train-classifier --crops)",
        description="Render square crops around single corner indices (and non-index look-alikes, class 24) "
        "into one .npz file (x: uint8 BGR crops, y: class ids), for `dokocam detector train classifier --crops`.",
    )
    crops.add_argument("out", metavar="OUT.npz", help="output file")
    crops.add_argument("--crops", type=int, required=True, help="number of crops")
    crops.add_argument("--seed", type=int, default=0, help="same seed, same crops")
    crops.add_argument("--size", type=int, default=32, help="crop side in pixels (default 32, the classifier's input)")
    crops.add_argument(
        "--faces",
        action="append",
        default=[],
        metavar="DIR",
        help="folder of face images named by code (QC.png ...); repeatable",
    )
    crops.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    crops.set_defaults(func=_crops)

    tiles = actions.add_parser(
        "tiles",
        help="cut native-resolution tiles of a labelled folder (small indices at their drawn size)",
        description="Cut SIZE px windows out of a labelled folder's images at their own resolution, each holding "
        "its labels whole (none cut in two), into OUT/images/<split>, OUT/labels/<split>, OUT/data.yaml. A locator "
        "trained at SIZE on these and on the whole scenes sees small indices as a full-resolution pass shows them.",
    )
    tiles.add_argument(
        "source", metavar="SOURCE", help="labelled folder (images/<split> + labels/<split>) or its data.yaml"
    )
    tiles.add_argument("out", metavar="OUT", help="output folder (created)")
    tiles.add_argument(
        "--size", type=int, default=320, help="tile side in pixels (default 320, the locator's training size)"
    )
    tiles.add_argument(
        "--per-image",
        type=int,
        default=1,
        help="tiles per image; later ones prefer labels the earlier missed (default 1)",
    )
    tiles.add_argument("--split", default="train", help="split to cut (default train)")
    tiles.add_argument("--seed", type=int, default=0, help="same seed, same windows")
    tiles.set_defaults(func=_tiles)

    perturbed = actions.add_parser(
        "perturb",
        help="copies of a labelled folder under changes of light and camera (dark, washed out, turned ...), to eval "
        "each",
        description="Write OUT/<kind>/ for each perturbation: the folder's images changed (turned by quarter turns, "
        "darker, brighter, washed out, a lamp's shadow, a warm cast, grey, noisy, blurred, JPEG quality 30) with "
        "their labels and ignore boxes moved along. `dokocam eval OUT/<kind>` then says what each change costs "
        "a detector on the same cards.",
    )
    perturbed.add_argument(
        "source", metavar="SOURCE", help="labelled folder (images/ + labels/, or images/<split>) or its data.yaml"
    )
    perturbed.add_argument("out", metavar="OUT", help="output folder (created)")
    perturbed.add_argument(
        "--kinds", default="all", help="comma-separated perturbations, or 'all' (default): " + ", ".join(PERTURB_KINDS)
    )
    perturbed.add_argument(
        "--split", default=None, help="sub-split to read (val, train; default: the folder itself, else val, else train)"
    )
    perturbed.set_defaults(func=_perturb)

    faces = actions.add_parser(
        "faces",
        help="write a drawn deck as a face folder (QC.png ...), e.g. with a font the detector never saw",
        description="Draw one deck the way the generator does (style chosen by --seed) and write its 24 faces "
        "as PNG images named by card code: a face folder for `dataset generate --faces`, "
        "`dataset render-game --faces` and `bench table --faces`.",
    )
    faces.add_argument("out", metavar="OUT", help="output folder (created)")
    faces.add_argument("--seed", type=int, default=0, help="picks the style: colours, index letters, proportions, font")
    faces.add_argument(
        "--font", metavar="TTF", help="draw the indices with this TrueType font file instead of the seed's"
    )
    faces.add_argument("--width", type=int, default=360, help="face width in pixels (default 360)")
    faces.set_defaults(func=_faces)

    game = actions.add_parser(
        "game-frames",
        help="frames of rendered whole games with their corner-index labels (the table classifier's data)",
        description="Render whole games (seeds SEED ...) as the table camera sees them during play and write FRAMES "
        "frames of each, JPEG-compressed at a random quality of 35-85, with one label per visible corner index: "
        "OUT/images/SPLIT, OUT/labels/SPLIT.",
    )
    game.add_argument("out", metavar="OUT", help="output folder (created)")
    game.add_argument(
        "--designs",
        required=True,
        help="train or heldout (the split's designs, cycled by seed), or design names separated by commas "
        "(svg:nicu-white,font:stix ...; cycled from the first seed)",
    )
    game.add_argument("--seed", type=int, required=True, help="the first game's seed")
    game.add_argument("--games", type=int, required=True)
    game.add_argument("--frames", type=int, default=10, help="frames drawn from each game (default 10)")
    game.add_argument("--split", default="train", help="sub-folder of images/ and labels/ (default train)")
    game.set_defaults(func=_game_frames)

    preview = actions.add_parser("preview", help="write a contact sheet of generated scenes with their label boxes")
    preview.add_argument("out", metavar="PNG", help="output image path")
    preview.add_argument("--images", type=int, default=16, help="number of scenes (default 16)")
    preview.add_argument("--seed", type=int, default=0)
    preview.add_argument("--imgsz", type=int, default=640)
    preview.add_argument("--target", choices=("corners", "cards", "both"), default="corners")
    preview.add_argument("--faces", action="append", default=[], metavar="DIR")
    preview.add_argument("--closeup-fraction", type=float, default=0.5)
    preview.add_argument("--near-fraction", type=float, default=0.0, help="as for generate")
    preview.set_defaults(func=_preview)

    bench = groups["bench"].add_parser("dataset", help="measure generation speed (dataset images/s, 1280x720 frame ms)")
    bench.add_argument("--images", type=int, default=40, help="dataset images to time (default 40)")
    bench.add_argument("--frames", type=int, default=50, help="video frames to time (default 50)")
    bench.set_defaults(func=_benchmark)


def _scene_config(args: argparse.Namespace) -> SceneConfig:
    """The scene settings of ``generate`` and ``preview``, both fractions checked."""
    from dokocam.vision.synth.dataset import SceneConfig

    for name in ("closeup_fraction", "near_fraction", "webcam_fraction", "odd_print"):
        value = getattr(args, name, 0.0)
        if not 0 <= value <= 1:
            raise SystemExit(f"--{name.replace('_', '-')} must be in [0, 1], got {value}")
    return SceneConfig(
        imgsz=args.imgsz,
        closeup_fraction=args.closeup_fraction,
        near_fraction=args.near_fraction,
        designs=getattr(args, "designs", None),
        webcam_fraction=getattr(args, "webcam_fraction", 0.0),
        odd_print=getattr(args, "odd_print", 0.0),
    )


def _generate(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from dokocam.vision.synth.dataset import write_dataset
    from dokocam.vision.synth.faces import FaceFolderError
    from dokocam.vision.synth.svgdecks import SvgDeckError

    config = _scene_config(args)
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
    except (FaceFolderError, SvgDeckError, ValueError) as exc:
        raise SystemExit(f"dokocam dataset generate: {exc}") from None
    elapsed = time.perf_counter() - start
    print(
        f"{args.images} images, {labels} labels in {elapsed:.1f} s ({args.images / elapsed:.1f} images/s) -> "
        f"{args.out}/data.yaml"
    )
    return 0


def _crops(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from dokocam.vision.synth.crops import CropConfig, write_crops
    from dokocam.vision.synth.faces import FaceFolderError, load_face_folder

    if args.crops < 1 or args.size < 8:
        raise SystemExit("dokocam dataset crops: --crops must be >= 1 and --size >= 8")
    try:
        for folder in args.faces:
            load_face_folder(folder)
    except FaceFolderError as exc:
        raise SystemExit(f"dokocam dataset crops: {exc}") from None
    start = time.perf_counter()
    with tqdm(total=args.crops, unit="crop", desc="crops") as bar:
        for count in write_crops(args.out, args.crops, args.seed, CropConfig(size=args.size), args.faces, args.workers):
            bar.update(count)
    elapsed = time.perf_counter() - start
    print(f"{args.crops} crops in {elapsed:.1f} s ({args.crops / elapsed:.0f} crops/s) -> {args.out}")
    return 0


def _faces(args: argparse.Namespace) -> int:
    from dataclasses import replace
    from pathlib import Path

    from dokocam.vision.synth.faces import write_face_folder
    from dokocam.vision.synth.scene import Deck

    if args.width < 40:
        raise SystemExit("dokocam dataset faces: --width must be at least 40 pixels")
    # The generator's own draw, so a seed gives the deck its scenes show for that seed.
    style = Deck.procedural(args.seed, face_width=args.width).style
    if args.font:
        font = Path(args.font).resolve()
        if not font.is_file():
            raise SystemExit(f"dokocam dataset faces: --font {args.font}: no such file")
        from PIL import ImageFont

        try:
            ImageFont.truetype(str(font), size=20)
        except OSError as exc:
            raise SystemExit(f"dokocam dataset faces: --font {args.font} is not a font PIL can read ({exc})") from None
        style = replace(style, font=str(font))
    try:
        files = write_face_folder(args.out, style, seed=args.seed)
    except OSError as exc:
        raise SystemExit(f"dokocam dataset faces: {exc}") from None
    letters = "".join(style.letters[r] for r in ("J", "Q", "K", "A"))
    colours = "four-colour" if style.inks["S"] != style.inks["C"] else "two-colour"
    print(f"{len(files)} faces ({letters}, {colours}, font {Path(style.font).name}) -> {args.out}")
    return 0


def _game_frames(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from dokocam.vision.synth.gameframes import frame_designs, write_game_frames

    if args.games < 1 or args.frames < 1:
        raise SystemExit("dokocam dataset game-frames: --games and --frames must be at least 1")
    try:
        designs = frame_designs(args.designs)
    except ValueError as exc:
        raise SystemExit(f"dokocam dataset game-frames: --designs: {exc}") from None
    progress = write_game_frames(
        args.out, designs, seed=args.seed, games=args.games, frames=args.frames, split=args.split
    )
    for _ in tqdm(progress, total=args.games, unit="game", desc="game frames"):
        pass
    print(f"{args.games} games, up to {args.frames} frames each -> {args.out}/images/{args.split}")
    return 0


def _tiles(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from dokocam.vision.synth.tiles import TileError, write_tiles
    from dokocam.vision.yolo import DatasetFolderError

    try:
        total, progress = write_tiles(
            args.source, args.out, size=args.size, per_image=args.per_image, split=args.split, seed=args.seed
        )
    except (DatasetFolderError, TileError) as exc:
        raise SystemExit(f"dokocam dataset tiles: {exc}") from None
    for _ in tqdm(progress, total=total, unit="img", desc="tiles"):
        pass
    print(f"{total} images cut into {args.size} px tiles -> {args.out}/data.yaml")
    return 0


def _perturb(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from dokocam.vision.synth.perturb import KINDS, PerturbError, write_perturbed
    from dokocam.vision.yolo import DatasetFolderError

    kinds = list(KINDS) if args.kinds == "all" else [k.strip() for k in args.kinds.split(",") if k.strip()]
    try:
        total, progress = write_perturbed(args.source, args.out, kinds, split=args.split)
    except (DatasetFolderError, PerturbError) as exc:
        raise SystemExit(f"dokocam dataset perturb: {exc}") from None
    for _ in tqdm(progress, total=total, unit="img", desc="perturb"):
        pass
    print(f"{total} images x {len(kinds)} perturbations -> {args.out}/<kind>: " + ", ".join(kinds))
    return 0


def _preview(args: argparse.Namespace) -> int:
    import cv2

    from dokocam.vision.synth.dataset import DeckPool, generate_image
    from dokocam.vision.synth.faces import FaceFolderError, load_face_folder
    from dokocam.vision.synth.preview import contact_sheet, draw_labels

    try:
        for folder in args.faces:
            load_face_folder(folder)
    except FaceFolderError as exc:
        raise SystemExit(f"dokocam dataset preview: {exc}") from None
    config = _scene_config(args)
    pool = DeckPool(args.seed, config.procedural_decks, args.faces)
    shown = [draw_labels(*generate_image(i, args.seed, config, pool), target=args.target) for i in range(args.images)]
    if not cv2.imwrite(args.out, contact_sheet(shown)):
        raise SystemExit(f"dokocam dataset preview: cannot write {args.out}")
    print(args.out)
    return 0


def _benchmark(args: argparse.Namespace) -> int:
    from dokocam.vision.bench.dataset import benchmark

    print(benchmark(images=args.images, frames=args.frames))
    return 0
