"""Card faces: the 24 Doppelkopf faces drawn procedurally, card backs, and face folders on disk.

Every :class:`Face` knows where its corner indices are (``indices``: quadrilaterals in face
pixels), so a scene can label exactly the printed rank+suit marks it makes visible.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

# Order fixed by docs/interfaces.md: class id = suit * 6 + rank.
SUITS: tuple[str, ...] = ("C", "S", "H", "D")
RANKS: tuple[str, ...] = ("9", "10", "J", "Q", "K", "A")
CARD_CODES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
# Ranks a Doppelkopf deck lacks; drawn as unlabelled look-alikes so the detector learns to ignore them.
DISTRACTOR_RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8")
DISTRACTOR_CODES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in DISTRACTOR_RANKS)

_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")
_CODE_RE = re.compile(r"^(10|[2-9JQKA])([CSHD])$")


class UnknownCardCodeError(ValueError):
    """A card code is not one of ``9C 10C JC QC KC AC 9S ... AD`` (or a distractor ``2C``..``8D``)."""


class FaceFolderError(ValueError):
    """A face folder is missing faces or holds files not named by card code."""


def card_index(code: str) -> int:
    """Returns the class id of a Doppelkopf card code (``"QC"`` -> 3).

    Raises:
        UnknownCardCodeError: ``code`` is not one of the 24 Doppelkopf faces.

    >>> card_index("9C"), card_index("QC"), card_index("AD")
    (0, 3, 23)
    """
    try:
        return CARD_CODES.index(code)
    except ValueError:
        raise UnknownCardCodeError(f"{code!r} is not a Doppelkopf card; use one of {' '.join(CARD_CODES)}") from None


def split_code(code: str) -> tuple[str, str]:
    """Splits ``"10H"`` into ``("10", "H")``; accepts distractor ranks 2-8 too."""
    match = _CODE_RE.match(code)
    if not match:
        raise UnknownCardCodeError(f"{code!r} is not a card code like 'QC' or '10H'")
    return match.group(1), match.group(2)


@dataclass(frozen=True, eq=False)
class Face:
    """One printed card side as an image.

    Attributes:
        code: card code (``"QC"``), a distractor code (``"7H"``) or ``"back"``.
        image: ``(h, w, 3)`` uint8 BGR.
        mask: ``(h, w)`` uint8, 255 inside the card outline (rounded corners are 0).
        indices: corner-index quadrilaterals, each ``(4, 2)`` float32 in face pixels
            (top-left first, then the 180-degree copy, then any extra corners). Empty for backs.
    """

    code: str
    image: np.ndarray
    mask: np.ndarray
    indices: tuple[np.ndarray, ...] = ()
    # Not an init field: dataclasses.replace(face, image=...) must start a new pyramid, not share this one.
    _levels: list[np.ndarray] = field(default_factory=list, init=False, repr=False, compare=False)

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels."""
        return self.image.shape[1], self.image.shape[0]

    def level(self, k: int) -> np.ndarray:
        """The face with its mask as alpha (BGRA), halved ``k`` times (an image pyramid level),
        framed by one pixel of edge colour with zero alpha.

        Drawing a card much smaller than its face from a pre-shrunk level averages the pixels
        a camera would integrate, instead of aliasing, and warps fewer pixels. The frame lets a
        warp replicate colours outwards (no dark rim) while the alpha still ends at the card.
        """
        levels = self._levels
        if not levels:
            levels.append(_framed(np.dstack([self.image, self.mask])))
        while len(levels) <= k and min(levels[-1].shape[:2]) >= 10:
            levels.append(_framed(cv2.pyrDown(levels[-1][1:-1, 1:-1])))
        return levels[min(k, len(levels) - 1)]


def _framed(bgra: np.ndarray) -> np.ndarray:
    framed = cv2.copyMakeBorder(bgra, 1, 1, 1, 1, cv2.BORDER_REPLICATE)
    framed[0, :, 3] = framed[-1, :, 3] = 0
    framed[:, 0, 3] = framed[:, -1, 3] = 0
    return framed


# ---------------------------------------------------------------------------------------------
# Styles


_FONT_DIR = Path(__import__("matplotlib").get_data_path()) / "fonts" / "ttf"
# Fonts shipped with matplotlib that have clear digits and capitals; serif faces resemble
# classic decks, sans faces modern ones.
FONT_FILES: tuple[str, ...] = (
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSerif.ttf",
    "DejaVuSerif-Bold.ttf",
    "DejaVuSansMono-Bold.ttf",
    "STIXGeneral.ttf",
    "STIXGeneralBol.ttf",
    "cmr10.ttf",
    "cmss10.ttf",
)
INTERNATIONAL_LETTERS = {"J": "J", "Q": "Q", "K": "K", "A": "A"}
GERMAN_LETTERS = {"J": "B", "Q": "D", "K": "K", "A": "A"}  # Bube, Dame, König, As

_TWO_COLOUR = {"C": (20, 20, 20), "S": (20, 20, 20), "H": (40, 30, 205), "D": (40, 30, 205)}
# Tournament four-colour deck: Kreuz black, Pik green, Herz red, Karo orange/yellow.
_FOUR_COLOUR = {"C": (20, 20, 20), "S": (40, 140, 30), "H": (40, 30, 205), "D": (20, 150, 240)}


@dataclass(frozen=True)
class FaceStyle:
    """How one deck is printed. ``FaceStyle.random(rng)`` draws a plausible deck.

    Attributes:
        width: face width in pixels; the height is ``width * aspect``.
        aspect: height / width (1.40 poker ... 1.56 bridge and Skat).
        corner_radius: rounded-corner radius as a fraction of the width.
        stock: card stock colour (BGR).
        inks: ink colour per suit (BGR).
        letters: index letters for J Q K A (international or German B D K A).
        font: font file name under matplotlib's font folder, or the absolute path of any TrueType font.
        index_height: rank glyph height as a fraction of the card height.
        index_margin: distance of the index from the card edge, fraction of the width.
        four_indices: print the index in all four corners, not only two.
        pip_scale: pip size relative to the default.
        frame: BGR colour of the court-card picture frame.
        palette: colours of the court pictures.
        border: draw a thin border line near the edge.
        index_condense: width factor of the index glyphs (printers condense them into narrow corners).
        index_weight: stroke change of the index glyphs in pixels of a 160 px glyph (+ bolder, - lighter).
        suit_variant: shape variant of the suit symbols (see :func:`suit_polygons`; 0 classic).
    """

    width: int = 300
    aspect: float = 1.4
    corner_radius: float = 0.06
    stock: tuple[int, int, int] = (245, 245, 245)
    inks: Mapping[str, tuple[int, int, int]] = field(default_factory=lambda: dict(_TWO_COLOUR))
    letters: Mapping[str, str] = field(default_factory=lambda: dict(INTERNATIONAL_LETTERS))
    font: str = "DejaVuSans.ttf"
    index_height: float = 0.085
    index_margin: float = 0.05
    four_indices: bool = False
    pip_scale: float = 1.0
    frame: tuple[int, int, int] = (160, 60, 30)
    palette: tuple[tuple[int, int, int], ...] = ((40, 40, 200), (170, 80, 30), (40, 190, 230), (25, 25, 25))
    border: bool = False
    index_condense: float = 1.0
    index_weight: int = 0
    suit_variant: int = 0

    @property
    def height(self) -> int:
        return int(round(self.width * self.aspect))

    @classmethod
    def random(cls, rng: np.random.Generator, width: int = 300) -> FaceStyle:
        """Draws a deck style: font, colours, index letters, proportions."""
        four_colour = rng.random() < 0.3
        inks = dict(_FOUR_COLOUR if four_colour else _TWO_COLOUR)
        red = (int(rng.integers(20, 70)), int(rng.integers(10, 60)), int(rng.integers(170, 235)))
        black = tuple(int(v) for v in rng.integers(5, 50, size=3))
        for suit in inks:
            if inks[suit] == _TWO_COLOUR["H"]:
                inks[suit] = red
            elif inks[suit] == _TWO_COLOUR["C"]:
                inks[suit] = black  # type: ignore[assignment]
        tint = rng.choice([0, 1, 2], p=[0.6, 0.3, 0.1])
        base = int(rng.integers(222, 256))
        if tint == 0:  # white
            stock = (base, base, base)
        elif tint == 1:  # cream
            stock = (max(0, base - int(rng.integers(10, 35))), max(0, base - int(rng.integers(0, 12))), base)
        else:  # cool grey-blue
            stock = (base, max(0, base - int(rng.integers(0, 10))), max(0, base - int(rng.integers(5, 20))))
        palettes = (
            ((40, 40, 200), (170, 80, 30), (40, 190, 230), (25, 25, 25)),
            ((50, 50, 180), (60, 130, 40), (30, 170, 220), (120, 40, 120)),
            ((30, 60, 220), (200, 120, 40), (60, 200, 240), (20, 20, 20), (200, 200, 200)),
        )
        palette = palettes[int(rng.integers(len(palettes)))]
        return cls(
            width=width,
            aspect=float(rng.choice([1.4, 1.4, 1.45, 1.5, 1.55, 1.56])),
            corner_radius=float(rng.uniform(0.035, 0.09)),
            stock=stock,
            inks=inks,
            letters=dict(GERMAN_LETTERS if rng.random() < 0.35 else INTERNATIONAL_LETTERS),
            font=str(rng.choice(FONT_FILES)),
            index_height=float(rng.uniform(0.075, 0.13)),
            index_margin=float(rng.uniform(0.03, 0.075)),
            four_indices=bool(rng.random() < 0.25),
            pip_scale=float(rng.uniform(0.85, 1.15)),
            frame=tuple(int(v) for v in rng.integers(0, 200, size=3)),  # type: ignore[arg-type]
            palette=palette,
            border=bool(rng.random() < 0.2),
        )


# ---------------------------------------------------------------------------------------------
# Primitive shapes


def _circle(cx: float, cy: float, r: float, n: int = 24) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)


@functools.cache
def suit_polygons(suit: str, variant: int = 0) -> tuple[np.ndarray, ...]:
    """Outline polygons of a suit symbol, in a unit box centred on 0 (y down), point up.

    ``variant`` 0 is the classic shape; other values draw the printer-to-printer differences seen
    on real decks (fatter or slimmer diamonds, rounder hearts, club lobes and stems of other sizes),
    the same for the same number.
    """
    if suit not in ("C", "S", "H", "D"):
        raise UnknownCardCodeError(f"{suit!r} is not a suit; use C, S, H or D")
    rng = np.random.default_rng(variant) if variant else None

    def vary(lo: float, hi: float, default: float) -> float:
        return default if rng is None else float(rng.uniform(lo, hi))

    t = np.linspace(0, 2 * math.pi, 64, endpoint=False)
    # The classic heart curve, normalised to a unit-high shape.
    hx = 16 * np.sin(t) ** 3
    hy = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    heart = np.stack([hx, hy], axis=1)
    heart = (heart - [0, (hy.max() + hy.min()) / 2]) / (hy.max() - hy.min())
    if suit == "H":
        return (heart * [vary(0.85, 1.15, 1.0), 1.0],)
    if suit == "D":
        half = vary(0.27, 0.45, 0.36)
        bow = vary(0.0, 0.08, 0.0)  # slightly curved sides on some decks
        edge = np.linspace(0, 1, 8, endpoint=False)[:, None]
        corners = np.array([[0, -0.5], [half, 0], [0, 0.5], [-half, 0], [0, -0.5]])
        sides = []
        for a, b in zip(corners[:-1], corners[1:]):
            mid = (a + b) / 2
            inward = -mid / (np.linalg.norm(mid) or 1)
            sides.append(a + (b - a) * edge + inward * bow * np.sin(edge * math.pi))
        return (np.concatenate(sides),)
    if suit == "S":
        spade = heart * [vary(0.9, 1.15, 1.0), -0.82] + [0, -0.08]
        waist, foot = vary(0.03, 0.08, 0.05), vary(0.14, 0.26, 0.2)
        stem = np.array([[-waist, 0.2], [waist, 0.2], [foot, 0.5], [-foot, 0.5]])
        return (spade, stem)
    r = vary(0.16, 0.22, 0.19)
    spread = vary(0.2, 0.28, 0.24)
    waist, foot = vary(0.03, 0.08, 0.05), vary(0.14, 0.26, 0.2)
    stem = np.array([[-waist, 0.05], [waist, 0.05], [foot, 0.5], [-foot, 0.5]])
    return (_circle(0, -0.29, r), _circle(-spread, 0.07, r), _circle(spread, 0.07, r), _circle(0, -0.02, 0.12), stem)


def _draw_pip(
    canvas: np.ndarray,
    suit: str,
    cx: float,
    cy: float,
    size: float,
    color: tuple[int, int, int],
    flip: bool,
    variant: int = 0,
) -> None:
    polys = []
    for poly in suit_polygons(suit, variant):
        p = poly * size
        if flip:
            p = -p
        polys.append(np.round((p + [cx, cy]) * 16).astype(np.int32))
    cv2.fillPoly(canvas, polys, color, cv2.LINE_AA, shift=4)


@functools.lru_cache(maxsize=1024)
def _glyph_mask(text: str, font: str, weight: int = 0) -> np.ndarray:
    """A tight ``uint8`` mask of ``text`` rendered large, ``weight`` pixels bolder; resized by callers."""
    from PIL import Image, ImageDraw, ImageFont

    pil_font = ImageFont.truetype(str(_FONT_DIR / font), size=160)
    left, top, right, bottom = pil_font.getbbox(text)
    image = Image.new("L", (int(right - left) + 8, int(bottom - top) + 8), 0)
    ImageDraw.Draw(image).text((4 - left, 4 - top), text, font=pil_font, fill=255)
    array = np.asarray(image)
    if weight:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(weight) + 1, 2 * abs(weight) + 1))
        array = cv2.copyMakeBorder(
            array, abs(weight), abs(weight), abs(weight), abs(weight), cv2.BORDER_CONSTANT, value=0
        )
        array = cv2.dilate(array, kernel) if weight > 0 else cv2.erode(array, kernel)
    ys, xs = np.nonzero(array > 20)
    return np.ascontiguousarray(array[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def _paste(canvas: np.ndarray, mask: np.ndarray, x: int, y: int, color: tuple[int, int, int]) -> None:
    """Blends ``color`` into ``canvas`` through ``mask`` placed with its top-left at ``(x, y)``."""
    h, w = mask.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, canvas.shape[1]), min(y + h, canvas.shape[0])
    if x0 >= x1 or y0 >= y1:
        return
    alpha = mask[y0 - y : y1 - y, x0 - x : x1 - x, None].astype(np.float32) / 255.0
    region = canvas[y0:y1, x0:x1].astype(np.float32)
    canvas[y0:y1, x0:x1] = (region * (1 - alpha) + np.array(color, np.float32) * alpha).astype(np.uint8)


def rounded_mask(width: int, height: int, radius: float) -> np.ndarray:
    """A ``(height, width)`` uint8 card outline with corners of ``radius`` pixels."""
    mask = np.zeros((height, width), np.uint8)
    r = max(1, int(round(radius)))
    cv2.rectangle(mask, (r, 0), (width - 1 - r, height - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (width - 1, height - 1 - r), 255, -1)
    for cx, cy in ((r, r), (width - 1 - r, r), (r, height - 1 - r), (width - 1 - r, height - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def _rotate_quad_180(quad: np.ndarray, width: int, height: int) -> np.ndarray:
    return np.array([width, height], np.float32) - quad[[2, 3, 0, 1]]


def _mirror_quad_x(quad: np.ndarray, width: int) -> np.ndarray:
    out = quad[[1, 0, 3, 2]].copy()
    out[:, 0] = width - out[:, 0]
    return out


# ---------------------------------------------------------------------------------------------
# Procedural faces

# Pip positions for ranks 2-10 as (column, row) in a unit pip area; rows below 0.5 point up.
_PIP_LAYOUT: dict[str, list[tuple[float, float]]] = {
    "2": [(0.5, 0.0), (0.5, 1.0)],
    "3": [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    "4": [(0, 0), (1, 0), (0, 1), (1, 1)],
    "5": [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    "6": [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "7": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "8": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    "9": [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    "10": [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1), (1, 1)],
}


def _draw_index(canvas: np.ndarray, rank_text: str, suit: str, style: FaceStyle) -> np.ndarray:
    """Draws the top-left index and returns its quadrilateral (with a little margin)."""
    h_px = style.height
    w_px = style.width
    glyph_h = max(6, int(round(style.index_height * h_px)))
    glyph = _glyph_mask(rank_text, style.font, style.index_weight)
    scale = glyph_h / glyph.shape[0]
    glyph_w = max(3, int(round(glyph.shape[1] * scale * style.index_condense)))
    max_w = int(0.2 * w_px)  # a narrow corner: condense wide "10"s as printers do
    glyph_w = min(glyph_w, max_w)
    glyph = cv2.resize(glyph, (glyph_w, glyph_h), interpolation=cv2.INTER_AREA)
    pip = glyph_h * 0.8 * style.pip_scale
    margin = style.index_margin * w_px
    column_w = max(glyph_w, pip * 0.8)
    cx = margin + column_w / 2
    x = int(round(cx - glyph_w / 2))
    y = int(round(margin * 0.9))
    color = style.inks[suit]
    _paste(canvas, glyph, x, y, color)
    pip_cy = y + glyph_h + glyph_h * 0.15 + pip / 2
    _draw_pip(canvas, suit, cx, pip_cy, pip, color, flip=False, variant=style.suit_variant)
    pad = 0.12 * glyph_h
    x0, y0 = min(x, cx - pip * 0.4) - pad, y - pad
    x1, y1 = max(x + glyph_w, cx + pip * 0.4) + pad, pip_cy + pip / 2 + pad
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def _poly(
    image: np.ndarray,
    points: list[tuple[float, float]] | np.ndarray,
    colour: tuple[int, int, int],
    outline: tuple[int, int, int] | None = (20, 20, 20),
) -> None:
    pts = np.round(np.asarray(points, np.float64) * 16).astype(np.int32)
    cv2.fillPoly(image, [pts], colour, cv2.LINE_AA, shift=4)
    if outline is not None:
        cv2.polylines(image, [pts], True, outline, 1, cv2.LINE_AA, shift=4)


def _pattern(image: np.ndarray, mask: np.ndarray, colour: tuple[int, int, int], kind: int, step: int) -> None:
    """Fills ``mask`` (bool) with stripes, checks or dots in ``colour``: the busy print of court robes."""
    h, w = mask.shape
    yy, xx = np.mgrid[0:h, 0:w]
    if kind == 0:
        on = (yy // step) % 2 == 0
    elif kind == 1:
        on = ((yy // step) + (xx // step)) % 2 == 0
    elif kind == 2:
        on = ((yy % step) - step / 2) ** 2 + ((xx % step) - step / 2) ** 2 < (step / 3.5) ** 2
    else:
        on = ((xx + yy) // step) % 2 == 0
    image[mask & on] = colour


def _draw_court_picture(
    canvas: np.ndarray, rank: str, suit: str, style: FaceStyle, rng: np.random.Generator, box: tuple[int, int, int, int]
) -> None:
    """A court picture in the manner of French-suited decks: a crowned or capped bust with a busy
    robe in the top half, turned 180 degrees into the bottom half (split straight or diagonally)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    half = np.full((h, w, 3), style.stock, np.uint8)
    palette = [(int(p[0]), int(p[1]), int(p[2])) for p in style.palette]
    pick = lambda: palette[int(rng.integers(len(palette)))]  # noqa: E731
    ink = (20, 20, 20)
    skin = (int(rng.integers(170, 215)), int(rng.integers(200, 230)), int(rng.integers(230, 252)))
    hh = h * 0.58  # the figure's extent; the split keeps its upper part
    cx = w * rng.uniform(0.45, 0.58)
    head_r = w * rng.uniform(0.11, 0.14)
    head_y = hh * rng.uniform(0.3, 0.36)
    # Robe: shoulders to the split, with a centre panel and sleeves in different prints.
    shoulder_y = head_y + head_r * 1.5
    robe = [
        (cx - w * 0.42, hh * 1.05),
        (cx - w * 0.36, shoulder_y + head_r * 0.3),
        (cx - head_r * 0.9, shoulder_y - head_r * 0.1),
        (cx + head_r * 0.9, shoulder_y - head_r * 0.1),
        (cx + w * 0.36, shoulder_y + head_r * 0.3),
        (cx + w * 0.42, hh * 1.05),
    ]
    _poly(half, robe, pick(), ink)
    for side in (-1, 1):
        sleeve = [
            (cx + side * w * 0.36, shoulder_y + head_r * 0.3),
            (cx + side * w * 0.2, shoulder_y),
            (cx + side * w * 0.17, hh * 1.05),
            (cx + side * w * 0.42, hh * 1.05),
        ]
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [np.round(np.array(sleeve)).astype(np.int32)], 1)
        _pattern(half, mask.astype(bool), pick(), int(rng.integers(4)), max(2, int(w * rng.uniform(0.025, 0.05))))
        cv2.polylines(half, [np.round(np.array(sleeve)).astype(np.int32)], True, ink, 1, cv2.LINE_AA)
    panel = [
        (cx - head_r * 0.8, shoulder_y),
        (cx + head_r * 0.8, shoulder_y),
        (cx + head_r * 1.1, hh * 1.05),
        (cx - head_r * 1.1, hh * 1.05),
    ]
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(np.array(panel)).astype(np.int32)], 1)
    half[mask.astype(bool)] = pick()
    _pattern(half, mask.astype(bool), pick(), int(rng.integers(4)), max(2, int(w * rng.uniform(0.02, 0.04))))
    cv2.polylines(half, [np.round(np.array(panel)).astype(np.int32)], True, ink, 1, cv2.LINE_AA)
    # Collar.
    cv2.ellipse(
        half, (int(cx), int(shoulder_y)), (int(head_r * 1.3), int(head_r * 0.45)), 0, 0, 360, pick(), -1, cv2.LINE_AA
    )
    cv2.ellipse(
        half, (int(cx), int(shoulder_y)), (int(head_r * 1.3), int(head_r * 0.45)), 0, 0, 360, ink, 1, cv2.LINE_AA
    )
    # Hair, head, face.
    hair = [(40, 120, 200), (30, 60, 110), (30, 30, 40), (60, 160, 220)][int(rng.integers(4))]
    cv2.ellipse(
        half,
        (int(cx), int(head_y + head_r * 0.3)),
        (int(head_r * 1.3), int(head_r * 1.35)),
        0,
        0,
        360,
        hair,
        -1,
        cv2.LINE_AA,
    )
    if rank == "K":  # beard
        _poly(
            half,
            [
                (cx - head_r * 0.8, head_y + head_r * 0.3),
                (cx + head_r * 0.8, head_y + head_r * 0.3),
                (cx, head_y + head_r * 1.9),
            ],
            hair,
            ink,
        )
    cv2.ellipse(half, (int(cx), int(head_y)), (int(head_r), int(head_r * 1.15)), 0, 0, 360, skin, -1, cv2.LINE_AA)
    cv2.ellipse(half, (int(cx), int(head_y)), (int(head_r), int(head_r * 1.15)), 0, 0, 360, ink, 1, cv2.LINE_AA)
    eye = max(1, int(head_r * 0.12))
    for side in (-1, 1):
        cv2.circle(half, (int(cx + side * head_r * 0.38), int(head_y - head_r * 0.15)), eye, ink, -1, cv2.LINE_AA)
    cv2.line(
        half,
        (int(cx), int(head_y - head_r * 0.1)),
        (int(cx + head_r * 0.12), int(head_y + head_r * 0.3)),
        ink,
        1,
        cv2.LINE_AA,
    )
    cv2.line(
        half,
        (int(cx - head_r * 0.3), int(head_y + head_r * 0.6)),
        (int(cx + head_r * 0.3), int(head_y + head_r * 0.6)),
        (40, 40, 170),
        max(1, eye),
        cv2.LINE_AA,
    )
    # Headwear: crown for kings and queens, a cap for jacks.
    top = head_y - head_r * 0.95
    gold = (40, 190, 230)
    if rank in ("K", "Q"):
        spikes = 3 if rank == "Q" else 5
        pts = [(cx - head_r, top)]
        for k in range(spikes):
            left = cx - head_r + 2 * head_r * k / spikes
            pts += [
                (left + head_r / spikes, top - head_r * (1.1 if rank == "K" else 0.8)),
                (left + 2 * head_r / spikes, top - head_r * 0.4),
            ]
        pts[-1] = (cx + head_r, top)
        _poly(half, pts, gold, ink)
        for k in range(spikes):
            cv2.circle(
                half,
                (int(cx - head_r + head_r / spikes * (2 * k + 1)), int(top - head_r * 0.2)),
                max(1, eye),
                pick(),
                -1,
                cv2.LINE_AA,
            )
    else:
        _poly(
            half,
            [
                (cx - head_r * 1.2, top + head_r * 0.2),
                (cx - head_r, top - head_r * 0.6),
                (cx + head_r * 0.9, top - head_r * 0.7),
                (cx + head_r * 1.3, top + head_r * 0.1),
            ],
            pick(),
            ink,
        )
        cv2.line(
            half,
            (int(cx + head_r * 0.8), int(top - head_r * 0.5)),
            (int(cx + head_r * 2.2), int(top - head_r * 1.6)),
            pick(),
            max(1, eye),
            cv2.LINE_AA,
        )
    # What the figure holds: a sword, a flower or a halberd.
    hand_x = cx + (w * 0.3 if rng.random() < 0.5 else -w * 0.3)
    if rank == "K":
        cv2.line(
            half, (int(hand_x), int(hh * 0.05)), (int(hand_x), int(hh)), (170, 170, 170), max(2, eye * 2), cv2.LINE_AA
        )
        cv2.line(
            half,
            (int(hand_x - head_r * 0.6), int(hh * 0.72)),
            (int(hand_x + head_r * 0.6), int(hh * 0.72)),
            gold,
            max(2, eye * 2),
            cv2.LINE_AA,
        )
    elif rank == "Q":
        cv2.line(
            half, (int(hand_x), int(hh * 0.35)), (int(hand_x), int(hh * 0.8)), (40, 120, 40), max(1, eye), cv2.LINE_AA
        )
        for k in range(5):
            a = 2 * math.pi * k / 5
            cv2.circle(
                half,
                (int(hand_x + math.cos(a) * head_r * 0.3), int(hh * 0.35 + math.sin(a) * head_r * 0.3)),
                max(2, int(head_r * 0.22)),
                pick(),
                -1,
                cv2.LINE_AA,
            )
    else:
        cv2.line(half, (int(hand_x), int(hh * 0.02)), (int(hand_x), int(hh)), (60, 90, 130), max(1, eye), cv2.LINE_AA)
        _poly(half, [(hand_x, hh * 0.02), (hand_x + head_r * 0.5, hh * 0.12), (hand_x, hh * 0.2)], (170, 170, 170), ink)
    # The suit's pip beside the head, as French-suited courts carry it.
    px = w * 0.16 if hand_x > cx else w * 0.84
    _draw_pip(half, suit, px, hh * rng.uniform(0.1, 0.2), w * rng.uniform(0.16, 0.22), style.inks[suit], flip=False)
    yy, xx = np.mgrid[0:h, 0:w]
    if rng.random() < 0.5:  # diagonal split as on English-pattern courts
        lower = yy / h + xx / w > 1.0
    else:
        lower = yy * 2 >= h
    picture = np.where(lower[..., None], np.rot90(half, 2), half)
    if not (yy * 2 >= h).all():
        divider = (
            (np.abs(yy / h + xx / w - 1.0) < 0.004) if (lower != (yy * 2 >= h)).any() else (np.abs(yy * 2 - h) <= 0)
        )
        picture[divider] = style.frame
    canvas[y0:y1, x0:x1] = picture
    cv2.rectangle(canvas, (x0, y0), (x1 - 1, y1 - 1), style.frame, max(1, w // 80), cv2.LINE_AA)


def draw_face(code: str, style: FaceStyle, seed: int = 0) -> Face:
    """Draws one face of ``style``; the same ``(code, style, seed)`` always gives the same pixels.

    Raises:
        UnknownCardCodeError: ``code`` is not a card code.
    """
    rank, suit = split_code(code)
    rng = np.random.default_rng(
        np.random.SeedSequence(
            [seed, CARD_CODES.index(code) if code in CARD_CODES else 100 + DISTRACTOR_CODES.index(code)]
        )
    )
    w, h = style.width, style.height
    canvas = np.empty((h, w, 3), np.uint8)
    canvas[:] = style.stock
    if style.border:
        inset = int(style.index_margin * w * 0.4)
        cv2.rectangle(canvas, (inset, inset), (w - 1 - inset, h - 1 - inset), style.inks[suit], 1, cv2.LINE_AA)
    ink = style.inks[suit]
    rank_text = style.letters.get(rank, rank)
    quad = _draw_index(canvas, rank_text, suit, style)
    index_right = float(quad[1, 0])

    # Pip area between the indices.
    if rank in _PIP_LAYOUT:
        pip = w * (0.14 if rank in ("9", "10") else 0.17) * style.pip_scale
        left, right = max(index_right + pip * 0.45, w * 0.27), min(w - index_right - pip * 0.45, w * 0.73)
        top, bottom = h * 0.16 + pip / 2, h * 0.84 - pip / 2
        for col, row in _PIP_LAYOUT[rank]:
            px = left + col * (right - left)
            py = top + row * (bottom - top)
            _draw_pip(canvas, suit, px, py, pip, ink, flip=row > 0.5, variant=style.suit_variant)
    elif rank == "A":
        size = w * rng.uniform(0.3, 0.5)
        if rng.random() < 0.3:
            cv2.circle(canvas, (w // 2, h // 2), int(size * 0.75), ink, max(1, w // 100), cv2.LINE_AA)
        _draw_pip(canvas, suit, w / 2, h / 2, size, ink, flip=False, variant=style.suit_variant)
    else:
        fx0 = int(round(index_right + w * 0.01))
        fy0 = int(round(h * 0.09))
        _draw_court_picture(canvas, rank, suit, style, rng, (fx0, fy0, w - fx0, h - fy0))

    # The 180-degree copy (and two more corners on four-index decks).
    opposite = _rotate_quad_180(quad, w, h)
    _copy_corner(canvas, quad, opposite, rotate=True)
    quads = [quad, opposite]
    if style.four_indices:
        # An index reads upright from its own short edge: mirror the position, not the glyphs.
        top_right = _mirror_quad_x(quad, w)
        _copy_corner(canvas, quad, top_right)
        bottom_left = _rotate_quad_180(top_right, w, h)
        _copy_corner(canvas, quad, bottom_left, rotate=True)
        quads += [top_right, bottom_left]
    mask = rounded_mask(w, h, style.corner_radius * w)
    canvas[mask == 0] = style.stock
    return Face(code, canvas, mask, tuple(q.astype(np.float32) for q in quads))


def _copy_corner(canvas: np.ndarray, src_quad: np.ndarray, dst_quad: np.ndarray, *, rotate: bool = False) -> None:
    """Copies the pixels under ``src_quad``'s bounding box to ``dst_quad``'s, optionally turned 180 degrees."""
    sx0, sy0 = np.floor(src_quad.min(axis=0)).astype(int).clip(0)
    sx1, sy1 = np.ceil(src_quad.max(axis=0)).astype(int)
    patch = canvas[sy0:sy1, sx0:sx1].copy()
    if rotate:
        patch = np.rot90(patch, 2)
    dx0, dy0 = np.floor(dst_quad.min(axis=0)).astype(int).clip(0)
    ph, pw = patch.shape[:2]
    region = canvas[dy0 : dy0 + ph, dx0 : dx0 + pw]
    region[:] = patch[: region.shape[0], : region.shape[1]]


def draw_back(style: FaceStyle, seed: int = 0) -> Face:
    """Draws a card back: a border and a repeating pattern in one or two colours."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 999]))
    w, h = style.width, style.height
    canvas = np.empty((h, w, 3), np.uint8)
    canvas[:] = style.stock
    colors = [(150, 40, 30), (40, 40, 170), (40, 110, 40), (30, 30, 30), (120, 40, 110), (20, 120, 200)]
    main = colors[int(rng.integers(len(colors)))]
    inset = int(w * rng.uniform(0.04, 0.09))
    cv2.rectangle(canvas, (inset, inset), (w - 1 - inset, h - 1 - inset), main, -1)
    kind = int(rng.integers(3))
    light = tuple(min(255, c + 90) for c in main)
    step = int(w * rng.uniform(0.05, 0.12))
    if kind == 0:  # diagonal lattice
        for k in range(-h, w + h, step):
            cv2.line(canvas, (k, 0), (k + h, h), light, 1, cv2.LINE_AA)
            cv2.line(canvas, (k, h), (k + h, 0), light, 1, cv2.LINE_AA)
    elif kind == 1:  # dots
        for yy in range(inset + step // 2, h - inset, step):
            for xx in range(inset + step // 2, w - inset, step):
                cv2.circle(canvas, (xx, yy), max(1, step // 4), light, -1, cv2.LINE_AA)
    else:  # concentric frames
        for k in range(inset + step // 2, min(w, h) // 2, step):
            cv2.rectangle(canvas, (k, k), (w - 1 - k, h - 1 - k), light, 1, cv2.LINE_AA)
    cv2.rectangle(canvas, (0, 0), (w - 1, h - 1), style.stock, inset)
    mask = rounded_mask(w, h, style.corner_radius * w)
    return Face("back", canvas, mask)


# ---------------------------------------------------------------------------------------------
# Face folders


def write_face_folder(path: str | Path, style: FaceStyle, seed: int = 0) -> list[Path]:
    """Writes the 24 faces of a drawn deck as PNG images named by card code, a folder :func:`load_face_folder`
    reads: to look at or print a generated deck, or to
    play rendered games with a style the detector never saw (``dokocam dataset render-game --faces``).

    The rounded corners are filled with the card stock, so the loader adds no border. Returns the
    files written.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     files = write_face_folder(tmp, FaceStyle(width=60), seed=1)
    ...     len(files), sorted(load_face_folder(tmp)) == sorted(CARD_CODES)
    (24, True)
    """
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for code in CARD_CODES:
        face = draw_face(code, style, seed)
        image = face.image.copy()
        image[face.mask == 0] = style.stock
        file = folder / f"{code}.png"
        if not cv2.imwrite(str(file), image):
            raise OSError(f"cannot write {file}")
        written.append(file)
    return written


# Where the index sits on a face image of a real deck, as fractions of its width and height.
# Chosen a little larger than the index on common decks, so a box never cuts a glyph.
FOLDER_INDEX_BOX = (0.0, 0.0, 0.22, 0.27)


def load_face_folder(
    path: str | Path,
    *,
    border: float | None = None,
    index_box: tuple[float, float, float, float] = FOLDER_INDEX_BOX,
    stock: tuple[int, int, int] = (245, 245, 245),
    corner_radius: float = 0.05,
) -> dict[str, Face]:
    """Loads face images named by card code (``QC.png``, ``10H.jpg`` ...) from ``path``.

    All 24 Doppelkopf faces must be present; ranks 2-8 may be present too (drawn unlabelled).
    Transparent images are composed onto plain card stock. A face's index boxes are those the folder's
    :data:`INDEX_FILE` gives for it, else found by their ink.

    Args:
        path: the folder.
        border: stock margin added around each image, as a fraction of its width; ``None`` adds
            4% to images with transparency (art with the border cropped away) and none to photos.
        index_box: ``(x0, y0, x1, y1)`` of the top-left index as fractions of the image (before
            the border), where :func:`index_ink_box` finds no index by its ink; the bottom-right
            index is its 180-degree copy.
        stock: card stock colour (BGR) behind transparent art and in the border.
        corner_radius: rounded-corner radius as a fraction of the card width.

    Raises:
        FaceFolderError: the folder is missing, a face is missing, a file is named like no card
            or cannot be read, or its index file cannot be read.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise FaceFolderError(f"face folder {folder} does not exist or is not a folder")
    files: dict[str, Path] = {}
    bad: list[str] = []
    for file in sorted(folder.iterdir()):
        if file.suffix.lower() not in _IMAGE_SUFFIXES:
            continue
        code = file.stem.upper()
        if not _CODE_RE.match(code):
            bad.append(file.name)
            continue
        if code in files:
            raise FaceFolderError(f"{folder} holds two images for {code}: {files[code].name} and {file.name}")
        files[code] = file
    if bad:
        raise FaceFolderError(
            f"{folder}: {', '.join(bad)} not named by card code; name faces like QC.png, 10H.png "
            f"(rank 9 10 J Q K A, suit C S H D)"
        )
    missing = [code for code in CARD_CODES if code not in files]
    if missing:
        raise FaceFolderError(f"{folder} lacks faces for {' '.join(missing)} (expected files like {missing[0]}.png)")
    labelled = read_index_boxes(folder)
    faces: dict[str, Face] = {}
    for code, file in files.items():
        image = cv2.imread(str(file), cv2.IMREAD_UNCHANGED)
        if image is None:
            raise FaceFolderError(f"cannot read {file} as an image")
        faces[code] = _face_from_image(code, image, border, index_box, stock, corner_radius, labelled.get(code))
    return faces


INDEX_FILE = "indices.json"  # a face folder's own index boxes: {"QC": [[x0, y0, x1, y1], ...], ...}


def read_index_boxes(folder: str | Path) -> dict[str, list[tuple[float, float, float, float]]]:
    """The index boxes a face folder carries in :data:`INDEX_FILE` (face-image pixels, by card code), or
    none: the faces' indices are then found by their ink (:func:`index_ink_box`).

    Raises:
        FaceFolderError: the file is there but not such a mapping.
    """
    path = Path(folder) / INDEX_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
        boxes = {
            str(code): [(float(a), float(b), float(c), float(d)) for a, b, c, d in listed]
            for code, listed in data.items()
        }
    except (ValueError, TypeError, AttributeError) as exc:
        raise FaceFolderError(
            f"{path} is not a mapping of card codes to index boxes [[x0, y0, x1, y1], ...] ({exc}); "
            f"delete it to find the indices by their ink"
        ) from None
    bad = [code for code in boxes if not _CODE_RE.match(code)]
    if bad:
        raise FaceFolderError(f"{path} names no card by {', '.join(bad)}")
    return {code: listed for code, listed in boxes.items() if listed}


def write_index_boxes(folder: str | Path, boxes: Mapping[str, Sequence[Sequence[float]]]) -> Path:
    """Writes ``boxes`` (card code -> index boxes in face-image pixels) as the folder's :data:`INDEX_FILE`."""
    path = Path(folder) / INDEX_FILE
    rounded = {code: [[round(float(v), 1) for v in box] for box in listed] for code, listed in boxes.items()}
    path.write_text(json.dumps(rounded, indent=1) + "\n")
    return path


# Where index_ink_box looks for the top-left index, as fractions of the face: room for large indices.
INK_SEARCH = (0.30, 0.42)
# The region searched again when a suit sign under the rank leaves INK_SEARCH (decks with a large sign).
INK_SEARCH_TALL = (0.34, 0.58)
# Ink: a pixel this far (largest channel difference) from the corner's paper colour.
INK_CONTRAST = 60
# A frame line is thinner than this share of the face's width.
LINE_WIDTH = 0.03
# A glyph is at least this share of the face's height (smaller specks are dirt or photo noise).
MIN_GLYPH = 0.02
# The face's rim, as a share of its width: ink there is the card's outline or the photo's surroundings; the outline
# and its rounded corner lie within the band.
RIM = 0.012
OUTLINE_BAND = 0.03
# The largest rounded corner of a card, as a share of its width.
CORNER_RADIUS = 0.1
# The rank glyph starts this near the corner, as a share of the face's width and height.
RANK_REACH = 0.15
# The label's margin around the ink, as a share of its height: a drawn deck's labels keep 0.12 of the rank
# glyph's height, about 0.05 of its whole index (rank and suit sign).
INK_PAD = 0.05


def _straight_runs(mask: np.ndarray, length: int, axis: int) -> np.ndarray:
    """The pixels of ``mask`` in straight runs of at least ``length`` along ``axis`` (a morphological
    opening by a line, in numpy).

    >>> _straight_runs(np.array([[1, 1, 1, 0, 1, 1]], bool), 3, axis=1).astype(int).tolist()
    [[1, 1, 1, 0, 0, 0]]
    """
    rows = np.moveaxis(mask, axis, -1).astype(np.int32)
    n = rows.shape[-1]
    if length > n:
        return np.zeros(mask.shape, bool)
    total = np.cumsum(np.pad(rows, [(0, 0)] * (rows.ndim - 1) + [(1, 0)]), axis=-1)
    full = (total[..., length:] - total[..., :-length]) == length  # the window starting there is all set
    starts = np.cumsum(np.pad(full.astype(np.int32), [(0, 0)] * (rows.ndim - 1) + [(1, 0)]), axis=-1)
    j = np.arange(n)
    first, last = np.clip(j - length + 1, 0, n - length + 1), np.clip(j + 1, 0, n - length + 1)
    return np.moveaxis((starts[..., last] - starts[..., first]) > 0, -1, axis)


def stock_colour(image: np.ndarray) -> np.ndarray:
    """The card stock's BGR colour on a face image: the median of its most common colour (in steps of 32), not of
    all its pixels, since a court picture can cover most of a corner and much of the face.

    >>> face = np.full((100, 60, 3), 240, np.uint8)
    >>> face[15:85, 5:55] = (200, 60, 160)  # a picture over more than half the face, in two shades
    >>> face[15:85, 5:30] += 12
    >>> stock_colour(face).tolist()
    [240.0, 240.0, 240.0]
    """
    pixels = image[:, :, :3].reshape(-1, 3)
    bins = (pixels // 32).astype(np.int32) @ np.array([64, 8, 1], np.int32)
    return np.median(pixels[bins == np.bincount(bins).argmax()], axis=0)


def _joined(mask: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """The pixels of ``mask`` joined (8-connected, through ``mask``) to a pixel of ``seeds``.

    >>> m = np.array([[1, 1, 0, 1], [0, 1, 0, 1], [1, 0, 0, 0]], bool)
    >>> ends = np.zeros(m.shape, bool); ends[:, -1] = True  # the last column
    >>> _joined(m, ends).astype(int).tolist()
    [[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]]
    """
    marks = mask.astype(np.uint8)
    for y, x in zip(*np.nonzero(mask & seeds)):
        if marks[y, x] == 1:
            cv2.floodFill(marks, None, (int(x), int(y)), 2, flags=8)
    return marks == 2


def index_ink_box(
    image: np.ndarray, search: tuple[float, float] = INK_SEARCH
) -> tuple[float, float, float, float] | None:
    """The box (pixels, with a drawn label's margin) around the top-left index printed on a face image, found
    by its ink; ``None`` when no index-like ink is there (the caller then keeps ``FOLDER_INDEX_BOX``).

    A face folder is a deck nobody labelled. A fixed corner region as its label is looser than the print on
    most decks and cuts large indices; a detector's tight boxes met such labels at IoU 0.45-0.48 on a deck
    drawn in Liberation Sans. Here ink is what differs from the stock (its most common colour, at its level in
    this corner); the rank is the glyph nearest the corner, the rank's other glyphs ("10") lie beside it on its
    line, as tall, and the suit sign is the nearest shape centred close below it, with its own pieces. Straight
    strokes that run on out of the corner region (a court picture's frame, which an index may touch), ink
    joined to the face's rim (the card's outline, a photo's surroundings) and ink running out of the search
    region (the picture, the pips) are no part of it. On 128 drawn decks (half in training fonts, half in held-out
    ones; pool seeds 11 and 12: 3,072 faces) these boxes meet the decks' own labels at median IoU 0.95, 98% of
    them at 0.7 or more and none under 0.3 (the fixed region: median 0.57).

    >>> face = np.full((200, 140, 3), 245, np.uint8)
    >>> face[10:30, 8:14] = face[10:30, 18:28] = 0  # "10"
    >>> face[34:46, 10:24] = 0  # a suit sign below it
    >>> face[40:84, 30:32] = face[40:42, 30:42] = 0  # a court frame's corner
    >>> face[56:72, 34:40] = 0  # a pip beside the suit sign
    >>> index_ink_box(face)
    (6.2, 8.2, 29.8, 47.8)
    """
    h_card, w_card = image.shape[:2]
    patch = image[: int(search[1] * h_card), : int(search[0] * w_card), :3]
    if patch.size == 0:
        return None
    # The stock's level in this corner (light falls off across a photo), among the pixels near its colour only.
    stock = stock_colour(image)
    near = np.abs(patch.astype(np.int16) - stock.astype(np.int16)).max(axis=2) < INK_CONTRAST
    paper = np.median(patch[near], axis=0) if near.any() else stock
    ink = np.abs(patch.astype(np.int16) - paper.astype(np.int16)).max(axis=2) > INK_CONTRAST
    h, w = ink.shape
    # Ink joined to the face's rim is the card's outline (whose rounded corner would otherwise be the shape nearest
    # the corner once the straight sides are taken away) or a photo's surroundings: it goes as far as it lies in
    # a band along the edges and around a rounded corner, and no further: some decks print their index against the
    # outline.
    rim, band, corner = max(1, int(RIM * w_card)), max(2, int(OUTLINE_BAND * w_card)), CORNER_RADIUS * w_card
    ys, xs = np.mgrid[:h, :w]
    along = (
        (xs < band)
        | (ys < band)
        | ((xs < corner) & (ys < corner) & (np.hypot(corner - xs, corner - ys) > corner - band))
    )
    ink &= ~_joined(ink & along, (xs < rim) | (ys < rim))
    # A line is long and thin: the widest rows of a large suit sign are long too, but many of them lie together.
    thick = max(4, int(LINE_WIDTH * w_card))
    across = _straight_runs(ink, max(3, int(0.5 * w)), axis=1)
    down = _straight_runs(ink, max(3, int(0.35 * h)), axis=0)
    # A frame runs on past the corner region; a bold glyph's crossbar can be as long but ends inside it.
    lines = _joined(across & ~_straight_runs(across, thick, axis=0), xs == w - 1) | _joined(
        down & ~_straight_runs(down, thick, axis=1), ys == h - 1
    )
    # Outer contours, not connectedComponents or morphologyEx: those start OpenCV's thread pool, and a
    # dataset's worker processes, forked after the parent read the face folder, then hang on its lock.
    contours, _ = cv2.findContours((ink & ~lines).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    shapes = [
        (x, y, x + cw, y + ch) for x, y, cw, ch in (cv2.boundingRect(c) for c in contours) if ch >= MIN_GLYPH * h_card
    ]
    glyphs = [g for g in shapes if g[0] > 0 and g[1] > 0 and g[2] < w and g[3] < h]
    cut = [g for g in shapes if g[0] > 0 and g[1] > 0 and g[3] >= h and g[2] < w]
    if not glyphs:
        # A rank joined to its sign can run out of the region as one shape: look again in the tall one.
        return index_ink_box(image, INK_SEARCH_TALL) if cut and search[1] < INK_SEARCH_TALL[1] else None
    rank = min(glyphs, key=lambda g: g[0] + g[1])
    if rank[0] > RANK_REACH * w_card or rank[1] > RANK_REACH * h_card:
        return None  # the index is joined to other print (a court's picture): nothing near the corner stands alone
    tall = rank[3] - rank[1]
    box = list(rank)
    rest = [g for g in glyphs if g != rank]

    def join(fits: Callable[[tuple[int, int, int, int]], bool]) -> None:
        grown = True
        while grown:
            grown = False
            for g in [g for g in rest if fits(g)]:
                box[:] = [min(box[0], g[0]), min(box[1], g[1]), max(box[2], g[2]), max(box[3], g[3])]
                rest.remove(g)
                grown = True

    join(
        lambda g: (
            box[0] <= g[0] <= box[2] + 0.3 * tall
            and 0.7 * tall <= g[3] - g[1] <= 1.4 * tall
            and min(rank[3], g[3]) - max(rank[1], g[1]) >= 0.7 * min(tall, g[3] - g[1])
        )
    )

    def below(g: tuple[int, int, int, int]) -> bool:
        return -0.3 * tall <= g[1] - box[3] <= 0.5 * tall and g[3] > box[3] and box[0] <= (g[0] + g[2]) / 2 <= box[2]

    # One suit sign: the nearest shape below, with its own pieces (a club's stem apart from its leaves) that start
    # before it ends; what lies under the sign (a court's sceptre, a pip) is no part of the index.
    signs = [g for g in rest if below(g)]
    if signs:
        sign = min(signs, key=lambda g: g[1])
        rest.remove(sign)
        box[:] = [min(box[0], sign[0]), min(box[1], sign[1]), max(box[2], sign[2]), max(box[3], sign[3])]
        join(lambda g: g[1] < box[3] and g[3] > rank[3] and g[0] < box[2] and g[2] > box[0])
    elif any(below(g) for g in cut) and search[1] < INK_SEARCH_TALL[1]:
        # The suit sign under the rank runs out of the region: a tall index (a large sign below the rank).
        return index_ink_box(image, INK_SEARCH_TALL)
    pad = INK_PAD * (box[3] - box[1])
    return (round(box[0] - pad, 2), round(box[1] - pad, 2), round(box[2] + pad, 2), round(box[3] + pad, 2))


def _face_from_image(
    code: str,
    image: np.ndarray,
    border: float | None,
    index_box: tuple[float, float, float, float],
    stock: tuple[int, int, int],
    corner_radius: float,
    labelled: Sequence[tuple[float, float, float, float]] | None = None,
) -> Face:
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    has_alpha = image.shape[2] == 4
    if image.dtype != np.uint8:
        image = (image / (image.max() or 1) * 255).astype(np.uint8)
    if has_alpha:
        alpha = image[:, :, 3:4].astype(np.float32) / 255.0
        image = (image[:, :, :3] * alpha + np.array(stock, np.float32) * (1 - alpha)).astype(np.uint8)
    if border is None:
        border = 0.04 if has_alpha else 0.0
    h, w = image.shape[:2]
    pad = int(round(border * w))
    if pad:
        image = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=stock)
    fw, fh = image.shape[1], image.shape[0]
    mask = rounded_mask(fw, fh, corner_radius * fw)
    if labelled:
        # As drawn faces list theirs: the top-left box first, then the one nearest the bottom right.
        ordered = sorted(labelled, key=lambda b: (b[0] + b[2]) / w + (b[1] + b[3]) / h)
        ordered = ordered[:1] + ordered[1:][::-1]
        boxes = [np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32) + pad for x0, y0, x1, y1 in ordered]
        return Face(code, np.ascontiguousarray(image), mask, tuple(boxes))
    found = index_ink_box(image[pad : pad + h, pad : pad + w])
    x0, y0, x1, y1 = (found[0] / w, found[1] / h, found[2] / w, found[3] / h) if found else index_box
    quad = np.array(
        [
            [pad + x0 * w, pad + y0 * h],
            [pad + x1 * w, pad + y0 * h],
            [pad + x1 * w, pad + y1 * h],
            [pad + x0 * w, pad + y1 * h],
        ],
        np.float32,
    )
    quads = [quad, _rotate_quad_180(quad, fw, fh)]
    right = top_right_index(image[pad : pad + h, pad : pad + w], found) if found else None
    if right is not None:
        rx0, ry0, rx1, ry1 = right
        top_right = np.array([[rx0, ry0], [rx1, ry0], [rx1, ry1], [rx0, ry1]], np.float32) + pad
        quads += [top_right, _rotate_quad_180(top_right, fw, fh)]
    image = np.ascontiguousarray(image)
    return Face(code, image, mask, tuple(quads))


# The top-right corner holds the index too when its print matches the top-left's this well (zero-mean
# normalised correlation); a pip or a court picture there scores far lower.
SAME_PRINT = 0.8


def top_right_index(
    image: np.ndarray, box: tuple[float, float, float, float]
) -> tuple[float, float, float, float] | None:
    """The box of a second index in the top-right corner of a face image, the same print as the top-left
    index in ``box`` (pixels) within a few pixels of its mirrored place; ``None`` on a two-index deck.

    >>> face = np.full((140, 100, 3), 250, np.uint8)
    >>> face[8:30, 6:16] = face[8:20, 16:20] = 0  # an index, not symmetric
    >>> face[9:31, 81:91] = face[9:21, 91:95] = 0  # the same print top-right, a pixel off its mirrored place
    >>> top_right_index(face, (4.0, 6.0, 22.0, 32.0))
    (79.0, 7.0, 97.0, 33.0)
    >>> face[9:31, 81:95] = 250; face[12:22, 82:92] = 0  # a pip instead
    >>> top_right_index(face, (4.0, 6.0, 22.0, 32.0)) is None
    True
    """
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    grey = image[:, :, :3].astype(np.float32).mean(axis=2)
    template = grey[y0:y1, x0:x1]
    template = template - template.mean()
    norm = float(np.sqrt((template**2).sum()))
    if norm < 1e-3:
        return None
    reach = max(2, int(0.03 * w))
    best, where = -1.0, (0, 0)
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            mx0, my0 = w - x1 + dx, y0 + dy
            if mx0 <= x1 or my0 < 0 or mx0 + (x1 - x0) > w or my0 + (y1 - y0) > h:
                continue
            window = grey[my0 : my0 + (y1 - y0), mx0 : mx0 + (x1 - x0)]
            window = window - window.mean()
            score = float((window * template).sum()) / (norm * (float(np.sqrt((window**2).sum())) or 1e9))
            if score > best:
                best, where = score, (mx0, my0)
    if best < SAME_PRINT:
        return None
    fx, fy = box[0] - x0, box[1] - y0  # keep the label's sub-pixel margin
    return (
        float(where[0] + fx),
        float(where[1] + fy),
        float(where[0] + fx + box[2] - box[0]),
        float(where[1] + fy + box[3] - box[1]),
    )
