"""Synthetic Doppelkopf scenes: card faces, table surfaces, rendering with exact labels.

The rendering API (for the dataset generator and the game-video renderer)::

    from vision.synth import Deck, Table, Camera, PlacedCard, Arm, render_scene
"""

from vision.synth.faces import CARD_CODES, Face, FaceFolderError, FaceStyle, UnknownCardCodeError, card_index, load_face_folder
from vision.synth.scene import Arm, Camera, CardAnnotation, Deck, Look, PlacedCard, Prop, SceneAnnotation, Table, render_scene

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
