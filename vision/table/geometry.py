"""Table geometry: where the centre is, which way each seat sits, which seat a card belongs to.

Angles are degrees in the table plane with y pointing down (as in images), so increasing angles
run clockwise as seen from above: with seat 0 at the bottom (``90``), seat 1 sits on the left
(``180``), seat 2 at the top, seat 3 on the right. The table plane is the image itself, or, after
a four-point calibration, the square ``[-1, 1]^2`` a homography maps the table onto.

With five players the dealer sits out: there are five places, and engine seat ``s`` sits at place
``(vorhand + s) % places``, so the place before Vorhand (the dealer) is skipped.

>>> g = TableGeometry.default(1280, 720)
>>> g.seat_of((640, 650)).seat, g.seat_of((300, 360)).seat, g.seat_of((640, 100)).seat
(0, 1, 2)
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

Point = Sequence[float] | np.ndarray


class CalibrationError(ValueError):
    """A calibration that cannot be used (degenerate points, unreadable setup file)."""


def _wrap(angle: float) -> float:
    """An angle difference folded into ``(-180, 180]``."""
    return (angle + 180.0) % 360.0 - 180.0


@dataclass(frozen=True)
class SeatGuess:
    """Which seat a position points to.

    Attributes:
        seat: the engine seat whose direction is nearest.
        margin: degrees by which the nearest seat beats the second nearest (0: on the boundary,
            45: exactly on the seat's axis with four places).
        offset: the card's distance from the centre in table-plane units.
    """

    seat: int
    margin: float
    offset: float


@dataclass(frozen=True)
class TableGeometry:
    """Centre, seat directions and the trick area of one table as one camera sees it.

    Attributes:
        center: the table centre in table-plane coordinates.
        seat0_angle: direction from the centre towards place 0, degrees.
        radius: cards farther than this from the centre (table-plane units) are not in the trick
            (hands at the table edge, won tricks); raising it accepts cards lying farther out.
        places: 4, or 5 when the dealer sits out.
        vorhand: the place of engine seat 0.
        clockwise: ``False`` for a mirrored view (seats run anticlockwise in the image).
        homography: 3x3 image-to-plane matrix, or ``None`` when the plane is the image.
        method: ``"default"``, ``"auto"`` or ``"manual"``: where this geometry came from.
    """

    center: tuple[float, float]
    seat0_angle: float = 90.0
    radius: float = 250.0
    places: int = 4
    vorhand: int = 0
    clockwise: bool = True
    homography: tuple[tuple[float, ...], ...] | None = None
    method: str = "default"

    def __post_init__(self) -> None:
        if self.places not in (4, 5):
            raise CalibrationError(f"a table has 4 or 5 places, got {self.places}")
        if self.radius <= 0:
            raise CalibrationError(f"the trick area radius must be positive, got {self.radius}")

    @classmethod
    def default(cls, width: int, height: int, *, radius_fraction: float = 0.36, places: int = 4) -> TableGeometry:
        """The guess before any calibration: centre of the image, seat 0 at the bottom.

        Args:
            radius_fraction: the trick area's radius as a fraction of the image's shorter side.
        """
        return cls(center=(width / 2.0, height / 2.0), radius=radius_fraction * min(width, height), places=places)

    @classmethod
    def from_seat_direction(cls, center: Point, seat0_point: Point, *, radius: float, places: int = 4) -> TableGeometry:
        """Manual calibration: the table centre and any point towards seat 0 (image pixels)."""
        dx, dy = float(seat0_point[0]) - float(center[0]), float(seat0_point[1]) - float(center[1])
        if math.hypot(dx, dy) < 1e-6:
            raise CalibrationError("the seat-0 point must differ from the centre")
        return cls(
            center=(float(center[0]), float(center[1])),
            seat0_angle=math.degrees(math.atan2(dy, dx)) % 360.0,
            radius=radius,
            places=places,
            method="manual",
        )

    @classmethod
    def from_corners(cls, corners: Sequence[Point], *, radius: float = 0.45, places: int = 4) -> TableGeometry:
        """Manual calibration from four table corners in the image, clockwise, the first two
        bounding seat 0's edge (its right-hand corner first, as seat 0 sees it).

        The corners map onto the square ``[-1, 1]^2`` with seat 0's edge at ``y = 1``.

        Raises:
            CalibrationError: not four points, or three of them on one line.
        """
        import cv2

        src = np.asarray(corners, dtype=np.float32)
        if src.shape != (4, 2):
            raise CalibrationError(f"four corner points (x, y) are needed, got shape {src.shape}")
        d1, d2 = src[2] - src[0], src[3] - src[1]
        area = 0.5 * abs(float(d1[0] * d2[1] - d1[1] * d2[0]))
        if area < 1.0:
            raise CalibrationError("the four corners enclose no area; give the table's corners in order")
        dst = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], dtype=np.float32)
        matrix = cv2.getPerspectiveTransform(src, dst)
        return cls(
            center=(0.0, 0.0),
            seat0_angle=90.0,
            radius=radius,
            places=places,
            homography=tuple(tuple(float(v) for v in row) for row in matrix),
            method="manual",
        )

    # --- coordinates ---------------------------------------------------------------------

    def to_plane(self, points: Point | Sequence[Point]) -> np.ndarray:
        """Image pixels to table-plane coordinates, ``(n, 2)`` (or ``(2,)`` for one point)."""
        array = np.asarray(points, dtype=np.float64)
        single = array.ndim == 1
        array = array.reshape(-1, 2)
        if self.homography is not None:
            h = np.asarray(self.homography)
            homogeneous = np.c_[array, np.ones(len(array))] @ h.T
            array = homogeneous[:, :2] / homogeneous[:, 2:3]
        return array[0] if single else array

    def place_angle(self, place: int) -> float:
        step = 360.0 / self.places
        return (self.seat0_angle + (step if self.clockwise else -step) * place) % 360.0

    def place_of_seat(self, seat: int) -> int:
        return (self.vorhand + seat) % self.places

    def seat_angle(self, seat: int) -> float:
        """Direction from the centre towards engine seat ``seat``."""
        return self.place_angle(self.place_of_seat(seat))

    def polar(self, point: Point) -> tuple[float, float]:
        """``(angle, distance)`` of an image point around the centre, in the table plane."""
        x, y = self.to_plane(point)
        dx, dy = x - self.center[0], y - self.center[1]
        return math.degrees(math.atan2(dy, dx)) % 360.0, math.hypot(dx, dy)

    def in_trick_area(self, points: np.ndarray) -> np.ndarray:
        """Boolean mask of the image points ``(n, 2)`` lying in the trick area."""
        if len(points) == 0:
            return np.zeros(0, dtype=bool)
        plane = self.to_plane(np.asarray(points).reshape(-1, 2))
        d = np.hypot(plane[:, 0] - self.center[0], plane[:, 1] - self.center[1])
        return d <= self.radius

    def trick_box(self, width: int, height: int, *, margin: float = 1.15) -> tuple[int, int, int, int]:
        """The image rectangle ``(x1, y1, x2, y2)`` holding the trick area (its radius times
        ``margin``), clipped to a ``width x height`` image.

        >>> TableGeometry(center=(640, 360), radius=200).trick_box(1280, 720)
        (410, 130, 870, 590)
        """
        turn = np.linspace(0.0, 2.0 * math.pi, 32, endpoint=False)
        reach = self.radius * margin
        ring = np.c_[self.center[0] + reach * np.cos(turn), self.center[1] + reach * np.sin(turn)]
        if self.homography is not None:
            back = np.c_[ring, np.ones(len(ring))] @ np.linalg.inv(np.asarray(self.homography)).T
            ring = back[:, :2] / back[:, 2:3]
        x1, y1 = np.floor(ring.min(axis=0))
        x2, y2 = np.ceil(ring.max(axis=0))
        return (max(0, int(x1)), max(0, int(y1)), min(width, int(x2)), min(height, int(y2)))

    def seat_offsets(self, point: Point) -> list[float]:
        """Degrees between where ``point`` lies and each engine seat's direction (seat 0 first)."""
        angle = self.polar(point)[0]
        return [abs(_wrap(angle - self.seat_angle(s))) for s in range(4)]

    def seat_of(self, point: Point, *, spread: float = 0.0) -> SeatGuess:
        """The engine seat whose direction is nearest to where the card lies.

        Args:
            spread: how far (image pixels) the card may really lie from ``point``; the margin
                shrinks by the directions that uncertainty allows (to 0 when it reaches the centre).
        """
        offset = self.polar(point)[1]
        distances = sorted((d, s) for s, d in enumerate(self.seat_offsets(point)))
        (best, seat), (second, _) = distances[0], distances[1]
        margin = second - best
        if spread > 0:
            margin = max(0.0, margin - 2.0 * self._angle_spread(point, spread))
        return SeatGuess(seat=seat, margin=margin, offset=offset)

    def _angle_spread(self, point: Point, spread: float) -> float:
        """The largest change of direction (degrees) a point ``spread`` pixels away may show."""
        angle, offset = self.polar(point)
        x, y = float(point[0]), float(point[1])
        ring = [
            (x + spread * math.cos(a), y + spread * math.sin(a))
            for a in np.linspace(0, 2 * math.pi, 16, endpoint=False)
        ]
        if any(self.polar(p)[1] < 1e-9 for p in ring) or self.polar((x, y))[1] < 1e-9:
            return 180.0
        dist = max(math.hypot(*(self.to_plane(p) - self.to_plane((x, y)))) for p in ring)
        if dist >= offset:
            return 180.0  # the card may lie on the far side of the centre
        return max(abs(_wrap(self.polar(p)[0] - angle)) for p in ring)

    # --- persistence ------------------------------------------------------------------------

    def with_vorhand(self, vorhand: int) -> TableGeometry:
        """The same table with engine seat 0 at place ``vorhand`` (the next game's Vorhand)."""
        return replace(self, vorhand=vorhand % self.places)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "center": list(self.center),
            "seat0_angle": round(self.seat0_angle, 3),
            "radius": self.radius,
            "places": self.places,
            "vorhand": self.vorhand,
            "clockwise": self.clockwise,
            "method": self.method,
        }
        if self.homography is not None:
            data["homography"] = [list(row) for row in self.homography]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableGeometry:
        """Raises:
        CalibrationError: a missing or malformed field (named)."""
        try:
            homography = data.get("homography")
            return cls(
                center=(float(data["center"][0]), float(data["center"][1])),
                seat0_angle=float(data.get("seat0_angle", 90.0)),
                radius=float(data["radius"]),
                places=int(data.get("places", 4)),
                vorhand=int(data.get("vorhand", 0)),
                clockwise=bool(data.get("clockwise", True)),
                homography=None if homography is None else tuple(tuple(float(v) for v in r) for r in homography),
                method=str(data.get("method", "manual")),
            )
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise CalibrationError(f"table geometry: missing or malformed field ({exc!r})") from exc


@dataclass(frozen=True)
class TableSetup:
    """What is stored about a table: the players at it and its calibrated geometry (JSON)."""

    geometry: TableGeometry
    players: tuple[str, ...] = ("A", "B", "C", "D")

    def to_dict(self) -> dict[str, Any]:
        return {"format": "dokocam-table/1", "players": list(self.players), "geometry": self.geometry.to_dict()}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> TableSetup:
        """Raises:
        CalibrationError: the file is missing, not JSON, or lacks the geometry."""
        try:
            data = json.loads(Path(path).read_text())
        except OSError as exc:
            raise CalibrationError(f"{path}: cannot read the table setup ({exc.strerror})") from exc
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"{path}: not JSON ({exc})") from exc
        if not isinstance(data, dict) or "geometry" not in data:
            raise CalibrationError(f"{path}: a table setup needs a 'geometry' object")
        return cls(geometry=TableGeometry.from_dict(data["geometry"]), players=tuple(data.get("players", "ABCD")))


class AutoCalibrator:
    """Finds the centre and the seat directions from the first tricks, where they make it clear.

    Feed it the cards of each complete trick with the seats the turn order says played them
    (leader = Vorhand in trick 1, then the last winner, then clockwise). A trick of four cards
    counts only when it makes the table clear on its own: its cards surround their mean and each
    lies within ``tolerance`` degrees of its seat's direction (for one handedness). A trick the
    tracker got wrong (a missed lead shifts every seat of it) is left out instead of spoiling every
    later attempt. Tricks that agree on the handedness and on seat 0's direction are pooled: the
    centre is the median of their means, seat 0's direction the circular mean of each card's
    direction minus its seat's offset. The largest agreeing group decides.

    Play runs clockwise seen from above, and so in the image of a camera looking down; only a
    mirrored view runs the other way. One trick whose two seats were swapped by the tracker (two
    copies of a card, one seen late) looks just like a mirrored view, so the handedness the base
    geometry does not have must be shown by ``mirror_tricks`` agreeing tricks.

    Args:
        tolerance: the largest angular error accepted; raising it calibrates sooner from messier
            tricks, at the risk of a wrong calibration.
        min_offset: cards nearer the centre than this fraction of the mean offset carry no
            direction; raising it demands cards pushed further out.
        min_tricks: agreeing tricks needed before deciding.
        mirror_tricks: agreeing tricks needed before deciding for the other handedness than the
            base geometry's.
        alone: a trick decides on its own (``min_tricks`` 1) only when every card lies within this
            many degrees of its seat's direction; a messier one waits for a second agreeing trick.
            (Seed 46009: the first trick, two seats swapped by the turn order, fit with its worst
            card 25 degrees off, and every trick from the third on was seated one place on.)
    """

    def __init__(
        self,
        *,
        tolerance: float = 30.0,
        min_offset: float = 0.35,
        min_tricks: int = 1,
        mirror_tricks: int = 2,
        alone: float = 15.0,
    ) -> None:
        self.tolerance = tolerance
        self.min_offset = min_offset
        self.min_tricks = min_tricks
        self.mirror_tricks = mirror_tricks
        self.alone = alone
        self.reset()

    def reset(self) -> None:
        self._fits: list[
            tuple[list[tuple[np.ndarray, int]], float, bool, float]
        ] = []  # (cards, seat-0 angle, clockwise, worst error)

    def update(self, base: TableGeometry, trick: Sequence[tuple[Point, int]]) -> TableGeometry | None:
        """Adds one complete trick (``(image point, seat)`` per card); returns the calibrated
        geometry once clear, else ``None``.

        ``base`` supplies what calibration does not change (radius scale, places, Vorhand, homography).
        """
        if len(trick) != 4:
            return None
        cards = [(base.to_plane(p), int(s)) for p, s in trick]
        fit = self._fit(base, [cards])
        if fit is None:
            return None
        self._fits.append((cards, fit[1], fit[2], fit[4]))
        groups = [
            [
                cards
                for cards, angle, clockwise, _ in self._fits
                if clockwise == c and abs(_wrap(angle - a)) <= self.tolerance
            ]
            for _, a, c, _ in self._fits
        ]
        needed = [
            max(self.min_tricks, 1 if worst <= self.alone else 2, 1 if c == base.clockwise else self.mirror_tricks)
            for _, _, c, worst in self._fits
        ]
        groups = [g for g, n in zip(groups, needed, strict=True) if len(g) >= n]
        if not groups:
            return None
        group = max(groups, key=len)  # the first of the largest: earlier tricks are the surer ones
        pooled = self._fit(base, group)
        if pooled is None:
            return None
        center, mean, clockwise, reach, _ = pooled
        radius = base.radius
        if base.method == "default" and base.homography is None:
            # Keep the trick area generous around the found centre: cards lie well inside it.
            radius = max(base.radius, 2.2 * reach)
        return replace(
            base,
            center=(float(center[0]), float(center[1])),
            seat0_angle=mean,
            clockwise=clockwise,
            radius=radius,
            method="auto",
        )

    def _fit(
        self, base: TableGeometry, tricks: list[list[tuple[np.ndarray, int]]]
    ) -> tuple[np.ndarray, float, bool, float, float] | None:
        """``(centre, seat-0 angle, clockwise, farthest card, worst error)`` when every card of
        ``tricks`` lies within the tolerance of its seat's direction, else ``None``."""
        centers = np.array([np.mean([p for p, _ in t], axis=0) for t in tricks])
        center = np.median(centers, axis=0) if len(centers) >= 3 else centers.mean(axis=0)
        samples = [(p - center, s) for t in tricks for p, s in t]
        offsets = np.array([math.hypot(*v) for v, _ in samples])
        keep = offsets >= self.min_offset * offsets.mean()
        if keep.sum() < 3:
            return None
        best: tuple[float, float, bool] | None = None
        step = 360.0 / base.places
        for clockwise in (True, False):
            sign = 1.0 if clockwise else -1.0
            estimates = [
                math.atan2(v[1], v[0]) - math.radians(sign * step * ((base.vorhand + s) % base.places))
                for (v, s), k in zip(samples, keep, strict=True)
                if k
            ]
            mean = math.degrees(math.atan2(np.mean(np.sin(estimates)), np.mean(np.cos(estimates)))) % 360.0
            worst = max(abs(_wrap(math.degrees(e) - mean)) for e in estimates)
            if best is None or worst < best[1]:
                best = (mean, worst, clockwise)
        assert best is not None
        mean, worst, clockwise = best
        if worst > self.tolerance:
            return None
        return center, mean, clockwise, float(offsets.max()), worst
