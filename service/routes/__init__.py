"""One router per resource: partie, games, events, settings, stream."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import status

from dokocam.service.errors import ApiError
from dokocam.service.scorekeeper import EngineRefusal, NotFoundError, Scorekeeper
from dokocam.service.table import TableError
from dokocam.service.texts import Text, TextError

log = logging.getLogger(__name__)


def submit(table: Scorekeeper, kind: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Runs one action; a refused one becomes a 4xx whose detail says why (nothing is logged).

    404: it names a card, call or event that is not there; 409: it does not fit the game as it
    stands (too late, wrong party, a Partie running, a game waiting for a fix); 422: its content
    is wrong (an unknown switch, a card code that names no card).
    """
    try:
        event = table.submit(kind, payload)
    except NotFoundError as exc:
        raise ApiError(status.HTTP_404_NOT_FOUND, exc.text, names=exc.names) from exc
    except TableError as exc:
        raise ApiError(status.HTTP_409_CONFLICT, exc.text, names=exc.names) from exc
    except EngineRefusal as exc:
        code = status.HTTP_409_CONFLICT if exc.conflict else status.HTTP_422_UNPROCESSABLE_CONTENT
        raise ApiError(code, exc.text, names=exc.names) from exc
    except TextError as exc:
        raise ApiError(status.HTTP_422_UNPROCESSABLE_CONTENT, exc.text, names=exc.names) from exc
    except ValueError as exc:
        # A sheet refusal (a plain ValueError of engine.sheet): malformed for this Partie.
        raise ApiError(status.HTTP_422_UNPROCESSABLE_CONTENT, Text("engine_refused", why=str(exc)[:300])) from exc
    except (TypeError, KeyError, LookupError) as exc:
        # A payload of a shape the schemas let through but the engine cannot read: refused, logged to be fixed.
        log.warning("refused %s %r: %r", kind, dict(payload), exc)
        raise ApiError(status.HTTP_422_UNPROCESSABLE_CONTENT, Text("not_applied", why=str(exc)[:200])) from exc
    return {"event": event.to_dict(), "state": table.view()}
