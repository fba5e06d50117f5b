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
    UnresolvedError,
)
from dokocam.engine.game import Claim, Game
from dokocam.engine.messages import Message, Seat
from dokocam.engine.rules import HochzeitPartner, Rules, armut_possible, schmeissen_reason
from dokocam.engine.scoring import GameResult
from dokocam.engine.trick import Trick
from dokocam.engine.types import (
    Call,
    CallEvent,
    ClaimEvent,
    CloseTrickEvent,
    Event,
    Flag,
    FlagKind,
    ItemKind,
    Party,
    PlayEvent,
    SchweinchenEvent,
    ScoreItem,
)

__all__ = [
    "ALL_CARDS",
    "CARD_CODES",
    "Call",
    "CallEvent",
    "Card",
    "CardOrder",
    "Claim",
    "ClaimEvent",
    "CloseTrickEvent",
    "Contract",
    "ContractType",
    "EngineError",
    "Event",
    "Flag",
    "FlagKind",
    "Game",
    "GameResult",
    "HochzeitPartner",
    "IllegalCallError",
    "IllegalPlayError",
    "InvalidCardError",
    "ItemKind",
    "Message",
    "Party",
    "PlayEvent",
    "Rank",
    "RecordError",
    "Rules",
    "RulesError",
    "SchweinchenEvent",
    "ScoreItem",
    "Seat",
    "SoloKind",
    "Suit",
    "Trick",
    "UnresolvedError",
    "armut_possible",
    "parse_cards",
    "schmeissen_reason",
]
