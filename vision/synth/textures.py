"""Procedural table surfaces: wood, cloth, felt, plastic, stone and patterned covers.

A :class:`Surface` is a recipe in physical units (centimetres), so the same table looks the same
whether a camera sees all of it or a close-up of one card.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

SURFACE_KINDS: tuple[str, ...] = ("wood", "felt", "cloth", "plastic", "stone", "pattern", "glass")


def fractal_noise(
    rng: np.random.Generator, shape: tuple[int, int], scale_px: float, octaves: int = 4, stretch: float = 1.0
) -> np.ndarray:
    """Smooth noise in ``[-1, 1]``-ish with features about ``scale_px`` pixels wide.

    ``stretch`` > 1 makes features that many times longer vertically (wood grain, brushed metal).
    """
    h, w = shape
    out = np.zeros((h, w), np.float32)
    amplitude, total = 1.0, 0.0
    for _ in range(octaves):
        gh = max(2, int(h / max(scale_px * stretch, 1.0)) + 2)
        gw = max(2, int(w / max(scale_px, 1.0)) + 2)
        grid = rng.standard_normal((gh, gw), dtype=np.float32)
        out += amplitude * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amplitude
        amplitude *= 0.5
        scale_px /= 2
    return out / total


def _muted(rng: np.random.Generator, saturation: float) -> tuple[int, int, int]:
    """A random colour pulled towards grey: real tables and cloths are rarely neon."""
    grey = rng.uniform(60, 200)
    colour = grey + (rng.uniform(0, 255, 3) - grey) * saturation
    return tuple(int(c) for c in np.clip(colour, 0, 255))  # type: ignore[return-value]


# Wood tones (BGR): light oak, beech, pine, walnut, cherry, mahogany, grey-washed, white-washed.
WOOD_TONES: tuple[tuple[int, int, int], ...] = (
    (120, 170, 205),
    (130, 180, 220),
    (110, 175, 225),
    (45, 75, 110),
    (50, 85, 150),
    (40, 55, 100),
    (140, 150, 160),
    (200, 210, 220),
)


@dataclass(frozen=True)
class Surface:
    """A table surface recipe.

    Attributes:
        kind: one of :data:`SURFACE_KINDS`.
        colors: two BGR colours (base and accent).
        scale_cm: size of the pattern's features (grain spacing, check size...).
        seed: makes the noise repeatable.
    """

    kind: str
    colors: tuple[tuple[int, int, int], tuple[int, int, int]]
    scale_cm: float
    seed: int

    @classmethod
    def random(cls, rng: np.random.Generator) -> Surface:
        kind = str(rng.choice(SURFACE_KINDS, p=[0.32, 0.12, 0.12, 0.12, 0.1, 0.12, 0.1]))
        if kind == "wood":
            tone = np.array(WOOD_TONES[int(rng.integers(len(WOOD_TONES)))], float) * rng.uniform(0.85, 1.1, 3)
            base = tuple(int(c) for c in np.clip(tone, 0, 255))
            accent = tuple(int(c * rng.uniform(0.55, 0.8)) for c in base)
            scale = float(rng.uniform(0.3, 1.2))
        elif kind == "felt":
            base = [(40, 110, 30), (110, 60, 20), (30, 30, 120), (60, 60, 60), (90, 50, 60)][int(rng.integers(5))]
            accent = tuple(int(c * 0.8) for c in base)
            scale = float(rng.uniform(0.05, 0.2))
        elif kind == "stone" or kind == "glass":
            v = int(rng.integers(10, 70)) if rng.random() < 0.7 else int(rng.integers(150, 230))
            base = (v, v, v + int(rng.integers(0, 10)))
            accent = tuple(min(255, c + int(rng.integers(40, 120))) for c in base)
            scale = float(rng.uniform(0.1, 0.5))
        else:
            base = _muted(rng, float(rng.uniform(0.1, 0.6)))
            accent = _muted(rng, float(rng.uniform(0.1, 0.6)))
            scale = float(rng.uniform(1.0, 6.0))
        return cls(kind, (base, accent), scale, int(rng.integers(2**31)))  # type: ignore[arg-type]

    def render(self, width: int, height: int, cm_per_px: float) -> np.ndarray:
        """Renders ``height x width`` BGR pixels of this surface at ``cm_per_px``."""
        rng = np.random.default_rng(self.seed)
        base = np.array(self.colors[0], np.float32)
        accent = np.array(self.colors[1], np.float32)
        shape = (height, width)
        px = self.scale_cm / max(cm_per_px, 1e-6)
        if self.kind == "wood":
            # Growth rings: a sawtooth across the grain, bent by noise that is long along it.
            warp = fractal_noise(rng, shape, max(6.0, px * 12), 3, stretch=8.0) * px * 4
            xx = np.arange(width, dtype=np.float32)[None, :] + warp
            period = max(px * rng.uniform(1.5, 4.0), 3.0)
            phase = (xx / period) % 1.0
            rings = np.clip(phase * 1.4 - 0.4, 0, 1) ** 2
            fibres = fractal_noise(rng, shape, max(1.5, px * 0.3), 2, stretch=30.0)
            t = np.clip(rings * 0.8 + fibres * 0.25 + 0.1, 0, 1)[..., None]
            image = base * (1 - t) + accent * t
            # Planks with slightly different tones and a dark seam between them.
            plank = int(max(px * rng.uniform(12, 30), 8))
            if plank < width:
                columns = np.arange(width) // plank
                tones = rng.uniform(0.85, 1.12, columns.max() + 1).astype(np.float32)
                image = image * tones[columns][None, :, None]
                seams = (np.arange(width) % plank) < max(1, int(px * 0.08))
                image[:, seams] *= 0.55
        elif self.kind in ("felt", "cloth"):
            n = fractal_noise(rng, shape, 2.0, 2)[..., None]
            image = base + n * 14
            if self.kind == "cloth":
                period = max(2.0, px * 0.3)
                yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
                weave = (np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period))[..., None]
                image = image + weave * 10
            image = image + fractal_noise(rng, shape, max(20.0, px * 60), 3)[..., None] * 12
        elif self.kind == "plastic":
            image = (
                base
                + fractal_noise(rng, shape, max(30.0, px * 40), 3)[..., None] * 8
                + rng.standard_normal((height, width, 1), dtype=np.float32) * 2
            )
        elif self.kind in ("stone", "glass"):
            speck = rng.random((height, width), dtype=np.float32)
            image = base + fractal_noise(rng, shape, max(3.0, px * 4), 3)[..., None] * 18
            image = np.where((speck > 0.985)[..., None], accent, image)
            if self.kind == "glass":
                # Long soft reflections of a room on a dark glass top.
                streak = fractal_noise(rng, (height, 4), max(4.0, height / 6), 2)
                streak = cv2.resize(streak, (width, height), interpolation=cv2.INTER_LINEAR)
                image = image + np.clip(streak, 0, None)[..., None] * 60
        else:  # pattern: checks, stripes or dots
            yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
            p = max(4.0, px * 5)
            style = rng.integers(3)
            if style == 0:
                t = ((xx // p + yy // p) % 2)[..., None]
            elif style == 1:
                t = (((xx + yy) // p) % 2)[..., None]
            else:
                t = (((xx % p) - p / 2) ** 2 + ((yy % p) - p / 2) ** 2 < (p / 4) ** 2)[..., None].astype(np.float32)
            image = base * (1 - t) + accent * t + fractal_noise(rng, shape, 2.0, 1)[..., None] * 8
        return np.clip(image, 0, 255).astype(np.uint8)
