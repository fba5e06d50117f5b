"""One game of Doppelkopf followed card by card: tricks, parties, announcements, flags.

The state is rebuilt from ``rules + contract + history``: ``undo`` pops the last event and
``Game.replay`` plays a history again. Camera input is noisy, so a play out of turn, a third copy
of a card or a renege becomes a ``Flag`` on the game rather than an exception (unless the game
is ``strict`` and knows the hands). Parties that the events cannot resolve (a false call, a
misread Kreuz-Dame) are a ``party_conflict`` flag naming the events in conflict, and the game has
no result until a correction resolves them.

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

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from dokocam.engine.cards import ALL_CARDS, Card, Rank, Suit
from dokocam.engine.contract import TRUMP, CardOrder, Contract, ContractType
from dokocam.engine.errors import IllegalCallError, IllegalPlayError, RulesError, UnresolvedError
from dokocam.engine.messages import Message, Seat
from dokocam.engine.rules import HochzeitPartner, Rules
from dokocam.engine.scoring import GameResult, score_game, special_points
from dokocam.engine.trick import Trick
from dokocam.engine.types import (
    ABSAGEN,
    Call,
    CallEvent,
    ClaimEvent,
    CloseTrickEvent,
    Event,
    Flag,
    FlagKind,
    Party,
    PlayEvent,
    SchweinchenEvent,
    ScoreItem,
    record_object,
)

__all__ = [
    "Party",
    "Call",
    "ABSAGEN",
    "PlayEvent",
    "CallEvent",
    "CloseTrickEvent",
    "SchweinchenEvent",
    "ClaimEvent",
    "Event",
    "Flag",
    "FlagKind",
    "Claim",
    "Game",
]

QUEEN_OF_CLUBS = Card(Rank.QUEEN, Suit.CLUBS)
QUEEN_OF_SPADES = Card(Rank.QUEEN, Suit.SPADES)
FOX = Card(Rank.ACE, Suit.DIAMONDS)
_QC = QUEEN_OF_CLUBS.index
_QS = QUEEN_OF_SPADES.index
_FOX = FOX.index
_HOCHZEITEN = (ContractType.HOCHZEIT, ContractType.SILENT_HOCHZEIT)


@dataclass(frozen=True, slots=True)
class _CallRecord:
    seat: int
    call: Call
    party: Party | None  # None: an Absage whose party the cards have not revealed yet
    limit: int  # cards the caller needed to hold, or (by trick) the trick it had to be said by
    event: int  # index in the history


@dataclass(frozen=True, slots=True)
class Claim:
    """A Spielabkürzung (DDV 5.4): ``seat``'s party takes every trick not played.

    Attributes:
        seat: who showed the cards and claimed the rest.
        tricks: how many tricks were left.
        augen: the Augen of the cards not played (from the hands when known, else the deck
            less the cards seen).
    """

    seat: int
    tricks: int
    augen: int


class Game:
    """A game of Doppelkopf as the cards are played.

    Args:
        rules: the house rules (``Rules.tournament()`` by default).
        contract: what is played (``Contract.normal()`` by default).
        players: four names in seat order; seat 0 is Vorhand and leads the first trick
            (the soloist leads a Pflichtsolo).
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
            raise RulesError(Message("players_four", n=len(players)))
        self.players = tuple(players)
        if self.contract.type is ContractType.ARMUT and not self.rules.armut:
            raise RulesError(Message("armut_off"))
        self._hand_counts: tuple[list[int], ...] | None = None
        self._hands: tuple[Counter[Card], ...] | None = None
        if hands is not None:
            self._hand_counts = _parse_hands(hands, self.rules)
            declarer = self.contract.declarer
            if self.contract.type in _HOCHZEITEN and declarer is not None and self._hand_counts[declarer][_QC] != 2:
                raise RulesError(Message("needs_both_qc", contract=self.contract, seat=Seat(declarer)))
        if strict and self._hand_counts is None:
            raise RulesError(Message("strict_needs_hands"))
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
        leader = self.contract.leader
        self.current_trick = self._new_trick(leader)
        self.to_move: int | None = leader
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
        self._qc_plays: list[tuple[int, int]] = []  # (seat, history index) of every Kreuz-Dame seen
        self._hochzeit_partner: int | None = None
        self._hochzeit_decided_at = 0  # 1-based trick that decided the Hochzeit; 0 = undecided
        self._qs_seen = 0
        self._sau_pending = False  # the current trick holds the second Pik-Dame
        self._sau_seat: int | None = None
        self._conflict: Flag | None = None
        self.claimed: Claim | None = None
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
        elif c.type is ContractType.HOCHZEIT and c.declarer is not None:
            self._revealed[c.declarer] = Party.RE

    @property
    def trick_number(self) -> int:
        """0-based number of the trick being played (equals the number of completed tricks)."""
        return len(self.tricks)

    @property
    def is_over(self) -> bool:
        """Every trick is played, or the rest was claimed (``claim``)."""
        return len(self.tricks) >= self._n_tricks or self.claimed is not None

    def copies_left(self, card: Card | str) -> int:
        """How many copies of ``card`` the deck still holds unplayed (negative after a third copy).

        >>> game = Game()
        >>> game.play(0, "QC"); game.copies_left("QC"), game.copies_left("9C")
        (1, 2)
        """
        card = _card(card)
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
        caller's party was not known yet, until the cards reveal it. After a schwarze Sau a call
        counts for the party its caller ends up in.
        """
        return [(c.seat, c.call, self._party_of(c)) for c in self._calls]

    def _party_of(self, record: _CallRecord) -> Party | None:
        """The call's party; an Absage by a seat of then unknown party resolves once it is known."""
        if self._sau_seat is not None:
            return Party.RE if record.seat == self._sau_seat else Party.KONTRA
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
    def hochzeit_decided_at(self) -> int:
        """The 1-based Klärungsstich of a Hochzeit (0 while undecided or in another contract)."""
        return self._hochzeit_decided_at

    @property
    def schwarze_sau(self) -> int | None:
        """The seat that won the trick with the second Pik-Dame under ``schwarze_sau``: it plays alone."""
        return self._sau_seat

    @property
    def plays_alone(self) -> int | None:
        """The seat that plays alone against three (solo, silent or failed Hochzeit, schwarze Sau), if any."""
        c = self.contract
        if c.type in (ContractType.SOLO, ContractType.SILENT_HOCHZEIT):
            return c.declarer
        if c.type is ContractType.HOCHZEIT and self._hochzeit_decided_at and self._hochzeit_partner is None:
            return c.declarer
        if c.type is ContractType.NORMAL:
            if self._sau_seat is not None:
                return self._sau_seat
            qc = self._qc_seats()
            if len(qc) == 2 and qc[0] == qc[1]:
                return qc[0]  # an unannounced silent Hochzeit
        return None

    def _qc_seats(self) -> list[int]:
        return [seat for seat, _ in self._qc_plays]

    # -- plays --------------------------------------------------------------------------

    def play(self, seat: int, card: Card | str) -> None:
        """Play ``card`` from ``seat`` into the current trick.

        A play by the wrong seat, a third copy of a card, a card not in the (known) hand and a
        proven renege are recorded in ``flags``; a strict game raises instead.

        Raises:
            InvalidCardError: ``card`` is not a card code.
            IllegalPlayError: the game is over, the seat is not 0..3, or (strict) the play breaks a rule.
        """
        card = _card(card)
        if seat not in _SEATS:
            raise IllegalPlayError(Message("seat_range", seat=seat))
        if self.is_over:
            raise IllegalPlayError(Message("game_over", tricks=self._n_tricks, card=card))
        if self.strict:
            self._check_strict(seat, card)
        self.history.append(PlayEvent(seat, card))
        self._apply_play(seat, card)

    def _check_strict(self, seat: int, card: Card) -> None:
        if seat != self.to_move:
            raise IllegalPlayError(Message("not_to_move", seat=Seat(seat), card=card, to_move=Seat(self.to_move or 0)))
        assert self._remaining is not None
        if self._remaining[seat][card.index] <= 0:
            raise IllegalPlayError(Message("not_held", seat=Seat(seat), card=card))
        if card not in self.legal_cards(seat):
            led = self.current_trick.led_class()
            raise IllegalPlayError(Message("must_follow", seat=Seat(seat), led=Message(f"suit.{led}"), card=card))

    def _apply_play(self, seat: int, card: Card) -> None:
        index = card.index
        trick = self.current_trick
        plays = trick.plays
        if seat != self.to_move:
            self._flag_out_of_turn(seat, card)
        seen = self._seen
        seen[index] += 1
        if seen[index] > self._copies[index]:
            self._flag(FlagKind.THIRD_COPY, seat, card, n=seen[index], copies=self._copies[index], card=card)
        remaining = self._remaining
        if remaining is not None and remaining[seat][index] <= 0:
            # The hands say this seat never held the card: one clear flag, and no renege
            # reasoning built on a card that was not there.
            self._flag(FlagKind.NOT_HELD, seat, card, seat=Seat(seat), card=card)
        else:
            self._check_renege(seat, card, plays)
            if remaining is not None:
                remaining[seat][index] -= 1
        self._played[seat] += 1
        if index == _QC:
            self._qc_plays.append((seat, len(self.history) - 1))
            self._reveal(seat, Party.RE)
        elif index == _QS:
            self._qs_seen += 1
            if self._qs_seen == 2 and self.rules.schwarze_sau and self.contract.type is ContractType.NORMAL:
                self._sau_pending = True
        elif index == _FOX and self._fox_played(seat):
            return
        trick.add(seat, card)
        if index == _QC:
            self._check_parties()
        if len(plays) == 4:
            self._finish_trick()
        else:
            # The next seat clockwise that has not played into this trick yet.
            mask = self._trick_seats = self._trick_seats | (1 << seat)
            nxt = (seat + 1) & 3
            while mask & (1 << nxt):
                nxt = (nxt + 1) & 3
            self.to_move = nxt

    def _check_renege(self, seat: int, card: Card, plays: list[tuple[int, Card]]) -> None:
        """Renege proof from played cards only: this card's suit was once not followed by this seat."""
        suit_class = self._order.suit_class
        cls = suit_class[card.index]
        voids = self._voids[seat]
        if voids and cls in voids:
            failed = voids.pop(cls)
            self.flags.append(
                Flag(
                    FlagKind.RENEGE,
                    failed,
                    seat,
                    card,
                    Message("flag.renege", seat=Seat(seat), suit=Message(f"suit.{cls}"), trick=failed + 1, card=card),
                    (len(self.history) - 1,),
                )
            )
        if plays:
            led = suit_class[plays[0][1].index]
            if cls != led and led not in voids:
                voids[led] = len(self.tricks)

    def _flag(self, kind: FlagKind, at_seat: int | None, at_card: Card | None, **params: Any) -> None:
        """Append a flag about the last event; ``params`` fill the flag's message."""
        t = len(self.tricks)
        event = (len(self.history) - 1,) if self.history else ()
        self.flags.append(Flag(kind, t, at_seat, at_card, Message(f"flag.{kind.value}", **params), event))

    def _flag_out_of_turn(self, seat: int, card: Card) -> None:
        t = len(self.tricks)
        to_move = Seat(self.to_move if self.to_move is not None else 0)
        self._flag(FlagKind.OUT_OF_TURN, seat, card, seat=Seat(seat), card=card, trick=t + 1, to_move=to_move)

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
            self._hochzeit_trick(trick, winner)
        if self._sau_pending:
            self._sau_pending = False
            self._sau_seat = winner
            for seat in range(4):
                self._revealed[seat] = Party.RE if seat == winner else Party.KONTRA
        self._trick_seats = 0
        if len(self.tricks) >= self._n_tricks:
            self.to_move = None
            self._check_parties(final=True)
        else:
            self.to_move = winner
            self.current_trick = self._new_trick(winner)

    def _hochzeit_trick(self, trick: Trick, winner: int) -> None:
        """Decide the Hochzeit on a finished trick (the partner condition, within the first three)."""
        n = len(self.tricks)
        declarer = self.contract.declarer
        condition = self.rules.hochzeit_partner
        led_trump = trick.led_class() == TRUMP
        counts = (
            condition is HochzeitPartner.FIRST_TRICK
            or (condition is HochzeitPartner.FIRST_PLAIN_TRICK and not led_trump)
            or (condition is HochzeitPartner.FIRST_TRUMP_TRICK and led_trump)
        )
        if counts and winner != declarer:
            self._hochzeit_partner = winner
            self._hochzeit_decided_at = n
            for seat in range(4):
                self._revealed[seat] = Party.RE if seat in (declarer, winner) else Party.KONTRA
        elif n >= 3:
            self._hochzeit_decided_at = n
            for seat in range(4):
                self._revealed[seat] = Party.RE if seat == declarer else Party.KONTRA

    def close_trick(self) -> None:
        """Close the current trick with fewer than four cards (the camera saw it taken).

        The trick is flagged ``incomplete_trick``; its winner among the cards present leads next.

        Raises:
            IllegalPlayError: the current trick is empty or the game is over.
        """
        trick = self.current_trick
        if self.is_over or not trick.plays:
            raise IllegalPlayError(Message("no_trick_to_close"))
        self.history.append(CloseTrickEvent())
        t = len(self.tricks)
        self._flag(FlagKind.INCOMPLETE_TRICK, None, None, trick=t + 1, n=len(trick.plays))
        self._finish_trick()

    def claim(self, seat: int) -> None:
        """Spielabkürzung (DDV 5.4): ``seat`` shows its cards and its party takes every remaining trick.

        The game is then over; the claimed tricks count for the claimer's party with the Augen of
        the cards not played (``claimed``). Special points are scored in played tricks only.

        Raises:
            IllegalPlayError: the seat is not 0..3, the game is over, a trick is in progress, the
                Hochzeit is not decided yet, or a schwarze Sau is still open.
        """
        if seat not in _SEATS:
            raise IllegalPlayError(Message("seat_range", seat=seat))
        if self.is_over:
            raise IllegalPlayError(Message("claim_over"))
        if self.current_trick.plays:
            raise IllegalPlayError(Message("claim_mid_trick", seat=Seat(seat)))
        if self.contract.type is ContractType.HOCHZEIT and not self._hochzeit_decided_at:
            raise IllegalPlayError(Message("claim_hochzeit", seat=Seat(seat)))
        if self.rules.schwarze_sau and self.contract.type is ContractType.NORMAL and self._qs_seen < 2:
            raise IllegalPlayError(Message("claim_sau", seat=Seat(seat)))
        self.history.append(ClaimEvent(seat))
        self._apply_claim(seat)

    def _apply_claim(self, seat: int) -> None:
        if self._remaining is not None:
            augen = sum(ALL_CARDS[i].augen * n for row in self._remaining for i, n in enumerate(row) if n > 0)
        else:
            augen = sum(
                ALL_CARDS[i].augen * max(0, self._copies[i] - self._seen[i]) for i in range(24) if self._copies[i]
            )
        self.claimed = Claim(seat, self._n_tricks - len(self.tricks), augen)
        self.to_move = None
        self._check_parties(final=True)

    # -- parties ------------------------------------------------------------------------

    def _check_parties(self, *, final: bool = False) -> None:
        """Flag the parties once the events contradict each other (camera mode: hands unknown)."""
        conflict = self._find_conflict(final)
        if conflict is not None:
            same = [f for f in self.flags if f.text == conflict.text and f.events == conflict.events]
            if same:
                conflict = same[0]
            else:
                self.flags.append(conflict)
        self._conflict = conflict

    def _find_conflict(self, final: bool) -> Flag | None:
        c = self.contract
        if self._hand_counts is not None or self._sau_seat is not None:
            return None  # the hands fix the parties (false calls are refused); the Sau decides them
        qc = self._qc_plays
        t = len(self.tricks)
        if c.type in _HOCHZEITEN:
            others = [(s, i) for s, i in qc if s != c.declarer]
            if others:
                seat, event = others[0]
                why = Message("conflict.hochzeit_qc", seat=Seat(seat), declarer=Seat(c.declarer or 0), contract=c.name)
                return self._conflict_flag(t, why, (event,))
            return None
        if c.type is not ContractType.NORMAL:
            return None
        if len(qc) > 2:
            seats = [Seat(s) for s, _ in qc]
            return self._conflict_flag(t, Message("conflict.third_qc", n=len(qc), seats=seats), [i for _, i in qc])
        qc_seats = {s for s, _ in qc}
        for record in self._calls:
            if record.call.level == 0:
                claimed = Party.RE if record.call is Call.RE else Party.KONTRA
                plays = [i for s, i in qc if s == record.seat]
                if claimed is Party.KONTRA and plays:
                    why = Message("conflict.call", seat=Seat(record.seat), call=record.call, party=Party.RE)
                    return self._conflict_flag(t, why, sorted([record.event, *plays]))
        re_calls = {r.seat: r.event for r in self._calls if r.call is Call.RE}
        silent = len(qc) == 2 and qc[0][0] == qc[1][0]
        if silent:
            extra = [s for s in re_calls if s != qc[0][0]]
            if extra:
                why = Message("conflict.call", seat=Seat(extra[0]), call=Call.RE, party=Party.KONTRA)
                return self._conflict_flag(t, why, sorted([re_calls[extra[0]], *(i for _, i in qc)]))
            return None
        re = qc_seats | set(re_calls)
        if len(re) > 2:
            events = sorted([*(i for _, i in qc), *re_calls.values()])
            return self._conflict_flag(t, Message("conflict.too_many_re", seats=[Seat(s) for s in sorted(re)]), events)
        if final and len(re) < 2:
            kontra = {r.seat for r in self._calls if r.call is Call.KONTRA}
            if len(re) == 1 and len(kontra) == 3:
                return None  # three said Kontra: the fourth holds both Kreuz-Damen
            events = sorted([*(i for _, i in qc), *re_calls.values()])
            return self._conflict_flag(t, Message("conflict.qc_missing", n=len(qc)), events)
        return None

    def _conflict_flag(self, trick: int, why: Message, events: Sequence[int]) -> Flag:
        events = tuple(events)
        text = Message("flag.party_conflict", why=why, events=[self._event_message(i) for i in events])
        return Flag(FlagKind.PARTY_CONFLICT, min(trick, self._n_tricks - 1), None, None, text, events)

    def _event_message(self, index: int) -> Message:
        """History event ``index`` as a person names it: the trick it came in, who, and what."""
        event = self.history[index]
        plays = sum(isinstance(e, PlayEvent) for e in self.history[:index])
        trick = min(plays // 4, self._n_tricks - 1) + 1
        if isinstance(event, PlayEvent):
            return Message("event.play", trick=trick, seat=Seat(event.seat), card=event.card)
        assert isinstance(event, CallEvent), "a party conflict names plays and calls only"
        return Message("event.call", trick=trick, seat=Seat(event.seat), call=event.call)

    @property
    def conflict(self) -> Flag | None:
        """The ``party_conflict`` flag in force: the events cannot be resolved into two parties."""
        return self._conflict

    def final_parties(self) -> tuple[tuple[Party, ...], int | None]:
        """Each seat's party at the end of the game and the seat playing alone (or None).

        Raises:
            UnresolvedError: the events do not resolve into two parties (``conflict``).
        """
        if self._conflict is not None:
            raise UnresolvedError(Message("unresolved", flag=self._conflict.text), self._conflict)
        alone = self.plays_alone
        c = self.contract
        if alone is not None:
            return tuple(Party.RE if s == alone else Party.KONTRA for s in range(4)), alone
        if c.type is ContractType.HOCHZEIT:
            re = {c.declarer, self._hochzeit_partner}
        elif c.type is ContractType.ARMUT:
            re = {c.declarer, c.partner}
        elif self._hand_counts is not None:
            re = {s for s in range(4) if self._hand_counts[s][_QC]}
            if len(re) == 1:
                (seat,) = re
                return tuple(Party.RE if s == seat else Party.KONTRA for s in range(4)), seat
        else:
            known = self.parties()
            re = {s for s in range(4) if known[s] is Party.RE}
            if len(re) == 1 and all(known[s] is Party.KONTRA for s in range(4) if s not in re):
                (seat,) = re
                return tuple(Party.RE if s == seat else Party.KONTRA for s in range(4)), seat
        if len(re) != 2:
            flag = self._conflict_flag(len(self.tricks), Message("conflict.qc_missing", n=len(self._qc_plays)), ())
            raise UnresolvedError(Message("unresolved", flag=flag.text), flag)
        return tuple(Party.RE if s in re else Party.KONTRA for s in range(4)), None

    # -- calls --------------------------------------------------------------------------

    def call(self, seat: int, call: Call | str) -> None:
        """Announce Re/Kontra or an Absage for ``seat``'s party.

        Raises:
            IllegalCallError: too late (not enough cards held, or by trick), the wrong party, the
                same call twice, before the Hochzeit's Klärungsstich, or an Absage before the
                party's own Re/Kontra; the message says which.
        """
        if not isinstance(call, Call):
            try:
                call = Call(call)
            except ValueError:
                known = ", ".join(c.value for c in Call)
                raise IllegalCallError(Message("not_a_call", given=call, known=known)) from None
        record = self._check_call(seat, call)
        self.history.append(CallEvent(seat, call))
        self._add_call(record)

    def _add_call(self, record: _CallRecord) -> None:
        self._calls.append(record)
        if record.party is not None:
            self._reveal(record.seat, record.party)
        self._check_parties()

    def _hochzeit_shift(self) -> int:
        """DDV 6.4.2: after a Hochzeit clarified in trick k, the limits move by k - 1 cards (tricks)."""
        if self.contract.type is ContractType.HOCHZEIT and self._hochzeit_decided_at:
            return self._hochzeit_decided_at - 1
        return 0

    def required_cards(self, call: Call) -> int:
        """Cards a player must still hold to make ``call`` now (before the reply rule)."""
        return self._n_tricks - 1 - call.level - self._hochzeit_shift()

    def deadline_trick(self, call: Call) -> int:
        """Under ``announce_by_trick``: the 1-based trick by whose end ``call`` must be said."""
        return call.level + 1 + self._hochzeit_shift()

    def _limit(self, call: Call) -> int:
        return self.deadline_trick(call) if self.rules.announce_by_trick else self.required_cards(call)

    def _in_time(self, seat: int, limit: int, late: int = 0) -> bool:
        """Whether ``seat`` is within ``limit`` (cards or trick), ``late`` more for a reply."""
        if self.rules.announce_by_trick:
            deadline = limit + late
            done = len(self.tricks)
            return done < deadline or (done == deadline and not self.current_trick.plays)
        return self.cards_held(seat) >= limit - late

    def _too_late(self, seat: int, call: Call, limit: int, reply: _CallRecord | None = None) -> Message:
        if self.rules.announce_by_trick:
            if reply is not None:
                return Message("why.trick_reply", call=call, trick=limit, reply=reply.limit + 1, other=reply.call)
            return Message("why.trick", call=call, trick=limit)
        held = self.cards_held(seat)
        if reply is not None:
            return Message(
                "why.cards_reply",
                held=held,
                call=call,
                required=limit,
                reply=reply.limit - 1,
                other=reply.call,
            )
        return Message("why.cards", held=held, call=call, required=limit)

    def _check_call(self, seat: int, call: Call) -> _CallRecord:
        if seat not in _SEATS:
            raise IllegalCallError(Message("seat_range", seat=seat))

        def refuse(why: Message) -> IllegalCallError:
            return IllegalCallError(Message("call_refused", seat=Seat(seat), call=call, why=why))

        if self.is_over:
            raise refuse(Message("why.over"))
        c = self.contract
        if c.type is ContractType.HOCHZEIT and not self._hochzeit_decided_at:
            raise refuse(Message("why.hochzeit_open"))
        party = self._caller_party(seat, call, refuse)
        limit = self._limit(call)
        event = len(self.history)
        if party is None:
            # Both parties announced; the caller's side shows later. Check what holds for either.
            if not self._in_time(seat, limit):
                raise refuse(self._too_late(seat, call, limit))
            levels = [max((r.call.level for r in self._calls if self._party_of(r) is p), default=0) for p in Party]
            if min(levels) >= call.level:
                raise refuse(Message("why.both_said", call=call))
            return _CallRecord(seat, call, None, limit, event)
        made = [r for r in self._calls if self._party_of(r) is party]
        if call.level == 0:
            if (call is Call.RE) != (party is Party.RE):
                raise refuse(Message("why.other_party", seat=Seat(seat), party=party))
            if any(r.call.level == 0 for r in made):
                raise refuse(Message("why.said_already", party=party))
            if not self._in_time(seat, limit):
                opposing = [r for r in self._calls if self._party_of(r) not in (party, None)]
                # Reply rule: answer the opponents' last call one card (trick) later than it needed.
                if not opposing or not self._in_time(seat, opposing[-1].limit, late=1):
                    raise refuse(self._too_late(seat, call, limit, opposing[-1] if opposing else None))
        else:
            if not any(r.call.level == 0 for r in made):
                raise refuse(Message("why.not_announced", party=party))
            top = max(r.call.level for r in made)
            if top >= call.level:
                raise refuse(Message("why.said_higher", party=party, top=_LEVEL_NAME[top]))
            if not self._in_time(seat, limit):
                raise refuse(self._too_late(seat, call, limit))
        return _CallRecord(seat, call, party, limit, event)

    def _caller_party(self, seat: int, call: Call, refuse: Any) -> Party | None:
        truth = self._true_party(seat)
        if truth is not None:
            return truth
        if call.level == 0:
            claimed = Party.RE if call is Call.RE else Party.KONTRA
            known = self.parties()
            if sum(1 for s, p in enumerate(known) if p is claimed and s != seat) >= 2:
                raise refuse(Message("why.both_known", party=claimed))
            return claimed
        announced = {r.party for r in self._calls if r.call.level == 0}
        if len(announced) == 1:
            return next(iter(announced))
        if not announced:
            raise refuse(Message("why.nobody_announced"))
        return None  # both parties announced: either side may say it

    def _true_party(self, seat: int) -> Party | None:
        """The party as far as anything known tells it: contract, hands, revealed cards and calls."""
        c = self.contract
        if self._sau_seat is not None:
            return self._revealed[seat]
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
        """Per seat ``Party.RE``/``Party.KONTRA`` as far as the played cards and calls reveal it, else None.

        Seats whose evidence is in conflict (``conflict``) are None.
        """
        known = list(self._revealed)
        if self.contract.type is ContractType.NORMAL and self._sau_seat is None:
            if self._conflict is not None:
                seats = {s for i in self._conflict.events for s in [self._event_seat(i)] if s is not None}
                return tuple(None if s in seats else known[s] for s in range(4))
            qc = self._qc_seats()
            if len(qc) == 2 and qc[0] == qc[1]:
                return tuple(Party.RE if s == qc[0] else Party.KONTRA for s in range(4))
            re = [s for s in range(4) if known[s] is Party.RE]
            kontra = [s for s in range(4) if known[s] is Party.KONTRA]
            if len(re) == 2:
                return tuple(Party.RE if s in re else Party.KONTRA for s in range(4))
            # Two known Kontra players prove nothing: one Re player may hold both Kreuz-Damen.
            if len(kontra) >= 3:
                return tuple(Party.KONTRA if s in kontra else Party.RE for s in range(4))
        return tuple(known)

    def _event_seat(self, index: int) -> int | None:
        event = self.history[index] if 0 <= index < len(self.history) else None
        return getattr(event, "seat", None)

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
            self.current_trick = self._new_trick(self.contract.leader)
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
            self._add_call(record)
        elif isinstance(event, SchweinchenEvent):
            self._check_schweinchen(event.seat)
            self.history.append(event)
        elif isinstance(event, ClaimEvent):
            self.history.append(event)
            self._apply_claim(event.seat)
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
        if seat not in _SEATS:
            raise IllegalCallError(Message("seat_range", seat=seat))

        def refuse(why: Message) -> IllegalCallError:
            return IllegalCallError(Message("schweinchen_refused", seat=Seat(seat), why=why))

        if not (self.rules.schweinchen and self.contract.allows_schweinchen):
            raise refuse(Message("why.schweinchen_off", contract=self.contract.name))
        others = [s for s in self._fox_seats if s != seat]
        if others:
            raise refuse(Message("why.fox_played", other=Seat(others[0])))
        if self._hand_counts is not None and self._hand_counts[seat][_FOX] != 2:
            raise refuse(Message("why.fox_missing"))

    @classmethod
    def replay(
        cls,
        rules: Rules,
        contract: Contract,
        players: Sequence[str],
        history: Iterable[Event],
        hands: Sequence[Iterable[Card | str]] | None = None,
        *,
        strict: bool = False,
        bock: int = 0,
    ) -> Game:
        """A new game with ``history`` applied event by event.

        Raises:
            IllegalCallError / IllegalPlayError: an event breaks a rule (as when it was first made).
        """
        game = cls(rules, contract, players, hands, strict=strict, bock=bock)
        fast = not game.strict
        n_tricks = game._n_tricks
        for event in history:
            if type(event) is PlayEvent:
                # Fast path for the common case; play() repeats every check with its message.
                if (
                    fast
                    and type(event.card) is Card
                    and event.seat in _SEATS
                    and len(game.tricks) < n_tricks
                    and game.claimed is None
                ):
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
        elif isinstance(event, ClaimEvent):
            self.claim(event.seat)
        else:
            self.close_trick()

    # -- legal cards ---------------------------------------------------------------------

    def legal_cards(self, seat: int) -> list[Card]:
        """The distinct cards ``seat`` may play now (must follow the led suit if it can).

        Raises:
            ValueError: the hands are not known.
        """
        if self._remaining is None:
            raise ValueError(Message("hands_unknown").en)
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
            raise ValueError(Message("hands_unknown").en)
        return Counter({card: n for card, n in zip(ALL_CARDS, self._remaining[seat]) if n > 0})

    # -- result --------------------------------------------------------------------------

    def result(self, *, penalties: bool = False) -> GameResult:
        """Score the finished game per DDV 7.1-7.3 (with the rules' house rules).

        Args:
            penalties: apply the DDV penalty for a proven renege (the offender's party loses).

        Raises:
            ValueError: the game is not over.
            UnresolvedError: the parties are in conflict (a ``party_conflict`` flag); no result.
        """
        return score_game(self, penalties=penalties)

    def special_points(self) -> list[ScoreItem]:
        """The special points the finished tricks show so far, as the rules count them.

        A finished game's result holds the same items; during play an item's party is None
        while the cards have not revealed it, and a Fuchs counts once both parties are known.
        """
        return special_points(self)

    def to_dict(self) -> dict[str, object]:
        """The game as a ``dokocam-game/1`` record object (``record.load_record`` reads it)."""
        hands = None
        if self.hands is not None:
            hands = [sorted(h.elements(), key=lambda c: c.index) for h in self.hands]
        return record_object(
            self.players, self.rules.to_dict(), self.contract.to_dict(), self.history, hands, self.bock
        )

    def __repr__(self) -> str:
        return (
            f"<Game {self.contract.name} trick={self.trick_number + (0 if self.is_over else 1)} "
            f"to_move={self.to_move} flags={len(self.flags)}>"
        )


_SEATS = frozenset(range(4))
_LEVEL_NAME = {0: "Re/Kontra", 1: "keine 90", 2: "keine 60", 3: "keine 30", 4: "schwarz"}


def _card(card: Card | str) -> Card:
    return card if type(card) is Card else Card.parse(card)  # type: ignore[arg-type]


def _parse_hands(hands: Sequence[Iterable[Card | str]], rules: Rules) -> tuple[list[int], ...]:
    """Count each hand per card index, checking sizes and copies against the deck."""
    if len(hands) != 4:
        raise RulesError(Message("hands_four", n=len(hands)))
    counts = []
    total = [0] * 24
    for seat, hand in enumerate(hands):
        row = [0] * 24
        for c in hand:
            i = _card(c).index
            row[i] += 1
            total[i] += 1
        size = sum(row)
        if size != rules.hand_size:
            raise RulesError(Message("hand_size", seat=Seat(seat), size=size, expected=rules.hand_size))
        counts.append(row)
    copies = rules.copies_of
    if total != list(copies):
        i = next(i for i in range(24) if total[i] != copies[i])
        raise RulesError(Message("hands_copies", card=ALL_CARDS[i], n=total[i], copies=copies[i]))
    return tuple(counts)
