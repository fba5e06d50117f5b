"""Starting a Partie, reading it and the earlier ones, exporting a score sheet (CSV, printable Block)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path, Response, status
from fastapi.responses import HTMLResponse

from dokocam.service import table as t
from dokocam.service.deps import TableDep, TokenDep
from dokocam.service.errors import ApiError
from dokocam.service.export import sheet_csv, sheet_html
from dokocam.service.routes import submit
from dokocam.service.schemas import Accepted, PartieCreate, PartiePublic, PartieSummary
from dokocam.service.texts import Text

router = APIRouter(tags=["partie"])

PartieNumber = Path(..., ge=1, le=100000, description="the Partie's number (GET /parties)")
GameNumber = Path(..., ge=1, le=100000, description="the game's number on the sheet")


@router.post("/partie", status_code=status.HTTP_201_CREATED, dependencies=[TokenDep])
def start_partie(*, table: TableDep, body: PartieCreate) -> Accepted:
    """Starts a Partie: 4 or 5 names in clockwise seat order, first dealer, rules, length.

    With five players the dealer sits out each game; the other four take table seats 0..3.
    A Partie it replaces stays readable under ``/parties/{number}``.
    """
    payload = {
        "players": body.players,
        "first_dealer": body.players[body.first_dealer if body.first_dealer is not None else -1],
        "rules": body.rules if body.rules is not None else table.state.rules.to_dict(),
        "length": body.length.model_dump(exclude_none=True),
        "replace": body.replace,
    }
    return Accepted.model_validate(submit(table, t.PARTIE_STARTED, payload))


def _sheet(table: TableDep, number: int | None) -> dict[str, Any]:
    sheet = table.sheet(number)
    if sheet is None:
        raise ApiError(
            status.HTTP_404_NOT_FOUND, Text("no_partie" if number is None else "no_such_partie", number=number)
        )
    return sheet


def _csv(sheet: dict[str, Any]) -> Response:
    return Response(
        sheet_csv(sheet),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="doppelkopf-partie-{sheet["number"]}.csv"'},
    )


@router.get("/partie")
def read_partie(*, table: TableDep) -> PartiePublic:
    """The Partie: players, totals, Bock rounds, owed Pflichtsoli and the score sheet."""
    return PartiePublic.model_validate(_sheet(table, None))


_CSV: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/csv": {}}, "description": "semicolons, UTF-8 with BOM, German headers"}
}
_HTML: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/html": {}}, "description": "the Block as a page to print"}
}


@router.get("/partie/sheet.csv", response_class=Response, responses=_CSV)
def export_sheet(*, table: TableDep) -> Response:
    """The score sheet as CSV for German spreadsheets: one row per game, points then running totals."""
    return _csv(_sheet(table, None))


@router.get("/partie/print", response_class=HTMLResponse, responses=_HTML)
def print_sheet(*, table: TableDep) -> HTMLResponse:
    """The score sheet as the classic Doppelkopf Block with running totals, to print."""
    return HTMLResponse(sheet_html(_sheet(table, None)))


@router.get("/parties")
def list_parties(*, table: TableDep) -> list[PartieSummary]:
    """Every Partie of this table's log, oldest first; the last one is in force."""
    return [PartieSummary.model_validate(p) for p in table.parties()]


@router.get("/parties/{number}")
def read_past_partie(*, table: TableDep, number: int = PartieNumber) -> PartiePublic:
    """Any Partie, the ones a new Partie replaced included."""
    return PartiePublic.model_validate(_sheet(table, number))


@router.get("/parties/{number}/sheet.csv", response_class=Response, responses=_CSV)
def export_past_sheet(*, table: TableDep, number: int = PartieNumber) -> Response:
    """Any Partie's score sheet as CSV."""
    return _csv(_sheet(table, number))


@router.get("/parties/{number}/print", response_class=HTMLResponse, responses=_HTML)
def print_past_sheet(*, table: TableDep, number: int = PartieNumber) -> HTMLResponse:
    """Any Partie's score sheet as a printable Block."""
    return HTMLResponse(sheet_html(_sheet(table, number)))


@router.get("/parties/{number}/games/{game}/record")
def export_past_game(*, table: TableDep, number: int = PartieNumber, game: int = GameNumber) -> dict[str, Any]:
    """One game of any Partie as a ``dokocam-game/1`` record."""
    record = table.game_record(game, number)
    if record is None:
        raise ApiError(status.HTTP_404_NOT_FOUND, Text("no_such_game", number=game))
    return record
