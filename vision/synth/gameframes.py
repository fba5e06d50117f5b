"""Frames of rendered whole games as a labelled YOLO folder: corner indices as a table camera sees them
during play (hands, mishaps, light changes, the game's own camera), each frame compressed at a random JPEG
quality as a video codec would. The table classifier's held-out validation and its fine-tuning read these.

``dokocam dataset game-frames OUT --designs heldout --seed 76000 --games 30 --frames 20 --split val`` writes
the held-out set the model card's table-classifier numbers come from.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2

from dokocam.vision.synth.video import GameVideo, Mishaps, design_for_seed, game_design

JPEG_QUALITY = (35, 85)


def frame_designs(designs: str) -> tuple[str, ...] | str:
    """``train`` or ``heldout`` (a split, cycled by seed as :func:`design_for_seed` does), or design names
    separated by commas (cycled in that order from the first seed).

    >>> frame_designs("heldout")
    'heldout'
    >>> frame_designs("svg:nicu-white, svg:tigullio-international")
    ('svg:nicu-white', 'svg:tigullio-international')
    >>> frame_designs("svg:nowhere")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: design 'svg:nowhere' cannot be drawn in a game; choose from svg:standard, ...
    """
    if designs in ("train", "heldout"):
        return designs
    names = tuple(n.strip() for n in designs.split(",") if n.strip())
    for name in names:
        game_design(name)
    if not names:
        raise ValueError("no design named: give train, heldout or design names separated by commas")
    return names


def write_game_frames(
    out: str | Path,
    designs: Sequence[str] | str,
    *,
    seed: int,
    games: int,
    frames: int,
    split: str = "train",
) -> Iterator[str]:
    """Renders ``games`` games (seeds ``seed`` ...) and writes ``frames`` frames of each, at random moments, with
    one label per visible corner index into ``out/images/<split>`` and ``out/labels/<split>``; yields each game's
    design as it is done. Frames without a face-up card or a visible index are skipped.
    """
    images, labels = Path(out) / "images" / split, Path(out) / "labels" / split
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    for game in range(seed, seed + games):
        design = design_for_seed(game, designs) if isinstance(designs, str) else designs[(game - seed) % len(designs)]
        video = GameVideo(seed=game, design=design, mishaps=Mishaps.realistic())
        rng = random.Random(game)
        for j in range(frames):
            t = rng.uniform(0, video.duration)
            if not any(up for *_rest, up in video.scene(t).cards):
                continue
            rendered, annotation = video.render_annotated(t, frame=j)
            quality = rng.randint(*JPEG_QUALITY)
            encoded = cv2.imencode(".jpg", rendered, [cv2.IMWRITE_JPEG_QUALITY, quality])[1]
            image = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
            assert image is not None  # an image OpenCV itself just encoded
            lines = annotation.yolo_lines("corners")
            if not lines:
                continue
            name = f"g{game}-{j:03d}"
            cv2.imwrite(str(images / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
            (labels / f"{name}.txt").write_text("".join(line + "\n" for line in lines))
        yield design
