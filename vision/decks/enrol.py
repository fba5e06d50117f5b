"""Enrolment: a deck's 24 faces from one photo of the layout, or from one photo per card, checked.

The check reads each face with the shipped index classifier, which may not know this deck: a place
read surely as another card is refused by name, one read unsurely as another card is listed for the
players to confirm (:attr:`Enrolment.unsure`), never silently taken or refused. Every refusal is an
:class:`EnrolmentError` whose message says, German first, what to do; nothing is saved before the
check passes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from dokocam.vision.decks.grid import GridError, Placement, grow, place_outlines
from dokocam.vision.decks.layout import COLUMNS, ROWS, card_name, code_at, place_name, place_of
from dokocam.vision.decks.outline import EdgeMap, Outline, cards_lighter, find_outlines, rectify, sharpness
from dokocam.vision.synth.faces import CARD_CODES, FOLDER_INDEX_BOX, index_ink_box

SURE = 0.9  # a reading this probable (over the 24 cards) names a misplaced or doubled card
MIN_SHARPNESS = 0.35  # median card sharpness (outline.sharpness) below which a photo is too blurred
MIN_CARD_PX = 60  # a card narrower than this in the photo has indices too small to enrol
MIN_AGREEMENT = 6  # places read as their layout's card for a grid orientation to count as found
ASPECT_RANGE = (1.35, 1.65)  # the stored faces' height over width, from the photo's cards
ASPECT_SLACK = 0.1  # a photo tilted a little shows the cards' aspect this much off
# An outline whose sides differ this much (log) from its neighbours' or from its opposite sides' took in
# a shadow, a neighbour or part of the table.
MAX_SHAPE_ERROR = 0.08
# A card the grid says is there counts as found when its sides, snapped to the edges near them, are on
# average this strong against the found cards' (and three of four at least EDGE_EACH): an empty place's
# table has no four straight edges around it.
EDGE_MEAN = 0.35
EDGE_EACH = 0.12
SIDES = {"oben": (0.0, -1.0), "unten": (0.0, 1.0), "links": (-1.0, 0.0), "rechts": (1.0, 0.0)}


class EnrolmentError(ValueError):
    """A photo or folder that cannot be enrolled; the message says why and what to do (German, then English)."""


class OrientationError(EnrolmentError):
    """The cards do not tell which side the Kreuz row lies on (or lie across the side named): ask again.

    Attributes:
        sides: the sides the Kreuz row can lie on in this photo (the two ends of its columns).
    """

    def __init__(self, message: str, sides: tuple[str, ...]) -> None:
        super().__init__(message)
        self.sides = sides


def _both(german: str, english: str) -> str:
    return f"{german}\n{english}"


PALE_CONTRAST = 60  # the cards' lighter quarter this little lighter than the table (LAB lightness, 0-255): a pale table
PALE_ADVICE = (
    "Der Tisch ist fast so hell wie die Karten, ihre Ränder sind kaum zu sehen: lege sie auf eine dunkle Unterlage "
    "(ein dunkles Tuch, eine dunkle Tischplatte) und fotografiere noch einmal.",
    "The table is nearly as light as the cards, so their edges hardly show: lay them on something dark (a dark "
    "cloth, a dark table top) and take the photo again.",
)


def table_contrast(photo: np.ndarray, outlines: list[Outline]) -> float:
    """How much lighter the cards are than the table around them: the lighter quarter of the pixels inside the
    found outlines (the whole photo's when none is found) against the median of the pixels well away from them,
    in LAB lightness (0-255). A card's stock is light; under :data:`PALE_CONTRAST` the table is nearly as light."""
    light = cv2.cvtColor(photo, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    inside, near = np.zeros(light.shape, np.uint8), np.zeros(light.shape, np.uint8)
    for outline in outlines:
        centre = outline.centre
        cv2.fillConvexPoly(inside, np.round(centre + 0.8 * (outline.corners - centre)).astype(np.int32), 1)
        cv2.fillConvexPoly(near, np.round(centre + 1.3 * (outline.corners - centre)).astype(np.int32), 1)
    table = light[near == 0] if (near == 0).any() else light.ravel()
    stock = light[inside > 0] if inside.any() else light.ravel()
    return float(np.percentile(stock, 75) - np.median(table))


def _pale(photo: np.ndarray, outlines: list[Outline]) -> bool:
    return table_contrast(photo, outlines) < PALE_CONTRAST


def _advised(message: str, photo: np.ndarray, outlines: list[Outline]) -> str:
    """``message`` (German, then English) with :data:`PALE_ADVICE` added when the table is about as light as the
    cards: then a card not found is one whose edges do not show, and a darker surface is what helps."""
    if not _pale(photo, outlines):
        return message
    german, _, english = message.partition("\n")
    return _both(f"{german} {PALE_ADVICE[0]}", f"{english} {PALE_ADVICE[1]}")


@dataclass(frozen=True)
class Reading:
    """What the classifier reads on one face.

    Attributes:
        probs: ``(24,)`` probability of each card (class order), the face's index corners pooled.
    """

    probs: np.ndarray

    @property
    def code(self) -> str:
        return CARD_CODES[int(self.probs.argmax())]

    @property
    def probability(self) -> float:
        return float(self.probs.max())

    @property
    def sure(self) -> bool:
        return self.probability >= SURE


@dataclass
class Enrolment:
    """A checked deck: its 24 upright faces and what the shipped classifier read on each.

    Attributes:
        faces: card code -> rectified BGR face image.
        readings: card code -> the reading of that face.
        source: ``"grid"`` or ``"folder"``.
        unsure: lines (German, then English) naming the faces read unsurely as another card, for the
            players to confirm; empty when every face reads as its own card or unsurely as none.
        turn: for a grid photo, the side of the photo the Kreuz row lies on (``oben``, ``unten``,
            ``links``, ``rechts``).
        outlines: for a grid photo, card code -> its ``(4, 2)`` corners in the photo, the face's top-left
            first, clockwise.
    """

    faces: dict[str, np.ndarray]
    readings: dict[str, Reading]
    source: str
    unsure: list[str] = field(default_factory=list)
    turn: str | None = None
    outlines: dict[str, np.ndarray] = field(default_factory=dict)


def shipped_reader() -> object:
    """The shipped photos' index classifier (:class:`~vision.detector.classifier.IndexReader`)."""
    from dokocam.models import DEFAULT_MODEL
    from dokocam.vision.detector.classifier import IndexReader
    from dokocam.vision.detector.model import ModelCard

    card = ModelCard.load(DEFAULT_MODEL)
    return IndexReader.load(ModelCard.path_for(DEFAULT_MODEL).parent / (card.classifier("photo") or ""))


def index_boxes(face: np.ndarray) -> np.ndarray:
    """Boxes where a face's indices are: the corner region of :data:`FOLDER_INDEX_BOX` and the index
    found by its ink, each with its 180-degree copy (``(n, 4)`` pixels)."""
    h, w = face.shape[:2]
    x0, y0, x1, y1 = FOLDER_INDEX_BOX
    boxes = [(x0 * w, y0 * h, x1 * w, y1 * h)]
    found = index_ink_box(face)
    if found is not None:
        boxes.append(found)
    return np.array([box for b in boxes for box in (b, (w - b[2], h - b[3], w - b[0], h - b[1]))], np.float64)


def read_faces(faces: Mapping[str, np.ndarray], reader: object) -> dict[str, Reading]:
    """Each face's reading: the classifier's card probabilities over its index boxes, summed and
    normalised over the 24 cards (a box read as background adds little)."""
    readings = {}
    for key, face in faces.items():
        probs = reader.probabilities(face, index_boxes(face))[:, : len(CARD_CODES)].sum(axis=0)  # type: ignore[attr-defined]
        readings[key] = Reading(probs / max(float(probs.sum()), 1e-9))
    return readings


def enrol_grid(photo: np.ndarray, *, reader: object | None = None, kreuz: str | None = None) -> Enrolment:
    """Enrols a deck from one photo of the 24 faces laid out as :mod:`vision.decks.layout` says.

    Args:
        photo: the BGR photo.
        reader: the classifier that checks the places (default: :func:`shipped_reader`).
        kreuz: where the Kreuz row lies in the photo (``oben``, ``unten``, ``links``, ``rechts``);
            ``None``: found by reading the cards.

    Raises:
        EnrolmentError: no cards, not 24 in a grid, a blurred or too distant photo, two copies of one
            face, a card surely in the wrong place, or an orientation the cards do not tell.
    """
    outlines = find_outlines(photo)
    if not outlines:
        raise EnrolmentError(
            _both(
                "Auf dem Foto ist keine Karte zu erkennen. Lege die 24 Karten offen auf einen Tisch und "
                "fotografiere sie von oben.",
                "No card is visible in the photo: lay the 24 cards face up on a table and photograph them from above.",
            )
        )
    outlines = _grown(photo, outlines)
    try:
        placements = place_outlines(outlines)
    except GridError as exc:
        raise EnrolmentError(_advised(str(exc), photo, outlines)) from None
    _check_size_and_focus(photo, outlines)
    reader = reader or shipped_reader()
    aspect = float(np.clip(np.median([o.height / o.width for o in outlines]), *ASPECT_RANGE))
    first = {code_at(r, c): rectify(photo, o, aspect) for (r, c), o in placements[0].places.items()}
    # Both orientations show the same faces, each turned half round: one reading serves both.
    read = read_faces(first, reader)
    flipped = {_opposite(code): reading for code, reading in read.items()}
    missing = placements[0].missing
    try:
        choice = _orientation([read, flipped], placements, kreuz)
    except EnrolmentError:
        if not missing:
            raise
        raise EnrolmentError(_missing_message(len(outlines), placements, pale=_pale(photo, outlines))) from None
    placement = placements[choice]
    if missing:
        raise EnrolmentError(_missing_message(len(outlines), [placement], pale=_pale(photo, outlines)))
    try:
        _check_shapes(placement)
    except EnrolmentError as exc:
        raise EnrolmentError(_advised(str(exc), photo, outlines)) from None
    faces = {code: rectify(photo, placement.places[place_of(code)], aspect) for code in CARD_CODES}
    readings = [read, flipped][choice]
    outlines_by_code = {code: placement.places[place_of(code)].corners for code in CARD_CODES}
    enrolment = Enrolment(faces, readings, "grid", turn=_side(placement), outlines=outlines_by_code)
    enrolment.unsure = _check_readings(readings, lambda code: place_name(*place_of(code)))
    return enrolment


def _grown(photo: np.ndarray, outlines: list[Outline]) -> list[Outline]:
    """``outlines`` and the cards whose outline was too weak to find on its own (glare, a table as light
    as the stock): where the layout's lattice puts them, snapped to the edges there, when the edges are there."""
    if len(outlines) < 2:
        return outlines
    edges = EdgeMap(photo, light_inside=cards_lighter(photo, outlines))
    typical = float(np.median([edges.sides(o.corners).mean() for o in outlines]))

    def accept(corners: np.ndarray) -> np.ndarray | None:
        snapped = edges.snap(corners)
        strength = edges.sides(snapped) / max(typical, 1e-9)
        return snapped if strength.mean() >= EDGE_MEAN and (strength >= EDGE_EACH).sum() >= 3 else None

    return grow(outlines, accept)


def _opposite(code: str) -> str:
    """The card whose place is ``code``'s turned half round the layout."""
    row, column = place_of(code)
    return code_at(ROWS - 1 - row, COLUMNS - 1 - column)


def _missing_message(found: int, placements: list[Placement], *, pale: bool = False) -> str:
    """Names the empty places, for the orientation found or, when there are two candidates, for both; ``pale``:
    the table is nearly as light as the cards (:func:`table_contrast`), which is then why a card was not seen."""
    named = [", ".join(f"{place_name(r, c)} ({card_name(code_at(r, c))})" for r, c in p.missing) for p in placements]
    german = (
        f"Auf dem Foto sind {found} von 24 Karten zu sehen. Leer: {named[0]}"
        + (f" (oder, falls die Kreuz-Reihe {_side(placements[1])} liegt: {named[1]})" if len(named) > 1 else "")
        + ". Lege alle 24 aus und fotografiere noch einmal; "
        + (
            f"liegt dort schon eine Karte: {PALE_ADVICE[0]}"
            if pale
            else "liegt dort schon eine Karte, dann verschluckt sie wohl eine Spiegelung: ohne Blitz, mit weniger "
            "direktem Licht oder schräger fotografieren."
        )
    )
    english = (
        f"The photo shows {found} of 24 cards. Empty: {named[0]}"
        + (f" (or, if the Kreuz row lies {_side(placements[1])}: {named[1]})" if len(named) > 1 else "")
        + ". Lay out all 24 and take the photo again; "
        + (
            f"if a card lies there: {PALE_ADVICE[1]}"
            if pale
            else "if a card lies there, glare hides it: take the photo without flash, in softer light or from a "
            "slight angle."
        )
    )
    return _both(german, english)


def _check_size_and_focus(photo: np.ndarray, outlines: list[Outline]) -> None:
    width = float(np.median([o.width for o in outlines]))
    if width < MIN_CARD_PX:
        raise EnrolmentError(
            _both(
                f"Die Karten sind auf dem Foto zu klein ({width:.0f} Pixel breit, nötig sind {MIN_CARD_PX}). "
                "Geh näher heran oder fotografiere mit höherer Auflösung.",
                f"The cards are too small in the photo ({width:.0f} px wide, {MIN_CARD_PX} needed): move closer "
                "or use a higher resolution.",
            )
        )
    sharp = float(np.median([sharpness(photo, o) for o in outlines]))
    if sharp < MIN_SHARPNESS:
        raise EnrolmentError(
            _both(
                f"Das Foto ist unscharf (Schärfe {sharp:.2f}, nötig sind {MIN_SHARPNESS}). Halte die Kamera ruhig, "
                "stelle auf die Karten scharf und fotografiere noch einmal.",
                f"The photo is blurred (sharpness {sharp:.2f}, {MIN_SHARPNESS} needed): hold the camera still, "
                "focus on the cards and take it again.",
            )
        )


def shape_errors(placement: Placement) -> tuple[float, dict[tuple[int, int], float]]:
    """The outlines' median aspect (height over width), and each place's relative difference from its
    neighbours' card shape, or its opposite sides' difference: the largest over its four sides' lengths
    (0.1: a tenth off).

    All 24 cards are one size, and a photo tilted a little changes their size only slowly across the
    layout, so an outline unlike its neighbours' took in a shadow, a neighbour or part of the table; and
    one whose opposite sides differ put a corner off its card.
    """
    places = placement.places
    size = {key: np.linalg.norm(o.corners - np.roll(o.corners, -1, axis=0), axis=1) for key, o in places.items()}
    aspect = float(np.median([o.height / o.width for o in places.values()]))
    errors = {}
    for (r, c), own in size.items():
        near = [size[k] for k in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if k in size]
        typical = np.median(near, axis=0)
        # A card is a rectangle: its opposite sides look equally long unless a corner is off its card.
        skew = np.abs(np.log(own[:2] / own[2:]))
        errors[(r, c)] = float(max(np.abs(np.log(own / typical)).max(), skew.max()))
    return aspect, errors


def _check_shapes(placement: Placement) -> None:
    """Refuses outlines that are not the cards' edges (a shadow, a pale table, two cards as one), naming where."""
    aspect, errors = shape_errors(placement)
    low, high = ASPECT_RANGE
    if not low - ASPECT_SLACK <= aspect <= high + ASPECT_SLACK:
        raise EnrolmentError(
            _both(
                f"Die gefundenen Umrisse sind nicht kartenförmig (Seitenverhältnis {aspect:.2f}, Karten haben "
                f"{low:.2f} bis {high:.2f}): wohl ein Schatten oder ein Tisch so hell wie die Karten. Lege die Karten "
                "auf eine dunklere Fläche oder fotografiere mit weicherem Licht von oben.",
                f"The outlines found are not card-shaped (aspect {aspect:.2f}; cards have {low:.2f} to {high:.2f}): "
                "a shadow or a table as light as the cards. Lay them on a darker surface or use softer light "
                "from above.",
            )
        )
    off = sorted(key for key, error in errors.items() if error > MAX_SHAPE_ERROR)
    if off:
        names = ", ".join(place_name(*key) for key in off)
        raise EnrolmentError(
            _both(
                f"Die Umrisse dieser Karten sind unsicher (anders geformt als ihre Nachbarn oder schief): {names}. "
                "Lege sie mit etwas Abstand zu den anderen und fotografiere ohne harte Schatten noch einmal.",
                f"These cards' outlines are unsure (shaped unlike their neighbours' or skewed): {names}. "
                "Lay them a little apart from the others and take the photo again without hard shadows.",
            )
        )


def _side(placement: Placement) -> str:
    """The side of the photo the Kreuz row lies on: opposite the layout's downward direction."""
    up = -np.array(placement.down)
    return max(SIDES, key=lambda side: float(np.dot(SIDES[side], up)))


def _orientation(readings: list[dict[str, Reading]], placements: list[Placement], kreuz: str | None) -> int:
    """The index of the orientation the cards read as (or the one ``kreuz`` names)."""
    if kreuz is not None:
        if kreuz not in SIDES:
            raise EnrolmentError(
                _both(
                    f"Unbekannte Seite {kreuz!r}: sag oben, unten, links oder rechts.",
                    f"Unknown side {kreuz!r}: use oben (top), unten (bottom), links (left) or rechts (right).",
                )
            )
        matches = [k for k, p in enumerate(placements) if _side(p) == kreuz]
        if not matches:
            raise OrientationError(
                _both(
                    f"Die Kreuz-Reihe kann nicht {kreuz} liegen: die Reihen laufen auf diesem Foto "
                    f"{'waagerecht' if _side(placements[0]) in ('oben', 'unten') else 'senkrecht'}.",
                    f"The Kreuz row cannot lie at the {kreuz} side: the rows run "
                    f"{'across' if _side(placements[0]) in ('oben', 'unten') else 'up and down'} in this photo.",
                ),
                tuple(_side(p) for p in placements),
            )
        return matches[0]
    agree = [sum(r.code == code for code, r in reading.items()) for reading in readings]
    best = int(np.argmax(agree))
    if agree[best] < MIN_AGREEMENT or agree[best] < 2 * agree[1 - best] + 2:
        sides = " oder ".join(_side(p) for p in placements)
        raise OrientationError(
            _both(
                f"Die Ausrichtung ist nicht zu erkennen ({agree[0]} zu {agree[1]} Karten passen). "
                f"Sag, wo die Kreuz-Reihe auf dem Foto liegt: {sides} (--kreuz).",
                f"The orientation cannot be told ({agree[0]} against {agree[1]} cards fit): say where the Kreuz "
                f"row lies in the photo (--kreuz {' or '.join(_side(p) for p in placements)}).",
            ),
            tuple(_side(p) for p in placements),
        )
    return best


def _check_readings(readings: Mapping[str, Reading], where: Callable[[str], str]) -> list[str]:
    """Refuses doubled and surely misplaced faces; returns the unsure ones as lines to confirm.

    ``readings`` maps the card each face should be to its reading; ``where`` names a face's place.
    """
    sure: dict[str, list[str]] = {}
    for code, reading in readings.items():
        if reading.sure:
            sure.setdefault(reading.code, []).append(code)
    doubled = {read: codes for read, codes in sure.items() if len(codes) > 1}
    if doubled:
        german = "; ".join(
            f"{card_name(read)} liegt {len(codes)}-mal: {' und '.join(where(c) for c in codes)}"
            for read, codes in doubled.items()
        )
        english = "; ".join(
            f"{read} lies {len(codes)} times: {' and '.join(where(c) for c in codes)}"
            for read, codes in doubled.items()
        )
        # The doubled face lies where another card belongs: that card is the one left out.
        lacking = [c for codes in doubled.values() for c in codes if c not in sure]
        raise EnrolmentError(
            _both(
                f"{german}. Jede Karte gehört genau einmal in die Auslage"
                + (f"; es fehlt wohl {', '.join(card_name(c) for c in lacking[:3])}." if lacking else "."),
                f"{english}. Each card belongs in the layout exactly once.",
            )
        )
    wrong = [code for code, r in readings.items() if r.sure and r.code != code]
    if wrong:
        german = "; ".join(
            f"{where(c)} liest sich als {card_name(readings[c].code)}; dort gehört {card_name(c)} hin" for c in wrong
        )
        english = "; ".join(f"{where(c)} reads as {readings[c].code}; {c} belongs there" for c in wrong)
        raise EnrolmentError(
            _both(
                f"{german}. Lege die Karten um und fotografiere noch einmal.",
                f"{english}. Swap the cards and take the photo again.",
            )
        )
    return [
        _both(
            f"{where(code)}: sieht aus wie {card_name(r.code)} ({r.probability:.0%}), erwartet {card_name(code)}",
            f"{where(code)}: looks like {r.code} ({r.probability:.0%}), expected {code}",
        )
        for code, r in readings.items()
        if r.code != code
    ]


def enrol_folder(folder: str | Path, *, reader: object | None = None) -> Enrolment:
    """Enrols a deck from a folder of photos, one card each, named by card code (``QC.jpg``, ``10H.png``).

    Each photo's largest card outline is rectified; a photo that is all card (cropped to its edge) is
    taken whole.

    Raises:
        EnrolmentError: a missing folder or card, a file named like no card, a photo without a card,
            blurred, or surely of another card, or two photos of one card.
    """
    path = Path(folder)
    if not path.is_dir():
        raise EnrolmentError(_both(f"{path} ist kein Ordner.", f"{path} is not a folder."))
    files: dict[str, Path] = {}
    strays = []
    for file in sorted(path.iterdir()):
        if file.suffix.lower() not in (".png", ".jpg", ".jpeg", ".webp", ".bmp"):
            continue
        code = file.stem.upper()
        if code not in CARD_CODES:
            strays.append(file.name)
            continue
        if code in files:
            raise EnrolmentError(
                _both(
                    f"Zwei Fotos für {card_name(code)}: {files[code].name} und {file.name}.",
                    f"Two photos of {code}: {files[code].name} and {file.name}.",
                )
            )
        files[code] = file
    if strays:
        raise EnrolmentError(
            _both(
                f"{', '.join(strays)}: nicht nach einer Karte benannt. Benenne die Fotos wie QC.jpg oder 10H.png "
                "(9 10 J Q K A, dann C S H D).",
                f"{', '.join(strays)}: not named by card code; name photos like QC.jpg or 10H.png "
                "(rank 9 10 J Q K A, suit C S H D).",
            )
        )
    missing = [code for code in CARD_CODES if code not in files]
    if missing:
        raise EnrolmentError(
            _both(
                f"Es fehlen Fotos für {', '.join(card_name(c) for c in missing)} (Dateien wie {missing[0]}.jpg).",
                f"Photos are missing for {' '.join(missing)} (files like {missing[0]}.jpg).",
            )
        )
    faces = {code: _single_face(file) for code, file in files.items()}
    readings = read_faces(faces, reader or shipped_reader())
    return Enrolment(faces, readings, "folder", _check_readings(readings, lambda code: files[code].name))


def _single_face(file: Path) -> np.ndarray:
    photo = cv2.imread(str(file), cv2.IMREAD_COLOR)
    if photo is None:
        raise EnrolmentError(
            _both(f"{file.name} ist kein lesbares Bild.", f"{file.name} is not an image that can be read.")
        )
    outlines = find_outlines(photo, many=False)
    h, w = photo.shape[:2]
    if outlines:
        outline = outlines[0]
    elif ASPECT_RANGE[0] - 0.1 <= max(h, w) / min(h, w) <= ASPECT_RANGE[1] + 0.1:
        # The photo was cropped to the card: all of it is the face.
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        outline = Outline(corners if h >= w else np.roll(corners, -1, axis=0), float(h * w))
    else:
        raise EnrolmentError(
            _both(
                f"{file.name}: keine Karte zu erkennen. Fotografiere die Karte ganz, auf einem Tisch, von oben.",
                f"{file.name}: no card found; photograph the whole card on a table from above.",
            )
        )
    if outline.width < MIN_CARD_PX:
        raise EnrolmentError(
            _both(
                f"{file.name}: die Karte ist zu klein ({outline.width:.0f} Pixel breit, nötig sind {MIN_CARD_PX}).",
                f"{file.name}: the card is too small ({outline.width:.0f} px wide, {MIN_CARD_PX} needed).",
            )
        )
    if sharpness(photo, outline) < MIN_SHARPNESS:
        raise EnrolmentError(
            _both(
                f"{file.name} ist unscharf. Fotografiere die Karte noch einmal, ruhig und scharf gestellt.",
                f"{file.name} is blurred: photograph the card again, still and in focus.",
            )
        )
    aspect = float(np.clip(outline.height / outline.width, *ASPECT_RANGE))
    return rectify(photo, outline, aspect)
