"""One columnar value for everything a detector saw in one frame.

Shaped like supervision's ``Detections``: parallel numpy columns, validated once, indexed with
boolean masks or integer arrays. ``class_id`` is the card's ``engine.Card.index`` (0..23).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dokocam.engine.cards import CARD_CODES


def _column(name: str, value: Any, dtype: Any, n: int | None, trailing: tuple[int, ...] = ()) -> np.ndarray:
    array = np.asarray(value, dtype=dtype)
    if array.ndim == 1 + len(trailing) and array.shape[1:] == trailing and (n is None or array.shape[0] == n):
        return array
    if array.size == 0 and n in (None, 0):
        return np.zeros((0, *trailing), dtype=dtype)
    expected = f"({'n' if n is None else n}{''.join(f', {t}' for t in trailing)})"
    raise ValueError(f"Detections.{name} must have shape {expected}, got {array.shape}")


@dataclass(frozen=True, eq=False)
class Detections:
    """Boxes found in one image.

    Attributes:
        xyxy: ``(n, 4)`` float32 boxes in pixels, ``x1, y1, x2, y2``.
        confidence: ``(n,)`` float32 scores in ``[0, 1]``.
        class_id: ``(n,)`` int64 card indices (``engine.Card.index``).
        tracker_id: ``(n,)`` int64 track ids, or ``None`` before tracking.
        data: extra per-row columns (each of length ``n``), e.g. ``"corners"`` ``(n, 4, 2)``.

    >>> d = Detections(xyxy=[[0, 0, 10, 20], [5, 5, 8, 8]], confidence=[0.9, 0.4], class_id=[3, 7])
    >>> len(d), d[d.confidence > 0.5].class_id.tolist()
    (2, [3])
    >>> len(Detections.merge([d, Detections.empty()]))
    2
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    tracker_id: np.ndarray | None = None
    data: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        xyxy = _column("xyxy", self.xyxy, np.float32, None, (4,))
        n = xyxy.shape[0]
        object.__setattr__(self, "xyxy", xyxy)
        object.__setattr__(self, "confidence", _column("confidence", self.confidence, np.float32, n))
        object.__setattr__(self, "class_id", _column("class_id", self.class_id, np.int64, n))
        if self.tracker_id is not None:
            object.__setattr__(self, "tracker_id", _column("tracker_id", self.tracker_id, np.int64, n))
        data = {}
        for key, value in self.data.items():
            column = np.asarray(value)
            if column.ndim == 0 or column.shape[0] != n:
                raise ValueError(f"Detections.data[{key!r}] must have {n} rows, got shape {column.shape}")
            data[key] = column
        object.__setattr__(self, "data", data)

    @classmethod
    def empty(cls) -> Detections:
        return cls(
            xyxy=np.zeros((0, 4), np.float32), confidence=np.zeros(0, np.float32), class_id=np.zeros(0, np.int64)
        )

    @classmethod
    def merge(cls, parts: Iterable[Detections]) -> Detections:
        """Concatenates detections; ``tracker_id`` and ``data`` keys survive only if all parts have them."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        tracker = None
        if all(p.tracker_id is not None for p in parts):
            tracker = np.concatenate([p.tracker_id for p in parts])
        keys = set.intersection(*(set(p.data) for p in parts))
        return cls(
            xyxy=np.concatenate([p.xyxy for p in parts]),
            confidence=np.concatenate([p.confidence for p in parts]),
            class_id=np.concatenate([p.class_id for p in parts]),
            tracker_id=tracker,
            data={k: np.concatenate([p.data[k] for p in parts]) for k in keys},
        )

    def __len__(self) -> int:
        return int(self.xyxy.shape[0])

    def __iter__(self) -> Iterator[Detections]:
        for i in range(len(self)):
            yield self[i : i + 1]

    def __getitem__(self, index: Any) -> Detections:
        if isinstance(index, int):
            index = slice(index, index + 1 if index != -1 else None)
        return Detections(
            xyxy=self.xyxy[index],
            confidence=self.confidence[index],
            class_id=self.class_id[index],
            tracker_id=None if self.tracker_id is None else self.tracker_id[index],
            data={k: v[index] for k, v in self.data.items()},
        )

    def codes(self) -> list[str]:
        """The card code of each row (``QC``, ``10H`` ...).

        >>> Detections(xyxy=[[0, 0, 1, 1]], confidence=[1.0], class_id=[0]).codes()
        ['9C']
        """
        return [CARD_CODES[i] for i in self.class_id.tolist()]

    def with_columns(self, **changes: Any) -> Detections:
        """A copy with some columns replaced, e.g. ``det.with_columns(tracker_id=ids)``."""
        values: dict[str, Any] = {
            "xyxy": self.xyxy,
            "confidence": self.confidence,
            "class_id": self.class_id,
            "tracker_id": self.tracker_id,
            "data": self.data,
        }
        values.update(changes)
        return Detections(**values)

    @property
    def center(self) -> np.ndarray:
        """``(n, 2)`` box centres in pixels."""
        x = (self.xyxy[:, 0] + self.xyxy[:, 2]) / 2
        y = (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2
        centres: np.ndarray = np.stack([x, y], axis=1)
        return centres

    @property
    def area(self) -> np.ndarray:
        area: np.ndarray = (self.xyxy[:, 2] - self.xyxy[:, 0]).clip(0) * (self.xyxy[:, 3] - self.xyxy[:, 1]).clip(0)
        return area
