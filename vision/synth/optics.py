"""Webcam optics for table frames: the sensor, the lens, the mount and the video codec of a cheap webcam.

A webcam over a Doppelkopf table delivers 640x480 or 1280x720 frames in which an index is 8-14 px high,
softly focused, often tilted up to 50 degrees, bent by a wide-angle lens, its white balance and exposure
swinging, noisy in a dim room, over-sharpened and compressed into 8x8/16x16 blocks with half-resolution
colour. The geometry goes through :class:`~dokocam.vision.synth.scene.Camera` (so labels follow the
pixels), the light and blur through :class:`~dokocam.vision.synth.scene.Look`; only the codec's blocks
are drawn here, after rendering (they move no pixel's place).
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from dokocam.vision.synth.faces import CARD_CODES
from dokocam.vision.synth.scene import Camera, Deck, Look

SENSORS: tuple[tuple[int, int], ...] = ((640, 480), (1280, 720))
INDEX_PX = (8.0, 14.0)  # index height in the frame, pixels
MAX_TILT_DEG = 50.0
# A table's whole width from above: wider views would show the room, not the table.
VIEW_CM = (50.0, 260.0)


def index_height_cm(deck: Deck) -> float:
    """The height of a deck's top-left index (rank and suit sign), centimetres on the card."""
    face = deck.face(CARD_CODES[0])
    quad = face.indices[0] if face.indices else np.array([[0, 0], [0, 0.2 * face.size[1]]])
    return float(np.ptp(quad[:, 1])) / face.size[1] * deck.size_cm[1]


def webcam_camera(rng: np.random.Generator, deck: Deck, camera: Camera) -> Camera:
    """``camera`` (a table scene's) turned into a webcam: its sensor size, a view that makes the deck's indices
    8-14 px high, a tilt of up to 50 degrees and a cheap wide-angle lens's barrel distortion."""
    width, height = SENSORS[int(rng.integers(len(SENSORS)))]
    target_px = float(rng.uniform(*INDEX_PX))
    view = float(np.clip(width * index_height_cm(deck) / target_px, *VIEW_CM))
    return replace(
        camera,
        width=width,
        height=height,
        view_width_cm=view,
        tilt_deg=float(rng.uniform(0, MAX_TILT_DEG)),
        fov_deg=float(rng.uniform(60, 100)),
        k1=float(rng.uniform(0.0, 0.25)) if rng.random() < 0.7 else 0.0,
        stretch=1.0,
    )


def webcam_look(rng: np.random.Generator) -> Look:
    """Light and sensor of a webcam frame: soft focus, some motion blur, over-sharpening halos, auto white
    balance and exposure swings, low-light noise; the codec follows in :func:`video_codec`."""
    dim = rng.random() < 0.35
    swing = rng.normal(0, 0.12, 3)
    return Look(
        light_gradient=float(rng.uniform(0, 0.5)),
        light_angle_deg=float(rng.uniform(0, 360)),
        shadow=float(rng.uniform(0.1, 0.5)),
        glare=float(rng.uniform(0.2, 0.6)) if rng.random() < 0.15 else 0.0,
        color_gain=tuple(float(np.clip(1 + s, 0.7, 1.35)) for s in swing),  # type: ignore[arg-type]
        brightness=float(rng.uniform(0.35, 0.7) if dim else rng.uniform(0.7, 1.4)),
        vignette=float(rng.uniform(0.1, 0.5)),
        motion_blur_px=float(rng.uniform(2, 6)) if rng.random() < 0.2 else 0.0,
        focus_blur_px=float(rng.uniform(0.5, 1.6)) if rng.random() < 0.7 else 0.0,
        noise=float(rng.uniform(6, 18) if dim else rng.uniform(1, 6)),
        sharpen=float(rng.uniform(0.8, 2.5)) if rng.random() < 0.4 else 0.0,
        grayscale=False,
        photographer_shadow=0.0,
        jpeg_quality=0,
    )


def video_codec(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A frame after a webcam's codec: colour at half resolution (4:2:0), then heavy block compression
    (JPEG quality 12-40 on the whole frame, a stand-in for H.264's blocks at a low bit rate)."""
    ycrcb = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb)
    h, w = image.shape[:2]
    chroma = cv2.resize(ycrcb[:, :, 1:], (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)
    ycrcb[:, :, 1:] = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.cvtColor(ycrcb, cv2.COLOR_YCrCb2BGR)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(12, 41))])
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
    return out if decoded is None else decoded
