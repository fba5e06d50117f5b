"""``dokocam score``: human output, --json, broken files (exit 2), unfinished games (exit 1)."""

import json

import pytest
from doko_builders import GAME_158, make_game

from dokocam.service.cli import build_parser


def run(argv, capsys):
    args = build_parser().parse_args(argv)
    code = args.func(args)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture()
def finished(tmp_path):
    path = tmp_path / "game.json"
    game = make_game("2:re " + GAME_158, players=("Anna", "Ben", "Cem", "Dora"))
    path.write_text(json.dumps(game.to_dict()))
    return path


def test_score_prints_tricks_augen_items_and_points(finished, capsys):
    code, out, _ = run(["score", str(finished)], capsys)
    assert code == 0
    assert " 1. Anna:AC  Ben:9C  Cem:10C  Dora:KC" in out and "-> Anna (25)" in out
    assert "Augen: Re (Anna, Cem) 158 : Kontra (Ben, Dora) 82" in out
    assert "Winner: Re" in out and "+2  Re      Re angesagt" in out and "+1  Re      unter 90" in out
    assert "Points: Anna +6  Ben -6  Cem +6  Dora -6" in out


def test_score_json(finished, capsys):
    code, out, _ = run(["score", str(finished), "--json"], capsys)
    data = json.loads(out)
    assert code == 0
    assert data["winner"] == "re" and data["augen"] == {"re": 158, "kontra": 82}
    assert data["points"] == [6, -6, 6, -6] and data["flags"] == []
    said = next(item for item in data["items"] if item["kind"] == "re_said")
    assert (said["name"], said["party"], said["value"]) == ("Re angesagt", "re", 2)
    assert len(data["tricks"]) == 12 and data["tricks"][0]["winner"] == 0


def test_broken_file_names_the_event_and_exits_2(tmp_path, capsys):
    path = tmp_path / "broken.json"
    data = make_game("AC 9C").to_dict()
    data["events"][1]["play"] = "9X"
    path.write_text(json.dumps(data))
    code, out, err = run(["score", str(path)], capsys)
    assert code == 2 and out == ""
    assert "event 1: '9X' is not a card code" in err


def test_unfinished_game_exits_1_with_flags(tmp_path, capsys):
    path = tmp_path / "short.json"
    path.write_text(json.dumps(make_game("AC AC AC").to_dict()))
    code, out, err = run(["score", str(path)], capsys)
    assert code == 1 and "not over" in err and "third_copy" in out


def test_flags_are_printed(tmp_path, capsys):
    line = GAME_158.replace(
        "AC 9C 10C KC | AC 9C 10C KC | 9S AS KS 10S | AS 9S KS 10S",
        "AC 9S 10C KC | AC 9C 10C KC | 9S AS KS 10S | AS 9C KS 10S",
    )
    path = tmp_path / "renege.json"
    path.write_text(json.dumps(make_game(line).to_dict()))
    code, out, _ = run(["score", str(path)], capsys)
    assert code == 0 and "renege: seat 1 did not follow C in trick 1 but later played 9C" in out
    code, out, _ = run(["score", str(path), "--json", "--penalties"], capsys)
    assert json.loads(out)["penalty"].startswith("renege: seat 1")


def test_bench_engine_calls_engine_bench_run(monkeypatch, capsys):
    import sys
    import types

    calls = []
    fake = types.ModuleType("dokocam.engine.bench")
    fake.run = lambda paths, seconds: calls.append((paths, seconds)) or {"games_per_second": 1.0}
    monkeypatch.setitem(sys.modules, "dokocam.engine.bench", fake)
    code, out, _ = run(["bench", "engine", "a.json", "--seconds", "0.5"], capsys)
    assert code == 0 and calls == [(["a.json"], 0.5)] and json.loads(out) == {"games_per_second": 1.0}
