"""Error replies: every refusal is short JSON in German and English, never an echo of the input."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from dokocam.engine.messages import Message
from dokocam.service.texts import Text, TextError, error_body

log = logging.getLogger(__name__)

_MAX_PROBLEMS = 5

# pydantic's error types as a person reads them: (German, English); ctx values fill the braces.
_PROBLEMS: dict[str, tuple[str, str]] = {
    "missing": ("fehlt", "is missing"),
    "extra_forbidden": ("ist kein bekanntes Feld", "is not a known field"),
    "int_type": ("muss eine ganze Zahl sein", "must be a whole number"),
    "int_parsing": ("muss eine ganze Zahl sein", "must be a whole number"),
    "int_from_float": ("muss eine ganze Zahl sein", "must be a whole number"),
    "bool_type": ("muss true oder false sein", "must be true or false"),
    "bool_parsing": ("muss true oder false sein", "must be true or false"),
    "string_type": ("muss Text sein", "must be text"),
    "list_type": ("muss eine Liste sein", "must be a list"),
    "dict_type": ("muss ein Objekt sein", "must be an object"),
    "model_type": ("muss ein Objekt sein", "must be an object"),
    "model_attributes_type": ("muss ein Objekt sein", "must be an object"),
    "literal_error": ("muss eines von {expected} sein", "must be one of {expected}"),
    "greater_than_equal": ("muss mindestens {ge} sein", "must be at least {ge}"),
    "less_than_equal": ("darf höchstens {le} sein", "must be at most {le}"),
    "too_short": ("ist zu kurz", "is too short"),
    "too_long": ("ist zu lang", "is too long"),
    "json_invalid": ("ist kein gültiges JSON", "is not valid JSON"),
    "json_type": ("ist kein gültiges JSON", "is not valid JSON"),
}


class ApiError(Exception):
    """A refusal with its HTTP status and message; nothing was changed."""

    def __init__(
        self,
        status_code: int,
        text: Message,
        headers: Mapping[str, str] | None = None,
        names: Sequence[str] | None = None,
    ) -> None:
        super().__init__(text.text("de", names))
        self.status_code = status_code
        self.text = text
        self.names = names
        self.headers = dict(headers or {})


def _where(loc: Sequence[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path")]
    return ".".join(parts)[:60] or "Anfrage"


def problems(errors: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """pydantic's errors without their input: where, what (German and English), the error type."""
    out = []
    for error in errors[:_MAX_PROBLEMS]:
        kind = str(error.get("type", ""))
        raised = (error.get("ctx") or {}).get("error")
        ctx = {k: str(v)[:80] for k, v in (error.get("ctx") or {}).items()}
        if isinstance(raised, TextError):
            de, en = raised.text.de, raised.text.en
        elif kind in _PROBLEMS:
            de, en = (text.format(**ctx) if "{" in text else text for text in _PROBLEMS[kind])
        else:
            # A rare pydantic message without a German text: shown as it is.
            en = str(error.get("msg", kind)).removeprefix("Value error, ")[:200]
            de = en
        out.append({"loc": [str(p)[:40] for p in error.get("loc", ())][:6], "msg": de, "msg_en": en, "type": kind})
    return out


def install(app: FastAPI) -> None:
    """Registers the handlers that turn every refusal into a short two-language reply."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error_body(exc.text, exc.names), status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        found = problems(exc.errors())
        de = "; ".join(f"{_where(p['loc'])}: {p['msg']}" for p in found)
        en = "; ".join(f"{_where(p['loc'])}: {p['msg_en']}" for p in found)
        body = {**error_body(Text("invalid_input", problems=de)), "errors": found}
        body["detail_en"] = Text("invalid_input", problems=en).en
        return JSONResponse(body, status_code=status.HTTP_422_UNPROCESSABLE_CONTENT)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # Starlette's own refusals (404 for an unknown path, 405): short, never the request echoed.
        detail = str(exc.detail)[:200]
        return JSONResponse({"detail": detail, "detail_en": detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error in %s %s", request.method, request.url.path)
        return JSONResponse(error_body(Text("server_error")), status_code=500)
