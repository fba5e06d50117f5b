"""Announcements: timing (11/10/9/8/7 cards, without nines, Hochzeit), reply rule, order, party."""

import pytest
from doko_builders import GAME_158, make_game, play_line

from dokocam.engine import Call, Contract, Game, IllegalCallError, Party, Rules

TRICK = "AC 9C 10C KC | "


def test_re_allowed_until_the_second_own_card():
    game = make_game("AC")  # seat 0 holds 11 cards
    game.call(0, Call.RE)
    assert game.calls == [(0, Call.RE, Party.RE)]
    late = make_game(TRICK + "9S")  # seat 0 played twice: 10 cards
    with pytest.raises(IllegalCallError, match="holds 10 cards, Re needs at least 11"):
        late.call(0, Call.RE)
    late.call(1, Call.KONTRA)  # seat 1 still holds 11


@pytest.mark.parametrize(("call", "allowed_tricks"), [(Call.NO90, 2), (Call.NO60, 3), (Call.NO30, 4), (Call.BLACK, 5)])
def test_each_absage_needs_one_card_fewer(call, allowed_tricks):
    # Seat 1 says Re before any card; after k full tricks it holds 12 - k cards.
    ok = make_game("1:re " + TRICK * allowed_tricks)
    ok.call(1, call)
    late = make_game("1:re " + TRICK * (allowed_tricks + 1))
    with pytest.raises(IllegalCallError, match=f"needs at least {11 - call.level}"):
        late.call(1, call)


def test_without_nines_limits_drop_by_two():
    rules = Rules.from_dict({"without_nines": True})
    game = make_game("AC KC 10C KC", rules=rules)  # every seat holds 9 of 10
    game.call(1, Call.RE)  # needs 9
    game.call(1, Call.NO90)  # needs 8
    play_line(game, "AC KC 10C KC | AS KS 10S KS")  # 7 left
    game.call(1, Call.NO60)  # needs 7
    game.call(2, Call.KONTRA)  # a reply to keine 60: needs 7 - 1
    fresh = make_game("AC KC 10C KC | AS KS 10S KS", rules=rules)
    with pytest.raises(IllegalCallError, match="holds 8 cards, Re needs at least 9"):
        fresh.call(0, Call.RE)


def test_absage_only_after_own_party_announced():
    game = make_game("")
    with pytest.raises(IllegalCallError, match="no party has announced"):
        game.call(0, Call.NO90)
    game.call(1, Call.KONTRA)
    with pytest.raises(IllegalCallError, match="Re party has not announced Re yet"):
        play_line(game, "QC").call(0, Call.NO90)


def test_absage_includes_lower_ones_and_cannot_repeat():
    game = make_game("0:re 0:no60")
    with pytest.raises(IllegalCallError, match="already said keine 60"):
        game.call(0, Call.NO90)
    with pytest.raises(IllegalCallError, match="already said it"):
        game.call(0, Call.RE)


def test_reply_rule_allows_kontra_one_card_after_the_opponents_call():
    game = make_game("0:re " + TRICK + "AS")
    # Seat 1 holds 11 and could say Kontra anyway; seat 0 holds 10 now.
    game.call(0, Call.NO90)  # needs 10: seat 0 holds exactly 10
    play_line(game, "9S KS 10S")
    # Seat 1 holds 10: too late for Kontra (11) but a reply to keine 90 (10 - 1 = 9) is fine.
    game.call(1, Call.KONTRA)
    assert game.calls[-1] == (1, Call.KONTRA, Party.KONTRA)


def test_reply_rule_has_a_limit():
    game = make_game("0:re " + TRICK * 3)
    with pytest.raises(IllegalCallError, match=r"or 10 to reply to Re"):
        game.call(1, Call.KONTRA)  # holds 9, the reply needs 10


def test_wrong_party_is_refused_when_the_cards_tell():
    game = make_game("QC")  # seat 0 is Re
    with pytest.raises(IllegalCallError, match="is in the Re party"):
        game.call(0, Call.KONTRA)
    hands = deal_with_queens_at(1, 3)
    known = Game(hands=hands)
    with pytest.raises(IllegalCallError, match="is in the Kontra party"):
        known.call(0, Call.RE)
    known.call(3, Call.RE)


def deal_with_queens_at(a, b):
    """A deal in card order with one Kreuz-Dame each at seats ``a`` and ``b``."""
    from dokocam.engine import ALL_CARDS

    deck = [c for c in ALL_CARDS for _ in range(2) if str(c) != "QC"]
    hands: list[list[str]] = [[], [], [], []]
    rest = iter(deck)
    for seat in range(4):
        if seat in (a, b):
            hands[seat].append("QC")
        while len(hands[seat]) < 12:
            hands[seat].append(str(next(rest)))
    return hands


def test_hochzeit_calls_wait_for_the_partner_and_shift_the_limits():
    game = Game(contract=Contract.hochzeit(0))
    with pytest.raises(IllegalCallError, match="before the Hochzeit's Klärungsstich"):
        game.call(1, Call.KONTRA)
    play_line(game, "AC 9C 10C KC | AC 9C 10C KC | 9S AS KS 10S")  # seat 1 wins trick 3: partner
    assert game.hochzeit_partner == 1 and game.parties() == (Party.RE, Party.RE, Party.KONTRA, Party.KONTRA)
    # Clarified in trick 3 (DDV 6.4.2): the limits drop by two, Re/Kontra until 9 cards; everyone holds 9.
    game.call(2, Call.KONTRA)
    game.call(0, Call.RE)
    game.call(0, Call.NO90)  # needs 8
    assert game.required_cards(Call.RE) == 9


def test_game_record_replay_checks_calls_too():
    game = make_game(GAME_158)
    with pytest.raises(IllegalCallError, match="the game is over"):
        game.call(0, Call.RE)


def test_absage_by_a_seat_of_unknown_party_resolves_when_the_cards_tell():
    game = Game()
    game.call(0, Call.RE)
    game.call(1, Call.KONTRA)
    game.call(2, Call.NO90)  # seat 2 knows its side; the camera does not yet
    assert game.calls[-1] == (2, Call.NO90, None)
    play_line(game, "9C 9C QC")  # seat 2 plays a Kreuz-Dame: the Absage was Re's
    assert game.calls[-1] == (2, Call.NO90, Party.RE)
    with pytest.raises(IllegalCallError, match="already said keine 90"):
        game.call(0, Call.NO90)
