"""A trick: who led, the cards played into it, the led suit, the winner and its Augen.

>>> from dokocam.engine.contract import Contract
>>> trick = Trick(0, Contract.normal().card_order())
>>> for seat, code in enumerate(["AH", "KH", "9D", "AH"]):
...     trick.add(seat, Card.parse(code))
>>> trick.led_suit(), trick.winner(), trick.augen
('H', 2, 26)

Of two identical cards the first wins, except Herz-Zehnen when the second Dulle beats the first:

>>> trick = Trick(1, Contract.normal().card_order(), second_dulle=True)
>>> for seat, code in [(1, "10H"), (2, "QC"), (3, "10H"), (0, "9D")]:
...     trick.add(seat, Card.parse(code))
>>> trick.winner()
3
"""

from __future__ import annotations

from dokocam.engine.cards import Card
from dokocam.engine.contract import SUIT_NAMES, TRUMP, CardOrder

__all__ = ["Trick"]


class Trick:
    """The cards of one trick in the order they were played.

    Args:
        leader: the seat that leads.
        order: the contract's card order.
        second_dulle: of two Herz-Zehnen the second one wins (already resolved for
            the last-trick exception by the caller).
    """

    __slots__ = ("leader", "plays", "augen", "_order", "_second_dulle", "_winner_pos")

    def __init__(self, leader: int, order: CardOrder, second_dulle: bool = False) -> None:
        self.leader = leader
        self.plays: list[tuple[int, Card]] = []
        #: Augen of the cards in the trick so far.
        self.augen = 0
        self._order = order
        self._second_dulle = second_dulle
        self._winner_pos = -1

    def add(self, seat: int, card: Card) -> None:
        """Append a card and update the winner so far."""
        plays = self.plays
        plays.append((seat, card))
        self.augen += card.augen
        if len(plays) == 1:
            self._winner_pos = 0
            return
        order = self._order
        best = plays[self._winner_pos][1]
        cls = order.suit_class[card.index]
        best_cls = order.suit_class[best.index]
        if cls == best_cls:
            power, best_power = order.power[card.index], order.power[best.index]
            if power > best_power or (power == best_power and self._second_dulle and card.index == order.dulle):
                self._winner_pos = len(plays) - 1
        elif cls == TRUMP:
            self._winner_pos = len(plays) - 1

    def pop(self) -> tuple[int, Card]:
        """Remove the last card (undo); the winner is recomputed."""
        last = self.plays.pop()
        rest = self.plays
        self.plays = []
        self.augen = 0
        self._winner_pos = -1
        for seat, card in rest:
            self.add(seat, card)
        return last

    @property
    def order(self) -> CardOrder:
        return self._order

    def led_class(self) -> int | None:
        """Suit class id of the first card (0..3 plain suit, 4 trump), None when empty."""
        if not self.plays:
            return None
        return self._order.suit_class[self.plays[0][1].index]

    def led_suit(self) -> str | None:
        """The led suit as ``C S H D`` or ``trump`` (trump is a suit of its own); None when empty."""
        cls = self.led_class()
        return None if cls is None else SUIT_NAMES[cls]

    def winner(self) -> int | None:
        """The seat winning the trick so far (the final winner once four cards lie); None when empty."""
        return self.plays[self._winner_pos][0] if self.plays else None

    def winning_card(self) -> Card | None:
        return self.plays[self._winner_pos][1] if self.plays else None

    @property
    def cards(self) -> list[Card]:
        return [card for _, card in self.plays]

    @property
    def is_complete(self) -> bool:
        return len(self.plays) == 4

    def __len__(self) -> int:
        return len(self.plays)

    def __repr__(self) -> str:
        cards = " ".join(f"{seat}:{card}" for seat, card in self.plays)
        return f"<Trick leader={self.leader} [{cards}] winner={self.winner()}>"
