"""Odd print: a deck's faces recoloured or changed the way real decks differ, their index labels kept right.

Light ink on dark stock (white, gold or silver; metallic ink's brightness changes across the card with the
light), inverted and hue-turned faces, four-colour suits, thinner or bolder print, and court cards printed
without corner indices (their labels dropped). Each is a function ``Face -> Face``; :func:`odd_print` draws
one for a whole deck.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import cv2
import numpy as np

from dokocam.vision.synth.faces import Face, split_code

# Light inks on dark stock (BGR): white, gold, silver.
LIGHT_INKS: dict[str, tuple[int, int, int]] = {
    "white": (240, 240, 240),
    "gold": (60, 180, 225),
    "silver": (200, 200, 195),
}
# The second ink of a two-ink dark deck, for what is red on an ordinary one (BGR): red, gold.
LIGHT_RED_INKS: dict[str, tuple[int, int, int]] = {"red": (60, 60, 225), "gold": LIGHT_INKS["gold"]}
# Four-colour suits (BGR): Kreuz black, Pik green, Herz red, Karo blue or orange.
FOUR_COLOURS: dict[str, tuple[int, int, int]] = {
    "C": (20, 20, 20),
    "S": (40, 140, 30),
    "H": (40, 30, 205),
    "D": (200, 90, 20),
}


def _paper(face: Face) -> np.ndarray:
    """The stock colour: the median of the face inside its outline."""
    return np.median(face.image[face.mask > 0].reshape(-1, 3), axis=0)


def ink_amount(face: Face) -> np.ndarray:
    """How much each pixel is ink, 0..1: its distance from the stock colour, saturating at 120 grey levels."""
    distance = np.abs(face.image.astype(np.float32) - _paper(face)).max(axis=2)
    return np.clip(distance / 120.0, 0.0, 1.0)


def _with(face: Face, image: np.ndarray, indices: tuple[np.ndarray, ...] | None = None) -> Face:
    return Face(face.code, np.ascontiguousarray(image), face.mask, face.indices if indices is None else indices)


def light_on_dark(
    face: Face,
    stock: tuple[int, int, int],
    ink: tuple[int, int, int],
    metallic: float = 0.0,
    angle_deg: float = 0.0,
    red_ink: tuple[int, int, int] | None = None,
) -> Face:
    """The face printed in light ``ink`` on dark ``stock``, what was red in ``red_ink`` when given (a black deck
    with gold hearts beside white spades); ``metallic`` > 0 makes the ink brighter towards ``angle_deg`` and
    darker away from it (up to that share), as gold or silver foil under a lamp."""
    amount = ink_amount(face)[:, :, None]
    colour = np.array(ink, np.float32)
    if red_ink is not None:
        b, g, r = (face.image[..., k].astype(np.int32) for k in range(3))
        red = ((r > g + 60) & (r > b + 60))[:, :, None]
        colour = np.where(red, np.array(red_ink, np.float32), colour)
    if metallic > 0:
        h, w = amount.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = np.radians(angle_deg)
        ramp = ((xx / w - 0.5) * np.cos(a) + (yy / h - 0.5) * np.sin(a))[:, :, None]
        colour = colour * (1 + metallic * 2 * ramp)
    image = np.array(stock, np.float32) * (1 - amount) + colour * amount
    return _with(face, np.clip(image, 0, 255).astype(np.uint8))


def inverted(face: Face) -> Face:
    """The face's colours inverted (a negative)."""
    return _with(face, 255 - face.image)


def hue_turned(face: Face, degrees: float) -> Face:
    """The face's hues turned by ``degrees`` (red hearts turn orange, green, blue ...)."""
    hsv = cv2.cvtColor(face.image, cv2.COLOR_BGR2HSV)
    hsv[:, :, 0] = ((hsv[:, :, 0].astype(np.int32) + int(round(degrees / 2))) % 180).astype(np.uint8)
    return _with(face, cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR))


def suit_coloured(face: Face, colours: Mapping[str, tuple[int, int, int]] = FOUR_COLOURS) -> Face:
    """The face's coloured ink (its suit colour: pips, index) reprinted in its suit's colour from ``colours``;
    dark outlines and court pictures' other colours keep theirs only where they are not the suit's ink."""
    _, suit = split_code(face.code)
    image = face.image.astype(np.float32)
    amount = ink_amount(face)
    # The suit ink is the most common strong ink colour; recolour pixels near it.
    strong = image[amount > 0.8]
    if len(strong) == 0:
        return face
    main = np.median(strong, axis=0)
    near = np.clip(1 - np.abs(image - main).max(axis=2) / 60.0, 0, 1) * amount
    target = np.array(colours[suit], np.float32)
    paper = _paper(face)
    out = image + (target - main)[None, None, :] * near[:, :, None]
    out = np.where(near[:, :, None] > 0, out, image)
    out[face.mask == 0] = paper
    return _with(face, np.clip(out, 0, 255).astype(np.uint8))


def weight(face: Face, pixels: int) -> Face:
    """The print ``pixels`` bolder (> 0) or thinner (< 0), as a heavier or lighter font or a worn print."""
    if pixels == 0:
        return face
    paper = _paper(face)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(pixels) + 1, 2 * abs(pixels) + 1))
    amount = (ink_amount(face) * 255).astype(np.uint8)
    grown = cv2.dilate(amount, kernel) if pixels > 0 else cv2.erode(amount, kernel)
    spread = cv2.erode(face.image, kernel) if pixels > 0 else face.image
    alpha = (grown.astype(np.float32) / 255.0)[:, :, None]
    image = np.where(alpha > 0, spread.astype(np.float32), face.image.astype(np.float32))
    image = image * alpha + paper * (1 - alpha)
    return _with(face, np.clip(image, 0, 255).astype(np.uint8))


def without_court_indices(face: Face) -> Face:
    """A court card (J, Q, K) with its corner indices painted over in stock colour and their labels dropped;
    other cards unchanged."""
    rank, _ = split_code(face.code)
    if rank not in ("J", "Q", "K"):
        return face
    image = face.image.copy()
    paper = tuple(int(v) for v in _paper(face))
    for quad in face.indices:
        x0, y0 = np.floor(quad.min(axis=0)).astype(int).clip(0)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
        image[y0:y1, x0:x1] = paper
    return _with(face, image, ())


def odd_print(rng: np.random.Generator) -> Callable[[Face], Face]:
    """One deck's odd print, drawn: light on dark (gold/silver often metallic), inverted, hue-turned,
    four-colour, thinner or bolder, or courts without indices."""
    kind = int(rng.integers(6))
    if kind == 0:
        name = str(rng.choice(list(LIGHT_INKS)))
        stock = tuple(int(v) for v in rng.integers(10, 60, 3))
        metallic = float(rng.uniform(0.2, 0.6)) if name != "white" else 0.0
        angle = float(rng.uniform(0, 360))
        # About half the dark decks (5 in 9: not a gold second ink on gold) print their red suits in a second
        # ink (red or gold) beside the first.
        red = str(rng.choice(["", *LIGHT_RED_INKS]))
        red_ink = LIGHT_RED_INKS[red] if red and LIGHT_RED_INKS[red] != LIGHT_INKS[name] else None
        return lambda f: light_on_dark(f, stock, LIGHT_INKS[name], metallic, angle, red_ink)  # type: ignore[arg-type]
    if kind == 1:
        return inverted
    if kind == 2:
        degrees = float(rng.uniform(40, 320))
        return lambda f: hue_turned(f, degrees)
    if kind == 3:
        return suit_coloured
    if kind == 4:
        pixels = int(rng.choice([-2, -1, 1, 2, 3]))
        return lambda f: weight(f, pixels)
    return without_court_indices
