"""Cards: codes, indices, German names, Augen."""

from collections import Counter

import pytest

from dokocam.engine import ALL_CARDS, CARD_CODES, Card, InvalidCardError, Rank, Suit


def test_index_order_matches_the_detector_classes():
    assert CARD_CODES[:6] == ("9C", "10C", "JC", "QC", "KC", "AC")
    assert CARD_CODES[6] == "9S" and CARD_CODES[23] == "AD"
    for i, card in enumerate(ALL_CARDS):
        assert card.index == i
        assert Card.from_index(i) is card
        assert Card.parse(str(card)) == card


def test_parse_round_trips_and_repr_rebuilds():
    card = Card.parse("10H")
    assert str(card) == "10H"
    assert eval(repr(card)) == card  # noqa: S307 - repr must rebuild the value
    assert Card.parse("th") == card
    assert Card.parse(" qc ") == Card(Rank.QUEEN, Suit.CLUBS)


@pytest.mark.parametrize("bad", ["", "QX", "11H", "Q", None, 3])
def test_parse_rejects_non_codes(bad):
    with pytest.raises(InvalidCardError):
        Card.parse(bad)


@pytest.mark.parametrize("bad", [-1, 24, "3"])
def test_from_index_rejects_out_of_range(bad):
    with pytest.raises(InvalidCardError):
        Card.from_index(bad)


def test_german_names_and_symbols():
    assert Card.parse("QC").german_name == "Kreuz-Dame"
    assert Card.parse("10H").german_name == "Herz-Zehn"
    assert Card.parse("AD").german_name == "Karo-Ass"
    assert Card.parse("JC").symbol == "♣B"
    assert Card.parse("KS").symbol == "♠K"
    assert Card.parse("9D").symbol == "♦9"


def test_augen_sum_to_240_over_both_copies():
    assert {r: Card(r, Suit.CLUBS).augen for r in Rank} == {
        Rank.ACE: 11,
        Rank.TEN: 10,
        Rank.KING: 4,
        Rank.QUEEN: 3,
        Rank.JACK: 2,
        Rank.NINE: 0,
    }
    assert 2 * sum(card.augen for card in ALL_CARDS) == 240


def test_both_copies_are_equal_values_for_counters():
    hand = Counter([Card.parse("AD"), Card(Rank.ACE, Suit.DIAMONDS)])
    assert hand[Card.parse("AD")] == 2
    assert len({Card.parse("AD"), Card(Rank.ACE, Suit.DIAMONDS)}) == 1
