"""The sheet outside the page: CSV for German spreadsheets, the printable Block, earlier Parties."""

from __future__ import annotations

import csv
import io

from fastapi.testclient import TestClient
from svc_helpers import play_game

NAMES = ['=HYPERLINK("http://x")', "+Ben", "-Cem", "@Dora"]


def _rows(text: str) -> list[list[str]]:
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:]), delimiter=";"))


def test_the_csv_escapes_formulas_and_keeps_numbers_numbers(client: TestClient) -> None:
    assert client.post("/partie", json={"players": NAMES}).status_code == 201
    state = play_game(client, seed=1)
    response = client.get("/partie/sheet.csv")
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = _rows(response.content.decode("utf-8"))
    assert rows[0][6:10] == ["'" + n for n in NAMES]  # a name is text, never a formula
    assert rows[0][10] == 'Stand =HYPERLINK("http://x")'  # text after a plain word cannot run
    assert rows[1][2] == "'@Dora" and rows[1][3] == "Normalspiel"
    points = state["partie"]["sheet"][0]["points"]
    assert rows[1][6:10] == [str(points[n]) for n in NAMES]  # negative numbers stay numbers, unquoted
    assert any(cell.startswith("-") for cell in rows[1][6:10])
    assert "\r\n" in response.text


def test_the_printable_block_has_running_totals_and_escapes_names(client: TestClient) -> None:
    client.post("/partie", json={"players": NAMES})
    play_game(client, seed=1)
    page = client.get("/partie/print")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "=HYPERLINK(&quot;http://x&quot;)" in page.text and "Stand" in page.text
    totals = client.get("/partie").json()["totals"]
    for value in totals.values():
        assert (f"+{value}" if value > 0 else str(value)) in page.text


def test_a_replaced_partie_stays_browsable(client: TestClient) -> None:
    client.post("/partie", json={"players": ["Anna", "Ben", "Cem", "Dora"]})
    first = play_game(client, seed=1)["partie"]
    client.post("/partie", json={"players": ["Uli", "Vera", "Wim", "Xaver"], "replace": True})
    parties = client.get("/parties").json()
    assert [(p["number"], p["current"], p["games"]) for p in parties] == [(1, False, 1), (2, True, 0)]
    old = client.get("/parties/1").json()
    assert old["players"] == ["Anna", "Ben", "Cem", "Dora"] and old["sheet"] == first["sheet"]
    assert client.get("/parties/1/games/1/record").json()["format"] == "dokocam-game/1"
    assert _rows(client.get("/parties/1/sheet.csv").content.decode())[0][6] == "Anna"
    assert "Anna" in client.get("/parties/1/print").text
    assert client.get("/partie").json()["number"] == 2
    assert client.get("/parties/3").status_code == 404
    assert client.get("/parties/1/games/2/record").json()["events"] == []  # the game that had just begun
    assert client.get("/parties/1/games/3/record").status_code == 404
