"""A Partie of five: the dealer sits out, the four who play take table seats 0..3 in seating order."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from svc_helpers import Server

from dokocam.engine.record import load_record
from dokocam.service.config import Settings
from dokocam.service.main import create_app
from dokocam.service.recorded import deal, legal_plays

FIVE = ["Anna", "Ben", "Cem", "Dora", "Emil"]


def _start(client: TestClient, **extra: object) -> dict:
    response = client.post("/partie", json={"players": FIVE, **extra})
    assert response.status_code == 201, response.text
    return response.json()["state"]


def _play(client: TestClient, game_seat: int, card: str) -> dict:
    """Enters a card given by *game* seat (from Vorhand), at the table seat it maps to now."""
    game = client.get("/games/current").json()
    response = client.post("/games/current/cards", json={"seat": (game["vorhand"] + game_seat) % 4, "card": card})
    assert response.status_code == 201, response.text
    return response.json()["state"]


def _play_game(client: TestClient, seed: int, upto: int = 48) -> dict:
    state: dict = {}
    for seat, card in legal_plays(seed)[:upto]:
        state = _play(client, seat, card)
    return state


def _without_time(view: dict) -> dict:
    return {k: v for k, v in view.items() if k != "engine_time"}


def test_two_games_of_five_rotate_the_dealer_and_who_sits_out(client: TestClient) -> None:
    state = _start(client)
    first = state["game"]
    assert (first["dealer"], first["sitting_out"]) == ("Emil", "Emil")
    assert first["seats"] == ["Anna", "Ben", "Cem", "Dora"] and first["vorhand"] == 0

    state = _play_game(client, seed=1)
    second = state["game"]
    assert (second["number"], second["dealer"], second["sitting_out"]) == (2, "Anna", "Anna")
    assert second["seats"] == ["Ben", "Cem", "Dora", "Emil"] and second["vorhand"] == 0
    assert state["last_game"]["seats"] == first["seats"]

    state = _play_game(client, seed=2)
    third = state["game"]
    assert (third["dealer"], third["sitting_out"]) == ("Ben", "Ben")
    # Ben's chair is skipped: Anna keeps seat 0, Cem (Vorhand) moves up to seat 1.
    assert third["seats"] == ["Anna", "Cem", "Dora", "Emil"] and third["vorhand"] == 1

    partie = state["partie"]
    assert partie["players"] == FIVE and partie["present"] == FIVE
    sheet = partie["sheet"]
    assert [(r["dealer"], r["sitting_out"]) for r in sheet] == [("Emil", "Emil"), ("Anna", "Anna")]
    for row, out in zip(sheet, ("Emil", "Anna")):
        assert sorted(row["points"]) == sorted(p for p in FIVE if p != out)
        assert sum(row["points"].values()) == 0 and any(row["points"].values())
    assert set(partie["totals"]) == set(FIVE) and sum(partie["totals"].values()) == 0
    assert partie["totals"] == {p: sum(r["points"].get(p, 0) for r in sheet) for p in FIVE}
    assert sheet[-1]["totals"] == partie["totals"]
    assert state["last_game"]["result"]["points"] == sheet[1]["points"]

    rows = list(csv.reader(io.StringIO(client.get("/partie/sheet.csv").content.decode("utf-8-sig")), delimiter=";"))
    assert rows[0][6:] == FIVE + [f"Stand {p}" for p in FIVE]
    assert rows[1][6:11] == [str(sheet[0]["points"][p]) if p != "Emil" else "" for p in FIVE]
    assert rows[2][11:] == [str(partie["totals"][p]) for p in FIVE]

    record = client.get("/games/2/record").json()
    assert record["players"] == ["Ben", "Cem", "Dora", "Emil"]
    game = load_record(record).to_game()
    assert game.is_over and list(game.result().points) == [sheet[1]["points"][p] for p in record["players"]]


def test_seats_name_this_games_players_when_they_shift(client: TestClient) -> None:
    _start(client)
    _play_game(client, seed=1)
    _play_game(client, seed=2)  # game 3: Ben sits out, Cem is Vorhand at table seat 1
    seed = 3
    state = _play_game(client, seed=seed, upto=2)
    trick = state["game"]["current_trick"]
    assert trick["leader"] == 1
    assert [p["player"] for p in trick["plays"]] == ["Cem", "Dora"]
    assert [p["seat"] for p in trick["plays"]] == [1, 2]
    qc = next(s for s, hand in enumerate(deal(seed)) if "QC" in hand)  # a game seat
    table_seat = (1 + qc) % 4
    response = client.post("/games/current/calls", json={"seat": table_seat, "call": "re"})
    assert response.status_code == 201, response.text
    game = response.json()["state"]["game"]
    name = ["Cem", "Dora", "Emil", "Anna"][qc]
    assert game["calls"][0]["player"] == name and game["parties"][name] == "re"
    undo = response.json()["state"]["undo"]
    assert undo["label"] == f"Re von {name}" and undo["event_id"] == response.json()["event"]["id"]
    assert "Ben" not in game["parties"]


@pytest.mark.parametrize("players", [FIVE[:3], FIVE + ["Fritz"], []])
def test_three_or_six_players_are_refused_and_change_nothing(client: TestClient, players: list[str]) -> None:
    response = client.post("/partie", json={"players": players})
    assert response.status_code == 422
    assert (
        f"a Partie needs 4 or 5 players (with five, the dealer sits out each game), got {len(players)}"
        in response.json()["detail_en"]
    )
    assert client.get("/events").json() == []
    assert client.get("/partie").status_code == 404


def test_a_first_dealer_beyond_the_players_is_refused(client: TestClient) -> None:
    response = client.post("/partie", json={"players": FIVE[:4], "first_dealer": 4})
    assert response.status_code == 422 and "0..3" in response.text
    assert client.get("/events").json() == []
    state = _start(client, first_dealer=2)
    assert (state["game"]["sitting_out"], state["game"]["seats"]) == ("Cem", ["Anna", "Ben", "Dora", "Emil"])
    assert state["game"]["vorhand"] == 2  # Dora, left of the dealer


def test_when_one_of_five_leaves_the_four_play_on_with_nobody_sitting_out(client: TestClient) -> None:
    _start(client)
    response = client.post("/games/current/end", json={"left": "Emil"})  # Emil sat out game 1
    assert response.status_code == 200, response.text
    state = response.json()["state"]
    assert state["partie"]["present"] == ["Anna", "Ben", "Cem", "Dora"]
    game = state["game"]
    assert (game["dealer"], game["sitting_out"], game["seats"], game["vorhand"]) == (
        "Anna",
        None,
        ["Anna", "Ben", "Cem", "Dora"],
        1,
    )
    assert state["partie"]["sheet"][0]["ended_early"] and state["partie"]["sheet"][0]["sitting_out"] == "Emil"


def test_a_partie_of_five_is_rebuilt_from_the_log_after_a_restart(db_path: Path) -> None:
    with TestClient(create_app(Settings(db=db_path)), base_url="http://127.0.0.1:8000") as first:
        _start(first)
        _play_game(first, seed=5)
        _play_game(first, seed=6)
        _play_game(first, seed=7, upto=6)  # game 3: table seats shifted past Ben's chair
        card = first.get("/games/current").json()["current_trick"]["plays"][1]
        assert first.patch(f"/games/cards/{card['event_id']}", json={"seat": (card["seat"] + 1) % 4}).status_code == 200
        assert first.post("/events/undo", json={}).status_code == 200
        before = first.get("/state").json()
    with TestClient(create_app(Settings(db=db_path)), base_url="http://127.0.0.1:8000") as second:
        after = second.get("/state").json()
    assert _without_time(after) == _without_time(before)
    assert len(after["partie"]["sheet"]) == 2 and set(after["partie"]["totals"]) == set(FIVE)
    assert after["game"]["sitting_out"] == "Ben" and after["game"]["seats"] == ["Anna", "Cem", "Dora", "Emil"]


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        server.stop()


def test_serve_players_takes_five_names_and_survives_sigkill(tmp_path: Path, servers: list[Server]) -> None:
    db = tmp_path / "table.db"
    first = Server(db, players=FIVE)
    servers.append(first)
    for seat, card in legal_plays(11):  # game 1: Emil sits out, game seats are table seats
        assert first.post("/games/current/cards", {"seat": seat, "card": card}).status_code == 201
    for seat, card in legal_plays(12)[:5]:  # game 2: Anna sits out, Ben..Emil at seats 0..3
        assert first.post("/games/current/cards", {"seat": seat, "card": card}).status_code == 201
    before = first.get("/state")
    first.kill()

    second = Server(db, players=FIVE)  # the log already has a Partie: the names start nothing new
    servers.append(second)
    after = second.get("/state")
    assert _without_time(after) == _without_time(before)
    assert after["partie"]["players"] == FIVE and len(after["partie"]["sheet"]) == 1
    assert after["game"]["sitting_out"] == "Anna" and len(after["game"]["current_trick"]["plays"]) == 1


@pytest.mark.parametrize("names", ["Anna,Ben,Cem", "Anna,Ben,Cem,Dora,Emil,Fritz", "Anna,Ben,Anna,Dora"])
def test_serve_refuses_a_wrong_players_option(tmp_path: Path, names: str, capsys: pytest.CaptureFixture[str]) -> None:
    from dokocam.service.cli import main

    assert main(["serve", "--db", str(tmp_path / "t.db"), "--players", names]) == 2
    assert "--players needs 4 or 5 different names" in capsys.readouterr().err
    assert not (tmp_path / "t.db").exists()
