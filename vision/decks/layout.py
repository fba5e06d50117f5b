"""The enrolment layout: the 24 faces in a 4 x 6 grid, and a rendered photo of it.

Rows top to bottom Kreuz, Pik, Herz, Karo; columns left to right 9, 10, Bube, Dame, König, Ass, so a
place's card is ``RANKS[column] + SUITS[row]``: the class order of ``docs/interfaces.md`` read row by row.

>>> code_at(2, 3), place_name(2, 3)
('QH', 'Reihe 3, Spalte 4')
>>> card_name("QH")
'Herz-Dame'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dokocam.engine import Card
from dokocam.vision.synth.faces import CARD_CODES, RANKS, SUITS, Face

if TYPE_CHECKING:
    from dokocam.vision.synth.scene import Look, Table

ROWS = len(SUITS)
COLUMNS = len(RANKS)


def code_at(row: int, column: int) -> str:
    """The card that belongs at ``row``, ``column`` (both from 0)."""
    return RANKS[column] + SUITS[row]


def place_of(code: str) -> tuple[int, int]:
    """``(row, column)`` of ``code`` in the layout.

    >>> place_of("9C"), place_of("AD")
    ((0, 0), (3, 5))
    """
    index = CARD_CODES.index(code)
    return index // COLUMNS, index % COLUMNS


def place_name(row: int, column: int) -> str:
    """A place as players count it, from 1: ``Reihe 3, Spalte 4``."""
    return f"Reihe {row + 1}, Spalte {column + 1}"


def card_name(code: str) -> str:
    """The German name of a card code (``QH`` -> ``Herz-Dame``)."""
    return Card.parse(code).german_name


@dataclass(frozen=True)
class GridShot:
    """How a rendered photo of the layout is taken.

    Attributes:
        turn: the side of the table the photo is taken from, in quarter turns (0: the layout reads
            upright in the photo; 2: from across the table, upside down).
        tilt_deg: the camera's lean from straight down.
        yaw_jitter_deg: the layout's turn away from the photo's axes, beyond ``turn``.
        card_jitter_deg: each card's own turn (cards are never laid perfectly straight).
        gap_cm: the space between neighbouring cards.
        width, height: the photo's size in pixels.
        view_width_cm: the table width the photo shows across its centre.
    """

    turn: int = 0
    tilt_deg: float = 8.0
    yaw_jitter_deg: float = 3.0
    card_jitter_deg: float = 2.0
    gap_cm: float = 1.5
    width: int = 1600
    height: int = 1200
    view_width_cm: float = 68.0


def render_grid_scene(
    faces: Mapping[str, Face],
    shot: GridShot = GridShot(),
    *,
    seed: int = 0,
    codes: Mapping[tuple[int, int], str | None] | None = None,
    look: Look | None = None,
    table: Table | None = None,
) -> tuple[np.ndarray, Any]:
    """A photo of ``faces`` laid out as the enrolment expects, on a random table (chosen by ``seed``),
    and its :class:`~vision.synth.scene.SceneAnnotation` (where each card lies in it).

    Args:
        faces: the 24 faces by card code (:func:`~vision.synth.faces.load_face_folder`).
        shot: camera and layout.
        seed: the table cloth, the light and each card's jitter.
        codes: what lies at each place when it is not the layout's own card (``None``: nothing), to
            show a misplaced, doubled or missing card.
        look: the shot's light and artefacts (a :class:`~vision.synth.scene.Look`); the table's own by default.
        table: the table (a :class:`~vision.synth.scene.Table`); ``Table.random(seed)`` by default.

    Returns:
        The BGR photo and its annotation.
    """
    from dokocam.vision.synth.scene import Camera, Deck, PlacedCard, Table, render_scene

    rng = np.random.default_rng(np.random.SeedSequence([seed, 42]))
    deck = Deck.from_faces(faces, seed=seed, width_cm=6.0)
    card_w, card_h = deck.size_cm
    step_x, step_y = card_w + shot.gap_cm, card_h + shot.gap_cm
    placed = []
    for row in range(ROWS):
        for column in range(COLUMNS):
            code = code_at(row, column) if codes is None else codes.get((row, column), code_at(row, column))
            if code is None:
                continue
            centre = ((column - (COLUMNS - 1) / 2) * step_x, (row - (ROWS - 1) / 2) * step_y)
            placed.append(PlacedCard(code, centre, float(rng.normal(0, shot.card_jitter_deg))))
    yaw = 90.0 * shot.turn + float(rng.uniform(-shot.yaw_jitter_deg, shot.yaw_jitter_deg))
    camera = Camera(
        width=shot.width,
        height=shot.height,
        view_width_cm=shot.view_width_cm,
        tilt_deg=shot.tilt_deg,
        tilt_toward_deg=float(rng.uniform(0, 360)),
        yaw_deg=yaw,
        fov_deg=float(rng.uniform(55, 70)),
        k1=float(rng.uniform(0, 0.04)),
    )
    return render_scene(
        deck,
        table or Table.random(seed),
        placed,
        camera,
        seed=seed,
        look=look,
    )


def render_grid(faces: Mapping[str, Face], shot: GridShot = GridShot(), **kwargs: Any) -> np.ndarray:
    """The photo of :func:`render_grid_scene` alone."""
    return render_grid_scene(faces, shot, **kwargs)[0]
