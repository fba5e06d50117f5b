"""The ``dokocam`` command line: everyday verbs at the top, the kit in groups.

Like Ultralytics' ``yolo TASK MODE``, a user who knows one verb guesses the others::

    dokocam demo | serve | run | analyze | score | detect | eval | deck ...
    dokocam detector train|export|benchmark|build|ship
    dokocam dataset generate|crops|mine|faces|tiles|perturb|preview|render-game
    dokocam bench engine|table|live|dashboard|dataset
    dokocam table setup

Each area's module adds its verbs to these groups (``register(groups)``); this module only makes
the groups. Those modules import nothing heavy at module level (torch, Ultralytics, OpenCV), so
``dokocam score`` stays instant. The verbs' older flat names keep working, hidden from the help.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TypeAlias

from dokocam.engine import cli as engine_cli
from dokocam.service import commands
from dokocam.service.cli import dataset, deck, detector, table

# group -> (help, examples shown by `dokocam GROUP --help`)
GROUPS: dict[str, tuple[str, str]] = {
    "deck": (deck.HELP, deck.EXAMPLES),
    "detector": (
        "train, export, benchmark, build and ship the card detector",
        "  dokocam detector build runs/b1                      # the whole recipe, resumable\n"
        "  dokocam detector train locator --data runs/scenes/data.yaml --epochs 30\n"
        "  dokocam detector train classifier --data runs/scenes --out runs/cls\n"
        "  dokocam detector export --format onnx\n"
        "  dokocam detector benchmark --frames 100",
    ),
    "dataset": (
        "synthetic scenes, crops, tiles, hard examples, face folders and rendered games",
        "  dokocam dataset generate runs/scenes --images 2000 --seed 1\n"
        "  dokocam dataset crops runs/crops.npz --crops 50000 --seed 2\n"
        "  dokocam dataset perturb runs/scenes runs/scenes-dark --kinds dark\n"
        "  dokocam dataset render-game runs/game.mp4 --seed 7",
    ),
    "bench": (
        "speed and accuracy benchmarks",
        "  dokocam bench engine tests/reference_games/*.json\n"
        "  dokocam bench table --games 5 --detector model\n"
        "  dokocam bench live --hours 2\n"
        "  dokocam bench dashboard --pages 20\n"
        "  dokocam bench dataset",
    ),
    "table": (
        "the table's geometry: calibrate the trick area and the seats by hand",
        "  dokocam table setup table.json --center 640,360 --seat0 640,700 --radius 250",
    ),
}
TRAIN_EXAMPLES = (
    "  dokocam detector train locator --data runs/scenes/data.yaml --single-cls\n"
    "  dokocam detector train classifier --data runs/scenes --out runs/cls"
)

# The flat names the verbs had before the groups: kept one release, hidden from the help.
ALIASES: dict[str, tuple[str, ...]] = {
    "train": ("detector", "train", "locator"),
    "train-classifier": ("detector", "train", "classifier"),
    "train-refiner": ("detector", "train", "refiner"),
    "train-rescorer": ("detector", "train", "rescorer"),
    "ship-detector": ("detector", "ship"),
    "build-detector": ("detector", "build"),
    "export": ("detector", "export"),
    "bench-detect": ("detector", "benchmark"),
    "mine-crops": ("dataset", "mine"),
    "render-game": ("dataset", "render-game"),
    "bench-engine": ("bench", "engine"),
    "bench-table": ("bench", "table"),
    "bench-live": ("bench", "live"),
    "bench-dashboard": ("bench", "dashboard"),
    "table-setup": ("table", "setup"),
}

_Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _help_of(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    """The handler of a group given without a verb: prints the group's help and fails."""

    def show(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    return show


def _group(top: _Subparsers, name: str, help: str, examples: str, metavar: str = "VERB") -> _Subparsers:
    """A group of verbs under ``top``: called without one, it prints its help (with ``examples``)."""
    parser = top.add_parser(
        name,
        help=help,
        description=help[0].upper() + help[1:] + ".",
        epilog="examples:\n" + examples,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verbs = parser.add_subparsers(dest=f"{name}_verb", metavar=metavar)
    parser.set_defaults(func=_help_of(parser))
    return verbs


def _parser_at(top: _Subparsers, path: Sequence[str]) -> argparse.ArgumentParser:
    """The parser reached by the verbs ``path`` (``("detector", "train", "locator")``)."""
    parser: argparse.ArgumentParser = top.choices[path[0]]
    for verb in path[1:]:
        (verbs,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = verbs.choices[verb]
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dokocam",
        description="A camera assistant for a real Doppelkopf table.",
        epilog="examples:\n"
        "  dokocam demo                        # the dashboard on the bundled demo game\n"
        "  dokocam serve --source 0            # the dashboard for webcam 0\n"
        "  dokocam analyze game.mp4 --json game.json && dokocam score game.json\n"
        "  dokocam detect photo.jpg\n"
        "Every verb and group takes --help.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top = parser.add_subparsers(dest="command", metavar="COMMAND")
    groups: dict[str, _Subparsers] = {"top": top}
    for name, (help, examples) in GROUPS.items():
        groups[name] = _group(top, name, help, examples)
    groups["train"] = _group(
        groups["detector"],
        "train",
        "train one part of the detector: locator, classifier, refiner or rescorer",
        TRAIN_EXAMPLES,
        metavar="PART",
    )

    for module in (commands, table, engine_cli, detector, dataset, deck):
        module.register(groups)
    for old, path in ALIASES.items():
        # Registered by the object itself, so it parses exactly as the grouped verb does.
        top._name_parser_map[old] = _parser_at(top, path)
    top._choices_actions.sort(key=lambda action: action.dest in GROUPS)  # everyday verbs first
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    # Checked here, once for every verb that has --deck, before the verb opens a camera or a server.
    if getattr(args, "deck", None) is not None and deck.refuse_deck_option(args.deck):
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
