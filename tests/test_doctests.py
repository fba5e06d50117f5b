"""Every module's doctests, each module imported once under its installed ``dokocam.*`` name."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dokocam.engine
import dokocam.service
import dokocam.vision


def _modules() -> list[str]:
    names: list[str] = []
    for package in (dokocam.engine, dokocam.vision, dokocam.service):
        names.append(package.__name__)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return sorted(names)


MODULES = _modules()


def test_every_area_is_found() -> None:
    assert {"dokocam.engine.cards", "dokocam.vision.detections", "dokocam.service.main"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctests failed in {name}"
