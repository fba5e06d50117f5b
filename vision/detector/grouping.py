"""Turns corner-index detections into one entry per physical card.

A card prints its index in two opposite corners. Two same-card corner boxes whose distance fits a
card (measured in index sizes) are taken to be one card; everything else stays a card seen by one
corner. Each corner pairs at most once; among the corners that could pair, the most pairs with the
smallest sum of squared distances win, so two copies of a card lying side by side in one trick
stay two cards unless they overlap corner on corner. Decks printing the index in all
four corners give two entries per card (a known limit).

With the classifier's probabilities per corner, two corners that read differently may still pair:
the pair is named by the card both corners find most likely together (the product of their
probabilities), so one misread corner is outvoted by its partner instead of becoming a second,
wrong card.
"""

from __future__ import annotations

import numpy as np

from vision.detections import Detections

# Distance between the two index centres of one card, in index-box sizes (the longer box side).
# Poker and Skat decks give about 3-5.5; the range leaves room for tilt, small German indices
# and big jumbo indices. Raising ``max_ratio`` pairs corners of different copies more often.
MIN_RATIO = 2.0
MAX_RATIO = 9.0
# Two differently read corners pair only when some card is this plausible for both (geometric mean).
MIN_AGREEMENT = 0.25


def corner_score(located: np.ndarray | float, probability: np.ndarray | float, weight: float = 0.5) -> np.ndarray:
    """A corner's score from the locator's score and the classifier's probability of its card:
    ``located ** weight * probability ** (1 - weight)`` (0.5: their geometric mean).

    >>> float(corner_score(0.64, 1.0)), float(corner_score(0.64, 1.0, weight=0.0))
    (0.8, 1.0)
    """
    return np.asarray(located, np.float64) ** weight * np.asarray(probability, np.float64) ** (1 - weight)


def joint_card(p: np.ndarray, q: np.ndarray) -> tuple[int, float]:
    """The card two corners' probabilities agree on most, and the geometric mean of its two probabilities.

    >>> joint_card(np.array([0.6, 0.4, 0.0]), np.array([0.1, 0.9, 0.0]))
    (1, 0.6)
    """
    both = np.sqrt(np.asarray(p, np.float64) * np.asarray(q, np.float64))
    best = int(both.argmax())
    return best, round(float(both[best]), 6)


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
    """Groups corner detections into cards: a list of 1- or 2-tuples of row indices.

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
    """
    xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    class_id = np.asarray(class_id, dtype=np.int64).reshape(-1)
    confidence = np.asarray(confidence, dtype=np.float64).reshape(-1)
    size = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]).clip(1e-6)
    center = np.stack([(xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2], axis=1)

    candidates: list[tuple[float, float, int, int]] = []
    for i in range(len(xyxy)):
        for j in range(i + 1, len(xyxy)):
            if class_id[i] != class_id[j] and (probs is None or joint_card(probs[i], probs[j])[1] < min_agreement):
                continue
            big, small = max(size[i], size[j]), min(size[i], size[j])
            if big / small > max_size_ratio:
                continue
            ratio = float(np.linalg.norm(center[i] - center[j])) / ((size[i] + size[j]) / 2)
            if min_ratio <= ratio <= max_ratio:
                candidates.append((ratio, -(confidence[i] + confidence[j]), i, j))
    groups = [pair for component in _components(candidates) for pair in _best_matching(component)]
    used = {i for pair in groups for i in pair}
    groups.extend((i,) for i in range(len(xyxy)) if i not in used)
    return sorted(groups, key=lambda g: g[0])


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


def group_corners(corners: Detections, *, locate_weight: float = 0.5, **kwargs: float) -> Detections:
    """One row per physical card from corner detections.

    A paired card's box is the union of its two corner boxes (it covers most of the card), its
    confidence the higher of the two; ``data["corners"]`` holds how many corners were seen (1 or 2).
    With ``data["probs"]`` (the classifier's card probabilities per corner) a pair is named by
    :func:`joint_card`; its confidence is :func:`corner_score` of the better locator score
    (``data["located"]``) and that agreement, with ``locate_weight``, as a single corner's is.
    Keyword arguments go to :func:`pair_corners`.
    """
    if not len(corners):
        return Detections.empty().with_columns(data={"corners": np.zeros(0, np.int64)})
    probs = corners.data.get("probs")
    groups = pair_corners(corners.xyxy, corners.class_id, corners.confidence, probs=probs, **kwargs)
    names = [int(corners.class_id[g[0]]) for g in groups]
    scores = [float(corners.confidence[list(g)].max()) for g in groups]
    if probs is not None:
        located = corners.data.get("located", corners.confidence)
        for k, g in enumerate(groups):
            if len(g) == 2 and corners.class_id[g[0]] != corners.class_id[g[1]]:
                names[k], agreement = joint_card(probs[g[0]], probs[g[1]])
                scores[k] = float(corner_score(max(located[g[0]], located[g[1]]), agreement, locate_weight))
    xyxy = np.array(
        [
            [corners.xyxy[list(g), 0].min(), corners.xyxy[list(g), 1].min(), corners.xyxy[list(g), 2].max(), corners.xyxy[list(g), 3].max()]
            for g in groups
        ],
        dtype=np.float32,
    )
    return Detections(
        xyxy=xyxy,
        confidence=scores,
        class_id=names,
        data={"corners": np.array([len(g) for g in groups], dtype=np.int64)},
    )
