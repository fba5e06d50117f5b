"""Taking back a person's action by itself: never a camera card, everything after recomputed."""

from __future__ import annotations

from fastapi.testclient import TestClient
from svc_helpers import play, play_game, play_game_rest, start

from dokocam.service.feed import CARD_PLAYED, FeedEvent
from dokocam.service.recorded import deal, legal_plays
from dokocam.service.scorekeeper import Scorekeeper


def _camera(client: TestClient, seat: int, card: str, seq: int) -> None:
    """The camera sees a card (a game seat: the first game's Vorhand is table seat 0)."""
    table: Scorekeeper = client.app.state.table  # type: ignore[attr-defined]
    assert table.observe(FeedEvent(CARD_PLAYED, float(seq), {"seat": seat, "card": card, "confidence": 0.9}), seq)


def _holder(seed: int, card: str = "QC", has: bool = True) -> int:
    return next(seat for seat, hand in enumerate(deal(seed)) if (card in hand) == has)


def test_a_wrong_re_is_taken_back_after_the_game_and_the_game_is_scored(client: TestClient) -> None:
    seed = 4
    start(client)
    kontra = _holder(seed, has=False)
    wrong = client.post("/games/current/calls", json={"seat": kontra, "call": "re"}).json()["event"]["id"]
    state = play_game(client, seed=seed)
    game = state["game"]
    assert game["number"] == 1 and game["is_over"] and game["blocked"]  # 3 against 1: no result the sheet takes
    assert state["notes"] == []  # the last card was played: it is in the game, the game says what to fix
    late = client.post("/games/current/cards", json={"seat": 0, "card": "QC"})
    assert late.status_code == 409 and "erst das berichtigen" in late.json()["detail"]  # never a silent 201
    response = client.post(f"/events/{wrong}/undo", json={})
    assert response.status_code == 200, response.text
    state = response.json()["state"]
    sheet = state["partie"]["sheet"]
    assert len(sheet) == 1 and sum(sheet[0]["points"].values()) == 0 and any(sheet[0]["points"].values())
    assert state["game"]["number"] == 2


def test_a_call_is_corrected_in_place_even_when_it_would_now_be_too_late(client: TestClient) -> None:
    seed = 4
    start(client)
    kontra, re_seat = _holder(seed, has=False), _holder(seed)
    call = client.post("/games/current/calls", json={"seat": kontra, "call": "re"}).json()["event"]["id"]
    play_game(client, seed=seed, upto=12)  # three tricks: a Re now would be too late
    assert client.post("/games/current/calls", json={"seat": re_seat, "call": "re"}).status_code == 409
    fixed = client.patch(f"/games/calls/{call}", json={"seat": re_seat})
    assert fixed.status_code == 200, fixed.text
    game = fixed.json()["state"]["game"]
    assert [(c["seat"], c["call"], c["event_id"]) for c in game["calls"]] == [(re_seat, "re", call)]
    assert client.patch(f"/games/calls/{call}", json={"seat": re_seat}).status_code == 409  # nothing to correct
    before = client.get("/state").json()["seq"]
    absage = client.patch(f"/games/calls/{call}", json={"call": "no30"})  # an Absage with no Ansage before it
    assert (
        absage.status_code == 409
        and "keine 30 sagen" in absage.json()["detail"]
        and "cannot say" in absage.json()["detail_en"]
    )
    assert client.get("/state").json()["seq"] == before
    assert client.patch("/games/calls/999999", json={"seat": 0}).status_code == 404


def test_undo_never_takes_back_a_camera_card_that_came_in_between(client: TestClient) -> None:
    seed = 7
    start(client)
    plays = legal_plays(seed)
    _camera(client, *plays[0], seq=1)
    re_seat = _holder(seed)
    call = client.post("/games/current/calls", json={"seat": re_seat, "call": "re"}).json()["event"]["id"]
    seen = client.get("/state").json()["undo"]
    assert seen["event_id"] == call and seen["label"].startswith("Re von ")
    _camera(client, *plays[1], seq=2)  # the camera adds a card while the person reaches for the button
    _camera(client, *plays[2], seq=3)
    state = client.post("/events/undo", json={"target": seen["event_id"]}).json()["state"]
    assert state["game"]["calls"] == []
    assert len(state["game"]["current_trick"]["plays"]) == 3  # all three camera cards stay
    assert state["undo"] is None  # nothing else a person did
    assert client.post("/events/undo", json={}).status_code == 409
    camera_card = state["game"]["current_trick"]["plays"][1]["event_id"]
    refused = client.post(f"/events/{camera_card}/undo", json={})
    assert refused.status_code == 409 and "Kamera" in refused.json()["detail"]


def test_any_persons_action_can_be_taken_back_by_itself(client: TestClient) -> None:
    seed = 7
    start(client)
    contract = client.put("/games/current/contract", json={"type": "solo", "kind": "queens", "declarer": 2})
    contract_id = contract.json()["event"]["id"]
    state = play_game(client, seed=seed, upto=3)
    card = state["game"]["current_trick"]["plays"][1]
    fix = client.patch(
        f"/games/cards/{card['event_id']}", json={"card": "9D" if card["card"]["code"] != "9D" else "9C"}
    )
    assert fix.status_code == 200, fix.text
    labels = [a["label"] for a in fix.json()["state"]["actions"]]
    assert labels[0].startswith("Berichtigung: ") and labels[-1] == "Spielart Damensolo (Cem)"
    # The game type, the first of them all, goes; the cards and the correction after it stay.
    state = client.post(f"/events/{contract_id}/undo", json={}).json()["state"]
    assert state["game"]["contract"]["type"] == "normal"
    assert state["game"]["current_trick"]["plays"][1]["corrected"]
    # The correction goes: the card is as entered again.
    fix_id = fix.json()["event"]["id"]
    state = client.post(f"/events/{fix_id}/undo", json={}).json()["state"]
    assert state["game"]["current_trick"]["plays"][1]["card"]["code"] == card["card"]["code"]
    # A card entered by hand in the middle of the trick goes; the one after it no longer fits and shows as a note.
    state = client.post(f"/events/{card['event_id']}/undo", json={}).json()["state"]
    assert [p["event_id"] for p in state["game"]["current_trick"]["plays"]][0] != card["event_id"]
    assert client.post(f"/events/{card['event_id']}/undo", json={}).status_code == 409  # already taken back
    assert client.post("/events/1/undo", json={}).status_code == 409  # starting the Partie is not an action to undo


def test_an_early_end_is_taken_back_and_the_game_goes_on(client: TestClient) -> None:
    start(client)
    play_game(client, seed=8, upto=5)
    ended = client.post("/games/current/end", json={})
    assert ended.json()["state"]["game"]["number"] == 2
    label = ended.json()["state"]["undo"]["label"]
    assert label == "Spiel 1 ohne Wertung beendet"
    state = client.post("/events/undo", json={"target": ended.json()["event"]["id"]}).json()["state"]
    assert state["game"]["number"] == 1 and state["partie"]["sheet"] == []
    state = play(client, *legal_plays(8)[5])
    assert len(state["game"]["tricks"]) == 1


def test_a_spielabkuerzung_ends_the_game_and_can_be_taken_back(client: TestClient) -> None:
    seed = 9
    start(client)
    play_game(client, seed=seed, upto=33)  # a card of trick 9 lies on the table
    mid = client.post("/games/current/claim", json={"seat": 0})
    assert mid.status_code == 409 and mid.json()["code"] == "claim_mid_trick" and "Anna" in mid.json()["detail"]
    state = play_game_rest(client, seed, after=33, upto=36)
    assert state["game"]["current_trick"]["plays"] == []
    claimed = client.post("/games/current/claim", json={"seat": 1})
    assert claimed.status_code == 201, claimed.text
    state = claimed.json()["state"]
    last = state["last_game"]
    assert last["claimed"]["player"] == "Ben" and last["claimed"]["tricks"] == 3 and last["claimed"]["augen"] > 0
    assert len(state["partie"]["sheet"]) == 1 and state["game"]["number"] == 2
    assert state["undo"]["label"] == "Spielabkürzung: Ben beansprucht den Rest (Spiel 1)"
    state = client.post("/events/undo", json={"target": state["undo"]["event_id"]}).json()["state"]
    assert state["partie"]["sheet"] == [] and state["game"]["number"] == 1 and len(state["game"]["tricks"]) == 9
