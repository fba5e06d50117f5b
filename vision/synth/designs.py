"""The card designs scenes are drawn with, split by design into training and held-out designs.

A design is one printed look: an SVG deck, a face folder (the shared English pattern), or a font family of
the procedural decks (every drawn deck in that family's fonts, whatever its colours). Whole designs are held
out, never single images, so the held-out scenes measure what a user's unseen deck costs. The generator
(``dokocam dataset generate --designs train``) and the validation sets (``--designs heldout``) both read
:data:`DESIGNS`; ``datasets/designs.md`` writes the same split down.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SplitName = Literal["train", "heldout", "all"]
SPLITS: tuple[str, ...] = ("train", "heldout", "all")

_LIBERATION = Path("/usr/share/fonts/truetype/liberation")  # Debian's fonts-liberation
# Debian's font packages of the further font families (scripts/test.sh installs them).
_URW = Path("/usr/share/fonts/opentype/urw-base35")  # fonts-urw-base35
_LIBERTINE = Path("/usr/share/fonts/opentype/linux-libertine")  # fonts-linuxlibertine
_GO = Path("/usr/share/fonts/fonts-go")  # fonts-go


@dataclass(frozen=True)
class Design:
    """One design.

    Attributes:
        name: unique name (``"svg:dondorf"``, ``"font:liberation-serif"``, ``"folder:english-pattern"``).
        split: ``"train"`` or ``"heldout"``.
        fonts: a font family's files: names in matplotlib's font folder, or absolute paths.
    """

    name: str
    split: str
    fonts: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """``svg``, ``font`` or ``folder``."""
        return self.name.split(":", 1)[0]

    @property
    def short(self) -> str:
        """The name without its kind (an SVG deck's or face folder's own name)."""
        return self.name.split(":", 1)[1]


def _in(folder: Path | str, *files: str) -> tuple[str, ...]:
    return tuple(str(Path(folder) / f) for f in files)


# The split, fixed. Held out: two SVG decks (a French pattern, and German B D K indices in four corners) and
# whole font families the shipped detector never saw (neither in scenes nor in index crops): the three Liberation
# families and a quarter of the families from Debian's font packages. A design added joins one side for good.
DESIGNS: tuple[Design, ...] = (
    Design("svg:standard", "train"),
    Design("svg:dondorf", "train"),
    Design("svg:penguins", "train"),
    Design("svg:konqi-modern", "train"),
    Design("svg:nicu-white", "train"),
    Design("svg:nicu-ornamental", "train"),
    Design("svg:tigullio-international", "train"),
    Design("svg:jolly-royal", "train"),
    Design("svg:gm-paris", "heldout"),
    Design("svg:xskat-french", "heldout"),
    Design("folder:english-pattern", "train"),
    Design("font:dejavu-sans", "train", ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-BoldOblique.ttf")),
    Design("font:dejavu-serif", "train", ("DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-BoldItalic.ttf")),
    Design("font:dejavu-sans-mono", "train", ("DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf")),
    Design("font:stix", "train", ("STIXGeneral.ttf", "STIXGeneralBol.ttf", "STIXGeneralItalic.ttf")),
    Design("font:cm-roman", "train", ("cmr10.ttf", "cmb10.ttf")),
    Design("font:cm-sans", "train", ("cmss10.ttf",)),
    Design("font:cm-typewriter", "train", ("cmtt10.ttf",)),
    Design(
        "font:liberation-sans",
        "heldout",
        _in(
            _LIBERATION,
            "LiberationSans-Regular.ttf",
            "LiberationSans-Bold.ttf",
            "LiberationSansNarrow-Regular.ttf",
            "LiberationSansNarrow-Bold.ttf",
        ),
    ),
    Design(
        "font:liberation-serif", "heldout", _in(_LIBERATION, "LiberationSerif-Regular.ttf", "LiberationSerif-Bold.ttf")
    ),
    Design(
        "font:liberation-mono", "heldout", _in(_LIBERATION, "LiberationMono-Regular.ttf", "LiberationMono-Bold.ttf")
    ),
    # Further families from Debian's font packages, a quarter of them held out (a sans, a serif, a monospace).
    # None is a clone of a held-out family: the Helvetica/Arial-, Times- and Courier-like faces (Nimbus Sans,
    # Roman, Mono; FreeSans, FreeSerif; Roboto, Inter) are left out, so the Liberation families stay unlike
    # anything trained on.
    Design("font:urw-bookman", "train", _in(_URW, "URWBookman-Light.otf", "URWBookman-Demi.otf")),
    Design("font:urw-gothic", "train", _in(_URW, "URWGothic-Book.otf", "URWGothic-Demi.otf")),
    Design("font:c059", "train", _in(_URW, "C059-Roman.otf", "C059-Bold.otf")),
    Design("font:p052", "heldout", _in(_URW, "P052-Roman.otf", "P052-Bold.otf", "P052-BoldItalic.otf")),
    Design(
        "font:cantarell",
        "train",
        _in(
            "/usr/share/fonts/opentype/cantarell",
            "Cantarell-Regular.otf",
            "Cantarell-Bold.otf",
            "Cantarell-ExtraBold.otf",
        ),
    ),
    Design(
        "font:lato",
        "heldout",
        _in("/usr/share/fonts/truetype/lato", "Lato-Regular.ttf", "Lato-Bold.ttf", "Lato-Black.ttf"),
    ),
    Design(
        "font:open-sans",
        "train",
        _in(
            "/usr/share/fonts/truetype/open-sans", "OpenSans-Regular.ttf", "OpenSans-Bold.ttf", "OpenSans-CondBold.ttf"
        ),
    ),
    Design(
        "font:comfortaa",
        "train",
        _in("/usr/share/fonts/truetype/comfortaa", "Comfortaa-Regular.ttf", "Comfortaa-Bold.ttf"),
    ),
    Design("font:linux-libertine", "train", _in(_LIBERTINE, "LinLibertine_R.otf", "LinLibertine_RB.otf")),
    Design("font:linux-biolinum", "train", _in(_LIBERTINE, "LinBiolinum_R.otf", "LinBiolinum_RB.otf")),
    Design("font:go", "train", _in(_GO, "Go-Regular.ttf", "Go-Bold.ttf", "Go-Medium.ttf")),
    Design("font:go-mono", "heldout", _in(_GO, "Go-Mono.ttf", "Go-Mono-Bold.ttf")),
)

# SVG decks looked at on contact sheets and not used, with the reason.
REJECTED_SVG_DECKS: dict[str, str] = {
    "oxygen": "no corner index: the rank stands top-right, the suit sign top-left",
    "oxygen-air": "no corner index: the rank stands top-right, the suit sign top-left",
    "oxygen-white": "no corner index: the rank stands top-right, the suit sign top-left",
    "ancient-egyptians": "the jacks' suit signs stand far below the J and the lower indices are printed upright: "
    "5 of 24 labels wrong",
    "xskat-german": "German suits (Eicheln, Gruen, Rot, Schellen): not the French suits the detector reads",
    "future": "not a card design: ranks printed as binary digits on chip-like tiles, no suit signs",
}


def designs(split: SplitName = "all") -> tuple[Design, ...]:
    """The designs of one split (``all``: every design), in :data:`DESIGNS` order.

    Raises:
        ValueError: ``split`` is not ``train``, ``heldout`` or ``all``.

    >>> len(designs("train")) + len(designs("heldout")) == len(designs("all"))
    True
    """
    if split not in SPLITS:
        raise ValueError(f"designs must be one of {', '.join(SPLITS)}, got {split!r}")
    return tuple(d for d in DESIGNS if split == "all" or d.split == split)


def installed(font: str) -> bool:
    """Whether a font file of a design is on this machine (matplotlib's always are)."""
    return not Path(font).is_absolute() or Path(font).exists()


def font_families(split: SplitName) -> tuple[Design, ...]:
    """A split's font family designs whose files are all installed (a missing Debian font package leaves
    its families out; ``scripts/test.sh`` installs them)."""
    return tuple(d for d in designs(split) if d.kind == "font" and all(installed(f) for f in d.fonts))


def split_svg_decks(split: SplitName) -> tuple[str, ...]:
    """The names of a split's SVG decks (``dondorf`` ...).

    >>> split_svg_decks("heldout")
    ('gm-paris', 'xskat-french')
    """
    return tuple(d.short for d in designs(split) if d.kind == "svg")


def design_of_folder(folder: str | Path) -> Design | None:
    """The design a face folder shows, by its name (``english-pattern``, or an SVG deck's cache folder
    ``dondorf-360``); ``None`` for a folder of no known design (a user's own deck)."""
    name = Path(folder).name
    for design in DESIGNS:
        if design.kind == "folder" and design.short == name:
            return design
        if design.kind == "svg" and name.rsplit("-", 1)[0] == design.short and name.rsplit("-", 1)[-1].isdigit():
            return design
    return None


def design_of_font(font: str) -> Design | None:
    """The font family design a drawn deck's font file belongs to (``None``: a font of no design).

    >>> design_of_font("DejaVuSerif-Bold.ttf").name
    'font:dejavu-serif'
    """
    for design in DESIGNS:
        if font in design.fonts:
            return design
    return None


def check_folders(folders: Sequence[str | Path], split: SplitName) -> None:
    """Refuses face folders of the other split's designs, so that no held-out design enters training data.

    Raises:
        ValueError: a folder shows a design of another split.
    """
    if split == "all":
        return
    for folder in folders:
        design = design_of_folder(folder)
        if design is not None and design.split != split:
            raise ValueError(
                f"face folder {folder} is the {design.split} design {design.name}; "
                f"--designs {split} draws only {split} designs (see datasets/designs.md)"
            )
