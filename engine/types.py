"""The engine's value types: parties, calls, history events, flags and score items.

They depend on nothing but cards and the message catalogue, so the game, the scoring and the
record format all import them from here and never each other in a circle.

>>> Party.RE.other, Call.NO90.level, Call.NO90.name_in("de")
(<Party.KONTRA: 'kontra'>, 1, 'keine 90')
>>> FlagKind.RENEGE.german_name, FlagKind.RENEGE == "renege"
('Nicht bedient', True)
>>> ItemKind.FUCHS_GEFANGEN.german_name, ItemKind.FUCHS_GEFANGEN.is_special
('Fuchs gefangen', True)
>>> PlayEvent(0, Card.parse("QC")).to_dict()
{'seat': 0, 'play': 'QC'}
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from dokocam.engine.cards import Card
from dokocam.engine.messages import Lang, Message

__all__ = [
    "RECORD_FORMAT",
    "record_object",
    "Party",
    "Call",
    "ABSAGEN",
    "PlayEvent",
    "CallEvent",
    "CloseTrickEvent",
    "SchweinchenEvent",
    "ClaimEvent",
    "Event",
    "FlagKind",
    "Flag",
    "ItemKind",
    "ScoreItem",
]


#: The format name of a game record (``engine.record``).
RECORD_FORMAT = "dokocam-game/1"


class Party(enum.Enum):
    RE = "re"
    KONTRA = "kontra"

    @property
    def other(self) -> Party:
        return Party.KONTRA if self is Party.RE else Party.RE

    @property
    def german_name(self) -> str:
        return "Re" if self is Party.RE else "Kontra"

    def name_in(self, lang: Lang) -> str:
        return self.german_name


class Call(enum.Enum):
    """Announcements: Re/Kontra (Ansagen) and the Absagen keine 90/60/30, schwarz."""

    RE = "re"
    KONTRA = "kontra"
    NO90 = "no90"
    NO60 = "no60"
    NO30 = "no30"
    BLACK = "black"

    @property
    def level(self) -> int:
        """0 for Re/Kontra, 1..4 for keine 90 .. schwarz."""
        return _CALL_LEVEL[self]

    @property
    def is_absage(self) -> bool:
        return _CALL_LEVEL[self] > 0

    @property
    def german_name(self) -> str:
        return _CALL_GERMAN[self]

    def name_in(self, lang: Lang) -> str:
        """The game's own word in either language (``keine 90``)."""
        return _CALL_GERMAN[self]


_CALL_LEVEL = {Call.RE: 0, Call.KONTRA: 0, Call.NO90: 1, Call.NO60: 2, Call.NO30: 3, Call.BLACK: 4}
_CALL_GERMAN = {
    Call.RE: "Re",
    Call.KONTRA: "Kontra",
    Call.NO90: "keine 90",
    Call.NO60: "keine 60",
    Call.NO30: "keine 30",
    Call.BLACK: "schwarz",
}
ABSAGEN = (Call.NO90, Call.NO60, Call.NO30, Call.BLACK)


class PlayEvent(NamedTuple):
    seat: int
    card: Card

    def to_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "play": str(self.card)}


class CallEvent(NamedTuple):
    seat: int
    call: Call

    def to_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "call": self.call.value}


class CloseTrickEvent(NamedTuple):
    """A trick closed with fewer than four cards (``Game.close_trick``); record form ``{"close_trick": true}``."""

    def to_dict(self) -> dict[str, object]:
        return {"close_trick": True}


class SchweinchenEvent(NamedTuple):
    """``seat`` says "Schweinchen": it holds both Karo-Asse (``Game.announce_schweinchen``).

    Record form ``{"seat": 0, "announce": "schweinchen"}``.
    """

    seat: int

    def to_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "announce": "schweinchen"}


class ClaimEvent(NamedTuple):
    """``seat`` shows its cards and claims every remaining trick for its party (DDV 5.4, ``Game.claim``).

    Record form ``{"seat": 0, "claim": "rest"}``.
    """

    seat: int

    def to_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "claim": "rest"}


Event = PlayEvent | CallEvent | CloseTrickEvent | SchweinchenEvent | ClaimEvent


def record_object(
    players: Sequence[str],
    rules: Mapping[str, object],
    contract: Mapping[str, object],
    events: Sequence[Event],
    hands: Sequence[Sequence[Card]] | None,
    bock: int,
) -> dict[str, object]:
    """A ``dokocam-game/1`` record object: what ``Game.to_dict`` and ``GameRecord.to_dict`` both write."""
    out: dict[str, object] = {
        "format": RECORD_FORMAT,
        "players": list(players),
        "rules": dict(rules),
        "contract": dict(contract),
        "events": [event.to_dict() for event in events],
    }
    if hands is not None:
        out["hands"] = [[str(c) for c in hand] for hand in hands]
    if bock:
        out["bock"] = bock
    return out


class FlagKind(enum.StrEnum):
    """What a flag found; the value is the stable code (``"renege"``), the names are for people."""

    RENEGE = "renege"
    THIRD_COPY = "third_copy"
    OUT_OF_TURN = "out_of_turn"
    INCOMPLETE_TRICK = "incomplete_trick"
    NOT_HELD = "not_held"
    PARTY_CONFLICT = "party_conflict"

    @property
    def german_name(self) -> str:
        return _FLAG_NAMES[self][0]

    @property
    def english_name(self) -> str:
        return _FLAG_NAMES[self][1]

    def name_in(self, lang: Lang) -> str:
        return _FLAG_NAMES[self][0 if lang == "de" else 1]

    @property
    def blocks_result(self) -> bool:
        """A flag of this kind leaves the game without a result until it is corrected."""
        return self is FlagKind.PARTY_CONFLICT


_FLAG_NAMES = {
    FlagKind.RENEGE: ("Nicht bedient", "renege"),
    FlagKind.THIRD_COPY: ("Dritte Karte gleicher Art", "third copy of a card"),
    FlagKind.OUT_OF_TURN: ("Nicht an der Reihe", "out of turn"),
    FlagKind.INCOMPLETE_TRICK: ("Stich unvollständig", "incomplete trick"),
    FlagKind.NOT_HELD: ("Karte nicht auf der Hand", "card not in the hand"),
    FlagKind.PARTY_CONFLICT: ("Parteien widersprüchlich", "parties in conflict"),
}


@dataclass(frozen=True, slots=True)
class Flag:
    """A finding about the play that breaks a rule; never an exception.

    Attributes:
        kind: what was found.
        trick: 0-based trick number the finding is about (for a renege: where the seat
            did not follow suit).
        seat: the seat at fault, if one is.
        card: the card that shows it (for a renege: the later card that proves it).
        text: the sentence for a person (``text.de``, ``text.en``).
        events: indices into the game's history of the events the finding is about
            (for a party conflict: the events in conflict).
    """

    kind: FlagKind
    trick: int
    seat: int | None
    card: Card | None
    text: Message
    events: tuple[int, ...] = field(default=())

    @property
    def message(self) -> str:
        """The English sentence."""
        return self.text.en

    @property
    def de(self) -> str:
        """The German sentence."""
        return self.text.de

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind.value,
            "title": self.kind.german_name,
            "trick": self.trick,
            "seat": self.seat,
            "card": None if self.card is None else str(self.card),
            "message": self.message,
            "message_de": self.de,
            "events": list(self.events),
        }


class ItemKind(enum.StrEnum):
    """A line of the game value (DDV 7.2) or a house rule's special point."""

    WON = "won"
    UNDER_90 = "under_90"
    UNDER_60 = "under_60"
    UNDER_30 = "under_30"
    SCHWARZ = "schwarz"
    RE_SAID = "re_said"
    KONTRA_SAID = "kontra_said"
    RE_NO90 = "re_no90"
    RE_NO60 = "re_no60"
    RE_NO30 = "re_no30"
    RE_BLACK = "re_black"
    KONTRA_NO90 = "kontra_no90"
    KONTRA_NO60 = "kontra_no60"
    KONTRA_NO30 = "kontra_no30"
    KONTRA_BLACK = "kontra_black"
    AGAINST_NO90 = "against_no90"
    AGAINST_NO60 = "against_no60"
    AGAINST_NO30 = "against_no30"
    AGAINST_BLACK = "against_black"
    GEGEN_DIE_ALTEN = "gegen_die_alten"
    DOPPELKOPF = "doppelkopf"
    FUCHS_GEFANGEN = "fuchs_gefangen"
    KARLCHEN = "karlchen"
    FUCHS_AM_END = "fuchs_am_end"
    KARLCHEN_GEFANGEN = "karlchen_gefangen"

    @property
    def german_name(self) -> str:
        return _ITEM_NAMES[self][0]

    @property
    def english_name(self) -> str:
        return _ITEM_NAMES[self][1]

    def name_in(self, lang: Lang) -> str:
        return _ITEM_NAMES[self][0 if lang == "de" else 1]

    @property
    def is_special(self) -> bool:
        """A special point (Sonderpunkt, DDV 7.2.3, and the house rules' ones)."""
        return self in _SPECIAL

    @classmethod
    def absage(cls, party: Party, level: int) -> ItemKind:
        """The item for ``party``'s Absage of ``level`` (1 = keine 90 .. 4 = schwarz)."""
        return cls(f"{party.value}_{ABSAGEN[level - 1].value}")

    @classmethod
    def against(cls, level: int) -> ItemKind:
        """The item for reaching what the opponents' Absage of ``level`` left (120 gegen keine 90 ...)."""
        return (cls.AGAINST_NO90, cls.AGAINST_NO60, cls.AGAINST_NO30, cls.AGAINST_BLACK)[level - 1]


_ITEM_NAMES = {
    ItemKind.WON: ("gewonnen", "won"),
    ItemKind.UNDER_90: ("unter 90", "under 90"),
    ItemKind.UNDER_60: ("unter 60", "under 60"),
    ItemKind.UNDER_30: ("unter 30", "under 30"),
    ItemKind.SCHWARZ: ("schwarz", "schwarz (no trick)"),
    ItemKind.RE_SAID: ("Re angesagt", "Re announced"),
    ItemKind.KONTRA_SAID: ("Kontra angesagt", "Kontra announced"),
    ItemKind.RE_NO90: ("keine 90 abgesagt (Re)", "keine 90 said (Re)"),
    ItemKind.RE_NO60: ("keine 60 abgesagt (Re)", "keine 60 said (Re)"),
    ItemKind.RE_NO30: ("keine 30 abgesagt (Re)", "keine 30 said (Re)"),
    ItemKind.RE_BLACK: ("schwarz abgesagt (Re)", "schwarz said (Re)"),
    ItemKind.KONTRA_NO90: ("keine 90 abgesagt (Kontra)", "keine 90 said (Kontra)"),
    ItemKind.KONTRA_NO60: ("keine 60 abgesagt (Kontra)", "keine 60 said (Kontra)"),
    ItemKind.KONTRA_NO30: ("keine 30 abgesagt (Kontra)", "keine 30 said (Kontra)"),
    ItemKind.KONTRA_BLACK: ("schwarz abgesagt (Kontra)", "schwarz said (Kontra)"),
    ItemKind.AGAINST_NO90: ("120 gegen keine 90", "120 against keine 90"),
    ItemKind.AGAINST_NO60: ("90 gegen keine 60", "90 against keine 60"),
    ItemKind.AGAINST_NO30: ("60 gegen keine 30", "60 against keine 30"),
    ItemKind.AGAINST_BLACK: ("30 gegen schwarz", "30 against schwarz"),
    ItemKind.GEGEN_DIE_ALTEN: ("gegen die Alten", "gegen die Alten (Kontra won)"),
    ItemKind.DOPPELKOPF: ("Doppelkopf", "Doppelkopf (trick of 40+)"),
    ItemKind.FUCHS_GEFANGEN: ("Fuchs gefangen", "Fuchs caught"),
    ItemKind.KARLCHEN: ("Karlchen", "Karlchen (last trick)"),
    ItemKind.FUCHS_AM_END: ("Fuchs am End", "Fuchs am End (last trick)"),
    ItemKind.KARLCHEN_GEFANGEN: ("Karlchen gefangen", "Karlchen caught"),
}
_SPECIAL = frozenset(
    {
        ItemKind.GEGEN_DIE_ALTEN,
        ItemKind.DOPPELKOPF,
        ItemKind.FUCHS_GEFANGEN,
        ItemKind.KARLCHEN,
        ItemKind.FUCHS_AM_END,
        ItemKind.KARLCHEN_GEFANGEN,
    }
)


class ScoreItem(NamedTuple):
    """One line of the game value: ``kind`` earned by ``party`` worth ``value`` points.

    ``trick`` is the 0-based trick a special point was made in (None for the other lines);
    ``party`` is None only for a special point seen during play whose party is not known yet.
    """

    kind: ItemKind
    party: Party | None
    value: int = 1
    trick: int | None = None

    @property
    def name(self) -> str:
        """The German name, e.g. ``Fuchs gefangen``."""
        return self.kind.german_name

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind.value,
            "name": self.kind.german_name,
            "name_en": self.kind.english_name,
            "party": None if self.party is None else self.party.value,
            "value": self.value,
            "trick": self.trick,
            "special": self.kind.is_special,
        }
