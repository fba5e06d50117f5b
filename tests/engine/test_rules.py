"""Rules presets, switches and their round trip."""

import pytest

from dokocam.engine import Rules, RulesError, parse_cards, schmeissen_reason


def test_tournament_is_plain_ddv():
    rules = Rules.tournament()
    assert rules == Rules()
    assert not (rules.second_dulle_beats_first or rules.schweinchen or rules.bockrunden or rules.without_nines)
    assert rules.hand_size == 12 and sum(rules.copies_of) == 48


def test_pub_preset_follows_the_kneipen_rules():
    rules = Rules.pub()
    assert rules.second_dulle_beats_first and rules.schweinchen and rules.schmeissen and rules.bockrunden
    assert rules.to_dict() == {"preset": "pub"}


def test_from_dict_overrides_switches_and_to_dict_lists_only_differences():
    rules = Rules.from_dict({"preset": "tournament", "without_nines": True, "fuchs_am_end": True})
    assert rules.hand_size == 10 and sum(rules.copies_of) == 40
    assert rules.to_dict() == {"preset": "tournament", "without_nines": True, "fuchs_am_end": True}
    assert Rules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"preset": "casino"}, "unknown rules preset"),
        ({"dulle": True}, "unknown rule switch"),
        ({"schweinchen": "yes"}, "must be true or false"),
    ],
)
def test_bad_rules_say_why(data, words):
    with pytest.raises(RulesError, match=words):
        Rules.from_dict(data)


def test_bock_triggers_need_bockrunden():
    facts = dict(tie_120=True, lost_solo=False, heart_trick=False, lost_announced=False)
    assert not Rules.tournament().starts_bock(**facts)
    assert Rules.pub().starts_bock(**facts)
    assert not Rules.from_dict({"preset": "pub", "bock_after_120": False}).starts_bock(**facts)
    solo = dict(facts, tie_120=False, lost_solo=True)
    assert not Rules.pub().starts_bock(**solo)
    assert Rules.from_dict({"preset": "pub", "bock_after_lost_solo": True}).starts_bock(**solo)


def test_schmeissen_with_five_nines_or_five_kings():
    pub = Rules.pub()
    assert schmeissen_reason(parse_cards("KC KC KS KH KD QC AC"), pub) == "5 kings"
    assert schmeissen_reason(parse_cards("9C 9C 9S 9H KD QC AC"), pub) is None
    assert schmeissen_reason(parse_cards("KC KC KS KH KD"), Rules.tournament()) is None
