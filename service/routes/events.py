"""The event log: reading it, and undoing the last action."""

from __future__ import annotations

from fastapi import APIRouter, Query

from dokocam.service import table as t
from dokocam.service.deps import TableDep, TokenDep
from dokocam.service.routes import submit
from dokocam.service.schemas import Accepted, EventPublic, TokenOnly

router = APIRouter(prefix="/events", tags=["events"])


@router.get("")
def list_events(
    *, table: TableDep, after: int = Query(0, ge=0, description="only events with a larger id")
) -> list[EventPublic]:
    """The append-only log the state is replayed from, oldest first."""
    return [EventPublic.model_validate(e.to_dict()) for e in table.events(after)]


@router.post("/undo", dependencies=[TokenDep])
def undo(*, table: TableDep, body: TokenOnly | None = None) -> Accepted:
    """Takes back the last action still in force (a card, a call, a correction ...); the rest is recomputed."""
    return Accepted.model_validate(submit(table, t.UNDO, {}))
