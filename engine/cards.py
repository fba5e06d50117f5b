"""Cards: suits, ranks, the 24 faces, their codes, German names and Augen.

Both copies of a face are the same value, so a hand is a ``collections.Counter`` of cards.
Every face is interned: ``Card.parse`` and ``Card.from_index`` return the one shared instance,
which keeps table lookups (``card.index``) cheap.

>>> card = Card.parse("QC")
>>> str(card), card.german_name, card.symbol, card.augen, card.index
('QC', 'Kreuz-Dame', '♣D', 3, 3)
>>> Card.from_index(23)
Card(Rank.ACE, Suit.DIAMONDS)
>>> sum(Card.parse(code).augen for code in CARD_CODES) * 2
240
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from dokocam.engine.errors import InvalidCardError
from dokocam.engine.messages import Message

__all__ = ["Suit", "Rank", "Card", "CARD_CODES", "ALL_CARDS", "AUGEN_TOTAL", "parse_cards"]


class Suit(enum.Enum):
    """The four suits in their fixed order (Kreuz, Pik, Herz, Karo)."""

    CLUBS = "C"
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"

    @property
    def german_name(self) -> str:
        return _SUIT_GERMAN[self]

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOL[self]


class Rank(enum.Enum):
    """The six ranks in their fixed order (9, 10, Bube, Dame, König, Ass)."""

    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    ACE = "A"

    @property
    def augen(self) -> int:
        return _AUGEN[self]

    @property
    def german_name(self) -> str:
        return _RANK_GERMAN[self]

    @property
    def german_letter(self) -> str:
        return _RANK_LETTER[self]


_SUIT_GERMAN = {Suit.CLUBS: "Kreuz", Suit.SPADES: "Pik", Suit.HEARTS: "Herz", Suit.DIAMONDS: "Karo"}
_SUIT_SYMBOL = {Suit.CLUBS: "♣", Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦"}
_AUGEN = {Rank.NINE: 0, Rank.TEN: 10, Rank.JACK: 2, Rank.QUEEN: 3, Rank.KING: 4, Rank.ACE: 11}
_RANK_GERMAN = {
    Rank.NINE: "Neun",
    Rank.TEN: "Zehn",
    Rank.JACK: "Bube",
    Rank.QUEEN: "Dame",
    Rank.KING: "König",
    Rank.ACE: "Ass",
}
_RANK_LETTER = {Rank.NINE: "9", Rank.TEN: "10", Rank.JACK: "B", Rank.QUEEN: "D", Rank.KING: "K", Rank.ACE: "A"}
_SUIT_POS = {suit: i for i, suit in enumerate(Suit)}
_RANK_POS = {rank: i for i, rank in enumerate(Rank)}

#: Total Augen of a full deck (with or without nines: nines count 0).
AUGEN_TOTAL = 240


@dataclass(frozen=True, slots=True)
class Card:
    """One card face, e.g. ``Card(Rank.QUEEN, Suit.CLUBS)`` = ``QC`` = Kreuz-Dame.

    ``str`` gives the canonical code; ``repr`` rebuilds the value.
    """

    rank: Rank
    suit: Suit
    index: int = field(init=False, repr=False, compare=False, hash=False)
    augen: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        # Precomputed because the engine looks them up on every play.
        object.__setattr__(self, "index", _SUIT_POS[self.suit] * 6 + _RANK_POS[self.rank])
        object.__setattr__(self, "augen", _AUGEN[self.rank])

    def __str__(self) -> str:
        return self.rank.value + self.suit.value

    def __repr__(self) -> str:
        return f"Card(Rank.{self.rank.name}, Suit.{self.suit.name})"

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Card):
            return self.index == other.index
        return NotImplemented

    @property
    def code(self) -> str:
        """The canonical code, e.g. ``10H``."""
        return self.rank.value + self.suit.value

    @property
    def german_name(self) -> str:
        """E.g. ``Kreuz-Dame``."""
        return f"{self.suit.german_name}-{self.rank.german_name}"

    @property
    def symbol(self) -> str:
        """E.g. ``♣D`` (German rank letter after the suit symbol)."""
        return self.suit.symbol + self.rank.german_letter

    def name_in(self, lang: str) -> str:
        """The German name (``Kreuz-Dame``) or, in English, the code (``QC``)."""
        return self.german_name if lang == "de" else self.code

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a code like ``QC``, ``10H`` (case-insensitive; ``T`` is accepted for ten).

        Raises:
            InvalidCardError: the text is not one of the 24 codes.

        >>> Card.parse("10h")
        Card(Rank.TEN, Suit.HEARTS)
        >>> Card.parse("XX")
        Traceback (most recent call last):
        ...
        dokocam.engine.errors.InvalidCardError: 'XX' is not a card code; expected rank 9 10 J Q K A + suit C S H D, ...
        """
        card = _BY_CODE.get(text) if isinstance(text, str) else None
        if card is None and isinstance(text, str):
            code = text.strip().upper()
            card = _BY_CODE.get("10" + code[1:] if code.startswith("T") else code)
        if card is None:
            raise InvalidCardError(Message("card_code", text=text))
        return card

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with detector class id ``index`` (0..23 = suit*6 + rank).

        Raises:
            InvalidCardError: index outside 0..23.
        """
        if not isinstance(index, int) or not 0 <= index < 24:
            raise InvalidCardError(Message("card_index", index=index))
        return ALL_CARDS[index]


#: The 24 faces in index order (0 = 9C ... 23 = AD).
ALL_CARDS: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)
#: The 24 codes in index order.
CARD_CODES: tuple[str, ...] = tuple(str(card) for card in ALL_CARDS)
_BY_CODE: dict[str, Card] = {str(card): card for card in ALL_CARDS}


def parse_cards(codes: str | list[str]) -> list[Card]:
    """Parse a list of codes, or one string of codes separated by spaces or commas.

    >>> parse_cards("QC 10H, AD")
    [Card(Rank.QUEEN, Suit.CLUBS), Card(Rank.TEN, Suit.HEARTS), Card(Rank.ACE, Suit.DIAMONDS)]
    """
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    return [Card.parse(code) for code in codes]
