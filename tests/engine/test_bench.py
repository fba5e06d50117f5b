"""The engine benchmark and its random legal games (sane numbers on tiny runs; no timing asserts)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from dokocam.engine import Card, Contract, ContractType, Rules, SoloKind
from dokocam.engine.bench import deal_hands, format_report, random_game, run
from dokocam.engine.errors import RecordError
from dokocam.engine.record import GameRecord, save_record

QC = Card.parse("QC")
REFERENCE_GAMES = Path(__file__).parents[1] / "reference_games"


def test_run_on_the_reference_and_random_games() -> None:
    paths = [str(p) for p in sorted(REFERENCE_GAMES.glob("*.json"))]
    report = run(paths, 0.05, random_games=3, seed=1)
    n_files = len(paths)
    assert n_files > 0
    assert report["files"] == n_files and report["random_records"] == 3
    assert report["records"] == n_files + 3 and report["skipped"] == 0
    assert report["passes"] >= 1
    assert report["games"] == report["passes"] * report["records"]
    assert report["seconds"] > 0
    assert report["games_per_second"] == pytest.approx(report["games"] / report["seconds"], rel=0.01)
    assert report["plays_per_second"] > report["games_per_second"]
    assert 0 < report["cpu_seconds"] and report["games_per_cpu_second"] > 0
    assert f"{report['games']} games in" in format_report(report)


def test_run_on_given_paths_only(tmp_path: Path) -> None:
    paths = [str(p) for p in sorted(REFERENCE_GAMES.glob("*.json"))[:2]]
    report = run(paths, 0.0, random_games=0)
    assert report["files"] == 2 and report["random_records"] == 0
    assert report["passes"] == 1 and report["games"] == 2


def test_incomplete_records_are_skipped(tmp_path: Path) -> None:
    game = random_game(random.Random(3))
    record = GameRecord.from_game(game)
    record.events = record.events[:10]
    path = tmp_path / "short.json"
    save_record(record, path)
    report = run([str(path)], 0.0, random_games=0)
    assert report["skipped"] == 1 and report["games"] == 0 and report["records"] == 0
    assert "1 incomplete records skipped" in format_report(report)


def test_a_broken_record_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text(json.dumps({"format": "dokocam-game/1", "players": ["A", "B", "C", "D"], "events": [{"seat": 7}]}))
    with pytest.raises(RecordError, match="event 0: seat must be 0..3"):
        run([str(path)], 0.0)


def test_random_games_repeat_for_a_seed() -> None:
    first = random_game(random.Random(42))
    second = random_game(random.Random(42))
    assert first.history == second.history and first.rules == second.rules
    assert random_game(random.Random(43)).history != first.history


def test_random_game_keeps_the_given_rules_and_contract() -> None:
    rules = Rules.pub()
    game = random_game(random.Random(5), rules, Contract.solo(SoloKind.JACKS, 2), players=("W", "X", "Y", "Z"))
    assert game.rules == rules and game.contract == Contract.solo(SoloKind.JACKS, 2)
    assert game.players == ("W", "X", "Y", "Z") and game.is_over


@pytest.mark.parametrize("seed", range(20))
def test_dealt_hands_fit_the_contract(seed: int) -> None:
    rng = random.Random(seed)
    rules = Rules(without_nines=bool(seed % 2), armut=True)
    for contract in (
        Contract.normal(),
        Contract.hochzeit(seed % 4),
        Contract.silent_hochzeit((seed + 1) % 4),
        Contract.armut(seed % 4, (seed + 2) % 4),
    ):
        hands = deal_hands(rng, rules, contract)
        assert [len(h) for h in hands] == [rules.hand_size] * 4
        holders = sorted(s for s, hand in enumerate(hands) for c in hand if c == QC)
        if contract.type is ContractType.NORMAL:
            assert len(set(holders)) == 2
        elif contract.type in (ContractType.HOCHZEIT, ContractType.SILENT_HOCHZEIT):
            assert holders == [contract.declarer] * 2
        counts = [0] * 24
        for hand in hands:
            for card in hand:
                counts[card.index] += 1
        assert tuple(counts) == rules.copies_of
