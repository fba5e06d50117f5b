"""The scoring rule of ``dokocam eval``: which predictions hit which labels.

A prediction *hits* a label when it names the same card and its box covers the label box's centre.
That makes whole-card predictions and corner-index labels (or the reverse) comparable: a card box
that covers both corner labels of its card is one true positive and recalls both labels. Boxes of
non-Doppelkopf cards (``ignore``) make a prediction that lands on them count as nothing.

Everything here is pure numpy on pixel boxes, so the rule is tested on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

# A card has two corner indices, so one prediction may recall at most two labels (more when it joins
# more corners, on a deck printing its index in all four).
MAX_LABELS_PER_PREDICTION = 2


@dataclass(frozen=True)
class MatchResult:
    """How the predictions and labels of one image paired up.

    Attributes:
        pred_status: per prediction ``"tp"`` (hit at least one label), ``"fp"`` or ``"ignored"``.
        label_hit: per label, the index of the prediction that hit it, or ``-1`` when missed.
        label_confused: per missed label, the class of the most confident prediction covering its
            centre with another card's name, ``-1`` when nothing covered it (for the confusion table).
    """

    pred_status: tuple[str, ...]
    label_hit: np.ndarray
    label_confused: np.ndarray

    @property
    def true_positives(self) -> int:
        return self.pred_status.count("tp")

    @property
    def false_positives(self) -> int:
        return self.pred_status.count("fp")


def centers(xyxy: np.ndarray) -> np.ndarray:
    """``(n, 2)`` centres of ``(n, 4)`` boxes."""
    xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    return np.stack([(xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2], axis=1)


def covers(boxes: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``(n, m)`` bool: does box ``i`` contain point ``j`` (edges included)?"""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)[:, None, :]
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)[None, :, :]
    return (b[..., 0] <= p[..., 0]) & (p[..., 0] <= b[..., 2]) & (b[..., 1] <= p[..., 1]) & (p[..., 1] <= b[..., 3])


def on_ignored(pred_xyxy: np.ndarray, ignore_xyxy: np.ndarray) -> np.ndarray:
    """``(n,)`` bool: does each box lie on an ignored card (it covers the card's centre, or the card covers its own)?

    >>> on_ignored(np.array([[0, 0, 10, 10], [50, 50, 60, 60]]), np.array([[4, 4, 8, 8]])).tolist()
    [True, False]
    """
    pred_xyxy = np.asarray(pred_xyxy, dtype=np.float64).reshape(-1, 4)
    ignore_xyxy = np.asarray(ignore_xyxy, dtype=np.float64).reshape(-1, 4)
    if not len(ignore_xyxy):
        return np.zeros(len(pred_xyxy), bool)
    return np.asarray(covers(pred_xyxy, centers(ignore_xyxy)).any(1) | covers(ignore_xyxy, centers(pred_xyxy)).any(0))


def match_image(
    pred_xyxy: np.ndarray,
    pred_class: np.ndarray,
    pred_conf: np.ndarray,
    label_xyxy: np.ndarray,
    label_class: np.ndarray,
    ignore_xyxy: np.ndarray | None = None,
    pred_claims: np.ndarray | None = None,
) -> MatchResult:
    """Scores one image's predictions against its labels by the centre-coverage rule.

    Predictions are taken most confident first. Each claims the (at most two, or at most
    ``pred_claims``: how many corner indices it joins, on a deck printing four) still unclaimed
    labels of its own card whose centres it covers, nearest first; claiming any makes it a true
    positive. One that claims nothing is ignored when it lies on an ignore box (covers its centre,
    or its own centre lies inside it) and a false positive otherwise, duplicates included.

    >>> r = match_image([[0, 0, 100, 150]], [3], [0.9], [[0, 0, 20, 30], [80, 120, 100, 150]], [3, 3])
    >>> r.pred_status, r.label_hit.tolist()
    (('tp',), [0, 0])
    """
    pred_xyxy = np.asarray(pred_xyxy, dtype=np.float64).reshape(-1, 4)
    pred_class = np.asarray(pred_class, dtype=np.int64).reshape(-1)
    pred_conf = np.asarray(pred_conf, dtype=np.float64).reshape(-1)
    label_xyxy = np.asarray(label_xyxy, dtype=np.float64).reshape(-1, 4)
    label_class = np.asarray(label_class, dtype=np.int64).reshape(-1)
    ignore = np.zeros((0, 4)) if ignore_xyxy is None else np.asarray(ignore_xyxy, dtype=np.float64).reshape(-1, 4)

    label_centers = centers(label_xyxy)
    covered = covers(pred_xyxy, label_centers)  # (preds, labels)
    label_hit = np.full(len(label_xyxy), -1, dtype=np.int64)
    ignored = on_ignored(pred_xyxy, ignore)
    status = ["fp"] * len(pred_xyxy)
    claims = (
        np.full(len(pred_xyxy), MAX_LABELS_PER_PREDICTION)
        if pred_claims is None
        else np.maximum(np.asarray(pred_claims).reshape(-1), MAX_LABELS_PER_PREDICTION)
    )
    for i in np.argsort(-pred_conf, kind="stable"):
        candidates = np.flatnonzero(covered[i] & (label_class == pred_class[i]) & (label_hit < 0))
        if len(candidates):
            own_center = centers(pred_xyxy[i])[0]
            nearest = candidates[np.argsort(np.linalg.norm(label_centers[candidates] - own_center, axis=1))]
            label_hit[nearest[: int(claims[i])]] = i
            status[i] = "tp"
        elif ignored[i]:
            status[i] = "ignored"

    confused = np.full(len(label_xyxy), -1, dtype=np.int64)
    for j in np.flatnonzero(label_hit < 0):
        others = np.flatnonzero(covered[:, j] & (pred_class != label_class[j]))
        if len(others):
            confused[j] = pred_class[others[np.argmax(pred_conf[others])]]
    return MatchResult(pred_status=tuple(status), label_hit=label_hit, label_confused=confused)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(n, m)`` intersection over union of two sets of ``xyxy`` boxes."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)[:, None, :]
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)[None, :, :]
    w = (np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])).clip(0)
    h = (np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1])).clip(0)
    inter = w * h
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    iou: np.ndarray = inter / np.maximum(area_a + area_b - inter, 1e-9)
    return iou


def iou_assign(
    pred_xyxy: np.ndarray,
    pred_class: np.ndarray,
    pred_conf: np.ndarray,
    label_xyxy: np.ndarray,
    label_class: np.ndarray,
    threshold: float = 0.5,
) -> np.ndarray:
    """Greedy IoU matching, most confident prediction first: per prediction, the index of the
    same-card label it takes (best IoU among those still free, at least ``threshold``), else ``-1``.

    >>> iou_assign([[0, 0, 10, 10], [0, 0, 10, 10]], [1, 1], [0.5, 0.9], [[0, 0, 10, 11]], [1]).tolist()
    [-1, 0]
    """
    pred_class = np.asarray(pred_class, dtype=np.int64).reshape(-1)
    label_class = np.asarray(label_class, dtype=np.int64).reshape(-1)
    iou = box_iou(pred_xyxy, label_xyxy)
    taken = np.zeros(len(label_class), dtype=bool)
    assigned = np.full(len(pred_class), -1, dtype=np.int64)
    for i in np.argsort(-np.asarray(pred_conf, dtype=np.float64).reshape(-1), kind="stable"):
        scores = np.where((label_class == pred_class[i]) & ~taken, iou[i], -1.0)
        if len(scores) and scores.max() >= threshold:
            j = int(scores.argmax())
            taken[j] = True
            assigned[i] = j
    return assigned


def short_side(xyxy: np.ndarray) -> np.ndarray:
    """``(n,)`` the shorter side of each ``xyxy`` box, in its units."""
    b = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    return np.minimum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])


def average_precision(confidence: ArrayLike, hit: ArrayLike, n_labels: int) -> float:
    """Area under the interpolated precision-recall curve (COCO's 101 recall points).

    >>> average_precision([0.9, 0.8], [True, True], 2)
    1.0
    >>> average_precision([0.9], [False], 1)
    0.0
    """
    if n_labels == 0:
        return float("nan")
    order = np.argsort(-np.asarray(confidence, dtype=np.float64), kind="stable")
    hits = np.asarray(hit, dtype=bool)[order]
    if not len(hits):
        return 0.0
    tp = np.cumsum(hits)
    recall = tp / n_labels
    precision = tp / np.arange(1, len(hits) + 1)
    # Make precision monotonically decreasing from the right, then sample it at fixed recalls.
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    samples = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, samples, side="left")
    values = np.where(idx < len(precision), precision[np.minimum(idx, len(precision) - 1)], 0.0)
    return float(values.mean())
