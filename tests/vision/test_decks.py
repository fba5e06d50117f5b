"""Enrolling a deck: grid photos rendered from a drawn deck (tilted, lit, on table cloths, from all four
sides), the folder form, each refusal, storage, and a tiny enrol + adapt + detect."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from dokocam.vision.decks.enrol import EnrolmentError, Reading, _check_readings, enrol_folder, enrol_grid
from dokocam.vision.decks.layout import GridShot, place_name, place_of, render_grid
from dokocam.vision.synth.faces import CARD_CODES, FaceStyle, load_face_folder, write_face_folder
from dokocam.vision.synth.scene import Look

DECK_SEED = 3  # a drawn deck the grid photos show
SIDES = {0: "oben", 1: "rechts", 2: "unten", 3: "links"}  # where Kreuz lies when photographed from each side
# A benchmark photo (vision/decks/gridbench.py) on a pale table whose cards the masks alone missed.
GLARE_AND_PALE_SEEDS = (513, 953)  # 953: cream cards on a mottled cloth of their lightness


@pytest.fixture(scope="module")
def deck_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("deck") / "faces"
    write_face_folder(folder, FaceStyle.random(np.random.default_rng(DECK_SEED), width=300), seed=DECK_SEED)
    return folder


@pytest.fixture(scope="module")
def faces(deck_folder: Path) -> dict:
    return load_face_folder(deck_folder)


@pytest.fixture(scope="module")
def reader() -> object:
    from dokocam.vision.decks.enrol import shipped_reader

    return shipped_reader()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DOKOCAM_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _grey(image: np.ndarray) -> np.ndarray:
    g = cv2.cvtColor(cv2.resize(image, (60, 90), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY).astype(np.float32)
    return (g - g.mean()) / (g.std() + 1e-6)


def _nearest_face(face: np.ndarray, faces: dict) -> str:
    """The drawn face ``face`` looks most like (either way up): rectification checked without a classifier."""
    g = _grey(face)
    return max(
        faces,
        key=lambda code: max(
            float((g * h).mean()) for h in (_grey(faces[code].image), _grey(faces[code].image)[::-1, ::-1])
        ),
    )


@pytest.mark.parametrize("turn", [0, 1, 2, 3])
def test_the_grid_is_found_and_rectified_from_every_side(faces: dict, reader: object, turn: int) -> None:
    photo = render_grid(faces, GridShot(turn=turn, tilt_deg=10), seed=turn + 1)
    enrolment = enrol_grid(photo, reader=reader)
    assert enrolment.turn == SIDES[turn]
    assert sorted(enrolment.faces) == sorted(CARD_CODES)
    for code, face in enrolment.faces.items():
        h, w = face.shape[:2]
        assert 1.35 <= h / w <= 1.65  # portrait
        assert _nearest_face(face, faces) == code
    assert enrolment.unsure == []


def test_a_side_given_by_the_players_is_taken(faces: dict, reader: object) -> None:
    photo = render_grid(faces, GridShot(turn=2), seed=4)
    assert enrol_grid(photo, reader=reader, kreuz="unten").faces.keys() == set(CARD_CODES)
    # Kreuz cannot lie left in a photo whose rows run across it.
    with pytest.raises(EnrolmentError, match="Kreuz-Reihe kann nicht links"):
        enrol_grid(photo, reader=reader, kreuz="links")


def test_a_blurred_photo_is_refused(faces: dict, reader: object) -> None:
    photo = render_grid(faces, GridShot(), seed=1, look=Look(focus_blur_px=4))
    with pytest.raises(EnrolmentError, match="unscharf"):
        enrol_grid(photo, reader=reader)


def test_a_missing_card_is_named_by_its_place(faces: dict, reader: object) -> None:
    photo = render_grid(faces, GridShot(), seed=1, codes={(2, 3): None})
    with pytest.raises(EnrolmentError, match=r"23 von 24 Karten.*Leer: Reihe 3, Spalte 4 \(Herz-Dame\)"):
        enrol_grid(photo, reader=reader)


def test_two_copies_of_one_face_are_refused(faces: dict, reader: object) -> None:
    photo = render_grid(faces, GridShot(), seed=1, codes={(2, 3): "QC"})
    with pytest.raises(
        EnrolmentError, match="Kreuz-Dame liegt 2-mal: Reihe 1, Spalte 4 und Reihe 3, Spalte 4.*es fehlt wohl Herz-Dame"
    ):
        enrol_grid(photo, reader=reader)


def test_a_surely_misplaced_card_is_named(faces: dict, reader: object) -> None:
    photo = render_grid(faces, GridShot(), seed=5, codes={(2, 3): "KH", (2, 4): "QH"})
    with pytest.raises(EnrolmentError, match="Reihe 3, Spalte 4 liest sich als Herz-König; dort gehört Herz-Dame hin"):
        enrol_grid(photo, reader=reader)


def test_an_unsure_misplacement_is_listed_for_the_players_not_refused() -> None:
    probs = {code: np.eye(len(CARD_CODES))[CARD_CODES.index(code)] for code in CARD_CODES}
    unsure = 0.6 * np.eye(len(CARD_CODES))[CARD_CODES.index("KH")] + 0.4 * probs["QH"]
    readings = {code: Reading(p) for code, p in probs.items()} | {"QH": Reading(unsure)}
    lines = _check_readings(readings, lambda code: place_name(*place_of(code)))
    assert lines == [
        "Reihe 3, Spalte 4: sieht aus wie Herz-König (60%), erwartet Herz-Dame\n"
        "Reihe 3, Spalte 4: looks like KH (60%), expected QH"
    ]


@pytest.mark.parametrize("picture", ["table", "noise"])
def test_a_photo_not_of_cards_is_refused(reader: object, picture: str) -> None:
    from dokocam.vision.synth.scene import Camera, Table, render_background

    rng = np.random.default_rng(0)
    photo = (
        render_background(Table.random(3), Camera(width=1200, height=900))[:900, :1200]
        if picture == "table"
        else rng.integers(0, 256, (900, 1200, 3), dtype=np.uint8)
    )
    with pytest.raises(EnrolmentError, match="keine Karte|zu wenige"):
        enrol_grid(np.ascontiguousarray(photo), reader=reader)


def _single_card_photos(faces: dict, folder: Path) -> Path:
    from dokocam.vision.synth.scene import Camera, Deck, PlacedCard, Table, render_scene

    deck = Deck.from_faces(faces, seed=1, width_cm=6.0)
    folder.mkdir()
    for k, code in enumerate(CARD_CODES):
        camera = Camera(width=640, height=480, view_width_cm=24, tilt_deg=8, yaw_deg=float(k * 37 % 360))
        image, _ = render_scene(deck, Table.random(k), [PlacedCard(code, (1.0, -0.5), 0.0)], camera, seed=k)
        cv2.imwrite(str(folder / f"{code}.{'jpg' if k % 2 else 'png'}"), image)
    return folder


def test_the_folder_form_finds_and_rectifies_each_card(
    faces: dict, deck_folder: Path, reader: object, tmp_path: Path
) -> None:
    folder = _single_card_photos(faces, tmp_path / "photos")
    enrolment = enrol_folder(folder, reader=reader)
    assert enrolment.source == "folder"
    wrong = [code for code, face in enrolment.faces.items() if _nearest_face(face, faces) != code]
    assert all(face.shape[0] > face.shape[1] for face in enrolment.faces.values())
    # A card on a pale, glaring table may be cut to its picture frame: then the check must not take it silently.
    assert len(wrong) <= 2
    assert all(any(line.startswith(f"{code}.") for line in enrolment.unsure) for code in wrong)
    # A folder of faces cropped to their edges is taken whole.
    assert sorted(enrol_folder(deck_folder, reader=reader).faces) == sorted(CARD_CODES)


def test_a_folder_missing_a_card_or_with_a_stray_name_is_refused(
    deck_folder: Path, reader: object, tmp_path: Path
) -> None:
    import shutil

    partial = tmp_path / "partial"
    shutil.copytree(deck_folder, partial)
    (partial / "QH.png").unlink()
    with pytest.raises(EnrolmentError, match="Es fehlen Fotos für Herz-Dame"):
        enrol_folder(partial, reader=reader)
    (partial / "urlaub.jpg").write_bytes(b"")
    with pytest.raises(EnrolmentError, match="urlaub.jpg: nicht nach einer Karte benannt"):
        enrol_folder(partial, reader=reader)


def test_a_deck_is_stored_listed_shown_replaced_only_on_success_and_removed(home: Path, deck_folder: Path) -> None:
    from dokocam.vision.decks.store import (
        UnknownDeckError,
        contact_sheet,
        list_decks,
        load_deck,
        remove_deck,
        save_deck,
    )

    faces = {code: cv2.imread(str(deck_folder / f"{code}.png")) for code in CARD_CODES}
    deck = save_deck("omas-blatt", faces, {"source": "grid"})
    assert deck.path == home / "decks" / "omas-blatt"
    assert sorted(load_face_folder(deck.faces_dir)) == sorted(CARD_CODES)  # a face folder scenes render from
    assert json.loads((deck.path / "deck.json").read_text())["format"] == "dokocam-deck/1"
    assert [d.name for d in list_decks()] == ["omas-blatt"]
    assert contact_sheet(deck).shape[0] > 4 * 100

    def fails(folder: Path) -> dict:
        raise RuntimeError("adaptation failed")

    with pytest.raises(RuntimeError):
        save_deck("omas-blatt", {code: np.zeros_like(f) for code, f in faces.items()}, {"source": "grid"}, fails)
    kept = cv2.imread(str(load_deck("omas-blatt").faces_dir / "QC.png"))
    assert np.array_equal(kept, faces["QC"])  # the deck before is untouched
    assert [p.name for p in (home / "decks").iterdir()] == ["omas-blatt"]  # no staging folder left

    remove_deck("omas-blatt")
    with pytest.raises(UnknownDeckError, match="Kein Deck namens 'omas-blatt'"):
        load_deck("omas-blatt")


def test_a_bad_deck_name_is_refused(home: Path) -> None:
    from dokocam.vision.decks.store import DeckError, save_deck

    with pytest.raises(DeckError, match="Deckname '../x' geht nicht"):
        save_deck("../x", {}, {})


def test_enrol_adapt_and_detect_end_to_end(
    home: Path, faces: dict, reader: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from dokocam.vision.decks.adapt import AdaptConfig, adapt_folder, deck_detector, stale_roles
    from dokocam.vision.decks.store import UnknownDeckError, save_deck
    from dokocam.vision.detector.classifier import WithContext
    from dokocam.vision.synth.scene import Camera, Deck, PlacedCard, Table, render_scene

    enrolment = enrol_grid(render_grid(faces, GridShot(), seed=2), reader=reader)
    config = AdaptConfig(crops=256, epochs=1, workers=1, roles=("classifier", "context_classifier"))
    deck = save_deck(
        "tiny", enrolment.faces, {"source": "grid"}, lambda folder: adapt_folder(folder, config, progress=False)
    )
    assert deck.classifier("classifier").is_file() and deck.classifier("context_classifier").is_file()
    assert deck.adapted["base"]["classifier"] and deck.adapted["base"]["context_classifier"]
    assert deck.adapted["faces_located"] >= 20  # its crops were cut around the locator's boxes on its faces
    assert stale_roles(deck) == ["table_classifier"]  # never adapted to the shipped table classifier: said so

    detector = deck_detector("tiny")
    # At the table's distance it reads the index and the window around it, both adapted; photos the index.
    at_table = deck_detector("tiny", table=True)
    assert isinstance(at_table.reader, WithContext)
    assert at_table.stage("match") is not None and at_table.stage("match").templates.size[0] == 40  # its faces
    assert not isinstance(detector.reader, WithContext) and detector.stage("match") is not None
    scene_deck = Deck.from_faces(faces, seed=9, width_cm=6.0)
    camera = Camera(width=640, height=480, view_width_cm=30, tilt_deg=5)
    image, _ = render_scene(scene_deck, Table.random(9), [PlacedCard("QH", (0.0, 0.0), 10.0)], camera, seed=9)
    cards = detector.cards(image)
    assert CARD_CODES[int(cards.class_id[np.argmax(cards.confidence)])] == "QH"
    with pytest.raises(UnknownDeckError, match="angelernt: tiny"):
        deck_detector("nobody")

    # The CLI reads with it (the refusals of every --deck: tests/service/test_deck_cli.py).
    from dokocam.service.cli import main

    photo = home / "qh.png"
    cv2.imwrite(str(photo), image)
    capsys.readouterr()
    assert main(["detect", str(photo), "--deck", "tiny"]) == 0
    assert '"card": "QH"' in capsys.readouterr().out
    from dokocam.vision.table.focus import table_detector

    assert table_detector(None, "tiny").detector.reader is not None  # table frames fall back to its photo classifier
    with pytest.raises(UnknownDeckError):
        table_detector(None, "nobody")


def test_the_cli_refuses_a_photo_without_cards_and_saves_nothing(home: Path, tmp_path: Path) -> None:
    from dokocam.service.cli import main

    photo = tmp_path / "leer.png"
    cv2.imwrite(str(photo), np.full((600, 800, 3), 90, np.uint8))
    assert main(["deck", "enroll", "leer", str(photo), "--no-adapt"]) == 2
    assert not (home / "decks" / "leer").exists()
    assert main(["deck", "show", "leer"]) == 2
    assert main(["deck", "list"]) == 0


def test_render_grid_draws_the_faces_it_is_given(deck_folder: Path) -> None:
    import dataclasses

    shot = GridShot(width=640, height=480)
    fresh = render_grid(load_face_folder(deck_folder), shot, seed=3)
    faces = load_face_folder(deck_folder)
    blank = {code: dataclasses.replace(f, image=np.full_like(f.image, 200)) for code, f in faces.items()}
    render_grid(blank, shot, seed=3)  # a copy's cached pyramid must not become the original's
    assert np.array_equal(render_grid(faces, shot, seed=3), fresh)


def _lattice_outlines(missing: set[tuple[int, int]]) -> list:
    from dokocam.vision.decks.outline import outline_of

    outlines = []
    for r in range(4):
        for c in range(6):
            if (r, c) not in missing:
                x, y = 100 + 80 * c + 3 * r, 60 + 110 * r  # a slight shear, as a tilted camera sees it
                outlines.append(outline_of(np.array([[x, y], [x + 60, y], [x + 63, y + 95], [x + 3, y + 95]], float)))
    return outlines


def test_the_lattice_grows_into_places_whose_cards_the_edges_confirm() -> None:
    from dokocam.vision.decks.grid import grow, place_outlines

    missing = {(0, 0), (1, 2), (2, 2), (0, 5), (1, 5), (2, 5), (3, 5)}  # a whole column among them
    outlines = _lattice_outlines(missing)
    complete = {tuple(np.round(o.centre).astype(int)) for o in _lattice_outlines(set())}
    grown = grow(outlines, lambda corners: corners)  # every predicted place has its card
    assert len(grown) == 24
    assert {tuple(np.round(o.centre).astype(int)) for o in grown} == complete
    assert not place_outlines(grown)[0].missing
    assert grow(outlines, lambda corners: None) == outlines  # no edges there: no card made up
    assert grow(outlines[:5], lambda corners: corners) == outlines[:5]  # too few cards to trust the lattice


def test_the_lattice_counts_steps_where_the_found_columns_lie_apart() -> None:
    from dokocam.vision.decks.grid import grow, lattice

    # Cards found in columns 0, 2 and 5 only (a pale table hides the rest): gaps of two and three steps.
    missing = {(r, c) for r in range(4) for c in (1, 3, 4)}
    outlines = _lattice_outlines(missing)
    assert sorted({j for _, j in lattice(outlines)}) in ([0, 2, 5], [0, 3, 5])  # counted from either end
    assert len(grow(outlines, lambda corners: corners)) == 24


@pytest.mark.parametrize("seed", GLARE_AND_PALE_SEEDS)
def test_the_grid_is_found_on_pale_and_glaring_tables(reader: object, seed: int) -> None:
    from dokocam.vision.decks.gridbench import grid_case, misplaced
    from dokocam.vision.decks.layout import COLUMNS, render_grid_scene

    faces, shot, table, look, condition = grid_case(seed)
    assert condition != "any"
    photo, annotation = render_grid_scene(faces, shot, seed=seed, look=look, table=table)
    enrolment = enrol_grid(photo, reader=reader)
    assert misplaced(enrolment.outlines, annotation) == []
    empty = divmod(seed % 24, COLUMNS)
    photo = render_grid(faces, shot, seed=seed, look=look, table=table, codes={empty: None})
    with pytest.raises(EnrolmentError, match=f"Leer: {place_name(*empty)} "):
        enrol_grid(photo, reader=reader)


PALE_FEW_SEED = 913  # a pale table on which only 4 cards stand out (gridbench's development seeds)
ORDINARY_SEED = 900


def test_a_pale_table_that_hides_cards_is_named_with_what_helps(reader: object) -> None:
    from dokocam.vision.decks.enrol import PALE_ADVICE, table_contrast
    from dokocam.vision.decks.gridbench import grid_case
    from dokocam.vision.decks.outline import find_outlines

    faces, shot, table, look, condition = grid_case(PALE_FEW_SEED)
    photo = render_grid(faces, shot, seed=PALE_FEW_SEED, look=look, table=table)
    assert condition == "pale"
    with pytest.raises(EnrolmentError) as refusal:
        enrol_grid(photo, reader=reader)
    assert (
        "zu wenige" in str(refusal.value)
        and PALE_ADVICE[0] in str(refusal.value)
        and PALE_ADVICE[1] in str(refusal.value)
    )
    # On an ordinary table the cards stand out, and a missing card is not blamed on the table.
    faces, shot, table, look, condition = grid_case(ORDINARY_SEED)
    empty = (1, 2)
    photo = render_grid(faces, shot, seed=ORDINARY_SEED, look=look, table=table, codes={empty: None})
    assert table_contrast(photo, find_outlines(photo)) > 80
    with pytest.raises(EnrolmentError, match=f"Leer: {place_name(*empty)} ") as refusal:
        enrol_grid(photo, reader=reader)
    assert "Spiegelung" in str(refusal.value) and PALE_ADVICE[0] not in str(refusal.value)
