"""Card outlines in a photo: find each card's four corners, and rectify it to an upright face image.

A card is a bright, nearly colourless rectangle of about 5:8 with rounded corners. Two masks find
it on most tables: the card stock (light and unsaturated against the cloth, picked by Otsu's
threshold) and the outline's edges (for a pale table, where stock and cloth differ only in their
edge). Each mask's outer contours are kept when they are rectangles of a card's proportions; each
side is then fitted as a line through the contour's straight middle part, so a corner is where two
sides meet, not where a rounded corner happens to bend, and moved onto the strongest colour edge next
to it (:class:`EdgeMap`). Which of the masks' outlines are cards is settled by their most common size.
A card no mask finds (glare, a table as light as the stock) is left to the layout's lattice
(:func:`~vision.decks.grid.grow`), which asks the :class:`EdgeMap` whether four edges are where it
expects a card.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

WORK_SIDE = 1400  # the long side contours are found at: enough for 24 cards, fast on a 2-core CPU
MIN_ASPECT, MAX_ASPECT = 1.2, 1.9  # a card's long side over its short side, as a tilted camera sees it
MIN_FILL = 0.82  # contour area over its rotated rectangle's: a card is nearly a full rectangle
FACE_WIDTH = 360  # the rectified face's width in pixels
SIDE_MIDDLE = (0.15, 0.85)  # the part of each side fitted as a line (the corners are rounded)
SIZE_SPREAD = 1.5  # how much a card's outline area may differ from the typical card's (tilt, a lost corner)
LOCAL_BLOCKS = (0.1, 0.2)  # the local threshold's neighbourhoods, as shares of the photo's long side
SNAP_REACH = 0.05  # how far a found side may move onto an edge, as a share of the card's other side
EDGE_LADDER = ((20, 60), (10, 30))  # fainter edge thresholds: a card on a table as light as its stock
OUTER_EDGE = 0.6  # a parallel edge further out this strong against the strongest is the card's (not a printed line)


@dataclass(frozen=True)
class Outline:
    """One card found in a photo.

    Attributes:
        corners: ``(4, 2)`` photo pixels, clockwise, starting at a corner of a short side (the face's
            top-left when rectified as it is).
        area: the outline's area in photo pixels.
        fill: the outline's area over its rotated rectangle's (1: a sharp-cornered rectangle).
    """

    corners: np.ndarray
    area: float
    fill: float = 1.0

    @property
    def centre(self) -> np.ndarray:
        return self.corners.mean(axis=0)

    @property
    def width(self) -> float:
        """The mean length of the two short sides, pixels."""
        c = self.corners
        return float((np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[3] - c[2])) / 2)

    @property
    def height(self) -> float:
        """The mean length of the two long sides, pixels."""
        c = self.corners
        return float((np.linalg.norm(c[2] - c[1]) + np.linalg.norm(c[0] - c[3])) / 2)

    def turned(self, quarter_turns: int) -> Outline:
        """The same outline with its corner order moved on ``quarter_turns`` corners (2: the face upside down)."""
        return Outline(np.roll(self.corners, -quarter_turns, axis=0), self.area, self.fill)


def find_outlines(image: np.ndarray, *, many: bool = True) -> list[Outline]:
    """Every card-shaped outline in a BGR photo, largest first.

    An outline's corners run clockwise from a corner of a short side, the face upright or upside down.
    ``many``: the photo shows many cards of one size (a layout), so the most common outline size is a
    card's; ``False`` for a photo of one card, whose pips would outnumber it.
    """
    scale = min(1.0, WORK_SIDE / max(image.shape[:2]))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    found: list[Outline] = []
    # Faint edges outline a card on a pale table, but inside one card also its picture's frame: only a
    # layout's many cards of one size tell the card from its frame.
    for mask in _masks(small, faint=many):
        found += _outlines(mask)
    kept: list[Outline] = []
    # Each mask finds some cards; a card found by several keeps its most rectangular outline. Sizes are
    # settled first: a mask that took the pale table for stock outlines the whole layout as one "card".
    for outline in sorted(_card_sized(found) if many else found, key=lambda o: -o.fill):
        if not any(
            cv2.pointPolygonTest(k.corners.astype(np.float32), outline.centre.tolist(), False) >= 0 for k in kept
        ):
            kept.append(outline)
    kept = sorted(kept if many else _median_sized(kept), key=lambda o: -o.area)
    # A mask's contour lies a few pixels off the card's edge (a shadow, an opening, a lost corner): each
    # side moves onto the strongest edge next to it.
    edges = EdgeMap(small, light_inside=cards_lighter(small, kept))
    return [Outline(edges.snap(o.corners, SNAP_REACH) / scale, o.area / scale**2, o.fill) for o in kept]


def cards_lighter(image: np.ndarray, outlines: list[Outline]) -> bool:
    """Whether most ``outlines`` (pixels of ``image``) are lighter inside than in a band just around them:
    light card stock on a table, whose shadow is darker still."""
    if not outlines:
        return False
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    differences = []
    for outline in outlines:
        centre = outline.centre
        inner, outer = np.zeros_like(grey), np.zeros_like(grey)
        cv2.fillConvexPoly(inner, np.round(centre + 0.8 * (outline.corners - centre)).astype(np.int32), 1)
        cv2.fillConvexPoly(outer, np.round(centre + 1.15 * (outline.corners - centre)).astype(np.int32), 1)
        cv2.fillConvexPoly(outer, np.round(outline.corners).astype(np.int32), 0)
        if inner.any() and outer.any():
            differences.append(float(grey[inner > 0].mean()) - float(grey[outer > 0].mean()))
    return bool(differences) and float(np.median(differences)) > 0


def _masks(image: np.ndarray, *, faint: bool = True) -> list[np.ndarray]:
    """Candidate card masks: card stock by Otsu's threshold (even light), by a local threshold (a lamp's
    gradient, glare), and the regions closed by edges (a table as pale as the stock), also by the fainter
    edges of :data:`EDGE_LADDER` when ``faint``."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    chroma = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    paper = cv2.GaussianBlur(np.clip(lab[..., 0] - 2.0 * chroma, 0, 255).astype(np.uint8), (5, 5), 0)
    opening = np.ones((5, 5), np.uint8)
    _, otsu = cv2.threshold(paper, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    masks = [cv2.morphologyEx(otsu, cv2.MORPH_OPEN, opening)]
    for share in LOCAL_BLOCKS:
        block = int(max(image.shape[:2]) * share) | 1
        local = cv2.adaptiveThreshold(paper, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -8)
        masks.append(cv2.morphologyEx(local, cv2.MORPH_OPEN, opening))
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    median = float(np.median(grey))
    following_light = (int(max(10, 0.33 * median)), int(min(255, 0.8 * median + 20)))
    for low, high in (following_light, *(EDGE_LADDER if faint else ())):
        edges = cv2.Canny(grey, low, high)
        for k in (3, 5):  # a wider closing joins an outline's broken edge, and sometimes two cards
            closed = cv2.dilate(edges, np.ones((k, k), np.uint8))
            contours, _ = cv2.findContours(closed, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
            filled = np.zeros_like(grey)
            cv2.drawContours(filled, contours, -1, 255, cv2.FILLED)
            masks.append(cv2.erode(filled, np.ones((k, k), np.uint8)))
    return masks


def _outlines(mask: np.ndarray) -> list[Outline]:
    min_area = mask.size * 0.0015
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    found = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < min_area:
            continue
        (_, _), (w, h), _ = rect = cv2.minAreaRect(contour)
        if min(w, h) < 1 or not MIN_ASPECT <= max(w, h) / min(w, h) <= MAX_ASPECT or area < MIN_FILL * w * h:
            continue
        corners = _fitted_corners(contour[:, 0, :].astype(np.float64), cv2.boxPoints(rect).astype(np.float64))
        found.append(Outline(_ordered(corners), float(area), float(area / (w * h))))
    return sorted(found, key=lambda o: -o.area)


def _median_sized(outlines: list[Outline]) -> list[Outline]:
    """The outlines of about the median's size (a card; not a phone, a box or a pip's blob)."""
    if len(outlines) < 3:
        return outlines
    median = float(np.median([o.area for o in outlines]))
    return [o for o in outlines if 0.5 * median <= o.area <= 1.8 * median]


def _card_sized(outlines: list[Outline]) -> list[Outline]:
    """The outlines of the most common size (a card; not the whole layout, a phone, a box or a pip's blob).

    The size is the area with the most outlines within a factor of :data:`SIZE_SPREAD` of it: several
    masks find the same cards, so a card's size gathers many votes and a stray outline few.
    """
    if len(outlines) < 3:
        return outlines
    areas = np.log([o.area for o in outlines])
    votes = (np.abs(areas[:, None] - areas[None, :]) < np.log(SIZE_SPREAD)).sum(axis=1)
    typical = float(np.median(areas[votes == votes.max()]))
    return [o for o, a in zip(outlines, areas) if abs(a - typical) < np.log(SIZE_SPREAD)]


def _fitted_corners(points: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The four corners where lines fitted to each side's middle part meet; ``box``'s corners where a
    side has too few points (a torn or covered edge)."""
    lines = []
    for k in range(4):
        a, b = box[k], box[(k + 1) % 4]
        direction = (b - a) / max(np.linalg.norm(b - a), 1e-9)
        normal = np.array([-direction[1], direction[0]])
        t = (points - a) @ direction / max(np.linalg.norm(b - a), 1e-9)
        near = np.abs((points - a) @ normal) < 0.08 * np.linalg.norm(b - a) + 3
        side = points[near & (t > SIDE_MIDDLE[0]) & (t < SIDE_MIDDLE[1])]
        if len(side) < 5:
            return box
        vx, vy, x0, y0 = cv2.fitLine(side.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    corners = []
    for k in range(4):
        (p, u), (q, v) = lines[k - 1], lines[k]
        matrix = np.array([u, -v]).T
        if abs(np.linalg.det(matrix)) < 1e-6:
            return box
        s = np.linalg.solve(matrix, q - p)
        corners.append(p + s[0] * u)
    fitted = np.array(corners)
    # A fit far from the rectangle is a bad fit, not a better corner.
    if np.abs(fitted - box).max() > 0.2 * np.linalg.norm(box[1] - box[0]) + 0.2 * np.linalg.norm(box[2] - box[1]):
        return box
    return fitted


def _ordered(corners: np.ndarray) -> np.ndarray:
    """``corners`` clockwise in the image (y down), starting at a corner of a short side."""
    centre = corners.mean(axis=0)
    angles = np.arctan2(corners[:, 1] - centre[1], corners[:, 0] - centre[0])
    corners = corners[np.argsort(angles)]  # clockwise on screen: angles grow with y pointing down
    if np.linalg.norm(corners[1] - corners[0]) > np.linalg.norm(corners[2] - corners[1]):
        corners = np.roll(corners, -1, axis=0)
    return corners


def rectify(image: np.ndarray, outline: Outline, aspect: float, width: int = FACE_WIDTH) -> np.ndarray:
    """The card inside ``outline`` warped to an upright ``width`` x ``width * aspect`` face image."""
    height = int(round(width * aspect))
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(outline.corners.astype(np.float32), target)
    return cv2.warpPerspective(image, matrix, (width, height), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def sharpness(image: np.ndarray, outline: Outline) -> float:
    """How sharp a card looks in the photo at its own resolution: the Laplacian's spread over the
    grey levels' spread, inside the card (an out-of-focus or shaken photo scores low whatever its light)."""
    x0, y0 = np.floor(outline.corners.min(axis=0)).astype(int).clip(0)
    x1, y1 = np.ceil(outline.corners.max(axis=0)).astype(int)
    grey = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    mask = np.zeros(grey.shape, np.uint8)
    inner = outline.corners - [x0, y0]
    inner = inner + (inner.mean(axis=0) - inner) * 0.1  # inside the card, away from its edge
    cv2.fillConvexPoly(mask, np.round(inner).astype(np.int32), 1)
    inside = mask > 0
    if inside.sum() < 100:
        return 0.0
    laplace = cv2.Laplacian(grey, cv2.CV_32F, ksize=3)
    return float(laplace[inside].std() / max(grey[inside].std(), 1.0))


class EdgeMap:
    """A photo's colour gradients, for measuring how strongly a straight line runs along an edge.

    Args:
        image: the BGR photo.
        light_inside: the cards are lighter than what lies around them (see :func:`cards_lighter`):
            :meth:`snap` then moves a side only onto an edge that gets lighter into the card, never onto
            the outer edge of the card's shadow.
    """

    def __init__(self, image: np.ndarray, *, light_inside: bool = False) -> None:
        self.scale = min(1.0, WORK_SIDE / max(image.shape[:2]))
        small = cv2.resize(image, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
        smooth = cv2.GaussianBlur(small, (0, 0), 1.2).astype(np.float32)
        self.gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3)
        self.gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3)
        self.light_inside = light_inside

    def strength(
        self, starts: np.ndarray, ends: np.ndarray, samples: int = 40, lighter: np.ndarray | None = None
    ) -> np.ndarray:
        """How strongly each segment ``starts[i]``-``ends[i]`` (photo pixels) lies on an edge: the mean,
        over points along its middle, of the colour gradient across it (summed over channels).

        ``lighter``: per segment, a unit normal pointing to the side that must be the lighter one (into a
        light card); only edges that get lighter that way count, so a shadow's outer edge does not.
        """
        starts, ends = starts * self.scale, ends * self.scale
        t = np.linspace(SIDE_MIDDLE[0], SIDE_MIDDLE[1], samples)[None, :, None]
        points = starts[:, None, :] + t * (ends - starts)[:, None, :]
        along = (ends - starts) / np.maximum(np.linalg.norm(ends - starts, axis=1, keepdims=True), 1e-9)
        normal = np.stack([-along[:, 1], along[:, 0]], axis=1)
        mx, my = points[..., 0].astype(np.float32), points[..., 1].astype(np.float32)
        gx = cv2.remap(self.gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        gy = cv2.remap(self.gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        if lighter is None:
            across = np.abs(gx * normal[:, None, 0, None] + gy * normal[:, None, 1, None]).sum(axis=-1)
        else:
            rising = (gx * lighter[:, None, 0, None] + gy * lighter[:, None, 1, None]).sum(axis=-1)
            across = np.maximum(rising, 0.0)
        return across.mean(axis=1)

    def sides(self, corners: np.ndarray) -> np.ndarray:
        """The edge strength along each of a quadrilateral's four sides (side k runs from corner k to k + 1)."""
        return self.strength(corners, np.roll(corners, -1, axis=0))

    @staticmethod
    def _outermost(grid: np.ndarray, best: int) -> int:
        """The flat index in ``grid`` (strength by the shift of a side's two ends, outward growing) of the card's
        edge: the strongest, unless a separate edge further out is a peak of its own at least :data:`OUTER_EDGE`
        as strong. Many decks print a dark frame line just inside the edge; on a pale table the line's inner
        side is a stronger rising edge than the card's own, but it lies inside the card."""
        steps = len(grid)
        line = np.diag(grid)  # the side moved parallel to itself
        peaks = [
            k
            for k in range(steps)
            if line[k] > 0
            and line[k] >= OUTER_EDGE * grid.max()
            and (k == 0 or line[k] >= line[k - 1])
            and (k == steps - 1 or line[k] > line[k + 1])
        ]
        if not peaks or max(peaks) <= max(np.unravel_index(best, grid.shape)) + 1:
            return best
        lo, hi = max(0, max(peaks) - 1), min(steps, max(peaks) + 2)
        i, j = np.unravel_index(int(np.argmax(grid[lo:hi, lo:hi])), (hi - lo, hi - lo))
        return int((lo + i) * steps + (lo + j))

    def snap(self, corners: np.ndarray, reach: float = 0.06, steps: int = 9) -> np.ndarray:
        """``corners`` moved so each side lies on the strongest edge near it (for light cards, the outer of two
        parallel ones: :meth:`_outermost`).

        Each side's two ends move across it independently, by up to ``reach`` of the card's other side
        in ``steps`` places (odd, so that staying put is one of them), so the side may shift and turn a
        little; a side with no edge stronger than where it lies stays there.
        """
        centre = corners.mean(axis=0)
        lines = []
        for k in range(4):
            a, b = corners[k], corners[(k + 1) % 4]
            other = np.linalg.norm(corners[(k + 2) % 4] - b)
            direction = (b - a) / max(np.linalg.norm(b - a), 1e-9)
            normal = np.array([-direction[1], direction[0]])
            if normal @ (a - centre) < 0:
                normal = -normal
            shifts = np.linspace(-reach, reach, steps) * other
            da, db = np.meshgrid(shifts, shifts, indexing="ij")
            starts = a + da.reshape(-1, 1) * normal
            ends = b + db.reshape(-1, 1) * normal
            inward = None if not self.light_inside else np.repeat(-normal[None, :], len(starts), axis=0)
            scores = self.strength(starts, ends, lighter=inward)
            best = int(np.argmax(scores))
            if scores[best] <= scores[len(scores) // 2] + 1e-6:  # no edge stronger than where it lies: stay
                best = len(scores) // 2
            if self.light_inside:
                best = self._outermost(scores.reshape(steps, steps), best)
            lines.append((starts[best], ends[best]))
        snapped = []
        for k in range(4):
            (p0, p1), (q0, q1) = lines[k - 1], lines[k]
            u, v = p1 - p0, q1 - q0
            matrix = np.array([u, -v]).T
            if abs(np.linalg.det(matrix)) < 1e-6:
                return corners
            s = np.linalg.solve(matrix, q0 - p0)
            snapped.append(p0 + s[0] * u)
        return np.array(snapped)


def outline_of(corners: np.ndarray) -> Outline:
    """The outline with these four corners (photo pixels, any order around it)."""
    corners = _ordered(np.asarray(corners, np.float64))
    area = float(cv2.contourArea(corners.astype(np.float32)))
    (_, _), (w, h), _ = cv2.minAreaRect(corners.astype(np.float32))
    return Outline(corners, area, area / max(w * h, 1e-9))
