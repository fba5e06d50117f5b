"""The ``dokocam-game/1`` game record: JSON in, ``Game`` out, and back.

A record is::

    {"format": "dokocam-game/1",
     "players": ["Anna", "Ben", "Cem", "Dora"],
     "rules": {"preset": "tournament"},
     "contract": {"type": "normal"},
     "events": [{"seat": 0, "play": "AC"}, {"seat": 1, "call": "re"}, {"seat": 1, "play": "QS"}]}

Seats 0-3 go clockwise; seat 0 is Vorhand and leads the first trick. Optional keys: ``hands``
(four lists of card codes, the hands the trick play starts from, after any Armut exchange) and
``bock`` (Bocks on the game, default 0). Other extra keys (e.g. ``expected``) are kept but ignored.
Besides plays and calls an event may be ``{"close_trick": true}`` (the camera saw a trick taken
with fewer than four cards, ``Game.close_trick``), ``{"seat": S, "announce": "schweinchen"}``
(``Game.announce_schweinchen``) or ``{"seat": S, "claim": "rest"}`` (a Spielabkürzung, DDV 5.4:
the seat's party takes every remaining trick, ``Game.claim``).

A solo's contract may say ``"pflichtsolo": true`` (``{"type": "solo", "kind": "queens",
"declarer": 2, "pflichtsolo": true}``): the soloist leads the first trick (DDV 4.2). Without
the key a solo is a Lustsolo, led by seat 0, as every record written before the key was. The
score sheet is the source of truth for it and writes it into each game it deals
(``Partie.new_game``).

>>> record = load_record({"format": "dokocam-game/1", "players": ["A", "B", "C", "D"],
...     "rules": {"preset": "tournament"}, "contract": {"type": "normal"},
...     "events": [{"seat": 0, "play": "AC"}, {"seat": 1, "call": "re"}]})
>>> record.to_game().history
[PlayEvent(seat=0, card=Card(Rank.ACE, Suit.CLUBS)), CallEvent(seat=1, call=<Call.RE: 're'>)]
>>> load_record({"format": "dokocam-game/1", "players": ["A", "B", "C", "D"],
...     "contract": {"type": "normal"}, "events": [{"seat": 0, "play": "XX"}]})
Traceback (most recent call last):
...
dokocam.engine.errors.RecordError: event 0: 'XX' is not a card code; ...
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dokocam.engine.cards import Card
from dokocam.engine.contract import Contract
from dokocam.engine.errors import EngineError, RecordError
from dokocam.engine.game import Game
from dokocam.engine.messages import Message
from dokocam.engine.rules import Rules
from dokocam.engine.types import (
    RECORD_FORMAT,
    Call,
    CallEvent,
    ClaimEvent,
    CloseTrickEvent,
    Event,
    PlayEvent,
    SchweinchenEvent,
    record_object,
)

__all__ = ["FORMAT", "GameRecord", "load_record", "save_record"]

FORMAT = RECORD_FORMAT
_KNOWN_KEYS = {"format", "players", "rules", "contract", "events", "hands", "bock"}


@dataclass
class GameRecord:
    """A parsed game record."""

    players: tuple[str, str, str, str]
    rules: Rules
    contract: Contract
    events: list[Event]
    hands: list[list[Card]] | None = None
    bock: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_game(self, *, strict: bool = False) -> Game:
        """Replay the events into a ``Game``.

        Raises:
            RecordError: an event breaks a rule (e.g. a call too late); the message names it.
        """
        try:
            game = Game(self.rules, self.contract, self.players, self.hands, strict=strict, bock=self.bock)
        except EngineError as exc:
            raise RecordError(Message("record.setup", why=exc.message)) from None
        for i, event in enumerate(self.events):
            try:
                game.apply(event)
            except EngineError as exc:
                raise RecordError(Message("record.event", i=i, why=exc.message)) from None
        return game

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON object (``load_record`` reads it back)."""
        out: dict[str, Any] = record_object(
            self.players, self.rules.to_dict(), self.contract.to_dict(), self.events, self.hands, self.bock
        )
        out.update(self.extra)
        return out

    @classmethod
    def from_game(cls, game: Game, **extra: Any) -> GameRecord:
        """The record of ``game`` so far; ``extra`` keys are kept beside the standard ones."""
        hands = None
        if game.hands is not None:
            hands = [sorted(h.elements(), key=lambda c: c.index) for h in game.hands]
        a, b, c, d = game.players
        return cls((a, b, c, d), game.rules, game.contract, list(game.history), hands, game.bock, dict(extra))


def load_record(source: str | os.PathLike[str] | Mapping[str, Any]) -> GameRecord:
    """Read a record from a path or an already parsed JSON object.

    Raises:
        RecordError: unreadable JSON, a wrong format, or a broken event (the message names the
            event index and the reason).
    """
    if isinstance(source, Mapping):
        data: Any = source
    else:
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except OSError as exc:
            raise RecordError(Message("record.unreadable", path=str(source), why=exc.strerror or exc)) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            if isinstance(exc, UnicodeDecodeError):
                raise RecordError(Message("record.unreadable", path=str(source), why=exc.reason)) from None
            raise RecordError(
                Message("record.not_json", path=str(source), why=exc.msg, line=exc.lineno, column=exc.colno)
            ) from None
    if not isinstance(data, Mapping):
        raise RecordError(Message("record.not_object"))
    if data.get("format") != FORMAT:
        raise RecordError(Message("record.format", expected=FORMAT, given=data.get("format")))
    players = data.get("players")
    if not isinstance(players, list) or len(players) != 4 or not all(isinstance(p, str) for p in players):
        raise RecordError(Message("record.players", given=players))
    raw_rules = data.get("rules")
    try:
        rules = Rules.from_dict({"preset": "tournament"} if raw_rules is None else raw_rules)
    except EngineError as exc:
        raise RecordError(Message("record.field", field="rules", why=exc.message)) from None
    raw_contract = data.get("contract")
    try:
        contract = Contract.from_dict({"type": "normal"} if raw_contract is None else raw_contract)
    except EngineError as exc:
        raise RecordError(Message("record.field", field="contract", why=exc.message)) from None
    raw_events = data.get("events")
    if not isinstance(raw_events, list):
        raise RecordError(Message("record.events"))
    events = [_parse_event(i, raw) for i, raw in enumerate(raw_events)]
    hands = None
    if data.get("hands") is not None:
        raw_hands = data["hands"]
        if not isinstance(raw_hands, list) or len(raw_hands) != 4 or not all(isinstance(h, list) for h in raw_hands):
            raise RecordError(Message("record.hands"))
        try:
            hands = [[Card.parse(c) for c in hand] for hand in raw_hands]
        except EngineError as exc:
            raise RecordError(Message("record.field", field="hands", why=exc.message)) from None
    bock = data.get("bock", 0)
    if isinstance(bock, bool) or not isinstance(bock, int) or bock < 0:
        raise RecordError(Message("record.bock", given=bock))
    extra = {k: v for k, v in data.items() if k not in _KNOWN_KEYS}
    a, b, c, d = players
    return GameRecord((a, b, c, d), rules, contract, events, hands, bock, extra)


def _parse_event(i: int, raw: Any) -> Event:
    def error(why: Message | str) -> RecordError:
        return RecordError(Message("record.event", i=i, why=why))

    if not isinstance(raw, Mapping):
        raise error(Message("record.event_object", given=raw))
    kinds = [key for key in ("play", "call", "announce", "claim") if key in raw]
    if raw.get("close_trick") is True and not kinds:
        return CloseTrickEvent()
    seat = raw.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
        raise error(Message("record.event_seat", given=seat))
    if kinds == ["announce"] and raw["announce"] == "schweinchen":
        return SchweinchenEvent(seat)
    if kinds == ["claim"] and raw["claim"] == "rest":
        return ClaimEvent(seat)
    if kinds == ["play"]:
        try:
            return PlayEvent(seat, Card.parse(raw["play"]))
        except EngineError as exc:
            raise error(exc.message) from None
    if kinds == ["call"]:
        try:
            return CallEvent(seat, Call(raw["call"]))
        except ValueError:
            known = ", ".join(c.value for c in Call)
            raise error(Message("not_a_call", given=raw["call"], known=known)) from None
    raise error(Message("record.event_kind"))


def save_record(record: GameRecord, path: str | os.PathLike[str]) -> None:
    """Write ``record`` as indented JSON."""
    Path(path).write_text(json.dumps(record.to_dict(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
