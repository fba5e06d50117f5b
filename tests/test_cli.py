"""The ``dokocam`` grammar: everyday verbs at the top, the kit in groups, the old flat names hidden aliases."""

from __future__ import annotations

import argparse

import pytest

from dokocam.service.cli import ALIASES, GROUPS, _parser_at, build_parser, main

EVERYDAY = ("demo", "serve", "run", "analyze", "score", "detect", "eval")


def _top(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:  # type: ignore[type-arg]
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action


def test_help_fits_one_screen_and_lists_verbs_and_groups_only() -> None:
    text = build_parser().format_help()
    assert len(text.splitlines()) <= 40
    listed = {line.split()[0] for line in text.splitlines() if line.startswith("    ") and line.split()}
    assert set(EVERYDAY) | set(GROUPS) <= listed
    assert not listed & set(ALIASES), "old flat names are hidden"


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_every_group_has_examples_that_name_its_own_verbs(group: str) -> None:
    parser = _top(build_parser()).choices[group]
    help_text = parser.format_help()
    assert "examples:" in help_text
    verbs = set(_top(parser).choices)
    for line in help_text.split("examples:")[1].splitlines():
        if line.strip().startswith("dokocam"):
            assert line.split()[1] == group and line.split()[2] in verbs, line


@pytest.mark.parametrize(("old", "path"), sorted(ALIASES.items()))
def test_an_old_name_parses_as_its_grouped_verb(old: str, path: tuple[str, ...]) -> None:
    top = _top(build_parser())
    assert top.choices[old] is _parser_at(top, path)


def test_a_group_without_a_verb_prints_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detector"]) == 2
    assert "train" in capsys.readouterr().out
    assert main(["detector", "train"]) == 2
    assert "classifier" in capsys.readouterr().out
