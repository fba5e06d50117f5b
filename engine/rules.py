"""House rules as switches on one frozen value, with the presets ``tournament``, ``pub`` and ``family``.

``tournament`` follows the DDV Turnierspielregeln; ``pub`` is the "Kneipendoppelkopf" preset
of the rule documents (zweite Dulle, Schweinchen, Schmeißen, Bockrunden); ``family`` is the
family's rules of seed 000 (without nines, schwarze Sau, the Hochzeit partner is the first
other player to win a trick led with a plain suit, announcements by trick, Armut, Schmeißen with
five kings).

>>> Rules.tournament().second_dulle_beats_first
False
>>> Rules.from_dict({"preset": "pub", "schweinchen": False}).to_dict()
{'preset': 'pub', 'schweinchen': False}
>>> Rules.from_dict({"preset": "tournament", "fuchs_am_end": True}).fuchs_am_end
True
>>> Rules.from_dict({"preset": "family"}).hochzeit_partner
<HochzeitPartner.FIRST_PLAIN_TRICK: 'first_plain_trick'>
>>> Rules.from_dict(["pub"])
Traceback (most recent call last):
...
dokocam.engine.errors.RulesError: rules must be an object like {'preset': 'tournament'}, not ['pub']
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from dokocam.engine.cards import Card, Rank
from dokocam.engine.errors import RulesError
from dokocam.engine.messages import Message

__all__ = ["Rules", "PRESETS", "HochzeitPartner", "schmeissen_reason", "armut_possible"]


class HochzeitPartner(enum.StrEnum):
    """Which trick makes its winner the Hochzeit partner (the Klärungsstich), among the first three.

    A trick that does not meet the condition decides nothing; when none of the first three
    tricks is won by another player under the condition, the Hochzeit player plays alone.
    """

    FIRST_TRICK = "first_trick"
    """Any trick (DDV 6.4.2)."""
    FIRST_PLAIN_TRICK = "first_plain_trick"
    """A trick led with a plain suit (Fehlstich)."""
    FIRST_TRUMP_TRICK = "first_trump_trick"
    """A trick led with trump."""


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
        schwarze_sau: who wins the trick holding the second Pik-Dame plays alone against the
            other three (normal games only). Read from seed 000's "not tripled": the game keeps
            the normal game's value and items (special points count, no "gegen die Alten"),
            and is written one against three like a solo (the Sau player 3x, each other 1x),
            the only split that keeps every game's entries summing to zero (DDV 7.3.3).
        hochzeit_partner: the Hochzeit's partner condition (``HochzeitPartner``).
        announce_by_trick: announcements are timed by tricks, not by cards held: Re/Kontra
            until the end of the first trick, keine 90 until the end of the second, ...,
            schwarz until the end of the fifth (a reply one trick later).
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
    schwarze_sau: bool = False
    hochzeit_partner: HochzeitPartner = HochzeitPartner.FIRST_TRICK
    announce_by_trick: bool = False

    @classmethod
    def tournament(cls) -> Rules:
        """DDV tournament rules (the default)."""
        return PRESETS["tournament"]

    @classmethod
    def pub(cls) -> Rules:
        """The Kneipen preset: zweite Dulle, Schweinchen, Schmeißen, Bockrunden."""
        return PRESETS["pub"]

    @classmethod
    def family(cls) -> Rules:
        """The family's rules of seed 000 (see the module docstring)."""
        return PRESETS["family"]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Rules:
        """Build from ``{"preset": ..., <switch>: value, ...}`` (the record's ``rules``).

        Raises:
            RulesError: not an object, an unknown preset or switch, or a value the switch does not take.
        """
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise RulesError(Message("rules_object", given=data))
        data = dict(data)
        preset = data.pop("preset", "tournament")
        if not isinstance(preset, str) or preset not in PRESETS:
            raise RulesError(Message("rules_preset", preset=preset, known=sorted(PRESETS)))
        known = {f.name for f in fields(cls)} - {"preset"}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise RulesError(Message("rules_switch", switch=key, known=", ".join(sorted(known))))
            if key == "hochzeit_partner":
                try:
                    values[key] = HochzeitPartner(value)
                except ValueError:
                    choices = [p.value for p in HochzeitPartner]
                    raise RulesError(Message("rules_choice", switch=key, known=choices, value=value)) from None
            elif not isinstance(value, bool):
                raise RulesError(Message("rules_bool", switch=key, value=value))
            else:
                values[key] = value
        return replace(PRESETS[preset], **values)

    def to_dict(self) -> dict[str, Any]:
        """The preset plus every switch that differs from it."""
        base = PRESETS[self.preset]
        out: dict[str, Any] = {"preset": self.preset}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "preset" and getattr(base, f.name) != value:
                out[f.name] = value.value if isinstance(value, HochzeitPartner) else value
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
    "family": Rules(
        preset="family",
        without_nines=True,
        armut=True,
        schmeissen=True,
        schwarze_sau=True,
        hochzeit_partner=HochzeitPartner.FIRST_PLAIN_TRICK,
        announce_by_trick=True,
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
