"""House rules as switches on one frozen value, with the presets ``tournament`` and ``pub``.

``tournament`` follows the DDV Turnierspielregeln; ``pub`` is the "Kneipendoppelkopf" preset
of the rule documents (zweite Dulle, Schweinchen, Schmeißen, Bockrunden).

>>> Rules.tournament().second_dulle_beats_first
False
>>> Rules.from_dict({"preset": "pub", "schweinchen": False}).to_dict()
{'preset': 'pub', 'schweinchen': False}
>>> Rules.from_dict({"preset": "tournament", "fuchs_am_end": True}).fuchs_am_end
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from dokocam.engine.cards import Card, Rank
from dokocam.engine.errors import RulesError

__all__ = ["Rules", "PRESETS", "schmeissen_reason", "armut_possible"]


@dataclass(frozen=True, slots=True)
class Rules:
    """The rule switches one game is played under.

    Attributes:
        preset: the preset these switches started from (``tournament`` or ``pub``).
        without_nines: play with 40 cards (10 each); announcement limits drop by two cards.
        second_dulle_beats_first: of two Herz-Zehnen in one trick the second wins.
        second_dulle_except_last_trick: ...but not in the last trick (first one wins there).
        schweinchen: both Karo-Asse in one hand are the two highest trumps (normal-order games
            only, not in solos); they are then no Füchse.
        fuchs_am_end: special point when a Karo-Ass wins the last trick.
        karlchen_fangen: special point for winning the last trick with an opposing Kreuz-Bube in it.
        armut: Armut (3 or fewer trumps) may be played.
        schmeissen: 5 nines or 5 kings allow throwing the hand in (redeal; the game does not count).
        bockrunden: some games start Bock rounds (a whole round counts double).
        bock_after_120: 120:120 starts Bock rounds.
        bock_after_lost_solo: a lost solo starts Bock rounds.
        bock_after_heart_trick: a trick of four Herz cards (plain hearts) starts Bock rounds.
        bock_after_lost_announcement: a game lost by a party that announced starts Bock rounds.
        pflichtsolo: every player owes one solo per Partie (score sheet).
        solo_special_points: count Doppelkopf/Fuchs/Karlchen in solos too (not DDV).
        gegen_die_alten_in_solo: Kontra winning a solo gets "gegen die Alten" (not DDV).
    """

    preset: str = "tournament"
    without_nines: bool = False
    second_dulle_beats_first: bool = False
    second_dulle_except_last_trick: bool = False
    schweinchen: bool = False
    fuchs_am_end: bool = False
    karlchen_fangen: bool = False
    armut: bool = False
    schmeissen: bool = False
    bockrunden: bool = False
    bock_after_120: bool = True
    bock_after_lost_solo: bool = False
    bock_after_heart_trick: bool = True
    bock_after_lost_announcement: bool = True
    pflichtsolo: bool = False
    solo_special_points: bool = False
    gegen_die_alten_in_solo: bool = False

    @classmethod
    def tournament(cls) -> Rules:
        """DDV tournament rules (the default)."""
        return PRESETS["tournament"]

    @classmethod
    def pub(cls) -> Rules:
        """The Kneipen preset: zweite Dulle, Schweinchen, Schmeißen, Bockrunden."""
        return PRESETS["pub"]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Rules:
        """Build from ``{"preset": ..., <switch>: value, ...}`` (the record's ``rules``).

        Raises:
            RulesError: unknown preset, unknown switch or a non-boolean value.
        """
        data = dict(data or {})
        preset = data.pop("preset", "tournament")
        if preset not in PRESETS:
            raise RulesError(f"unknown rules preset {preset!r}; expected one of {sorted(PRESETS)}")
        known = {f.name for f in fields(cls)} - {"preset"}
        for key, value in data.items():
            if key not in known:
                raise RulesError(f"unknown rule switch {key!r}; known switches: {', '.join(sorted(known))}")
            if not isinstance(value, bool):
                raise RulesError(f"rule switch {key!r} must be true or false, not {value!r}")
        return replace(PRESETS[preset], **data)

    def to_dict(self) -> dict[str, Any]:
        """The preset plus every switch that differs from it."""
        base = asdict(PRESETS[self.preset])
        out: dict[str, Any] = {"preset": self.preset}
        for key, value in asdict(self).items():
            if key != "preset" and base[key] != value:
                out[key] = value
        return out

    @property
    def hand_size(self) -> int:
        """Cards per player: 12, or 10 without nines."""
        return 10 if self.without_nines else 12

    @property
    def copies_of(self) -> tuple[int, ...]:
        """How many copies of each card index the deck holds (nines: 0 without nines)."""
        return _COPIES_WITHOUT_NINES if self.without_nines else _COPIES

    def starts_bock(self, *, tie_120: bool, lost_solo: bool, heart_trick: bool, lost_announced: bool) -> bool:
        """Whether a game with these facts starts Bock rounds under these rules."""
        if not self.bockrunden:
            return False
        return (
            (self.bock_after_120 and tie_120)
            or (self.bock_after_lost_solo and lost_solo)
            or (self.bock_after_heart_trick and heart_trick)
            or (self.bock_after_lost_announcement and lost_announced)
        )


_COPIES = (2,) * 24
_COPIES_WITHOUT_NINES = tuple(0 if i % 6 == 0 else 2 for i in range(24))

PRESETS: dict[str, Rules] = {
    "tournament": Rules(),
    "pub": Rules(
        preset="pub",
        second_dulle_beats_first=True,
        schweinchen=True,
        schmeissen=True,
        bockrunden=True,
    ),
}


def schmeissen_reason(hand: Iterable[Card], rules: Rules) -> str | None:
    """Why this hand may be thrown in under ``rules`` (5+ nines or 5+ kings), else None.

    >>> from dokocam.engine.cards import parse_cards
    >>> schmeissen_reason(parse_cards("9C 9C 9S 9H 9D QC"), Rules.pub())
    '5 nines'
    >>> schmeissen_reason(parse_cards("9C 9C 9S 9H 9D QC"), Rules.tournament()) is None
    True
    """
    if not rules.schmeissen:
        return None
    counts = Counter(card.rank for card in hand)
    if counts[Rank.NINE] >= 5:
        return f"{counts[Rank.NINE]} nines"
    if counts[Rank.KING] >= 5:
        return f"{counts[Rank.KING]} kings"
    return None


def armut_possible(hand: Iterable[Card], rules: Rules) -> bool:
    """Whether ``hand`` may declare Armut under ``rules``: 3 or fewer trumps of the normal game.

    With Schweinchen on, a hand holding both Karo-Asse counts them as trumps like any other.

    >>> from dokocam.engine.cards import parse_cards
    >>> rules = Rules.from_dict({"armut": True})
    >>> armut_possible(parse_cards("QC JD AD AC AC 10C KS KS AH AH KH 9S"), rules)
    True
    >>> armut_possible(parse_cards("QC JD AD 9D AC 10C KS KS AH AH KH 9S"), rules)
    False
    """
    if not rules.armut:
        return False
    from dokocam.engine.contract import Contract

    order = Contract.normal().card_order()
    return sum(1 for card in hand if order.is_trump(card)) <= 3
