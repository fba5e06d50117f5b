"""Index crops drawn directly: training data for the detector's crop classifier.

A whole scene costs ~80 ms and yields a handful of indices, most of them small and soft. The
classifier only ever sees a square crop around one located index, so this draws exactly that: a
card (procedural deck or a face folder) turned to any angle, tilted, lying on a table texture or on
another card, sometimes partly covered by a third card or a finger, lit, framed by a box with the
locator's typical error, then shrunk to a random camera resolution and degraded. Several hundred
crops per second on one core, sharp ones included, which scenes rarely give.

Non-index crops (label ``BACKGROUND``) are what a locator mistakes for an index: pips, court
pictures, card edges and backs, table patterns, and the indices of ranks 2-8, which a Doppelkopf
deck lacks.

>>> x, y = render_crops(8, seed=1)
>>> x.shape, x.dtype, y.shape
((8, 32, 32, 3), dtype('uint8'), (8,))
>>> bool(((0 <= y) & (y <= 24)).all())
True
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from dokocam.vision.synth.designs import font_families
from dokocam.vision.synth.faces import (
    CARD_CODES,
    DISTRACTOR_CODES,
    Face,
    FaceStyle,
    draw_back,
    draw_face,
    load_face_folder,
)
from dokocam.vision.synth.textures import Surface
from dokocam.vision.yolo import BACKGROUND, CROP_PAD, jitter_box, square_boxes

TRAINING_FAMILIES = font_families("train")
RENDER = 128  # the crop window is drawn at this size, then shrunk to the simulated camera resolution
SKIN = ((160, 190, 235), (130, 165, 215), (100, 140, 200), (80, 110, 165), (55, 80, 120))


@dataclass(frozen=True)
class CropConfig:
    """What a crop set holds.

    Attributes:
        size: side of the square crops in pixels (the classifier's input).
        pad: the window is the index box grown by this fraction per side, made square (the
            classifier's ``CROP_PAD``).
        distractors: share of crops showing the index of a rank 2-8 (labelled background).
        backgrounds: share of crops showing no index at all.
        folder_fraction: share of crops from face folders, when folders are given.
        per_deck: crops drawn from one deck before the next is drawn.
        min_px, max_px: range of the index's longer side in the delivered image, pixels (the crop
            is this window resampled to ``size``: small values give the soft crops of table frames).
    """

    size: int = 32
    pad: float = CROP_PAD
    distractors: float = 0.07
    backgrounds: float = 0.18
    folder_fraction: float = 0.25
    per_deck: int = 100
    min_px: float = 9.0
    max_px: float = 90.0


class _DeckFaces:
    """One deck's faces, drawn on first use."""

    def __init__(self, rng: np.random.Generator, folder_faces: dict[str, Face] | None) -> None:
        self.seed = int(rng.integers(2**31))
        self.folder = folder_faces
        style = FaceStyle.random(rng, width=int(rng.integers(220, 380)))
        # The training split's font families only, each equally often: the held-out ones judge the classifier.
        family = TRAINING_FAMILIES[int(rng.integers(len(TRAINING_FAMILIES)))]
        self.style = replace(
            style,
            font=str(rng.choice(family.fonts)),
            index_condense=float(rng.uniform(0.65, 1.15)),
            index_weight=int(rng.integers(-3, 9)),
            suit_variant=int(rng.integers(0, 1000)),
            # Up to the big, bold indices of modern poker decks.
            index_height=float(rng.uniform(0.075, 0.155)),
        )
        self._faces: dict[str, Face] = {}
        self.back = draw_back(self.style, self.seed)
        self.textures = [Surface.random(rng).render(256, 256, float(rng.uniform(0.02, 0.12))) for _ in range(2)]

    def face(self, code: str) -> Face:
        if self.folder is not None and code in self.folder:
            return self.folder[code]
        if code not in self._faces:
            self._faces[code] = draw_face(code, self.style, self.seed)
        return self._faces[code]

    def codes(self) -> tuple[str, ...]:
        return tuple(self.folder) if self.folder is not None else CARD_CODES + DISTRACTOR_CODES


def _homography(face: Face, rng: np.random.Generator, angle: float, scale: float, tilt: float) -> np.ndarray:
    """Face pixels to image pixels: turned by ``angle``, scaled, seen with up to ``tilt`` perspective."""
    w, h = face.size
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = src + rng.uniform(-tilt, tilt, (4, 2)).astype(np.float32) * [w, h]
    persp = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    c, s = math.cos(angle) * scale, math.sin(angle) * scale
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    return rot @ persp


def _apply(hom: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ hom.T
    return p[:, :2] / p[:, 2:3]


def _paste(canvas: np.ndarray, face: Face, hom: np.ndarray) -> np.ndarray:
    """Draws ``face`` through ``hom`` onto ``canvas`` (in place); returns the coverage mask (float)."""
    size = (canvas.shape[1], canvas.shape[0])
    pixels = cv2.warpPerspective(face.image, hom, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    alpha = (
        cv2.warpPerspective(face.mask, hom, size, flags=cv2.INTER_LINEAR, borderValue=0).astype(np.float32)[..., None]
        / 255.0
    )
    canvas[:] = (canvas * (1 - alpha) + pixels * alpha).astype(np.uint8)
    return alpha[..., 0]


def _to_window(window: np.ndarray) -> np.ndarray:
    """Image pixels to the ``RENDER`` x ``RENDER`` window."""
    s = RENDER / (window[2] - window[0])
    return np.array([[s, 0, -window[0] * s], [0, s, -window[1] * s], [0, 0, 1]])


def _background(deck: _DeckFaces, rng: np.random.Generator) -> np.ndarray:
    tex = deck.textures[int(rng.integers(len(deck.textures)))]
    x, y = rng.integers(0, tex.shape[1] - RENDER + 1), rng.integers(0, tex.shape[0] - RENDER + 1)
    patch = tex[y : y + RENDER, x : x + RENDER]
    return np.ascontiguousarray(np.rot90(patch, int(rng.integers(4))))


def _finger(canvas: np.ndarray, rng: np.random.Generator) -> None:
    """A fingertip reaching into the window from one side."""
    angle = rng.uniform(0, 2 * math.pi)
    r = RENDER * rng.uniform(0.2, 0.35)
    cx = RENDER / 2 + math.cos(angle) * RENDER * rng.uniform(0.55, 0.8)
    cy = RENDER / 2 + math.sin(angle) * RENDER * rng.uniform(0.55, 0.8)
    tone = SKIN[int(rng.integers(len(SKIN)))]
    axes = (int(r), int(r * 1.6))
    cv2.ellipse(canvas, (int(cx), int(cy)), axes, math.degrees(angle) + 90, 0, 360, tone, -1, cv2.LINE_AA)


def _light(canvas: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Brightness, a gradient, a colour cast and sometimes a soft shadow edge."""
    yy, xx = np.mgrid[0:RENDER, 0:RENDER].astype(np.float32) / RENDER - 0.5
    a = rng.uniform(0, 2 * math.pi)
    gain = rng.uniform(0.6, 1.15) * (1 + rng.uniform(0, 0.5) * (xx * math.cos(a) + yy * math.sin(a)))
    if rng.random() < 0.2:
        b = rng.uniform(0, 2 * math.pi)
        edge = xx * math.cos(b) + yy * math.sin(b) - rng.uniform(-0.4, 0.4)
        gain = gain * (1 - rng.uniform(0.2, 0.5) / (1 + np.exp(-edge * rng.uniform(8, 40))))
    cast = rng.uniform(0.92, 1.08, 3)
    out = canvas.astype(np.float32) * gain[..., None] * cast
    if rng.random() < 0.1:  # glare: a washed-out spot
        gx, gy = rng.uniform(-0.5, 0.5, 2)
        out += (
            160
            * rng.uniform(0.3, 1)
            * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * rng.uniform(0.05, 0.3) ** 2))[..., None]
        )
    return np.clip(out, 0, 255).astype(np.uint8)


def _camera(window: np.ndarray, size: int, index_px: float, pad: float, rng: np.random.Generator) -> np.ndarray:
    """The window as a camera would deliver it with the index ``index_px`` long, resampled to ``size``."""
    side = max(4, int(round(index_px * (1 + 2 * pad))))
    small = cv2.resize(window, (side, side), interpolation=cv2.INTER_AREA)
    # Extra blur only where the index keeps enough pixels to stay readable: label noise otherwise.
    if index_px > 18 and rng.random() < 0.25:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.4, 1.2))
    if index_px > 18 and rng.random() < 0.15:  # motion blur
        k = int(rng.integers(2, 5)) * 2 + 1
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2] = 1 / k
        kernel = cv2.warpAffine(kernel, cv2.getRotationMatrix2D((k // 2, k // 2), rng.uniform(0, 180), 1), (k, k))
        small = cv2.filter2D(small, -1, kernel / max(kernel.sum(), 1e-6))
    noise = rng.normal(0, rng.uniform(1, 8), small.shape)
    small = np.clip(small + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        if ok:
            small = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    interp = cv2.INTER_AREA if side > size else cv2.INTER_LINEAR
    return cv2.resize(small, (size, size), interpolation=interp)


def render_crop(deck: _DeckFaces, rng: np.random.Generator, config: CropConfig) -> tuple[np.ndarray, int]:
    """One crop and its label (card class index or :data:`BACKGROUND`)."""
    image, label, _ = _render_crop(deck, rng, config)
    return image, label


def _render_crop(
    deck: _DeckFaces, rng: np.random.Generator, config: CropConfig
) -> tuple[np.ndarray, int, np.ndarray | None]:
    """:func:`render_crop` plus where the index lies in the crop (``(4, 2)`` pixels; ``None`` for
    crops without a labelled index)."""
    roll = rng.random()
    codes = deck.codes()
    distractors = [c for c in codes if c in DISTRACTOR_CODES]
    if roll < config.backgrounds:
        kind = "background"
        code = str(rng.choice(codes)) if rng.random() < 0.85 else "back"
    elif roll < config.backgrounds + config.distractors and distractors:
        kind, code = "index", str(rng.choice(distractors))
    else:
        kind, code = "index", str(rng.choice(CARD_CODES))
    face = deck.back if code == "back" else deck.face(code)
    label = CARD_CODES.index(code) if kind == "index" and code in CARD_CODES else BACKGROUND

    # Where the window looks on the face: an index, or any other spot of index size.
    index_px = float(np.exp(rng.uniform(math.log(config.min_px), math.log(config.max_px))))
    angle = rng.uniform(0, 2 * math.pi) if rng.random() < 0.7 else rng.normal(0, 0.25) + math.pi * int(rng.integers(2))
    if face.indices:
        quad = face.indices[int(rng.integers(len(face.indices)))]
    else:  # a back: a corner-sized patch
        quad = np.array([[0, 0], [0.2, 0], [0.2, 0.25], [0, 0.25]], np.float32) * face.size
    quad_h = float(np.ptp(quad[:, 1]))
    tilt = rng.uniform(0, 0.12)
    hom = _homography(face, rng, angle, index_px / max(quad_h, 1), tilt)
    if kind == "background":
        w, h = face.size
        target = quad.mean(axis=0) if code == "back" else np.array([rng.uniform(0, w), rng.uniform(0, h)])
        if code != "back" and rng.random() < 0.3:  # a card edge or a corner without index
            target = np.array([rng.choice([0, w]) if rng.random() < 0.5 else rng.uniform(0, w), rng.uniform(0, h)])
        shift = target - quad.mean(axis=0)
        quad = quad + shift
        if code != "back" and any(
            np.abs((q.mean(axis=0) - target) / np.ptp(q, axis=0)).max() < 0.8 for q in face.indices
        ):
            return _render_crop(deck, rng, config)  # landed on an index: draw again
    box_pts = _apply(hom, quad)
    # The window the detector would cut around a locator's imperfect box of this index.
    window = square_boxes(jitter_box(np.r_[box_pts.min(axis=0), box_pts.max(axis=0)], rng, 0.08), config.pad)[0]
    to_win = _to_window(window)

    canvas = _background(deck, rng)
    if rng.random() < 0.35:  # lying on another card
        under = deck.face(str(rng.choice(codes))) if rng.random() < 0.8 else deck.back
        offset = rng.uniform(-0.6, 0.6, 2) * np.array(face.size) * (index_px / max(quad_h, 1))
        under_hom = np.array([[1, 0, offset[0]], [0, 1, offset[1]], [0, 0, 1]]) @ _homography(
            under, rng, rng.uniform(0, 2 * math.pi), index_px / max(quad_h, 1), tilt
        )
        _paste(canvas, under, to_win @ under_hom)
    _paste(canvas, face, to_win @ hom)
    if rng.random() < 0.3:  # a card on top, leaving most of the index visible
        over = deck.face(str(rng.choice(codes))) if rng.random() < 0.85 else deck.back
        index_mask = np.zeros((RENDER, RENDER), np.uint8)
        cv2.fillConvexPoly(index_mask, np.round(_apply(to_win @ hom, quad)).astype(np.int32), 1)
        scale = index_px / max(quad_h, 1)
        for _ in range(4):
            over_hom = to_win @ _homography(over, rng, rng.uniform(0, 2 * math.pi), scale, tilt)
            centre = _apply(over_hom, np.array([over.size], np.float32) / 2)[0]
            half = 0.5 * min(over.size) * scale * RENDER / (window[2] - window[0])
            direction = rng.uniform(0, 2 * math.pi)
            goal = RENDER / 2 + np.array([math.cos(direction), math.sin(direction)]) * half * rng.uniform(1.0, 2.0)
            move = np.array([[1, 0, goal[0] - centre[0]], [0, 1, goal[1] - centre[1]], [0, 0, 1]])
            trial = canvas.copy()
            covered = _paste(trial, over, move @ over_hom)
            if kind == "background" or (covered * index_mask).sum() <= 0.3 * max(index_mask.sum(), 1):
                canvas = trial
                break
    if rng.random() < 0.08:
        _finger(canvas, rng)
    canvas = _light(canvas, rng)
    where = _apply(to_win @ hom, quad) * (config.size / RENDER) if kind == "index" else None
    return _camera(canvas, config.size, index_px, config.pad, rng), label, where


def iter_crops(
    n: int, seed: int, config: CropConfig = CropConfig(), folders: Sequence[str | Path] = ()
) -> Iterator[tuple[np.ndarray, int]]:
    """``n`` crops with labels, the same for the same ``seed``, ``config`` and ``folders``."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 7]))
    folder_faces = [load_face_folder(f) for f in folders]
    deck: _DeckFaces | None = None
    for i in range(n):
        if i % config.per_deck == 0:
            use_folder = folder_faces and rng.random() < config.folder_fraction
            deck = _DeckFaces(rng, folder_faces[int(rng.integers(len(folder_faces)))] if use_folder else None)
        assert deck is not None
        yield render_crop(deck, rng, config)


def write_crops(
    path: str | Path,
    n: int,
    seed: int,
    config: CropConfig = CropConfig(),
    folders: Sequence[str | Path] = (),
    workers: int = 1,
) -> Iterator[int]:
    """Renders ``n`` crops into ``path`` (``.npz`` with ``x`` and ``y``), yielding progress counts.

    With ``workers`` > 1 the crops are split into chunks rendered in processes, each chunk seeded
    from ``seed`` and its number, so the file depends on ``seed`` and ``workers``' chunking only
    through ``CHUNK``.
    """
    chunks = [(seed * 100_003 + k, min(CHUNK, n - start)) for k, start in enumerate(range(0, n, CHUNK))]
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as pool:
            for x, y in pool.map(_chunk, [(s, c, config, tuple(map(str, folders))) for s, c in chunks]):
                xs.append(x)
                ys.append(y)
                yield len(y)
    else:
        for s, c in chunks:
            x, y = _chunk((s, c, config, tuple(map(str, folders))))
            xs.append(x)
            ys.append(y)
            yield len(y)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, x=np.concatenate(xs), y=np.concatenate(ys), size=config.size, pad=config.pad)


CHUNK = 2000


def _chunk(args: tuple[int, int, CropConfig, tuple[str, ...]]) -> tuple[np.ndarray, np.ndarray]:
    seed, count, config, folders = args
    return render_crops(count, seed, config, folders)


def render_crops(
    n: int, seed: int, config: CropConfig = CropConfig(), folders: Sequence[str | Path] = ()
) -> tuple[np.ndarray, np.ndarray]:
    """``(crops (n, size, size, 3) uint8 BGR, labels (n,) int64)``; see :func:`iter_crops`."""
    pairs = list(iter_crops(n, seed, config, folders))
    if not pairs:
        return np.zeros((0, config.size, config.size, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack([p[0] for p in pairs]), np.array([p[1] for p in pairs], np.int64)
