"""A learned score for each reading of a located box: how likely it is that the box lies on an index
of that card (IoU 0.5 or more).

A corner's plain score (:func:`~vision.detector.grouping.corner_score`) sees one box at a time: the
locator's confidence and the classifier's probability. Where mAP50 was lost (pooled
synthetic seeds 77/78/90), most of it was below a score of 0.3: blurred indices a dozen pixels tall
read 40/60 between two cards, ranked among thousands of second readings of other boxes. What tells
them apart is context the plain score ignores: the card's other corner read the same way (two
corners of one card lie 2-9 index sizes apart), a second box on the same print, how sure the box's
first reading is, its size and shape. A small network over those (:data:`FEATURES`) gives each
reading a probability fitted on generated scenes; the detector's score for photos is that
probability.

It may also read a context classifier's probabilities (:data:`CONTEXT_FEATURES`): the
classifier's network trained on windows four times each index, which sees the card's pips or picture where
a blurred index of a dozen pixels shows only grey. Alone it reads worse than the index classifier; the
two err in different places, and the rescorer weighs them by the box's size.

The network is a 32-unit MLP stored as JSON (``dokocam detector train rescorer``); it runs in numpy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dokocam.vision.detector.grouping import MAX_RATIO, MIN_RATIO, corner_score

FEATURES = (
    "log_probability",  # the classifier's probability of this card
    "log_best_probability",  # ... of the box's likeliest card
    "is_best",  # this card is the likeliest
    "log_located",  # locator score times the classifier's "an index is there"
    "log_short_side",  # pixels
    "log_partner",  # the surest other corner of this card at a card's distance (probability x located)
    "has_partner",  # some box of similar size lies at a card's distance
    "log_background",  # the classifier's "no index"
    "log_twin",  # the surest other box on the same print read as this card
    "log_second_probability",  # the box's second likeliest card
    "log_corner_score",  # the plain score of this reading
    "share_of_best",  # probability over the best card's
    "log_aspect",  # short side over long side
    "log_locator",  # the locator's own score
    "log_votes",  # how many locator passes found the box (the photo at several sizes, and turned)
    # the box's size over the median of the photo's sure boxes (a cluster of pips is larger than an index)
    "log_relative_size",
    "log_context_probability",  # the context classifier's probability of this card (a window 4x the box)
    "log_context_background",  # ... that no index is there
)
# Read by a detector with a context classifier only (the model card's ``context_classifier``).
CONTEXT_FEATURES = ("log_context_probability", "log_context_background")
# What every detector with a classifier gives.
PLAIN_FEATURES = tuple(name for name in FEATURES if name not in CONTEXT_FEATURES)
EPS = 1e-4
# Boxes of similar size: a card's two corners are printed alike.
SIZE_RATIO = 1.6
# Boxes this sure (locator x "an index is there") set a photo's typical index size.
SURE_LOCATED = 0.5


class RescorerFileError(ValueError):
    """A file is not a rescorer written by ``dokocam detector train rescorer``."""


def reading_features(
    xyxy: np.ndarray,
    probs: np.ndarray,
    located: np.ndarray,
    weight: float,
    votes: np.ndarray | None = None,
    context: np.ndarray | None = None,
) -> np.ndarray:
    """``(n, cards, len(FEATURES))``: the features of every card's reading of each of ``n`` boxes.

    ``probs`` are the classifier's card probabilities (``(n, cards)``, background left out, so a
    row sums to one minus "no index"), ``located`` the locator's score times "an index is there",
    ``weight`` the model card's ``locate_weight``, ``votes`` the number of locator passes that found
    each box (``data["votes"]`` of :func:`~vision.detector.model.merge_passes`; ``None``: one each),
    ``context`` the context classifier's probabilities (``(n, cards + 1)``, background last; ``None``:
    no context classifier, and the :data:`CONTEXT_FEATURES` are NaN).

    >>> f = reading_features(
    ...     np.array([[0, 0, 10, 14], [50, 0, 60, 14]]), np.array([[0.7, 0.2], [0.9, 0.05]]), np.array([0.8, 0.9]), 0.35
    ... )
    >>> partner = float(np.exp(f[0, 0, FEATURES.index("log_partner")]))
    >>> f.shape, float(f[0, 0, FEATURES.index("is_best")]), round(partner, 2)
    ((2, 2, 18), 1.0, 0.81)
    >>> bool(np.isnan(f[..., FEATURES.index("log_context_probability")]).all())
    True
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    probs = np.asarray(probs, np.float64)
    located = np.asarray(located, np.float64).reshape(-1)
    n, cards = probs.shape
    votes = np.ones(n) if votes is None else np.asarray(votes, np.float64).reshape(-1)
    w, h = xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]
    size, short = np.maximum(np.maximum(w, h), 1.0), np.maximum(np.minimum(w, h), 0.0)
    cx, cy = (xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2
    distance = np.hypot(cx[:, None] - cx[None], cy[:, None] - cy[None]) / size[:, None]
    ratio = size[:, None] / size[None]
    others = ~np.eye(n, dtype=bool)
    partner = (
        (distance >= MIN_RATIO) & (distance <= MAX_RATIO) & (ratio > 1 / SIZE_RATIO) & (ratio < SIZE_RATIO) & others
    )
    twin = (distance < MIN_RATIO) & others  # closer than two corners of one card: the same print
    evidence = probs * located[:, None]
    partner_support = np.where(partner[:, :, None], evidence[None], 0.0).max(1) if n else np.zeros((0, cards))
    twin_support = np.where(twin[:, :, None], evidence[None], 0.0).max(1) if n else np.zeros((0, cards))
    ordered = np.sort(probs, 1)
    best = ordered[:, -1]
    second = ordered[:, -2] if cards > 1 else np.zeros(n)
    background = np.clip(1 - probs.sum(1), 0.0, 1.0)

    sure = located >= SURE_LOCATED
    typical = np.median(size[sure]) if sure.any() else (np.median(size) if n else 1.0)

    def each_card(per_box: np.ndarray) -> np.ndarray:
        return np.broadcast_to(per_box[:, None], (n, cards))

    columns = {
        "log_probability": np.log(probs + EPS),
        "log_best_probability": each_card(np.log(best + EPS)),
        "is_best": (probs == best[:, None]).astype(np.float64),
        "log_located": each_card(np.log(located + EPS)),
        "log_short_side": each_card(np.log(short + 1)),
        "log_partner": np.log(partner_support + 1e-3),
        "has_partner": each_card(np.asarray(partner.any(1), np.float64)),
        "log_background": each_card(np.log(background + EPS)),
        "log_twin": np.log(twin_support + 1e-3),
        "log_second_probability": each_card(np.log(second + EPS)),
        "log_corner_score": np.log(corner_score(located[:, None], probs, weight) + EPS),
        "share_of_best": probs / (best[:, None] + 1e-9),
        "log_aspect": each_card(np.log(short / size)),
        "log_locator": each_card(np.log(located / np.maximum(1 - background, EPS) + EPS)),
        "log_votes": each_card(np.log(np.maximum(votes, 1.0))),
        "log_relative_size": each_card(np.log(size / typical)),
        "log_context_probability": np.full((n, cards), np.nan),
        "log_context_background": np.full((n, cards), np.nan),
    }
    if context is not None:
        context = np.asarray(context, np.float64).reshape(n, cards + 1)
        columns["log_context_probability"] = np.log(context[:, :cards] + EPS)
        columns["log_context_background"] = each_card(np.log(context[:, cards] + EPS))
    return np.stack([columns[name] for name in FEATURES], -1)


def features_for(context: bool) -> tuple[str, ...]:
    """The :data:`FEATURES` a detector can give: all, or without a context classifier those but
    :data:`CONTEXT_FEATURES`.

    >>> len(features_for(True)) - len(features_for(False))
    2
    """
    return FEATURES if context else PLAIN_FEATURES


def feature_columns(names: tuple[str, ...]) -> list[int]:
    """Where each of ``names`` lies in :func:`reading_features`' last axis.

    >>> feature_columns(("log_votes", "log_probability"))
    [14, 0]
    """
    return [FEATURES.index(name) for name in names]


def readings_mask(features: np.ndarray, floor: float) -> np.ndarray:
    """Which readings count: a box's likeliest card, and any card whose plain score reaches ``floor``."""
    best = features[..., FEATURES.index("is_best")] > 0
    sure: np.ndarray = features[..., FEATURES.index("log_corner_score")] >= np.log(floor + EPS)
    return np.asarray(best | sure)


def collect_readings(
    folder: Any, detector: Any, *, floor: float = 0.05, reading_floor: float | None = None, progress: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The features of every counted reading (:func:`readings_mask` at ``reading_floor``, default
    ``floor``) of ``detector``'s plain reads (boxes down to ``floor``) on a labelled folder's images, and whether
    each lies on an index of its card
    (IoU 0.5 or more with a label of that card). Readings of boxes on ``ignore`` cards (too hidden to
    be labelled) are left out unless they hit a label."""
    from dokocam.vision.detector.matching import box_iou, on_ignored
    from dokocam.vision.yolo import images_of

    if detector.rescorer is not None:
        raise ValueError("collect readings with the plain scores: the detector must have no rescorer")
    xs, ys = [], []
    for item, image in images_of(folder, desc="readings", progress=progress):
        h, w = image.shape[:2]
        found = detector.reads(image, floor)
        if not len(found):
            continue
        features = reading_features(
            found.xyxy,
            found.data["probs"],
            found.data["located"],
            detector.card.locate_weight,
            found.data["votes"],
            found.data.get("context"),
        )
        labels, label_class = item.label_xyxy(w, h), np.asarray(item.label_class, np.int64)
        iou = box_iou(found.xyxy, labels) if len(labels) else np.zeros((len(found), 0))
        # (boxes, cards): the box lies on a label of that card.
        hit = ((iou >= 0.5)[:, :, None] & (label_class[None, :, None] == np.arange(features.shape[1]))).any(1)
        on_ignore = on_ignored(found.xyxy, item.ignore_xyxy(w, h))
        counted = readings_mask(features, floor if reading_floor is None else reading_floor) & (
            hit | ~on_ignore[:, None]
        )
        xs.append(features[counted])
        ys.append(hit[counted])
    if not xs:
        raise ValueError("no readings to fit a rescorer on: the detector found nothing in these images")
    return np.concatenate(xs), np.concatenate(ys)


@dataclass(frozen=True)
class Rescorer:
    """A fitted network from :data:`FEATURES` to the probability that a reading is right.

    Attributes:
        features: the names of :data:`FEATURES` it reads, in its inputs' order (a rescorer fitted
            before a feature was added reads those it was fitted on).
        floor: the plain score a box needs to be rescored at all (the threshold of the reads it was fitted on).
        reading_floor: ... and a reading other than the box's likeliest (``None``: ``floor``).
        weight: the ``locate_weight`` of the plain scores among its features.
    """

    mean: np.ndarray
    std: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float
    floor: float = 0.05
    weight: float = 0.35
    info: dict[str, Any] | None = None
    reading_floor: float | None = None
    features: tuple[str, ...] = PLAIN_FEATURES

    @property
    def needs_context(self) -> bool:
        """It reads a context classifier's probabilities (:data:`CONTEXT_FEATURES`)."""
        return bool(set(self.features) & set(CONTEXT_FEATURES))

    def scores(
        self,
        xyxy: np.ndarray,
        probs: np.ndarray,
        located: np.ndarray,
        votes: np.ndarray | None = None,
        context: np.ndarray | None = None,
    ) -> np.ndarray:
        """``(n, cards)``: each card's score for each box (boxes of one image, read together); 0 for
        a reading it never saw in fitting (:func:`readings_mask`). ``context``: see :func:`reading_features`.

        Raises:
            ValueError: it was fitted on a context classifier's readings and ``context`` is ``None``.

        >>> k = len(PLAIN_FEATURES)
        >>> r = Rescorer(mean=np.zeros(k), std=np.ones(k), w1=np.eye(k, 1), b1=np.zeros(1), w2=np.ones(1), b2=0.0)
        >>> r.scores(np.array([[0, 0, 10, 14]]), np.array([[0.9, 0.0001]]), np.array([0.9])).round(2).tolist()
        [[0.5, 0.0]]
        """
        probs = np.asarray(probs, np.float64)
        if context is None and self.needs_context:
            raise ValueError(
                "this rescorer reads a context classifier's probabilities; the detector has no context classifier"
            )
        if not len(probs):
            return np.zeros(probs.shape)
        features = reading_features(xyxy, probs, located, self.weight, votes, context)
        return np.where(
            readings_mask(features, self.floor if self.reading_floor is None else self.reading_floor),
            self.apply(features),
            0.0,
        )

    def apply(self, features: np.ndarray) -> np.ndarray:
        """Probabilities for features (:data:`FEATURES`, all of them) of any leading shape."""
        x = (np.asarray(features, np.float64)[..., feature_columns(self.features)] - self.mean) / self.std
        hidden = np.maximum(x @ self.w1 + self.b1, 0.0)
        probs: np.ndarray = 1.0 / (1.0 + np.exp(-(hidden @ self.w2 + self.b2)))
        return probs

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        data = {
            "kind": "reading-rescorer",
            "features": list(self.features),
            "floor": self.floor,
            "reading_floor": self.reading_floor,
            "weight": self.weight,
            "mean": self.mean.tolist(),
            "std": self.std.tolist(),
            "w1": self.w1.tolist(),
            "b1": self.b1.tolist(),
            "w2": self.w2.tolist(),
            "b2": float(self.b2),
            "info": self.info or {},
        }
        path.write_text(json.dumps(data) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Rescorer:
        """Raises :class:`RescorerFileError` for anything but a rescorer of these features."""
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RescorerFileError(f"{path} cannot be read as a rescorer: {exc}") from None
        if not isinstance(data, dict) or data.get("kind") != "reading-rescorer":
            raise RescorerFileError(
                f"{path} is not a dokocam rescorer (make one with `dokocam detector train rescorer`)"
            )
        names = data.get("features")
        if not isinstance(names, list) or not names or not set(names) <= set(FEATURES):
            raise RescorerFileError(f"{path} was fitted on other features than this dokocam computes: {names}")
        try:
            arrays = {k: np.asarray(data[k], np.float64) for k in ("mean", "std", "w1", "b1", "w2")}
            rescorer = cls(
                **arrays,
                b2=float(data["b2"]),
                floor=float(data["floor"]),
                weight=float(data["weight"]),
                info=data.get("info"),
                reading_floor=None if data.get("reading_floor") is None else float(data["reading_floor"]),
                features=tuple(names),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RescorerFileError(f"{path} is a damaged rescorer: {exc}") from None
        k = len(names)
        if (
            rescorer.mean.shape != (k,)
            or rescorer.std.shape != (k,)
            or rescorer.w1.shape[0] != k
            or rescorer.w2.shape != (rescorer.w1.shape[1],)
            or rescorer.b1.shape != (rescorer.w1.shape[1],)
        ):
            raise RescorerFileError(f"{path} is a damaged rescorer: its weights do not fit {k} features")
        return rescorer


def fit_rescorer(
    features: np.ndarray,
    hits: np.ndarray,
    *,
    hidden: int = 32,
    epochs: int = 600,
    seed: int = 0,
    floor: float = 0.05,
    reading_floor: float | None = None,
    weight: float = 0.35,
    info: dict[str, Any] | None = None,
    names: tuple[str, ...] = PLAIN_FEATURES,
) -> Rescorer:
    """Fits :class:`Rescorer` to ``features`` (``(m, len(FEATURES))``) and whether each reading was right
    (``hits``, ``(m,)``): full-batch Adam on the logistic loss, a few seconds to a minute on a CPU.
    It reads the features ``names`` only."""
    import torch

    unknown = sorted(set(names) - set(FEATURES))
    if unknown or not names:
        raise ValueError(f"a rescorer reads some of {', '.join(FEATURES)}; not {', '.join(unknown) or 'none'}")
    torch.manual_seed(seed)
    columns = np.asarray(features)[:, feature_columns(names)]
    if np.isnan(columns).any():
        raise ValueError(
            f"the readings lack {', '.join(n for n in CONTEXT_FEATURES if n in names)}: collect them with a detector "
            f"that has a context classifier, or fit without those features"
        )
    x = torch.tensor(columns, dtype=torch.float32)
    y = torch.tensor(np.asarray(hits), dtype=torch.float32)
    mean, std = x.mean(0), x.std(0) + 1e-6
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))
    opt = torch.optim.Adam(net.parameters(), lr=0.01, weight_decay=1e-4)
    z = (x - mean) / std
    for _ in range(epochs):
        opt.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(net(z)[:, 0], y)
        loss.backward()
        opt.step()
    first, last = net[0], net[2]
    return Rescorer(
        mean=mean.numpy().astype(np.float64),
        std=std.numpy().astype(np.float64),
        w1=first.weight.detach().numpy().T.astype(np.float64),
        b1=first.bias.detach().numpy().astype(np.float64),
        w2=last.weight.detach().numpy()[0].astype(np.float64),
        b2=float(last.bias.detach()[0]),
        floor=floor,
        reading_floor=reading_floor,
        weight=weight,
        features=tuple(names),
        info={**(info or {}), "readings": int(len(y)), "hits": int(y.sum()), "loss": float(loss.detach())},
    )
