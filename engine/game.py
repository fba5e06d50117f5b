"""One game of Doppelkopf followed card by card: tricks, parties, announcements, flags.

The state is rebuilt from ``rules + contract + history``: ``undo`` pops the last event and
``Game.replay`` plays a history again. Camera input is noisy, so a play out of turn, a third copy
of a card or a renege becomes a ``Flag`` on the game rather than an exception (unless the game
is ``strict`` and knows the hands).

>>> game = Game()
>>> game.play(0, "AC"); game.play(1, "9C"); game.play(2, "KC"); game.play(3, "QC")
>>> game.tricks[0].winner(), game.to_move, game.parties()
(3, 3, (None, None, None, <Party.RE: 're'>))
>>> game.call(3, Call.NO90)
Traceback (most recent call last):
...
dokocam.engine.errors.IllegalCallError: seat 3 cannot say keine 90: the Re party has not announced Re yet
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from dokocam.engine.cards import ALL_CARDS, Card, Rank, Suit
from dokocam.engine.contract import SUIT_NAMES, CardOrder, Contract, ContractType
from dokocam.engine.errors import IllegalCallError, IllegalPlayError, RulesError
from dokocam.engine.rules import Rules
from dokocam.engine.trick import Trick

if TYPE_CHECKING:
    from dokocam.engine.scoring import GameResult

__all__ = ["Party", "Call", "PlayEvent", "CallEvent", "CloseTrickEvent", "SchweinchenEvent", "Event", "Flag", "Game"]

QUEEN_OF_CLUBS = Card(Rank.QUEEN, Suit.CLUBS)
FOX = Card(Rank.ACE, Suit.DIAMONDS)
_QC = QUEEN_OF_CLUBS.index
_FOX = FOX.index


class Party(enum.Enum):
    RE = "re"
    KONTRA = "kontra"

    @property
    def other(self) -> Party:
        return Party.KONTRA if self is Party.RE else Party.RE

    @property
    def german_name(self) -> str:
        return "Re" if self is Party.RE else "Kontra"


class Call(enum.Enum):
    """Announcements: Re/Kontra (Ansagen) and the Absagen keine 90/60/30, schwarz."""

    RE = "re"
    KONTRA = "kontra"
    NO90 = "no90"
    NO60 = "no60"
    NO30 = "no30"
    BLACK = "black"

    @property
    def level(self) -> int:
        """0 for Re/Kontra, 1..4 for keine 90 .. schwarz."""
        return _CALL_LEVEL[self]

    @property
    def is_absage(self) -> bool:
        return _CALL_LEVEL[self] > 0

    @property
    def german_name(self) -> str:
        return _CALL_GERMAN[self]


_CALL_LEVEL = {Call.RE: 0, Call.KONTRA: 0, Call.NO90: 1, Call.NO60: 2, Call.NO30: 3, Call.BLACK: 4}
_CALL_GERMAN = {
    Call.RE: "Re",
    Call.KONTRA: "Kontra",
    Call.NO90: "keine 90",
    Call.NO60: "keine 60",
    Call.NO30: "keine 30",
    Call.BLACK: "schwarz",
}
ABSAGEN = (Call.NO90, Call.NO60, Call.NO30, Call.BLACK)


class PlayEvent(NamedTuple):
    seat: int
    card: Card

    def to_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "play": str(self.card)}


class CallEvent(NamedTuple):
    seat: int
    call: Call

    def to_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "call": self.call.value}


class CloseTrickEvent(NamedTuple):
    """A trick closed with fewer than four cards (``Game.close_trick``); record form ``{"close_trick": true}``."""

    def to_dict(self) -> dict[str, object]:
        return {"close_trick": True}


class SchweinchenEvent(NamedTuple):
    """``seat`` says "Schweinchen": it holds both Karo-Asse (``Game.announce_schweinchen``).

    Record form ``{"seat": 0, "announce": "schweinchen"}``.
    """

    seat: int

    def to_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "announce": "schweinchen"}


Event = PlayEvent | CallEvent | CloseTrickEvent | SchweinchenEvent


@dataclass(frozen=True, slots=True)
class Flag:
    """A finding about the play that breaks a rule; never an exception.

    Attributes:
        kind: ``renege``, ``third_copy``, ``out_of_turn`` or ``incomplete_trick``.
        trick: 0-based trick number the finding is about (for a renege: where the seat
            did not follow suit).
        seat: the seat at fault.
        card: the card that shows it (for a renege: the later card that proves it).
        message: a sentence for a person.
    """

    kind: str
    trick: int
    seat: int | None
    card: Card | None
    message: str

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "trick": self.trick,
            "seat": self.seat,
            "card": None if self.card is None else str(self.card),
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class _CallRecord:
    seat: int
    call: Call
    party: Party | None  # None: an Absage whose party the cards have not revealed yet
    required: int  # cards the caller needed to hold (for the reply rule)


class Game:
    """A game of Doppelkopf as the cards are played.

    Args:
        rules: the house rules (``Rules.tournament()`` by default).
        contract: what is played (``Contract.normal()`` by default).
        players: four names in seat order; seat 0 is Vorhand and leads the first trick.
        hands: the four hands when known (a replayed record): enables ``legal_cards``,
            the true parties before the cards reveal them, and ``strict``.
        strict: raise ``IllegalPlayError`` for plays that break a rule instead of flagging them
            (needs ``hands``).
        bock: how many Bocks lie on this game; the game value counts ``2**bock``.

    Raises:
        RulesError: the contract is not allowed under the rules, or hands are malformed.
    """

    def __init__(
        self,
        rules: Rules | None = None,
        contract: Contract | None = None,
        players: Sequence[str] = ("A", "B", "C", "D"),
        hands: Sequence[Iterable[Card | str]] | None = None,
        *,
        strict: bool = False,
        bock: int = 0,
    ) -> None:
        self.rules = rules if rules is not None else Rules.tournament()
        self.contract = contract if contract is not None else Contract.normal()
        if len(players) != 4:
            raise RulesError(f"a game has 4 players, got {len(players)}")
        self.players = tuple(players)
        if self.contract.type is ContractType.ARMUT and not self.rules.armut:
            raise RulesError("Armut is not played under these rules; set the 'armut' switch")
        self._hand_counts: tuple[list[int], ...] | None = None
        self._hands: tuple[Counter[Card], ...] | None = None
        if hands is not None:
            self._hand_counts = _parse_hands(hands, self.rules)
            declarer = self.contract.declarer
            if (
                self.contract.type in (ContractType.HOCHZEIT, ContractType.SILENT_HOCHZEIT)
                and self._hand_counts[declarer][_QC] != 2  # type: ignore[index]
            ):
                raise RulesError(f"a {self.contract.name} needs both Kreuz-Damen in the hand of seat {declarer}")
        if strict and self._hand_counts is None:
            raise RulesError("a strict game needs the hands")
        self.strict = strict
        self.bock = bock
        self.history: list[Event] = []
        self._reset()

    # -- state --------------------------------------------------------------------------

    def _reset(self) -> None:
        rules = self.rules
        self._n_tricks = rules.hand_size
        self._schweinchen_seat = self._schweinchen_from_hands()
        self._order = self.contract.card_order(self._schweinchen_seat is not None)
        self.tricks: list[Trick] = []
        self.current_trick = self._new_trick(0)
        self.to_move: int | None = 0
        self._trick_seats = 0  # bit mask of the seats in the current trick
        self.flags: list[Flag] = []
        self._played = [0, 0, 0, 0]
        self._seen = [0] * 24
        self._fox_seats: list[int] = []
        self._voids: list[dict[int, int]] = [{}, {}, {}, {}]
        self._copies = self.rules.copies_of
        self._remaining = None if self._hand_counts is None else [list(counts) for counts in self._hand_counts]
        self._calls: list[_CallRecord] = []
        self._revealed: list[Party | None] = [None, None, None, None]
        self._qc_seats: list[int] = []
        self._hochzeit_partner: int | None = None
        self._hochzeit_decided_at = 0  # 1-based trick that decided the Hochzeit; 0 = undecided
        self._apply_contract_knowledge()

    @property
    def hands(self) -> tuple[Counter[Card], ...] | None:
        """The four hands as dealt (Counters), or None when unknown."""
        if self._hands is None and self._hand_counts is not None:
            self._hands = tuple(Counter({card: n for card, n in zip(ALL_CARDS, row) if n}) for row in self._hand_counts)
        return self._hands

    def _schweinchen_from_hands(self) -> int | None:
        if not (self.rules.schweinchen and self.contract.allows_schweinchen and self._hand_counts):
            return None
        for seat, row in enumerate(self._hand_counts):
            if row[_FOX] >= 2:
                return seat
        return None

    def _new_trick(self, leader: int) -> Trick:
        rules = self.rules
        second = rules.second_dulle_beats_first and not (
            rules.second_dulle_except_last_trick and len(self.tricks) == self._n_tricks - 1
        )
        return Trick(leader, self._order, second)

    def _apply_contract_knowledge(self) -> None:
        c = self.contract
        if c.type in (ContractType.SOLO, ContractType.SILENT_HOCHZEIT):
            for seat in range(4):
                self._revealed[seat] = Party.RE if seat == c.declarer else Party.KONTRA
        elif c.type is ContractType.ARMUT:
            for seat in range(4):
                self._revealed[seat] = Party.RE if seat in (c.declarer, c.partner) else Party.KONTRA
        elif c.type is ContractType.HOCHZEIT:
            self._revealed[c.declarer] = Party.RE  # type: ignore[index]

    @property
    def trick_number(self) -> int:
        """0-based number of the trick being played (equals the number of completed tricks)."""
        return len(self.tricks)

    @property
    def is_over(self) -> bool:
        return len(self.tricks) >= self._n_tricks

    def copies_left(self, card: Card | str) -> int:
        """How many copies of ``card`` the deck still holds unplayed (negative after a third copy).

        >>> game = Game()
        >>> game.play(0, "QC"); game.copies_left("QC"), game.copies_left("9C")
        (1, 2)
        """
        if type(card) is not Card:
            card = Card.parse(card)  # type: ignore[arg-type]
        return self._copies[card.index] - self._seen[card.index]

    @property
    def schweinchen_seat(self) -> int | None:
        """The seat holding both Karo-Asse as Schweinchen, once known."""
        return self._schweinchen_seat

    @property
    def order(self) -> CardOrder:
        """The contract's card order in force (with Schweinchen once known)."""
        return self._order

    @property
    def calls(self) -> list[tuple[int, Call, Party | None]]:
        """Announcements so far as ``(seat, call, party)``.

        The party is None only for an Absage made while both parties had announced and the
        caller's party was not known yet, until the cards reveal it.
        """
        return [(c.seat, c.call, self._party_of(c)) for c in self._calls]

    def _party_of(self, record: _CallRecord) -> Party | None:
        """The call's party; an Absage by a seat of then unknown party resolves once it is known."""
        return record.party if record.party is not None else self.parties()[record.seat]

    def cards_held(self, seat: int) -> int:
        """How many cards ``seat`` still holds (hand size minus cards played)."""
        return self._n_tricks - self._played[seat]

    @property
    def hochzeit_partner(self) -> int | None:
        """The Hochzeit partner once found (None before, or when the declarer plays alone)."""
        return self._hochzeit_partner

    @property
    def hochzeit_decided(self) -> bool:
        return self._hochzeit_decided_at > 0

    @property
    def plays_alone(self) -> int | None:
        """The seat that plays alone against three (solo, silent or failed Hochzeit), if any."""
        c = self.contract
        if c.type in (ContractType.SOLO, ContractType.SILENT_HOCHZEIT):
            return c.declarer
        if c.type is ContractType.HOCHZEIT and self._hochzeit_decided_at and self._hochzeit_partner is None:
            return c.declarer
        if c.type is ContractType.NORMAL and len(self._qc_seats) == 2 and self._qc_seats[0] == self._qc_seats[1]:
            return self._qc_seats[0]  # an unannounced silent Hochzeit
        return None

    # -- plays --------------------------------------------------------------------------

    def play(self, seat: int, card: Card | str) -> None:
        """Play ``card`` from ``seat`` into the current trick.

        A play by the wrong seat, a third copy of a card and a proven renege are recorded
        in ``flags``; a strict game raises instead.

        Raises:
            InvalidCardError: ``card`` is not a card code.
            IllegalPlayError: the game is over, the seat is not 0..3, or (strict) the play breaks a rule.
        """
        if type(card) is not Card:
            card = Card.parse(card)  # type: ignore[arg-type]
        if seat not in (0, 1, 2, 3):
            raise IllegalPlayError(f"seat must be 0..3, not {seat!r}")
        if len(self.tricks) >= self._n_tricks:
            raise IllegalPlayError(f"the game is over after {self._n_tricks} tricks; {card} cannot be played")
        if self.strict:
            self._check_strict(seat, card)
        self.history.append(PlayEvent(seat, card))
        self._apply_play(seat, card)

    def _check_strict(self, seat: int, card: Card) -> None:
        if seat != self.to_move:
            raise IllegalPlayError(f"seat {seat} played {card} but seat {self.to_move} is to move")
        assert self._remaining is not None
        if self._remaining[seat][card.index] <= 0:
            raise IllegalPlayError(f"seat {seat} does not hold {card}")
        legal = self.legal_cards(seat)
        if card not in legal:
            led = SUIT_NAMES[self.current_trick.led_class()]  # type: ignore[index]
            raise IllegalPlayError(f"seat {seat} must follow {led} and cannot play {card}")

    def _apply_play(self, seat: int, card: Card) -> None:
        index = card.index
        trick = self.current_trick
        plays = trick.plays
        if seat != self.to_move:
            self._flag_out_of_turn(seat, card)
        seen = self._seen
        seen[index] += 1
        if seen[index] > self._copies[index]:
            self._flag_third_copy(seat, card)
        suit_class = self._order.suit_class
        cls = suit_class[index]
        # Renege proof from played cards only: this card's suit was once not followed by this seat.
        voids = self._voids[seat]
        if voids:
            if cls in voids:
                self._flag_renege(seat, card, cls, voids.pop(cls))
        if plays:
            led = suit_class[plays[0][1].index]
            if cls != led and led not in voids:
                voids[led] = len(self.tricks)
        if self._remaining is not None:
            self._remaining[seat][index] -= 1
        self._played[seat] += 1
        if index == _QC:
            self._qc_seats.append(seat)
            self._reveal(seat, Party.RE)
        elif index == _FOX and self._fox_played(seat):
            return
        trick.add(seat, card)
        if len(plays) == 4:
            self._finish_trick()
        else:
            # The next seat clockwise that has not played into this trick yet.
            mask = self._trick_seats = self._trick_seats | (1 << seat)
            nxt = (seat + 1) & 3
            while mask & (1 << nxt):
                nxt = (nxt + 1) & 3
            self.to_move = nxt

    def _flag_out_of_turn(self, seat: int, card: Card) -> None:
        t = len(self.tricks)
        self.flags.append(
            Flag(
                "out_of_turn",
                t,
                seat,
                card,
                f"seat {seat} played {card} in trick {t + 1} but seat {self.to_move} was to move",
            )
        )

    def _flag_third_copy(self, seat: int, card: Card) -> None:
        n, copies = self._seen[card.index], self._copies[card.index]
        self.flags.append(
            Flag("third_copy", len(self.tricks), seat, card, f"{card} seen {n} times; the deck holds {copies}")
        )

    def _flag_renege(self, seat: int, card: Card, cls: int, failed: int) -> None:
        self.flags.append(
            Flag(
                "renege",
                failed,
                seat,
                card,
                f"seat {seat} did not follow {SUIT_NAMES[cls]} in trick {failed + 1} but later played {card}",
            )
        )

    def _fox_played(self, seat: int) -> bool:
        """Note a Karo-Ass; True when it proved Schweinchen and the game was rebuilt with it."""
        self._fox_seats.append(seat)
        if (
            len(self._fox_seats) == 2
            and self._fox_seats[0] == seat
            and self._schweinchen_seat is None
            and self.rules.schweinchen
            and self.contract.allows_schweinchen
            and self._hand_counts is None
        ):
            # Both Karo-Asse came from one seat: they were Schweinchen all along.
            self._schweinchen_seat = seat
            self._rebuild()
            return True
        return False

    def _finish_trick(self) -> None:
        trick = self.current_trick
        self.tricks.append(trick)
        winner = trick.winner()
        assert winner is not None
        if self.contract.type is ContractType.HOCHZEIT and not self._hochzeit_decided_at:
            n = len(self.tricks)
            declarer = self.contract.declarer
            if winner != declarer:
                self._hochzeit_partner = winner
                self._hochzeit_decided_at = n
                for seat in range(4):
                    self._revealed[seat] = Party.RE if seat in (declarer, winner) else Party.KONTRA
            elif n >= 3:
                self._hochzeit_decided_at = n
                for seat in range(4):
                    self._revealed[seat] = Party.RE if seat == declarer else Party.KONTRA
        self._trick_seats = 0
        if len(self.tricks) >= self._n_tricks:
            self.to_move = None
        else:
            self.to_move = winner
            self.current_trick = self._new_trick(winner)

    def close_trick(self) -> None:
        """Close the current trick with fewer than four cards (the camera saw it taken).

        The trick is flagged ``incomplete_trick``; its winner among the cards present leads next.

        Raises:
            IllegalPlayError: the current trick is empty or the game is over.
        """
        trick = self.current_trick
        if self.is_over or not trick.plays:
            raise IllegalPlayError("there is no trick in progress to close")
        t = len(self.tricks)
        self.flags.append(
            Flag("incomplete_trick", t, None, None, f"trick {t + 1} was closed with {len(trick.plays)} of 4 cards")
        )
        self.history.append(CloseTrickEvent())
        self._finish_trick()

    # -- calls --------------------------------------------------------------------------

    def call(self, seat: int, call: Call | str) -> None:
        """Announce Re/Kontra or an Absage for ``seat``'s party.

        Raises:
            IllegalCallError: too late (not enough cards held), the wrong party, the same call
                twice, or an Absage before the party's own Re/Kontra; the message says which.
        """
        if not isinstance(call, Call):
            try:
                call = Call(call)
            except ValueError:
                raise IllegalCallError(
                    f"{call!r} is not a call; expected one of {', '.join(c.value for c in Call)}"
                ) from None
        record = self._check_call(seat, call)
        self.history.append(CallEvent(seat, call))
        self._calls.append(record)
        if record.party is not None:
            self._reveal(seat, record.party)

    def _limits_shift(self) -> int:
        shift = 2 if self.rules.without_nines else 0
        if self.contract.type is ContractType.HOCHZEIT:
            shift += self._hochzeit_decided_at
        return shift

    def required_cards(self, call: Call) -> int:
        """Cards a player must still hold to make ``call`` now (before the reply rule)."""
        return 11 - call.level - self._limits_shift()

    def _check_call(self, seat: int, call: Call) -> _CallRecord:
        if seat not in (0, 1, 2, 3):
            raise IllegalCallError(f"seat must be 0..3, not {seat!r}")
        name = call.german_name
        if self.is_over:
            raise IllegalCallError(f"seat {seat} cannot say {name}: the game is over")
        c = self.contract
        if c.type is ContractType.HOCHZEIT and not self._hochzeit_decided_at and seat != c.declarer:
            raise IllegalCallError(
                f"seat {seat} cannot say {name}: the Hochzeit is not decided yet, so the parties are unknown"
            )
        party = self._caller_party(seat, call)
        held = self.cards_held(seat)
        required = self.required_cards(call)
        if party is None:
            # Both parties announced; the caller's side shows later. Check what holds for either.
            if held < required:
                raise IllegalCallError(
                    f"seat {seat} cannot say {name}: it holds {held} cards, {name} needs at least {required}"
                )
            levels = [max((r.call.level for r in self._calls if self._party_of(r) is p), default=0) for p in Party]
            if min(levels) >= call.level:
                raise IllegalCallError(f"seat {seat} cannot say {name}: both parties already said {name} or more")
            return _CallRecord(seat, call, None, required)
        made = [r for r in self._calls if self._party_of(r) is party]
        if call.level == 0:
            if (call is Call.RE) != (party is Party.RE):
                raise IllegalCallError(
                    f"seat {seat} cannot say {name}: seat {seat} is in the {party.german_name} party"
                )
            if any(r.call.level == 0 for r in made):
                raise IllegalCallError(f"seat {seat} cannot say {name}: the {party.german_name} party already said it")
            if held < required:
                opposing = [r for r in self._calls if self._party_of(r) not in (party, None)]
                # Reply rule: answer the opponents' last call while holding at most one card fewer than it needed.
                if not opposing or held < opposing[-1].required - 1:
                    raise IllegalCallError(
                        f"seat {seat} cannot say {name}: it holds {held} cards, {name} needs at least {required}"
                        + (
                            f" (or {opposing[-1].required - 1} to reply to {opposing[-1].call.german_name})"
                            if opposing
                            else ""
                        )
                    )
        else:
            if not any(r.call.level == 0 for r in made):
                raise IllegalCallError(
                    f"seat {seat} cannot say {name}: the {party.german_name} party has not announced {party.german_name} yet"
                )
            top = max(r.call.level for r in made)
            if top >= call.level:
                raise IllegalCallError(
                    f"seat {seat} cannot say {name}: the {party.german_name} party already said {_LEVEL_NAME[top]}"
                )
            if held < required:
                raise IllegalCallError(
                    f"seat {seat} cannot say {name}: it holds {held} cards, {name} needs at least {required}"
                )
        return _CallRecord(seat, call, party, required)

    def _caller_party(self, seat: int, call: Call) -> Party | None:
        truth = self._true_party(seat)
        if truth is not None:
            return truth
        if call.level == 0:
            claimed = Party.RE if call is Call.RE else Party.KONTRA
            known = self.parties()
            if sum(1 for s, p in enumerate(known) if p is claimed and s != seat) >= 2:
                raise IllegalCallError(
                    f"seat {seat} cannot say {call.german_name}: both {claimed.german_name} players are already known"
                )
            return claimed
        announced = {r.party for r in self._calls if r.call.level == 0}
        if len(announced) == 1:
            return next(iter(announced))
        if not announced:
            raise IllegalCallError(
                f"seat {seat} cannot say {call.german_name}: no party has announced Re or Kontra yet"
            )
        return None  # both parties announced: either side may say it

    def _true_party(self, seat: int) -> Party | None:
        """The party as far as anything known tells it: contract, hands, revealed cards and calls."""
        c = self.contract
        if c.type is ContractType.HOCHZEIT:
            return self._revealed[seat]
        if self._revealed[seat] is not None and c.type is not ContractType.NORMAL:
            return self._revealed[seat]
        if self._hand_counts is not None and c.type is ContractType.NORMAL:
            return Party.RE if self._hand_counts[seat][_QC] else Party.KONTRA
        return self.parties()[seat]

    def _reveal(self, seat: int, party: Party) -> None:
        if self._revealed[seat] is None:
            self._revealed[seat] = party

    def parties(self) -> tuple[Party | None, ...]:
        """Per seat ``Party.RE``/``Party.KONTRA`` as far as the played cards and calls reveal it, else None."""
        known = list(self._revealed)
        if self.contract.type is ContractType.NORMAL:
            qc = self._qc_seats
            if len(qc) == 2 and qc[0] == qc[1]:
                return tuple(Party.RE if s == qc[0] else Party.KONTRA for s in range(4))
            re = [s for s in range(4) if known[s] is Party.RE]
            kontra = [s for s in range(4) if known[s] is Party.KONTRA]
            if len(re) >= 2:
                return tuple(Party.RE if s in re else Party.KONTRA for s in range(4))
            # Two known Kontra players prove nothing: one Re player may hold both Kreuz-Damen.
            if len(kontra) >= 3:
                return tuple(Party.KONTRA if s in kontra else Party.RE for s in range(4))
        return tuple(known)

    # -- history ------------------------------------------------------------------------

    def undo(self) -> Event:
        """Remove the last event and rebuild the state.

        Raises:
            IndexError: the history is empty.
        """
        event = self.history.pop()
        self._rebuild()
        return event

    def _rebuild(self) -> None:
        history = self.history
        self.history = []
        schweinchen = self._schweinchen_seat if self._hand_counts is None else None
        self._reset()
        if schweinchen is not None:
            self._schweinchen_seat = schweinchen
            self._order = self.contract.card_order(True)
            self.current_trick = self._new_trick(0)
        strict, self.strict = self.strict, False
        try:
            for event in history:
                self._apply_event(event)
        finally:
            self.strict = strict
        if (
            schweinchen is not None
            and self._fox_seats.count(schweinchen) < 2
            and SchweinchenEvent(schweinchen) not in self.history
        ):
            # The undo removed the proof; follow the game without Schweinchen again.
            events, self.history = self.history, []
            self._reset()
            for event in events:
                self._apply_event(event)

    def _apply_event(self, event: Event) -> None:
        if isinstance(event, PlayEvent):
            self.history.append(event)
            self._apply_play(event.seat, event.card)
        elif isinstance(event, CallEvent):
            record = self._check_call(event.seat, event.call)
            self.history.append(event)
            self._calls.append(record)
            if record.party is not None:
                self._reveal(event.seat, record.party)
        elif type(event) is SchweinchenEvent:
            self._check_schweinchen(event.seat)
            self.history.append(event)
        else:
            self.close_trick()

    def announce_schweinchen(self, seat: int) -> None:
        """``seat`` says "Schweinchen" (both Karo-Asse in its hand, said with the first one).

        Both Karo-Asse of that seat are the highest trumps from the start of the game, so the
        tricks played so far are followed again. Without it the camera learns the Schweinchen
        only when the second Karo-Ass comes from the same seat.

        Raises:
            IllegalCallError: Schweinchen are not played under these rules or in this contract,
                another seat played a Karo-Ass, or the hands show the seat lacks them.
        """
        self._check_schweinchen(seat)
        self.history.append(SchweinchenEvent(seat))
        if self._schweinchen_seat != seat:
            self._schweinchen_seat = seat
            self._rebuild()

    def _check_schweinchen(self, seat: int) -> None:
        if seat not in (0, 1, 2, 3):
            raise IllegalCallError(f"seat must be 0..3, not {seat!r}")
        if not (self.rules.schweinchen and self.contract.allows_schweinchen):
            raise IllegalCallError(
                f"seat {seat} cannot say Schweinchen: not played under these rules in a {self.contract.name}"
            )
        others = [s for s in self._fox_seats if s != seat]
        if others:
            raise IllegalCallError(f"seat {seat} cannot say Schweinchen: seat {others[0]} played a Karo-Ass")
        if self._hand_counts is not None and self._hand_counts[seat][_FOX] != 2:
            raise IllegalCallError(f"seat {seat} cannot say Schweinchen: it does not hold both Karo-Asse")

    @classmethod
    def replay(
        cls,
        rules: Rules,
        contract: Contract,
        players: Sequence[str],
        history: Iterable[Event],
        hands: Sequence[Iterable[Card | str]] | None = None,
        **kwargs: object,
    ) -> Game:
        """A new game with ``history`` applied event by event.

        Raises:
            IllegalCallError / IllegalPlayError: an event breaks a rule (as when it was first made).
        """
        game = cls(rules, contract, players, hands, **kwargs)  # type: ignore[arg-type]
        fast = not game.strict
        n_tricks = game._n_tricks
        for event in history:
            if type(event) is PlayEvent:
                # Fast path for the common case; play() repeats every check with its message.
                if fast and type(event.card) is Card and event.seat in _SEATS and len(game.tricks) < n_tricks:
                    game.history.append(event)
                    game._apply_play(event.seat, event.card)
                    continue
            game.apply(event)
        return game

    def apply(self, event: Event) -> None:
        """Makes one history event again through the public call it came from.

        Raises:
            IllegalCallError / IllegalPlayError: the event breaks a rule now.
        """
        if isinstance(event, PlayEvent):
            self.play(event.seat, event.card)
        elif isinstance(event, CallEvent):
            self.call(event.seat, event.call)
        elif isinstance(event, SchweinchenEvent):
            self.announce_schweinchen(event.seat)
        else:
            self.close_trick()

    # -- legal cards ---------------------------------------------------------------------

    def legal_cards(self, seat: int) -> list[Card]:
        """The distinct cards ``seat`` may play now (must follow the led suit if it can).

        Raises:
            ValueError: the hands are not known.
        """
        if self._remaining is None:
            raise ValueError("legal cards need the hands; build the game with hands=...")
        hand = [card for card, n in zip(ALL_CARDS, self._remaining[seat]) if n > 0]
        led = self.current_trick.led_class()
        if led is None or seat in {s for s, _ in self.current_trick.plays}:
            return sorted(hand, key=lambda c: c.index)
        cls = self._order.suit_class
        follow = [card for card in hand if cls[card.index] == led]
        return sorted(follow or hand, key=lambda c: c.index)

    def hand(self, seat: int) -> Counter[Card]:
        """What ``seat`` still holds (hands known only)."""
        if self._remaining is None:
            raise ValueError("the hands are not known")
        return Counter({card: n for card, n in zip(ALL_CARDS, self._remaining[seat]) if n > 0})

    # -- result --------------------------------------------------------------------------

    def result(self, *, penalties: bool = False) -> GameResult:
        """Score the finished game per DDV 7.1-7.3 (with the rules' house rules).

        Args:
            penalties: apply the DDV penalty for a proven renege (the offender's party loses).

        Raises:
            ValueError: the game is not over.
        """
        from dokocam.engine.scoring import score_game

        return score_game(self, penalties=penalties)

    def to_dict(self) -> dict[str, object]:
        """The game as a ``dokocam-game/1`` record object."""
        from dokocam.engine.record import GameRecord

        return GameRecord.from_game(self).to_dict()

    def __repr__(self) -> str:
        return (
            f"<Game {self.contract.name} trick={self.trick_number + (0 if self.is_over else 1)} "
            f"to_move={self.to_move} flags={len(self.flags)}>"
        )


_SEATS = frozenset(range(4))
_LEVEL_NAME = {0: "Re/Kontra", 1: "keine 90", 2: "keine 60", 3: "keine 30", 4: "schwarz"}


def _parse_hands(hands: Sequence[Iterable[Card | str]], rules: Rules) -> tuple[list[int], ...]:
    """Count each hand per card index, checking sizes and copies against the deck."""
    if len(hands) != 4:
        raise RulesError(f"hands must list 4 hands, got {len(hands)}")
    counts = []
    total = [0] * 24
    for seat, hand in enumerate(hands):
        row = [0] * 24
        for c in hand:
            i = (c if type(c) is Card else Card.parse(c)).index  # type: ignore[arg-type]
            row[i] += 1
            total[i] += 1
        size = sum(row)
        if size != rules.hand_size:
            raise RulesError(f"hand of seat {seat} has {size} cards; expected {rules.hand_size}")
        counts.append(row)
    copies = rules.copies_of
    if total != list(copies):
        i = next(i for i in range(24) if total[i] != copies[i])
        raise RulesError(f"the hands hold {ALL_CARDS[i]} {total[i]} times; the deck holds {copies[i]}")
    return tuple(counts)
