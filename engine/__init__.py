"""Doppelkopf rules engine: cards, contracts, tricks, announcements, scoring, the score sheet.

Pure Python, no third-party dependencies.

>>> from engine import Card, Game
>>> Card.parse("10H").german_name
'Herz-Zehn'
"""

from engine.cards import ALL_CARDS, CARD_CODES, Card, Rank, Suit, parse_cards
from engine.contract import CardOrder, Contract, ContractType, SoloKind
from engine.errors import (
    EngineError,
    IllegalCallError,
    IllegalPlayError,
    InvalidCardError,
    RecordError,
    RulesError,
)
from engine.game import Call, CallEvent, CloseTrickEvent, Flag, Game, Party, PlayEvent, SchweinchenEvent
from engine.rules import Rules, armut_possible, schmeissen_reason
from engine.scoring import GameResult, ScoreItem
from engine.trick import Trick

__all__ = [
    "ALL_CARDS",
    "CARD_CODES",
    "Call",
    "CallEvent",
    "Card",
    "CardOrder",
    "CloseTrickEvent",
    "Contract",
    "ContractType",
    "EngineError",
    "Flag",
    "Game",
    "GameResult",
    "IllegalCallError",
    "IllegalPlayError",
    "InvalidCardError",
    "Party",
    "PlayEvent",
    "Rank",
    "RecordError",
    "Rules",
    "RulesError",
    "SchweinchenEvent",
    "ScoreItem",
    "SoloKind",
    "Suit",
    "Trick",
    "armut_possible",
    "parse_cards",
    "schmeissen_reason",
]
