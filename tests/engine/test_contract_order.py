"""Trump orders and plain-suit orders for every contract; tricks and their winners."""

import pytest

from dokocam.engine import Card, Contract, ContractType, RulesError, SoloKind, Suit, Trick


def codes(cards):
    return [str(c) for c in cards]


NORMAL_TRUMPS = ["10H", "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD", "AD", "10D", "KD", "9D"]


@pytest.mark.parametrize(
    "contract",
    [
        Contract.normal(),
        Contract.hochzeit(1),
        Contract.silent_hochzeit(2),
        Contract.armut(0, 3),
        Contract.solo(SoloKind.DIAMONDS, 1),
    ],
)
def test_normal_trump_order(contract):
    order = contract.card_order()
    assert codes(order.trumps_high_to_low) == NORMAL_TRUMPS
    assert codes(order.plain_high_to_low(Suit.CLUBS)) == ["AC", "10C", "KC", "9C"]
    assert codes(order.plain_high_to_low(Suit.HEARTS)) == ["AH", "KH", "9H"]
    assert order.plain_high_to_low(Suit.DIAMONDS) == []


def test_colour_solo_orders():
    clubs = Contract.solo(SoloKind.CLUBS, 0).card_order()
    assert codes(clubs.trumps_high_to_low) == NORMAL_TRUMPS[:9] + ["AC", "10C", "KC", "9C"]
    assert codes(clubs.plain_high_to_low(Suit.DIAMONDS)) == ["AD", "10D", "KD", "9D"]
    hearts = Contract.solo(SoloKind.HEARTS, 0).card_order()
    assert codes(hearts.trumps_high_to_low) == NORMAL_TRUMPS[:9] + ["AH", "KH", "9H"]
    assert codes(hearts.plain_high_to_low(Suit.SPADES)) == ["AS", "10S", "KS", "9S"]


def test_picture_solo_orders():
    queens = Contract.solo(SoloKind.QUEENS, 0).card_order()
    assert codes(queens.trumps_high_to_low) == ["QC", "QS", "QH", "QD"]
    assert codes(queens.plain_high_to_low(Suit.HEARTS)) == ["AH", "10H", "KH", "JH", "9H"]
    jacks = Contract.solo(SoloKind.JACKS, 0).card_order()
    assert codes(jacks.trumps_high_to_low) == ["JC", "JS", "JH", "JD"]
    assert codes(jacks.plain_high_to_low(Suit.DIAMONDS)) == ["AD", "10D", "KD", "QD", "9D"]
    fleischlos = Contract.solo(SoloKind.FLEISCHLOS, 0).card_order()
    assert fleischlos.trumps_high_to_low == []
    assert codes(fleischlos.plain_high_to_low(Suit.CLUBS)) == ["AC", "10C", "KC", "QC", "JC", "9C"]


def test_schweinchen_puts_both_karo_asse_on_top_but_not_in_solos():
    order = Contract.normal().card_order(schweinchen=True)
    assert codes(order.trumps_high_to_low)[:2] == ["AD", "10H"]
    solo = Contract.solo(SoloKind.DIAMONDS, 0).card_order(schweinchen=True)
    assert codes(solo.trumps_high_to_low) == NORMAL_TRUMPS


@pytest.mark.parametrize(
    "data",
    [
        {"type": "normal"},
        {"type": "hochzeit", "declarer": 1},
        {"type": "silent_hochzeit", "declarer": 3},
        {"type": "solo", "kind": "fleischlos", "declarer": 2},
        {"type": "armut", "declarer": 0, "partner": 2},
    ],
)
def test_contract_dict_round_trip(data):
    contract = Contract.from_dict(data)
    assert contract.to_dict() == data
    assert eval(repr(contract)) == contract  # noqa: S307


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"type": "bogus"}, "unknown contract type"),
        ({"type": "solo", "kind": "x", "declarer": 0}, "unknown solo kind"),
        ({"type": "hochzeit"}, "declarer must be a seat"),
        ({"type": "armut", "declarer": 1, "partner": 1}, "another player"),
    ],
)
def test_contract_errors_say_why(data, words):
    with pytest.raises(RulesError, match=words):
        Contract.from_dict(data)


def trick(contract, leader, codes_, second_dulle=False):
    t = Trick(leader, contract.card_order(), second_dulle)
    for i, code in enumerate(codes_.split()):
        t.add((leader + i) % 4, Card.parse(code))
    return t


def test_trick_led_suit_treats_trump_as_its_own_suit():
    assert trick(Contract.normal(), 0, "QH 9C 9C 9C").led_suit() == "trump"
    assert trick(Contract.normal(), 0, "KD 9C 9C 9C").led_suit() == "trump"
    assert trick(Contract.normal(), 0, "10H AH KH 9H").led_suit() == "trump"
    assert trick(Contract.solo(SoloKind.QUEENS, 0), 0, "10H AH KH 9H").led_suit() == "H"
    assert trick(Contract.solo(SoloKind.QUEENS, 0), 0, "10H AH KH 9H").winner() == 1


def test_trick_winner_rules():
    normal = Contract.normal()
    assert trick(normal, 2, "AC AC 10C KC").winner() == 2  # of two identical cards the first wins
    assert trick(normal, 1, "AC 9D 10C KC").winner() == 2  # any trump beats the led suit
    assert trick(normal, 0, "9C AS AH 10C").winner() == 3  # a discard never wins
    assert trick(normal, 3, "10H QC 10H JC").winner() == 3  # first Dulle wins by default
    assert trick(normal, 3, "10H QC 10H JC", second_dulle=True).winner() == 1
    t = trick(normal, 0, "AC 10C AC 10C")
    assert t.augen == 42 and t.is_complete and t.winning_card() == Card.parse("AC")


def test_contract_type_properties():
    assert Contract.solo(SoloKind.QUEENS, 1).is_solo and Contract.silent_hochzeit(0).is_solo
    assert not Contract.hochzeit(0).is_solo
    assert Contract.normal().type is ContractType.NORMAL and Contract.normal().name == "Normalspiel"
