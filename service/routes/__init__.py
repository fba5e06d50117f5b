"""One router per resource: partie, games, events, settings, stream."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import HTTPException, status

from dokocam.service.scorekeeper import NotFoundError, Scorekeeper
from dokocam.service.table import TableError


def submit(table: Scorekeeper, kind: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Runs one action; a refused one becomes a 4xx whose detail says why (nothing is logged).

    404: it names a card that is not there; 409: it does not fit the game as it stands
    (too late, wrong party, a Partie running); 422: its content is wrong (an unknown switch).
    """
    try:
        event = table.submit(kind, payload)
    except NotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from exc
    except TableError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, detail=str(exc)) from exc
    except ValueError as exc:
        code = status.HTTP_409_CONFLICT if _is_conflict(exc) else 422
        raise HTTPException(code, detail=str(exc)) from exc
    return {"event": event.to_dict(), "state": table.view()}


def _is_conflict(exc: ValueError) -> bool:
    # An announcement the engine refuses is legal in form but wrong for this moment of the game.
    return type(exc).__name__ in ("IllegalCallError", "PflichtsoloError", "PartieOverError")
