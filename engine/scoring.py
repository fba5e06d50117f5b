"""Scoring a finished game per DDV Turnierspielregeln 7.1-7.3, itemized like a score sheet.

Who wins (7.1): Re needs 121 Augen, Kontra 120; if only Kontra announced, Re wins with 120 (and
Kontra needs 121). A party that made an Absage needs 151 / 181 / 211 / every trick; its opponents
then win with 90 / 60 / 30 / one trick. If both parties made Absagen and both miss them, nobody
wins: only the points for reaching 120/90/60/30 against the other party's Absage and the special
points count, netted between the parties.

Game value (7.2): gewonnen 1; unter 90/60/30, schwarz 1 each; Re 2, Kontra 2; each Absage 1
(an Absage includes the lower ones); 1 each for reaching 120/90/60/30 Augen against the
opponents' keine 90/60/30/schwarz (winning against schwarz takes one trick, the point 30 Augen).
Special points of the normal game: gegen die Alten
(Kontra wins), Doppelkopf (a trick of 40 Augen or more), Fuchs gefangen (an opponent's
Karo-Ass), Karlchen (the Kreuz-Bube wins the last trick), plus the house rules Fuchs am End and
Karlchen fangen. The special points of both parties are netted, so the winner's value may
become negative. A solo (also a silent or unresolved Hochzeit) has no special points and counts
three times for the soloist. Each Bock doubles the value. A schwarze Sau (house rule) is written
one against three like a solo but keeps the normal game's special points.

Every item is a ``ScoreItem`` with an ``ItemKind`` (German and English names). A game whose
parties are in conflict (a ``party_conflict`` flag) has no result: ``score_game`` raises
``UnresolvedError`` instead of writing points that break DDV 7.3.3.

>>> from dokocam.engine import Game
>>> game = Game()
>>> for code in ("AC 9C 10C KC AC 9C 10C KC 9S AS KS 10S AS 9S KS 10S AH 9H KH 9H AH KH JD 9D "
...              "JH QC JS 10D QS QD QC KD 10H QH JC AD 10H QH JC AD QS QD JS 10D JH JD KD 9D").split():
...     game.play(game.to_move, code)
>>> result = game.result()
>>> result.winner, result.augen[result.winner], [item.name for item in result.items], result.points
(<Party.RE: 're'>, 158, ['gewonnen', 'unter 90', 'Fuchs gefangen', 'Fuchs gefangen'], (4, -4, 4, -4))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from dokocam.engine.cards import Card, Rank, Suit
from dokocam.engine.contract import CardOrder, Contract, ContractType
from dokocam.engine.errors import EngineError
from dokocam.engine.messages import Message
from dokocam.engine.rules import Rules
from dokocam.engine.trick import Trick
from dokocam.engine.types import Call, Flag, FlagKind, ItemKind, Party, ScoreItem

__all__ = ["ScoreItem", "ItemKind", "GameResult", "ScoredGame", "score_game", "special_points"]

_JC = Card(Rank.JACK, Suit.CLUBS).index
_AD = Card(Rank.ACE, Suit.DIAMONDS).index
_HEARTS = 2  # suit class id of plain Herz
_TARGET = {0: 121, 1: 151, 2: 181, 3: 211}
_AGAINST_AUGEN = {1: 120, 2: 90, 3: 60, 4: 30}
_UNDER = ((90, ItemKind.UNDER_90), (60, ItemKind.UNDER_60), (30, ItemKind.UNDER_30))


class _Claim(Protocol):
    @property
    def seat(self) -> int: ...

    @property
    def tricks(self) -> int: ...

    @property
    def augen(self) -> int: ...


class ScoredGame(Protocol):
    """What scoring reads from a game (``engine.Game`` fits): public state only."""

    rules: Rules
    contract: Contract
    tricks: list[Trick]
    flags: list[Flag]
    bock: int

    @property
    def is_over(self) -> bool: ...

    @property
    def calls(self) -> list[tuple[int, Call, Party | None]]: ...

    @property
    def order(self) -> CardOrder: ...

    @property
    def schweinchen_seat(self) -> int | None: ...

    @property
    def schwarze_sau(self) -> int | None: ...

    @property
    def claimed(self) -> _Claim | None: ...

    def parties(self) -> tuple[Party | None, ...]: ...

    def final_parties(self) -> tuple[tuple[Party, ...], int | None]: ...


@dataclass(frozen=True)
class GameResult:
    """The scored game.

    Attributes:
        winner: the winning party, or None when both parties missed their Absagen.
        augen: Augen per party.
        tricks_won: tricks per party.
        items: every point with its kind and party (special points of both parties included).
        base_value: the netted value for ``winner`` (for Re when there is no winner), before Bock.
        game_value: ``base_value * 2**bock``.
        solo: the seat playing alone (points count three times for it), or None.
        bock: Bocks on this game.
        points: what each seat writes on the score sheet (sums to 0).
        bock_trigger: the game starts Bock rounds under the rules.
        parties: the final party of each seat.
        flags: the game's flags.
        penalty: the DDV ruling applied on request, if any: a proven renege makes its party lose
            (DDV 9.3), unless the game was already decided before that trick (DDV 9.4: it counts
            as played).
        claimed: tricks taken by a Spielabkürzung (DDV 5.4), 0 when every trick was played.
    """

    winner: Party | None
    augen: dict[Party, int]
    tricks_won: dict[Party, int]
    items: list[ScoreItem]
    base_value: int
    game_value: int
    solo: int | None
    bock: int
    points: tuple[int, int, int, int]
    bock_trigger: bool
    parties: tuple[Party, ...]
    flags: list[Flag] = field(default_factory=list)
    penalty: str | None = None
    claimed: int = 0

    @property
    def special_items(self) -> list[ScoreItem]:
        """The special points among the items (Doppelkopf, Fuchs gefangen, Karlchen, ...)."""
        return [item for item in self.items if item.kind.is_special]

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` form of ``dokocam score``."""
        return {
            "winner": None if self.winner is None else self.winner.value,
            "augen": {"re": self.augen[Party.RE], "kontra": self.augen[Party.KONTRA]},
            "tricks_won": {"re": self.tricks_won[Party.RE], "kontra": self.tricks_won[Party.KONTRA]},
            "points": list(self.points),
            "items": [item.to_dict() for item in self.items],
            "base_value": self.base_value,
            "game_value": self.game_value,
            "solo": self.solo,
            "bock": self.bock,
            "bock_trigger": self.bock_trigger,
            "parties": [p.value for p in self.parties],
            "flags": [flag.to_dict() for flag in self.flags],
            "penalty": self.penalty,
            "claimed": self.claimed,
        }


def score_game(game: ScoredGame, *, penalties: bool = False) -> GameResult:
    """Score ``game`` (see the module docstring for the rules applied).

    Raises:
        ValueError: the game is not over.
        UnresolvedError: the events do not resolve into two parties (a ``party_conflict`` flag).
    """
    if not game.is_over:
        raise EngineError(Message("not_over", done=len(game.tricks), total=game.rules.hand_size))
    rules = game.rules
    parties, solo = game.final_parties()
    sau = game.schwarze_sau is not None
    # Parties as indices (0 = Re, 1 = Kontra): enum-keyed dicts are slow on this hot path.
    side = [0 if p is Party.RE else 1 for p in parties]
    augen = [0, 0]
    tricks_won = [0, 0]
    suit_class = game.order.suit_class
    heart_trick = False
    for trick in game.tricks:
        w = side[_winner(trick)]
        augen[w] += trick.augen
        tricks_won[w] += 1
        if (
            not heart_trick
            and suit_class[trick.plays[0][1].index] == _HEARTS
            and len(trick.plays) == 4
            and all(suit_class[c.index] == _HEARTS for _, c in trick.plays)
        ):
            heart_trick = True
    claim = game.claimed
    if claim is not None:
        augen[side[claim.seat]] += claim.augen
        tricks_won[side[claim.seat]] += claim.tricks

    # Announcements: the highest level per party (an Absage includes the lower ones).
    announced = [False, False]
    level = [0, 0]
    for _, call, party in game.calls:
        if party is None:
            continue  # an Absage whose party never showed (cards missing)
        i = 0 if party is Party.RE else 1
        lvl = call.level
        if lvl == 0:
            announced[i] = True
        elif lvl > level[i]:
            level[i] = lvl

    def reached(i: int) -> bool:
        """Whether side ``i`` met the target of its own Absage."""
        if level[i] == 4:
            return tricks_won[1 - i] == 0
        return augen[i] >= _TARGET[level[i]]

    def against(i: int) -> bool:
        """Whether side ``i`` reached what the opponents' Absage left it (90/60/30/one trick)."""
        lvl = level[1 - i]
        if lvl == 4:
            return tricks_won[i] > 0
        return augen[i] >= 240 - _TARGET[lvl] + 1

    penalty = None
    winner: int | None
    renege = next((f for f in game.flags if f.kind is FlagKind.RENEGE), None) if penalties else None
    if renege is not None and renege.seat is not None and _decided_before(game, side, renege.trick, announced, level):
        # DDV 9.4: a rule broken when the game was already decided does not change its result.
        penalty = (
            f"renege: seat {renege.seat} in trick {renege.trick + 1} "
            "(DDV 9.4: the game was already decided and counts as played)"
        )
        renege = None
    if renege is not None and renege.seat is not None:
        winner = 1 - side[renege.seat]
        penalty = f"renege: seat {renege.seat} in trick {renege.trick + 1} (DDV 9.3: the game is lost for its party)"
    elif level[0] or level[1]:
        re_ok = reached(0) if level[0] else against(0)
        kontra_ok = reached(1) if level[1] else against(1)
        winner = 0 if re_ok and not kontra_ok else 1 if kontra_ok and not re_ok else None
    else:
        re_needs = 120 if announced[1] and not announced[0] else 121
        winner = 0 if augen[0] >= re_needs else 1

    penalized = renege is not None
    items: list[ScoreItem] = []
    add = items.append
    is_solo = solo is not None and not sau
    if winner is not None:
        wp = _PARTY[winner]
        loser = 1 - winner
        add(ScoreItem(ItemKind.WON, wp))
        if not penalized:
            for limit, kind in _UNDER:
                if augen[loser] < limit:
                    add(ScoreItem(kind, wp))
            if tricks_won[loser] == 0:
                add(ScoreItem(ItemKind.SCHWARZ, wp))
        else:
            # DDV 9.3: the Absagen of the innocent party count as made.
            for lvl in range(1, level[winner] + 1):
                add(ScoreItem(_MADE[lvl - 1], wp))
        for i in (0, 1):
            if announced[i]:
                add(ScoreItem(ItemKind.RE_SAID if i == 0 else ItemKind.KONTRA_SAID, wp, 2))
        for i in (0, 1):
            for lvl in range(1, level[i] + 1):
                add(ScoreItem(ItemKind.absage(_PARTY[i], lvl), wp))
    if not penalized:
        for i in (0, 1):
            for k in range(1, level[1 - i] + 1):
                if augen[i] >= _AGAINST_AUGEN[k]:
                    add(ScoreItem(ItemKind.against(k), _PARTY[i]))
    if winner == 1 and (solo is None or rules.gegen_die_alten_in_solo):
        add(ScoreItem(ItemKind.GEGEN_DIE_ALTEN, Party.KONTRA))
    if not penalized and (not is_solo or rules.solo_special_points):
        items += _special_points(game, [_PARTY[s] for s in side], final=True)

    reference = winner if winner is not None else 0
    ref_party = _PARTY[reference]
    base = 0
    for item in items:
        base += item.value if item.party is ref_party else -item.value
    value = base * 2**game.bock
    signs = (value, -value) if reference == 0 else (-value, value)
    if solo is not None:
        points = tuple(signs[side[s]] * (3 if s == solo else 1) for s in range(4))
    else:
        points = tuple(signs[side[s]] for s in range(4))

    lost_announced = winner is not None and (announced[1 - winner] or level[1 - winner] > 0)
    bock_trigger = rules.bockrunden and rules.starts_bock(
        tie_120=augen[0] == 120 and augen[1] == 120,
        lost_solo=is_solo and game.contract.type is ContractType.SOLO and winner == 1,
        heart_trick=heart_trick,
        lost_announced=lost_announced,
    )
    return GameResult(
        winner=None if winner is None else _PARTY[winner],
        augen={Party.RE: augen[0], Party.KONTRA: augen[1]},
        tricks_won={Party.RE: tricks_won[0], Party.KONTRA: tricks_won[1]},
        items=items,
        base_value=base,
        game_value=value,
        solo=solo,
        bock=game.bock,
        points=(points[0], points[1], points[2], points[3]),
        bock_trigger=bock_trigger,
        parties=parties,
        flags=list(game.flags),
        penalty=penalty,
        claimed=0 if claim is None else claim.tricks,
    )


def _winner(trick: Trick) -> int:
    seat = trick.winner()
    assert seat is not None  # a finished trick holds at least one card
    return seat


def _decided_before(game: ScoredGame, side: list[int], trick: int, announced: list[bool], level: list[int]) -> bool:
    """Whether a party had already reached its winning target before ``trick`` (0-based)."""
    augen = [0, 0]
    tricks = [0, 0]
    for t in game.tricks[:trick]:
        w = side[_winner(t)]
        augen[w] += t.augen
        tricks[w] += 1
    for i in (0, 1):
        own, other = level[i], level[1 - i]
        if own:
            if own < 4 and augen[i] >= _TARGET[own]:
                return True
        elif other == 4:
            if tricks[i] > 0:
                return True
        elif other:
            if augen[i] >= 241 - _TARGET[other]:
                return True
        else:
            kontra_only = announced[1] and not announced[0]
            needs = (120 if kontra_only else 121) if i == 0 else (121 if kontra_only else 120)
            if augen[i] >= needs:
                return True
    return False


_PARTY = (Party.RE, Party.KONTRA)
_MADE = (ItemKind.UNDER_90, ItemKind.UNDER_60, ItemKind.UNDER_30, ItemKind.SCHWARZ)


def special_points(game: ScoredGame) -> list[ScoreItem]:
    """The special points the finished tricks show so far, under the game's rules.

    During play a party is None while the cards have not revealed it; a Fuchs counts once the
    parties of its owner and of the trick's winner are known and differ. In a solo there are
    none unless the rules give them (``solo_special_points``); a schwarze Sau keeps them.
    """
    c = game.contract
    alone = c.type in (ContractType.SOLO, ContractType.SILENT_HOCHZEIT)
    if alone and not game.rules.solo_special_points:
        return []
    if game.is_over:
        try:
            parties, solo = game.final_parties()
        except EngineError:
            return []
        if solo is not None and game.schwarze_sau is None and not game.rules.solo_special_points:
            return []
        return _special_points(game, list(parties), final=True)
    return _special_points(game, list(game.parties()), final=False)


def _special_points(game: ScoredGame, party: Sequence[Party | None], *, final: bool) -> list[ScoreItem]:
    """The special points of the normal game in the played tricks (both parties; netted by the caller)."""
    rules = game.rules
    foxes = game.schweinchen_seat is None  # Schweinchen are no Füchse
    items: list[ScoreItem] = []
    tricks = game.tricks
    last = rules.hand_size - 1
    for t, trick in enumerate(tricks):
        plays = trick.plays
        top_seat = _winner(trick)
        winner = party[top_seat]
        if trick.augen >= 40:
            items.append(ScoreItem(ItemKind.DOPPELKOPF, winner, 1, t))
        if foxes:
            for seat, card in plays:
                if card.index == _AD and winner is not None and party[seat] not in (None, winner):
                    items.append(ScoreItem(ItemKind.FUCHS_GEFANGEN, winner, 1, t))
        if t == last and len(plays) == 4:
            top = trick.winning_card()
            assert top is not None
            if top.index == _JC:
                items.append(ScoreItem(ItemKind.KARLCHEN, winner, 1, t))
            if rules.fuchs_am_end and foxes and top.index == _AD:
                items.append(ScoreItem(ItemKind.FUCHS_AM_END, winner, 1, t))
            if rules.karlchen_fangen:
                for seat, card in plays:
                    if card.index == _JC and winner is not None and party[seat] not in (None, winner):
                        items.append(ScoreItem(ItemKind.KARLCHEN_GEFANGEN, winner, 1, t))
    return items
