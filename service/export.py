"""The score sheet for people outside the page: a CSV German spreadsheets open right, a printable Block.

Both are made from a Partie's public view (``views.sheet_view``), so they show exactly what the
page shows and compute nothing of their own.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Mapping, Sequence
from typing import Any

# Excel and LibreOffice run a cell starting with one of these as a formula (OWASP: CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"


def text_cell(value: str) -> str:
    """A text cell a spreadsheet shows as text: a leading formula character is quoted away.

    >>> text_cell("=HYPERLINK(1)"), text_cell("-Anna"), text_cell("Anna")
    ("'=HYPERLINK(1)", "'-Anna", 'Anna')
    """
    return "'" + value if value.startswith(_FORMULA_START) else value


def _cell(value: Any) -> str | int:
    if isinstance(value, bool):
        return "ja" if value else ""
    if isinstance(value, int):
        return value  # numbers stay numbers, negative ones included
    return text_cell(str(value))


def sheet_rows(sheet: Mapping[str, Any]) -> list[list[str | int]]:
    """The sheet as rows: German headers, one row per game with each player's points and running total."""
    players: Sequence[str] = sheet["players"]
    head: list[str | int] = ["Spiel", "Runde", "Geber", "Spielart", "Faktor", "Bemerkung"]
    head += [_cell(p) for p in players]
    head += [_cell(f"Stand {p}") for p in players]
    rows = [head]
    for row in sheet["sheet"]:
        cells: list[str | int] = [
            row["number"],
            row["round"],
            _cell(row["dealer"]),
            _cell(row["contract"] or "abgebrochen"),
            row["multiplier"],
            _cell(", ".join(row["notes"])),
        ]
        cells += [row["points"].get(p, "") for p in players]
        cells += [row["totals"].get(p, 0) for p in players]
        rows.append(cells)
    return rows


def sheet_csv(sheet: Mapping[str, Any]) -> str:
    """The sheet as CSV for German spreadsheets: UTF-8 with BOM, semicolons, formula cells escaped."""
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=";", lineterminator="\r\n").writerows(sheet_rows(sheet))
    return BOM + buffer.getvalue()


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)


def sheet_html(sheet: Mapping[str, Any]) -> str:
    """The classic Doppelkopf Block as a printable page: a column per player, each game's points and running total."""
    players: Sequence[str] = sheet["players"]
    e = html.escape
    head = "".join(f"<th>{e(p)}</th>" for p in players)
    body = []
    for row in sheet["sheet"]:
        kind = e(row["contract"] or "abgebrochen")
        if row["multiplier"] > 1:
            kind += f" ×{row['multiplier']}"
        notes = f"<small>{e(', '.join(row['notes']))}</small>" if row["notes"] else ""
        cells = []
        for p in players:
            if p in row["points"]:
                cells.append(f"<td><b>{_signed(row['points'][p])}</b><span>{row['totals'][p]}</span></td>")
            else:
                cells.append(f"<td class='out'>–<span>{row['totals'][p]}</span></td>")
        body.append(
            f"<tr><td>{row['number']}</td><td>{e(row['dealer'])}</td><td>{kind}{notes}</td>{''.join(cells)}</tr>"
        )
    totals = "".join(f"<td><b>{_signed(sheet['totals'][p])}</b></td>" for p in players)
    title = f"Doppelkopf – Partie {sheet.get('number', '')}: {', '.join(players)}"
    return f"""<!doctype html>
<html lang="de"><head><meta charset="utf-8"><title>{e(title)}</title>
<style>
body {{ font: 14px/1.3 system-ui, sans-serif; margin: 1.5cm; color: #000; }}
h1 {{ font-size: 18px; }}
table {{ border-collapse: collapse; width: 100%; }}
th, td {{ border: 1px solid #444; padding: 3px 6px; text-align: right; vertical-align: top; }}
th:nth-child(-n+3), td:nth-child(-n+3) {{ text-align: left; }}
td span {{ display: block; color: #555; font-size: 12px; border-top: 1px dotted #999; }}
td small {{ display: block; color: #555; }}
td.out {{ color: #888; }}
tfoot td {{ border-top: 3px double #000; }}
@media print {{ body {{ margin: 0; }} .no-print {{ display: none; }} }}
</style></head><body>
<h1>{e(title)}</h1>
<p class="no-print"><button onclick="print()">Drucken</button> Je Spiel: Punkte (fett), darunter der Stand.</p>
<table><thead><tr><th>Spiel</th><th>Geber</th><th>Spielart</th>{head}</tr></thead>
<tbody>{"".join(body)}</tbody>
<tfoot><tr><td></td><td></td><td>Stand</td>{totals}</tr></tfoot></table>
</body></html>
"""
