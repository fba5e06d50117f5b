"""The current game: its type, announcements, cards (entered, confirmed, corrected), ending it early."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path, status

from dokocam.service import table as t
from dokocam.service.deps import TableDep, TokenDep
from dokocam.service.errors import ApiError
from dokocam.service.routes import submit
from dokocam.service.schemas import (
    Accepted,
    CallCorrection,
    CallCreate,
    CardCorrection,
    CardCreate,
    ClaimCreate,
    ContractSet,
    GameEnd,
    GamePublic,
    TokenOnly,
)
from dokocam.service.texts import Text

router = APIRouter(prefix="/games", tags=["games"])

EventId = Path(..., ge=1, le=2**62, description="the play's or call's event_id")


@router.get("/current")
def read_current_game(*, table: TableDep) -> GamePublic:
    """The game being played: current trick by seat, tricks, parties as known, Augen, calls, flags."""
    view = table.view()["game"]
    if view is None:
        raise ApiError(status.HTTP_404_NOT_FOUND, Text("no_game"))
    return GamePublic.model_validate(view)


@router.put("/current/contract", dependencies=[TokenDep])
def set_contract(*, table: TableDep, body: ContractSet) -> Accepted:
    """Sets the game type from the Vorbehalt: Hochzeit, a solo, Armut, silent Hochzeit, or normal."""
    return Accepted.model_validate(submit(table, t.CONTRACT_SET, {"contract": body.to_record()}))


@router.post("/current/calls", status_code=status.HTTP_201_CREATED, dependencies=[TokenDep])
def make_call(*, table: TableDep, body: CallCreate) -> Accepted:
    """Announces Re/Kontra or an Absage; refused with 409 and the reason when too late or not allowed."""
    return Accepted.model_validate(submit(table, t.CALL_MADE, {"seat": body.seat, "call": body.call}))


@router.post("/current/claim", status_code=status.HTTP_201_CREATED, dependencies=[TokenDep])
def claim_rest(*, table: TableDep, body: ClaimCreate) -> Accepted:
    """Spielabkürzung (DDV 5.4): the seat shows its cards, its party takes every trick left; the game is over.

    Refused with 409 and the engine's reason mid-trick, before a Hochzeit is decided, or once the game is over.
    """
    return Accepted.model_validate(submit(table, t.REST_CLAIMED, {"seat": body.seat}))


@router.patch("/calls/{event_id}", dependencies=[TokenDep])
def correct_call(*, table: TableDep, body: CallCorrection, event_id: int = EventId) -> Accepted:
    """Corrects who made an announcement or which one it was, in its place; everything after is recomputed.

    To take an announcement back altogether: ``POST /events/{event_id}/undo``.
    """
    payload: dict[str, Any] = {"target": event_id}
    if body.seat is not None:
        payload["seat"] = body.seat
    if body.call is not None:
        payload["call"] = body.call
    return Accepted.model_validate(submit(table, t.CALL_CORRECTED, payload))


@router.post("/current/cards", status_code=status.HTTP_201_CREATED, dependencies=[TokenDep])
def enter_card(*, table: TableDep, body: CardCreate) -> Accepted:
    """Enters a card the camera missed, as if it had seen it played."""
    return Accepted.model_validate(
        submit(table, t.CARD_OBSERVED, {"seat": body.seat, "card": body.card, "confidence": 1.0, "source": "manual"})
    )


@router.post("/cards/{event_id}/confirm", dependencies=[TokenDep])
def confirm_card(*, table: TableDep, event_id: int = EventId, body: TokenOnly | None = None) -> Accepted:
    """Confirms a card the camera was unsure of."""
    return Accepted.model_validate(submit(table, t.CARD_CONFIRMED, {"target": event_id}))


@router.patch("/cards/{event_id}", dependencies=[TokenDep])
def correct_card(*, table: TableDep, body: CardCorrection, event_id: int = EventId) -> Accepted:
    """Corrects a card's identity or its seat; everything after it is recomputed."""
    payload: dict[str, Any] = {"target": event_id}
    if body.card is not None:
        payload["card"] = body.card
    if body.seat is not None:
        payload["seat"] = body.seat
    return Accepted.model_validate(submit(table, t.CARD_CORRECTED, payload))


@router.post("/current/end", dependencies=[TokenDep])
def end_game_early(*, table: TableDep, body: GameEnd | None = None) -> Accepted:
    """Ends the current game without score (a player leaves); the next dealer deals."""
    return Accepted.model_validate(submit(table, t.GAME_ENDED_EARLY, {"left": body.left if body else None}))


@router.get("/{number}/record")
def export_game(*, table: TableDep, number: int = Path(..., ge=1, le=100000)) -> dict[str, Any]:
    """One game as a ``dokocam-game/1`` record (the engine's JSON game format)."""
    record = table.game_record(number)
    if record is None:
        raise ApiError(status.HTTP_404_NOT_FOUND, Text("no_such_game", number=number))
    return record
