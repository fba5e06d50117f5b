"""Dependencies shared by the routers, as ``Annotated`` aliases."""

from __future__ import annotations

import hmac
import json
from typing import Annotated

from fastapi import Depends, Request, status

from dokocam.service.config import Settings
from dokocam.service.errors import ApiError
from dokocam.service.scorekeeper import Scorekeeper
from dokocam.service.texts import Text


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_table(request: Request) -> Scorekeeper:
    table: Scorekeeper = request.app.state.table
    return table


SettingsDep = Annotated[Settings, Depends(get_settings)]
TableDep = Annotated[Scorekeeper, Depends(get_table)]


async def require_token(request: Request, settings: SettingsDep) -> None:
    """Lets a state-changing call through when no token is needed or the right one came.

    The token comes as ``Authorization: Bearer <token>`` or as a ``token`` field of the JSON body.
    """
    if not settings.token_required:
        return
    given = None
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        given = header[7:].strip()
    else:
        try:
            body = json.loads(await request.body() or b"{}")
        except (ValueError, UnicodeDecodeError):
            body = None
        if isinstance(body, dict) and isinstance(body.get("token"), str):
            given = body["token"]
    if given is None:
        raise ApiError(status.HTTP_401_UNAUTHORIZED, Text("token_needed"), headers={"WWW-Authenticate": "Bearer"})
    assert settings.token is not None
    if not hmac.compare_digest(given.encode(), settings.token.encode()):
        raise ApiError(status.HTTP_403_FORBIDDEN, Text("token_wrong"))


TokenDep = Depends(require_token)
