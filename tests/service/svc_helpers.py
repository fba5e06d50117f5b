"""Helpers for the service tests (a module name no other test folder uses)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from service.recorded import legal_plays

PLAYERS = ["Anna", "Ben", "Cem", "Dora"]


def start(client: TestClient, **extra: object) -> dict:
    response = client.post("/partie", json={"players": PLAYERS, **extra})
    assert response.status_code == 201, response.text
    return response.json()["state"]


def play(client: TestClient, seat: int, card: str) -> dict:
    """Enters a card at a *game* seat of the first game (first dealer Dora: game seat == table seat)."""
    response = client.post("/games/current/cards", json={"seat": seat, "card": card})
    assert response.status_code == 201, response.text
    return response.json()["state"]


def play_game(client: TestClient, seed: int = 1, upto: int = 48) -> dict:
    state: dict = {}
    for seat, card in legal_plays(seed)[:upto]:
        state = play(client, seat, card)
    return state
