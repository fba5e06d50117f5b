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
with fewer than four cards, ``Game.close_trick``) or ``{"seat": S, "announce": "schweinchen"}``
(``Game.announce_schweinchen``).

>>> record = load_record({"format": "dokocam-game/1", "players": ["A", "B", "C", "D"],
...     "rules": {"preset": "tournament"}, "contract": {"type": "normal"},
...     "events": [{"seat": 0, "play": "AC"}, {"seat": 1, "call": "re"}]})
>>> record.to_game().history
[PlayEvent(seat=0, card=Card(Rank.ACE, Suit.CLUBS)), CallEvent(seat=1, call=<Call.RE: 're'>)]
>>> load_record({"format": "dokocam-game/1", "players": ["A", "B", "C", "D"],
...     "contract": {"type": "normal"}, "events": [{"seat": 0, "play": "XX"}]})
Traceback (most recent call last):
...
dokocam.engine.errors.RecordError: event 0: 'XX' is not a card code; expected rank 9 10 J Q K A + suit C S H D, e.g. QC or 10H
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
from dokocam.engine.game import Call, CallEvent, CloseTrickEvent, Event, Game, PlayEvent, SchweinchenEvent
from dokocam.engine.rules import Rules

__all__ = ["FORMAT", "GameRecord", "load_record", "save_record"]

FORMAT = "dokocam-game/1"
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
            raise RecordError(f"record: {exc}") from None
        for i, event in enumerate(self.events):
            try:
                if type(event) is PlayEvent:
                    game.play(event.seat, event.card)
                elif type(event) is CallEvent:
                    game.call(event.seat, event.call)
                elif type(event) is SchweinchenEvent:
                    game.announce_schweinchen(event.seat)
                else:
                    game.close_trick()
            except EngineError as exc:
                raise RecordError(f"event {i}: {exc}") from None
        return game

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "players": list(self.players),
            "rules": self.rules.to_dict(),
            "contract": self.contract.to_dict(),
            "events": [event.to_dict() for event in self.events],
        }
        if self.hands is not None:
            out["hands"] = [[str(c) for c in hand] for hand in self.hands]
        if self.bock:
            out["bock"] = self.bock
        out.update(self.extra)
        return out

    @classmethod
    def from_game(cls, game: Game, **extra: Any) -> GameRecord:
        hands = None
        if game.hands is not None:
            hands = [sorted(h.elements(), key=lambda c: c.index) for h in game.hands]
        return cls(game.players, game.rules, game.contract, list(game.history), hands, game.bock, dict(extra))  # type: ignore[arg-type]


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
            raise RecordError(f"cannot read {source}: {exc.strerror or exc}") from None
        except json.JSONDecodeError as exc:
            raise RecordError(f"{source} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, Mapping):
        raise RecordError("a game record must be a JSON object")
    if data.get("format") != FORMAT:
        raise RecordError(f"format must be {FORMAT!r}, not {data.get('format')!r}")
    players = data.get("players")
    if not isinstance(players, list) or len(players) != 4 or not all(isinstance(p, str) for p in players):
        raise RecordError(f"players must be a list of 4 names, not {players!r}")
    try:
        rules = Rules.from_dict(data.get("rules") or {"preset": "tournament"})
    except EngineError as exc:
        raise RecordError(f"rules: {exc}") from None
    try:
        contract = Contract.from_dict(data.get("contract") or {"type": "normal"})
    except EngineError as exc:
        raise RecordError(f"contract: {exc}") from None
    raw_events = data.get("events")
    if not isinstance(raw_events, list):
        raise RecordError("events must be a list")
    events = [_parse_event(i, raw) for i, raw in enumerate(raw_events)]
    hands = None
    if data.get("hands") is not None:
        raw_hands = data["hands"]
        if not isinstance(raw_hands, list) or len(raw_hands) != 4 or not all(isinstance(h, list) for h in raw_hands):
            raise RecordError("hands must be 4 lists of card codes")
        try:
            hands = [[Card.parse(c) for c in hand] for hand in raw_hands]
        except EngineError as exc:
            raise RecordError(f"hands: {exc}") from None
    bock = data.get("bock", 0)
    if isinstance(bock, bool) or not isinstance(bock, int) or bock < 0:
        raise RecordError(f"bock must be a whole number >= 0, not {bock!r}")
    extra = {k: v for k, v in data.items() if k not in _KNOWN_KEYS}
    return GameRecord(tuple(players), rules, contract, events, hands, bock, extra)  # type: ignore[arg-type]


def _parse_event(i: int, raw: Any) -> Event:
    if not isinstance(raw, Mapping):
        raise RecordError(f"event {i}: must be an object like {{'seat': 0, 'play': 'AC'}}, not {raw!r}")
    if raw.get("close_trick") is True and "play" not in raw and "call" not in raw:
        return CloseTrickEvent()
    seat = raw.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
        raise RecordError(f"event {i}: seat must be 0..3, not {seat!r}")
    if raw.get("announce") == "schweinchen" and "play" not in raw and "call" not in raw:
        return SchweinchenEvent(seat)
    if "play" in raw and "call" not in raw:
        try:
            return PlayEvent(seat, Card.parse(raw["play"]))
        except EngineError as exc:
            raise RecordError(f"event {i}: {exc}") from None
    if "call" in raw and "play" not in raw:
        try:
            return CallEvent(seat, Call(raw["call"]))
        except ValueError:
            raise RecordError(
                f"event {i}: {raw['call']!r} is not a call; expected one of {', '.join(c.value for c in Call)}"
            ) from None
    raise RecordError(f"event {i}: needs exactly one of 'play' or 'call'")


def save_record(record: GameRecord, path: str | os.PathLike[str]) -> None:
    """Write ``record`` as indented JSON."""
    Path(path).write_text(json.dumps(record.to_dict(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
