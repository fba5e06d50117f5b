"""The README's Python examples run as written (with a photo and a game record where they expect them)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)


def test_the_readme_has_the_three_examples() -> None:
    assert len(BLOCKS) == 3
    assert all(len(block.strip().splitlines()) <= 7 for block in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS, ids=["detect", "follow", "score"])
def test_example_runs(
    block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(ROOT / "datasets" / "synth-sample" / "images" / "val" / "0000000.jpg", tmp_path / "photo.jpg")
    shutil.copy(ROOT / "tests" / "reference_games" / "82187246.json", tmp_path / "game.json")
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip()
