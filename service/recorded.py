"""Recorded pipeline events for a whole game, made with the engine: a camera stand-in.

Used by the tests, the load benchmark, and ``dokocam demo`` when no demo video is bundled.
"""

from __future__ import annotations

import random
from typing import Any

from dokocam.engine import CARD_CODES, Contract, Game


def deal(seed: int) -> list[list[str]]:
    """Four hands of 12 cards, shuffled with ``seed`` (hands[0] is Vorhand's)."""
    deck = [code for code in CARD_CODES for _ in range(2)]
    random.Random(seed).shuffle(deck)
    return [deck[i * 12 : (i + 1) * 12] for i in range(4)]


def legal_plays(seed: int, contract: Contract | None = None) -> list[tuple[int, str]]:
    """A legal game as ``(game seat, card)`` plays, 48 of them: a normal game, or under ``contract``."""
    game = Game(hands=deal(seed)) if contract is None else Game(contract=contract, hands=deal(seed))
    rng = random.Random(seed)
    plays = []
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        card = rng.choice(game.legal_cards(seat))
        game.play(seat, card)
        plays.append((seat, str(card)))
    return plays


def game_events(
    seed: int, *, start: float = 0.0, interval: float = 1.0, uncertain: tuple[int, ...] = ()
) -> list[dict[str, Any]]:
    """The pipeline events of one legal game, as a recorded event list.

    Args:
        seed: which deal.
        start: time of the first card (seconds).
        interval: seconds between cards.
        uncertain: positions (0..47) of cards the camera asks a person to confirm.
    """
    events: list[dict[str, Any]] = []
    for i, (seat, card) in enumerate(legal_plays(seed)):
        when = round(start + i * interval, 3)
        events.append(
            {
                "time": when,
                "kind": "card_played",
                "seat": seat,
                "card": card,
                "confidence": 0.55 if i in uncertain else 0.97,
                "trick": i // 4,
            }
        )
        if i in uncertain:
            events.append(
                {
                    "time": when,
                    "kind": "needs_confirmation",
                    "reason": "uncertain_card",
                    "trick": i // 4,
                    "seat": seat,
                    "card": card,
                }
            )
        if i % 4 == 3:
            events.append({"time": when, "kind": "trick_complete", "trick": i // 4})
    return events
