"""Turns corner-index detections into one entry per physical card.

A card prints its index in two opposite corners. Two same-card corner boxes whose distance fits a
card (measured in index sizes) are taken to be one card; everything else stays a card seen by one
corner. Each corner pairs at most once; among the corners that could pair, the most pairs with the
smallest sum of squared distances win, so two copies of a card lying side by side in one trick
stay two cards unless they overlap corner on corner.

Many decks print the index in all four corners. Pairing alone would make two cards of each such
card (its two short or long sides), so four same-card corners forming a card-shaped rectangle are
one card first, a leftover corner that completes a pair's right angle joins it, and a corner found
twice (two boxes on one index) joins its twin. Those tests are rotation-free: they use the corner
centres only, never the axis-aligned boxes.

With the classifier's probabilities per corner, two corners that read differently may still pair:
the pair is named by the card both corners find most likely together (the product of their
probabilities), so one misread corner is outvoted by its partner instead of becoming a second,
wrong card.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from dokocam.vision.detections import Detections
from dokocam.vision.detector.matching import box_iou

# Distance between the two index centres of one card, in index-box sizes (the longer box side).
# Poker and Skat decks give about 3-5.5; the range leaves room for tilt, small German indices
# and big jumbo indices. Raising ``max_ratio`` pairs corners of different copies more often.
MIN_RATIO = 2.0
MAX_RATIO = 9.0
# Two differently read corners pair only when some card is this plausible for both (geometric mean).
MIN_AGREEMENT = 0.25
# The rectangle of a card's four index centres, short side over long side: poker, bridge and Skat
# decks give 0.63-0.70, and a camera tilted by up to ~35 degrees foreshortens one side.
MIN_ASPECT = 0.45
MAX_ASPECT = 0.92
# How far four corners may be from a rectangle (the diagonals' midpoints apart plus their length
# difference, over the diagonal), and a right angle from 90 degrees (|cos|): perspective bends both.
RECT_TOLERANCE = 0.25
RIGHT_ANGLE_COS = 0.25
# The short side of that rectangle, in index sizes: at least this (indices side by side on a narrow
# card lie closer than the two of a pair across its diagonal).
MIN_SIDE = 1.2
# A second box on one index (the locator found it twice): centres this close, in index sizes.
TWIN_DISTANCE = 0.6
# ... or, for the per-index output (``drop_twins``), overlapping a surer box of the same card this
# much (IoU). Chosen on synthetic validation: 0.2, 0.3 and an overlap of half the smaller box gave
# the same mAP50 within 0.003; most twins are a pass's shifted or partial box on the same print.
TWIN_IOU = 0.3
# The kept box becomes its twins' average weighted by score ** TWIN_FUSE_POWER (weighted box
# fusion; the power keeps the surest box in charge). Synthetic seed 7 val mAP50 with powers
# 0 (keep the surest box), 1, 2, 4, 8, 16: 0.802, 0.811, 0.816, 0.825, 0.822, 0.815.
TWIN_FUSE_POWER = 4.0


def corner_score(located: np.ndarray | float, probability: np.ndarray | float, weight: float = 0.5) -> np.ndarray:
    """A corner's score from the locator's score and the classifier's probability of its card:
    ``located ** weight * probability ** (1 - weight)`` (0.5: their geometric mean).

    >>> float(corner_score(0.64, 1.0)), float(corner_score(0.64, 1.0, weight=0.0))
    (0.8, 1.0)
    """
    return np.asarray(located, np.float64) ** weight * np.asarray(probability, np.float64) ** (1 - weight)


def every_reading(corners: Detections, conf: float, weight: float = 0.5) -> Detections:
    """Each box once per card the classifier gives it, scored by :func:`corner_score`, down to ``conf``.

    This is how mAP counts a detector with class scores (Ultralytics' validator keeps every class of
    a box above its threshold, ``multi_label=True``): a small index read 60/40 between two cards is
    a hit for the right one at its lower score instead of a plain miss. A rescored box
    (``data["scores"]``, :mod:`vision.detector.rescorer`) takes its readings' fitted scores. Boxes
    without those or ``data["probs"]`` and ``data["located"]`` stay as they are. A box's first
    reading is always kept.

    >>> d = Detections(
    ...     xyxy=[[0, 0, 8, 8]], confidence=[0.6], class_id=[1], data={"probs": [[0.3, 0.6, 0.1]], "located": [0.6]}
    ... )
    >>> e = every_reading(d, conf=0.3)
    >>> e.class_id.tolist(), [round(float(c), 2) for c in e.confidence]
    ([1, 0], [0.6, 0.42])
    """
    probs, located, fitted = corners.data.get("probs"), corners.data.get("located"), corners.data.get("scores")
    if fitted is not None and len(corners):
        scores = np.array(fitted, np.float64)
    elif probs is None or located is None or not len(corners):
        return corners
    else:
        scores = corner_score(np.asarray(located, np.float64)[:, None], np.asarray(probs, np.float64), weight)
    first = np.zeros(scores.shape, bool)
    first[np.arange(len(corners)), corners.class_id] = True
    scores[first] = corners.confidence
    # A reading scored 0 (a rescorer's reading it never saw, or no probability at all) is no reading.
    rows, cards = np.nonzero(((scores >= conf) & (scores > 0)) | first)
    order = np.lexsort((-scores[rows, cards], rows))
    rows, cards = rows[order], cards[order]
    return Detections(
        xyxy=corners.xyxy[rows],
        confidence=scores[rows, cards],
        class_id=cards,
        data={key: value[rows] for key, value in corners.data.items()},
    )


def drop_twins(corners: Detections, iou: float = TWIN_IOU, fuse_power: float = TWIN_FUSE_POWER) -> Detections:
    """One box per index: a box overlapping a surer box of the same card by ``iou`` or more goes,
    and the surer box becomes their average weighted by ``score ** fuse_power``.

    The locator's passes and its own low-threshold boxes often put a second, shifted box on one
    index; the classifier then reads it as surely as the first, so it would count as a second
    index (a false positive for mAP). Averaging the boxes places the kept one better on small
    indices. Boxes of different cards are never dropped.

    >>> boxes = [[0, 0, 10, 10], [2, 0, 12, 10], [2, 0, 12, 10]]
    >>> d = drop_twins(Detections(xyxy=boxes, confidence=[0.5, 0.5, 0.7], class_id=[3, 3, 4]))
    >>> d.xyxy.tolist(), d.class_id.tolist()
    ([[1.0, 0.0, 11.0, 10.0], [2.0, 0.0, 12.0, 10.0]], [3, 4])
    """
    if len(corners) < 2:
        return corners
    overlap = box_iou(corners.xyxy, corners.xyxy)
    same = corners.class_id[:, None] == corners.class_id[None, :]
    weight = np.asarray(corners.confidence, np.float64) ** fuse_power
    xyxy = np.array(corners.xyxy, np.float64)
    dropped = np.zeros(len(corners), bool)
    for i in np.argsort(-corners.confidence, kind="stable"):
        if dropped[i]:
            continue
        twins = same[i] & (overlap[i] >= iou) & ~dropped
        twins[i] = False
        if twins.any():
            members = np.flatnonzero(twins | (np.arange(len(corners)) == i))
            xyxy[i] = (corners.xyxy[members] * weight[members, None]).sum(0) / max(weight[members].sum(), 1e-12)
            dropped |= twins
    return corners.with_columns(xyxy=xyxy.astype(np.asarray(corners.xyxy).dtype))[~dropped]


def geometric_mean(rows: np.ndarray) -> np.ndarray:
    """Per card, the geometric mean of some corners' probabilities (``rows``, one a corner): how much they agree
    on it."""
    return np.asarray(np.exp(np.log(rows.clip(1e-12)).mean(axis=0)))


def joint_card(*probabilities: np.ndarray) -> tuple[int, float]:
    """The card some corners' probabilities agree on most, and the geometric mean of its probabilities.

    >>> joint_card(np.array([0.6, 0.4, 0.0]), np.array([0.1, 0.9, 0.0]))
    (1, 0.6)
    """
    together = geometric_mean(np.asarray(probabilities, np.float64))
    best = int(together.argmax())
    return best, round(float(together[best]), 6)


def pair_corners(
    xyxy: np.ndarray,
    class_id: np.ndarray,
    confidence: np.ndarray,
    *,
    min_ratio: float = MIN_RATIO,
    max_ratio: float = MAX_RATIO,
    max_size_ratio: float = 2.0,
    probs: np.ndarray | None = None,
    min_agreement: float = MIN_AGREEMENT,
) -> list[tuple[int, ...]]:
    """Groups corner detections into cards: a list of tuples of row indices, one per card.

    A tuple holds one corner, the two of a pair, or up to four (and a twin box) on a deck that
    prints its index in every corner.

    Args:
        xyxy: ``(n, 4)`` corner boxes in pixels.
        class_id: ``(n,)`` card of each corner.
        confidence: ``(n,)`` scores (ties between equally close pairs go to the confident one).
        min_ratio: smallest centre distance, in index sizes, that still makes a pair.
        max_ratio: largest such distance; raising it pairs far-apart copies by mistake.
        max_size_ratio: two corners of one card look about equally big; lowering it stops pairs
            under strong camera tilt.
        probs: ``(n, k)`` card probabilities per corner; with them, corners of different
            ``class_id`` pair when :func:`joint_card` agrees at ``min_agreement`` or more.
        min_agreement: geometric mean of the two corners' probabilities for the joint card.

    >>> pair_corners([[0, 0, 10, 20], [60, 80, 70, 100], [200, 0, 210, 20]], [3, 3, 3], [0.9, 0.8, 0.7])
    [(0, 1), (2,)]

    Four corners of one card (an index in every corner) are one card, not two pairs:

    >>> pair_corners([[0, 0, 10, 20], [50, 0, 60, 20], [0, 80, 10, 100], [50, 80, 60, 100]], [3] * 4, [0.9] * 4)
    [(0, 1, 2, 3)]
    """
    xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    class_id = np.asarray(class_id, dtype=np.int64).reshape(-1)
    confidence = np.asarray(confidence, dtype=np.float64).reshape(-1)
    size = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]).clip(1e-6)
    center = np.stack([(xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2], axis=1)
    n = len(xyxy)

    # Which corners may be of one card: the same name (or, with probabilities, a card both find
    # plausible enough, as in joint_card) and about the same size. All pairs at once: a busy
    # frame has dozens of corners.
    same = class_id[:, None] == class_id[None, :]
    if probs is not None and n:
        logs = np.log(np.asarray(probs, np.float64).clip(1e-12))
        same |= np.exp((logs[:, None, :] + logs[None, :, :]) / 2).max(axis=2) >= min_agreement
    same &= np.maximum(size[:, None], size[None, :]) / np.minimum(size[:, None], size[None, :]) <= max_size_ratio
    np.fill_diagonal(same, False)
    friends = [set(np.nonzero(row)[0].tolist()) for row in same]
    distance = np.linalg.norm(center[:, None, :] - center[None, :, :], axis=2)
    twins = _twins(distance, size, confidence, friends)
    live = [i for i in range(n) if i not in twins]
    groups: list[tuple[int, ...]] = _rectangles(live, center, size, friends, min_ratio, max_ratio)
    used = {i for g in groups for i in g}
    candidates: list[tuple[float, float, int, int]] = []
    for a, i in enumerate(live):
        for j in live[a + 1 :]:
            if i in used or j in used or j not in friends[i]:
                continue
            ratio = float(distance[i, j]) / ((size[i] + size[j]) / 2)
            if min_ratio <= ratio <= max_ratio:
                candidates.append((ratio, -(confidence[i] + confidence[j]), i, j))
    pairs = [pair for component in _components(candidates) for pair in _best_matching(component)]
    used.update(i for pair in pairs for i in pair)
    groups.extend(
        _third_corners(pairs, [i for i in live if i not in used], center, size, friends, min_ratio, max_ratio)
    )
    used = {i for g in groups for i in g}
    groups.extend((i,) for i in live if i not in used)
    for twin, kept in twins.items():
        groups = [(*g, twin) if kept in g else g for g in groups]
    return sorted((tuple(sorted(g)) for g in groups), key=lambda g: g[0])


def _twins(distance: np.ndarray, size: np.ndarray, confidence: np.ndarray, friends: list[set[int]]) -> dict[int, int]:
    """Boxes found twice on one index: each weaker box mapped to the box it repeats."""
    twins: dict[int, int] = {}
    for i in np.argsort(-confidence, kind="stable").tolist():
        if i in twins:
            continue
        for j in friends[i]:
            if j not in twins and confidence[j] <= confidence[i]:
                if distance[i, j] <= TWIN_DISTANCE * max(size[i], size[j]):
                    twins[j] = i
    return {j: i for j, i in twins.items() if i not in twins}


def _card_sides_fit(short: float, long: float, index: float, min_ratio: float, max_ratio: float) -> bool:
    """Whether two sides of a rectangle of index centres can be a card's (lengths in pixels): its
    diagonal must be one a pair of opposite indices could span."""
    return (
        MIN_ASPECT <= short / long <= MAX_ASPECT
        and short >= MIN_SIDE * index
        and min_ratio * index <= float(np.hypot(short, long)) <= max_ratio * index
    )


def _rectangles(
    live: list[int], center: np.ndarray, size: np.ndarray, friends: list[set[int]], min_ratio: float, max_ratio: float
) -> list[tuple[int, ...]]:
    """Disjoint sets of four corners lying on a card-shaped rectangle, best fitting first."""
    found: list[tuple[float, tuple[int, ...]]] = []
    alive = set(live)
    for i in live:
        mates = sorted(j for j in friends[i] if j > i and j in alive)
        if len(mates) < 3 or len(mates) > 11:  # no four corners, or too many copies to tell apart
            continue
        for a, b, c in combinations(mates, 3):
            if b not in friends[a] or c not in friends[a] or c not in friends[b]:
                continue
            error = _rectangle_error(center[[i, a, b, c]], float(size[[i, a, b, c]].mean()), min_ratio, max_ratio)
            if error is not None:
                found.append((error, (i, a, b, c)))
    chosen: list[tuple[int, ...]] = []
    used: set[int] = set()
    for _, quad in sorted(found):
        if used.isdisjoint(quad):
            chosen.append(quad)
            used.update(quad)
    return chosen


def _rectangle_error(points: np.ndarray, index: float, min_ratio: float, max_ratio: float) -> float | None:
    """How far four points are from a card-shaped rectangle (None: not one at all).

    A rectangle's diagonals are equally long and cross at their midpoints.

    >>> _rectangle_error(np.array([[0, 0], [50, 0], [0, 80], [50, 80]]), 12.0, 2.0, 9.0)
    0.0
    >>> _rectangle_error(np.array([[0, 0], [80, 0], [0, 80], [80, 80]]), 12.0, 2.0, 9.0) is None  # a square
    True
    """
    best: float | None = None
    for (p, q), (r, t) in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))):
        d1, d2 = float(np.linalg.norm(points[p] - points[q])), float(np.linalg.norm(points[r] - points[t]))
        mean = (d1 + d2) / 2
        if mean <= 0:
            continue
        error = (float(np.linalg.norm((points[p] + points[q]) / 2 - (points[r] + points[t]) / 2)) + abs(d1 - d2)) / mean
        sides = sorted((float(np.linalg.norm(points[p] - points[r])), float(np.linalg.norm(points[p] - points[t]))))
        if error <= RECT_TOLERANCE and _card_sides_fit(sides[0], sides[1], index, min_ratio, max_ratio):
            best = error if best is None else min(best, error)
    return None if best is None else round(best, 6)


def _third_corners(
    pairs: list[tuple[int, int]],
    singles: list[int],
    center: np.ndarray,
    size: np.ndarray,
    friends: list[set[int]],
    min_ratio: float,
    max_ratio: float,
) -> list[tuple[int, ...]]:
    """The pairs, each with a leftover corner of its card that makes a right angle with it.

    On a four-index deck a card with one corner hidden shows three indices; pairing takes the
    two along a side. Only corners nothing else took may join, and only at a right angle at the
    pair's end (see :func:`_right_angle`), so two copies of a two-index card are never merged.
    """
    groups: list[tuple[int, ...]] = []
    free = set(singles)
    for i, j in pairs:
        best: tuple[float, int] | None = None
        for k in sorted(free & friends[i] & friends[j]):
            cos = _right_angle(center[i], center[j], center[k], float(size[[i, j, k]].mean()), min_ratio, max_ratio)
            if cos is not None and (best is None or cos < best[0]):
                best = (cos, k)
        if best is None:
            groups.append((i, j))
        else:
            groups.append((i, j, best[1]))
            free.discard(best[1])
    return groups


def _right_angle(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, index: float, min_ratio: float, max_ratio: float
) -> float | None:
    """|cos| of the angle at ``a`` or ``b`` when the pair ``a``-``b`` is one side of a card and ``c``
    the far end of the next side (None: no such right angle).

    The pair must be a side, not the diagonal: a two-index card pairs across its diagonal, and a
    copy's corner lying on its blank corner would otherwise join it.

    >>> _right_angle(np.array([0, 0]), np.array([50, 0]), np.array([50, 80]), 12.0, 2.0, 9.0)
    0.0
    >>> _right_angle(np.array([0, 0]), np.array([50, 80]), np.array([50, 0]), 12.0, 2.0, 9.0) is None
    True
    """
    best: float | None = None
    for apex, p, q in ((a, b, c), (b, a, c)):
        u, v = p - apex, q - apex
        lu, lv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
        if lu <= 0 or lv <= 0:
            continue
        cos = abs(float(u @ v)) / (lu * lv)
        if cos <= RIGHT_ANGLE_COS and _card_sides_fit(min(lu, lv), max(lu, lv), index, min_ratio, max_ratio):
            best = cos if best is None else min(best, cos)
    return None if best is None else round(best, 6)


# Corners that could pair with each other form small clusters (the copies of one card); each is
# matched exactly up to this many candidate pairs, and greedily (closest first) beyond.
EXACT_PAIRS = 12


def _components(candidates: list[tuple[float, float, int, int]]) -> list[list[tuple[float, float, int, int]]]:
    """The candidate pairs split into groups that share no corner."""
    parent: dict[int, int] = {}

    def root(i: int) -> int:
        while parent.setdefault(i, i) != i:
            i = parent[i]
        return i

    for _, _, i, j in candidates:
        parent[root(i)] = root(j)
    groups: dict[int, list[tuple[float, float, int, int]]] = {}
    for c in candidates:
        groups.setdefault(root(c[2]), []).append(c)
    return list(groups.values())


def _best_matching(candidates: list[tuple[float, float, int, int]]) -> list[tuple[int, int]]:
    """The pairs of one cluster: as many as possible, then the smallest sum of squared distances.

    Closest-first pairing goes wrong when two copies of a card lie side by side: a corner of one
    copy is often nearer to the other copy's corner than to its own partner, and the leftover
    corners then pair across the whole trick. Squared distances prefer two card-sized pairs to
    one short and one long.
    """
    ordered = sorted(candidates)
    if len(ordered) > EXACT_PAIRS:
        used: set[int] = set()
        greedy: list[tuple[int, int]] = []
        for _, _, i, j in ordered:
            if i not in used and j not in used:
                used.update((i, j))
                greedy.append((i, j))
        return greedy
    best: tuple[int, float, float, list[tuple[int, int]]] = (0, 0.0, 0.0, [])

    def search(k: int, used: frozenset[int], chosen: list[tuple[int, int]], cost: float, ties: float) -> None:
        nonlocal best
        if k == len(ordered):
            if (len(chosen), -cost, -ties) > (best[0], -best[1], -best[2]):
                best = (len(chosen), cost, ties, list(chosen))
            return
        ratio, tie, i, j = ordered[k]
        if i not in used and j not in used:
            search(k + 1, used | {i, j}, [*chosen, (i, j)], cost + ratio * ratio, ties + tie)
        search(k + 1, used, chosen, cost, ties)

    search(0, frozenset(), [], 0.0, 0.0)
    return best[3]


def group_corners(
    corners: Detections, *, locate_weight: float = 0.5, evidence: bool = False, **kwargs: float
) -> Detections:
    """One row per physical card from corner detections.

    A grouped card's box is the union of its corner boxes (it covers most of the card), its
    confidence the highest of them; ``data["corners"]`` holds how many corner boxes it joins (1-4,
    one more for an index found twice).
    With ``data["probs"]`` (the classifier's card probabilities per corner) a pair is named by
    :func:`joint_card`; its confidence is :func:`corner_score` of the better locator score
    (``data["located"]``) and that agreement, with ``locate_weight``, as a single corner's is.
    With ``evidence`` (and ``data["probs"]``) each card keeps what a later reading of the whole card weighs:
    ``data["probs"]``, its corners' probabilities together (their geometric mean, per card), ``data["located"]``,
    the best locator score, and ``data["ends"]``, the centres of its two corners farthest apart (x1, y1, x2, y2;
    NaN for a card seen by one corner).
    Keyword arguments go to :func:`pair_corners`.
    """
    if not len(corners):
        empty: dict[str, np.ndarray] = {"corners": np.zeros(0, np.int64)}
        if evidence and "probs" in corners.data:
            empty |= {"probs": corners.data["probs"][:0], "located": np.zeros(0), "ends": np.zeros((0, 4))}
        return Detections.empty().with_columns(data=empty)
    probs = corners.data.get("probs")
    groups = pair_corners(corners.xyxy, corners.class_id, corners.confidence, probs=probs, **kwargs)
    names = [int(corners.class_id[g[0]]) for g in groups]
    scores = [float(corners.confidence[list(g)].max()) for g in groups]
    if probs is not None:
        located = corners.data.get("located", corners.confidence)
        fitted = corners.data.get("scores")
        for k, g in enumerate(groups):
            rows = list(g)
            if len(set(corners.class_id[rows].tolist())) > 1:
                names[k], agreement = joint_card(*probs[rows])
                # A rescored corner already weighed its partner's reading: the pair's score is its
                # surer corner's for that card.
                scores[k] = (
                    float(np.max(fitted[rows, names[k]]))
                    if fitted is not None
                    else float(corner_score(max(located[rows]), agreement, locate_weight))
                )
    xyxy = np.array(
        [
            [
                corners.xyxy[list(g), 0].min(),
                corners.xyxy[list(g), 1].min(),
                corners.xyxy[list(g), 2].max(),
                corners.xyxy[list(g), 3].max(),
            ]
            for g in groups
        ],
        dtype=np.float32,
    )
    data: dict[str, np.ndarray] = {"corners": np.array([len(g) for g in groups], dtype=np.int64)}
    if evidence and probs is not None:
        data |= _evidence(corners, groups)
    return Detections(
        xyxy=xyxy, confidence=np.array(scores, dtype=np.float32), class_id=np.array(names, np.int64), data=data
    )


def _evidence(corners: Detections, groups: list[tuple[int, ...]]) -> dict[str, np.ndarray]:
    """:func:`group_corners`'s ``probs``, ``located`` and ``ends`` of each group."""
    probs = corners.data["probs"].astype(np.float64)
    located = corners.data.get("located", corners.confidence)
    centres = (corners.xyxy[:, :2] + corners.xyxy[:, 2:]) / 2
    together = np.stack([geometric_mean(probs[list(g)]) for g in groups])
    ends = np.full((len(groups), 4), np.nan)
    for k, g in enumerate(groups):
        if len(g) > 1:
            i, j = max(combinations(g, 2), key=lambda ij: float(np.hypot(*(centres[ij[0]] - centres[ij[1]]))))
            ends[k] = [*centres[i], *centres[j]]
    best = np.array([float(located[list(g)].max()) for g in groups])
    return {"probs": together, "located": best, "ends": ends}
