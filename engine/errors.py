"""The engine's error classes; all are ``ValueError`` subclasses with messages a person can act on."""

from __future__ import annotations

__all__ = ["EngineError", "InvalidCardError", "IllegalPlayError", "IllegalCallError", "RecordError", "RulesError"]


class EngineError(ValueError):
    """Base class of every engine error."""


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
