"""Registers the vision subcommands; each area of ``vision/`` owns its own ``cli`` module."""

from __future__ import annotations

import argparse
import importlib

_AREAS = ("dokocam.vision.synth.cli", "dokocam.vision.detector.cli", "dokocam.vision.table.cli")


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    for name in _AREAS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not name.startswith(exc.name):
                raise
            continue  # that area has no commands yet
        module.register(subparsers)
