"""The dashboard in real headless Chromium: a trick appears, Re is announced, a card corrected,
the score sheet changes. A recorded event list stands in for the camera."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from svc_helpers import Server

from dokocam.engine import Call, Card, Game
from dokocam.service.recorded import deal, game_events, legal_plays

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
SEED = 21

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install chromium; scripts/test.sh does)"
    ),
]


def _correction_that_moves_the_sheet(re_seat: int) -> tuple[int, str]:
    """(position of a play, new card) whose correction changes the game's points, found with the engine."""
    plays = legal_plays(SEED)

    def points(history: list[tuple[int, str]]) -> tuple[int, ...]:
        game = Game()
        for i, (seat, card) in enumerate(history):
            if i == 4:
                game.call(re_seat, Call.RE)
            game.play(seat, Card.parse(card))
        return tuple(game.result().points)

    base = points(plays)
    for position in range(len(plays) - 1, 3, -1):
        for card in ("AS", "9S", "10H", "AC"):
            changed = list(plays)
            changed[position] = (plays[position][0], card)
            if card != plays[position][1] and points(changed) != base:
                return position, card
    raise AssertionError("no single correction changes this game's points")


def _camera_frame() -> dict:
    """A recorded camera image: felt with one card-sized box the page must label."""
    import cv2
    import numpy as np

    image = np.full((360, 640, 3), (46, 92, 30), np.uint8)
    cv2.rectangle(image, (300, 150), (360, 240), (250, 250, 250), -1)
    jpeg = cv2.imencode(".jpg", image)[1].tobytes()
    box = {"xyxy": [300, 150, 360, 240], "card": "QC", "confidence": 0.93}
    return {
        "time": 0.5,
        "kind": "frame",
        "index": 1,
        "jpeg": base64.b64encode(jpeg).decode(),
        "width": 640,
        "height": 360,
        "boxes": [box],
    }


def test_dashboard_follows_the_game_and_takes_corrections(tmp_path: Path, browser: object) -> None:
    source = tmp_path / "first-trick.json"
    first_trick = [e for e in game_events(SEED, start=1.0, interval=0.4, uncertain=(2,)) if e.get("trick", 0) == 0]
    source.write_text(json.dumps([_camera_frame(), *first_trick]))
    server = Server(tmp_path / "table.db", "--source", str(source))
    try:
        _run(server, browser)
    finally:
        server.stop()


def _run(server: Server, browser: object) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 1000})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + "/")

    # The camera's first trick appears, card by card, with German names.
    page.wait_for_function("document.querySelectorAll('#table .seat .card').length === 4", timeout=15000)
    plays = legal_plays(SEED)
    first_card = Card.parse(plays[0][1])
    assert first_card.german_name in page.inner_text(f"#table .seat[data-seat='{plays[0][0]}']")
    assert page.locator(".trick-row").count() == 1
    # The camera image, with its card boxed and named.
    assert "♣D Kreuz-Dame" in page.text_content("#cam-boxes")
    assert page.evaluate("document.querySelector('#cam-img').naturalWidth") == 640

    # The camera was unsure of the third card: a person confirms it.
    page.click(".alert.ask button")
    page.click("#btn-confirm")
    page.wait_for_selector(".alert.ask", state="detached")
    assert server.get("/state")["game"]["uncertain"] == []

    # Announce Re for a player holding a Kreuz-Dame (11 cards left: just in time).
    re_seat = next(seat for seat, hand in enumerate(deal(SEED)) if "QC" in hand)
    page.click(f"#seat-pick button[data-seat='{re_seat}']")
    page.click("#calls button[data-call='re']")
    page.wait_for_selector(f"#table .seat[data-seat='{re_seat}'] .badge.call")
    assert "Re" in page.inner_text(f"#table .seat[data-seat='{re_seat}']")

    # The rest of the game, as if the camera saw it; the score sheet gets its first line.
    for seat, card in plays[4:]:
        assert server.post("/games/current/cards", {"seat": seat, "card": card}).status_code == 201
    page.wait_for_selector("#sheet tbody tr:nth-child(2)")
    totals_before = page.inner_text("#sheet tr.totals")
    assert "Re angesagt" in page.inner_text("#result")

    # Correct a card of the finished game in the trick history: the sheet is recomputed.
    position, card = _correction_that_moves_the_sheet(re_seat)
    event_id = [p["event_id"] for t in server.get("/state")["last_game"]["tricks"] for p in t["plays"]][position]
    page.click(f".trick-row .mini[data-event='{event_id}']")
    page.select_option("#fix-card", card)
    page.click("#btn-fix")
    page.wait_for_function(
        "before => document.querySelector('#sheet tr.totals').innerText !== before", arg=totals_before, timeout=10000
    )
    assert server.get("/state")["partie"]["sheet"][0]["points"] != {}
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-desktop.png"), full_page=True)
    phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)  # type: ignore[attr-defined]
    phone.goto(server.url + "/")
    phone.wait_for_selector("#sheet tr.totals")
    phone.screenshot(path=str(ARTIFACTS / "dashboard-phone.png"), full_page=True)
    assert errors == []


def test_rules_then_a_partie_from_the_page(tmp_path: Path, browser: object) -> None:
    server = Server(tmp_path / "table.db", players=None)
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
        page.goto(server.url + "/")
        page.wait_for_selector("#status:has-text('Keine Partie')")
        page.click("#btn-settings")
        page.select_option("#rules-preset", "pub")
        page.uncheck("#rules-switches input[name='schweinchen']")
        page.click("#btn-rules")
        page.wait_for_function("() => document.querySelector('#toast').textContent.includes('Regeln')")
        assert server.get("/settings/rules")["differs"] == {"schweinchen": False}
        page.click("#btn-partie")
        for i, name in enumerate(["Uli", "Vera", "Wim", "Xaver"]):
            page.fill(f"#form-partie input[name='p{i}']", name)
        page.select_option("#form-partie select[name='dealer']", "0")
        page.select_option("#form-partie select[name='length']", "games")
        page.fill("#form-partie input[name='length_value']", "4")
        page.click("#btn-start")
        page.wait_for_selector("#status:has-text('Geber Uli')")
        partie = server.get("/partie")
        assert partie["players"] == ["Uli", "Vera", "Wim", "Xaver"] and partie["length"] == {"games": 4}
        assert server.get("/state")["rules"]["preset"] == "pub"
        assert "Vera" in page.inner_text("#table .seat[data-seat='1']")
    finally:
        server.stop()


def _page(browser: object, server: Server, **context: object) -> object:
    ctx = browser.new_context(**context)  # type: ignore[attr-defined]
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(server.url + "/")
    page.wait_for_selector("#status:has-text('Spiel ')")
    return page


def test_a_wrong_re_is_taken_back_from_the_page_and_the_game_is_scored(tmp_path: Path, browser: object) -> None:
    seed = 4
    server = Server(tmp_path / "table.db")
    try:
        page = _page(browser, server, viewport={"width": 1440, "height": 1000})
        kontra = next(seat for seat, hand in enumerate(deal(seed)) if "QC" not in hand)
        name = ["Anna", "Ben", "Cem", "Dora"][kontra]
        page.click(f"#seat-pick button[data-seat='{kontra}']")
        page.click("#calls button[data-call='no90']")  # an Absage before any Ansage: refused, in German
        toast = page.wait_for_selector(".toast.err:not([hidden])")
        assert toast.inner_text().startswith(f"{name} kann nicht keine 90 sagen")
        page.click("#calls button[data-call='re']")
        page.wait_for_selector(f"#btn-undo:has-text('Rückgängig: Re von {name}')")
        for seat, card in legal_plays(seed):  # the game is played out: 3 against 1, the sheet refuses it
            assert server.post("/games/current/cards", {"seat": seat, "card": card}).status_code == 201
        alert = page.wait_for_selector(".alert.blocked")
        assert "Nicht gewertet" in alert.inner_text()
        page.click(f".alert.blocked button:has-text('Re von {name} prüfen')")
        page.click("#btn-call-undo")
        page.wait_for_selector("#sheet tbody tr:nth-child(2)")  # game 1 and the totals row
        sheet = server.get("/partie")["sheet"]
        assert len(sheet) == 1 and sum(sheet[0]["points"].values()) == 0
        title = page.inner_text("#result-title")
        assert title.startswith("Spiel 1: ") and " · Re " in title and " : Kontra " in title
        augen = server.get("/state")["last_game"]["result"]["augen"]
        assert title.endswith(f"Re {augen['re']} : Kontra {augen['kontra']}")  # Re's number first, whoever won
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        server.stop()


def test_undo_while_the_camera_adds_cards_takes_back_the_persons_call_on_a_touch_screen(
    tmp_path: Path, browser: object
) -> None:
    seed = 7
    source = tmp_path / "camera.json"
    source.write_text(json.dumps(game_events(seed, start=2.0, interval=1.0)[:14]))  # ~10 cards, one a second
    server = Server(tmp_path / "table.db", "--source", str(source))
    try:
        phone = _page(
            browser,
            server,
            viewport={"width": 390, "height": 844},
            has_touch=True,
            is_mobile=True,
            device_scale_factor=2,
        )
        asked: list[str] = []

        def answer(dialog: object) -> None:
            asked.append(dialog.message)  # type: ignore[attr-defined]
            dialog.accept()  # type: ignore[attr-defined]

        phone.on("dialog", answer)
        re_seat = next(seat for seat, hand in enumerate(deal(seed)) if "QC" in hand)
        name = ["Anna", "Ben", "Cem", "Dora"][re_seat]
        phone.click(f"#seat-pick button[data-seat='{re_seat}']")
        phone.click("#calls button[data-call='re']")
        phone.wait_for_selector(f"#btn-undo:has-text('Re von {name}')")
        cards_then = len(server.get("/state")["game"]["current_trick"]["plays"])
        # The camera adds the next card while the person reaches for the button.
        phone.wait_for_function(
            "n => { const g = window.__state && window.__state.game; return g && g.tricks.length * 4 "
            "+ g.current_trick.plays.length > n; }",
            arg=cards_then,
            timeout=10000,
        )
        phone.click("#btn-undo")
        phone.wait_for_selector("#btn-undo:disabled")
        assert asked == [f"„Re von {name}“ zurücknehmen?"]  # a touch screen asks first
        state = server.get("/state")
        game = state["game"]
        assert game["calls"] == [] and state["undo"] is None
        played = len(game["tricks"]) * 4 + len(game["current_trick"]["plays"])
        assert played > cards_then  # every camera card stays
        undos = [e for e in server.get("/events") if e["kind"] == "undo"]
        assert len(undos) == 1 and undos[0]["payload"]["target_kind"] == "call_made"
        assert phone.errors == []  # type: ignore[attr-defined]
    finally:
        server.stop()


def test_a_phone_shows_the_trick_the_ansage_and_the_result_on_the_first_screen(tmp_path: Path, browser: object) -> None:
    server = Server(tmp_path / "table.db")
    try:
        for seat, card in legal_plays(SEED):
            assert server.post("/games/current/cards", {"seat": seat, "card": card}).status_code == 201
        for seat, card in legal_plays(SEED + 1)[:2]:  # game 2 has begun: Anna deals, Ben is Vorhand
            table_seat = (seat + 1) % 4
            assert server.post("/games/current/cards", {"seat": table_seat, "card": card}).status_code == 201
        phone = _page(browser, server, viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
        phone.wait_for_selector("#result-panel:not([hidden])")
        for selector in ("#table", "#calls", "#result-title", "#result .points"):
            box = phone.locator(selector).bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844, (selector, box)
        assert phone.locator("#table .seat .card").count() == 2  # the trick being played
        ARTIFACTS.mkdir(exist_ok=True)
        phone.screenshot(path=str(ARTIFACTS / "dashboard-phone-first-screen.png"))
        text = phone.inner_text("body")
        for english in ("undo", " by ", "seat ", "game ", "ended early", "no score", "starts Bock"):
            assert english not in text, english
        assert "null" not in text and "undefined" not in text
        assert phone.errors == []  # type: ignore[attr-defined]
    finally:
        server.stop()


def _crowded_frame() -> dict:
    """A camera image with twelve overlapping card boxes: too crowded for a label at each."""
    import cv2
    import numpy as np

    image = np.full((360, 640, 3), (46, 92, 30), np.uint8)
    boxes = []
    for i in range(12):
        x, y = 200 + (i % 4) * 30, 100 + (i // 4) * 25
        cv2.rectangle(image, (x, y), (x + 60, y + 90), (250, 250, 250), -1)
        boxes.append({"xyxy": [x, y, x + 60, y + 90], "card": ["QC", "10H", "AD", "9S"][i % 4], "confidence": 0.9})
    return {
        "time": 0.5,
        "kind": "frame",
        "index": 1,
        "jpeg": base64.b64encode(cv2.imencode(".jpg", image)[1].tobytes()).decode(),
        "width": 640,
        "height": 360,
        "boxes": boxes,
    }


_OVERLAPS = """() => {
  const r = [...document.querySelectorAll('#cam-boxes rect.label-bg')].map(n => n.getBBox()).filter(b => b.width > 0);
  let n = 0;
  for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++) {
    const a = r[i], b = r[j];
    if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) n++;
  }
  return n;
}"""


def test_camera_labels_never_overlap_and_a_crowded_picture_gets_a_list(tmp_path: Path, browser: object) -> None:
    source = tmp_path / "crowded.json"
    source.write_text(json.dumps([_crowded_frame()]))
    server = Server(tmp_path / "table.db", "--source", str(source))
    try:
        page = _page(browser, server, viewport={"width": 1440, "height": 1000})
        page.wait_for_selector("#cam-list:not([hidden]) li")
        assert page.locator("#cam-list li").count() == 12
        assert "Kreuz-Dame" in page.inner_text("#cam-list")
        assert page.evaluate(_OVERLAPS) == 0
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        server.stop()
