"""Scoring a finished game per DDV Turnierspielregeln 7.1-7.3, itemized like a score sheet.

Who wins (7.1): Re needs 121 Augen, Kontra 120; if only Kontra announced, Re wins with 120 (and
Kontra needs 121). A party that made an Absage needs 151 / 181 / 211 / every trick; its opponents
then win with 90 / 60 / 30 / one trick. If both parties made Absagen and both miss them, nobody
wins: only the points for reaching 120/90/60/30 against the other party's Absage and the special
points count, netted between the parties.

Game value (7.2): gewonnen 1; unter 90/60/30, schwarz 1 each; Re 2, Kontra 2; each Absage 1
(an Absage includes the lower ones); 1 each for reaching 120/90/60/30 (one trick against
schwarz) against the opponents' Absage. Special points of the normal game: gegen die Alten
(Kontra wins), Doppelkopf (a trick of 40 Augen or more), Fuchs gefangen (an opponent's
Karo-Ass), Karlchen (the Kreuz-Bube wins the last trick), plus the house rules Fuchs am End and
Karlchen fangen. The special points of both parties are netted, so the winner's value may
become negative. A solo (also a silent or unresolved Hochzeit) has no special points and counts
three times for the soloist. Each Bock doubles the value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.cards import Card, Rank, Suit
from engine.contract import ContractType
from engine.game import Call, Flag, Party

if TYPE_CHECKING:
    from engine.game import Game

__all__ = ["ScoreItem", "GameResult", "score_game"]

_JC = Card(Rank.JACK, Suit.CLUBS).index
_AD = Card(Rank.ACE, Suit.DIAMONDS).index
_HEARTS = 2  # suit class id of plain Herz
_TARGET = {0: 121, 1: 151, 2: 181, 3: 211}
_AGAINST = {1: ("120 gegen keine 90", 120), 2: ("90 gegen keine 60", 90), 3: ("60 gegen keine 30", 60)}
_UNDER = ((90, "unter 90"), (60, "unter 60"), (30, "unter 30"))


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One line of the game value: ``name`` earned by ``party`` worth ``value`` points."""

    name: str
    party: Party
    value: int = 1

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "party": self.party.value, "value": self.value}


@dataclass(frozen=True)
class GameResult:
    """The scored game.

    Attributes:
        winner: the winning party, or None when both parties missed their Absagen.
        augen: Augen per party.
        tricks_won: tricks per party.
        items: every point with its name and party (special points of both parties included).
        base_value: the netted value for ``winner`` (for Re when there is no winner), before Bock.
        game_value: ``base_value * 2**bock``.
        solo: the seat playing alone (points count three times for it), or None.
        bock: Bocks on this game.
        points: what each seat writes on the score sheet (sums to 0).
        bock_trigger: the game starts Bock rounds under the rules.
        parties: the final party of each seat.
        flags: the game's flags.
        penalty: the DDV penalty applied, if any (e.g. ``"renege: seat 2, trick 4 (DDV 9.4)"``).
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
        }


def _final_parties(game: Game) -> tuple[tuple[Party, ...], int | None]:
    alone = game.plays_alone
    c = game.contract
    if alone is not None:
        return tuple(Party.RE if s == alone else Party.KONTRA for s in range(4)), alone
    if c.type is ContractType.HOCHZEIT:
        re = {c.declarer, game.hochzeit_partner}
    elif c.type is ContractType.ARMUT:
        re = {c.declarer, c.partner}
    else:
        known = game.parties()
        re = {s for s in range(4) if known[s] is Party.RE}
    return tuple(Party.RE if s in re else Party.KONTRA for s in range(4)), None


def score_game(game: Game, *, penalties: bool = False) -> GameResult:
    """Score ``game`` (see the module docstring for the rules applied).

    Raises:
        ValueError: the game is not over.
    """
    if not game.is_over:
        raise ValueError(
            f"the game is not over: {len(game.tricks)} of {game.rules.hand_size} tricks played"
        )
    rules = game.rules
    parties, solo = _final_parties(game)
    RE, KONTRA = Party.RE, Party.KONTRA
    is_re = [p is RE for p in parties]
    augen_re = tricks_re = 0
    augen_all = 0
    suit_class = game.order.suit_class
    heart_trick = False
    for trick in game.tricks:
        augen_all += trick.augen
        if is_re[trick.winner()]:  # type: ignore[index]
            augen_re += trick.augen
            tricks_re += 1
        if not heart_trick and len(trick.plays) == 4 and all(suit_class[c.index] == _HEARTS for _, c in trick.plays):
            heart_trick = True
    augen = {RE: augen_re, KONTRA: augen_all - augen_re}
    tricks_won = {RE: tricks_re, KONTRA: len(game.tricks) - tricks_re}

    # Announcements: the highest level per party (an Absage includes the lower ones).
    announced = {RE: False, KONTRA: False}
    level = {RE: 0, KONTRA: 0}
    for _, call, party in game.calls:
        if call.level == 0:
            announced[party] = True
        else:
            level[party] = max(level[party], call.level)

    def reached(party: Party, lvl: int) -> bool:
        """Whether ``party`` met the target of an Absage of level ``lvl`` (0: plain win)."""
        if lvl == 4:
            return tricks_won[party.other] == 0
        return augen[party] >= _TARGET[lvl]

    def against(party: Party) -> bool:
        """Whether ``party`` reached what the opponents' Absage left it (90/60/30/one trick)."""
        lvl = level[party.other]
        if lvl == 4:
            return tricks_won[party] > 0
        return augen[party] >= 240 - _TARGET[lvl] + 1

    penalty = None
    renege = next((f for f in game.flags if f.kind == "renege"), None)
    if penalties and renege is not None:
        offender = parties[renege.seat]  # type: ignore[index]
        winner: Party | None = offender.other
        penalty = f"renege: seat {renege.seat} in trick {renege.trick + 1} (DDV 9.4: the game is lost for its party)"
    elif level[RE] or level[KONTRA]:
        re_ok = reached(RE, level[RE]) if level[RE] else against(RE)
        kontra_ok = reached(KONTRA, level[KONTRA]) if level[KONTRA] else against(KONTRA)
        winner = RE if re_ok and not kontra_ok else KONTRA if kontra_ok and not re_ok else None
    else:
        re_needs = 120 if announced[KONTRA] and not announced[RE] else 121
        winner = RE if augen[RE] >= re_needs else KONTRA

    items: list[ScoreItem] = []
    is_solo = solo is not None
    if winner is not None:
        loser = winner.other
        items.append(ScoreItem("gewonnen", winner))
        if penalty is None:
            for limit, name in _UNDER:
                if augen[loser] < limit:
                    items.append(ScoreItem(name, winner))
            if tricks_won[loser] == 0:
                items.append(ScoreItem("schwarz", winner))
        else:
            # DDV 9.4: the Absagen of the innocent party count as made.
            for lvl in range(1, level[winner] + 1):
                items.append(ScoreItem(("unter 90", "unter 60", "unter 30", "schwarz")[lvl - 1], winner))
        for party in (RE, KONTRA):
            if announced[party]:
                items.append(ScoreItem(f"{party.german_name} angesagt", winner, 2))
        for party in (RE, KONTRA):
            for lvl in range(1, level[party] + 1):
                items.append(ScoreItem(f"{_ABSAGE_NAME[lvl]} abgesagt ({party.german_name})", winner))
    if penalty is None:
        for party in (RE, KONTRA):
            lvl = level[party.other]
            for k in range(1, lvl + 1):
                if k == 4:
                    if tricks_won[party] > 0:
                        items.append(ScoreItem("Stich gegen schwarz", party))
                elif augen[party] >= _AGAINST[k][1]:
                    items.append(ScoreItem(_AGAINST[k][0], party))
    if winner is KONTRA and (not is_solo or rules.gegen_die_alten_in_solo):
        items.append(ScoreItem("gegen die Alten", KONTRA))
    if penalty is None and (not is_solo or rules.solo_special_points):
        items.extend(_special_points(game, parties))

    reference = winner if winner is not None else RE
    base = sum(i.value for i in items if i.party is reference) - sum(
        i.value for i in items if i.party is not reference
    )
    value = base * 2**game.bock
    sign = {reference: value, reference.other: -value}
    if solo is not None:
        points = tuple(sign[parties[s]] * (3 if s == solo else 1) for s in range(4))
    else:
        points = tuple(sign[parties[s]] for s in range(4))

    lost_announced = winner is not None and (announced[winner.other] or level[winner.other] > 0)
    bock_trigger = rules.starts_bock(
        tie_120=augen[RE] == 120 and augen[KONTRA] == 120,
        lost_solo=is_solo and game.contract.type is ContractType.SOLO and winner is KONTRA,
        heart_trick=heart_trick,
        lost_announced=lost_announced,
    )
    return GameResult(
        winner=winner,
        augen=augen,
        tricks_won=tricks_won,
        items=items,
        base_value=base,
        game_value=value,
        solo=solo,
        bock=game.bock,
        points=points,  # type: ignore[arg-type]
        bock_trigger=bock_trigger,
        parties=parties,
        flags=list(game.flags),
        penalty=penalty,
    )


_ABSAGE_NAME = {1: Call.NO90.german_name, 2: Call.NO60.german_name, 3: Call.NO30.german_name, 4: Call.BLACK.german_name}


def _special_points(game: Game, parties: tuple[Party, ...]) -> list[ScoreItem]:
    rules = game.rules
    items: list[ScoreItem] = []
    foxes = game.schweinchen_seat is None  # Schweinchen are no Füchse
    tricks = game.tricks
    last = len(tricks) - 1
    for t, trick in enumerate(tricks):
        winner = trick.winner()
        party = parties[winner]  # type: ignore[index]
        if trick.augen >= 40:
            items.append(ScoreItem("Doppelkopf", party))
        if foxes:
            for seat, card in trick.plays:
                if card.index == _AD and parties[seat] is not party:
                    items.append(ScoreItem("Fuchs gefangen", party))
        if t == last and len(trick.plays) == 4:
            top = trick.winning_card().index  # type: ignore[union-attr]
            if top == _JC:
                items.append(ScoreItem("Karlchen", party))
            if rules.fuchs_am_end and foxes and top == _AD:
                items.append(ScoreItem("Fuchs am End", party))
            if rules.karlchen_fangen:
                for seat, card in trick.plays:
                    if card.index == _JC and parties[seat] is not party:
                        items.append(ScoreItem("Karlchen gefangen", party))
    return items
