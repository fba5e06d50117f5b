"""The table's state, rebuilt by replaying the event log into the engine.

Seats here are *table seats*: the four places around the table the camera sees, 0..3 clockwise.
Table seat ``i`` is the ``i``-th player of the Partie's seating order who plays this game: with
four players ``players[i]`` sits at table seat ``i``; with five the player sitting out (the
dealer) has no seat and everyone after them in the seating order counts one seat lower
(``table_players``). The engine's ``Game`` counts seats from Vorhand (game seat 0, left of the
dealer), so the two are converted per deal (``GameState.game_seat``).

Replaying: an ``undo`` removes the one event it names (its ``target``); a correction or
confirmation is applied to the card or call it names; then the remaining events are played
into a fresh ``Partie`` and ``Game`` in order. An event that no longer fits after a correction
(a Re that is now too late) is kept in the log and reported as a note, not applied.

Who made an event matters: people take back what they entered (a call, a game type, a card
entered by hand, a correction, a confirmation, ending a game), the camera's cards are corrected,
never undone by a person, so an undo can never race a card the camera adds meanwhile. The camera
revises its own cards (``card_revised``: later cards made another reading more probable); a
person's correction of a card outranks every revision of it.
"""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dokocam.engine import Call, CallEvent, Card, Contract, Game, PlayEvent, Rules
from dokocam.engine.messages import Message
from dokocam.engine.sheet import Partie, SheetEntry
from dokocam.service.store import StoredEvent
from dokocam.service.texts import Text, TextError

# Event kinds in the log.
RULES_SET = "rules_set"
PARTIE_STARTED = "partie_started"
CONTRACT_SET = "contract_set"
CARD_OBSERVED = "card_observed"
CARD_DOUBTED = "card_doubted"
CARD_CONFIRMED = "card_confirmed"
CARD_CORRECTED = "card_corrected"
CARD_REVISED = "card_revised"  # the camera reads a card it reported otherwise now (later cards told it)
CAMERA_EVIDENCE = "camera_evidence"  # what the camera's decoder decodes from (``entry``); changes no state
CALL_MADE = "call_made"
CALL_CORRECTED = "call_corrected"
REST_CLAIMED = "rest_claimed"
GAME_ENDED_EARLY = "game_ended_early"
PIPELINE_FLAG = "pipeline_flag"
UNDO = "undo"
DECK_SET = "deck_set"  # the enrolled deck the camera reads with from now on (``name``: null is the shipped detector)
DECK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")  # vision.decks.store's rule for a deck folder's name

# What ``undo`` may take back; starting a Partie and the rules are not table actions.
UNDOABLE = frozenset(
    {
        CONTRACT_SET,
        CARD_OBSERVED,
        CARD_DOUBTED,
        CARD_CONFIRMED,
        CARD_CORRECTED,
        CALL_MADE,
        CALL_CORRECTED,
        REST_CLAIMED,
        GAME_ENDED_EARLY,
        PIPELINE_FLAG,
    }
)
# What a person does at the table; each can be taken back by itself.
PERSON_KINDS = frozenset(
    {
        CONTRACT_SET,
        CARD_OBSERVED,
        CARD_CONFIRMED,
        CARD_CORRECTED,
        CALL_MADE,
        CALL_CORRECTED,
        REST_CLAIMED,
        GAME_ENDED_EARLY,
    }
)
# Events that change earlier ones: the state is rebuilt from the whole log after them.
REBUILDS = frozenset({UNDO, CARD_CORRECTED, CARD_CONFIRMED, CALL_CORRECTED, CARD_REVISED})


def from_camera(event: StoredEvent) -> bool:
    """True for what the pipeline reported (cards, doubts, flags, its own withdrawals)."""
    return event.payload.get("source") == "camera" or event.kind in (CARD_DOUBTED, PIPELINE_FLAG)


def by_person(event: StoredEvent) -> bool:
    """True for what a person entered: the events ``undo`` takes back on a person's request."""
    return event.kind in PERSON_KINDS and not from_camera(event)


_SEAT = re.compile(r"\bseat ([0-3])\b")


class TableError(TextError):
    """An action that does not fit the table as it is (HTTP 409); the message says what would."""


@dataclass
class PlayRef:
    """One card in the current game, as observed and as corrected.

    Attributes:
        event_id: the ``card_observed`` event, the handle for confirming or correcting it.
        seat: table seat that played it (after corrections).
        card: the card (after corrections).
        confidence: the detector's score, 1.0 for a card a person entered.
        uncertain: the pipeline asked for a person's look and nobody confirmed it yet.
        corrected: a person changed the card or the seat.
        revised: the camera reads it otherwise now than when it reported it (and no person corrected it).
        manual: a person entered it (the camera did not see it).
        source_time: seconds into the source when the camera saw it; None for a card entered by hand.
    """

    event_id: int
    seat: int
    card: Card
    confidence: float
    uncertain: bool
    corrected: bool
    manual: bool = False
    source_time: float | None = None
    revised: bool = False


def table_players(seating: Sequence[str], playing: Iterable[str]) -> tuple[str, ...]:
    """The players at table seats 0..3: those who play this game, in seating order.

    The chair of whoever sits out is skipped, so the four who play always fill seats 0..3.

    >>> table_players(["Anna", "Ben", "Cem", "Dora", "Emil"], ["Cem", "Dora", "Emil", "Anna"])
    ('Anna', 'Cem', 'Dora', 'Emil')
    """
    playing = set(playing)
    return tuple(p for p in seating if p in playing)


@dataclass
class GameState:
    """The game being played (or the next one, before its first card)."""

    number: int
    deal_seats: tuple[str, ...]  # names in game seat order (seat 0 = Vorhand)
    dealer: str
    bocks: int
    forced_solo: str | None
    table_players: tuple[str, ...]  # names at table seats 0..3 (see ``table_players``)
    rules: Rules
    sitting_out: str | None = None  # the dealer, when five are at the table
    contract: Contract = field(default_factory=Contract.normal)
    game: Game = field(init=False)
    plays: list[PlayRef] = field(default_factory=list)
    calls: list[tuple[int, Call, int]] = field(default_factory=list)  # (table seat, call, event id)
    # Set while a finished game cannot go on the sheet yet (e.g. an owed Pflichtsolo not declared).
    blocked: str | None = None
    blocked_en: str | None = None
    claim_event_id: int | None = None  # the Spielabkürzung that ended the game, if one did
    first_event_id: int | None = None  # the event after which this game began (a Partie start, the last card)
    deck: str | None = None  # the enrolled deck the camera read this game with (None: the shipped detector)

    def __post_init__(self) -> None:
        self.game = Game(rules=self.rules, contract=self.contract, players=self.deal_seats)

    def game_seat(self, table_seat: int) -> int:
        return self.deal_seats.index(self.table_players[table_seat])

    def table_seat(self, game_seat: int) -> int:
        return self.table_players.index(self.deal_seats[game_seat])

    def name_seats(self, message: str) -> str:
        """An engine message with its game seats ("seat 2") as the players' names.

        >>> names = ("Anna", "Ben", "Cem", "Dora")
        >>> state = GameState(1, ("Ben", "Cem", "Dora", "Anna"), "Anna", 0, None, names, Rules())
        >>> state.name_seats("seat 1 played 10C in trick 4 but seat 0 was to move")
        'Cem played 10C in trick 4 but Ben was to move'
        """
        return _SEAT.sub(lambda m: self.deal_seats[int(m.group(1))], message)

    def set_contract(self, contract: Contract) -> None:
        """Replays the game's history under another contract (the game type was told late)."""
        self.game = Game.replay(self.rules, contract, self.deal_seats, self.game.history)
        self.contract = contract


@dataclass
class FinishedGame:
    """A game that is on the sheet (scored or ended early)."""

    state: GameState
    entry: SheetEntry
    ended_early: bool


@dataclass
class PastPartie:
    """A Partie a later one replaced: kept so its sheet, games and records stay readable."""

    number: int
    partie: Partie
    config: dict[str, Any]
    finished: list[FinishedGame]
    unfinished: GameState | None  # the game that was running when the next Partie started


@dataclass
class TableState:
    """Everything the dashboard shows, as the log says it is."""

    rules: Rules = field(default_factory=Rules.tournament)
    partie: Partie | None = None
    partie_config: dict[str, Any] = field(default_factory=dict)
    current: GameState | None = None
    finished: list[FinishedGame] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    pipeline_flags: list[dict[str, Any]] = field(default_factory=list)
    last_event_id: int = 0
    applied_at: float = 0.0
    source_seq: int = 0  # the last feed event in the log (its ordinal), to resume a file source
    source_time: float = 0.0  # the latest source time of a feed event in the log
    past: list[PastPartie] = field(default_factory=list)  # earlier Parties, oldest first
    deck: str | None = None  # the enrolled deck the camera reads with (None: the shipped detector)

    @property
    def partie_number(self) -> int:
        """1-based number of the Partie in force (0 before the first)."""
        return len(self.past) + (1 if self.partie is not None else 0)

    @property
    def players(self) -> tuple[str, ...]:
        """Everyone in the Partie, in seating order (4 or 5; table seats are per game)."""
        return self.partie.players if self.partie else ()

    def games(self) -> list[GameState]:
        """The Partie's games so far: the finished ones, then the current one."""
        games = [f.state for f in self.finished]
        if self.current is not None:
            games.append(self.current)
        return games


class Replayer:
    """Turns log events into state; the only place where log payloads meet the engine.

    ``apply`` is used both to replay the whole log and to extend the state by one new event.
    Card corrections and confirmations are looked up in ``overrides``/``confirmed``, which
    ``rebuild`` fills from the whole log before playing it.
    """

    def __init__(self) -> None:
        self.state = TableState()
        self.overrides: dict[int, dict[str, Any]] = {}
        self.call_overrides: dict[int, dict[str, Any]] = {}
        self.confirmed: set[int] = set()
        self.doubted: dict[int, dict[str, Any]] = {}
        self.revisions: dict[int, dict[str, Any]] = {}  # the camera's latest reading of its cards, by event

    # -- replay --------------------------------------------------------------------------

    @classmethod
    def rebuild(cls, events: Iterable[StoredEvent]) -> Replayer:
        events = list(events)
        effective = in_force(events)
        replayer = cls()
        for event in effective:
            if event.kind == CARD_CORRECTED:
                target = int(event.payload["target"])
                merged = replayer.overrides.setdefault(target, {})
                merged.update({k: event.payload[k] for k in ("card", "seat") if event.payload.get(k) is not None})
            elif event.kind == CALL_CORRECTED:
                target = int(event.payload["target"])
                merged = replayer.call_overrides.setdefault(target, {})
                merged.update({k: event.payload[k] for k in ("call", "seat") if event.payload.get(k) is not None})
            elif event.kind == CARD_REVISED:
                target = int(event.payload["target"])
                replayer.revisions.setdefault(target, {}).update(
                    {k: event.payload[k] for k in ("card", "seat") if event.payload.get(k) is not None}
                )
            elif event.kind == CARD_CONFIRMED:
                replayer.confirmed.add(int(event.payload["target"]))
            elif event.kind == CARD_DOUBTED:
                replayer.doubted[int(event.payload["target"])] = dict(event.payload)
        for event in effective:
            replayer.apply(event)
        if events:
            replayer.state.last_event_id = events[-1].id
        # Undone camera events count too: the camera did see them, a resumed feed must not repeat them.
        replayer.state.source_seq = max((int(e.payload.get("source_seq", 0)) for e in events), default=0)
        replayer.state.source_time = max((float(e.payload.get("source_time", 0.0)) for e in events), default=0.0)
        return replayer

    def trial(self) -> Replayer:
        """A copy to try one more event on: the running game and the sheet copied, finished games shared.

        Applying an event changes only the current game, the Partie and the state's lists, so the
        finished games (most of a long Partie) need no copy.
        """
        trial = Replayer()
        trial.overrides, trial.call_overrides = dict(self.overrides), dict(self.call_overrides)
        trial.confirmed, trial.doubted = set(self.confirmed), dict(self.doubted)
        trial.revisions = dict(self.revisions)
        state = self.state
        trial.state = replace(
            state,
            partie=copy.deepcopy(state.partie),
            current=copy.deepcopy(state.current),
            finished=list(state.finished),
            notes=list(state.notes),
            pipeline_flags=list(state.pipeline_flags),
            past=list(state.past),
        )
        return trial

    def apply(self, event: StoredEvent) -> None:
        """Applies one event; an event that no longer fits becomes a note instead."""
        state = self.state
        state.last_event_id = event.id
        state.applied_at = time.time()
        state.source_seq = max(state.source_seq, int(event.payload.get("source_seq", 0)))
        state.source_time = max(state.source_time, float(event.payload.get("source_time", 0.0)))
        try:
            handler = _HANDLERS.get(event.kind)
            if handler is not None:
                handler(self, event)
        except ValueError as exc:
            de, en = explain(exc, self.state.current)
            self.state.notes.append({"event_id": event.id, "kind": event.kind, "message": de, "message_en": en})

    # -- handlers ------------------------------------------------------------------------

    def _rules_set(self, event: StoredEvent) -> None:
        self.state.rules = Rules.from_dict(event.payload["rules"])

    def _partie_started(self, event: StoredEvent) -> None:
        payload = event.payload
        rules = Rules.from_dict(payload["rules"])
        length = payload.get("length") or {}
        partie = Partie(payload["players"], rules, first_dealer=payload["first_dealer"], **length)
        old = self.state
        past = list(old.past)
        if old.partie is not None:
            past.append(PastPartie(len(past) + 1, old.partie, old.partie_config, old.finished, old.current))
        self.state = TableState(
            rules=rules,
            partie=partie,
            partie_config=dict(payload),
            last_event_id=event.id,
            past=past,
            notes=old.notes,
            pipeline_flags=old.pipeline_flags,
            source_seq=old.source_seq,
            source_time=old.source_time,
            deck=old.deck,
        )
        self._next_game()

    def _contract_set(self, event: StoredEvent) -> None:
        current = self.require_game()
        current.set_contract(contract_from_payload(event.payload["contract"], current))
        self._finish_if_over()

    def _card_observed(self, event: StoredEvent) -> None:
        payload = event.payload
        current = self.require_game()
        fix = self.overrides.get(event.id, {})
        revised = {} if fix else self.revisions.get(event.id, {})  # a person's word outranks the camera's
        seat = int(fix.get("seat", revised.get("seat", payload["seat"])))
        card = Card.parse(fix.get("card", revised.get("card", payload["card"])))
        current.game.play(current.game_seat(seat), card)
        current.plays.append(
            PlayRef(
                event_id=event.id,
                seat=seat,
                card=card,
                confidence=float(payload.get("confidence", 1.0)),
                uncertain=(bool(payload.get("uncertain")) or event.id in self.doubted)
                and event.id not in self.confirmed
                and not fix,
                corrected=bool(fix),
                manual=payload.get("source") == "manual",
                source_time=float(payload["source_time"]) if payload.get("source") == "camera" else None,
                revised=bool(revised),
            )
        )
        self._finish_if_over()

    def _card_doubted(self, event: StoredEvent) -> None:
        target = int(event.payload["target"])
        self.doubted[target] = dict(event.payload)
        for play in self._all_plays():
            if play.event_id == target:
                play.uncertain = target not in self.confirmed and target not in self.overrides

    def _card_revised(self, event: StoredEvent) -> None:
        """Shows the revision among the camera's notes, the players named (the card itself is replayed as revised)."""
        payload = event.payload
        target = int(payload["target"])
        if target in self.overrides:
            return  # a person corrected that card: the camera's later reading does not count
        game = next((g for g in self.state.games() if any(p.event_id == target for p in g.plays)), None)
        if game is None:
            return
        position = next(k for k, p in enumerate(game.plays) if p.event_id == target)
        seat = int(payload.get("seat", game.plays[position].seat))
        old, new = Card.parse(str(payload["old"])), Card.parse(str(payload["card"]))
        text = Text(
            "camera.card_revised",
            trick=position // 4 + 1,
            player=game.table_players[seat],
            card=new.german_name,
            old=old.german_name,
            code=str(new),
            old_code=str(old),
        )
        self.state.pipeline_flags.append(
            {
                "event_id": event.id,
                "kind": CARD_REVISED,
                "trick": position // 4,
                "target": target,
                "message": text.de,
                "message_en": text.en,
            }
        )

    def _call_made(self, event: StoredEvent) -> None:
        current = self.require_game()
        fix = self.call_overrides.get(event.id, {})
        seat = int(fix.get("seat", event.payload["seat"]))
        call = Call(fix.get("call", event.payload["call"]))
        current.game.call(current.game_seat(seat), call)
        current.calls.append((seat, call, event.id))

    def _rest_claimed(self, event: StoredEvent) -> None:
        current = self.require_game()
        current.game.claim(current.game_seat(int(event.payload["seat"])))
        current.claim_event_id = event.id
        self._finish_if_over()

    def _game_ended_early(self, event: StoredEvent) -> None:
        current = self.require_game()
        assert self.state.partie is not None
        entry = self.state.partie.abandon(event.payload.get("left"))
        self.state.finished.append(FinishedGame(current, entry, ended_early=True))
        self._next_game()

    def _pipeline_flag(self, event: StoredEvent) -> None:
        self.state.pipeline_flags.append({"event_id": event.id, **event.payload})

    # -- helpers -------------------------------------------------------------------------

    def _all_plays(self) -> Iterable[PlayRef]:
        for finished in self.state.finished:
            yield from finished.state.plays
        if self.state.current is not None:
            yield from self.state.current.plays

    def require_game(self) -> GameState:
        """The game being played.

        Raises:
            TableError: no Partie yet, or the Partie is over.
        """
        if self.state.partie is None:
            raise TableError(Text("no_partie"))
        if self.state.current is None:
            raise TableError(Text("partie_over"))
        return self.state.current

    def _next_game(self) -> None:
        partie = self.state.partie
        assert partie is not None
        deal = partie.deal
        if deal is None:
            self.state.current = None
            return
        self.state.current = GameState(
            number=deal.number,
            deal_seats=tuple(deal.seats),
            dealer=deal.dealer,
            bocks=deal.bocks,
            forced_solo=deal.forced_solo,
            table_players=table_players(partie.players, deal.seats),
            rules=self.state.rules,
            sitting_out=deal.sitting_out,
            first_event_id=self.state.last_event_id,
            deck=self.state.deck,
        )

    def _finish_if_over(self) -> None:
        current = self.state.current
        assert current is not None and self.state.partie is not None
        if not current.game.is_over:
            current.blocked = current.blocked_en = None
            return
        try:
            entry = self.state.partie.record_game(current.game)
        except ValueError as exc:
            # The game stays open until someone fixes what the sheet refuses (its message says what);
            # the event that ended it did happen, so it is applied, not a note.
            current.blocked, current.blocked_en = explain(exc, current)
            return
        current.blocked = current.blocked_en = None
        self.state.finished.append(FinishedGame(current, entry, ended_early=False))
        self._next_game()

    def _deck_set(self, event: StoredEvent) -> None:
        """The table reads with another deck; a game not yet begun is read with it too."""
        name = event.payload.get("name")
        self.state.deck = str(name) if name else None
        current = self.state.current
        if current is not None and not current.plays:
            current.deck = self.state.deck


_HANDLERS = {
    RULES_SET: Replayer._rules_set,
    PARTIE_STARTED: Replayer._partie_started,
    CONTRACT_SET: Replayer._contract_set,
    CARD_OBSERVED: Replayer._card_observed,
    CARD_DOUBTED: Replayer._card_doubted,
    CALL_MADE: Replayer._call_made,
    REST_CLAIMED: Replayer._rest_claimed,
    GAME_ENDED_EARLY: Replayer._game_ended_early,
    PIPELINE_FLAG: Replayer._pipeline_flag,
    CARD_REVISED: Replayer._card_revised,
    DECK_SET: Replayer._deck_set,
}


def in_force(events: Sequence[StoredEvent]) -> list[StoredEvent]:
    """The events no ``undo`` has taken back, in log order (undos themselves dropped).

    Each undo names its ``target``. An undo without one (none is written so) takes back the
    latest undoable event still in force; starting a Partie is a barrier for it.
    """
    undone: set[int] = set()
    stack: list[int] = []
    for event in events:
        if event.kind == PARTIE_STARTED:
            stack.clear()
        elif event.kind == UNDO:
            target = event.payload.get("target")
            if target is not None:
                undone.add(int(target))
                if int(target) in stack:
                    stack.remove(int(target))
            elif stack:
                undone.add(stack.pop())
        elif event.kind in UNDOABLE:
            stack.append(event.id)
    return [e for e in events if e.kind != UNDO and e.id not in undone]


def partie_events(events: Sequence[StoredEvent]) -> list[StoredEvent]:
    """The events in force since the latest Partie started (all of them before the first Partie)."""
    effective = in_force(events)
    start = max((i for i, e in enumerate(effective) if e.kind == PARTIE_STARTED), default=-1)
    return effective[start + 1 :]


def person_actions(events: Sequence[StoredEvent]) -> list[StoredEvent]:
    """What people entered in this Partie and still holds, newest first: what "Rückgängig" can take back."""
    return [e for e in reversed(partie_events(events)) if by_person(e)]


def last_undoable(events: Sequence[StoredEvent]) -> StoredEvent | None:
    """The person's action "Rückgängig" takes back now, or None: never a camera event."""
    actions = person_actions(events)
    return actions[0] if actions else None


def explain(error: ValueError, game: GameState | None) -> tuple[str, str]:
    """An error's German and English text, seats named by the players of ``game``.

    The engine's and the service's errors carry a message in both languages; a plain
    ``ValueError`` (the sheet's) has one text, shown in both places.
    """
    names = game.deal_seats if game is not None else None
    message = getattr(error, "message", None)
    if isinstance(error, TextError):
        return error.text.text("de", error.names or names), error.text.text("en", error.names or names)
    if isinstance(message, Message):
        return message.text("de", names), message.text("en", names)
    plain = game.name_seats(str(error)) if game is not None else str(error)
    return plain, plain


# A resumed file starts this long before the first card of the game it picks up again.
RESUME_LEAD = 1.0


def resume_point(state: TableState) -> tuple[float, GameState | None]:
    """Where a file source picks up after a restart: a time, and the game the pipeline follows from there.

    That is the start of the last game the camera saw a card of (its first camera card, less
    ``RESUME_LEAD``), so the pipeline sees that game's tricks again from their start; feed events
    up to ``state.source_time`` are in the log already and are skipped. After a finished game the
    pipeline moves on to the table's current one. Time 0 and no game when the camera saw no card yet.
    """
    for game in reversed(state.games()):
        seen = [p.source_time for p in game.plays if p.source_time is not None]
        if seen:
            return max(0.0, min(seen) - RESUME_LEAD), game
    return 0.0, None


def game_evidence(events: Sequence[StoredEvent], game: GameState) -> list[dict[str, Any]]:
    """The camera's evidence of ``game`` as logged (the ``entry`` of each ``camera_evidence`` after its start)."""
    start = game.first_event_id or 0
    return [dict(e.payload["entry"]) for e in events if e.kind == CAMERA_EVIDENCE and e.id > start]


def calls_of(game: Game) -> list[tuple[int, int, str]]:
    """The announcements of ``game`` as the decoder takes them: ``(cards played before, seat, call)``.

    >>> game = Game()
    >>> game.play(0, "AC"); game.call(2, "kontra")
    >>> calls_of(game)
    [(1, 2, 'kontra')]
    """
    out: list[tuple[int, int, str]] = []
    played = 0
    for event in game.history:
        if isinstance(event, PlayEvent):
            played += 1
        elif isinstance(event, CallEvent):
            out.append((played, event.seat, event.call.value))
    return out


def contract_from_payload(data: Mapping[str, Any], current: GameState) -> Contract:
    """A log contract (declarer/partner as table seats) as the engine's contract (game seats)."""
    record = dict(data)
    for key in ("declarer", "partner"):
        if record.get(key) is not None:
            record[key] = current.game_seat(int(record[key]))
    return Contract.from_dict(record)
