"""The ``dokocam`` command line.

Each folder owns its subcommands (``engine/cli.py``, ``vision/cli.py``, ``service/commands.py``);
this module only stitches them into one parser. Subcommand modules must not import heavy
libraries (torch, ultralytics, cv2) at module level, so ``dokocam score`` stays instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Modules providing ``register(subparsers) -> None``; each registered parser sets ``func``,
# a callable taking the parsed namespace and returning an exit status.
_COMMAND_MODULES = ("dokocam.engine.cli", "dokocam.vision.cli", "dokocam.service.commands")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dokocam",
        description="A camera assistant for a real Doppelkopf table.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue  # an area not built yet contributes no commands
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
