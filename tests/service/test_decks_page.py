"""The Deck page's API: a grid photo uploaded from a phone -> the 24 faces -> confirmed -> adapted (progress
polled) -> the table reads with the deck, logged with each game; refusals say why in German and save nothing."""

from __future__ import annotations

import multiprocessing
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from svc_helpers import start

from dokocam.service.config import Settings
from dokocam.service.deckdesk import NICE
from dokocam.service.main import create_app
from dokocam.service.routes.decks import parse_form
from dokocam.service.store import EventStore
from dokocam.vision.decks.adapt import AdaptConfig

LOCAL = "http://127.0.0.1:8000"
# The fewest crops that still make a progress bar of a few training steps: the flow is tested, not the accuracy.
TINY = AdaptConfig(crops=72, epochs=1, batch=32, workers=1, roles=("classifier", "context_classifier"))
DECK_SEED = 3


@pytest.fixture(scope="module")
def grid_jpeg(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A phone's photo of a drawn deck laid out as the page asks, taken from across the table."""
    from dokocam.vision.decks.layout import GridShot, render_grid
    from dokocam.vision.synth.faces import FaceStyle, load_face_folder, write_face_folder

    folder = tmp_path_factory.mktemp("deck") / "faces"
    write_face_folder(folder, FaceStyle.random(np.random.default_rng(DECK_SEED), width=300), seed=DECK_SEED)
    photo = render_grid(load_face_folder(folder), GridShot(turn=2), seed=5)
    return bytes(cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 92])[1])


def _photo_without_indices(folder: Path, blank: tuple[str, ...], seed: int) -> bytes:
    """A photo of the drawn deck in ``folder`` with the corner indices of the ``blank`` cards painted over
    (as on a deck whose indices the shipped classifier does not know), from across the table."""
    from dokocam.vision.decks.layout import GridShot, render_grid
    from dokocam.vision.synth.faces import load_face_folder

    faces = load_face_folder(folder)
    for code in blank:
        image = cv2.imread(str(folder / f"{code}.png"))
        for quad in faces[code].indices:
            (x0, y0), (x1, y1) = quad.min(axis=0).astype(int) - 2, quad.max(axis=0).astype(int) + 2
            cv2.rectangle(image, (int(x0), int(y0)), (int(x1), int(y1)), (245, 245, 245), -1)
        cv2.imwrite(str(folder / f"{code}.png"), image)
    photo = render_grid(load_face_folder(folder), GridShot(turn=2), seed=seed)
    return bytes(cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 92])[1])


def _drawn_deck(folder: Path) -> Path:
    from dokocam.vision.synth.faces import FaceStyle, write_face_folder

    write_face_folder(folder, FaceStyle.random(np.random.default_rng(DECK_SEED), width=300), seed=DECK_SEED)
    return folder


@pytest.fixture(scope="module")
def no_indices_jpeg(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """No card shows an index: the cards cannot tell which way round the photo is."""
    from dokocam.vision.synth.faces import CARD_CODES

    return _photo_without_indices(_drawn_deck(tmp_path_factory.mktemp("blank") / "faces"), CARD_CODES, seed=7)


@pytest.fixture(scope="module")
def one_unsure_jpeg(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """Only the Kreuz-Dame shows no index: that place reads unsurely."""
    return _photo_without_indices(_drawn_deck(tmp_path_factory.mktemp("unsure") / "faces"), ("QC",), seed=8)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DOKOCAM_HOME", str(tmp_path / "home"))  # the adaptation's process inherits it
    return tmp_path / "home"


@pytest.fixture
def client(home: Path, tmp_path: Path) -> Iterator[TestClient]:
    """The dashboard adapting at the test's own priority: niced below a loaded machine's other work,
    the adaptation would wait minutes for a core (that it runs niced is tested on its own)."""
    with TestClient(create_app(Settings(db=tmp_path / "table.db"), adapt=TINY), base_url=LOCAL) as c:
        c.app.state.decks.nice = 0  # type: ignore[attr-defined]
        yield c


def _upload(client: TestClient, name: str, photo: bytes, **headers: str) -> object:
    return client.post(
        "/decks/enrolment", data={"name": name}, files={"photo": ("auslage.jpg", photo)}, headers=headers
    )


def _wait(client: TestClient, states: tuple[str, ...], timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        status = client.get("/decks/enrolment").json()
        seen.append(status["progress"].get("fraction"))
        if status["phase"] in states:
            status["fractions"] = seen
            return status
        time.sleep(0.2)
    raise AssertionError(f"enrolment still {status['phase']} after {timeout} s: {status}")


def test_a_phone_photo_is_enrolled_confirmed_adapted_and_read_with(client: TestClient, home: Path, grid_jpeg: bytes):
    response = _upload(client, "omas-blatt", grid_jpeg)
    assert response.status_code == 202, response.text
    assert response.json()["phase"] == "enrolling"

    review = _wait(client, ("review", "refused", "failed"), 120)
    assert review["phase"] == "review", review["message"]
    assert review["turn"] == "unten"  # photographed from across the table: Kreuz lies at the bottom
    assert len(review["faces"]) == 24 and review["unsure"] == []
    face = client.get(review["faces"][0]["url"])
    assert face.headers["content-type"] == "image/png"
    image = cv2.imdecode(np.frombuffer(face.content, np.uint8), cv2.IMREAD_COLOR)
    assert 1.35 <= image.shape[0] / image.shape[1] <= 1.65  # an upright face
    assert not (home / "decks" / "omas-blatt").exists()  # nothing saved before the players confirm

    assert client.post("/decks/enrolment/confirm", json={}).json()["phase"] == "adapting"
    assert client.post("/decks/enrolment/confirm", json={}).status_code == 409  # one adaptation at a time
    done = _wait(client, ("done", "failed"), 300)
    assert done["phase"] == "done", done["message"]
    assert done["deck"] == "omas-blatt" and done["progress"]["fraction"] == 1.0
    shown = [f for f in done["fractions"] if f is not None]
    assert any(0 < f < 1 for f in shown) and shown == sorted(shown)  # progress shown on the way, never going back

    assert (home / "decks" / "omas-blatt" / "classifier.pt").is_file()
    assert client.get("/decks").json() == [
        {
            "name": "omas-blatt",
            "created": client.get("/decks").json()[0]["created"],
            "source": "grid",
            "adapted": True,
            "in_use": True,
        }
    ]
    # The deck in use is on the main page's state and in the log; each game records it.
    assert client.get("/state").json()["deck"] == "omas-blatt"
    logged = [e for e in client.get("/events").json() if e["kind"] == "deck_set"]
    assert [e["payload"]["name"] for e in logged] == ["omas-blatt"]
    assert start(client)["game"]["deck"] == "omas-blatt"

    # Back to the shipped detector: logged too; the game not begun yet reads with it.
    assert client.put("/decks/current", json={"name": None}).status_code == 200
    state = client.get("/state").json()
    assert state["deck"] is None and state["game"]["deck"] is None


def test_the_adaptation_runs_below_the_cameras_priority(home: Path, tmp_path: Path, grid_jpeg: bytes) -> None:
    with TestClient(create_app(Settings(db=tmp_path / "table.db"), adapt=TINY), base_url=LOCAL) as client:
        assert client.app.state.decks.nice == NICE  # type: ignore[attr-defined]
        _upload(client, "omas-blatt", grid_jpeg)
        assert _wait(client, ("review", "refused", "failed"), 120)["phase"] == "review"
        assert client.post("/decks/enrolment/confirm", json={}).json()["phase"] == "adapting"
        (child,) = [p for p in multiprocessing.active_children() if p.name == "adapt"]
        lowered = min(os.getpriority(os.PRIO_PROCESS, 0) + NICE, 19)
        deadline = time.monotonic() + 60
        while os.getpriority(os.PRIO_PROCESS, child.pid) != lowered:  # set first thing in the child
            assert child.is_alive() and time.monotonic() < deadline, "the adaptation never lowered its priority"
            time.sleep(0.05)
    assert not child.is_alive()  # the server's end stops it


def test_a_photo_not_of_cards_is_refused_in_german_and_nothing_is_saved(client: TestClient, home: Path) -> None:
    grey = bytes(cv2.imencode(".png", np.full((900, 1200, 3), 90, np.uint8))[1])
    assert _upload(client, "leer", grey).status_code == 202
    refused = _wait(client, ("refused", "review", "failed"), 60)
    assert refused["phase"] == "refused"
    assert re.search("keine Karte|zu wenige", refused["message"]) and "card" in refused["message_en"]
    assert refused["faces"] == []
    assert client.post("/decks/enrolment/confirm", json={}).status_code == 409
    assert not (home / "decks").exists() or not any((home / "decks").iterdir())
    assert client.get("/decks").json() == []
    assert "deck_set" not in [e["kind"] for e in client.get("/events").json()]

    # A file that is no image at all says so; the desk can be cleared and starts again.
    _upload(client, "leer", b"not a photo")
    assert "kein lesbares Foto" in _wait(client, ("refused",), 30)["message"]
    assert client.post("/decks/enrolment/cancel", json={}).json()["phase"] == "idle"


def test_bad_requests_are_refused_with_a_reason(client: TestClient) -> None:
    bad_name = _upload(client, "../x", b"x")
    assert bad_name.status_code == 422 and "Deckname" in bad_name.json()["detail"]
    no_photo = client.post("/decks/enrolment", data={"name": "x"}, files={"other": ("a.txt", b"")})
    assert no_photo.status_code == 422 and no_photo.json()["code"] == "deck_upload_bad"
    no_frame = client.post("/decks/enrolment/camera", json={"name": "x"})
    assert no_frame.status_code == 422 and "Kein Kamerabild" in no_frame.json()["detail"]
    unknown = client.put("/decks/current", json={"name": "nobody"})
    assert unknown.status_code == 404 and "Kein Deck namens" in unknown.json()["detail"]
    assert client.get("/decks/enrolment/faces/QC.png").status_code == 404


def test_multipart_passes_the_gate_only_on_the_upload_route(client: TestClient) -> None:
    form = client.post("/partie", data={"players": "Anna"}, files={"f": ("a.txt", b"x")})
    assert form.status_code == 415
    foreign = _upload(client, "x", b"x", Origin="http://evil.example")
    assert foreign.status_code == 403
    assert client.get("/decks/enrolment").json()["phase"] == "idle"  # the foreign upload never reached the desk


def test_an_old_log_without_decks_replays_with_the_shipped_detector(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "old.db")
    store.append("rules_set", {"rules": {"preset": "tournament"}})
    store.close()
    with TestClient(create_app(Settings(db=tmp_path / "old.db")), base_url=LOCAL) as client:
        assert client.get("/state").json()["deck"] is None
        assert start(client)["game"]["deck"] is None


def test_the_form_parser_keeps_binary_content_whole() -> None:
    photo = bytes(range(256)) * 4 + b"\r\n--not-the-boundary\r\n"
    body = (
        b'--b0\r\nContent-Disposition: form-data; name="name"\r\n\r\nomas-blatt\r\n'
        b'--b0\r\nContent-Disposition: form-data; name="photo"; filename="a.jpg"\r\n'
        b"Content-Type: image/jpeg\r\n\r\n" + photo + b"\r\n--b0--\r\n"
    )
    assert parse_form("multipart/form-data; boundary=b0", body) == {"name": b"omas-blatt", "photo": photo}
    assert parse_form("application/json", body) == {}


def test_an_orientation_the_cards_do_not_tell_is_asked_on_the_page_and_read_again(
    client: TestClient, no_indices_jpeg: bytes
) -> None:
    assert _upload(client, "ohne-ecken", no_indices_jpeg).status_code == 202
    asked = _wait(client, ("refused", "review", "failed"), 120)
    assert asked["phase"] == "refused", asked
    # The refusal points at the page's control, not at the command line's option, German first.
    assert "Kreuz-Reihe liegt" in asked["message"] and "--kreuz" not in asked["message"] + asked["message_en"]
    assert "which way round" in asked["message_en"]
    assert sorted(asked["kreuz_sides"]) == ["oben", "unten"] and asked["faces"] == []

    # A side the rows do not run to is refused with the sides that are possible; the photo is kept.
    assert client.post("/decks/enrolment/kreuz", json={"kreuz": "links"}).status_code == 202
    across = _wait(client, ("refused", "review", "failed"), 120)
    assert "nicht links liegen" in across["message"] and "oben" in across["message"] and "unten" in across["message"]
    assert sorted(across["kreuz_sides"]) == ["oben", "unten"]

    assert client.post("/decks/enrolment/kreuz", json={"kreuz": "unten"}).json()["phase"] == "enrolling"
    review = _wait(client, ("review", "refused", "failed"), 120)
    assert review["phase"] == "review", review["message"]
    assert review["turn"] == "unten" and len(review["faces"]) == 24 and review["kreuz_sides"] == []
    assert review["unsure"]  # faces without indices read unsurely: the players are asked to look


def test_a_kreuz_side_needs_a_photo_refused_for_its_orientation(client: TestClient) -> None:
    nothing = client.post("/decks/enrolment/kreuz", json={"kreuz": "oben"})
    assert nothing.status_code == 409 and "Kein abgelehntes Foto" in nothing.json()["detail"]
    assert client.post("/decks/enrolment/kreuz", json={"kreuz": "diagonal"}).status_code == 422
    grey = bytes(cv2.imencode(".png", np.full((900, 1200, 3), 90, np.uint8))[1])
    _upload(client, "leer", grey)
    assert _wait(client, ("refused",), 60)["kreuz_sides"] == []  # no cards: no side would help
    assert client.post("/decks/enrolment/kreuz", json={"kreuz": "oben"}).status_code == 409


def test_unsure_places_are_shown_and_confirmed_only_when_checked(
    client: TestClient, home: Path, one_unsure_jpeg: bytes
) -> None:
    import json

    _upload(client, "ein-zweifel", one_unsure_jpeg)
    review = _wait(client, ("review", "refused", "failed"), 120)
    assert review["phase"] == "review", review["message"]
    assert len(review["unsure"]) == 1, review["unsure"]
    unsure = review["unsure"][0]
    assert unsure["message"].startswith("Reihe 1, Spalte 4") and "erwartet Kreuz-Dame" in unsure["message"]
    assert "expected QC" in unsure["message_en"]

    refused = client.post("/decks/enrolment/confirm", json={})
    assert refused.status_code == 422 and "unsicheren Plätze prüfen (1" in refused.json()["detail"]
    assert client.get("/decks/enrolment").json()["phase"] == "review"  # nothing lost: the faces wait on
    assert not (home / "decks" / "ein-zweifel").exists()

    assert client.post("/decks/enrolment/confirm", json={"unsure_checked": True}).json()["phase"] == "adapting"
    done = _wait(client, ("done", "failed"), 300)
    assert done["phase"] == "done", done["message"]
    manifest = json.loads((home / "decks" / "ein-zweifel" / "deck.json").read_text())
    assert manifest["kreuz"] == "unten" and len(manifest["unsure"]) == 1 and "Kreuz-Dame" in manifest["unsure"][0]
