"""Frames of rendered whole games as a labelled folder: the table classifier's validation and fine-tuning data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dokocam.service.cli import main
from dokocam.vision.synth.gameframes import frame_designs, write_game_frames
from dokocam.vision.yolo import read_folder


def test_game_frames_are_labelled_deterministic_and_drawn_in_the_named_designs(tmp_path: Path) -> None:
    designs = frame_designs("font:liberation-mono,font:stix")
    done = list(write_game_frames(tmp_path / "a", designs, seed=5, games=2, frames=2))
    assert done == ["font:liberation-mono", "font:stix"]
    list(write_game_frames(tmp_path / "b", designs, seed=5, games=2, frames=2))
    names = sorted(p.name for p in (tmp_path / "a" / "labels" / "train").iterdir())
    assert names and names == sorted(p.name for p in (tmp_path / "b" / "labels" / "train").iterdir())
    for name in names:
        assert (tmp_path / "a" / "labels" / "train" / name).read_text() == (
            tmp_path / "b" / "labels" / "train" / name
        ).read_text()
    folder = read_folder(tmp_path / "a", split="train")
    rows = np.concatenate([np.loadtxt(p, ndmin=2) for p in sorted((tmp_path / "a" / "labels" / "train").iterdir())])
    assert len(folder.items) == len(names) and folder.kind == "corners" and len(rows) >= len(names)
    assert set(rows[:, 0].astype(int)) <= set(range(24))  # one of the 24 cards per visible corner index
    assert (rows[:, 1:] > 0).all() and (rows[:, 1:] < 1).all()


def test_the_verb_names_a_design_it_cannot_draw(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="--designs: design 'svg:oxygen' cannot be drawn in a game"):
        main(["dataset", "game-frames", str(tmp_path / "x"), "--designs", "svg:oxygen", "--seed", "1", "--games", "1"])
    assert not (tmp_path / "x").exists()
