"""Rendering a table seen from above, with exact labels for every card drawn.

Table coordinates are centimetres with the origin at the table's centre, ``x`` to the right and
``y`` towards the bottom player (the player nearest an un-rotated camera's image bottom). Every
pixel and every label goes through the same homography and lens distortion, so labels follow
what is drawn.

Typical use by a renderer of game videos::

    deck = Deck.procedural(seed=3)
    table = Table.random(seed=3)
    camera = Camera(width=1280, height=720, view_width_cm=90, tilt_deg=20)
    image, annotation = render_scene(deck, table, [PlacedCard("QC", (0, 8), 5)], camera, seed=frame)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import cv2
import numpy as np

from dokocam.vision.synth.faces import CARD_CODES, Face, FaceStyle, draw_back, draw_face
from dokocam.vision.synth.textures import Surface

OWNER_NONE = -1  # background
OWNER_HIDDEN = -2  # an occluder or a face-down card: hides what is below, labels nothing
# The renderer blurs a shot from these on (a shorter motion blur or smaller sigma changes nothing).
MOTION_BLUR_MIN = 1.5
FOCUS_BLUR_MIN = 0.3


class Deck:
    """One deck: 24 faces (drawn lazily), distractor faces and a back, plus its physical size.

    Faces are drawn on first use and cached; the pixels depend only on the deck's seed.
    """

    def __init__(
        self,
        style: FaceStyle,
        seed: int,
        faces: Mapping[str, Face] | None = None,
        size_cm: tuple[float, float] | None = None,
    ) -> None:
        self.style = style
        self.seed = seed
        self._faces: dict[str, Face] = dict(faces or {})
        self._procedural = faces is None
        self.back = draw_back(style, seed)
        if size_cm is None:  # from Skat (5.9 cm) and bridge (5.7 cm) to poker (6.35 cm) widths
            width_cm = float(np.random.default_rng(seed).uniform(5.7, 6.4))
            size_cm = (width_cm, width_cm * style.aspect)
        self.size_cm = size_cm

    @classmethod
    def procedural(cls, seed: int, face_width: int = 300) -> Deck:
        """A drawn deck whose style (fonts, colours, letters, proportions) is chosen by ``seed``."""
        style = FaceStyle.random(np.random.default_rng(np.random.SeedSequence([seed, 1])), width=face_width)
        return cls(style, seed)

    @classmethod
    def from_faces(cls, faces: Mapping[str, Face], seed: int, width_cm: float = 6.3) -> Deck:
        """A deck of given face images (see :func:`~vision.synth.faces.load_face_folder`)."""
        w, h = faces[CARD_CODES[0]].size
        drawn = FaceStyle.random(np.random.default_rng(np.random.SeedSequence([seed, 1])), width=w)
        # Only the back is drawn for such a deck: give it the faces' proportions.
        style = FaceStyle(width=w, aspect=h / w, corner_radius=drawn.corner_radius, stock=drawn.stock)
        return cls(style, seed, faces=faces, size_cm=(width_cm, width_cm * h / w))

    @property
    def codes(self) -> tuple[str, ...]:
        """Codes this deck can show face up (the 24, plus distractors where it has them)."""
        if self._procedural:
            from dokocam.vision.synth.faces import DISTRACTOR_CODES

            return CARD_CODES + DISTRACTOR_CODES
        return tuple(self._faces)

    def face(self, code: str) -> Face:
        """The face of ``code`` (``"back"`` gives the back)."""
        if code == "back":
            return self.back
        face = self._faces.get(code)
        if face is None:
            if not self._procedural:
                raise KeyError(f"this deck has no face for {code!r}")
            face = self._faces[code] = draw_face(code, self.style, self.seed)
        return face


@dataclass(frozen=True)
class PlacedCard:
    """A card lying on the table.

    Attributes:
        code: card code (``"QC"``); ignored for labels when face down.
        center: ``(x, y)`` in table centimetres.
        angle_deg: rotation, counter-clockwise as seen from above; 0 reads upright for the bottom
            player, 90 for the right player... (a card pushed in from the left player is ~-90).
        face_up: face-down cards show the deck's back and are never labelled.
    """

    code: str
    center: tuple[float, float]
    angle_deg: float = 0.0
    face_up: bool = True


@dataclass(frozen=True)
class Arm:
    """A forearm and hand reaching over the table (an occluder, never labelled).

    Attributes:
        start: where the arm enters, table cm (usually beyond the table's edge).
        end: the hand's centre, table cm.
        width_cm: forearm width; the hand is a bit wider.
        skin: BGR skin colour.
        sleeve: BGR sleeve colour, or ``None`` for a bare arm.
    """

    start: tuple[float, float]
    end: tuple[float, float]
    width_cm: float = 7.0
    skin: tuple[int, int, int] = (140, 170, 215)
    sleeve: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class Prop:
    """Something lying on the table under the cards: a phone, a coin, a pen, the table's edge.
    Never labelled; it only makes the background less tidy.

    Attributes:
        outline: polygon in table cm.
        colour: BGR fill.
        height_cm: how far above the table its top is (sets the shadow's offset).
    """

    outline: tuple[tuple[float, float], ...]
    colour: tuple[int, int, int]
    height_cm: float = 0.5


@dataclass(frozen=True)
class Camera:
    """A pinhole camera above the table, with radial lens distortion.

    Attributes:
        width, height: image size in pixels.
        view_width_cm: table width seen across the image centre.
        tilt_deg: angle between the optical axis and the table's normal (0 = straight down).
        tilt_toward_deg: direction the camera leans, degrees in the table plane.
        yaw_deg: rotation of the image about the optical axis.
        target: table point at the image centre (cm).
        fov_deg: horizontal field of view; wider means stronger perspective.
        k1: radial distortion (positive = barrel), relative to the half diagonal.
        stretch: horizontal / vertical scale of the delivered image (phone exports squashed to squares).
    """

    width: int = 640
    height: int = 640
    view_width_cm: float = 80.0
    tilt_deg: float = 0.0
    tilt_toward_deg: float = 0.0
    yaw_deg: float = 0.0
    target: tuple[float, float] = (0.0, 0.0)
    fov_deg: float = 60.0
    k1: float = 0.0
    stretch: float = 1.0

    @cached_property
    def homography(self) -> np.ndarray:
        """3x3 map from table cm to ideal (undistorted) image pixels."""
        w, h = self.width, self.height
        f = (w / 2) / math.tan(math.radians(self.fov_deg) / 2)
        distance = f * self.view_width_cm / w
        yaw = math.radians(self.yaw_deg)
        rz = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
        lean = math.radians(self.tilt_toward_deg)
        axis = np.array([math.cos(lean), math.sin(lean), 0.0])
        rotation = _axis_angle(axis, math.radians(self.tilt_deg)) @ rz
        # Camera looks along +z (into the table) from z = -distance; rows of R are camera axes.
        forward = rotation.T @ np.array([0.0, 0.0, 1.0])
        center = np.array([self.target[0], self.target[1], 0.0]) - distance * forward
        t = -rotation @ center
        k = np.array([[f * self.stretch, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
        hom = k @ np.column_stack([rotation[:, 0], rotation[:, 1], t])
        return hom / hom[2, 2]

    def distort(self, points: np.ndarray) -> np.ndarray:
        """Maps ideal image points ``(n, 2)`` to delivered (distorted) pixels."""
        points = np.asarray(points, np.float64).reshape(-1, 2)
        if self.k1 == 0:
            return points
        c = np.array([self.width / 2, self.height / 2])
        norm = math.hypot(self.width / 2, self.height / 2)
        d = (points - c) / norm
        ru = np.linalg.norm(d, axis=1)
        # Solve ru = rd * (1 + k1 rd^2) for rd by Newton's method.
        rd = ru.copy()
        for _ in range(8):
            rd = rd - (rd * (1 + self.k1 * rd**2) - ru) / (1 + 3 * self.k1 * rd**2)
        scale = np.where(ru > 1e-9, rd / np.maximum(ru, 1e-9), 1.0)
        return c + d * scale[:, None] * norm

    def project(self, points_cm: np.ndarray) -> np.ndarray:
        """Maps table points ``(n, 2)`` in cm to delivered image pixels."""
        return self.distort(_apply_h(self.homography, points_cm))

    @cached_property
    def undistort_maps(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Fixed-point ``cv2.remap`` maps from delivered pixels to the ideal canvas (which has
        :meth:`margin` pixels of border), or ``None`` without distortion."""
        if self.k1 == 0:
            return None
        # Pixel centres are at i + 0.5 in our continuous coordinates and at i for OpenCV.
        yy, xx = np.mgrid[0 : self.height, 0 : self.width].astype(np.float32) + 0.5
        cx, cy = self.width / 2, self.height / 2
        norm = math.hypot(cx, cy)
        r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / norm**2
        scale = 1 + self.k1 * r2
        shift = self.margin() - 0.5
        mx = (cx + (xx - cx) * scale + shift).astype(np.float32)
        my = (cy + (yy - cy) * scale + shift).astype(np.float32)
        map1, map2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        return map1, map2

    def margin(self) -> int:
        """Extra ideal-image border needed so barrel distortion never samples outside it."""
        if self.k1 <= 0:
            return 2
        return int(math.ceil(self.k1 * math.hypot(self.width / 2, self.height / 2) * 1.05)) + 2


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    x, y, z = axis / (np.linalg.norm(axis) or 1.0)
    c, s, cc = math.cos(angle), math.sin(angle), 1 - math.cos(angle)
    return np.array(
        [
            [c + x * x * cc, x * y * cc - z * s, x * z * cc + y * s],
            [y * x * cc + z * s, c + y * y * cc, y * z * cc - x * s],
            [z * x * cc - y * s, z * y * cc + x * s, c + z * z * cc],
        ]
    )


def _apply_h(hom: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    ph = np.column_stack([pts, np.ones(len(pts))]) @ hom.T
    return ph[:, :2] / ph[:, 2:3]


@dataclass(frozen=True)
class Look:
    """Light and camera artefacts of one shot; ``Look.random(rng)`` draws a plausible one.

    Attributes:
        light_gradient: strength of a smooth brightness gradient (0 = even light).
        light_angle_deg: direction the light falls from (also sets shadow direction).
        shadow: darkness of shadows cast by cards and arms (0..1).
        glare: strength of a soft specular spot (0 = none).
        color_gain: per-channel BGR gains (colour cast / white balance).
        brightness: overall exposure multiplier.
        vignette: corner darkening (0..1).
        motion_blur_px: length of a linear motion blur (0 = none).
        focus_blur_px: Gaussian blur sigma (0 = sharp).
        noise: Gaussian sensor-noise sigma in grey levels.
        sharpen: unsharp-mask amount, as phone cameras apply (0 = none).
        grayscale: deliver a black-and-white photo (suits then differ only by shape).
        photographer_shadow: darkness of a large soft shadow falling across the frame (the
            phone's or the photographer's), 0 = none.
        jpeg_quality: JPEG re-compression quality, or 0 for none.
    """

    light_gradient: float = 0.0
    light_angle_deg: float = 45.0
    shadow: float = 0.0
    glare: float = 0.0
    color_gain: tuple[float, float, float] = (1.0, 1.0, 1.0)
    brightness: float = 1.0
    vignette: float = 0.0
    motion_blur_px: float = 0.0
    focus_blur_px: float = 0.0
    noise: float = 0.0
    sharpen: float = 0.0
    grayscale: bool = False
    photographer_shadow: float = 0.0
    jpeg_quality: int = 0

    @classmethod
    def random(cls, rng: np.random.Generator) -> Look:
        warm = rng.normal(0, 0.06)
        return cls(
            light_gradient=float(rng.uniform(0, 0.45)),
            light_angle_deg=float(rng.uniform(0, 360)),
            shadow=float(rng.uniform(0.1, 0.5)),
            glare=float(rng.uniform(0.2, 0.8)) if rng.random() < 0.25 else 0.0,
            color_gain=(
                float(1 - warm + rng.normal(0, 0.03)),
                float(1 + rng.normal(0, 0.03)),
                float(1 + warm + rng.normal(0, 0.03)),
            ),
            brightness=float(rng.uniform(0.7, 1.15)),
            vignette=float(rng.uniform(0, 0.4)),
            motion_blur_px=float(rng.uniform(2, 9)) if rng.random() < 0.15 else 0.0,
            focus_blur_px=float(rng.uniform(0.5, 1.8)) if rng.random() < 0.3 else 0.0,
            noise=float(rng.uniform(0, 8)),
            sharpen=float(rng.uniform(0.3, 1.2)) if rng.random() < 0.3 else 0.0,
            grayscale=bool(rng.random() < 0.12),
            photographer_shadow=float(rng.uniform(0.2, 0.5)) if rng.random() < 0.2 else 0.0,
            jpeg_quality=int(rng.integers(35, 96)) if rng.random() < 0.8 else 0,
        )

    @property
    def blurs(self) -> bool:
        """Whether the renderer blurs the shot (motion or focus), by the thresholds it applies them at.

        >>> Look().blurs, Look(motion_blur_px=2.0).blurs, Look(focus_blur_px=0.2).blurs
        (False, True, False)
        """
        return self.motion_blur_px >= MOTION_BLUR_MIN or self.focus_blur_px > FOCUS_BLUR_MIN

    def to_dict(self) -> dict[str, Any]:
        """What a dataset's ``meta/`` records of the shot: the blur, noise and JPEG it got."""
        return {
            "motion_blur_px": round(self.motion_blur_px, 2),
            "focus_blur_px": round(self.focus_blur_px, 2),
            "noise": round(self.noise, 2),
            "jpeg_quality": self.jpeg_quality,
            "blurred": self.blurs,
        }


@dataclass(frozen=True)
class Table:
    """A surface and the light above it; ``Table.random(seed)`` picks both."""

    surface: Surface
    look: Look = field(default_factory=Look)

    @classmethod
    def random(cls, seed: int) -> Table:
        rng = np.random.default_rng(np.random.SeedSequence([seed, 2]))
        return cls(Surface.random(rng), Look.random(rng))


@dataclass
class CardAnnotation:
    """Where one placed card ended up in the delivered image.

    Attributes:
        code: card code (``"QC"``); distractors keep their code (``"7H"``) with ``class_id`` None.
        class_id: Doppelkopf class id, or ``None`` (face down or not a Doppelkopf card).
        face_up: whether the face is shown.
        corners: ``(4, 2)`` image points of the face's top-left, top-right, bottom-right, bottom-left.
        indices: corner-index quadrilaterals, each ``(4, 2)`` image points.
        index_visibility: per index, the fraction of its area unoccluded and inside the image.
        index_boxes: per index, ``[x1, y1, x2, y2]`` around its visible pixels, or ``None``.
        visible_fraction: fraction of the card's area unoccluded and inside the image.
        box: ``[x1, y1, x2, y2]`` around the card's visible pixels, or ``None``.
    """

    code: str
    class_id: int | None
    face_up: bool
    corners: np.ndarray
    indices: list[np.ndarray]
    index_visibility: list[float]
    index_boxes: list[list[float] | None]
    visible_fraction: float
    box: list[float] | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "class_id": self.class_id,
            "face_up": self.face_up,
            "corners": np.round(self.corners, 2).tolist(),
            "indices": [np.round(q, 2).tolist() for q in self.indices],
            "index_visibility": [round(v, 3) for v in self.index_visibility],
            "index_boxes": [None if b is None else [round(v, 2) for v in b] for b in self.index_boxes],
            "visible_fraction": round(self.visible_fraction, 3),
            "box": None if self.box is None else [round(v, 2) for v in self.box],
        }


TARGETS = ("corners", "cards", "both")


def _check_target(target: str) -> None:
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")


def _shown(
    card: CardAnnotation, target: str, index_threshold: float, card_threshold: float, min_size: float
) -> list[list[float]]:
    """The boxes :meth:`SceneAnnotation.boxes` gives one card, whatever its class."""
    visible = [
        b
        for b, v in zip(card.index_boxes, card.index_visibility)
        if b is not None and v >= index_threshold and _big_enough(b, min_size)
    ]
    out = list(visible) if target in ("corners", "both") else []
    if (
        target in ("cards", "both")
        and card.box is not None
        and _big_enough(card.box, min_size)
        and (visible or card.visible_fraction >= card_threshold)
    ):
        out.append(card.box)
    return out


def _big_enough(box: list[float], min_size: float) -> bool:
    return box[2] - box[0] >= min_size and box[3] - box[1] >= min_size


@dataclass
class SceneAnnotation:
    """Everything known about one rendered image (``kind`` says what the generator meant it as:
    ``"table"`` or ``"closeup"``; empty when rendered directly; ``look`` is :meth:`Look.to_dict`
    of the shot, empty when unknown; ``design`` names the deck's design, :mod:`~vision.synth.designs`,
    empty when unknown)."""

    width: int
    height: int
    cards: list[CardAnnotation]
    kind: str = ""
    look: dict[str, Any] = field(default_factory=dict)
    design: str = ""

    def boxes(
        self,
        target: str = "corners",
        *,
        index_threshold: float = 0.6,
        card_threshold: float = 0.5,
        min_size: float = 3.0,
    ) -> list[tuple[int, list[float]]]:
        """Labelled boxes ``(class_id, [x1, y1, x2, y2])`` in pixels.

        Args:
            target: ``"corners"`` (one box per visible corner index), ``"cards"`` (one box per
                visible card) or ``"both"``.
            index_threshold: an index counts as visible when at least this fraction of it is
                unoccluded and inside the image; raising it drops more half-hidden indices.
            card_threshold: a card with no visible index still gets a card box when at least
                this fraction of it shows.
            min_size: boxes narrower or lower than this many pixels are dropped (unreadable).

        Raises:
            ValueError: unknown ``target``.
        """
        _check_target(target)
        out: list[tuple[int, list[float]]] = []
        for card in self.cards:
            if card.class_id is not None:
                out.extend(
                    (card.class_id, box) for box in _shown(card, target, index_threshold, card_threshold, min_size)
                )
        return out

    def ignore_boxes(
        self,
        target: str = "corners",
        *,
        index_threshold: float = 0.6,
        card_threshold: float = 0.5,
        min_size: float = 3.0,
    ) -> list[tuple[str, list[float]]]:
        """``(code, box)`` of the face-up cards outside a Doppelkopf deck (``7H``), by the rule of
        :meth:`boxes`: what would be labelled if they were in the deck.

        They go to ``ignore/``, as in the real photos' yardstick: a Doppelkopf detector may say
        anything about a 7, so ``dokocam eval`` scores a box on one as neither hit nor false alarm.
        """
        _check_target(target)
        return [
            (card.code, box)
            for card in self.cards
            if card.class_id is None and card.face_up
            for box in _shown(card, target, index_threshold, card_threshold, min_size)
        ]

    def yolo_lines(self, target: str = "corners", **kwargs: float) -> list[str]:
        """Ultralytics label lines ``class cx cy w h`` (normalised) for :meth:`boxes`."""
        return [f"{class_id} {self._cxcywh(box)}" for class_id, box in self.boxes(target, **kwargs)]

    def ignore_lines(self, target: str = "corners", **kwargs: float) -> list[str]:
        """``ignore/`` lines ``code cx cy w h`` (normalised) for :meth:`ignore_boxes`."""
        return [f"{code} {self._cxcywh(box)}" for code, box in self.ignore_boxes(target, **kwargs)]

    def _cxcywh(self, box: list[float]) -> str:
        x1, y1, x2, y2 = box
        cx, cy = (x1 + x2) / 2 / self.width, (y1 + y2) / 2 / self.height
        return f"{cx:.6f} {cy:.6f} {(x2 - x1) / self.width:.6f} {(y2 - y1) / self.height:.6f}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "kind": self.kind,
            "look": self.look,
            "design": self.design,
            "cards": [c.to_dict() for c in self.cards],
        }


# ---------------------------------------------------------------------------------------------
# Rendering


def card_corners_cm(card: PlacedCard, size_cm: tuple[float, float]) -> np.ndarray:
    """The face's top-left, top-right, bottom-right, bottom-left corners in table cm."""
    w, h = size_cm
    a = math.radians(card.angle_deg)
    # Counter-clockwise seen from above with y pointing down the image: negate the usual sign.
    rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return local @ rot.T + np.asarray(card.center)


def _face_to_table(card: PlacedCard, face: Face, size_cm: tuple[float, float]) -> np.ndarray:
    fw, fh = face.size
    src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    dst = card_corners_cm(card, size_cm).astype(np.float32)
    return cv2.getPerspectiveTransform(src, dst)


def _roi(points: np.ndarray, width: int, height: int, pad: int = 2) -> tuple[int, int, int, int] | None:
    x0, y0 = np.floor(points.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(points.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if x0 >= x1 or y0 >= y1:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def _fixed(points: np.ndarray) -> np.ndarray:
    """Continuous points as OpenCV fixed-point vertices (``shift=4``) for pixel-centred drawing."""
    return np.round((np.asarray(points) - 0.5) * 16).astype(np.int32)


def _shift(dx: float, dy: float) -> np.ndarray:
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64)


def _polygon_area(points: np.ndarray) -> float:
    x, y = points[:, 0], points[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


class _Canvas:
    """The ideal (undistorted) image with a margin, and who owns each pixel."""

    def __init__(self, camera: Camera, background: np.ndarray) -> None:
        self.m = camera.margin()
        self.image = background.copy()  # uint8: blending happens per object, in its ROI
        self.owner = np.full(background.shape[:2], OWNER_NONE, np.int16)
        self.h, self.w = background.shape[:2]
        self.to_canvas = _shift(self.m, self.m) @ camera.homography

    def shadow(self, polygon: np.ndarray, offset: tuple[float, float], blur: float, strength: float) -> None:
        if strength <= 0:
            return
        pts = polygon + np.asarray(offset)
        pad = int(3 * blur) + 2
        roi = _roi(pts, self.w, self.h, pad)
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillPoly(mask, [_fixed(pts - [x0, y0])], 1.0, cv2.LINE_AA, shift=4)
        if blur > 0.3:
            mask = cv2.GaussianBlur(mask, (0, 0), blur)
        self.darken(x0, y0, 1 - strength * mask)

    def darken(self, x0: int, y0: int, factor: np.ndarray) -> None:
        """Multiplies the pixels under ``factor`` (float, placed at ``(x0, y0)``)."""
        h, w = factor.shape
        region = self.image[y0 : y0 + h, x0 : x0 + w]
        region[:] = cv2.multiply(region, cv2.merge([factor, factor, factor]), dtype=cv2.CV_8U)

    def blend(self, x0: int, y0: int, pixels: np.ndarray, alpha: np.ndarray) -> None:
        """Blends uint8 ``pixels`` over the canvas with float ``alpha`` in ``[0, 1]``."""
        h, w = alpha.shape
        region = self.image[y0 : y0 + h, x0 : x0 + w]
        region[:] = cv2.blendLinear(pixels, region, alpha, 1 - alpha)

    def paste(self, face: Face, hom: np.ndarray, owner: int, tilt: tuple[float, float] = (0.0, 0.0)) -> None:
        """Warps ``face`` by ``hom`` (face px -> canvas px) onto the canvas.

        ``tilt`` brightens one side of the card and darkens the other (relative change across
        its width and height): a card never lies perfectly flat in the light.
        """
        w, h = face.size
        corners = _apply_h(hom, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
        roi = _roi(corners, self.w, self.h)
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        # Pick the pyramid level whose pixels are about as big as the canvas's.
        scale = math.sqrt(max(_polygon_area(corners), 1.0) / (w * h))
        k = max(0, int(math.floor(math.log2(1.0 / scale)))) if scale < 0.5 else 0
        source = face.level(k)
        sh, sw = source.shape[0] - 2, source.shape[1] - 2  # without the one-pixel frame
        to_level0 = np.diag([w / sw, h / sh, 1.0]) @ _shift(-1, -1)
        # Coordinates are continuous (pixel i spans [i, i+1]); OpenCV samples at integer centres.
        local = _shift(-x0 - 0.5, -y0 - 0.5) @ hom @ to_level0 @ _shift(0.5, 0.5)
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpPerspective(source, local, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        alpha = warped[:, :, 3]
        pixels = np.ascontiguousarray(warped[:, :, :3])
        if tilt != (0.0, 0.0):
            gx = np.linspace(-0.5, 0.5, size[0], dtype=np.float32) * tilt[0]
            gy = np.linspace(-0.5, 0.5, size[1], dtype=np.float32) * tilt[1]
            gain = 1.0 + gy[:, None] + gx[None, :]
            pixels = cv2.multiply(pixels, cv2.merge([gain, gain, gain]), dtype=cv2.CV_8U)
        self.blend(x0, y0, pixels, alpha.astype(np.float32) * (1 / 255.0))
        self.owner[y0:y1, x0:x1][alpha >= 128] = owner


def _arm_polygons(arm: Arm) -> list[tuple[np.ndarray, tuple[int, int, int]]]:
    """Polygons (table cm) and colours of an arm: forearm, sleeve, palm and fingers."""
    start, end = np.asarray(arm.start, float), np.asarray(arm.end, float)
    direction = end - start
    length = float(np.linalg.norm(direction)) or 1.0
    d = direction / length
    n = np.array([-d[1], d[0]])
    half = arm.width_cm / 2
    out: list[tuple[np.ndarray, tuple[int, int, int]]] = []
    wrist = end - d * arm.width_cm * 0.4
    forearm = np.array([start + n * half * 1.15, wrist + n * half, wrist - n * half, start - n * half * 1.15])
    out.append((forearm, arm.skin))
    if arm.sleeve is not None:
        cuff = start + (wrist - start) * 0.55
        out.append(
            (
                np.array(
                    [start + n * half * 1.3, cuff + n * half * 1.2, cuff - n * half * 1.2, start - n * half * 1.3]
                ),
                arm.sleeve,
            )
        )
    t = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    palm = end + np.outer(np.cos(t) * arm.width_cm * 0.75, d) + np.outer(np.sin(t) * half * 1.25, n)
    out.append((palm, arm.skin))
    for k, offset in enumerate((-0.75, -0.25, 0.25, 0.7)):
        base = end + d * arm.width_cm * 0.45 + n * offset * half * 1.1
        length_f = arm.width_cm * (0.8 + 0.25 * (k in (1, 2)))
        tip = base + d * length_f
        out.append((np.array([base + n * 0.8, tip + n * 0.7, tip + d * 0.5, tip - n * 0.7, base - n * 0.8]), arm.skin))
    thumb_base = end + n * half * 1.0
    out.append(
        (
            np.array(
                [
                    thumb_base - d * 1.0,
                    thumb_base + n * arm.width_cm * 0.6 + d * 1.5,
                    thumb_base + n * arm.width_cm * 0.5 + d * 2.3,
                    thumb_base + d * 0.8,
                ]
            ),
            arm.skin,
        )
    )
    return out


_MAX_TEXTURE = 560
_TEXTURE_CACHE: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray]] = {}
_BACKGROUND_CACHE: dict[tuple[Any, ...], np.ndarray] = {}


def _texture(surface: Surface, lo: np.ndarray, hi: np.ndarray, cm_per_px: float) -> tuple[np.ndarray, np.ndarray]:
    """The surface over at least ``[lo, hi]`` (cm) and its pixel-to-table map.

    Extents snap to a 10 cm grid and resolutions to quarter octaves, so a shaking video camera
    reuses one texture for many frames.
    """
    lo = np.floor(lo / 10) * 10
    hi = np.ceil(hi / 10) * 10
    size = hi - lo
    cm_per_px = max(cm_per_px, float(size.max()) / _MAX_TEXTURE)
    cm_per_px = float(2 ** (math.ceil(math.log2(cm_per_px) * 4) / 4))
    key = (surface, *lo.tolist(), *hi.tolist(), cm_per_px)
    cached = _TEXTURE_CACHE.get(key)
    if cached is None:
        tw, th = int(math.ceil(size[0] / cm_per_px)), int(math.ceil(size[1] / cm_per_px))
        texture = surface.render(tw, th, cm_per_px)
        tex_to_table = np.array([[cm_per_px, 0, lo[0]], [0, cm_per_px, lo[1]], [0, 0, 1]])
        if len(_TEXTURE_CACHE) >= 6:
            _TEXTURE_CACHE.pop(next(iter(_TEXTURE_CACHE)))
        cached = _TEXTURE_CACHE[key] = (texture, tex_to_table)
    return cached


def render_background(table: Table, camera: Camera) -> np.ndarray:
    """The bare table as the camera sees it, before distortion (ideal image plus margin)."""
    key = (table.surface, camera)
    cached = _BACKGROUND_CACHE.get(key)
    if cached is not None:
        return cached
    m = camera.margin()
    w, h = camera.width + 2 * m, camera.height + 2 * m
    to_canvas = _shift(m, m) @ camera.homography
    inv = np.linalg.inv(to_canvas)
    corners_cm = _apply_h(inv, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
    # Texture resolution follows the image centre's scale, capped: sensor noise, blur and JPEG
    # hide finer detail, and the cap keeps steep tilts and big frames cheap.
    texture, tex_to_table = _texture(
        table.surface, corners_cm.min(axis=0), corners_cm.max(axis=0), camera.view_width_cm / camera.width
    )
    background = cv2.warpPerspective(
        texture,
        _shift(-0.5, -0.5) @ to_canvas @ tex_to_table @ _shift(0.5, 0.5),
        (w, h),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT,
    )
    if len(_BACKGROUND_CACHE) >= 4:
        _BACKGROUND_CACHE.pop(next(iter(_BACKGROUND_CACHE)))
    _BACKGROUND_CACHE[key] = background
    return background


def render_scene(
    deck: Deck,
    table: Table,
    cards: Sequence[PlacedCard],
    camera: Camera,
    arms: Sequence[Arm] = (),
    *,
    props: Sequence[Prop] = (),
    seed: int = 0,
    look: Look | None = None,
    arms_over_cards: bool = True,
) -> tuple[np.ndarray, SceneAnnotation]:
    """Renders cards (drawn in list order, later ones on top) and arms on ``table``.

    The same arguments always give the same pixels. A 1280x720 frame takes about 50 ms of CPU
    with a video look (``k1=0``, no JPEG) once the table's background is cached for the camera.

    Args:
        deck: the faces and back to draw.
        table: surface and default look.
        cards: the cards, bottom first.
        camera: where the camera is and its image size.
        arms: forearms and hands, drawn above the cards (or below, with ``arms_over_cards=False``).
        props: objects on the table, drawn before (under) the cards.
        seed: varies the per-frame randomness (noise, glare position, each card's light tilt).
        look: light and artefacts; ``table.look`` when ``None``.

    Returns:
        The BGR image ``(camera.height, camera.width, 3)`` and its annotation; annotation ``cards``
        are in the order of ``cards``.
    """
    look = table.look if look is None else look
    rng = np.random.default_rng(np.random.SeedSequence([seed, 7]))
    canvas = _Canvas(camera, render_background(table, camera))
    light = math.radians(look.light_angle_deg)
    px_per_cm = camera.width / camera.view_width_cm
    shadow_dir = np.array([math.cos(light), math.sin(light)])
    card_shadow = shadow_dir * px_per_cm * 0.12
    arm_shadow = shadow_dir * px_per_cm * 2.5

    def draw_arms() -> None:
        for arm in arms:
            _draw_arm(canvas, arm, tuple(arm_shadow), px_per_cm * 1.5, look.shadow * 0.8)

    for prop in props:
        outline = _apply_h(canvas.to_canvas, np.asarray(prop.outline, np.float64))
        canvas.shadow(outline, tuple(shadow_dir * px_per_cm * prop.height_cm), px_per_cm * 0.3, look.shadow)
        _fill_flat(canvas, outline, prop.colour)
    if not arms_over_cards:
        draw_arms()
    placed: list[tuple[PlacedCard, Face, np.ndarray]] = []
    for i, card in enumerate(cards):
        face = deck.face(card.code if card.face_up else "back")
        hom = canvas.to_canvas @ _face_to_table(card, face, deck.size_cm)
        fw, fh = face.size
        outline = _apply_h(hom, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64))
        canvas.shadow(outline, tuple(card_shadow), px_per_cm * 0.15, look.shadow)
        tilt = (float(rng.normal(0, 0.06)), float(rng.normal(0, 0.06)))
        canvas.paste(face, hom, i if card.face_up else OWNER_HIDDEN, tilt)
        placed.append((card, face, hom))
    if arms_over_cards:
        draw_arms()

    image, owner = _finish(canvas, camera, look, rng)
    annotation = _annotate(placed, owner, camera, canvas)
    annotation.look = look.to_dict()
    return image, annotation


def _fill_flat(canvas: _Canvas, pts: np.ndarray, colour: tuple[int, int, int]) -> None:
    """Fills a polygon (canvas px) with one anti-aliased colour; the pixels stay background."""
    roi = _roi(pts, canvas.w, canvas.h, 2)
    if roi is None:
        return
    x0, y0, x1, y1 = roi
    cover = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(cover, [_fixed(pts - [x0, y0])], 255, cv2.LINE_AA, shift=4)
    flat = np.empty((y1 - y0, x1 - x0, 3), np.uint8)
    flat[:] = colour
    canvas.blend(x0, y0, flat, cover.astype(np.float32) * (1 / 255.0))


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of a float mask; wide blurs run at reduced resolution (they are smooth anyway)."""
    if sigma < 0.3:
        return mask
    if sigma < 4:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    f = int(min(8, sigma // 2))
    h, w = mask.shape
    small = cv2.resize(mask, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / f)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _draw_arm(
    canvas: _Canvas, arm: Arm, shadow_offset: tuple[float, float], shadow_blur: float, shadow_strength: float
) -> None:
    """Draws one arm (all its parts as one shaded shape) and its shadow."""
    parts = [(_apply_h(canvas.to_canvas, p), c) for p, c in _arm_polygons(arm)]
    everything = np.concatenate([p for p, _ in parts])
    pad = int(3 * shadow_blur + abs(shadow_offset[0]) + abs(shadow_offset[1])) + 2
    roi = _roi(everything, canvas.w, canvas.h, pad)
    if roi is None:
        return
    x0, y0, x1, y1 = roi
    shape = (y1 - y0, x1 - x0)
    colours = np.zeros((*shape, 3), np.uint8)
    cover8 = np.zeros(shape, np.uint8)
    for pts, colour in parts:
        fixed = _fixed(pts - [x0, y0])
        cv2.fillPoly(colours, [fixed], colour, cv2.LINE_8, shift=4)
        cv2.fillPoly(cover8, [fixed], 255, cv2.LINE_AA, shift=4)
    # Colours bleed outwards a little so anti-aliased edges never mix with black.
    colours = cv2.dilate(colours, np.ones((3, 3), np.uint8))
    coverage = cover8.astype(np.float32) / 255.0
    if shadow_strength > 0:
        moved = cv2.warpAffine(
            coverage, np.array([[1, 0, shadow_offset[0]], [0, 1, shadow_offset[1]]], np.float32), (shape[1], shape[0])
        )
        canvas.darken(x0, y0, 1 - shadow_strength * _soft(moved, shadow_blur))
    # Rounded limbs: darker towards the outline.
    depth = _soft(coverage, max(1.0, arm.width_cm * shadow_blur / 6))
    relief = 0.6 + 0.4 * np.clip(depth * 1.6, 0, 1)
    shade = cv2.multiply(colours, cv2.merge([relief, relief, relief]), dtype=cv2.CV_8U)
    canvas.blend(x0, y0, shade, coverage)
    canvas.owner[y0:y1, x0:x1][coverage >= 0.5] = OWNER_HIDDEN


def _finish(canvas: _Canvas, camera: Camera, look: Look, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Lens, light and sensor: from the ideal canvas to the delivered image and owner map."""
    m = canvas.m
    h, w = camera.height, camera.width
    maps = camera.undistort_maps
    if maps is None:
        out = np.ascontiguousarray(canvas.image[m : m + h, m : m + w])
        owner = canvas.owner[m : m + h, m : m + w]
    else:
        map1, map2 = maps
        out = cv2.remap(canvas.image, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        owner = cv2.remap(
            canvas.owner, map1, None, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=OWNER_NONE
        )
    if look.motion_blur_px >= MOTION_BLUR_MIN:
        k = int(round(look.motion_blur_px)) | 1
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        kernel /= kernel.sum() or 1.0
        out = cv2.filter2D(out, -1, kernel)
    if look.focus_blur_px > FOCUS_BLUR_MIN:
        out = cv2.GaussianBlur(out, (0, 0), look.focus_blur_px)
    if look.sharpen > 0:
        out = cv2.addWeighted(out, 1 + look.sharpen, cv2.GaussianBlur(out, (0, 0), 1.2), -look.sharpen, 0)
    # Light: a gradient, vignette and glare, smooth enough to compute on a coarse grid.
    sh, sw = max(2, h // 16), max(2, w // 16)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    yy = (yy + 0.5) * (h / sh)
    xx = (xx + 0.5) * (w / sw)
    a = math.radians(look.light_angle_deg)
    ramp = ((xx - w / 2) * math.cos(a) + (yy - h / 2) * math.sin(a)) / max(w, h)
    gain = look.brightness * (1 - look.light_gradient * ramp)
    if look.vignette > 0:
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        gain = gain * (1 - look.vignette * r2)
    if look.photographer_shadow > 0:
        # A big ellipse entering from an edge, with a soft penumbra.
        edge = rng.uniform(0, 2 * math.pi)
        sx, sy = w / 2 + math.cos(edge) * w * 0.6, h / 2 + math.sin(edge) * h * 0.6
        rx, ry = rng.uniform(0.3, 0.6) * w, rng.uniform(0.3, 0.6) * h
        d = np.sqrt(((xx - sx) / rx) ** 2 + ((yy - sy) / ry) ** 2)
        gain = gain * (1 - look.photographer_shadow / (1 + np.exp((d - 1) * 8)))
    gains = cv2.resize(
        np.dstack([gain * g for g in look.color_gain]).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR
    )
    # uint8 arithmetic with saturation throughout: a float copy of a 1280x720 frame costs more
    # than everything drawn on it.
    out = cv2.multiply(out, gains, dtype=cv2.CV_8U)
    if look.glare > 0:
        gx, gy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        sigma = rng.uniform(0.05, 0.2) * max(w, h)
        spot = look.glare * 200 * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2 * rng.uniform(0.3, 1.0)) / (2 * sigma**2))
        glare = cv2.resize(spot.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        out = cv2.add(out, cv2.merge([glare, glare, glare]), dtype=cv2.CV_8U)
    if look.noise > 0:
        out = cv2.addWeighted(out, 1.0, _noise_patch(rng, h, w), look.noise / 16, 0.0, dtype=cv2.CV_8U)
    if look.grayscale:
        out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    if look.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(look.jpeg_quality)])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = decoded
    return out, owner


_NOISE_TILES: dict[int, np.ndarray] = {}


def _noise_patch(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Gaussian noise ``(h, w, 3)`` int8 with sigma 16: a random band of a fixed tile.

    Fresh noise per pixel costs more than the rest of a frame; a shifted band of a tile looks the
    same to a detector. Bands are whole rows, so the window stays contiguous (fast to add).
    """
    tile = _NOISE_TILES.get(w)
    if tile is None or tile.shape[0] < h + 64:
        noise = np.random.default_rng(12345).standard_normal((h + 256, w, 3), dtype=np.float32) * 16
        tile = _NOISE_TILES[w] = np.clip(noise, -127, 127).astype(np.int8)
    y = int(rng.integers(0, tile.shape[0] - h + 1))
    return tile[y : y + h]


def _annotate(
    placed: list[tuple[PlacedCard, Face, np.ndarray]], owner: np.ndarray, camera: Camera, canvas: _Canvas
) -> SceneAnnotation:
    h, w = owner.shape
    from_canvas = _shift(-canvas.m, -canvas.m)
    cards: list[CardAnnotation] = []
    for i, (card, face, hom) in enumerate(placed):
        to_ideal = from_canvas @ hom
        fw, fh = face.size

        def project(points: np.ndarray, to_ideal: np.ndarray = to_ideal) -> np.ndarray:
            return camera.distort(_apply_h(to_ideal, points))

        outline = _densify(np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64))
        corners = project(outline[:: len(outline) // 4])
        full_area = _polygon_area(project(outline))
        code = card.code if card.face_up else "back"
        class_id = CARD_CODES.index(card.code) if card.face_up and card.code in CARD_CODES else None
        box, fraction = None, 0.0
        indices, visibility, boxes = [], [], []
        if card.face_up:
            # Only the card's own region of the owner map can hold its pixels.
            roi = _roi(project(outline), w, h, 2) or (0, 0, 1, 1)
            x0, y0, x1, y1 = roi
            mine = owner[y0:y1, x0:x1] == i
            count = int(mine.sum())
            fraction = count / full_area if full_area > 0 else 0.0
            local = _mask_box(mine) if count else None
            box = None if local is None else [local[0] + x0, local[1] + y0, local[2] + x0, local[3] + y0]
            for quad in face.indices:
                q = project(_densify(quad.astype(np.float64), 4))
                indices.append(project(quad.astype(np.float64)))
                vis, qbox = _region_visibility(q, mine, roi, w, h)
                visibility.append(vis)
                boxes.append(qbox)
        cards.append(
            CardAnnotation(code, class_id, card.face_up, corners, indices, visibility, boxes, min(fraction, 1.0), box)
        )
    return SceneAnnotation(w, h, cards)


def _densify(polygon: np.ndarray, per_edge: int = 8) -> np.ndarray:
    """Adds points along each edge so a curved (distorted) outline stays accurate."""
    t = (np.arange(per_edge) / per_edge)[None, :, None]
    a = polygon[:, None, :]
    b = np.roll(polygon, -1, axis=0)[:, None, :]
    return (a + (b - a) * t).reshape(-1, 2)


def _mask_box(mask: np.ndarray) -> list[float] | None:
    ys = np.flatnonzero(mask.any(axis=1))
    xs = np.flatnonzero(mask.any(axis=0))
    if len(xs) == 0:
        return None
    return [float(xs[0]), float(ys[0]), float(xs[-1] + 1), float(ys[-1] + 1)]


def _coverage(polygon: np.ndarray, shape: tuple[int, int], sub: int = 8) -> np.ndarray:
    """Fraction of each pixel inside ``polygon``, by ``sub`` x ``sub`` supersampling.

    OpenCV's own anti-aliased fill spreads about half a pixel outwards, which matters for
    index boxes only 15 pixels wide; its plain fill includes one extra sample row and column
    (a bias of ``1 / sub`` pixel).
    """
    big = np.zeros((shape[0] * sub, shape[1] * sub), np.uint8)
    cv2.fillPoly(big, [_fixed(polygon * sub)], 255, cv2.LINE_8, shift=4)
    return cv2.resize(big, (shape[1], shape[0]), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _region_visibility(
    polygon: np.ndarray, mine: np.ndarray, mine_roi: tuple[int, int, int, int], w: int, h: int
) -> tuple[float, list[float] | None]:
    """Visible fraction of ``polygon`` and the box of its visible pixels.

    ``mine`` marks the card's own pixels inside ``mine_roi`` (x0, y0, x1, y1) of the image.
    """
    area = _polygon_area(polygon)
    if area <= 0:
        return 0.0, None
    roi = _roi(polygon, w, h, 1)
    if roi is None:
        return 0.0, None
    mx0, my0, mx1, my1 = mine_roi
    x0, y0, x1, y1 = max(roi[0], mx0), max(roi[1], my0), min(roi[2], mx1), min(roi[3], my1)
    if x0 >= x1 or y0 >= y1:
        return 0.0, None
    seen = (_coverage(polygon - [x0, y0], (y1 - y0, x1 - x0)) >= 0.5) & mine[y0 - my0 : y1 - my0, x0 - mx0 : x1 - mx0]
    count = int(seen.sum())
    if not count:
        return 0.0, None
    box = _mask_box(seen)
    assert box is not None
    return min(count / area, 1.0), [box[0] + x0, box[1] + y0, box[2] + x0, box[3] + y0]
