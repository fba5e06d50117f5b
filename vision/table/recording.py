"""Detections recorded once and replayed many times (``dokocam analyze --save-detections`` / ``--detections``).

Running the detector over a video costs tens of milliseconds a frame; the tracker and the decoder
cost well under one. A recording keeps every analysed frame's detections as JSON lines, so the
table pipeline can be tuned and tested on real detector output in seconds:

  {"format": "dokocam-detections/1", "width": 960, "height": 540, "target": "corners", "frames": 624}
  {"frame": 9, "time": 2.25, "xyxy": [[53.0, 74.0, 98.0, 140.0]], "class_id": [7], "confidence": [0.91], "corners": [2]}

The first line says what found the boxes (``target``: ``"corners"`` for a corner-index detector,
``"cards"`` for whole cards); ``corners`` (optional) is how many corner indices each box joins.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from dokocam.vision.detections import Detections

FORMAT = "dokocam-detections/1"

Frames = Iterable[tuple[int, float, Detections]]


class DetectionsFileError(ValueError):
    """A detections recording that cannot be read (missing, not JSON lines, wrong format or columns)."""


@dataclass(frozen=True)
class RecordingHeader:
    """What the first line of a recording says about the video and the detector.

    Attributes:
        width: frame width in pixels.
        height: frame height in pixels.
        target: ``"corners"`` (boxes of corner indices, grouped into cards) or ``"cards"``.
        frames: frames in the video (analysed or not), or ``None`` when unknown.
    """

    width: int
    height: int
    target: str = "cards"
    frames: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "width": self.width,
            "height": self.height,
            "target": self.target,
            "frames": self.frames,
        }


def frame_line(index: int, time: float, detections: Detections) -> dict[str, Any]:
    """One frame as a JSON-ready dict (boxes rounded to 0.1 px, scores to 4 digits)."""
    line: dict[str, Any] = {
        "frame": int(index),
        "time": round(float(time), 6),
        "xyxy": np.round(detections.xyxy.astype(np.float64), 1).tolist(),
        "class_id": detections.class_id.astype(int).tolist(),
        "confidence": np.round(detections.confidence.astype(np.float64), 4).tolist(),
    }
    if "corners" in detections.data:
        line["corners"] = np.asarray(detections.data["corners"]).astype(int).tolist()
    return line


def save_detections(
    path: str | Path, header: RecordingHeader, frames: Frames
) -> Iterator[tuple[int, float, Detections]]:
    """Writes ``frames`` to ``path`` while passing them on (the detector runs once, for both).

    The file is complete once the returned iterator is exhausted.
    """
    with Path(path).open("w") as f:
        f.write(json.dumps(header.to_dict()) + "\n")
        for index, time, detections in frames:
            f.write(json.dumps(frame_line(index, time, detections)) + "\n")
            yield index, time, detections


def load_detections(path: str | Path) -> tuple[RecordingHeader, list[tuple[int, float, Detections]]]:
    """Reads a recording back.

    Raises:
        DetectionsFileError: the file is missing, a line is not JSON, the header is not a
            ``dokocam-detections/1`` one, or a frame's columns disagree (line named).
    """
    try:
        with Path(path).open() as f:
            return _read(f, str(path))
    except OSError as exc:
        raise DetectionsFileError(f"{path}: cannot read the detections ({exc.strerror})") from exc


def _read(f: IO[str], name: str) -> tuple[RecordingHeader, list[tuple[int, float, Detections]]]:
    header: RecordingHeader | None = None
    frames: list[tuple[int, float, Detections]] = []
    for number, text in enumerate(f, start=1):
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DetectionsFileError(f"{name}:{number}: not JSON ({exc.msg})") from None
        if header is None:
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise DetectionsFileError(f"{name}:{number}: the first line must be a {FORMAT!r} header")
            try:
                header = RecordingHeader(
                    width=int(data["width"]),
                    height=int(data["height"]),
                    target=str(data.get("target", "cards")),
                    frames=None if data.get("frames") is None else int(data["frames"]),
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise DetectionsFileError(f"{name}:{number}: header lacks width/height ({exc!r})") from None
            continue
        try:
            extra = {"corners": np.asarray(data["corners"], np.int64)} if "corners" in data else {}
            detections = Detections(
                xyxy=np.asarray(data["xyxy"], np.float32).reshape(-1, 4),
                confidence=data["confidence"],
                class_id=data["class_id"],
                data=extra,
            )
            frames.append((int(data["frame"]), float(data["time"]), detections))
        except (KeyError, TypeError, ValueError) as exc:
            raise DetectionsFileError(f"{name}:{number}: not a frame of detections ({exc})") from None
    if header is None:
        raise DetectionsFileError(f"{name}: empty, no {FORMAT!r} header")
    return header, frames
