"""The Deck page in real headless Chromium: a grid photo uploaded as from a phone, its 24 faces shown and
confirmed, the adaptation's progress, and the deck in use on the main page."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest
import uvicorn

from dokocam.service.config import Settings
from dokocam.service.main import create_app
from dokocam.vision.decks.adapt import AdaptConfig

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# The fewest crops that still make a progress bar of a few training steps: the page is tested, not the accuracy.
TINY = AdaptConfig(crops=72, epochs=1, batch=32, workers=1, roles=("classifier",))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install chromium; scripts/test.sh does)"
    ),
]


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The dashboard on a free loopback port, adapting decks with a tiny configuration at the test's priority."""
    monkeypatch.setenv("DOKOCAM_HOME", str(tmp_path / "home"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    app = create_app(Settings(db=tmp_path / "table.db"), players=["Anna", "Ben", "Cem", "Dora"], adapt=TINY)
    uv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not uv.started:
        assert time.monotonic() < deadline, "server did not start within 30 s"
        time.sleep(0.05)
    # Niced, the adaptation waits for a core behind a loaded machine's other work (tests/service/test_decks_page.py).
    app.state.decks.nice = 0
    yield url
    uv.should_exit = True
    thread.join(timeout=20)


@pytest.fixture
def grid_photo(tmp_path: Path) -> Path:
    from dokocam.vision.decks.layout import GridShot, render_grid
    from dokocam.vision.synth.faces import FaceStyle, load_face_folder, write_face_folder

    folder = tmp_path / "faces"
    write_face_folder(folder, FaceStyle.random(np.random.default_rng(3), width=300), seed=3)
    photo = tmp_path / "auslage.jpg"
    cv2.imwrite(str(photo), render_grid(load_face_folder(folder), GridShot(turn=1), seed=6))
    return photo


def test_a_grid_photo_is_uploaded_confirmed_and_the_deck_is_in_use(
    server: str, browser: object, grid_photo: Path, tmp_path: Path
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 1000})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + "/")
    page.wait_for_function("window.__state && window.__state.game")
    assert page.inner_text("#deck-in-use") == "Deck: Standard"

    page.click("#btn-deck")
    assert page.is_visible("#deck-layout") and not page.is_visible("#table")
    assert "Kreuz" in page.inner_text("#deck-layout tbody tr:first-child th")
    page.fill("#deck-name", "familie")
    page.set_input_files("#deck-photo", str(grid_photo))  # a phone's file input (capture)

    page.wait_for_selector("#deck-faces img >> nth=23", timeout=120000)
    page.wait_for_function("[...document.querySelectorAll('#deck-faces img')].every((i) => i.naturalWidth > 0)")
    assert page.locator("#deck-faces figure").count() == 24
    assert page.inner_text("#deck-faces figure >> nth=0") == "♣9 Kreuz-Neun"
    page.screenshot(path=str(ARTIFACTS / "deck-review.png"), full_page=True)

    page.click("#btn-deck-confirm")
    page.wait_for_selector("#deck-page[data-state='done']", timeout=120000)
    page.screenshot(path=str(ARTIFACTS / "deck-done.png"), full_page=True)
    assert "Fertig" in page.inner_text("#deck-state")
    assert "in Gebrauch" in page.inner_text("#deck-list li[data-deck='familie']")

    page.click("#btn-deck-back")
    assert page.is_visible("#table")
    page.wait_for_function("document.querySelector('#deck-in-use').textContent === 'Deck: familie'")
    page.screenshot(path=str(ARTIFACTS / "deck-main-page.png"))
    state = httpx.get(server + "/state", timeout=10).json()
    assert state["deck"] == "familie" and state["game"]["deck"] == "familie"
    assert (tmp_path / "home" / "decks" / "familie" / "faces" / "QC.png").is_file()
    assert errors == []


@pytest.fixture
def photo_without_indices(tmp_path: Path) -> Path:
    """No card shows its corner index: the cards cannot tell which way round the photo is."""
    from dokocam.vision.decks.layout import GridShot, render_grid
    from dokocam.vision.synth.faces import CARD_CODES, FaceStyle, load_face_folder, write_face_folder

    folder = tmp_path / "faces"
    write_face_folder(folder, FaceStyle.random(np.random.default_rng(3), width=300), seed=3)
    faces = load_face_folder(folder)
    for code in CARD_CODES:
        image = cv2.imread(str(folder / f"{code}.png"))
        for quad in faces[code].indices:
            (x0, y0), (x1, y1) = quad.min(axis=0).astype(int) - 2, quad.max(axis=0).astype(int) + 2
            cv2.rectangle(image, (int(x0), int(y0)), (int(x1), int(y1)), (245, 245, 245), -1)
        cv2.imwrite(str(folder / f"{code}.png"), image)
    photo = tmp_path / "ohne-ecken.jpg"
    cv2.imwrite(str(photo), render_grid(load_face_folder(folder), GridShot(turn=2), seed=7))
    return photo


def test_the_kreuz_side_is_chosen_on_the_page_and_unsure_places_are_checked_before_confirming(
    server: str, browser: object, photo_without_indices: Path
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 1000})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + "/")
    page.wait_for_function("window.__state && window.__state.game")
    page.click("#btn-deck")
    page.fill("#deck-name", "ohne-ecken")
    page.set_input_files("#deck-photo", str(photo_without_indices))

    page.wait_for_selector("#deck-kreuz:not([hidden])", timeout=120000)
    assert "Kreuz-Reihe liegt" in page.inner_text("#deck-message") and "--kreuz" not in page.inner_text("#deck-message")
    enabled = page.eval_on_selector_all(
        "#deck-kreuz button", "bs => bs.filter((b) => !b.disabled).map((b) => b.dataset.kreuz)"
    )
    assert sorted(enabled) == ["oben", "unten"]
    page.click("#deck-kreuz button[data-kreuz='unten']")

    page.wait_for_selector("#deck-faces img >> nth=23", timeout=120000)
    assert page.is_hidden("#deck-kreuz") and page.is_visible("#deck-unsure")
    assert "Bitte prüfen" in page.inner_text("#deck-unsure li >> nth=0")
    assert page.is_disabled("#btn-deck-confirm")  # the unsure places are looked at first
    page.check("#deck-unsure-check")
    assert page.is_enabled("#btn-deck-confirm")
    page.click("#btn-deck-confirm")
    page.wait_for_selector("#deck-page[data-state='adapting'], #deck-page[data-state='done']", timeout=30000)
    assert errors == []
