"""Synthetic Doppelkopf scenes: card faces, table surfaces, rendering with exact labels.

The rendering API (for the dataset generator and the game-video renderer)::

    from dokocam.vision.synth import Deck, Table, Camera, PlacedCard, Arm, render_scene

The names load their modules (OpenCV, matplotlib's fonts) on first use, so that the CLI, which
imports ``vision.synth.cli`` to build its help, stays instant for ``dokocam score``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dokocam.vision.synth.faces import (
        CARD_CODES,
        Face,
        FaceFolderError,
        FaceStyle,
        UnknownCardCodeError,
        card_index,
        load_face_folder,
    )
    from dokocam.vision.synth.scene import (
        Arm,
        Camera,
        CardAnnotation,
        Deck,
        Look,
        PlacedCard,
        Prop,
        SceneAnnotation,
        Table,
        render_scene,
    )

__all__ = [
    "CARD_CODES",
    "Arm",
    "Camera",
    "CardAnnotation",
    "Deck",
    "Face",
    "FaceFolderError",
    "FaceStyle",
    "Look",
    "PlacedCard",
    "Prop",
    "SceneAnnotation",
    "Table",
    "UnknownCardCodeError",
    "card_index",
    "load_face_folder",
    "render_scene",
]
_FACES = {
    "CARD_CODES",
    "Face",
    "FaceFolderError",
    "FaceStyle",
    "UnknownCardCodeError",
    "card_index",
    "load_face_folder",
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    home = "dokocam.vision.synth.faces" if name in _FACES else "dokocam.vision.synth.scene"
    return getattr(importlib.import_module(home), name)
