"""The rules in force: a preset plus the switches that differ; settable while no Partie runs."""

from __future__ import annotations

from fastapi import APIRouter

from dokocam.service import table as t
from dokocam.service.deps import TableDep, TokenDep
from dokocam.service.routes import submit
from dokocam.service.schemas import Accepted, RulesPublic, RulesSet

router = APIRouter(prefix="/settings", tags=["settings"])


@router.get("/rules")
def read_rules(*, table: TableDep) -> RulesPublic:
    """The rules in force: preset, every switch, and those that differ from the preset."""
    return RulesPublic.model_validate(table.view()["rules"])


@router.put("/rules", dependencies=[TokenDep])
def set_rules(*, table: TableDep, body: RulesSet) -> Accepted:
    """Sets the rules for the next Partie; 409 while a Partie runs."""
    return Accepted.model_validate(submit(table, t.RULES_SET, {"rules": body.rules}))
