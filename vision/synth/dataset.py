"""Random Doppelkopf scenes and the YOLO dataset written from them.

Image ``i`` of a dataset depends only on ``(seed, i)``, so any split of the work over processes
gives byte-identical labels.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from dokocam.vision.synth.designs import (
    check_folders,
    design_of_folder,
    design_of_font,
    font_families,
    split_svg_decks,
)
from dokocam.vision.synth.faces import CARD_CODES, DISTRACTOR_CODES, Face, load_face_folder
from dokocam.vision.synth.optics import video_codec, webcam_camera, webcam_look
from dokocam.vision.synth.print import odd_print
from dokocam.vision.synth.scene import (
    Arm,
    Camera,
    Deck,
    Look,
    PlacedCard,
    Prop,
    SceneAnnotation,
    Table,
    card_corners_cm,
    render_scene,
)
from dokocam.vision.synth.svgdecks import svg_face_folders

SIDES_DEG = (0.0, 90.0, 180.0, 270.0)  # bottom, right, top, left player (card angle for each)

SKIN_TONES = ((160, 190, 235), (130, 165, 215), (100, 140, 200), (80, 110, 165), (55, 80, 120), (40, 60, 90))
SLEEVES = ((40, 40, 40), (120, 60, 20), (200, 200, 200), (50, 50, 140), (60, 110, 60), (150, 150, 150), (30, 30, 90))


@dataclass(frozen=True)
class SceneConfig:
    """What the generator draws.

    Attributes:
        imgsz: image side in pixels (images are square, as YOLO trains on them).
        closeup_fraction: share of phone-style close-ups of 1-3 cards (the rest are whole tables).
        procedural_decks: how many drawn deck designs to rotate through.
        folder_fraction: share of scenes using a face folder's deck (when folders are given).
        distractors: probability that close-ups include non-Doppelkopf cards (2-8), unlabelled.
        near_fraction: share of close-ups taken nearer, over one card's corner: the largest index
            is about a tenth to a quarter of the frame (median 0.18 of its height, against 0.12 for
            the other close-ups), as in a phone photo of one or two cards (0 draws none and leaves
            a seed's scenes as without the option).
        designs: ``None`` draws every procedural font and only the given face folders (a seed's scenes as
            without the option); ``"train"`` or ``"heldout"`` draws only that split's designs
            (:mod:`~dokocam.vision.synth.designs`): its font families, its SVG decks, and refuses face
            folders of the other split.
        webcam_fraction: share of table scenes seen by a webcam (:mod:`~dokocam.vision.synth.optics`):
            640x480 or 1280x720 frames, indices 8-14 px high, tilted, distorted, compressed.
        odd_print: share of scenes whose deck is reprinted oddly (:mod:`~dokocam.vision.synth.print`: light
            ink on dark stock, inverted, hue-turned, four-colour, thinner or bolder, courts without indices).
    """

    imgsz: int = 640
    closeup_fraction: float = 0.5
    procedural_decks: int = 64
    folder_fraction: float = 0.3
    distractors: float = 0.25
    near_fraction: float = 0.0
    designs: str | None = None
    webcam_fraction: float = 0.0
    odd_print: float = 0.0


class DeckPool:
    """Decks for a dataset: drawn ones by number and face folders, each built once per process.

    With ``designs`` (``"train"`` or ``"heldout"``) each drawn deck takes one of the split's font families
    (each family equally often, by the deck's number), so no font of the other split is ever drawn.
    """

    def __init__(self, seed: int, count: int, folders: Sequence[str | Path] = (), designs: str | None = None) -> None:
        self.seed = seed
        self.count = count
        self.folders = [Path(f) for f in folders]
        self.families = font_families(designs) if designs else ()  # type: ignore[arg-type]
        self._decks: dict[tuple[str, int], Deck] = {}
        self._folder_faces: dict[int, dict[str, Face]] = {}

    def procedural(self, k: int) -> Deck:
        key = ("p", k)
        if key not in self._decks:
            # 360 px faces stay sharp in close-ups where a card spans most of a 640 px frame.
            deck = Deck.procedural(seed=self.seed * 1000 + k, face_width=360)
            if self.families:
                # Each of the split's font families equally often, whatever fonts the drawn styles know.
                number = self.seed * 1000 + k
                family = self.families[number % len(self.families)]
                font = family.fonts[(number // len(self.families)) % len(family.fonts)]
                deck = Deck(replace(deck.style, font=font), deck.seed, size_cm=deck.size_cm)
            self._decks[key] = deck
        return self._decks[key]

    def odd(self, deck: Deck, key: tuple[str, int], variant: int) -> Deck:
        """``deck`` (pool ``key``) reprinted by odd print ``variant`` (drawn from the pool's seed), built once."""
        odd_key = (f"{key[0]}-odd{variant}", key[1])
        if odd_key not in self._decks:
            rng = np.random.default_rng(np.random.SeedSequence([self.seed, 43, key[1], variant, key[0] == "f"]))
            change = odd_print(rng)
            faces = {code: change(deck.face(code)) for code in CARD_CODES}
            odd = Deck.from_faces(faces, seed=deck.seed, width_cm=deck.size_cm[0])
            self._decks[odd_key] = odd
        return self._decks[odd_key]

    def design(self, key: tuple[str, int]) -> str:
        """The name of the design pool deck ``key`` shows (a face folder of no known design: ``folder:NAME``)."""
        if key[0] == "f":
            found = design_of_folder(self.folders[key[1]])
            return found.name if found else f"folder:{self.folders[key[1]].name}"
        font = design_of_font(self.procedural(key[1]).style.font)
        return font.name if font else ""

    def folder(self, k: int) -> Deck:
        key = ("f", k)
        if key not in self._decks:
            if k not in self._folder_faces:
                self._folder_faces[k] = load_face_folder(self.folders[k])
            self._decks[key] = Deck.from_faces(self._folder_faces[k], seed=self.seed * 1000 + 500 + k)
        return self._decks[key]


def _rot(v: np.ndarray, deg: float) -> np.ndarray:
    a = math.radians(deg)
    # Same sense as PlacedCard.angle_deg: counter-clockwise seen from above with y down.
    return np.array([v[0] * math.cos(a) + v[1] * math.sin(a), -v[0] * math.sin(a) + v[1] * math.cos(a)])


def _arm_from(rng: np.random.Generator, side_deg: float, reach: np.ndarray, distance: float) -> Arm:
    start = _rot(np.array([rng.uniform(-15, 15), distance]), side_deg)
    sleeve = SLEEVES[int(rng.integers(len(SLEEVES)))] if rng.random() < 0.7 else None
    return Arm(
        tuple(start), tuple(reach), float(rng.uniform(5.5, 8.0)), SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], sleeve
    )


def random_props(rng: np.random.Generator, near_cm: float) -> list[Prop]:
    """Clutter around the cards: a phone, coins, a pen, or the table's edge ``near_cm`` or more away."""
    props: list[Prop] = []
    for _ in range(int(rng.integers(1, 3))):
        kind = int(rng.integers(4))
        direction = float(rng.uniform(0, 360))
        centre = _rot(np.array([0.0, near_cm * rng.uniform(1.0, 1.6)]), direction)
        angle = float(rng.uniform(0, 360))
        if kind == 0:  # the table's edge and the floor beyond it, facing away from the cards
            angle = direction
            pts = [(-300.0, 0.0), (300.0, 0.0), (300.0, 300.0), (-300.0, 300.0)]
            v = int(rng.integers(10, 120))
            colour, height = (v, v, v + int(rng.integers(0, 20))), 0.0
        elif kind == 1:  # a phone
            pts = [(-3.6, -7.5), (3.6, -7.5), (3.6, 7.5), (-3.6, 7.5)]
            v = int(rng.integers(10, 50))
            colour, height = (v, v, v), 0.8
        elif kind == 2:  # a coin
            t = np.linspace(0, 2 * math.pi, 20, endpoint=False)
            r = float(rng.uniform(0.8, 1.3))
            pts = [(r * math.cos(a), r * math.sin(a)) for a in t]
            colour, height = ((60, 150, 190) if rng.random() < 0.5 else (170, 170, 170)), 0.2
        else:  # a pen or pencil
            pts = [(-0.45, -7.0), (0.45, -7.0), (0.45, 7.0), (-0.45, 7.0)]
            colour, height = tuple(int(c) for c in rng.integers(20, 230, 3)), 0.9  # type: ignore[assignment]
        outline = tuple(tuple(float(c) for c in _rot(np.array(p), angle) + centre) for p in pts)
        props.append(Prop(outline, colour, height))  # type: ignore[arg-type]
    return props


def table_scene(
    rng: np.random.Generator, deck: Deck, imgsz: int
) -> tuple[list[PlacedCard], list[Arm], Camera, list[Prop]]:
    """A whole table: the current trick in the middle, won tricks and hands around it."""
    cards: list[PlacedCard] = []
    # Won tricks: face-down piles in front of players.
    for side in SIDES_DEG:
        for _ in range(int(rng.integers(0, 3))):
            spot = _rot(np.array([rng.uniform(-25, 25), rng.uniform(25, 45)]), side)
            for _ in range(int(rng.integers(1, 5))):
                jitter = spot + rng.normal(0, 0.6, 2)
                cards.append(
                    PlacedCard(
                        "back",
                        tuple(jitter),
                        side + float(rng.normal(0, 20)) + float(rng.choice([0, 90])),
                        face_up=False,
                    )
                )
    # A previous trick being gathered sometimes lies face up and messy.
    if rng.random() < 0.15:
        spot = _rot(np.array([rng.uniform(-20, 20), rng.uniform(15, 30)]), float(rng.choice(SIDES_DEG)))
        for _ in range(int(rng.integers(2, 5))):
            cards.append(
                PlacedCard(str(rng.choice(CARD_CODES)), tuple(spot + rng.normal(0, 2.0, 2)), float(rng.uniform(0, 360)))
            )
    # The current trick: up to four cards, each pushed in from its player's side, in play order.
    n = int(rng.choice([0, 1, 2, 3, 4, 4], p=[0.05, 0.15, 0.2, 0.25, 0.2, 0.15]))
    leader = int(rng.integers(4))
    codes = [str(c) for c in rng.choice(CARD_CODES, size=n)]
    if n >= 2 and rng.random() < 0.2:
        codes[int(rng.integers(1, n))] = codes[0]  # both copies of a card in one trick
    spread = rng.uniform(2.5, 10.0)
    for k, code in enumerate(codes):
        side = SIDES_DEG[(leader + k) % 4]
        offset = np.array([rng.normal(0, 2.5), spread + rng.normal(0, 2.0)])
        angle = side + float(rng.normal(0, 12 if rng.random() < 0.8 else 40))
        cards.append(PlacedCard(code, tuple(_rot(offset, side)), angle))
    arms = []
    # Hands held low over the table's edge: a fan of backs and the hand holding it.
    for side in SIDES_DEG:
        if rng.random() < 0.2:
            grip = _rot(np.array([rng.uniform(-15, 15), rng.uniform(38, 50)]), side)
            spread = rng.uniform(6, 14)
            count = int(rng.integers(3, 10))
            for k in range(count):
                fan = side + 180 + (k - (count - 1) / 2) * spread / count * 3
                tip = grip + _rot(np.array([0.0, -4.0]), fan - 180)
                cards.append(PlacedCard("back", tuple(tip), float(fan), face_up=False))
            arms.append(_arm_from(rng, side, grip + _rot(np.array([0.0, 2.0]), side), 75.0))
    for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
        side = float(rng.choice(SIDES_DEG))
        reach = _rot(np.array([rng.uniform(-12, 12), rng.uniform(0, 25)]), side)
        arms.append(_arm_from(rng, side, reach, 70.0))
    camera = Camera(
        width=imgsz,
        height=imgsz,
        view_width_cm=float(rng.uniform(30, 85)),  # 85 cm over 640 px: an index is still ~10 px
        tilt_deg=float(min(abs(rng.normal(0, 15)), 35)),
        tilt_toward_deg=float(rng.uniform(0, 360)),
        yaw_deg=float(rng.uniform(0, 360)),
        target=(float(rng.normal(0, 4)), float(rng.normal(0, 4))),
        fov_deg=float(rng.uniform(45, 80)),
        k1=float(rng.uniform(-0.08, 0.15)) if rng.random() < 0.5 else 0.0,
        stretch=float(rng.uniform(0.9, 1.1)) if rng.random() < 0.3 else 1.0,
    )
    return cards, arms, camera, []


def closeup_scene(
    rng: np.random.Generator, deck: Deck, imgsz: int, distractors: float, near: bool = False
) -> tuple[list[PlacedCard], list[Arm], Camera, list[Prop]]:
    """A phone photo of one to three cards filling much of the frame, or of a spread of several
    overlapping cards where mostly one index column of each shows; ``near``: the camera held over
    one corner of one of them, so that its index is large and the cards run out of the frame."""
    w, h = deck.size_cm
    pool = list(CARD_CODES)
    extra = [c for c in deck.codes if c in DISTRACTOR_CODES]

    def draw_code() -> str:
        return str(rng.choice(extra)) if extra and rng.random() < distractors else str(rng.choice(pool))

    cards: list[PlacedCard] = []
    base_angle = float(rng.choice([0, 0, 0, 90, 180, 270])) + float(rng.normal(0, 8))
    if rng.random() < 0.25:
        # A spread: each card shifted sideways over the previous one, fanned a little.
        n = int(rng.integers(3, 8))
        spacing = rng.uniform(0.22, 0.45) * w
        fan = rng.uniform(0, 8)
        for k in range(n):
            along = (k - (n - 1) / 2) * spacing
            center = _rot(np.array([along, abs(k - (n - 1) / 2) * fan * 0.04 * h]), base_angle)
            cards.append(PlacedCard(draw_code(), tuple(center), base_angle - (k - (n - 1) / 2) * fan))
    else:
        n = int(rng.choice([1, 1, 2, 2, 3]))
        spacing = rng.uniform(0.5, 1.2) * w
        for k in range(n):
            along = (k - (n - 1) / 2) * spacing
            center = _rot(np.array([along, rng.normal(0, 0.2 * h)]), base_angle)
            angle = base_angle + float(rng.normal(0, 10 if rng.random() < 0.7 else 45))
            cards.append(PlacedCard(draw_code(), tuple(center), angle))
    if rng.random() < 0.3:  # parts of more cards at the frame's edge
        for _ in range(int(rng.integers(1, 3))):
            spot = rng.uniform(-1, 1, 2) * [w * 2.5, h * 2.0]
            code = str(rng.choice(extra + pool)) if rng.random() < 0.7 else "back"
            cards.insert(0, PlacedCard(code, tuple(spot), float(rng.uniform(0, 360)), face_up=code != "back"))
    props = random_props(rng, float(np.hypot(w, h)) * (1 + 0.3 * (n - 1))) if rng.random() < 0.3 else []
    arms = []
    if rng.random() < 0.1:
        side = float(rng.choice(SIDES_DEG))
        arms.append(_arm_from(rng, side, _rot(np.array([rng.uniform(-6, 6), rng.uniform(6, 14)]), side), 40.0))
    extent = (n - 1) * spacing + w
    camera = Camera(
        width=imgsz,
        height=imgsz,
        view_width_cm=float(max(extent, h) * rng.uniform(0.95, 2.2)),  # sometimes cut by the frame
        tilt_deg=float(min(abs(rng.normal(0, 18)), 35)),  # phones are rarely held level
        tilt_toward_deg=float(rng.uniform(0, 360)),
        yaw_deg=float(rng.normal(0, 6)),
        target=(float(rng.normal(0, 1.5)), float(rng.normal(0, 1.5))),
        fov_deg=float(rng.uniform(55, 75)),
        k1=float(rng.uniform(-0.05, 0.1)) if rng.random() < 0.4 else 0.0,
        # Phone exports squash a 3:4 photo into a square: cards look wider than they are.
        stretch=float(rng.choice([1.0, 4 / 3, rng.uniform(0.9, 1.4)])),
    )
    if near:
        # Over one of the index corners (top-left or bottom-right of the face) of a card in view.
        shown = [c for c in cards if c.face_up and c.code in CARD_CODES] or cards
        card = shown[int(rng.integers(len(shown)))]
        centre = np.asarray(card.center)
        corner = card_corners_cm(card, (w, h))[int(rng.choice([0, 2]))]
        target = centre + (corner - centre) * rng.uniform(0.3, 0.75)
        camera = replace(
            camera, view_width_cm=float(h * rng.uniform(0.9, 1.8)), target=(float(target[0]), float(target[1]))
        )
    return cards, arms, camera, props


def generate_image(index: int, seed: int, config: SceneConfig, pool: DeckPool) -> tuple[np.ndarray, SceneAnnotation]:
    """Renders image ``index`` of the dataset with ``seed``."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, index]))
    if pool.folders and rng.random() < config.folder_fraction:
        key = ("f", int(rng.integers(len(pool.folders))))
        deck = pool.folder(key[1])
    else:
        key = ("p", int(rng.integers(pool.count)))
        deck = pool.procedural(key[1])
    design = pool.design(key)
    if config.odd_print and rng.random() < config.odd_print:
        deck = pool.odd(deck, key, int(rng.integers(4)))
    table = Table.random(int(rng.integers(2**31)))
    kind = "closeup" if rng.random() < config.closeup_fraction else "table"
    if kind == "closeup":
        near = bool(config.near_fraction) and rng.random() < config.near_fraction
        cards, arms, camera, props = closeup_scene(rng, deck, config.imgsz, config.distractors, near)
    else:
        cards, arms, camera, props = table_scene(rng, deck, config.imgsz)
    look = Look.random(rng)
    webcam = kind == "table" and bool(config.webcam_fraction) and rng.random() < config.webcam_fraction
    if webcam:
        camera, look = webcam_camera(rng, deck, camera), webcam_look(rng)
    image, annotation = render_scene(
        deck, table, cards, camera, arms, props=props, seed=int(rng.integers(2**31)), look=look
    )
    if webcam:
        image = video_codec(image, rng)
        annotation.look["webcam"] = True
    annotation.kind = kind
    annotation.design = design
    return image, annotation


# ---------------------------------------------------------------------------------------------
# Writing a dataset

_WORKER: dict[str, object] = {}


def _init_worker(seed: int, config: SceneConfig, folders: Sequence[str]) -> None:
    cv2.setNumThreads(1)
    _WORKER["pool"] = DeckPool(seed, config.procedural_decks, folders, config.designs)
    _WORKER["config"] = config
    _WORKER["seed"] = seed


def _write_one(job: tuple[int, Path, str, str]) -> int:
    index, out, split, target = job
    pool = _WORKER["pool"]
    config = _WORKER["config"]
    seed = _WORKER["seed"]
    image, annotation = generate_image(index, seed, config, pool)  # type: ignore[arg-type]
    name = f"{index:07d}"
    cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    lines = annotation.yolo_lines(target)
    (out / "labels" / split / f"{name}.txt").write_text("".join(line + "\n" for line in lines))
    ignore = annotation.ignore_lines(target)
    if ignore:
        (out / "ignore" / split / f"{name}.txt").write_text("".join(line + "\n" for line in ignore))
    meta = {"image": f"images/{split}/{name}.jpg", "seed": seed, "index": index, **annotation.to_dict()}
    (out / "meta" / split / f"{name}.json").write_text(json.dumps(meta, separators=(",", ":")))
    return len(lines)


def data_yaml(root: Path, target: str = "corners") -> str:
    """Ultralytics dataset file for ``root`` with the 24 names in class-id order.

    ``target`` (what a box covers: corners, cards or both) is recorded for dokocam's own tools;
    Ultralytics ignores the key.
    """
    names = "".join(f"  {i}: {code}\n" for i, code in enumerate(CARD_CODES))
    return (
        f"# dokocam synthetic Doppelkopf scenes\npath: {root.resolve()}\ntrain: images/train\nval: images/val\n"
        f"target: {target}\nnames:\n{names}"
    )


def write_dataset(
    out: str | Path,
    images: int,
    seed: int,
    *,
    config: SceneConfig = SceneConfig(),
    target: str = "corners",
    val_fraction: float = 0.1,
    folders: Sequence[str | Path] = (),
    workers: int = 1,
) -> Iterator[int]:
    """Writes ``OUT/images/{train,val}``, ``OUT/labels/...``, ``OUT/ignore/...`` (the indices of
    cards outside the deck, which ``dokocam eval`` does not score), ``OUT/meta/...`` and ``OUT/data.yaml``.

    Checks the arguments and writes ``data.yaml`` at once; the returned iterator draws the
    images, yielding once per finished image (the number of labels written) for progress bars.
    Image ``i < round(images * val_fraction)`` goes to ``val`` (``1``: a validation set only).

    Raises:
        ValueError: bad counts, fraction or target.
        FaceFolderError: a face folder is incomplete (checked before any image is drawn).
    """
    if images < 1:
        raise ValueError(f"--images must be at least 1, got {images}")
    if not 0 <= val_fraction <= 1:
        raise ValueError(f"--val-fraction must be in [0, 1], got {val_fraction}")
    if target not in ("corners", "cards", "both"):
        raise ValueError(f"--target must be corners, cards or both, got {target!r}")
    folders = design_folders(folders, config.designs)
    for folder in folders:
        load_face_folder(folder)  # fail early with the folder's problem
    root = Path(out)
    for kind in ("images", "labels", "ignore", "meta"):
        for split in ("train", "val"):
            (root / kind / split).mkdir(parents=True, exist_ok=True)
    (root / "data.yaml").write_text(data_yaml(root, target))
    n_val = int(round(images * val_fraction))
    jobs = [(i, root, "val" if i < n_val else "train", target) for i in range(images)]
    return _run(jobs, seed, config, [str(f) for f in folders], workers)


def design_folders(folders: Sequence[str | Path], designs: str | None) -> list[Path]:
    """The face folders a dataset of ``designs`` draws from: the given ones (refused if of the other split)
    and the split's SVG decks, rasterized into their cache on first use.

    Raises:
        ValueError: a folder of the other split, or an unknown split.
        dokocam.vision.synth.svgdecks.SvgDeckError: an SVG deck is not installed or cannot be drawn.
    """
    if designs is None:
        return [Path(f) for f in folders]
    check_folders(folders, designs)  # type: ignore[arg-type]
    return [Path(f) for f in folders] + svg_face_folders(split_svg_decks(designs))  # type: ignore[arg-type]


def _run(
    jobs: list[tuple[int, Path, str, str]], seed: int, config: SceneConfig, folders: list[str], workers: int
) -> Iterator[int]:
    if workers <= 1:
        _init_worker(seed, config, folders)
        for job in jobs:
            yield _write_one(job)
        return
    with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(seed, config, folders)) as executor:
        yield from executor.map(_write_one, jobs, chunksize=4)
