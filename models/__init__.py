"""Shipped detector weights and their model card (README.md), installed as package data."""

from importlib.resources import files
from pathlib import Path

#: The folder holding the shipped weights, wherever dokocam is installed.
MODELS_DIR = Path(str(files(__name__)))
DEFAULT_MODEL = MODELS_DIR / "dokocam-corners.pt"
