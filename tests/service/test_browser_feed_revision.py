"""The dashboard in headless Chromium shows the camera's revision of a card (the card as it reads now,
marked, and what changed in German) and a card it sees before its turn (in its seat's place, marked as
not counted yet). A recorded event list stands in for the camera."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def page_of(tmp_path: Path, browser: object, events: list[dict]) -> Iterator[tuple[object, list[str]]]:
    """The dashboard of a table whose camera is ``events``, open in a page, and the page's script errors."""
    source = tmp_path / "events.json"
    source.write_text(json.dumps(events))
    server = Server(tmp_path / "table.db", "--source", str(source))
    try:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})  # type: ignore[attr-defined]
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.url + "/")
        yield page, errors
    finally:
        server.stop()


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
    with page_of(tmp_path, browser, [*first, revision]) as (page, errors):
        page.wait_for_selector("#table .card.revised", timeout=15000)
        german = f"Kamera: Stich 1, {PLAYERS[seat]}: {Card.parse(new).german_name}, nicht {Card.parse(old).german_name}"
        page.wait_for_function("text => document.body.innerText.includes(text)", arg=german, timeout=10000)
        assert Card.parse(new).german_name in page.inner_text(f"#table .seat[data-seat='{seat}']")
        assert errors == []


def test_the_page_shows_a_card_seen_before_its_turn_in_its_seats_place(tmp_path: Path, browser: object) -> None:
    first = [e for e in game_events(SEED, start=1.0, interval=0.4) if e.get("trick", 0) == 0]
    plays = [e for e in first if e["kind"] == "card_played"]
    seen = {
        "time": plays[0]["time"] + 0.2,
        "kind": "card_seen",
        "trick": 0,
        "seat": plays[2]["seat"],
        "card": plays[2]["card"],
    }
    with page_of(tmp_path, browser, [plays[0], seen]) as (page, errors):
        page.wait_for_selector("#table .card.seen", timeout=15000)
        state = page.evaluate("() => fetch('/games/current').then((r) => r.json())")
        place = state["seen"][0]["seat"]
        assert Card.parse(plays[2]["card"]).german_name in page.inner_text(
            f"#table .seat[data-seat='{place}'] .card.seen"
        )
        assert page.locator("#table .card:not(.seen)").count() == 1  # only the card played is counted
        assert errors == []
