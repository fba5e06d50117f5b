"""Enrolled decks on disk: ``$DOKOCAM_HOME/decks/NAME/``.

A deck folder holds ``faces/`` (the 24 rectified faces as a face folder, ``QC.png`` ...: what
:func:`~vision.synth.faces.load_face_folder` reads, so scenes and crops can be rendered from it),
``deck.json`` (the manifest) and the adapted classifiers (``classifier.pt``, ``table-classifier.pt``
with their ONNX exports). A deck is written to a temporary folder beside its place and renamed
into it only when complete, so a failed enrolment or adaptation leaves the deck before it as it was.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dokocam.vision.home import decks_dir
from dokocam.vision.synth.faces import CARD_CODES

FORMAT = "dokocam-deck/1"
MANIFEST = "deck.json"
FACES = "faces"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")


class DeckError(ValueError):
    """A deck name that is not allowed, or a deck folder that cannot be read (German, then English)."""


class UnknownDeckError(DeckError):
    """No deck of that name is enrolled; the message lists the ones that are."""


class UnadaptedDeckError(DeckError):
    """The deck is enrolled but has no adapted classifier to read with yet (``dokocam deck adapt NAME``)."""


@dataclass(frozen=True)
class Deck:
    """An enrolled deck.

    Attributes:
        name: its name (``NAME`` in ``dokocam deck enroll NAME``).
        path: its folder.
        manifest: ``deck.json``: ``format``, ``name``, ``created``, ``source``, ``unsure`` and, once
            adapted, ``adapted`` (which classifiers, from which base checkpoints, how long it took).
    """

    name: str
    path: Path
    manifest: dict[str, Any]

    @property
    def faces_dir(self) -> Path:
        return self.path / FACES

    @property
    def adapted(self) -> dict[str, Any]:
        """The adaptation's record: ``classifiers`` (role -> file name), ``base`` (role -> SHA-256 of
        the shipped checkpoint it was fine-tuned from), ``seconds``, ``crops``; empty before adapting."""
        return dict(self.manifest.get("adapted") or {})

    def classifier(self, role: str) -> Path | None:
        """The adapted checkpoint for ``role`` (``classifier``, ``table_classifier``, ``context_classifier``),
        or ``None``."""
        name = self.adapted.get("classifiers", {}).get(role)
        return self.path / name if name else None


def check_name(name: str) -> str:
    """``name`` when it can name a deck folder.

    Raises:
        DeckError: empty, too long, or holding other characters than letters, digits, ``-`` and ``_``.

    >>> check_name("omas-blatt")
    'omas-blatt'
    """
    if not NAME_RE.match(name):
        raise DeckError(
            f"Deckname {name!r} geht nicht: bis zu 40 Buchstaben, Ziffern, - und _, am Anfang ein Buchstabe "
            f"oder eine Ziffer.\nDeck name {name!r} is not allowed: up to 40 letters, digits, - and _, "
            f"starting with a letter or digit."
        )
    return name


def list_decks() -> list[Deck]:
    """The enrolled decks, by name (folders without a readable manifest are skipped)."""
    root = decks_dir()
    if not root.is_dir():
        return []
    decks = []
    for folder in sorted(root.iterdir()):
        if folder.is_dir() and NAME_RE.match(folder.name) and (folder / MANIFEST).is_file():
            try:
                decks.append(_read(folder))
            except DeckError:
                continue
    return decks


def load_deck(name: str) -> Deck:
    """The enrolled deck ``name``.

    Raises:
        UnknownDeckError: no such deck (the message names the enrolled ones).
        DeckError: the name is not allowed, or its manifest cannot be read.
    """
    folder = decks_dir() / check_name(name)
    if not (folder / MANIFEST).is_file():
        known = ", ".join(d.name for d in list_decks()) or "keins / none"
        raise UnknownDeckError(
            f"Kein Deck namens {name!r} (angelernt: {known}). Lerne es mit `dokocam deck enroll {name} FOTO` an.\n"
            f"No deck named {name!r} (enrolled: {known}); enrol it with `dokocam deck enroll {name} PHOTO`."
        )
    return _read(folder)


def usable_deck(name: str) -> Deck:
    """The enrolled deck ``name`` when it can read cards: what every ``--deck NAME`` and the dashboard's
    deck switch resolve through, so each says the same when it cannot.

    Raises:
        UnknownDeckError: no such deck (the message names the enrolled ones and how to enrol).
        UnadaptedDeckError: the deck has no adapted classifier on disk.
        DeckError: the name is not allowed, or its manifest cannot be read.

    >>> usable_deck("../x")
    Traceback (most recent call last):
    ...
    dokocam.vision.decks.store.DeckError: Deckname '../x' geht nicht: ...
    """
    deck = load_deck(name)
    files = deck.adapted.get("classifiers", {}).values()
    if not any((deck.path / file).is_file() for file in files):
        raise UnadaptedDeckError(
            f"Deck {name!r} ist noch nicht angepasst: `dokocam deck adapt {name}` (einige Minuten).\n"
            f"Deck {name!r} is not adapted yet: run `dokocam deck adapt {name}` (a few minutes)."
        )
    return deck


def _read(folder: Path) -> Deck:
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise DeckError(f"{folder / MANIFEST} ist nicht lesbar / cannot be read: {exc}") from None
    if manifest.get("format") != FORMAT:
        raise DeckError(f"{folder / MANIFEST} ist kein {FORMAT}-Manifest / is not a {FORMAT} manifest")
    return Deck(folder.name, folder, manifest)


def write_faces(folder: Path, faces: dict[str, np.ndarray]) -> None:
    """Writes the 24 faces as ``folder/QC.png`` ... (a face folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    for code in CARD_CODES:
        if not cv2.imwrite(str(folder / f"{code}.png"), faces[code]):
            raise OSError(f"cannot write {folder / f'{code}.png'}")


def read_faces(folder: Path) -> dict[str, np.ndarray]:
    """The faces of a face folder written by :func:`write_faces`, by card code (a face that cannot be read is
    left out)."""
    faces = {code: cv2.imread(str(folder / f"{code}.png")) for code in CARD_CODES}
    return {code: face for code, face in faces.items() if face is not None}


def save_deck(
    name: str,
    faces: dict[str, np.ndarray],
    manifest: dict[str, Any],
    finish: Callable[[Path], dict[str, Any]] | None = None,
) -> Deck:
    """Stores a deck under ``name``, replacing one of that name only once everything succeeded.

    Args:
        name: the deck's name.
        faces: card code -> rectified face.
        manifest: what ``deck.json`` records besides ``format``, ``name`` and ``created``.
        finish: called with the new folder (faces written) before it takes the deck's place, e.g. to
            adapt the classifiers there; what it returns is recorded as the manifest's ``adapted``.

    Raises:
        DeckError: the name is not allowed.
    """
    root = decks_dir()
    root.mkdir(parents=True, exist_ok=True)
    target = root / check_name(name)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=root))
    try:
        write_faces(staging / FACES, faces)
        record = {"format": FORMAT, "name": name, "created": time.strftime("%Y-%m-%dT%H:%M:%S"), **manifest}
        if finish is not None:
            record["adapted"] = finish(staging)
        (staging / MANIFEST).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        _swap_in(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return _read(target)


def update_deck(deck: Deck, finish: Callable[[Path], dict[str, Any]]) -> Deck:
    """Re-runs ``finish`` (an adaptation) on a copy of ``deck`` and puts the copy in its place when it succeeds."""
    staging = Path(tempfile.mkdtemp(prefix=f".{deck.name}.", dir=deck.path.parent))
    try:
        shutil.copytree(deck.faces_dir, staging / FACES)
        record = {**deck.manifest, "adapted": finish(staging)}
        (staging / MANIFEST).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        _swap_in(staging, deck.path)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return _read(deck.path)


def _swap_in(staging: Path, target: Path) -> None:
    """Renames ``staging`` to ``target``, the old ``target`` (if any) moved aside first and then deleted."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{time.monotonic_ns()}")
        target.rename(old)
    try:
        staging.rename(target)
    except OSError:
        if old is not None:
            old.rename(target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def remove_deck(name: str) -> Path:
    """Deletes the deck ``name``; returns its former folder.

    Raises:
        UnknownDeckError: no such deck.
    """
    deck = load_deck(name)
    shutil.rmtree(deck.path)
    return deck.path


def contact_sheet(deck: Deck, face_width: int = 120) -> np.ndarray:
    """The deck's 24 faces in the layout's grid (rows Kreuz, Pik, Herz, Karo; columns 9 ... Ass), each
    captioned with its card code: for the players to check the enrolment by eye."""
    faces = read_faces(deck.faces_dir)
    height = max(int(round(face_width * f.shape[0] / f.shape[1])) for f in faces.values())
    gap, caption = 8, 22
    rows, columns = 4, 6
    sheet = np.full((rows * (height + caption + gap) + gap, columns * (face_width + gap) + gap, 3), 255, np.uint8)
    for k, code in enumerate(CARD_CODES):
        row, column = divmod(k, columns)
        x, y = gap + column * (face_width + gap), gap + row * (height + caption + gap)
        face = faces.get(code)
        if face is not None:
            sheet[y : y + height, x : x + face_width] = cv2.resize(
                face, (face_width, height), interpolation=cv2.INTER_AREA
            )
        cv2.putText(sheet, code, (x + 2, y + height + 17), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 1, cv2.LINE_AA)
    return sheet
