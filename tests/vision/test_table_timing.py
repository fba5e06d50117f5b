"""Recorded detection sequences of whole tricks through the tracker and the live decoder: the tricks
must not depend on the frame rate, and a card the camera never saw costs only its own trick."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from dokocam.vision.detections import Detections
from dokocam.vision.sources import stride_for
from dokocam.vision.table.pipeline import TablePipeline, analyze_stream, every_nth

W, H = 1280, 720
CENTER = (640.0, 360.0)


def spot(seat: int, r: float = 90.0) -> tuple[float, float]:
    a = math.radians(90.0 + 90 * seat)  # seat 0 at the bottom, as the default geometry assumes
    return (CENTER[0] + r * math.cos(a), CENTER[1] + r * math.sin(a))


@dataclass(frozen=True)
class Lay:
    """A card pushed in from its seat's edge over 0.5 s at ``start``, lying until ``end``."""

    card: int
    seat: int
    start: float
    end: float

    def center(self, t: float) -> tuple[float, float] | None:
        if not self.start <= t < self.end:
            return None
        a = min(1.0, (t - self.start) / 0.5)
        (x0, y0), (x1, y1) = spot(self.seat, 330.0), spot(self.seat)
        return (x0 + a * (x1 - x0), y0 + a * (y1 - y0))


def card(code: str) -> int:
    from dokocam.engine import Card

    return Card.parse(code).index


def tricks_of(
    plays: list[list[tuple[int, str]]],
    *,
    lead_at: float = 1.0,
    step: float = 2.0,
    missing: frozenset[str] = frozenset(),
) -> list[Lay]:
    """Every trick's cards laid ``step`` seconds apart; the trick swept 2 s after its last card,
    the next led 2.5 s after that; codes in ``missing`` are never seen."""
    lays, t = [], lead_at
    for trick in plays:
        end = t + step * (len(trick) - 1) + 2.0
        lays += [
            Lay(card(code), seat, t + step * k, end) for k, (seat, code) in enumerate(trick) if code not in missing
        ]
        t = end + 2.5
    return lays


def frames_at(lays: list[Lay], fps: float) -> list[tuple[int, float, Detections]]:
    last = max(lay.end for lay in lays) + 3.0
    out = []
    for i in range(int(last * fps) + 1):
        t = i / fps
        seen = [(lay.card, c) for lay in lays if (c := lay.center(t)) is not None]
        det = (
            Detections(
                xyxy=np.array([[x - 35, y - 50, x + 35, y + 50] for _, (x, y) in seen]),
                confidence=np.full(len(seen), 0.9),
                class_id=[k for k, _ in seen],
            )
            if seen
            else Detections.empty()
        )
        out.append((i, round(t, 6), det))
    return out


def followed(frames: list[tuple[int, float, Detections]]) -> tuple[list[list[tuple[int, str]]], list[dict]]:
    pipeline = TablePipeline.for_video(W, H)
    analysis = analyze_stream(frames, pipeline)
    tricks = [[(s, str(c)) for s, c in t.plays] for t in pipeline.game.tricks]
    return tricks, [e.to_dict() for e in analysis.events]


GAME = [
    [(0, "AC"), (1, "9C"), (2, "KC"), (3, "10C")],
    [(0, "AS"), (1, "9S"), (2, "KS"), (3, "10S")],
    [(0, "AH"), (1, "9H"), (2, "KH"), (3, "KH")],  # each trick won by its lead: seat 0 leads every one
    [(0, "AD"), (1, "9D"), (2, "KD"), (3, "10D")],
]


@pytest.mark.parametrize("fps", [4.0, 30.0])
def test_a_trick_cleared_with_a_card_never_seen_costs_only_that_trick(fps):
    tricks, events = followed(frames_at(tricks_of(GAME, missing=frozenset({"9S"})), fps))
    assert tricks[0] == GAME[0] and tricks[2:] == GAME[2:]
    # Nobody saw seat 1's card: the trick is still whole (the deck fills it) and the table is asked.
    assert [(s, c) for s, c in tricks[1] if s != 1] == [(0, "AS"), (2, "KS"), (3, "10S")]
    asks = [e for e in events if e["type"] == "needs_confirmation"]
    assert [(e["reason"], e["trick"], e["seat"]) for e in asks] == [("uncertain_card", 1, 1)]
    assert tricks[1][1][1] in {c for c, _ in asks[0]["candidates"]}


def test_four_and_thirty_frames_a_second_give_the_same_tricks():
    lays = tricks_of(GAME)
    at4, _ = followed(frames_at(lays, 4.0))
    at30, _ = followed(frames_at(lays, 30.0))
    thinned, _ = followed(every_nth(frames_at(lays, 30.0), None))
    assert at4 == at30 == thinned == GAME


def test_the_default_stride_analyses_about_eight_frames_a_second():
    assert [stride_for(fps) for fps in (4.0, 10.0, 25.0, 30.0, 60.0)] == [1, 1, 3, 3, 7]
    frames = frames_at(tricks_of(GAME[:1]), 30.0)
    assert [i for i, _, _ in every_nth(frames, None)][:4] == [0, 3, 6, 9]
