"""Helpers for the service tests (a module name no other test folder uses)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from fastapi.testclient import TestClient

from dokocam.service.recorded import legal_plays

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


def play_game_rest(client: TestClient, seed: int, after: int, upto: int = 48) -> dict:
    state: dict = {}
    for seat, card in legal_plays(seed)[after:upto]:
        state = play(client, seat, card)
    return state


ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``dokocam serve`` in a subprocess on a free loopback port."""

    def __init__(self, db: Path, *extra: str, players: list[str] | None = PLAYERS, scheme: str = "http") -> None:
        self.port = _free_port()
        self.url = f"{scheme}://127.0.0.1:{self.port}"
        # The CLI's entry function, whether the cli is a module or a package.
        entry = "import sys; from dokocam.service.cli import main; sys.exit(main())"
        args = [sys.executable, "-c", entry, "serve", "--db", str(db), "--port", str(self.port), *extra]
        if players is not None:
            args += ["--players", ",".join(players)]
        self.log = db.parent / f"server-{self.port}.log"
        with self.log.open("wb") as log:  # a file, not a pipe: a chatty server must never block
            self.process = subprocess.Popen(args, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"server exited: {self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}/state", timeout=1, verify=False).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("server did not start within 60 s")
            time.sleep(0.1)

    def get(self, path: str) -> dict:
        return httpx.get(self.url + path, timeout=10, verify=False).json()

    def post(self, path: str, body: dict, headers: dict[str, str] | None = None) -> httpx.Response:
        return httpx.post(self.url + path, json=body, timeout=10, verify=False, headers=headers)

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
