"""The engine's error classes; all are ``ValueError`` subclasses with messages a person can act on.

Each error carries its ``Message`` (a key of ``engine.messages`` and its parameters): ``str()`` is
the English text, ``.de`` the German one, ``.message.text(lang, names)`` names the players.

>>> error = IllegalPlayError(Message("not_held", seat=Seat(0), card="KD"))
>>> str(error), error.de, error.key
('seat 0 does not hold KD', 'Platz 0 hat KD nicht auf der Hand', 'not_held')
"""

from __future__ import annotations

from typing import Any

from dokocam.engine.messages import Message, Seat

__all__ = [
    "EngineError",
    "InvalidCardError",
    "IllegalPlayError",
    "IllegalCallError",
    "RecordError",
    "RulesError",
    "UnresolvedError",
    "Message",
    "Seat",
]


class EngineError(ValueError):
    """Base class of every engine error.

    Args:
        message: the message; a plain string is kept as its English and German text.
    """

    def __init__(self, message: Message | str) -> None:
        super().__init__(str(message))
        self.message = message

    @property
    def key(self) -> str | None:
        """The message key, None for a plain-text error."""
        return self.message.key if isinstance(self.message, Message) else None

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.message.params) if isinstance(self.message, Message) else {}

    @property
    def de(self) -> str:
        return self.message.de if isinstance(self.message, Message) else self.message

    @property
    def en(self) -> str:
        return str(self)


class InvalidCardError(EngineError):
    """A card code or index that names no card (bad syntax, not a broken rule)."""


class IllegalPlayError(EngineError):
    """A play that breaks a rule, raised only by strict games whose hands are known."""


class IllegalCallError(EngineError):
    """An announcement (Re/Kontra/Absage) that is too late, by the wrong party or out of order."""


class RulesError(EngineError):
    """An unknown preset or switch, or a contract these rules do not allow."""


class RecordError(EngineError):
    """A game record that cannot be read; the message names the event index and the reason."""


class UnresolvedError(EngineError):
    """A finished game whose parties the events cannot resolve (a ``party_conflict`` flag): no result.

    Attributes:
        flag: the flag that names the events in conflict.
    """

    def __init__(self, message: Message | str, flag: Any = None) -> None:
        super().__init__(message)
        self.flag = flag
