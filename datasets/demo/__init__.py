"""The bundled demo game (video, ground truth, recorded detections), installed as package data."""

from importlib.resources import files
from pathlib import Path

DEMO_DIR = Path(str(files(__name__)))
DEMO_VIDEO = DEMO_DIR / "demo-game.mp4"
DEMO_TRUTH = DEMO_DIR / "demo-game.frames.jsonl"
