"""Reads a grouped card by its whole face, against the rectified faces of an enrolled deck.

At a table camera a card's index is 7-14 px high: a court card's letter is a few pixels and the suit sign beside
it fewer. The face itself is ten times larger, and on an enrolled deck every face is known. Two index centres of
one card (a pair the grouping joined) fix where the card lies up to which corners they are: each way of putting
the deck's corner index centres on them gives a similarity transform, the frame is warped back to an upright
face of ``width`` pixels, and the warp is compared with every face of the deck. The way that fits best names
the card; its errors over the 24 faces become probabilities (``exp(-error / temperature)``) that the match stage
multiplies into the group's reading.

>>> faces = {code: np.full((140, 90, 3), 255, np.uint8) for code in CARD_CODES}
>>> faces["QH"][40:100, 20:70] = (0, 0, 200)
>>> boxes = {code: [(5.0, 5.0, 15.0, 25.0), (75.0, 115.0, 85.0, 135.0)] for code in CARD_CODES}
>>> templates = FaceTemplates.from_faces(faces, boxes)
>>> frame = np.full((300, 300, 3), 90, np.uint8)
>>> frame[100:240, 100:190] = faces["QH"]
>>> ends = np.array([110.0, 115.0, 180.0, 225.0])
>>> CARD_CODES[int(templates.errors(frame, ends).argmin())]
'QH'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import permutations
from pathlib import Path

import cv2
import numpy as np

from dokocam.engine import CARD_CODES

CORNERS = ("TL", "TR", "BR", "BL")
# Diagonal corners are tried both ways; corners along a side only where the deck prints four indices (a pair on
# such a deck may be two indices of one side).
DIAGONALS = (("TL", "BR"), ("BR", "TL"), ("TR", "BL"), ("BL", "TR"))


# A frame whose pixels' channels differ by less than this on average (of 255) shows no colour.
COLOURLESS = 4.0


def colourless(image: np.ndarray) -> bool:
    """Whether ``image`` (BGR) shows no colour: every pixel nearly grey.

    >>> red = np.zeros((4, 4, 3), np.uint8)
    >>> red[..., 2] = 200
    >>> colourless(np.full((4, 4, 3), 128, np.uint8)), colourless(red)
    (True, False)
    """
    small = image[::8, ::8].astype(np.int16)
    return float((small.max(axis=-1) - small.min(axis=-1)).mean()) < COLOURLESS


def _normalised(image: np.ndarray) -> np.ndarray:
    """``image`` (H x W x 3, or a stack of them) white-balanced on its paper and scaled to zero mean and unit
    spread over all channels together: the light's colour and strength go, red against black stays."""
    f = image.astype(np.float32)
    pixels = f.reshape(*f.shape[:-3], -1, 3)
    tenth = int(0.9 * (pixels.shape[-2] - 1))
    paper = np.partition(pixels, tenth, axis=-2)[..., tenth, :][..., None, None, :]  # the 90th percentile
    f = f / (paper + 8.0)
    mean = f.mean(axis=(-3, -2, -1), keepdims=True)
    spread = f.std(axis=(-3, -2, -1), keepdims=True)
    return (f - mean) / (spread + 0.03)


@dataclass(frozen=True, repr=False)
class FaceTemplates:
    """The 24 faces of one deck, small and normalised, and where each corner index sits on them.

    Attributes:
        templates: 24 x height x width x 3, in :attr:`Card.index` order.
        corners: corner name (``TL``, ``TR``, ``BR``, ``BL``) -> the mean index centre there, as a fraction of the
            face's width and height; only the corners the deck prints indices in.
        aspect: the face's height over its width.
    """

    templates: np.ndarray
    corners: Mapping[str, tuple[float, float]]
    aspect: float

    @classmethod
    def from_faces(
        cls,
        faces: Mapping[str, np.ndarray],
        boxes: Mapping[str, Sequence[tuple[float, float, float, float]]],
        width: int = 40,
    ) -> FaceTemplates:
        """Templates from face images by card code and their index boxes (face pixels, by card code).

        Raises:
            ValueError: a card's face is missing, or no face has an index box in two opposite corners.
        """
        missing = [code for code in CARD_CODES if code not in faces]
        if missing:
            raise ValueError(f"the deck has no face for {', '.join(missing)}")
        height, face_width = faces[CARD_CODES[0]].shape[:2]
        aspect = height / face_width
        size = (width, round(width * aspect))
        small = np.stack(
            [
                cv2.GaussianBlur(cv2.resize(faces[code], size, interpolation=cv2.INTER_AREA), (0, 0), 0.7)
                for code in CARD_CODES
            ]
        )
        found: dict[str, list[tuple[float, float]]] = {name: [] for name in CORNERS}
        for code, listed in boxes.items():
            h, w = faces[code].shape[:2] if code in faces else (height, face_width)
            for x0, y0, x1, y1 in listed:
                x, y = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h
                found[("T" if y < 0.5 else "B") + ("L" if x < 0.5 else "R")].append((x, y))
        corners = {name: tuple(np.mean(points, axis=0).tolist()) for name, points in found.items() if points}
        if not any(a in corners and b in corners for a, b in DIAGONALS):
            raise ValueError("no face has index boxes in two opposite corners: a card's place cannot be fixed")
        return cls(_normalised(small), corners, aspect)

    @classmethod
    def from_folder(cls, folder: str | Path, width: int = 40) -> FaceTemplates:
        """Templates from a face folder with its index boxes (``indices.json``, else found by their ink).

        Raises:
            FaceFolderError: the folder is not a complete face folder.
            ValueError: see :meth:`from_faces`.
        """
        from dokocam.vision.synth.faces import load_face_folder

        loaded = {code: face for code, face in load_face_folder(folder).items() if code in CARD_CODES}
        boxes = {
            code: [(*quad.min(axis=0).tolist(), *quad.max(axis=0).tolist()) for quad in face.indices]
            for code, face in loaded.items()
        }
        return cls.from_faces({code: face.image for code, face in loaded.items()}, boxes, width)

    def __repr__(self) -> str:
        width, height = self.size
        return f"FaceTemplates({len(self.templates)} faces of {width}x{height} px, indices {'/'.join(self.corners)})"

    @cached_property
    def flat(self) -> np.ndarray:
        """The templates, one row each."""
        return self.templates.reshape(len(self.templates), -1)

    @cached_property
    def flat_grey(self) -> np.ndarray:
        """The templates without colour, normalised again, one row each."""
        return _normalised(np.repeat(self.templates.mean(axis=-1, keepdims=True), 3, axis=-1)).reshape(
            len(self.templates), -1
        )

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of a template."""
        return int(self.templates.shape[2]), int(self.templates.shape[1])

    def ways(self) -> list[tuple[str, str]]:
        """The ways two index centres of one card may be its corners: (first end's corner, second end's)."""
        if len(self.corners) == 4:
            return list(permutations(CORNERS, 2))
        return [(a, b) for a, b in DIAGONALS if a in self.corners and b in self.corners]

    def warp(self, image: np.ndarray, ends: np.ndarray, way: tuple[str, str]) -> np.ndarray:
        """The frame around a card warped to an upright template, its index centres ``ends`` (x1, y1, x2, y2)
        taken for the corners ``way``."""
        width, height = self.size
        (fx1, fy1), (fx2, fy2) = (self.corners[c] for c in way)
        f1, f2 = complex(fx1 * width, fy1 * height), complex(fx2 * width, fy2 * height)
        i1, i2 = complex(ends[0], ends[1]), complex(ends[2], ends[3])
        a = (i2 - i1) / (f2 - f1)
        b = i1 - a * f1
        to_image = np.array([[a.real, -a.imag, b.real], [a.imag, a.real, b.imag]], np.float32)
        return cv2.warpAffine(
            image,
            to_image,
            (width, height),
            flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )

    def errors(self, image: np.ndarray, ends: np.ndarray, grey: bool | None = None) -> np.ndarray:
        """Per card (24), the mean squared difference of its face and the frame, under the way that fits it best.

        A frame without colour (a grey camera, or one whose colour the light has taken; ``grey``, by default
        :func:`colourless`) is compared with grey faces: its red cards would fit the black ones' faces better
        than their own.
        """
        warps = np.stack([self.warp(image, ends, way) for way in self.ways()])
        templates = self.flat
        if colourless(image) if grey is None else grey:
            warps = np.repeat(warps.mean(axis=-1, keepdims=True), 3, axis=-1)
            templates = self.flat_grey
        seen = _normalised(warps).reshape(len(warps), -1)
        # |t - s|^2 = |t|^2 + |s|^2 - 2 t.s, one matrix product for every way and face.
        squared = (templates**2).sum(axis=1)[None] + (seen**2).sum(axis=1)[:, None] - 2.0 * seen @ templates.T
        return np.asarray(squared.min(axis=0) / templates.shape[1])

    def probabilities(
        self, image: np.ndarray, ends: np.ndarray, temperature: float, grey: bool | None = None
    ) -> np.ndarray:
        """Per card (24), how well its face fits, as probabilities ``exp(-error / temperature)`` normalised."""
        errors = self.errors(image, ends, grey)
        weights = np.exp(-(errors - errors.min()) / temperature)
        return weights / weights.sum()
