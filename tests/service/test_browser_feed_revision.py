"""The dashboard in headless Chromium shows the camera's revision of a card: the card as it reads now,
marked, and what changed in German. A recorded event list stands in for the camera."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from svc_helpers import PLAYERS, Server

from dokocam.engine import Card
from dokocam.service.recorded import game_events

CHROMIUM = "/usr/bin/chromium"
SEED = 21

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install chromium; scripts/test.sh does)"
    ),
]


def test_the_page_shows_a_revised_camera_card(tmp_path: Path, browser: object) -> None:
    first = [e for e in game_events(SEED, start=1.0, interval=0.4) if e.get("trick", 0) == 0]
    plays = [e for e in first if e["kind"] == "card_played"]
    seat, old = plays[1]["seat"], plays[1]["card"]
    new = next(c for c in ("9S", "9C", "9H") if c != old)
    revision = {
        "time": first[-1]["time"] + 0.4,
        "kind": "card_revised",
        "trick": 0,
        "play": 1,
        "seat": seat,
        "old": old,
        "new": new,
        "new_seat": seat,
        "message": "",
    }
    source = tmp_path / "revised.json"
    source.write_text(json.dumps([*first, revision]))
    server = Server(tmp_path / "table.db", "--source", str(source))
    try:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})  # type: ignore[attr-defined]
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.url + "/")
        page.wait_for_selector("#table .card.revised", timeout=15000)
        german = f"Kamera: Stich 1, {PLAYERS[seat]}: {Card.parse(new).german_name}, nicht {Card.parse(old).german_name}"
        page.wait_for_function("text => document.body.innerText.includes(text)", arg=german, timeout=10000)
        assert Card.parse(new).german_name in page.inner_text(f"#table .seat[data-seat='{seat}']")
        assert errors == []
    finally:
        server.stop()
