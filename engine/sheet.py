"""The score sheet of a Partie: many games, dealer rotation, Bock rounds, Pflichtsolo, totals.

A Partie is played by 4 or 5 people around a table. The engine's `Game` always has four seats
(seat 0 is Vorhand, the player left of the dealer); the sheet says, game by game, which sheet
player sits in which game seat (`Partie.deal`), and turns the game's points into sheet entries.

House rules that belong to the sheet, and the choices made where the rule texts leave room:

- Five at the table: the dealer sits out and gets no entry for that game.
- Dealing moves one place clockwise after every game, also after a game that was abandoned.
  After a Pflichtsolo the same dealer deals again, and that game does not count towards the
  round (the tournament's "24 games plus the Pflichtsoli"). A round is one deal by every player.
- A Pflichtsolo is the first declared solo (`ContractType.SOLO`) a player plays in the Partie;
  silent Hochzeit and a Hochzeit without partner are scored as solos but are not Pflichtsoli.
  Who still owes one in the last round of a Partie by rounds must declare it as Vorhand
  (Vorführung); the sheet refuses any other game in that deal.
- Bockrunden: a game whose result has `bock_trigger` queues one Bock on each of the next N
  scored games, N the number of players at the table. Overlapping triggers stack, as the
  Bock marks on a paper sheet do: a game under k Bocks counts 2**k (`BockStacking.OVERLAP`).
  `BockStacking.APPEND` instead queues the new round after the Bock games already owed, so a
  game never counts more than double. Abandoned games neither use nor trigger Bocks.
- Length: a number of games, a number of rounds, or a point target (once a player's total
  reaches it, the round is finished), or open-ended when none is given. Abandoned games count
  towards the length, as their deals count towards the round: a one-game Partie whose game
  is abandoned ends without score.
- A game ended early because a player left gets no score; if that player leaves the table and
  fewer than four remain, the Partie ends.
- A hand thrown in (Schmeißen) or an Armut nobody takes is dealt again by the same dealer:
  nothing is written and the deal stays as it is.

Each game is built for its deal with `Partie.new_game` (players in seat order, rules, Bocks)
and written with `Partie.record_game` once it is over.

>>> p = Partie(["Anna", "Ben", "Cem", "Dora"], rounds=1)
>>> p.deal.dealer, p.deal.seats
('Dora', ('Anna', 'Ben', 'Cem', 'Dora'))
>>> entry = p.record_points((1, -1, -1, 1))
>>> p.totals
{'Anna': 1, 'Ben': -1, 'Cem': -1, 'Dora': 1}
>>> p.deal.dealer, p.deal.seats
('Anna', ('Ben', 'Cem', 'Dora', 'Anna'))
"""

from __future__ import annotations

import csv
import enum
import io
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from dokocam.engine.contract import Contract, ContractType
from dokocam.engine.errors import EngineError
from dokocam.engine.game import Game
from dokocam.engine.rules import Rules

__all__ = [
    "BockStacking",
    "Deal",
    "Partie",
    "PartieOverError",
    "PflichtsoloError",
    "ScoreCheckError",
    "SheetEntry",
    "SheetError",
    "check_entries",
]

SEATS = 4


class SheetError(EngineError):
    """A score sheet operation that cannot be done as asked (a ``ValueError``)."""


class ScoreCheckError(SheetError):
    """A game's entries break DDV 7.3.3 (they must sum to zero and share parity)."""


class PartieOverError(SheetError):
    """A game was recorded (or undone) when the Partie does not allow it."""


class PflichtsoloError(SheetError):
    """A deal that must be a Vorführung (an owed Pflichtsolo) was recorded as something else."""


class BockStacking(enum.Enum):
    """How a Bock trigger combines with Bock games already queued."""

    OVERLAP = "overlap"
    """Each trigger adds a Bock to each of the next N games; k Bocks count 2**k."""
    APPEND = "append"
    """A new Bock round starts after the Bock games already queued; at most double."""


class ScoredResult(Protocol):
    """What the sheet needs from a finished game's result (`engine.GameResult` fits)."""

    @property
    def points(self) -> Sequence[int]: ...

    @property
    def bock_trigger(self) -> bool: ...

    @property
    def bock(self) -> int: ...


def check_entries(entries: Sequence[int], *, game: int | None = None) -> None:
    """Check one game's entries against DDV 7.3.3.

    Args:
        entries: What each of the game's four players writes on the sheet.
        game: The game number, for the error message.

    Raises:
        ScoreCheckError: When the entries do not sum to zero or mix even and odd values.

    >>> check_entries([3, -1, -1, -1])
    >>> check_entries([2, -1, -1, 0], game=4)
    Traceback (most recent call last):
    ...
    dokocam.engine.sheet.ScoreCheckError: game 4: entries [2, -1, -1, 0] mix even and odd values; ...
    """
    where = f"game {game}: " if game is not None else ""
    values = list(entries)
    if len(values) != SEATS:
        raise ScoreCheckError(f"{where}expected {SEATS} entries, one per seat, got {len(values)}")
    total = sum(values)
    if total != 0:
        raise ScoreCheckError(f"{where}entries {values} sum to {total}; DDV 7.3.3 wants every game to sum to 0")
    if len({value % 2 for value in values}) != 1:
        raise ScoreCheckError(f"{where}entries {values} mix even and odd values; DDV 7.3.3 wants all even or all odd")


@dataclass(frozen=True)
class Deal:
    """Who plays the next game and how it counts.

    Attributes:
        number: 1-based number of the game in the Partie (abandoned games count).
        round: 1-based round the game belongs to.
        dealer: The player who deals.
        seats: The players in game seat order; seat 0 is Vorhand, left of the dealer.
        sitting_out: The dealer when five are at the table, else None.
        bocks: How many Bocks lie on this game; it counts 2**bocks.
        forced_solo: The Vorhand player when they must play their owed Pflichtsolo now.
    """

    number: int
    round: int
    dealer: str
    seats: tuple[str, str, str, str]
    sitting_out: str | None
    bocks: int
    forced_solo: str | None

    @property
    def multiplier(self) -> int:
        """The factor the game's points are multiplied with on the sheet."""
        return 1 << self.bocks

    @property
    def vorhand(self) -> str:
        """The player in seat 0, who leads the first trick."""
        return self.seats[0]

    def seat_of(self, player: str) -> int:
        """The game seat of `player`.

        Raises:
            SheetError: When the player does not play this game.
        """
        try:
            return self.seats.index(player)
        except ValueError:
            raise SheetError(f"{player!r} does not play game {self.number}") from None


@dataclass(frozen=True)
class SheetEntry:
    """One line of the sheet: a game and what each player wrote for it.

    Attributes:
        deal: The deal the game was played under.
        game_points: The game's points per seat, before the Bock multiplier.
        points: Each sheet player's entry (multiplied); players who did not play are absent.
        totals: Every sheet player's running total after this game.
        contract: The contract's display name ("Normalspiel", "Damensolo", ...).
        solo_player: The declarer of a declared solo, else None.
        pflichtsolo: True when the game was the declarer's Pflichtsolo.
        bock_trigger: True when the game queued a Bock round.
        abandoned_by: The player whose leaving ended the game without score, if any; the empty
            string when the game was abandoned without naming anyone.
    """

    deal: Deal
    game_points: tuple[int, ...]
    points: dict[str, int]
    totals: dict[str, int]
    contract: str = "Normalspiel"
    solo_player: str | None = None
    pflichtsolo: bool = False
    bock_trigger: bool = False
    abandoned_by: str | None = None

    @property
    def abandoned(self) -> bool:
        """True when the game ended early and was not scored."""
        return self.abandoned_by is not None

    @property
    def vorfuehrung(self) -> bool:
        """True when the game was a forced Pflichtsolo (Vorführung)."""
        return self.pflichtsolo and self.deal.forced_solo == self.solo_player


@dataclass(frozen=True)
class _Input:
    """A recorded event; the sheet's state is rebuilt from these (see `Partie.undo`)."""

    points: tuple[int, ...] | None
    solo_seat: int | None = None
    contract: str = "Normalspiel"
    bock_trigger: bool = False
    abandoned_by: str | None = None


@dataclass
class _State:
    present: list[str]
    dealer: str
    number: int = 1
    round: int = 1
    deals_in_round: int = 0
    bocks: list[int] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    solos_played: set[str] = field(default_factory=set)
    target_reached: bool = False
    aborted: bool = False
    over: bool = False


class Partie:
    """A score sheet over many games.

    Args:
        players: 4 or 5 names in clockwise seating order.
        rules: The house rules; the sheet reads the `bockrunden` and `pflichtsolo` switches.
            None means `Rules.tournament()` (no Bock rounds, no Pflichtsolo).
        first_dealer: Who deals the first game; by default the last player, so that the first
            game's seats are the players in the given order.
        games: End after this many games (abandoned ones included).
        rounds: End after this many rounds (required for a Vorführung of the Pflichtsolo).
        target: End after the round in which a player's total reaches this many points.
        bock_stacking: How overlapping Bock triggers combine.

    Raises:
        SheetError: For a wrong number of players, duplicate names, an unknown first dealer,
            more than one length, a non-positive length, or Pflichtsolo with a length in games
            or points (the owed solo can only be forced in a Partie by rounds).
    """

    def __init__(
        self,
        players: Sequence[str],
        rules: Rules | None = None,
        *,
        first_dealer: str | None = None,
        games: int | None = None,
        rounds: int | None = None,
        target: int | None = None,
        bock_stacking: BockStacking = BockStacking.OVERLAP,
    ) -> None:
        names = [str(p) for p in players]
        if len(names) not in (4, 5):
            raise SheetError(f"a Partie needs 4 or 5 players, got {len(names)}: {names}")
        if len(set(names)) != len(names):
            raise SheetError(f"player names must differ, got {names}")
        lengths = {"games": games, "rounds": rounds, "target": target}
        given = {k: v for k, v in lengths.items() if v is not None}
        if len(given) > 1:
            raise SheetError(f"give at most one length (games, rounds or target), got {given}")
        for key, value in given.items():
            if value < 1:
                raise SheetError(f"{key} must be at least 1, got {value}")
        if first_dealer is None:
            first_dealer = names[-1]
        if first_dealer not in names:
            raise SheetError(f"first dealer {first_dealer!r} is not one of {names}")
        self.players: tuple[str, ...] = tuple(names)
        self.rules = rules if rules is not None else Rules.tournament()
        self.bockrunden = self.rules.bockrunden
        self.pflichtsolo = self.rules.pflichtsolo
        if self.pflichtsolo and (games is not None or target is not None):
            raise SheetError(
                "Pflichtsolo needs a Partie by rounds (or open-ended): the owed solo is forced in the last round"
            )
        self.first_dealer = first_dealer
        self.games = games
        self.rounds = rounds
        self.target = target
        self.bock_stacking = bock_stacking
        self._inputs: list[_Input] = []
        self._entries: list[SheetEntry] = []
        self._state = self._fresh_state()

    # -- reading the sheet -------------------------------------------------------------

    @property
    def entries(self) -> list[SheetEntry]:
        """The sheet's lines, one per game dealt (abandoned games included)."""
        return list(self._entries)

    @property
    def totals(self) -> dict[str, int]:
        """Every player's running total."""
        return dict(self._state.totals)

    @property
    def present(self) -> tuple[str, ...]:
        """The players still at the table, in seating order."""
        return tuple(self._state.present)

    @property
    def is_over(self) -> bool:
        """True when the Partie's length is reached or too few players are left."""
        return self._state.over

    @property
    def aborted(self) -> bool:
        """True when the Partie ended because fewer than four players were left."""
        return self._state.aborted

    @property
    def round(self) -> int:
        """The 1-based round of the next game (of the last one, once over)."""
        return self._state.round

    @property
    def bock_queue(self) -> list[int]:
        """Bocks on the next scored games, in order (empty when none are owed)."""
        return list(self._state.bocks)

    @property
    def pflichtsolo_owed(self) -> list[str]:
        """Players at the table who have not played their Pflichtsolo yet (empty without the rule)."""
        if not self.pflichtsolo:
            return []
        return [p for p in self._state.present if p not in self._state.solos_played]

    @property
    def pflichtsolo_played(self) -> list[str]:
        """Players who have played their Pflichtsolo, in seating order."""
        return [p for p in self.players if p in self._state.solos_played]

    @property
    def deal(self) -> Deal | None:
        """The next game's deal, or None when the Partie is over."""
        if self._state.over:
            return None
        return self._deal_for(self._state)

    @property
    def leaders(self) -> list[str]:
        """The players with the highest total, in seating order (the winners once it is over)."""
        best = max(self._state.totals.values())
        return [p for p in self.players if self._state.totals[p] == best]

    def standings(self) -> list[tuple[str, int]]:
        """Players and totals, best first (ties keep the seating order)."""
        return sorted(self._state.totals.items(), key=lambda item: -item[1])

    # -- writing the sheet -------------------------------------------------------------

    def new_game(self, contract: Contract | None = None, hands: Sequence[Sequence[object]] | None = None) -> Game:
        """An `engine.Game` for the current deal: its players in seat order, the rules, its Bocks.

        The contract is marked as the sheet knows it (`contract_for`): a Pflichtsolo is led by
        the soloist, and the game's record says so.

        Raises:
            PartieOverError: When the Partie is over.
        """
        deal = self.deal
        if deal is None:
            raise PartieOverError("the Partie is over; no more games can be dealt")
        marked = self.contract_for(contract) if contract is not None else None
        return Game(self.rules, marked, deal.seats, hands, bock=deal.bocks)  # type: ignore[arg-type]

    def is_pflichtsolo(self, contract: Contract | None) -> bool:
        """Whether `contract`, played in the current deal, is its declarer's Pflichtsolo.

        Only a declared solo counts, and only under the `pflichtsolo` rule, for a player who has
        not played one yet in this Partie.
        """
        deal = self.deal
        if not self.pflichtsolo or deal is None or contract is None or contract.type is not ContractType.SOLO:
            return False
        assert contract.declarer is not None
        return deal.seats[contract.declarer] not in self._state.solos_played

    def contract_for(self, contract: Contract) -> Contract:
        """`contract` as the sheet says it is played in the current deal: marked `pflichtsolo`
        (led by the soloist) exactly when it is the declarer's Pflichtsolo."""
        wanted = self.is_pflichtsolo(contract)
        if contract.pflichtsolo == wanted:
            return contract
        return replace(contract, pflichtsolo=wanted)

    def record(self, result: ScoredResult, contract: Contract | None = None) -> SheetEntry:
        """Score a finished game under the current deal.

        The sheet decides how many Bocks lie on a game (`deal.bocks`). A result scored with
        exactly those Bocks (a game from `new_game`) is written as it is; a result scored
        without Bock (`bock=0`) is multiplied by `deal.multiplier`.

        Args:
            result: The game's result (`engine.GameResult`): `points` in game seat order,
                `bock` and `bock_trigger`.
            contract: The game's contract (seats as in the game); None for a normal game.
                Only a declared solo counts as a Pflichtsolo.

        Returns:
            The new sheet line.

        Raises:
            PartieOverError: When the Partie is over.
            ScoreCheckError: When the points break DDV 7.3.3.
            PflichtsoloError: When this deal is a Vorführung and the game is not that player's solo.
            SheetError: When the result was scored with Bocks other than 0 or the deal's.
        """
        deal = self.deal
        if deal is None:
            raise PartieOverError("the Partie is over; no more games can be recorded")
        points = tuple(result.points)
        bock = getattr(result, "bock", 0)
        if bock == deal.bocks and bock:
            # Already multiplied by the game; undo it so the sheet multiplies once.
            points = tuple(p // deal.multiplier for p in points)
        elif bock:
            raise SheetError(
                f"game {deal.number} was scored with {bock} Bock(s) but the sheet has {deal.bocks} "
                "on this deal; build the game with Partie.new_game() or with bock=0"
            )
        solo_seat, label = _solo_seat_and_label(contract)
        return self.record_points(points, solo_seat=solo_seat, contract=label, bock_trigger=bool(result.bock_trigger))

    def record_game(self, game: Game) -> SheetEntry:
        """Score a finished `engine.Game` (its `result()` and `contract`) under the current deal.

        Raises:
            ValueError: When the game is not over; else as `record`.
        """
        return self.record(game.result(), game.contract)

    def record_points(
        self,
        points: Sequence[int],
        *,
        solo_seat: int | None = None,
        contract: str | None = None,
        bock_trigger: bool = False,
    ) -> SheetEntry:
        """Score a game given its points per game seat (without Bock).

        Args:
            points: Four points in game seat order, as the game's result gives them.
            solo_seat: The game seat of the declarer of a declared solo, if it was one.
            contract: A label for the sheet; defaults to "Solo" or "Normalspiel".
            bock_trigger: True when the game queues a Bock round (ignored without Bockrunden).

        Raises:
            PartieOverError, ScoreCheckError, PflichtsoloError: see `record`.
        """
        if solo_seat is not None and not 0 <= solo_seat < SEATS:
            raise SheetError(f"solo seat must be 0..3, got {solo_seat}")
        label = contract if contract is not None else ("Solo" if solo_seat is not None else "Normalspiel")
        item = _Input(tuple(int(p) for p in points), solo_seat, label, bool(bock_trigger))
        return self._push(item)

    def abandon(self, left: str | None = None) -> SheetEntry:
        """End the current game without score, because a player left the table.

        The next game is dealt as usual by the next dealer. If `left` is given, that player
        leaves the table for good; with fewer than four players left, the Partie ends.

        Raises:
            PartieOverError: When the Partie is over.
            SheetError: When `left` is not at the table.
        """
        if left is not None and left not in self._state.present:
            raise SheetError(f"{left!r} is not at the table; present: {self._state.present}")
        return self._push(_Input(None, abandoned_by=left if left is not None else ""))

    def undo(self) -> SheetEntry:
        """Remove the last line and return it; the sheet is rebuilt from the remaining games.

        Raises:
            PartieOverError: When nothing has been recorded.
        """
        if not self._inputs:
            raise PartieOverError("nothing to undo: no game has been recorded")
        last = self._entries[-1]
        inputs = self._inputs[:-1]
        self._inputs, self._entries, self._state = [], [], self._fresh_state()
        for item in inputs:
            self._push(item)
        return last

    # -- export ------------------------------------------------------------------------

    def csv_rows(self) -> list[list[str]]:
        """The sheet as rows: a header, one row per game, entries then running totals.

        A player who did not play a game has an empty entry.

        >>> p = Partie(["A", "B", "C", "D"])
        >>> _ = p.record_points((3, -1, -1, -1), solo_seat=0, contract="Damensolo")
        >>> p.csv_rows()[0][:7]
        ['game', 'round', 'dealer', 'contract', 'multiplier', 'note', 'A']
        >>> p.csv_rows()[1]
        ['1', '1', 'D', 'Damensolo', '1', '', '3', '-1', '-1', '-1', '3', '-1', '-1', '-1']
        """
        header = ["game", "round", "dealer", "contract", "multiplier", "note"]
        header += list(self.players) + [f"total {p}" for p in self.players]
        rows = [header]
        for entry in self._entries:
            notes = []
            if entry.abandoned:
                notes.append(f"abandoned, {entry.abandoned_by} left" if entry.abandoned_by else "abandoned")
            if entry.vorfuehrung:
                notes.append("Vorführung")
            elif entry.pflichtsolo:
                notes.append("Pflichtsolo")
            if entry.bock_trigger:
                notes.append("Bock")
            row = [
                str(entry.deal.number),
                str(entry.deal.round),
                entry.deal.dealer,
                "" if entry.abandoned else entry.contract,
                str(entry.deal.multiplier),
                "; ".join(notes),
            ]
            row += [str(entry.points[p]) if p in entry.points else "" for p in self.players]
            row += [str(entry.totals[p]) for p in self.players]
            rows.append(row)
        return rows

    def to_csv(self) -> str:
        """The sheet as CSV text (see `csv_rows`)."""
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(self.csv_rows())
        return buffer.getvalue()

    # -- internals ---------------------------------------------------------------------

    def _fresh_state(self) -> _State:
        return _State(
            present=list(self.players),
            dealer=self.first_dealer,
            totals={p: 0 for p in self.players},
        )

    def _deal_for(self, state: _State) -> Deal:
        present = state.present
        at = present.index(state.dealer)
        order = [present[(at + k) % len(present)] for k in range(1, len(present) + 1)]
        # The clockwise order starting left of the dealer ends with the dealer: with four at
        # the table the dealer plays seat 3, with five the dealer sits out.
        seats = tuple(order[:SEATS])
        sitting_out = state.dealer if len(present) == 5 else None
        forced = None
        vorhand = seats[0]
        if (
            self.pflichtsolo
            and self.rounds is not None
            and state.round == self.rounds
            and vorhand not in state.solos_played
        ):
            forced = vorhand
        return Deal(
            number=state.number,
            round=state.round,
            dealer=state.dealer,
            seats=seats,  # type: ignore[arg-type]
            sitting_out=sitting_out,
            bocks=state.bocks[0] if state.bocks else 0,
            forced_solo=forced,
        )

    def _push(self, item: _Input) -> SheetEntry:
        state = self._state
        if state.over:
            raise PartieOverError("the Partie is over; no more games can be recorded")
        deal = self._deal_for(state)
        if item.points is None:
            entry = self._abandon(state, deal, item)
        else:
            entry = self._score(state, deal, item)
        self._inputs.append(item)
        self._entries.append(entry)
        return entry

    def _score(self, state: _State, deal: Deal, item: _Input) -> SheetEntry:
        assert item.points is not None
        if len(item.points) != SEATS:
            raise ScoreCheckError(f"game {deal.number}: expected {SEATS} points, one per seat, got {list(item.points)}")
        solo_player = deal.seats[item.solo_seat] if item.solo_seat is not None else None
        if deal.forced_solo is not None and solo_player != deal.forced_solo:
            raise PflichtsoloError(
                f"game {deal.number}: {deal.forced_solo} still owes a Pflichtsolo and is Vorhand "
                f"in the last round, so must play a solo now (Vorführung); got {item.contract!r}"
            )
        entries = [p * deal.multiplier for p in item.points]
        check_entries(entries, game=deal.number)
        # The game's checks passed; from here on the state changes.
        points = dict(zip(deal.seats, entries))
        for player, value in points.items():
            state.totals[player] += value
        pflichtsolo = self.pflichtsolo and solo_player is not None and solo_player not in state.solos_played
        if solo_player is not None:
            state.solos_played.add(solo_player)
        if state.bocks:
            state.bocks.pop(0)
        trigger = self.bockrunden and item.bock_trigger
        if trigger:
            self._queue_bock_round(state)
        if self.target is not None and max(state.totals.values()) >= self.target:
            state.target_reached = True
        entry = SheetEntry(
            deal=deal,
            game_points=item.points,
            points=points,
            totals=dict(state.totals),
            contract=item.contract,
            solo_player=solo_player,
            pflichtsolo=pflichtsolo,
            bock_trigger=trigger,
        )
        # After a Pflichtsolo the same dealer deals again and the round does not move on.
        self._advance(state, rotate=not pflichtsolo)
        return entry

    def _abandon(self, state: _State, deal: Deal, item: _Input) -> SheetEntry:
        entry = SheetEntry(
            deal=deal,
            game_points=(),
            points={},
            totals=dict(state.totals),
            contract=item.contract,
            abandoned_by=item.abandoned_by,
        )
        self._advance(state, rotate=True, leaving=item.abandoned_by or None)
        return entry

    def _queue_bock_round(self, state: _State) -> None:
        size = len(state.present)
        if self.bock_stacking is BockStacking.OVERLAP:
            while len(state.bocks) < size:
                state.bocks.append(0)
            for k in range(size):
                state.bocks[k] += 1
        else:
            state.bocks.extend([1] * size)

    def _advance(self, state: _State, *, rotate: bool, leaving: str | None = None) -> None:
        state.number += 1
        if rotate:
            at = state.present.index(state.dealer)
            state.dealer = state.present[(at + 1) % len(state.present)]
            state.deals_in_round += 1
        if leaving is not None:
            if state.dealer == leaving:
                at = state.present.index(leaving)
                state.dealer = state.present[(at + 1) % len(state.present)]
            state.present.remove(leaving)
            if len(state.present) < SEATS:
                state.aborted = True
                state.over = True
                return
        round_done = rotate and state.deals_in_round >= len(state.present)
        if round_done:
            state.deals_in_round = 0
            if self.rounds is not None and state.round >= self.rounds:
                state.over = True
                return
            if state.target_reached:
                state.over = True
                return
            state.round += 1
        if self.games is not None and state.number > self.games:
            state.over = True


def _solo_seat_and_label(contract: Contract | None) -> tuple[int | None, str]:
    """The declared solo's declarer seat (None otherwise) and the contract's display name."""
    if contract is None:
        return None, Contract.normal().name
    if contract.type is ContractType.SOLO:
        return contract.declarer, contract.name
    return None, contract.name
