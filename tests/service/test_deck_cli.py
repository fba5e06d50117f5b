"""``--deck NAME`` on every verb that reads cards: an unknown, unadapted or badly named deck is refused
before anything starts (exit 2, the same German-first message everywhere), and a usable one goes through."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dokocam.service.cli import main
from dokocam.vision.synth.faces import CARD_CODES

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = "datasets/synth-sample"
# Each verb that takes --deck, with arguments it would otherwise start on.
READING_VERBS = {
    "serve": ["serve"],
    "serve --source": ["serve", "--source", f"{SAMPLE}/images/val"],
    "demo": ["demo"],
    "run": ["run", "--source", f"{SAMPLE}/images/val"],
    "analyze": ["analyze", "game.mp4", "--json", "game.json"],
    "detect": ["detect", f"{SAMPLE}/images/val"],
    "eval": ["eval", SAMPLE],
    "bench table": ["bench", "table", "--games", "1", "--detector", "model"],
    "bench-table": ["bench-table", "--games", "1", "--detector", "model"],
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DOKOCAM_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(ROOT)
    return tmp_path / "home"


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the verbs started: a server, a feed, a detector or a benchmark (each recorded, none run)."""
    import uvicorn

    import dokocam.service.sources
    import dokocam.vision.bench.table
    import dokocam.vision.decks.adapt

    calls: list[str] = []

    def record(what: str) -> object:
        def call(*args: object, **kwargs: object) -> None:
            calls.append(what)

        return call

    monkeypatch.setattr(uvicorn, "run", record("server"))
    monkeypatch.setattr(dokocam.service.sources, "open_feed", record("feed"))
    monkeypatch.setattr(dokocam.vision.decks.adapt, "load_detector", record("detector"))
    monkeypatch.setattr(dokocam.vision.bench.table, "run_bench", record("bench"))
    return calls


def _enrol(name: str, *, adapted: bool) -> None:
    """A deck in the store with blank faces; ``adapted``: with a classifier file as an adaptation leaves one."""
    from dokocam.vision.decks.store import save_deck

    def finish(folder: Path) -> dict:
        (folder / "classifier.pt").write_bytes(b"weights")
        return {"classifiers": {"classifier": "classifier.pt"}}

    faces = {code: np.full((90, 60, 3), 200, np.uint8) for code in CARD_CODES}
    save_deck(name, faces, {"source": "grid"}, finish if adapted else None)


@pytest.mark.parametrize("verb", READING_VERBS.values(), ids=READING_VERBS.keys())
def test_an_unknown_deck_is_refused_before_anything_starts(
    home: Path, started: list[str], verb: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _enrol("omas-blatt", adapted=True)
    assert main([*verb, "--deck", "nobody"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dokocam: --deck: Kein Deck namens 'nobody' (angelernt: omas-blatt)")
    assert "dokocam deck enroll nobody FOTO" in err and "No deck named 'nobody'" in err
    assert "--source" not in err
    assert started == []


@pytest.mark.parametrize("verb", [READING_VERBS["demo"], READING_VERBS["detect"]], ids=["demo", "detect"])
def test_an_unadapted_deck_and_a_bad_name_are_refused(
    home: Path, started: list[str], verb: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _enrol("roh", adapted=False)
    assert main([*verb, "--deck", "roh"]) == 2
    assert "Deck 'roh' ist noch nicht angepasst: `dokocam deck adapt roh`" in capsys.readouterr().err
    assert main([*verb, "--deck", "../x"]) == 2
    assert "Deckname '../x' geht nicht" in capsys.readouterr().err
    assert started == []


def test_a_usable_deck_goes_through_to_the_server(
    home: Path, started: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _enrol("omas-blatt", adapted=True)
    assert main(["serve", "--db", str(tmp_path / "t.db"), "--deck", "omas-blatt"]) == 0
    assert started == ["server"]
    assert "--deck" not in capsys.readouterr().err


@pytest.mark.parametrize("verb", [READING_VERBS["serve --source"], ["demo"]], ids=["serve", "demo"])
def test_a_deck_that_fails_to_load_is_named_not_the_source(
    home: Path, started: list[str], verb: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import dokocam.service.sources
    from dokocam.vision.decks.store import DeckError

    def fails(*args: object, **kwargs: object) -> None:
        raise DeckError("Deck 'omas-blatt' ist weg.\nDeck 'omas-blatt' is gone.")

    _enrol("omas-blatt", adapted=True)  # passes the check; the load after it fails (removed in between)
    monkeypatch.setattr(dokocam.service.sources, "open_feed", fails)
    assert main([*verb, "--deck", "omas-blatt"]) == 2
    err = capsys.readouterr().err
    assert "dokocam: --deck: Deck 'omas-blatt' ist weg." in err
    assert "cannot open --source" not in err and "ground truth" not in err  # demo does not play on without it
    assert started == []


@pytest.mark.parametrize("verb", ["show", "remove", "adapt"])
def test_the_deck_verbs_refuse_an_unknown_deck_and_keep_the_others(
    home: Path, verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _enrol("omas-blatt", adapted=True)
    assert main(["deck", verb, "nobody"]) == 2
    assert "dokocam deck: Kein Deck namens 'nobody' (angelernt: omas-blatt)" in capsys.readouterr().err
    assert (home / "decks" / "omas-blatt" / "classifier.pt").is_file()
    assert not (ROOT / "nobody-faces.png").exists()
