"""The REST API against a real database file: actions, refusals, recomputation, export."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from svc_helpers import PLAYERS, play, play_game, play_game_rest, start

from dokocam.engine.record import load_record
from dokocam.service.config import Settings
from dokocam.service.main import create_app
from dokocam.service.recorded import deal, legal_plays


def _events(client: TestClient) -> int:
    return len(client.get("/events").json())


def _qc_holder(seed: int) -> int:
    return next(seat for seat, hand in enumerate(deal(seed)) if "QC" in hand)


def test_a_whole_game_goes_on_the_sheet_and_exports(client: TestClient) -> None:
    start(client)
    state = play_game(client, seed=1)
    sheet = state["partie"]["sheet"]
    assert len(sheet) == 1 and sheet[0]["dealer"] == "Dora"
    assert sum(sheet[0]["points"].values()) == 0 and any(sheet[0]["points"].values())
    assert state["last_game"]["result"]["points"] == sheet[0]["points"]
    assert state["last_game"]["result"]["items"], "the game value is itemized"
    assert state["game"]["number"] == 2 and state["game"]["dealer"] == "Anna"
    assert state["game"]["vorhand"] == 1  # Ben sits left of the dealer Anna

    text = client.get("/partie/sheet.csv").content.decode("utf-8")
    assert text.startswith("\ufeff")  # the BOM: German Excel reads UTF-8
    rows = list(csv.reader(io.StringIO(text[1:]), delimiter=";"))
    assert rows[0][:6] == ["Spiel", "Runde", "Geber", "Spielart", "Faktor", "Bemerkung"]
    assert rows[1][6:10] == [str(sheet[0]["points"][p]) for p in PLAYERS]

    record = client.get("/games/1/record").json()
    assert record["format"] == "dokocam-game/1"
    game = load_record(record).to_game()
    assert game.is_over and list(game.result().points) == [sheet[0]["points"][p] for p in PLAYERS]
    assert client.get("/games/9/record").status_code == 404


def test_trick_by_seat_who_led_and_who_wins(client: TestClient) -> None:
    start(client)
    plays = legal_plays(2)
    state = play_game(client, seed=2, upto=2)
    trick = state["game"]["current_trick"]
    assert trick["leader"] == 0
    assert [(p["seat"], p["card"]["code"]) for p in trick["plays"]] == [(s, c) for s, c in plays[:2]]
    assert trick["winner"] in (plays[0][0], plays[1][0])
    assert trick["plays"][0]["card"]["name"] and trick["plays"][0]["card"]["symbol"][0] in "♣♠♥♦"


def test_call_too_late_is_refused_with_the_reason_and_logs_nothing(client: TestClient) -> None:
    start(client)
    seed = 3
    play_game(client, seed=seed, upto=8)  # two tricks: everyone holds 10 cards
    before = _events(client)
    seat = _qc_holder(seed)
    response = client.post("/games/current/calls", json={"seat": seat, "call": "re"})
    assert response.status_code == 409
    body = response.json()  # the engine's reason, the player named, German first
    assert body["detail"].startswith(f"{PLAYERS[seat]} kann nicht Re sagen")
    assert body["detail_en"].startswith(f"{PLAYERS[seat]} cannot say Re") and body["code"] == "call_refused"
    assert _events(client) == before


def test_re_in_time_reveals_the_party(client: TestClient) -> None:
    start(client)
    seat = _qc_holder(4)
    response = client.post("/games/current/calls", json={"seat": seat, "call": "re"})
    assert response.status_code == 201, response.text
    game = response.json()["state"]["game"]
    assert game["calls"] == [
        {"event_id": response.json()["event"]["id"], "seat": seat, "player": PLAYERS[seat], "call": "re"}
    ]
    assert game["parties"][PLAYERS[seat]] == "re"
    again = client.post("/games/current/calls", json={"seat": seat, "call": "re"})
    assert again.status_code == 409


BAD_REQUESTS = [
    ("post", "/games/current/cards", {"seat": 0, "card": "QX"}, 422),
    ("post", "/games/current/cards", {"seat": 4, "card": "QC"}, 422),
    ("post", "/games/current/cards", {"seat": -1, "card": "QC"}, 422),
    ("post", "/games/current/cards", {"card": "QC"}, 422),
    ("post", "/games/current/calls", {"seat": 0, "call": "maybe"}, 422),
    ("post", "/games/current/calls", {"seat": 0, "call": "re", "extra": 1}, 422),
    ("put", "/games/current/contract", {"type": "solo", "declarer": 1}, 422),
    ("put", "/games/current/contract", {"type": "hochzeit"}, 422),
    (
        "put",
        "/games/current/contract",
        {"type": "armut", "declarer": 0, "partner": 1},
        422,
    ),  # not under tournament rules
    ("put", "/games/current/contract", {"type": "grand"}, 422),
    ("patch", "/games/cards/999999", {"card": "QC"}, 404),
    ("patch", "/games/cards/0", {"card": "QC"}, 422),
    ("patch", "/games/cards/99999999999999999999999", {"card": "QC"}, 422),
    ("post", "/games/cards/999999/confirm", {}, 404),
    ("put", "/settings/rules", {"rules": {"preset": "pub"}}, 409),  # a Partie runs
    ("post", "/partie", {"players": PLAYERS}, 409),
    ("post", "/partie", {"players": ["A", "B", "C"], "replace": True}, 422),
    ("post", "/partie", {"players": ["A", "A", "C", "D"], "replace": True}, 422),
    ("post", "/partie", {"players": PLAYERS, "length": {"games": 4, "rounds": 1}, "replace": True}, 422),
    ("post", "/partie", {"players": PLAYERS, "rules": {"preset": "casino"}, "replace": True}, 422),
    ("post", "/partie", {"players": PLAYERS, "rules": {"dulle": True}, "replace": True}, 422),
    ("post", "/partie", {"players": PLAYERS, "length": {"rounds": 0}, "replace": True}, 422),
    (
        "post",
        "/partie",
        {"players": PLAYERS, "rules": {"pflichtsolo": True}, "length": {"games": 3}, "replace": True},
        422,
    ),
    ("post", "/games/current/end", {"left": "Zoe"}, 422),
]


@pytest.mark.parametrize(("method", "path", "body", "code"), BAD_REQUESTS)
def test_malformed_or_out_of_range_requests_get_4xx_and_change_nothing(
    client: TestClient, method: str, path: str, body: dict | None, code: int
) -> None:
    start(client)
    play_game(client, seed=5, upto=3)
    before = client.get("/state").json()
    response = client.request(method.upper(), path, json=body)
    assert response.status_code == code, response.text
    detail = response.json()["detail"]
    assert detail if isinstance(detail, str) else detail[0]["msg"]
    after = client.get("/state").json()
    assert after["seq"] == before["seq"]
    assert after["game"] == before["game"] and after["partie"] == before["partie"]


def test_not_json_at_all_is_a_422(client: TestClient) -> None:
    start(client)
    response = client.post("/games/current/cards", content=b"{seat: 0", headers={"Content-Type": "application/json"})
    assert response.status_code == 422


def test_actions_before_a_partie_are_409_with_what_to_do(client: TestClient) -> None:
    response = client.post("/games/current/cards", json={"seat": 0, "card": "QC"})
    assert response.status_code == 409 and "POST /partie" in response.json()["detail"]
    assert client.post("/events/undo", json={}).status_code == 409
    assert client.get("/games/current").status_code == 404
    assert client.get("/partie").status_code == 404
    assert _events(client) == 0


def test_correcting_a_card_recomputes_everything_after_it(client: TestClient) -> None:
    start(client)
    state = play_game(client, seed=6, upto=5)
    first = state["game"]["tricks"][0]
    winner_play = next(p for p in first["plays"] if p["seat"] == first["winner"])
    # Make the winning card the weakest card there is: the trick goes to someone else.
    loser = next(p for p in first["plays"] if p["seat"] != first["winner"])
    response = client.patch(
        f"/games/cards/{winner_play['event_id']}", json={"card": "9S" if loser["card"]["code"] != "9S" else "9C"}
    )
    assert response.status_code == 200, response.text
    fixed = response.json()["state"]["game"]
    new_first = fixed["tricks"][0]
    assert new_first["winner"] != first["winner"]
    assert next(p for p in new_first["plays"] if p["event_id"] == winner_play["event_id"])["corrected"]
    # The fifth card stays with its seat, in the trick the new winner leads.
    assert fixed["current_trick"]["leader"] == new_first["winner"]

    seat_fix = client.patch(f"/games/cards/{loser['event_id']}", json={"seat": (loser["seat"] + 1) % 4})
    assert seat_fix.status_code == 200
    assert any(f["kind"] == "out_of_turn" for f in seat_fix.json()["state"]["game"]["flags"])
    nothing = client.patch(f"/games/cards/{loser['event_id']}", json={"seat": (loser["seat"] + 1) % 4})
    assert nothing.status_code == 409


def test_correcting_a_card_of_a_finished_game_changes_the_sheet(client: TestClient) -> None:
    start(client)
    state = play_game(client, seed=1)
    before = state["partie"]["sheet"][0]["points"]
    last_trick = state["last_game"]["tricks"][-1]
    target = next(p for p in last_trick["plays"] if p["seat"] == last_trick["winner"])
    # The last trick's winning card becomes a Kreuz-Bube of the other party or so: try until the sheet moves.
    for card in ("10H", "9S", "AS", "JC"):
        response = client.patch(f"/games/cards/{target['event_id']}", json={"card": card})
        if response.status_code == 200 and response.json()["state"]["partie"]["sheet"][0]["points"] != before:
            break
    sheet = response.json()["state"]["partie"]["sheet"]
    assert len(sheet) == 1 and sheet[0]["points"] != before


def test_undo_takes_back_the_last_action_in_force(client: TestClient) -> None:
    start(client)
    play_game(client, seed=7, upto=3)
    seat = _qc_holder(7)
    client.post("/games/current/calls", json={"seat": seat, "call": "re"})
    state = client.post("/events/undo", json={}).json()["state"]
    assert state["game"]["calls"] == []
    state = client.post("/events/undo", json={}).json()["state"]
    assert len(state["game"]["current_trick"]["plays"]) == 2
    kinds = [e["kind"] for e in client.get("/events").json()]
    assert kinds.count("undo") == 2 and kinds.count("card_observed") == 3  # nothing is deleted
    for _ in range(2):
        client.post("/events/undo", json={})
    assert client.post("/events/undo", json={}).status_code == 409  # starting the Partie is not undone


def test_ending_a_game_early_scores_nothing_and_deals_on(client: TestClient) -> None:
    start(client)
    play_game(client, seed=8, upto=5)
    state = client.post("/games/current/end", json={}).json()["state"]
    row = state["partie"]["sheet"][0]
    assert row["ended_early"] and row["points"] == {} and set(state["partie"]["totals"].values()) == {0}
    assert state["game"]["number"] == 2 and state["game"]["dealer"] == "Anna"
    state = client.post("/games/current/end", json={"left": "Cem"}).json()["state"]
    assert state["partie"]["is_over"] and state["game"] is None  # three left: the Partie ends
    assert client.post("/games/current/cards", json={"seat": 0, "card": "QC"}).status_code == 409


def test_rules_are_settable_before_a_partie_only(client: TestClient) -> None:
    response = client.put("/settings/rules", json={"rules": {"preset": "pub", "schweinchen": False}})
    assert response.status_code == 200, response.text
    rules = client.get("/settings/rules").json()
    assert rules["preset"] == "pub" and rules["differs"] == {"schweinchen": False} and rules["settable"]
    assert rules["switches"]["bockrunden"] is True
    state = start(client, length={"rounds": 1})
    assert state["rules"]["preset"] == "pub" and not state["rules"]["settable"]
    assert state["partie"]["length"] == {"rounds": 1}
    assert client.put("/settings/rules", json={"rules": {"preset": "tournament"}}).status_code == 409


def test_game_type_from_the_vorbehalt(client: TestClient) -> None:
    start(client)
    response = client.put("/games/current/contract", json={"type": "solo", "kind": "queens", "declarer": 2})
    assert response.status_code == 200, response.text
    game = response.json()["state"]["game"]
    assert game["contract"]["type"] == "solo" and game["contract"]["declarer"] == 2
    assert game["contract"]["label"] == "Damensolo (Cem)"
    assert client.put("/games/current/contract", json={"type": "normal"}).status_code == 200


def test_state_is_rebuilt_from_the_log_after_a_restart(db_path: Path) -> None:
    with TestClient(create_app(Settings(db=db_path)), base_url="http://127.0.0.1:8000") as first:
        start(first)
        play_game(first, seed=9, upto=6)
        first.post("/games/current/calls", json={"seat": _qc_holder(9), "call": "re"})
        card = first.get("/games/current").json()["tricks"][0]["plays"][1]
        first.patch(f"/games/cards/{card['event_id']}", json={"seat": (card["seat"] + 2) % 4})
        play(first, *legal_plays(9)[6])
        first.post("/events/undo", json={})
        before = first.get("/state").json()
    with TestClient(create_app(Settings(db=db_path)), base_url="http://127.0.0.1:8000") as second:
        after = second.get("/state").json()
    for view in (before, after):
        view.pop("engine_time")
    assert after == before


def test_changes_need_the_token_when_the_network_can_reach_the_server(db_path: Path) -> None:
    token = "s3cret-s3cret-s3cret-s3cret"
    app = create_app(Settings(db=db_path, host="0.0.0.0", token=token))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        body = {"players": PLAYERS}
        assert client.post("/partie", json=body).status_code == 401
        assert client.post("/partie", json=body, headers={"Authorization": "Bearer nope"}).status_code == 403
        assert client.post("/partie", json={**body, "token": token}).status_code == 201
        assert client.post("/games/current/cards", json={"seat": 0, "card": "QC"}).status_code == 401
        ok = client.post(
            "/games/current/cards", json={"seat": 0, "card": "QC"}, headers={"Authorization": f"Bearer {token}"}
        )
        assert ok.status_code == 201
        assert client.post("/events/undo", json={}).status_code == 401
        assert client.get("/state").status_code == 200 and client.get("/").status_code == 200
        assert len(client.get("/events").json()) == 2


def test_a_token_is_made_up_when_listening_on_the_network(db_path: Path) -> None:
    assert Settings(db=db_path).with_token().token is None
    settings = Settings(db=db_path, host="192.168.1.20").with_token()
    assert settings.token and len(settings.token) >= 22 and settings.token_required  # 128 bits
    with pytest.raises(ValueError, match="at least 22"):
        Settings(db=db_path, host="0.0.0.0", token="x")
    with pytest.raises(ValueError, match="at least 22"):
        Settings(db=db_path, token="")


def test_every_action_is_in_the_openapi_document(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    expected = {
        ("/partie", "post"),
        ("/partie/sheet.csv", "get"),
        ("/games/current/contract", "put"),
        ("/games/current/calls", "post"),
        ("/games/current/cards", "post"),
        ("/games/cards/{event_id}/confirm", "post"),
        ("/games/cards/{event_id}", "patch"),
        ("/games/current/end", "post"),
        ("/games/{number}/record", "get"),
        ("/events/undo", "post"),
        ("/settings/rules", "put"),
        ("/stream", "get"),
        ("/state", "get"),
    }
    assert expected <= {(path, method) for path, methods in paths.items() for method in methods}


def test_the_page_and_its_files_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert "http" not in "".join(line for line in page.text.splitlines() if "src=" in line or "href=" in line)


def test_an_owed_pflichtsolo_is_shown_and_the_vorfuehrung_enforced(client: TestClient) -> None:
    state = start(client, rules={"preset": "tournament", "pflichtsolo": True}, length={"rounds": 1})
    assert state["partie"]["pflichtsolo_owed"] == PLAYERS
    assert state["game"]["forced_solo"] == "Anna"  # Vorhand in the last (only) round
    refused = client.put("/games/current/contract", json={"type": "hochzeit", "declarer": 0})
    assert refused.status_code == 409 and "Pflichtsolo" in refused.json()["detail"]
    solo = client.put("/games/current/contract", json={"type": "solo", "kind": "jacks", "declarer": 0})
    assert solo.status_code == 200 and solo.json()["state"]["game"]["contract"]["label"] == "Bubensolo (Anna)"


def test_special_points_show_as_they_happen(client: TestClient) -> None:
    start(client)
    state = play_game(client, seed=22, upto=36)  # trick 9 of this deal holds 42 Augen
    assert state["game"]["tricks"][8]["augen"] >= 40
    assert any(s.startswith("Doppelkopf (Stich 9, ") for s in state["game"]["specials"])
    state = play_game_rest(client, seed=22, after=36)
    assert any(s.startswith("Doppelkopf (Stich 9, ") for s in state["last_game"]["specials"])
    assert any(i["name"] == "Doppelkopf" for i in state["last_game"]["result"]["items"])
