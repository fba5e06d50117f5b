"""A camera check before play: is the trick area in view, in focus, lit, are the indices large enough?

Each check reads one camera frame and the card boxes the detector found on it, and says what to
change in German and English ("Kamera etwa 30 % näher an den Tisch"). It judges the picture,
never a game fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dokocam.engine.messages import Message, register

# The shipped detector loses most cards at indices of 8-14 px (models/README); 20 px read well.
MIN_INDEX_PX = 20.0
DARK, BRIGHT = 60.0, 215.0  # mean grey level (0..255) of a frame a detector reads well
CLIPPED = 0.05  # share of burnt-out pixels (glare) that hides indices
SHARP = 60.0  # variance of the Laplacian of the card regions; soft webcams are below
EDGE = 0.02  # cards nearer the border than this share of the frame may be cut off

register(
    {
        "service.check.no_frame": (
            "Noch kein Kamerabild: Kamera anschließen und --source angeben",
            "no camera image yet: connect the camera and give --source",
        ),
        "service.check.no_cards": (
            "Keine Karte erkannt: vier Karten offen in die Tischmitte legen und erneut prüfen",
            "no card found: lay four cards face up in the middle of the table and check again",
        ),
        "service.check.view_ok": ("Stichbereich ganz im Bild", "the trick area is fully in view"),
        "service.check.view_edge": (
            "Karten am Bildrand ({side}): Kamera mittiger über die Tischmitte richten",
            "cards at the edge of the picture ({side}): point the camera at the middle of the table",
        ),
        "service.check.size_ok": (
            "Kartenecken groß genug ({px:.0f} px hoch, nötig {need:.0f} px)",
            "card indices large enough ({px:.0f} px tall, {need:.0f} px needed)",
        ),
        "service.check.size_small": (
            "Kartenecken zu klein ({px:.0f} px hoch, nötig {need:.0f} px): Kamera etwa {closer:.0f} % näher an den "
            "Tisch (z. B. von 100 cm auf {cm:.0f} cm) oder eine höhere Auflösung",
            "card indices too small ({px:.0f} px tall, {need:.0f} px needed): move the camera about {closer:.0f} % "
            "closer to the table (e.g. from 100 cm to {cm:.0f} cm) or use a higher resolution",
        ),
        "service.check.light_ok": (
            "Licht gut (Helligkeit {level:.0f} von 255)",
            "light good (brightness {level:.0f} of 255)",
        ),
        "service.check.light_dark": (
            "Zu dunkel (Helligkeit {level:.0f} von 255): mehr Licht über den Tisch",
            "too dark (brightness {level:.0f} of 255): more light over the table",
        ),
        "service.check.light_bright": (
            "Zu hell oder spiegelnd ({clipped:.0f} % überstrahlt): Lampe seitlich stellen, nicht über die Kamera",
            "too bright or glaring ({clipped:.0f} % burnt out): move the lamp to the side, away from the camera",
        ),
        "service.check.focus_ok": ("Scharf (Schärfe {sharp:.0f})", "in focus (sharpness {sharp:.0f})"),
        "service.check.focus_soft": (
            "Unscharf (Schärfe {sharp:.0f}, nötig {need:.0f}): Kamera auf die Tischmitte scharf stellen",
            "out of focus (sharpness {sharp:.0f}, {need:.0f} needed): focus the camera on the middle of the table",
        ),
    }
)


@dataclass(frozen=True)
class Check:
    """One finding: its topic (``view``, ``size``, ``light``, ``focus``), whether it is fine, what to do."""

    topic: str
    ok: bool
    message: Message

    def to_dict(self) -> dict[str, object]:
        return {"topic": self.topic, "ok": self.ok, "message": self.message.de, "message_en": self.message.en}


def check_frame(image: np.ndarray, boxes: Sequence[Sequence[float]], *, scale: float = 1.0) -> list[Check]:
    """Checks one frame (BGR or grey) with the detector's index boxes ``[x1, y1, x2, y2]`` on it.

    Args:
        image: the frame as the pages get it.
        boxes: the card (corner index) boxes found on it, in its pixels.
        scale: the frame's width over the camera's own (a frame shrunk for the pages is < 1);
            index sizes are judged at the camera's resolution, where the detector reads them.
    """
    grey = image if image.ndim == 2 else image.mean(axis=2)
    checks = [_light(grey)]
    if not boxes:
        return [Check("view", False, Message("service.check.no_cards")), *checks]
    xyxy = np.asarray(boxes, dtype=float).reshape(-1, 4)
    return [_view(xyxy, grey.shape), _size(xyxy, scale), *checks, _focus(grey, xyxy)]


def _view(xyxy: np.ndarray, shape: tuple[int, ...]) -> Check:
    height, width = shape[:2]
    sides = []
    if xyxy[:, 0].min() < EDGE * width:
        sides.append("links")
    if xyxy[:, 2].max() > (1 - EDGE) * width:
        sides.append("rechts")
    if xyxy[:, 1].min() < EDGE * height:
        sides.append("oben")
    if xyxy[:, 3].max() > (1 - EDGE) * height:
        sides.append("unten")
    if sides:
        return Check("view", False, Message("service.check.view_edge", side=", ".join(sides)))
    return Check("view", True, Message("service.check.view_ok"))


def _size(xyxy: np.ndarray, scale: float) -> Check:
    px = float(np.median(xyxy[:, 3] - xyxy[:, 1])) / max(scale, 1e-6)
    if px >= MIN_INDEX_PX:
        return Check("size", True, Message("service.check.size_ok", px=px, need=MIN_INDEX_PX))
    # An index's size in pixels goes with one over the camera's distance.
    distance = px / MIN_INDEX_PX
    message = Message(
        "service.check.size_small", px=px, need=MIN_INDEX_PX, closer=100 * (1 - distance), cm=100 * distance
    )
    return Check("size", False, message)


def _light(grey: np.ndarray) -> Check:
    level = float(grey.mean())
    clipped = float((grey >= 250).mean())
    if level < DARK:
        return Check("light", False, Message("service.check.light_dark", level=level))
    if level > BRIGHT or clipped > CLIPPED:
        return Check("light", False, Message("service.check.light_bright", clipped=100 * clipped))
    return Check("light", True, Message("service.check.light_ok", level=level))


def _focus(grey: np.ndarray, xyxy: np.ndarray) -> Check:
    import cv2

    height, width = grey.shape[:2]
    x1, y1 = max(0, int(xyxy[:, 0].min())), max(0, int(xyxy[:, 1].min()))
    x2, y2 = min(width, int(xyxy[:, 2].max()) + 1), min(height, int(xyxy[:, 3].max()) + 1)
    region = np.ascontiguousarray(grey[y1:y2, x1:x2], dtype=np.float32)
    sharp = float(cv2.Laplacian(region, cv2.CV_32F).var()) if region.size else 0.0
    if sharp < SHARP:
        return Check("focus", False, Message("service.check.focus_soft", sharp=sharp, need=SHARP))
    return Check("focus", True, Message("service.check.focus_ok", sharp=sharp))
