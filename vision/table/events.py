"""What the table pipeline reports: small dataclasses with ``to_dict()`` (one JSON line each).

Every event carries the video ``frame`` index and ``time`` (seconds) at which it was decided.
Seats are engine seats 0-3 (clockwise, seat 0 is Vorhand); tricks are 0-based like ``Game.trick_number``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class TableEvent:
    """Base of all events; ``type`` names the kind in ``to_dict()``."""

    frame: int
    time: float

    type = "event"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["time"] = round(self.time, 3)
        return {"type": self.type, **data}


@dataclass(frozen=True)
class CardPlayed(TableEvent):
    """A card came to rest in the trick area and was fed to the engine.

    Attributes:
        seat: the seat the card was credited to.
        card: the card code (``"QC"``).
        confidence: how sure the tracker is of the card's identity, 0..1 (vote share x mean score).
        trick: the 0-based trick the card went into.
        position: the card's centre in image pixels.
        seat_by_position: the seat its place on the table points to (``None`` before calibration).
        seat_by_turn: the seat the engine expected to play next.
        seat_conflict: position and turn order disagree (the engine then raises ``out_of_turn``
            when the position was believed).
    """

    seat: int
    card: str
    confidence: float
    trick: int
    position: tuple[float, float] = (0.0, 0.0)
    seat_by_position: int | None = None
    seat_by_turn: int | None = None
    seat_conflict: bool = False

    type = "card_played"


@dataclass(frozen=True)
class CardSeen(TableEvent):
    """A card at rest in the trick in play, its seat known, while a seat before it is still unread (a
    card slid under another, a hand over it): shown at once. Its ``CardPlayed`` follows in turn order
    once the seats before it are decided, with the card then read (a later reading may differ).

    Attributes:
        seat: the seat it was played from; ``trick``: the 0-based trick in play.
        card: the card code; ``confidence``: as :class:`CardPlayed`'s.
        position: the card's centre in image pixels.
    """

    seat: int
    card: str
    confidence: float
    trick: int
    position: tuple[float, float] = (0.0, 0.0)

    type = "card_seen"


@dataclass(frozen=True)
class TrickComplete(TableEvent):
    """The fourth card of a trick was played; ``winner`` is the engine's verdict."""

    trick: int
    winner: int | None
    cards: tuple[str, ...] = ()
    augen: int = 0

    type = "trick_complete"


@dataclass(frozen=True)
class TrickCleared(TableEvent):
    """Every card of ``trick`` has left the table (collected by the winner)."""

    trick: int

    type = "trick_cleared"


@dataclass(frozen=True)
class CardRevised(TableEvent):
    """A play shown earlier is now read otherwise: later evidence made another game more probable.

    Attributes:
        trick: the 0-based trick of the play.
        play: the play's place in the game (0-based, turn order: trick x 4 + its turn).
        seat: the seat it was shown for; ``new_seat`` the seat it is now (the same unless the
            trick's order changed).
        old, new: the card codes before and after.
        reason: ``"copies"`` (the old card is now seen twice elsewhere) or ``"evidence"``.
        message: what changed, German first.
    """

    trick: int
    play: int
    seat: int
    old: str
    new: str
    new_seat: int
    reason: str = "evidence"
    message: str = ""

    type = "card_revised"


@dataclass(frozen=True)
class NeedsConfirmation(TableEvent):
    """Something a person should confirm: an uncertain card, a trick cleared with cards missing,
    or a card taken back.

    Attributes:
        reason: ``"uncertain_card"``, ``"incomplete_trick"`` (cleared with cards missing; ``seat``
            names the missing seat when one is missing), ``"card_withdrawn"`` (a card played as a
            lead that left with the trick before it: it was taken back out of the game) or
            ``"card_replaced"`` (that withdrawn card took the place of a card of the trick before
            that had left the table early, a misreading; the game was replayed with it and a new
            ``trick_complete`` for that trick follows) or ``"seats_changed"`` (a complete trick's
            cards were seated anew from where they lie; the ``trick_complete`` that follows has
            the trick as replayed).
        trick, seat, card: what it is about (the best guess for an uncertain card).
        candidates: ``(card, score)`` pairs, best first, for an uncertain card.
    """

    reason: str
    trick: int
    seat: int | None = None
    card: str | None = None
    candidates: tuple[tuple[str, float], ...] = ()
    message: str = ""

    type = "needs_confirmation"


@dataclass(frozen=True)
class FlagRaised(TableEvent):
    """A finding of the engine (``renege``, ``third_copy``, ``out_of_turn``, ``incomplete_trick``)."""

    kind: str
    trick: int | None
    seat: int | None
    card: str | None
    message: str

    type = "flag"


@dataclass(frozen=True)
class Calibrated(TableEvent):
    """The table geometry changed: ``method`` is ``"auto"`` or ``"manual"``; ``geometry`` its dict."""

    method: str
    geometry: dict[str, Any] = field(default_factory=dict)

    type = "calibrated"


@dataclass(frozen=True)
class GameOver(TableEvent):
    """The twelfth trick is complete; ``result`` is the engine's ``GameResult.to_dict()``."""

    result: dict[str, Any] = field(default_factory=dict)

    type = "game_over"
