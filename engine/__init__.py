"""Doppelkopf rules engine: cards, contracts, tricks, announcements, scoring, the score sheet.

Pure Python, no third-party dependencies.

>>> from dokocam.engine import Card, Game
>>> Card.parse("10H").german_name
'Herz-Zehn'
"""

from dokocam.engine.cards import ALL_CARDS, CARD_CODES, Card, Rank, Suit, parse_cards
from dokocam.engine.contract import CardOrder, Contract, ContractType, SoloKind
from dokocam.engine.errors import (
    EngineError,
    IllegalCallError,
    IllegalPlayError,
    InvalidCardError,
    RecordError,
    RulesError,
)
from dokocam.engine.game import Call, CallEvent, CloseTrickEvent, Flag, Game, Party, PlayEvent, SchweinchenEvent
from dokocam.engine.rules import Rules, armut_possible, schmeissen_reason
from dokocam.engine.scoring import GameResult, ScoreItem
from dokocam.engine.trick import Trick

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
