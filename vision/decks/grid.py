"""The layout's grid in a photo: which card outline lies at which place, for each way the photo may be turned.

The cards' long sides give the grid's two axes (the cards lie parallel to them). Along one axis the
outlines' centres fall into four groups (the rows), along the other into six (the columns); which
axis is which says whether the photo was taken from a long or a short side of the layout. Which end
of the rows is Kreuz is not in the geometry: :func:`place_outlines` gives both candidates, and the
enrolment reads the cards to choose.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from dokocam.vision.decks.layout import COLUMNS, ROWS, place_name
from dokocam.vision.decks.outline import Outline, outline_of


class GridError(ValueError):
    """The outlines do not form the layout's 4 x 6 grid; the message says what is wrong, German first."""


@dataclass(frozen=True)
class Placement:
    """One way to read the grid: each place's outline, turned so that its face is upright in the layout.

    Attributes:
        places: ``(row, column)`` -> the outline there (missing places are absent).
        down: the layout's downward direction in the photo (unit vector, pixels).
    """

    places: dict[tuple[int, int], Outline]
    down: tuple[float, float]

    @property
    def missing(self) -> list[tuple[int, int]]:
        return [(r, c) for r in range(ROWS) for c in range(COLUMNS) if (r, c) not in self.places]


def _groups(values: np.ndarray, spacing: float) -> np.ndarray:
    """Group numbers (0, 1, ... in ascending order of value) for ``values``, split where neighbours
    (sorted) lie more than ``spacing`` apart."""
    order = np.argsort(values)
    labels = np.empty(len(values), np.int64)
    labels[order] = np.concatenate([[0], np.cumsum(np.diff(values[order]) > spacing)])
    return labels


def _long_axis(outlines: list[Outline]) -> np.ndarray:
    """The cards' mean long-side direction (unit vector; the sign is arbitrary), by doubled angles."""
    axes = np.array([(o.corners[3] + o.corners[2] - o.corners[0] - o.corners[1]) / 2 for o in outlines])
    angles = np.arctan2(axes[:, 1], axes[:, 0])
    mean = np.angle(np.exp(2j * angles).mean()) / 2
    return np.array([np.cos(mean), np.sin(mean)])


def place_outlines(outlines: list[Outline]) -> list[Placement]:
    """The two readings of the grid (the layout's top at one end of the rows or the other).

    Raises:
        GridError: the outlines form no 4 x 6 grid (too few cards to tell, rows or columns of the
            wrong count, two outlines at one place).
    """
    if len(outlines) < COLUMNS + ROWS:
        raise GridError(
            f"Auf dem Foto sind nur {len(outlines)} Karten zu erkennen, zu wenige für das Raster aus "
            "4 Reihen und 6 Spalten. "
            f"Lege alle 24 Karten offen und mit etwas Abstand aus und fotografiere sie von oben.\n"
            f"Only {len(outlines)} cards are visible, too few for the 4 x 6 grid: lay out all 24 face up, "
            "a little apart, and photograph them from above."
        )
    long_axis = _long_axis(outlines)
    short_axis = np.array([-long_axis[1], long_axis[0]])
    centres = np.array([o.centre for o in outlines])
    width = float(np.median([o.width for o in outlines]))
    height = float(np.median([o.height for o in outlines]))
    along_long = _groups(centres @ long_axis, 0.5 * height)
    along_short = _groups(centres @ short_axis, 0.5 * width)
    counts = (along_long.max() + 1, along_short.max() + 1)
    if counts == (ROWS, COLUMNS):
        rows, columns, down = along_long, along_short, long_axis
    elif counts == (COLUMNS, ROWS):  # the cards lie across the layout's rows
        rows, columns, down = along_short, along_long, short_axis
    else:
        raise GridError(
            f"Die Karten bilden kein Raster aus 4 Reihen und 6 Spalten (erkannt: {counts[0]} x {counts[1]}). "
            f"Lege sie in 4 geraden Reihen zu je 6 Karten aus, mit etwas Abstand.\n"
            f"The cards form no grid of 4 rows and 6 columns (seen: {counts[0]} x {counts[1]}): lay them out in 4 "
            f"straight rows of 6, a little apart."
        )
    # The columns must run to the right of ``down``; with ``down`` as found they may run to the left.
    right = np.array([down[1], -down[0]])
    if np.corrcoef(columns, centres @ right)[0, 1] < 0:
        columns = columns.max() - columns
    readings = []
    for sign in (1, -1):
        d = down * sign
        places: dict[tuple[int, int], Outline] = {}
        for outline, row, column in zip(outlines, rows, columns):
            if sign < 0:
                row, column = ROWS - 1 - row, COLUMNS - 1 - column
            key = (int(row), int(column))
            if key in places:
                raise GridError(
                    f"Zwei Karten liegen an einem Platz ({place_name(*key)}) oder zu dicht beieinander. "
                    f"Lege jede Karte an ihren eigenen Platz, mit etwas Abstand.\n"
                    f"Two cards lie at one place or too close together: give each card its own place, a little apart."
                )
            places[key] = _upright(outline, d)
        readings.append(Placement(places, (float(d[0]), float(d[1]))))
    return readings


def _upright(outline: Outline, down: np.ndarray) -> Outline:
    """``outline`` with its corners ordered so the face's top edge is the one nearer the layout's top."""
    c = outline.corners
    top_to_bottom = (c[2] + c[3] - c[0] - c[1]) / 2
    return outline if top_to_bottom @ down >= 0 else outline.turned(2)


MIN_FOR_GROWING = 6  # outlines found before the layout's regularity may say where the others lie
SINGLE_STEP = 1.9  # a gap between neighbouring found rows (or columns) this many card sizes or less is one step


def lattice(outlines: list[Outline]) -> dict[tuple[int, int], Outline]:
    """Each outline at its ``(i, j)`` on the layout's lattice: ``i`` counts card steps along the cards'
    long side, ``j`` along their short side (from 0; a step with no card found is still counted)."""
    long_axis = _long_axis(outlines)
    short_axis = np.array([-long_axis[1], long_axis[0]])
    centres = np.array([o.centre for o in outlines])
    height = float(np.median([o.height for o in outlines]))
    width = float(np.median([o.width for o in outlines]))
    index = []
    for axis, size in ((long_axis, height), (short_axis, width)):
        along = centres @ axis
        groups = _groups(along, 0.5 * size)
        means = np.array([along[groups == g].mean() for g in range(groups.max() + 1)])
        # A step is a card and a gap (shorter on the far side of a tilted photo); an empty row or column
        # between two found ones makes a double step. Two steps span two cards at least, so a gap under
        # ``SINGLE_STEP`` card sizes is one step: those measure the step even where most found rows or
        # columns lie apart. Where none is, the smallest gap is taken for two steps.
        gaps = np.diff(means)
        single = gaps[gaps < SINGLE_STEP * size]
        unit = float(np.median(single)) if len(single) else float(gaps.min(initial=np.inf)) / 2
        steps = np.maximum(1, np.round(gaps / unit))
        index.append(np.concatenate([[0], np.cumsum(steps)]).astype(int)[groups])
    placed: dict[tuple[int, int], Outline] = {}
    for outline, i, j in zip(outlines, *index):
        placed.setdefault((int(i), int(j)), outline)
    return placed


def _fits(keys: list[tuple[int, int]]) -> bool:
    """Whether lattice places ``keys`` fit in the layout (4 x 6 steps one way round or the other)."""
    spans = tuple(max(k[a] for k in keys) - min(k[a] for k in keys) + 1 for a in (0, 1))
    return (spans[0] <= ROWS and spans[1] <= COLUMNS) or (spans[0] <= COLUMNS and spans[1] <= ROWS)


def grow(outlines: list[Outline], accept: Callable[[np.ndarray], np.ndarray | None]) -> list[Outline]:
    """``outlines`` and the cards the layout's regularity finds next to them, one lattice step at a time.

    A homography from lattice places to the found cards' centres carries the nearest found card's outline
    over to each empty neighbouring place (so perspective and the cards' size come along); ``accept``
    gets those corners and returns the card's corners there (snapped to its edges), or ``None`` when no
    card lies there. Growth stops when no neighbour is accepted or the layout is full. Fewer than
    :data:`MIN_FOR_GROWING` outlines: returned as they are (too few to trust the lattice).
    """
    if len(outlines) < MIN_FOR_GROWING:
        return outlines
    placed = lattice(outlines)
    refused: set[tuple[int, int]] = set()
    added: list[Outline] = []
    while len(placed) < ROWS * COLUMNS:
        keys = list(placed)
        if len({k[0] for k in keys}) < 2 or len({k[1] for k in keys}) < 2:
            break
        grid = np.array([(j, i) for i, j in keys], np.float64)
        centres = np.array([placed[k].centre for k in keys], np.float64)
        homography, _ = cv2.findHomography(grid, centres, 0)
        if homography is None:
            break
        inverse = np.linalg.inv(homography)
        candidates = {
            (i + di, j + dj)
            for i, j in keys
            for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if (i + di, j + dj) not in placed and (i + di, j + dj) not in refused
        }
        grown = False
        for i, j in sorted(candidates):
            if not _fits([*placed, (i, j)]):
                continue
            near = min(placed, key=lambda k: (k[0] - i) ** 2 + (k[1] - j) ** 2)
            in_grid = cv2.perspectiveTransform(placed[near].corners.reshape(-1, 1, 2), inverse).reshape(-1, 2)
            moved = in_grid + [j - near[1], i - near[0]]
            predicted = cv2.perspectiveTransform(moved.reshape(-1, 1, 2), homography).reshape(-1, 2)
            corners = accept(predicted)
            if corners is None:
                refused.add((i, j))
                continue
            placed[(i, j)] = outline = outline_of(corners)
            added.append(outline)
            grown = True
        if not grown:
            break
    return outlines + added
