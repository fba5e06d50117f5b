"""The event log: reading it, and taking back a person's action."""

from __future__ import annotations

from fastapi import APIRouter, Path, Query

from dokocam.service import table as t
from dokocam.service.deps import TableDep, TokenDep
from dokocam.service.routes import submit
from dokocam.service.schemas import Accepted, EventPublic, TokenOnly, UndoCreate

router = APIRouter(prefix="/events", tags=["events"])


@router.get("")
def list_events(
    *, table: TableDep, after: int = Query(0, ge=0, le=2**62, description="only events with a larger id")
) -> list[EventPublic]:
    """The append-only log the state is replayed from, oldest first."""
    return [EventPublic.model_validate(e.to_dict()) for e in table.events(after)]


@router.post("/undo", dependencies=[TokenDep])
def undo(*, table: TableDep, body: UndoCreate | None = None) -> Accepted:
    """Takes back a person's action: the one ``target`` names (send the id the page showed), else the last one.

    Never a camera event (those are corrected); everything after the target is recomputed.
    """
    target = body.target if body is not None else None
    return Accepted.model_validate(submit(table, t.UNDO, {} if target is None else {"target": target}))


@router.post("/{event_id}/undo", dependencies=[TokenDep])
def undo_event(
    *, table: TableDep, event_id: int = Path(..., ge=1, le=2**62), body: TokenOnly | None = None
) -> Accepted:
    """Takes back this one action of a person (a call, a game type, a hand-entered card, a correction ...)."""
    return Accepted.model_validate(submit(table, t.UNDO, {"target": event_id}))
