"""Starting a Partie, reading it, exporting its score sheet."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from dokocam.service import table as t
from dokocam.service.deps import TableDep, TokenDep
from dokocam.service.errors import ApiError
from dokocam.service.routes import submit
from dokocam.service.schemas import Accepted, PartieCreate, PartiePublic
from dokocam.service.texts import Text

router = APIRouter(prefix="/partie", tags=["partie"])


@router.post("", status_code=status.HTTP_201_CREATED, dependencies=[TokenDep])
def start_partie(*, table: TableDep, body: PartieCreate) -> Accepted:
    """Starts a Partie: 4 or 5 names in clockwise seat order, first dealer, rules, length.

    With five players the dealer sits out each game; the other four take table seats 0..3.
    """
    payload = {
        "players": body.players,
        "first_dealer": body.players[body.first_dealer if body.first_dealer is not None else -1],
        "rules": body.rules if body.rules is not None else table.state.rules.to_dict(),
        "length": body.length.model_dump(exclude_none=True),
        "replace": body.replace,
    }
    return Accepted.model_validate(submit(table, t.PARTIE_STARTED, payload))


@router.get("")
def read_partie(*, table: TableDep) -> PartiePublic:
    """The Partie: players, totals, Bock rounds, owed Pflichtsoli and the score sheet."""
    view = table.view()["partie"]
    if view is None:
        raise ApiError(status.HTTP_404_NOT_FOUND, Text("no_partie"))
    return PartiePublic.model_validate(view)


@router.get("/sheet.csv", response_class=Response, responses={200: {"content": {"text/csv": {}}}})
def export_sheet(*, table: TableDep) -> Response:
    """The score sheet as CSV: one row per game, entries then running totals."""
    text = table.sheet_csv()
    if text is None:
        raise ApiError(status.HTTP_404_NOT_FOUND, Text("no_partie"))
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="dokocam-sheet.csv"'},
    )
