"""Printed card designs from SVG decks (Debian's ``kdegames-card-data-kf5``), rasterized into face folders.

Each deck is one SVG sheet whose cards are elements named ``queen_heart``, ``1_club`` (the ace),
``10_spade`` ... :func:`rasterize_deck` draws the 24 Doppelkopf faces of one deck with
``rsvg-convert`` (``librsvg2-bin``) into a folder ``QC.png 10H.png ...`` that
:func:`~dokocam.vision.synth.faces.load_face_folder` reads. The folders are a cache, built at
synthesis time and never committed (the decks are GPL/LGPL art; only trained weights ship).

``rsvg-convert -i ID`` alone draws several decks' cards small, cut off or inside the whole page
(the element's own box ignores its parents' transforms), so the card is isolated here by hand:
everything else in the sheet moves into ``<defs>`` (still there for ``<use>`` references, no longer
drawn), the card's ink box is measured on a small render, and the sheet's ``viewBox`` is then set
to that box for the full-size render.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from dokocam.vision.home import dokocam_home
from dokocam.vision.synth.faces import CARD_CODES, split_code

SVG_DECK_ROOT = Path("/usr/share/carddecks")
RANK_IDS = {"9": "9", "10": "10", "J": "jack", "Q": "queen", "K": "king", "A": "1"}
SUIT_IDS = {"C": "club", "S": "spade", "H": "heart", "D": "diamond"}
# Elements a sheet draws; anything else (defs, gradients, metadata, style) stays where it is.
_DRAWN = {"g", "path", "rect", "use", "image", "text", "circle", "ellipse", "line", "polyline", "polygon", "svg", "a"}
_SVG_NS = "http://www.w3.org/2000/svg"
_XLINK_NS = "http://www.w3.org/1999/xlink"
_UNITS_PX = {"": 1.0, "px": 1.0, "pt": 96 / 72, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}
# The longer side of the render that finds a card's bounds (its page and a margin), pixels.
_MEASURE_PX = 6000
_DONE = ".complete"


class SvgDeckError(RuntimeError):
    """An SVG deck cannot be rasterized: ``rsvg-convert`` is missing, an element is absent or draws nothing."""


@dataclass(frozen=True)
class SvgDeck:
    """One SVG deck file.

    Attributes:
        name: the deck's folder name without ``svg-`` (``"dondorf"``): the design's name in the split.
        path: the ``.svg`` or ``.svgz`` file.
    """

    name: str
    path: Path


def element_id(code: str) -> str:
    """The SVG element id of a card code.

    >>> element_id("QH"), element_id("AC"), element_id("10S")
    ('queen_heart', '1_club', '10_spade')
    """
    rank, suit = split_code(code)
    return f"{RANK_IDS[rank]}_{SUIT_IDS[suit]}"


def find_svg_decks(root: str | Path = SVG_DECK_ROOT) -> list[SvgDeck]:
    """The SVG decks installed under ``root`` (``svg-NAME/*.svgz``), by name; empty when none are."""
    decks = []
    for folder in sorted(Path(root).glob("svg-*")):
        files = sorted([*folder.glob("*.svgz"), *folder.glob("*.svg")])
        if files:
            decks.append(SvgDeck(folder.name.removeprefix("svg-"), files[0]))
    return decks


def svg_cache_dir() -> Path:
    """Where rasterized decks are kept: ``$DOKOCAM_HOME/cache/svgdecks``."""
    return dokocam_home() / "cache" / "svgdecks"


def _read_svg(path: Path) -> ET.ElementTree:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return ET.ElementTree(ET.fromstring(data))


def _length_px(value: str | None) -> float | None:
    match = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([a-z]*)\s*", value or "")
    if not match or match.group(2) not in _UNITS_PX:
        return None
    return float(match.group(1)) * _UNITS_PX[match.group(2)]


def _root(tree: ET.ElementTree) -> ET.Element:
    root = tree.getroot()
    if root is None:
        raise SvgDeckError("the SVG has no root element")
    return root


def _view_box(root: ET.Element) -> tuple[float, float, float, float]:
    """The sheet's user-space rectangle: its ``viewBox``, else its size in pixels (one user unit a pixel)."""
    box = root.get("viewBox")
    if box:
        x, y, w, h = (float(v) for v in re.split(r"[\s,]+", box.strip()))
        return x, y, w, h
    width, height = _length_px(root.get("width")), _length_px(root.get("height"))
    if not width or not height:
        raise SvgDeckError("the SVG has neither a viewBox nor a size in absolute units")
    return 0.0, 0.0, width, height


def _isolate(tree: ET.ElementTree, ident: str) -> ET.ElementTree:
    """A copy of ``tree`` drawing only element ``ident``: every drawn element off its path moves into a ``<defs>``.

    Some sheets define each card inside ``<defs>`` and draw it elsewhere with a ``<use>``: such a card is drawn
    by one new ``<use>`` of it at the origin, and nothing else.

    >>> sheet = ET.ElementTree(ET.fromstring(
    ...     '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
    ...     '<defs><g id="9_club"><rect width="5" height="7"/></g></defs>'
    ...     '<use xlink:href="#9_club" x="40"/><rect id="other" width="5" height="7"/></svg>'))
    >>> root = _isolate(sheet, "9_club").getroot()
    >>> [(c.tag.rsplit("}", 1)[-1], c.get("{http://www.w3.org/1999/xlink}href")) for c in root]
    [('defs', None), ('defs', None), ('use', '#9_club')]
    """
    root = _copy(_root(tree))
    parents = {child: parent for parent in root.iter() for child in parent}
    target = next((e for e in root.iter() if e.get("id") == ident), None)
    if target is None:
        raise SvgDeckError(f"no element with id {ident!r}")
    path = [target]
    while path[-1] in parents:
        path.append(parents[path[-1]])
    if any(node.tag.rsplit("}", 1)[-1] in ("defs", "symbol") for node in path[1:]):
        hidden = [c for c in root if c.tag.rsplit("}", 1)[-1] in _DRAWN]
        defs = ET.SubElement(root, f"{{{_SVG_NS}}}defs")
        for child in hidden:
            root.remove(child)
            defs.append(child)
        ET.SubElement(root, f"{{{_SVG_NS}}}use", {f"{{{_XLINK_NS}}}href": f"#{ident}"})
        return ET.ElementTree(root)
    on_path = set(map(id, path))
    for node in path[1:]:
        hidden = [c for c in node if id(c) not in on_path and c.tag.rsplit("}", 1)[-1] in _DRAWN]
        if not hidden:
            continue
        defs = ET.SubElement(node, f"{{{_SVG_NS}}}defs")
        for child in hidden:
            node.remove(child)
            defs.append(child)
    return ET.ElementTree(root)


def _copy(element: ET.Element) -> ET.Element:
    return ET.fromstring(ET.tostring(element))


def _render(root: ET.Element, box: tuple[float, float, float, float], width: int, workdir: Path) -> np.ndarray:
    """Renders the user-space ``box`` of ``root`` ``width`` pixels wide; BGRA."""
    x, y, w, h = box
    root.set("viewBox", f"{x:.4f} {y:.4f} {w:.4f} {h:.4f}")
    root.set("width", str(width))
    root.set("height", str(max(1, round(width * h / w))))
    root.set("preserveAspectRatio", "none")
    source, target = workdir / "sheet.svg", workdir / "card.png"
    ET.ElementTree(root).write(source, xml_declaration=True, encoding="utf-8")
    rsvg = shutil.which("rsvg-convert")
    if rsvg is None:
        raise SvgDeckError("rsvg-convert is not installed: apt-get install librsvg2-bin")
    result = subprocess.run([rsvg, "-u", "-o", str(target), str(source)], capture_output=True, text=True)
    if result.returncode != 0:
        raise SvgDeckError(f"rsvg-convert failed: {result.stderr.strip()[:300]}")
    image = cv2.imread(str(target), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise SvgDeckError("rsvg-convert wrote no RGBA image")
    return image


def _ink_box(image: np.ndarray) -> tuple[int, int, int, int] | None:
    ys, xs = np.nonzero(image[:, :, 3] > 8)
    if len(xs) == 0:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def render_card(tree: ET.ElementTree, ident: str, width: int, workdir: Path) -> np.ndarray:
    """Element ``ident`` of a deck sheet cropped to its own bounds, ``width`` pixels wide (BGRA).

    Raises:
        SvgDeckError: no such element, or it draws nothing.
    """
    isolated = _root(_isolate(tree, ident))
    px, py, pw, ph = _view_box(isolated)
    # Some sheets place cards partly or wholly off their page: measure on the page with a page's margin all round.
    vx, vy, vw, vh = px - pw, py - ph, 3 * pw, 3 * ph
    measure_w = int(round(_MEASURE_PX * vw / max(vw, vh)))
    small = _render(_copy(isolated), (vx, vy, vw, vh), measure_w, workdir)
    found = _ink_box(small)
    if found is None:
        raise SvgDeckError(f"element {ident!r} draws nothing")
    scale = vw / measure_w
    # One measuring pixel of slack each side; the full-size render is cropped to its own ink again.
    x0, y0 = vx + (found[0] - 1) * scale, vy + (found[1] - 1) * scale
    x1, y1 = vx + (found[2] + 1) * scale, vy + (found[3] + 1) * scale
    render_w = int(round(width * (found[2] - found[0] + 2) / (found[2] - found[0])))
    big = _render(isolated, (x0, y0, x1 - x0, y1 - y0), render_w, workdir)
    fx0, fy0, fx1, fy1 = _ink_box(big) or (0, 0, big.shape[1], big.shape[0])
    card = big[fy0:fy1, fx0:fx1]
    return cv2.resize(card, (width, max(1, round(width * card.shape[0] / card.shape[1]))), interpolation=cv2.INTER_AREA)


def _on_stock(card: np.ndarray) -> np.ndarray:
    """BGR of a BGRA card, its transparent rounded corners filled with the card's own stock colour
    (the median of an inner band along its edges), so a face folder's mask never shows a rim."""
    h, w = card.shape[:2]
    band = max(2, int(0.03 * w))
    inner = card[band : h - band, band : w - band]
    ring = np.concatenate([inner[:band].reshape(-1, 4), inner[-band:].reshape(-1, 4)])
    ring = ring[ring[:, 3] > 250]
    stock = np.median(ring[:, :3], axis=0) if len(ring) else np.array([255.0, 255.0, 255.0])
    alpha = card[:, :, 3:4].astype(np.float32) / 255.0
    return (card[:, :, :3] * alpha + stock * (1 - alpha)).round().astype(np.uint8)


def rasterize_deck(deck: SvgDeck, cache: str | Path | None = None, *, width: int = 360) -> Path:
    """The face folder of ``deck`` (24 PNGs named by card code, ``width`` pixels wide), drawn once and cached.

    A folder is complete only once its marker file is written, so an interrupted run draws it again.

    Raises:
        SvgDeckError: ``rsvg-convert`` is missing or a card cannot be drawn.
    """
    folder = Path(cache or svg_cache_dir()) / f"{deck.name}-{width}"
    if (folder / _DONE).is_file():
        return folder
    tree = _read_svg(deck.path)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        work = Path(tmp)
        staging = work / "faces"
        staging.mkdir()
        for code in CARD_CODES:
            try:
                card = render_card(tree, element_id(code), width, work)
            except SvgDeckError as exc:
                raise SvgDeckError(f"deck {deck.name} ({deck.path}), {code}: {exc}") from None
            cv2.imwrite(str(staging / f"{code}.png"), _on_stock(card))
        (staging / _DONE).write_text(f"{deck.path}\n")
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(staging, folder)
    return folder


def svg_face_folders(
    names: Sequence[str], *, root: str | Path = SVG_DECK_ROOT, cache: str | Path | None = None, width: int = 360
) -> list[Path]:
    """The cached face folders of the SVG decks named ``names``, drawn where missing.

    Raises:
        SvgDeckError: a named deck is not installed (with the ``apt-get`` line that installs them).
    """
    installed = {deck.name: deck for deck in find_svg_decks(root)}
    missing = [name for name in names if name not in installed]
    if missing:
        raise SvgDeckError(
            f"SVG decks {', '.join(missing)} not found under {root}: "
            "apt-get install kdegames-card-data-kf5 librsvg2-bin"
        )
    return [rasterize_deck(installed[name], cache, width=width) for name in names]


def face_sheet(folder: str | Path, tile: int = 180) -> np.ndarray:
    """The 24 faces of a face folder in a 6 x 4 grid (ranks across, suits down) with their index labels
    drawn in magenta: to look at a deck and its labels before using it."""
    from dokocam.vision.synth.faces import load_face_folder

    faces = load_face_folder(folder)
    rows = []
    for suit in ("C", "S", "H", "D"):
        row = []
        for rank in ("9", "10", "J", "Q", "K", "A"):
            face = faces[rank + suit]
            image = face.image.copy()
            for quad in face.indices:
                cv2.polylines(image, [np.round(quad).astype(np.int32)], True, (255, 0, 255), 2)
            scale = tile / image.shape[0]
            image = cv2.resize(image, (max(1, round(image.shape[1] * scale)), tile), interpolation=cv2.INTER_AREA)
            cell = np.full((tile + 8, round(tile * 0.75) + 8, 3), 96, np.uint8)
            h, w = image.shape[:2]
            w = min(w, cell.shape[1] - 8)
            cell[4 : 4 + h, 4 : 4 + w] = image[:, :w]
            row.append(cell)
        rows.append(np.hstack(row))
    return np.vstack(rows)
