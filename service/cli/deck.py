"""``dokocam deck``: teach dokocam your own deck (enrol, list, show, remove, adapt again).

Enrolment and its checks live in :mod:`vision.decks`; this module only parses and prints. Messages
are German first, English second.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

EXAMPLES = (
    "  dokocam deck enroll omas-blatt auslage.jpg        # one photo of the 24 faces in the 4 x 6 layout\n"
    "  dokocam deck enroll omas-blatt fotos/              # a folder of photos named QC.jpg, 10H.png ...\n"
    "  dokocam deck list\n"
    "  dokocam deck show omas-blatt                       # writes a contact sheet of the 24 faces\n"
    "  dokocam deck adapt omas-blatt                      # adapt it again to today's detector\n"
    "Then read with it: dokocam detect foto.jpg --deck omas-blatt (also serve, demo, run, analyze, eval)."
)
HELP = "teach it your deck: enrol a deck from one photo, list, show, remove, adapt"
LAYOUT = (
    "layout: rows top to bottom Kreuz, Pik, Herz, Karo; columns left to right 9, 10, Bube, Dame, König, Ass; "
    "face up, a little apart, photographed from above (from any side of the table)."
)


def register(groups: Mapping[str, Any]) -> None:
    """Adds the ``deck`` group's verbs to the ``dokocam`` parser."""
    verbs = groups["deck"]

    enroll = verbs.add_parser(
        "enroll",
        help="enrol a deck from one photo of the layout or a folder of one photo per card",
        description="Enrol a deck: find and rectify its 24 faces, check them, adapt the card classifiers to them "
        "(a few minutes, with a progress bar) and store it under $DOKOCAM_HOME/decks/NAME. " + LAYOUT,
    )
    enroll.add_argument("name", metavar="NAME", help="the deck's name (letters, digits, - and _)")
    enroll.add_argument(
        "sources", metavar="SOURCE", nargs="+", help="one photo of the layout, or one folder of photos named QC.jpg ..."
    )
    enroll.add_argument(
        "--kreuz",
        choices=("oben", "unten", "links", "rechts"),
        help="where the Kreuz row lies in the photo, when the cards do not tell",
    )
    enroll.add_argument(
        "--yes", action="store_true", help="accept faces the check reads unsurely as another card without asking"
    )
    enroll.add_argument("--crops", type=int, default=None, help="crops rendered for the adaptation (default 10000)")
    enroll.add_argument("--epochs", type=int, default=None, help="passes over them per classifier (default 2)")
    enroll.add_argument("--no-adapt", action="store_true", help="store the faces only; adapt later with `deck adapt`")
    enroll.set_defaults(func=_enroll)

    verbs.add_parser("list", help="the enrolled decks").set_defaults(func=_list)

    show = verbs.add_parser("show", help="write a contact sheet of a deck's 24 faces")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--out", default=None, help="the image to write (default NAME-faces.png)")
    show.set_defaults(func=_show)

    remove = verbs.add_parser("remove", help="delete an enrolled deck")
    remove.add_argument("name", metavar="NAME")
    remove.set_defaults(func=_remove)

    adapt = verbs.add_parser("adapt", help="adapt a deck again to the shipped detector (after it changed)")
    adapt.add_argument("name", metavar="NAME")
    adapt.add_argument("--crops", type=int, default=None, help="crops rendered (default 10000)")
    adapt.add_argument("--epochs", type=int, default=None, help="passes over them per classifier (default 2)")
    adapt.set_defaults(func=_adapt)


def refuse_deck_option(name: str) -> bool:
    """Whether ``--deck NAME`` must be refused before a verb starts anything; prints why (German, then English).

    Every verb that reads with a deck (serve, demo, run, analyze, detect, eval, bench table) goes
    through this one check, so an unknown or unadapted deck reads the same everywhere.
    """
    from dokocam.vision.decks.store import DeckError, usable_deck

    try:
        usable_deck(name)
    except DeckError as exc:
        print(f"dokocam: --deck: {exc}", file=sys.stderr)
        return True
    return False


def _error(text: str) -> int:
    print(f"dokocam deck: {text}", file=sys.stderr)
    return 2


def _config(args: argparse.Namespace) -> Any:
    from dataclasses import replace

    from dokocam.vision.decks.adapt import AdaptConfig

    config = AdaptConfig()
    if args.crops is not None:
        if args.crops < 100:
            raise ValueError("--crops: mindestens 100 / at least 100")
        config = replace(config, crops=args.crops)
    if args.epochs is not None:
        if args.epochs < 1:
            raise ValueError("--epochs: mindestens 1 / at least 1")
        config = replace(config, epochs=args.epochs)
    return config


def _enroll(args: argparse.Namespace) -> int:
    import time

    import cv2

    from dokocam.vision.decks.adapt import adapt_folder
    from dokocam.vision.decks.enrol import EnrolmentError, enrol_folder, enrol_grid
    from dokocam.vision.decks.store import DeckError, check_name, save_deck

    start = time.monotonic()
    try:
        check_name(args.name)
        config = _config(args)
        if len(args.sources) != 1:
            raise EnrolmentError(
                "Gib genau ein Foto der Auslage oder einen Ordner mit einem Foto je Karte an.\n"
                "Give exactly one photo of the layout or one folder with a photo per card."
            )
        source = Path(args.sources[0])
        if source.is_dir():
            enrolment = enrol_folder(source)
        else:
            photo = cv2.imread(str(source), cv2.IMREAD_COLOR) if source.is_file() else None
            if photo is None:
                raise EnrolmentError(f"{source}: kein lesbares Foto.\n{source}: not a photo that can be read.")
            enrolment = enrol_grid(photo, kreuz=args.kreuz)
    except (EnrolmentError, DeckError, ValueError) as exc:
        return _error(f"{exc}\nNichts gespeichert. / Nothing saved.")
    if enrolment.unsure:
        print("Bitte bestätigen / please confirm:", file=sys.stderr)
        for line in enrolment.unsure:
            print("  " + line.replace("\n", "\n  "), file=sys.stderr)
        if not args.yes and not _confirmed():
            return _error(
                "nicht bestätigt, nichts gespeichert; prüfe die Plätze oder nimm --yes.\n"
                "not confirmed, nothing saved; check those places or pass --yes."
            )
    found = time.monotonic() - start
    manifest = {"source": enrolment.source, "kreuz": enrolment.turn, "unsure": enrolment.unsure}
    finish = None if args.no_adapt else (lambda folder: adapt_folder(folder, config, progress=True))
    try:
        deck = save_deck(args.name, enrolment.faces, manifest, finish)
    except (DeckError, OSError) as exc:
        return _error(f"{exc}\nNichts gespeichert. / Nothing saved.")
    total = time.monotonic() - start
    print(
        f"Deck {deck.name}: 24 Karten ({enrolment.source}), gefunden in {found:.0f} s, "
        f"fertig in {total:.0f} s -> {deck.path}\n"
        f"deck {deck.name}: 24 cards, found in {found:.0f} s, ready in {total:.0f} s; use it with --deck {deck.name}"
    )
    return 0


def _confirmed() -> bool:
    if not sys.stdin.isatty():
        return False
    answer = input("Stimmen diese Plätze? / Are these places right? [j/N] ").strip().lower()
    return answer in ("j", "ja", "y", "yes")


def _list(args: argparse.Namespace) -> int:
    from dokocam.vision.decks.store import list_decks

    decks = list_decks()
    if not decks:
        print("Keine Decks angelernt (dokocam deck enroll NAME FOTO). / No decks enrolled.")
        return 0
    for deck in decks:
        adapted = "angepasst / adapted" if deck.adapted else "nicht angepasst / not adapted"
        print(f"{deck.name}\t{deck.manifest.get('created', '?')}\t{deck.manifest.get('source', '?')}\t{adapted}")
    return 0


def _show(args: argparse.Namespace) -> int:
    import cv2

    from dokocam.vision.decks.store import DeckError, contact_sheet, load_deck

    try:
        deck = load_deck(args.name)
    except DeckError as exc:
        return _error(str(exc))
    out = Path(args.out or f"{deck.name}-faces.png")
    if not cv2.imwrite(str(out), contact_sheet(deck)):
        return _error(f"{out}: nicht schreibbar / cannot be written")
    adapted = deck.adapted
    print(f"{deck.name}: {deck.path}")
    if adapted:
        print(f"  angepasst / adapted: {adapted.get('seconds')} s, {adapted.get('crops')} crops")
    print(f"  Kontaktabzug / contact sheet: {out}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    from dokocam.vision.decks.store import DeckError, remove_deck

    try:
        path = remove_deck(args.name)
    except DeckError as exc:
        return _error(str(exc))
    print(f"Deck {args.name} gelöscht / removed ({path})")
    return 0


def _adapt(args: argparse.Namespace) -> int:
    from dokocam.vision.decks.adapt import adapt_deck
    from dokocam.vision.decks.store import DeckError

    try:
        deck = adapt_deck(args.name, _config(args))
    except (DeckError, ValueError) as exc:
        return _error(str(exc))
    print(f"Deck {deck.name} neu angepasst in {deck.adapted.get('seconds')} s / adapted again")
    return 0
