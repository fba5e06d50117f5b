"""A stand-in for polars on the lent GPU machine, used only by scripts/device/build.sh.

That machine has no polars and cannot fetch one, and its wheel (54 MB) does not fit beside the
working tree in what a device call may carry (64 MiB). Ultralytics' trainer needs one call of it:
``read_csv(bytes).to_dict(as_series=False)`` on its own ``results.csv``, to store the epochs'
results in the checkpoint. This gives the same dict with the standard library.
"""

from __future__ import annotations

import csv
import io
from typing import Any


class _Table:
    def __init__(self, columns: dict[str, list[Any]]) -> None:
        self._columns = columns

    def to_dict(self, as_series: bool = True) -> dict[str, list[Any]]:
        return {name: list(values) for name, values in self._columns.items()}


def _value(text: str) -> Any:
    try:
        return float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:
        return text


def read_csv(source: bytes | str, **_: Any) -> _Table:
    text = source.decode() if isinstance(source, bytes) else open(source).read()
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return _Table({})
    header, body = [h.strip() for h in rows[0]], rows[1:]
    return _Table({name: [_value(row[i].strip()) for row in body if i < len(row)] for i, name in enumerate(header)})
