"""Contracts (normal game, Hochzeit, solos, Armut) and their card orders.

A contract decides which cards are trump, in which order, and the order of the plain suits.
The orders are precomputed once per (contract kind, Schweinchen) as ``CardOrder`` tables indexed
by ``Card.index``, so following a trick is a few list look-ups.

>>> order = Contract.normal().card_order()
>>> [str(c) for c in order.trumps_high_to_low]
['10H', 'QC', 'QS', 'QH', 'QD', 'JC', 'JS', 'JH', 'JD', 'AD', '10D', 'KD', '9D']
>>> [str(c) for c in Contract.solo(SoloKind.QUEENS, 0).card_order().plain_high_to_low(Suit.HEARTS)]
['AH', '10H', 'KH', 'JH', '9H']
>>> Contract.from_dict({"type": "solo", "kind": "hearts", "declarer": 2})
Contract.solo(SoloKind.HEARTS, 2)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from dokocam.engine.cards import ALL_CARDS, Card, Rank, Suit
from dokocam.engine.errors import RulesError
from dokocam.engine.messages import Lang, Message

__all__ = ["ContractType", "SoloKind", "Contract", "CardOrder", "TRUMP", "SUIT_NAMES"]

#: Suit class id of trump in ``CardOrder.suit_class`` (plain suits are 0..3 in ``Suit`` order).
TRUMP = 4
#: Printable name of each suit class id.
SUIT_NAMES = ("C", "S", "H", "D", "trump")


class ContractType(enum.Enum):
    NORMAL = "normal"
    HOCHZEIT = "hochzeit"
    SILENT_HOCHZEIT = "silent_hochzeit"
    SOLO = "solo"
    ARMUT = "armut"


class SoloKind(enum.Enum):
    QUEENS = "queens"
    JACKS = "jacks"
    FLEISCHLOS = "fleischlos"
    CLUBS = "clubs"
    SPADES = "spades"
    HEARTS = "hearts"
    DIAMONDS = "diamonds"

    @property
    def german_name(self) -> str:
        return _SOLO_GERMAN[self]

    def name_in(self, lang: Lang) -> str:
        return _SOLO_GERMAN[self]


_SOLO_GERMAN = {
    SoloKind.QUEENS: "Damensolo",
    SoloKind.JACKS: "Bubensolo",
    SoloKind.FLEISCHLOS: "Fleischlos",
    SoloKind.CLUBS: "Kreuzsolo",
    SoloKind.SPADES: "Piksolo",
    SoloKind.HEARTS: "Herzsolo",
    SoloKind.DIAMONDS: "Karosolo",
}
_COLOUR_SOLO_SUIT = {
    SoloKind.CLUBS: Suit.CLUBS,
    SoloKind.SPADES: Suit.SPADES,
    SoloKind.HEARTS: Suit.HEARTS,
    SoloKind.DIAMONDS: Suit.DIAMONDS,
}


@dataclass(frozen=True, slots=True)
class CardOrder:
    """Trump membership and card strength under one contract, indexed by ``Card.index``.

    Attributes:
        suit_class: per card, 0..3 for its plain suit (``Suit`` order) or ``TRUMP``.
        power: per card, its strength within its suit class (higher beats lower).
        dulle: index of the Herz-Zehn when it is trump, else -1.
    """

    suit_class: tuple[int, ...]
    power: tuple[int, ...]
    dulle: int

    @property
    def trumps_high_to_low(self) -> list[Card]:
        """The trump faces, strongest first."""
        trumps = [c for c in ALL_CARDS if self.suit_class[c.index] == TRUMP]
        return sorted(trumps, key=lambda c: -self.power[c.index])

    def plain_high_to_low(self, suit: Suit) -> list[Card]:
        """The faces of ``suit`` that are not trump, strongest first."""
        cls = _SUIT_POS[suit]
        cards = [c for c in ALL_CARDS if self.suit_class[c.index] == cls]
        return sorted(cards, key=lambda c: -self.power[c.index])

    def is_trump(self, card: Card) -> bool:
        return bool(self.suit_class[card.index] == TRUMP)


_SUIT_POS = {suit: i for i, suit in enumerate(Suit)}
_PLAIN_RANKS = (Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.NINE)
_QUEENS = [Card(Rank.QUEEN, s) for s in Suit]
_JACKS = [Card(Rank.JACK, s) for s in Suit]
_DULLE = Card(Rank.TEN, Suit.HEARTS)
_FOX = Card(Rank.ACE, Suit.DIAMONDS)


def _colour_trumps(suit: Suit) -> list[Card]:
    low = [Card(rank, suit) for rank in (Rank.ACE, Rank.TEN, Rank.KING, Rank.NINE)]
    return [_DULLE, *_QUEENS, *_JACKS, *[c for c in low if c != _DULLE]]


@cache
def _build_order(kind: SoloKind | None, schweinchen: bool) -> CardOrder:
    if kind is SoloKind.QUEENS:
        trumps = list(_QUEENS)
    elif kind is SoloKind.JACKS:
        trumps = list(_JACKS)
    elif kind is SoloKind.FLEISCHLOS:
        trumps = []
    else:
        trumps = _colour_trumps(_COLOUR_SOLO_SUIT.get(kind, Suit.DIAMONDS) if kind else Suit.DIAMONDS)
    if schweinchen:
        trumps.remove(_FOX)
        trumps.insert(0, _FOX)
    suit_class = [0] * 24
    power = [0] * 24
    for pos, card in enumerate(trumps):
        suit_class[card.index] = TRUMP
        power[card.index] = 100 + len(trumps) - pos
    trump_set = set(trumps)
    for card in ALL_CARDS:
        if card not in trump_set:
            suit_class[card.index] = _SUIT_POS[card.suit]
            power[card.index] = len(_PLAIN_RANKS) - _PLAIN_RANKS.index(card.rank)
    dulle = _DULLE.index if _DULLE in trump_set else -1
    return CardOrder(tuple(suit_class), tuple(power), dulle)


@dataclass(frozen=True, slots=True)
class Contract:
    """What is being played: the type, the solo kind, the declarer and (Armut) the partner.

    Build with the class methods; ``from_dict``/``to_dict`` use the record's form. A solo
    marked ``pflichtsolo`` (the record's ``"pflichtsolo": true``, written by the score sheet) is
    led by the soloist (DDV 4.2); every other game, a Lustsolo too, by seat 0 (Vorhand).
    """

    type: ContractType = ContractType.NORMAL
    kind: SoloKind | None = None
    declarer: int | None = None
    partner: int | None = None
    pflichtsolo: bool = False

    @classmethod
    def normal(cls) -> Contract:
        return cls()

    @classmethod
    def hochzeit(cls, declarer: int) -> Contract:
        """Announced Hochzeit: the partner is the first other player to win one of the first 3 tricks."""
        return cls(ContractType.HOCHZEIT, None, _seat(declarer))

    @classmethod
    def silent_hochzeit(cls, declarer: int) -> Contract:
        """Both Kreuz-Damen in one hand, not announced: played (and scored) as a solo."""
        return cls(ContractType.SILENT_HOCHZEIT, None, _seat(declarer))

    @classmethod
    def solo(cls, kind: SoloKind, declarer: int, *, pflichtsolo: bool = False) -> Contract:
        """A declared solo; a ``pflichtsolo`` is led by the soloist."""
        return cls(ContractType.SOLO, SoloKind(kind), _seat(declarer), None, bool(pflichtsolo))

    @property
    def leader(self) -> int:
        """The seat that leads the first trick: the soloist of a Pflichtsolo, else Vorhand (seat 0)."""
        return self.declarer if self.pflichtsolo and self.declarer is not None else 0

    @classmethod
    def armut(cls, declarer: int, partner: int) -> Contract:
        """Armut: ``declarer`` handed over the trumps, ``partner`` took them; they are Re."""
        if _seat(declarer) == _seat(partner):
            raise RulesError(Message("armut_partner"))
        return cls(ContractType.ARMUT, None, declarer, partner)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Contract:
        """Parse the record's contract object.

        Raises:
            RulesError: unknown type or kind, a missing or bad seat.
        """
        if not isinstance(data, Mapping):
            raise RulesError(Message("contract_object", given=data))
        try:
            ctype = ContractType(data.get("type"))
        except ValueError:
            known = ", ".join(t.value for t in ContractType)
            raise RulesError(Message("contract_type", given=data.get("type"), known=known)) from None
        pflichtsolo = data.get("pflichtsolo", False)
        if not isinstance(pflichtsolo, bool) or (pflichtsolo and ctype is not ContractType.SOLO):
            raise RulesError(Message("pflichtsolo_flag", value=pflichtsolo))
        if ctype is ContractType.NORMAL:
            return cls.normal()
        declarer = _seat(data.get("declarer"), "declarer")
        if ctype is ContractType.SOLO:
            try:
                kind = SoloKind(data.get("kind"))
            except ValueError:
                known = ", ".join(k.value for k in SoloKind)
                raise RulesError(Message("solo_kind", given=data.get("kind"), known=known)) from None
            return cls.solo(kind, declarer, pflichtsolo=pflichtsolo)
        if ctype is ContractType.ARMUT:
            return cls.armut(declarer, _seat(data.get("partner"), "partner"))
        return cls(ctype, None, declarer)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type.value}
        if self.kind is not None:
            out["kind"] = self.kind.value
        if self.declarer is not None:
            out["declarer"] = self.declarer
        if self.partner is not None:
            out["partner"] = self.partner
        if self.pflichtsolo:
            out["pflichtsolo"] = True
        return out

    def __repr__(self) -> str:
        t = self.type
        if t is ContractType.NORMAL:
            return "Contract.normal()"
        if t is ContractType.SOLO:
            assert self.kind is not None
            extra = ", pflichtsolo=True" if self.pflichtsolo else ""
            return f"Contract.solo(SoloKind.{self.kind.name}, {self.declarer}{extra})"
        if t is ContractType.ARMUT:
            return f"Contract.armut({self.declarer}, {self.partner})"
        return f"Contract.{t.value}({self.declarer})"

    def __str__(self) -> str:
        return self.name

    def name_in(self, lang: Lang) -> str:
        return self.name

    @property
    def name(self) -> str:
        """A German display name, e.g. ``Damensolo``."""
        if self.type is ContractType.SOLO:
            assert self.kind is not None
            return self.kind.german_name
        return {
            ContractType.NORMAL: "Normalspiel",
            ContractType.HOCHZEIT: "Hochzeit",
            ContractType.SILENT_HOCHZEIT: "stille Hochzeit",
            ContractType.ARMUT: "Armut",
        }[self.type]

    @property
    def is_solo(self) -> bool:
        """A declared solo or a silent Hochzeit (an unresolved Hochzeit is decided in play)."""
        return self.type in (ContractType.SOLO, ContractType.SILENT_HOCHZEIT)

    @property
    def has_normal_trumps(self) -> bool:
        """Trump order of the normal game (normal, Hochzeit, Armut, Karo solo)."""
        return self.kind is None or self.kind is SoloKind.DIAMONDS

    @property
    def allows_schweinchen(self) -> bool:
        """Schweinchen counts in the normal-order games that are not solos."""
        return self.kind is None

    def card_order(self, schweinchen: bool = False) -> CardOrder:
        """The trump/plain-suit table; ``schweinchen`` puts both Karo-Asse on top."""
        return _build_order(
            self.kind if self.type is ContractType.SOLO else None, schweinchen and self.allows_schweinchen
        )


def _seat(value: Any, what: str = "seat") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise RulesError(Message("seat_value", what=what, value=value))
    return value
