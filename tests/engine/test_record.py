"""The dokocam-game/1 record: loading, errors that name the event, round trip."""

import json

import pytest
from doko_builders import GAME_158, hands_of, make_game

from dokocam.engine import Contract, RecordError, Rules, SoloKind
from dokocam.engine.record import GameRecord, load_record, save_record


def record_dict(**changes):
    data = {
        "format": "dokocam-game/1",
        "players": ["Anna", "Ben", "Cem", "Dora"],
        "rules": {"preset": "tournament"},
        "contract": {"type": "normal"},
        "events": [{"seat": 0, "play": "AC"}, {"seat": 1, "call": "re"}, {"seat": 1, "play": "QS"}],
    }
    data.update(changes)
    return data


def test_the_issue_example_loads():
    record = load_record(record_dict())
    game = record.to_game()
    assert game.players == ("Anna", "Ben", "Cem", "Dora")
    assert [str(e.card) for e in game.history if hasattr(e, "card")] == ["AC", "QS"]
    assert record.to_dict() == record_dict()


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"format": "dokocam-game/2"}, "format must be 'dokocam-game/1'"),
        ({"players": ["a", "b"]}, "players must be a list of 4"),
        ({"rules": {"preset": "x"}}, "rules: unknown rules preset"),
        ({"contract": {"type": "solo", "kind": "x", "declarer": 0}}, "contract: unknown solo kind"),
        ({"events": [{"seat": 0, "play": "AC"}, {"seat": 7, "play": "AC"}]}, "event 1: seat must be 0..3"),
        ({"events": [{"seat": 0, "play": "QQ"}]}, "event 0: 'QQ' is not a card code"),
        ({"events": [{"seat": 0}]}, "event 0: needs exactly one of 'play', 'call', 'announce' or 'claim'"),
        ({"events": [{"seat": 0, "call": "hurra"}]}, "event 0: 'hurra' is not a call"),
        ({"events": "AC"}, "events must be a list"),
        ({"hands": [["AC"]]}, "hands must be 4 lists"),
        ({"bock": -1}, "bock must be a whole number"),
    ],
)
def test_broken_records_name_the_reason(changes, words):
    with pytest.raises(RecordError, match=words):
        load_record(record_dict(**changes))


def test_rule_breaking_events_name_the_event_when_replayed():
    events = [
        {"seat": 0, "play": "AC"},
        {"seat": 1, "play": "9C"},
        {"seat": 2, "play": "10C"},
        {"seat": 3, "play": "KC"},
        {"seat": 0, "play": "AS"},
        {"seat": 0, "call": "re"},
    ]
    with pytest.raises(RecordError, match=r"event 5: seat 0 cannot say Re: it holds 10 cards"):
        load_record(record_dict(events=events)).to_game()


def test_extra_keys_are_kept_and_ignored(tmp_path):
    record = load_record(record_dict(expected={"points": [1, -1, 1, -1]}, source="somewhere"))
    assert record.extra == {"expected": {"points": [1, -1, 1, -1]}, "source": "somewhere"}
    path = tmp_path / "game.json"
    save_record(record, path)
    assert json.loads(path.read_text())["expected"] == {"points": [1, -1, 1, -1]}
    assert load_record(path).to_dict() == record.to_dict()


def test_game_round_trips_through_a_record_with_hands_and_bock():
    game = make_game(
        GAME_158,
        rules=Rules.from_dict({"fuchs_am_end": True}),
        contract=Contract.solo(SoloKind.DIAMONDS, 2),
        hands=hands_of(GAME_158),
        bock=1,
    )
    data = game.to_dict()
    assert data["bock"] == 1 and data["rules"] == {"preset": "tournament", "fuchs_am_end": True}
    again = load_record(json.loads(json.dumps(data))).to_game(strict=True)
    assert again.history == game.history and again.result().points == game.result().points


def test_unreadable_files(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RecordError, match="is not JSON"):
        load_record(bad)


def test_from_game_keeps_extra_keys():
    record = GameRecord.from_game(make_game("AC"), note="x")
    assert record.to_dict()["note"] == "x"


def test_a_closed_incomplete_trick_round_trips():
    game = make_game("AC 9C 10C")
    game.close_trick()
    data = json.loads(json.dumps(game.to_dict()))
    assert data["events"][-1] == {"close_trick": True}
    again = load_record(data).to_game()
    assert [f.kind for f in again.flags] == ["incomplete_trick"] and again.to_move == 0
    assert len(again.tricks) == 1


def test_schweinchen_announcement_round_trips():
    game = make_game("AD 10H 9D 9D", rules=Rules.pub())
    game.announce_schweinchen(0)
    data = json.loads(json.dumps(game.to_dict()))
    assert data["events"][-1] == {"seat": 0, "announce": "schweinchen"}
    assert load_record(data).to_game().tricks[0].winner() == 0
