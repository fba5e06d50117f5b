"""Public request and response bodies; separate from the engine's objects on purpose.

Seats are *table seats* 0..3 (clockwise as the camera sees them): the players of the current
game in seating order. With four players ``players[i]`` sits at seat i; with five the one who
sits out (the dealer) has no seat, so a game's ``seats`` list says who sits where.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from dokocam.service.texts import Text, TextError

Seat = int  # documented range 0..3; validated with Field(ge=0, le=3) where it is input


class _Body(BaseModel):
    # Strict: a number is a number, not a string or a boolean ({"seat": true} is refused, not seat 1).
    model_config = ConfigDict(extra="forbid", strict=True)
    token: str | None = Field(
        None,
        max_length=200,
        description="the table token, when the server asks for one (or send it as a Bearer header)",
    )


Rules = dict[str, str | bool]


def _check_rules(rules: Rules | None) -> Rules | None:
    """A rules object's form: ``preset`` is text, every other key a switch that is true or false."""
    if rules is None:
        return None
    if len(rules) > 40:
        raise TextError(Text("rules_too_many"))
    for key, value in rules.items():
        if key == "preset" and not isinstance(value, str):
            raise TextError(Text("rules_preset_text"))
        if key != "preset" and not isinstance(value, (bool, str)):
            raise TextError(Text("rules_switch_bool", switch=key[:40]))
    return rules


# -- requests -----------------------------------------------------------------------------


class PartieLength(BaseModel):
    """At most one of: a number of games, a number of rounds, a point target; none: open-ended."""

    model_config = ConfigDict(extra="forbid", strict=True)
    games: int | None = Field(default=None, ge=1, le=1000)
    rounds: int | None = Field(default=None, ge=1, le=100)
    target: int | None = Field(default=None, ge=1, le=10000)

    @model_validator(mode="after")
    def _one_length(self) -> PartieLength:
        given = [k for k in ("games", "rounds", "target") if getattr(self, k) is not None]
        if len(given) > 1:
            raise TextError(Text("length_one", given=" und ".join(given)))
        return self


PLAYER_COUNTS = (4, 5)


class PartieCreate(_Body):
    """Starts a Partie: four or five names in clockwise order around the table (seat 0 first).

    With five, the dealer sits out each game.
    """

    players: list[Annotated[str, Field(max_length=200)]] = Field(
        ...,
        max_length=10,
        description="4 or 5 names, clockwise; with 5 the dealer sits out each game",
        examples=[["Anna", "Ben", "Cem", "Dora"], ["Anna", "Ben", "Cem", "Dora", "Emil"]],
        json_schema_extra={"minItems": min(PLAYER_COUNTS), "maxItems": max(PLAYER_COUNTS)},
    )
    first_dealer: int | None = Field(
        None, ge=0, le=4, description="position in players of the first dealer; default: the last player"
    )
    rules: Rules | None = Field(
        None,
        description='preset and switches, e.g. {"preset": "pub", "schweinchen": false}; '
        "default: the rules set under /settings/rules",
    )
    length: PartieLength = Field(default_factory=PartieLength)
    replace: bool = Field(False, description="end a running Partie and start this one")

    _rules_form = field_validator("rules")(_check_rules)

    @model_validator(mode="after")
    def _names(self) -> PartieCreate:
        if len(self.players) not in PLAYER_COUNTS:
            raise TextError(Text("players_count", count=len(self.players)))
        if self.first_dealer is not None and self.first_dealer >= len(self.players):
            raise TextError(Text("first_dealer_range", last=len(self.players) - 1, given=self.first_dealer))
        names = [n.strip() for n in self.players]
        if any(not n or len(n) > 40 for n in names):
            raise TextError(Text("names_length"))
        if len(set(names)) != len(names):
            raise TextError(Text("names_differ"))
        self.players = names
        return self


ContractKind = Literal["normal", "hochzeit", "silent_hochzeit", "solo", "armut"]
SoloKindName = Literal["queens", "jacks", "fleischlos", "clubs", "spades", "hearts", "diamonds"]


class ContractSet(_Body):
    """The game type told in the Vorbehalt (or late: the game is then replayed under it)."""

    type: ContractKind
    kind: SoloKindName | None = Field(None, description="the solo's kind; only for type solo")
    declarer: Seat | None = Field(None, ge=0, le=3, description="table seat; for every type but normal")
    partner: Seat | None = Field(None, ge=0, le=3, description="table seat of who takes the Armut")

    @model_validator(mode="after")
    def _complete(self) -> ContractSet:
        if self.type != "normal" and self.declarer is None:
            raise TextError(Text("contract_declarer", type=self.type))
        if self.type == "solo" and self.kind is None:
            raise TextError(Text("contract_solo_kind"))
        if self.type != "solo" and self.kind is not None:
            raise TextError(Text("contract_kind_only_solo", type=self.type))
        if self.type == "armut" and self.partner is None:
            raise TextError(Text("contract_armut_partner"))
        if self.type != "armut" and self.partner is not None:
            raise TextError(Text("contract_partner_only_armut"))
        if self.type == "normal" and self.declarer is not None:
            raise TextError(Text("contract_normal_declarer"))
        return self

    def to_record(self) -> dict[str, Any]:
        return self.model_dump(exclude={"token"}, exclude_none=True)


class CallCreate(_Body):
    seat: Seat = Field(..., ge=0, le=3)
    call: CallKind


CallKind = Literal["re", "kontra", "no90", "no60", "no30", "black"]


class CallCorrection(_Body):
    """Who really made an announcement, or which one it really was."""

    seat: Seat | None = Field(None, ge=0, le=3, description="the right table seat")
    call: CallKind | None = Field(None, description="the right announcement")


class UndoCreate(_Body):
    target: int | None = Field(
        None, ge=1, le=2**62, description="the event to take back (the id the page showed); none: the last one"
    )


class CardCreate(_Body):
    """A card a person enters (the camera missed it)."""

    seat: Seat = Field(..., ge=0, le=3)
    card: str = Field(..., max_length=3, examples=["QC"], description="code: rank 9 10 J Q K A, suit C S H D")


class CardCorrection(_Body):
    card: str | None = Field(None, max_length=3, examples=["QS"], description="the right card, if it was misread")
    seat: Seat | None = Field(None, ge=0, le=3, description="the right table seat, if it was put to the wrong player")


class GameEnd(_Body):
    left: str | None = Field(
        None, max_length=200, description="the player who left the table, if one did (they leave the Partie)"
    )


class RulesSet(_Body):
    rules: Rules = Field(..., examples=[{"preset": "pub", "schweinchen": False}])

    _rules_form = field_validator("rules")(_check_rules)


class TokenOnly(_Body):
    pass


# -- responses ----------------------------------------------------------------------------


class CardPublic(BaseModel):
    code: str
    name: str = Field(description="German name, e.g. Kreuz-Dame")
    symbol: str = Field(description="suit symbol and German letter, e.g. ♣D")


class PlayPublic(BaseModel):
    event_id: int
    seat: Seat
    player: str
    card: CardPublic
    confidence: float
    uncertain: bool
    corrected: bool
    manual: bool = Field(description="entered by a person, not seen by the camera")
    revised: bool = Field(False, description="the camera reads it otherwise now than when it reported it")


class TrickPublic(BaseModel):
    number: int = Field(description="1-based")
    leader: Seat | None
    plays: list[PlayPublic]
    winner: Seat | None
    augen: int


class ClaimPublic(BaseModel):
    """A Spielabkürzung (DDV 5.4): a player showed their cards and their party took every trick left."""

    seat: Seat
    player: str
    tricks: int = Field(description="tricks not played, all counted for the claimer's party")
    augen: int = Field(description="the Augen of the cards not played")


class ClaimCreate(_Body):
    seat: Seat = Field(..., ge=0, le=3, description="the table seat who shows their cards and claims the rest")


class FlagPublic(BaseModel):
    kind: str
    title: str = Field(description="what the flag found, in German, e.g. Nicht bedient")
    trick: int | None = Field(description="1-based trick number")
    seat: Seat | None
    card: CardPublic | None
    message: str = Field(description="German, the players named")
    message_en: str


class CallPublic(BaseModel):
    event_id: int
    seat: Seat
    player: str
    call: str


class ScoreItemPublic(BaseModel):
    name: str
    party: str | None
    value: int


class ResultPublic(BaseModel):
    winner: str | None
    augen: dict[str, int]
    items: list[ScoreItemPublic]
    game_value: int
    points: dict[str, int] = Field(description="sheet points per player, Bock included")


class ContractPublic(BaseModel):
    type: str
    kind: str | None = None
    declarer: Seat | None = None
    partner: Seat | None = None
    label: str


class SeenPublic(BaseModel):
    """A card the camera sees in the trick in play before its turn (a seat before it is not read yet)."""

    seat: Seat
    player: str
    card: CardPublic


class GamePublic(BaseModel):
    number: int
    seats: list[str] = Field(description="the players at table seats 0..3 in this game")
    sitting_out: str | None = Field(description="who sits out this game (the dealer, with five players)")
    dealer: str
    vorhand: Seat
    bocks: int
    deck: str | None = Field(
        default=None, description="the enrolled deck the camera read this game with (null: shipped)"
    )
    forced_solo: str | None
    contract: ContractPublic
    to_move: Seat | None
    trick_number: int = Field(description="1-based number of the trick being played")
    current_trick: TrickPublic | None
    seen: list[SeenPublic] = Field(
        default_factory=list,
        description="cards of the trick in play the camera sees before their turn: shown, not counted yet",
    )
    tricks: list[TrickPublic]
    parties: dict[str, str | None] = Field(description="per player: re, kontra or null (not known yet)")
    augen: dict[str, int] = Field(description="Augen won so far: re, kontra, unknown (party not known yet)")
    calls: list[CallPublic]
    specials: list[str] = Field(description="special points so far, as they happen")
    flags: list[FlagPublic]
    uncertain: list[PlayPublic]
    is_over: bool
    claimed: ClaimPublic | None = Field(description="the Spielabkürzung that ended the game, if one did")
    blocked: str | None = Field(description="why a finished game is not on the sheet yet (German)")
    blocked_en: str | None
    result: ResultPublic | None


class SheetRowPublic(BaseModel):
    number: int
    round: int
    dealer: str
    sitting_out: str | None = Field(description="who sat this game out; absent from points")
    contract: str
    multiplier: int
    notes: list[str]
    points: dict[str, int]
    totals: dict[str, int]
    ended_early: bool


class PartieSummary(BaseModel):
    number: int = Field(description="1-based, in the order the Parties were started")
    players: list[str]
    games: int = Field(description="games on the sheet")
    is_over: bool
    totals: dict[str, int]
    current: bool = Field(description="the Partie in force")


class PartiePublic(BaseModel):
    number: int = Field(description="1-based, in the order the Parties were started")
    players: list[str] = Field(description="everyone in the Partie (4 or 5), in seating order")
    present: list[str] = Field(description="those still at the table")
    first_dealer: str
    length: dict[str, int]
    round: int
    is_over: bool
    totals: dict[str, int]
    standings: list[tuple[str, int]]
    bock_queue: list[int]
    pflichtsolo_owed: list[str]
    sheet: list[SheetRowPublic]


class RulesPublic(BaseModel):
    preset: str
    differs: dict[str, Any] = Field(description="the switches that differ from the preset")
    switches: dict[str, bool] = Field(description="every on/off switch and its value")
    options: dict[str, str] = Field(description="every rule with a choice of values, and its value")
    presets: dict[str, dict[str, bool]] = Field(description="every preset with its switches")
    settable: bool = Field(description="false while a Partie runs")


class NotePublic(BaseModel):
    event_id: int
    kind: str
    message: str = Field(description="why the event no longer fits (German)")
    message_en: str = ""


class ActionPublic(BaseModel):
    """Something a person entered that can be taken back by itself (``POST /events/{event_id}/undo``)."""

    event_id: int
    kind: str
    game: int | None = Field(description="the game it belongs to")
    label: str = Field(description="what it was, in German, e.g. Re von Ben")
    label_en: str


class TablePublic(BaseModel):
    """Everything a page shows; also sent on every change as the SSE event ``state``."""

    seq: int = Field(description="id of the last event in the log")
    engine_time: float = Field(description="server time (s) when the engine applied it")
    rules: RulesPublic
    partie: PartiePublic | None
    game: GamePublic | None
    last_game: GamePublic | None = Field(description="the game finished last, with its result")
    notes: list[NotePublic]
    pipeline_flags: list[dict[str, Any]]
    undo: ActionPublic | None = Field(description='what "Rückgängig" takes back now: a person\'s last action, or null')
    actions: list[ActionPublic] = Field(description="a person's latest actions still in force, newest first")
    deck: str | None = Field(default=None, description="the enrolled deck the camera reads with (null: shipped)")


class CheckPublic(BaseModel):
    """One finding of the camera check."""

    topic: str = Field(description="view, size, light or focus")
    ok: bool
    message: str = Field(description="what was found and what to change, in German")
    message_en: str


class EventPublic(BaseModel):
    id: int
    time: float
    kind: str
    payload: dict[str, Any]


class Accepted(BaseModel):
    """An action was logged; ``state`` is the table after it."""

    event: EventPublic
    state: TablePublic


# -- the Deck page (service.deckdesk) -------------------------------------------------------

DeckName = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")]
KreuzSide = Literal["oben", "unten", "links", "rechts"]


class CameraEnrolment(_Body):
    """Enrol the camera's newest frame as a deck."""

    name: DeckName
    kreuz: KreuzSide | None = Field(default=None, description="where the Kreuz row lies, when the cards do not tell")


class KreuzChoice(_Body):
    """Read the refused photo again with the Kreuz row on the side named."""

    kreuz: KreuzSide


class DeckConfirm(_Body):
    """The players confirm the faces; with unsure places only when they say they checked them."""

    unsure_checked: bool = Field(default=False, description="the unsure places were looked at and are right")


class DeckUse(_Body):
    """The deck the table reads with: an enrolled, adapted one, or null for the shipped detector."""

    name: DeckName | None


class FacePublic(BaseModel):
    code: str = Field(description="the card code the face was laid out as (QC, 10H ...)")
    url: str = Field(description="the rectified face as PNG")


class UnsurePublic(BaseModel):
    message: str = Field(description="a place read unsurely as another card, in German")
    message_en: str


class EnrolmentPublic(BaseModel):
    """The deck desk's enrolment, as the Deck page shows it."""

    phase: Literal["idle", "enrolling", "review", "refused", "adapting", "done", "failed"]
    name: str | None
    message: str | None = Field(description="why it was refused or failed, in German")
    message_en: str | None
    faces: list[FacePublic] = Field(description="the 24 rectified faces to confirm (in review)")
    unsure: list[UnsurePublic] = Field(description="places to look at before confirming")
    turn: str | None = Field(description="the side of the photo the Kreuz row lay on")
    kreuz_sides: list[KreuzSide] = Field(
        default_factory=list, description="refused for its orientation: the sides to choose from (POST .../kreuz)"
    )
    progress: dict[str, Any] = Field(description="the adaptation: stage, done, total, fraction (0..1)")
    deck: str | None = Field(description="the deck the table reads with now (null: shipped)")


class DeckPublic(BaseModel):
    name: str
    created: str | None
    source: str | None
    adapted: bool
    in_use: bool
