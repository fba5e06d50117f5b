"""``dokocam eval``: card-identity precision/recall/F1, mAP50, confusion table, pictures.

Scoring follows :func:`vision.detector.matching.match_image`: a predicted card is a hit when it
names the right card and covers a label's centre, so whole-card predictions can be scored against
corner-index labels. mAP50 (box IoU >= 0.5) is computed only when the model finds what the labels
mark (corners against corner labels, cards against card labels).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dokocam.engine import CARD_CODES
from dokocam.vision.detections import Detections
from dokocam.vision.detector.grouping import every_reading
from dokocam.vision.detector.matching import (
    MatchResult,
    average_precision,
    box_iou,
    centers,
    covers,
    iou_assign,
    match_image,
    on_ignored,
    short_side,
)
from dokocam.vision.yolo import LabelledImage, YoloFolder, images_of

N = len(CARD_CODES)
NONE = N  # confusion row "no label here" / column "missed"
# mAP50 is also broken down by label size, COCO-style: a label counts in the bucket of its box's
# shorter side in pixels; a prediction in its label's bucket, or by its own size when it hits none.
# (COCO splits by area at 32^2 and 96^2; a corner index is narrow, and its short side is what
# decides whether its print can be read.)
SIZE_EDGES = (16.0, 32.0)
SIZE_NAMES = ("small", "medium", "large")
ALL_SIZES = len(SIZE_NAMES)  # the index of the all-sizes lists, after the buckets
# Generated images are also scored apart by whether the renderer blurred them (their ``meta/``
# says): a motion-blurred index a dozen pixels tall is not one any reader can name.
BLUR_NAMES = ("sharp", "blurred")
# And once more over the fully visible labels only: an index partly under another card or cut by the
# frame can lose what tells it apart (a 9 cut at its foot reads as a J), so this says how much of
# the mAP50 such indices cost. Partly hidden labels are left out like ignored cards (PASCAL VOC's
# "difficult"); the headline mAP50 still counts them.
FULLY_VISIBLE = 0.95
# The score threshold the model card counts mAP50 at: Ultralytics' validator's (0.001), low enough
# to rank every box the locator keeps. Plain scores gave the same at 0.05 (seed 77;
# pooled seeds 77/78/90: 0.9689 and 0.9693), but a rescorer's fitted probabilities put
# right readings below 0.05 (0.9620 cut there, 0.9719 at 0.001). Card F1 is counted at the
# model's own threshold, where detections are used.
MAP_CONF = 0.001
# What the mAP50 would be without each kind of mistake (``EvalReport.map50_if``), so a trainer sees
# where it is lost: a box on a label named as another card (the classifier's share), a box on no
# label (IoU under 0.1 with every label: a pip, a hidden index, the table), any other box that is no
# hit (the right card off its label, or a second box on it: the locator's share), a label no box
# found. Each is taken away alone; seed 78: 0.964 -> 0.976, 0.968, 0.965, 0.976.
MISTAKES = ("misnamed", "background", "off_label", "missed")
KIND_HIT, KIND_MISNAMED, KIND_BACKGROUND, KIND_OFF_LABEL = range(4)
BACKGROUND_IOU = 0.1


def size_bucket(xyxy: np.ndarray) -> np.ndarray:
    """Per box, ``0`` (short side under 16 px), ``1`` (16-32 px) or ``2`` (32 px and over).

    >>> size_bucket(np.array([[0, 0, 10, 40], [0, 0, 16, 16], [0, 0, 50, 32]])).tolist()
    [0, 1, 2]
    """
    return np.searchsorted(SIZE_EDGES, short_side(xyxy), side="right")


@dataclass
class EvalReport:
    """Totals over a folder. Confusion rows are true cards (+ "none"), columns predictions (+ "missed")."""

    images: int = 0
    labels: np.ndarray = field(default_factory=lambda: np.zeros(N, np.int64))
    hits: np.ndarray = field(default_factory=lambda: np.zeros(N, np.int64))
    tp: np.ndarray = field(default_factory=lambda: np.zeros(N, np.int64))
    fp: np.ndarray = field(default_factory=lambda: np.zeros(N, np.int64))
    ignored: int = 0
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((N + 1, N + 1), np.int64))
    failed: list[str] = field(default_factory=list)
    # What mAP50 counts of a box: "every" card the classifier gives it (as Ultralytics' validator), or its "first"
    # reading.
    readings: str = "every"
    # The thresholds: of the detections scored for precision, recall and F1, and of those ranked for mAP50.
    conf: float | None = None
    map50_conf: float | None = None
    map50: float | None = None
    ap50: list[float] = field(default_factory=list)
    map50_by_size: dict[str, float | None] = field(default_factory=dict)
    labels_by_size: np.ndarray = field(default_factory=lambda: np.zeros((len(SIZE_NAMES), N), np.int64))
    # mAP50 over the sharp and the blurred images apart, when a generated folder's meta says which is which.
    by_blur: dict[str, EvalReport] = field(default_factory=dict)
    # mAP50 over the labels at least ``FULLY_VISIBLE`` visible, when a generated folder's meta says how much shows.
    visible: EvalReport | None = None
    hidden_labels: int = 0
    # The whole score of each card design apart, when a generated folder's meta names the designs: held-out
    # designs differ, and one design's misreadings hide in a pooled number.
    by_design: dict[str, EvalReport] = field(default_factory=dict)
    # Per size bucket, then all sizes (``ALL_SIZES``), per card: each prediction's score and whether it hit.
    _ap_conf: list[list[list[float]]] = field(
        default_factory=lambda: [[[] for _ in range(N)] for _ in range(len(SIZE_NAMES) + 1)]
    )
    _ap_hit: list[list[list[bool]]] = field(
        default_factory=lambda: [[[] for _ in range(N)] for _ in range(len(SIZE_NAMES) + 1)]
    )
    # Per card, each all-sizes prediction's kind (``KIND_HIT`` ... ``KIND_OFF_LABEL``), and the labels no
    # prediction took.
    _ap_kind: list[list[int]] = field(default_factory=lambda: [[] for _ in range(N)])
    missed: np.ndarray = field(default_factory=lambda: np.zeros(N, np.int64))
    map50_if: dict[str, float | None] = field(default_factory=dict)

    @staticmethod
    def _prf(tp: float, fp: float, hits: float, labels: float) -> tuple[float, float, float]:
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = hits / labels if labels else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return precision, recall, f1

    @property
    def overall(self) -> tuple[float, float, float]:
        """Micro-averaged ``(precision, recall, f1)`` over all cards."""
        return self._prf(self.tp.sum(), self.fp.sum(), self.hits.sum(), self.labels.sum())

    def per_card(self) -> list[dict[str, Any]]:
        rows = []
        for c, code in enumerate(CARD_CODES):
            p, r, f = self._prf(self.tp[c], self.fp[c], self.hits[c], self.labels[c])
            rows.append(
                {
                    "card": code,
                    "labels": int(self.labels[c]),
                    "hits": int(self.hits[c]),
                    "tp": int(self.tp[c]),
                    "fp": int(self.fp[c]),
                    "precision": p,
                    "recall": r,
                    "f1": f,
                }
            )
        return rows

    def add_ap(self, raw: Detections, labels_xyxy: np.ndarray, labels_cls: np.ndarray, ignore_xyxy: np.ndarray) -> None:
        """Collects IoU>=0.5 hits of raw detections for mAP50 (boxes on ignore cards are dropped)."""
        assigned = iou_assign(raw.xyxy, raw.class_id, raw.confidence, labels_xyxy, labels_cls)
        label_size = size_bucket(labels_xyxy)
        np.add.at(self.labels_by_size, (label_size, np.asarray(labels_cls, np.int64)), 1)
        size = np.where(assigned >= 0, label_size[assigned.clip(0)] if len(label_size) else 0, size_bucket(raw.xyxy))
        on_ignore = on_ignored(raw.xyxy, ignore_xyxy)
        kinds = mistake_kinds(raw.xyxy, raw.class_id, assigned, labels_xyxy, labels_cls)
        for k in range(len(raw)):
            if assigned[k] >= 0 or not on_ignore[k]:
                c = int(raw.class_id[k])
                self._ap_kind[c].append(int(kinds[k]))
                for bucket in (ALL_SIZES, int(size[k])):
                    self._ap_conf[bucket][c].append(float(raw.confidence[k]))
                    self._ap_hit[bucket][c].append(bool(assigned[k] >= 0))
        taken = np.zeros(len(labels_cls), bool)
        taken[assigned[assigned >= 0]] = True
        np.add.at(self.missed, np.asarray(labels_cls, np.int64)[~taken], 1)

    def add_ap_by_blur(
        self, blurred: bool, raw: Detections, labels_xyxy: np.ndarray, labels_cls: np.ndarray, ignore_xyxy: np.ndarray
    ) -> None:
        """:meth:`add_ap` into the report of the sharp or the blurred images."""
        self.by_blur.setdefault(BLUR_NAMES[int(blurred)], EvalReport()).add_image_ap(
            raw, labels_xyxy, labels_cls, ignore_xyxy
        )

    def add_ap_visible(
        self,
        visibility: np.ndarray,
        raw: Detections,
        labels_xyxy: np.ndarray,
        labels_cls: np.ndarray,
        ignore_xyxy: np.ndarray,
    ) -> None:
        """:meth:`add_ap` into the report of the fully visible labels; a label less visible than
        ``FULLY_VISIBLE`` is ignored there (a label whose visibility is unknown, ``nan``, is kept)."""
        hidden = np.asarray(visibility) < FULLY_VISIBLE
        self.hidden_labels += int(hidden.sum())
        self.visible = self.visible or EvalReport()
        ignore = np.concatenate([ignore_xyxy.reshape(-1, 4), labels_xyxy[hidden]])
        self.visible.add_image_ap(raw, labels_xyxy[~hidden], np.asarray(labels_cls)[~hidden], ignore)

    def add_image_ap(
        self, raw: Detections, labels_xyxy: np.ndarray, labels_cls: np.ndarray, ignore_xyxy: np.ndarray
    ) -> None:
        """One image into a part report that only scores mAP50: its count, its labels and :meth:`add_ap`."""
        self.images += 1
        np.add.at(self.labels, np.asarray(labels_cls, np.int64), 1)
        self.add_ap(raw, labels_xyxy, labels_cls, ignore_xyxy)

    def mistake_counts(self) -> dict[str, int]:
        """How many predictions made each kind of mistake, and how many labels none found."""
        kinds = np.bincount(np.concatenate([np.asarray(k, np.int64) for k in self._ap_kind]), minlength=len(MISTAKES))
        return {
            **{name: int(kinds[MISTAKES.index(name) + 1]) for name in MISTAKES[:-1]},
            "missed": int(self.missed.sum()),
        }

    def blur_parts(self) -> list[tuple[str, EvalReport]]:
        """The sharp and the blurred images' reports, in that order, those that have images."""
        return [(name, self.by_blur[name]) for name in BLUR_NAMES if name in self.by_blur]

    def finish_ap(self) -> None:
        for part in [*self.by_blur.values(), *([self.visible] if self.visible else []), *self.by_design.values()]:
            part.finish_ap()
        self.ap50 = self._ap(ALL_SIZES, self.labels)
        self.map50 = _mean(self.ap50)
        self.map50_if = {name: _mean(self._ap_without(name)) for name in MISTAKES}
        self.map50_by_size = {name: _mean(self._ap(b, self.labels_by_size[b])) for b, name in enumerate(SIZE_NAMES)}

    def _ap(self, bucket: int, labels: np.ndarray) -> list[float]:
        return [average_precision(self._ap_conf[bucket][c], self._ap_hit[bucket][c], int(labels[c])) for c in range(N)]

    def _ap_without(self, mistake: str) -> list[float]:
        """Per card, the AP50 with one kind of mistake taken away (see ``MISTAKES``); missed labels
        are taken away by finding them, ahead of every prediction."""
        values = []
        for c in range(N):
            conf, hit, kind = (
                np.asarray(v, dtype=t)
                for v, t in (
                    (self._ap_conf[ALL_SIZES][c], np.float64),
                    (self._ap_hit[ALL_SIZES][c], bool),
                    (self._ap_kind[c], np.int64),
                )
            )
            if mistake == "missed":
                conf, hit = (
                    np.concatenate([np.full(self.missed[c], np.inf), conf]),
                    np.concatenate([np.ones(self.missed[c], bool), hit]),
                )
            else:
                keep = kind != MISTAKES.index(mistake) + 1
                conf, hit = conf[keep], hit[keep]
            values.append(average_precision(conf, hit, int(self.labels[c])))
        return values

    def to_dict(self) -> dict[str, Any]:
        p, r, f = self.overall
        return {
            "images": self.images,
            "labels": int(self.labels.sum()),
            "true_positives": int(self.tp.sum()),
            "false_positives": int(self.fp.sum()),
            "ignored_predictions": self.ignored,
            "precision": p,
            "recall": r,
            "f1": f,
            "conf": self.conf,
            "map50": self.map50,
            "map50_conf": self.map50_conf,
            "map50_readings": self.readings,
            "per_card": self.per_card(),
            "ap50": None if self.map50 is None else dict(zip(CARD_CODES, self.ap50)),
            "map50_if": None if self.map50 is None else {f"no_{name}": value for name, value in self.map50_if.items()},
            "mistakes": None if self.map50 is None else self.mistake_counts(),
            "map50_by_size": None
            if self.map50 is None
            else {
                name: {
                    "short_side_px": _size_range(b),
                    "labels": int(self.labels_by_size[b].sum()),
                    "map50": self.map50_by_size.get(name),
                }
                for b, name in enumerate(SIZE_NAMES)
            },
            "map50_by_blur": None
            if self.map50 is None or not self.by_blur
            else {
                name: {
                    "images": part.images,
                    "labels": int(part.labels.sum()),
                    "map50": part.map50,
                    "map50_by_size": part.map50_by_size,
                }
                for name, part in self.blur_parts()
            },
            "map50_visible": None
            if self.map50 is None or self.visible is None
            else {
                "min_visible": FULLY_VISIBLE,
                "images": self.visible.images,
                "labels": int(self.visible.labels.sum()),
                "hidden_labels_ignored": self.hidden_labels,
                "map50": self.visible.map50,
                "map50_by_size": self.visible.map50_by_size,
            },
            "by_design": None
            if not self.by_design
            else {name: _design_scores(part) for name, part in sorted(self.by_design.items())},
            "confusion": {
                "rows": [*CARD_CODES, "none"],
                "columns": [*CARD_CODES, "missed"],
                "counts": self.confusion.tolist(),
            },
            "failed": self.failed,
        }

    def table(self) -> str:
        """The per-card table and totals as plain text."""
        lines = [f"{'card':>5} {'labels':>6} {'hits':>5} {'tp':>4} {'fp':>4} {'P':>6} {'R':>6} {'F1':>6}"]
        for row in self.per_card():
            lines.append(
                f"{row['card']:>5} {row['labels']:>6} {row['hits']:>5} {row['tp']:>4} {row['fp']:>4} "
                f"{row['precision']:6.3f} {row['recall']:6.3f} {row['f1']:6.3f}"
            )
        p, r, f = self.overall
        lines.append(
            f"{'all':>5} {int(self.labels.sum()):>6} {int(self.hits.sum()):>5} {int(self.tp.sum()):>4} "
            f"{int(self.fp.sum()):>4} {p:6.3f} {r:6.3f} {f:6.3f}"
        )
        at = "" if self.conf is None else f"P, R and F1 of the scores from {self.conf:g}; "
        lines.append(
            f"images {self.images}, predictions on ignored cards {self.ignored}, {at}mAP50 "
            + (
                "n/a (label kinds differ)"
                if self.map50 is None
                else f"{self.map50:.4f}"
                + ("" if self.map50_conf is None else f" of the scores from {self.map50_conf:g}")
                + f" ({self.readings} reading of each box)"
            )
        )
        if self.map50 is not None and self.map50_by_size:
            parts = [
                f"{_size_range(b)} px "
                + ("n/a" if self.map50_by_size[name] is None else f"{self.map50_by_size[name]:.4f}")
                + f" ({int(self.labels_by_size[b].sum())} labels)"
                for b, name in enumerate(SIZE_NAMES)
            ]
            lines.append("mAP50 by label size (short side): " + ", ".join(parts))
        if self.map50 is not None and self.map50_if:
            parts = [
                f"{name.replace('_', '-')} {'n/a' if value is None else f'{value:.4f}'}"
                for name, value in self.map50_if.items()
            ]
            counts = ", ".join(f"{n} {int(v)}" for n, v in self.mistake_counts().items())
            lines.append(f"mAP50 without each kind of mistake ({counts}): " + ", ".join(parts))
        if self.map50 is not None and self.by_blur:
            parts = [
                f"{name} {'n/a' if part.map50 is None else f'{part.map50:.4f}'} ({part.images} images, "
                f"{int(part.labels.sum())} labels)"
                for name, part in self.blur_parts()
            ]
            lines.append("mAP50 by image blur (generated data): " + ", ".join(parts))
        if self.map50 is not None and self.visible is not None:
            part = self.visible
            visible_map = "n/a" if part.map50 is None else f"{part.map50:.4f}"
            lines.append(
                f"mAP50 of the fully visible labels (generated data, >= {FULLY_VISIBLE:.0%} visible): {visible_map} "
                f"({part.images} images, {int(part.labels.sum())} labels; {self.hidden_labels} partly hidden ones not "
                f"scored)"
            )
        if self.by_design:
            lines.append("by design (generated data): F1, mAP50, images")
            for name, part in sorted(self.by_design.items()):
                row = _design_scores(part)
                ap = "n/a" if row["map50"] is None else f"{row['map50']:.4f}"
                lines.append(f"  {name:<28} {row['f1']:6.3f} {ap:>6} {row['images']:>5}")
        confusions = [
            (int(self.confusion[i, j]), CARD_CODES[i], CARD_CODES[j])
            for i in range(N)
            for j in range(N)
            if i != j and self.confusion[i, j]
        ]
        if confusions:
            lines.append(
                "confusions (true -> predicted): "
                + ", ".join(f"{t}->{p} x{n}" for n, t, p in sorted(confusions, reverse=True)[:15])
            )
        return "\n".join(lines)


def _design_scores(part: EvalReport) -> dict[str, Any]:
    p, r, f = part.overall
    return {
        "images": part.images,
        "labels": int(part.labels.sum()),
        "precision": p,
        "recall": r,
        "f1": f,
        "map50": part.map50,
    }


def mistake_kinds(
    pred_xyxy: np.ndarray, pred_class: np.ndarray, assigned: np.ndarray, label_xyxy: np.ndarray, label_class: np.ndarray
) -> np.ndarray:
    """Per prediction, ``KIND_HIT`` when :func:`iou_assign` gave it a label, else what kind of mistake it is:
    ``KIND_MISNAMED`` (IoU >= 0.5 with a label of another card), ``KIND_BACKGROUND`` (IoU under
    ``BACKGROUND_IOU`` with every label) or ``KIND_OFF_LABEL`` (the rest).

    >>> pred = np.array([[0, 0, 10, 10], [0, 0, 10, 10], [50, 50, 60, 60], [0, 0, 10, 16]])
    >>> assigned, labels = np.array([0, -1, -1, -1]), np.array([[0, 0, 10, 10]])
    >>> mistake_kinds(pred, np.array([1, 2, 1, 1]), assigned, labels, np.array([1])).tolist()
    [0, 1, 2, 3]
    """
    iou = box_iou(pred_xyxy, label_xyxy)
    kinds = np.full(len(assigned), KIND_OFF_LABEL, np.int64)
    if iou.shape[1]:
        other = np.asarray(label_class)[None, :] != np.asarray(pred_class)[:, None]
        kinds[((iou >= 0.5) & other).any(1)] = KIND_MISNAMED
        kinds[iou.max(1) < BACKGROUND_IOU] = KIND_BACKGROUND
    else:
        kinds[:] = KIND_BACKGROUND
    kinds[np.asarray(assigned) >= 0] = KIND_HIT
    return kinds


def _mean(values: list[float]) -> float | None:
    """The mean over the cards that have labels (``nan`` AP), ``None`` when none has."""
    valid = [v for v in values if not np.isnan(v)]
    return float(np.mean(valid)) if valid else None


def _size_range(bucket: int) -> str:
    """``"<16"``, ``"16-32"``, ``">=32"``: a size bucket's short sides in pixels."""
    edges = [f"{e:g}" for e in SIZE_EDGES]
    if bucket == 0:
        return f"<{edges[0]}"
    if bucket == len(SIZE_EDGES):
        return f">={edges[-1]}"
    return f"{edges[bucket - 1]}-{edges[bucket]}"


def score_image(
    report: EvalReport, cards: Detections, item: LabelledImage, width: int, height: int, raw: Detections | None = None
) -> MatchResult:
    """Adds one image to ``report`` and to its design's part; ``raw`` (same-kind detections) feeds mAP50."""
    labels = item.label_xyxy(width, height)
    ignore = item.ignore_xyxy(width, height)
    result = match_image(
        cards.xyxy,
        cards.class_id,
        cards.confidence,
        labels,
        item.label_class,
        ignore,
        pred_claims=cards.data.get("corners"),
    )
    parts = [report]
    if item.design is not None:
        parts.append(
            report.by_design.setdefault(
                item.design, EvalReport(readings=report.readings, conf=report.conf, map50_conf=report.map50_conf)
            )
        )
    label_centers = centers(labels)
    for part in parts:
        part.images += 1
        np.add.at(part.labels, item.label_class, 1)
        for j, c in enumerate(item.label_class):
            if result.label_hit[j] >= 0:
                part.hits[c] += 1
                part.confusion[c, c] += 1
            else:
                part.confusion[c, result.label_confused[j] if result.label_confused[j] >= 0 else NONE] += 1
        for k, state in enumerate(result.pred_status):
            c = int(cards.class_id[k])
            if state == "tp":
                part.tp[c] += 1
            elif state == "fp":
                part.fp[c] += 1
                if not len(labels) or not covers(cards.xyxy[k], label_centers).any():
                    part.confusion[NONE, c] += 1
            else:
                part.ignored += 1
        if raw is not None:
            part.add_ap(raw, labels, item.label_class, ignore)
    if raw is not None:
        if item.blurred is not None:
            report.add_ap_by_blur(item.blurred, raw, labels, item.label_class, ignore)
        if item.visibility is not None:
            report.add_ap_visible(item.visibility, raw, labels, item.label_class, ignore)
    return result


def save_confusion_png(report: EvalReport, path: Path) -> None:
    """A heat map of the confusion table (log-scaled counts)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [*CARD_CODES, "none"]
    columns = [*CARD_CODES, "missed"]
    fig, ax = plt.subplots(figsize=(10, 9), dpi=100)
    ax.imshow(np.log1p(report.confusion), cmap="Blues")
    for i in range(N + 1):
        for j in range(N + 1):
            if report.confusion[i, j]:
                ax.text(
                    j,
                    i,
                    str(report.confusion[i, j]),
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="black" if i != j else "white",
                )
    ax.set_xticks(range(N + 1), columns, rotation=90, fontsize=7)
    ax.set_yticks(range(N + 1), names, fontsize=7)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    p, r, f = report.overall
    ax.set_title(f"dokocam eval: P {p:.3f} R {r:.3f} F1 {f:.3f}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def evaluate(
    detector: Any,
    folder: YoloFolder,
    *,
    out: Path | None = None,
    examples: int = 6,
    label_kind: str | None = None,
    progress: bool = False,
    top1: bool = False,
    map_conf: float | None = None,
) -> EvalReport:
    """Runs ``detector`` (a :class:`vision.detector.model.CardDetector`, or anything with its
    ``card``, ``conf`` and ``detect_and_group``) over a labelled folder.

    mAP50 counts each box once per card the classifier gives it above the detector's threshold
    (:func:`vision.detector.grouping.every_reading`, as Ultralytics' validator does); ``top1``
    counts only its first reading (as dokocam once counted). Precision, recall and F1 score the
    grouped cards, one name each, either way.

    Precision, recall and F1 are counted at the detector's threshold, where its detections are
    used; mAP50 at ``map_conf`` (default: the same), low enough to rank nearly every box. A
    :class:`~vision.detector.model.CardDetector` reads each image once for both
    (:meth:`~vision.detector.model.CardDetector.reads` at the lower threshold, then
    :meth:`~vision.detector.model.CardDetector.at` and ``detect_at``).

    Writes ``metrics.json``, ``confusion.png`` and ``examples/*.jpg`` to ``out`` when given;
    examples show the images with the most mistakes first.
    """
    import cv2

    from dokocam.vision.detector.annotate import annotate

    if hasattr(detector, "for_images"):
        detector = detector.for_images()  # each image on its own: no stream shows the deck's print
    kind = label_kind or folder.kind
    same_kind = (detector.card.target == "corners") == (kind == "corners")
    conf = float(detector.conf)
    rank_conf = conf if map_conf is None else float(map_conf)
    once = hasattr(detector, "reads") and rank_conf != conf
    report = EvalReport(readings="first" if top1 else "every", conf=conf, map50_conf=rank_conf)
    drawn: list[tuple[int, str, np.ndarray]] = []
    for item, image in images_of(folder, desc="eval", progress=progress, failed=report.failed):
        h, w = image.shape[:2]
        if once:
            found = detector.reads(image, min(conf, rank_conf))
            detected, cards = detector.at(found, conf, image)
            raw = detector.detect_at(found, rank_conf)
        else:
            detected, cards = detector.detect_and_group(image)
            raw = detected
        if detector.card.target != "corners":
            cards = detected
        if not top1:
            raw = every_reading(raw, rank_conf, detector.card.locate_weight)
        result = score_image(report, cards, item, w, h, raw if same_kind else None)
        if out is not None and examples:
            mistakes = result.false_positives + int((result.label_hit < 0).sum())
            picture = annotate(
                image,
                cards,
                status=result.pred_status,
                labels=(item.label_xyxy(w, h), item.label_class),
                ignore=item.ignore_xyxy(w, h),
            )
            drawn.append(
                (
                    mistakes,
                    item.image.name,
                    cv2.resize(picture, None, fx=min(1.0, 800 / max(w, h)), fy=min(1.0, 800 / max(w, h))),
                )
            )
            drawn = sorted(drawn, key=lambda d: -d[0])[:examples]
    if same_kind:
        report.finish_ap()
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "metrics.json").write_text(json.dumps(report.to_dict(), indent=1) + "\n")
        save_confusion_png(report, out / "confusion.png")
        (out / "examples").mkdir(exist_ok=True)
        for _, name, picture in drawn:
            cv2.imwrite(str(out / "examples" / (Path(name).stem + ".jpg")), picture)
    return report
