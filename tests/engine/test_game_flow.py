"""Game flow: turn order, flags (renege proof, third copy, out of turn, incomplete trick),
strict games, legal cards, party knowledge, undo/replay, Dullen and Schweinchen."""

import pytest
from doko_builders import GAME_120, GAME_158, hands_of, make_game, play_line

from dokocam.engine import (
    Call,
    CallEvent,
    Card,
    Contract,
    Game,
    IllegalPlayError,
    InvalidCardError,
    Party,
    PlayEvent,
    Rules,
    SchweinchenEvent,
    SoloKind,
)

RE, KONTRA = Party.RE, Party.KONTRA


def kinds(game):
    return [flag.kind for flag in game.flags]


def test_turn_order_and_trick_leader():
    game = make_game("9C AC KC 10C")
    assert game.tricks[0].winner() == 1 and game.to_move == 1 and game.trick_number == 1
    assert game.current_trick.leader == 1 and game.current_trick.plays == []
    assert make_game(GAME_158).is_over and make_game(GAME_158).to_move is None


def test_renege_is_proven_by_a_later_card_of_the_suit():
    # Seat 1 trumps the Kreuz lead in trick 1 and leads Kreuz in trick 2.
    game = make_game("AC QD 10C KC | 9C")
    (flag,) = game.flags
    assert (flag.kind, flag.seat, flag.trick, str(flag.card)) == ("renege", 1, 0, "9C")
    assert "did not follow C in trick 1" in flag.message


def test_not_following_is_no_renege_until_proven():
    game = make_game("AC QD 10C KC | QC JS JH KD")
    assert game.flags == []


def test_renege_follows_the_contracts_suits():
    # In a Damensolo the Herz-Zehn is plain Herz: seat 1 discarding Pik on Herz and later
    # playing the Herz-Zehn proves a renege; in the normal game it is a trump.
    line = "AH 9S KH 9H | 10H"
    solo = make_game(line, contract=Contract.solo(SoloKind.QUEENS, 0))
    assert kinds(solo) == []  # seat 0 won trick 1 and leads; seat 1 has not played again
    solo = make_game(line + " 10H", contract=Contract.solo(SoloKind.QUEENS, 0))
    assert kinds(solo) == ["renege"] and solo.flags[0].seat == 1
    normal = make_game(line + " 10H")
    assert kinds(normal) == []


def test_third_copy_and_out_of_turn_are_flags_not_errors():
    game = make_game("AC AC")
    game.play(3, "AC")  # seat 2 was to move
    assert kinds(game) == ["out_of_turn", "third_copy"]
    assert game.flags[0].seat == 3 and "seat 2 was to move" in game.flags[0].message
    game.play(2, "KC")
    assert game.tricks[0].winner() == 0 and game.to_move == 0


def test_nines_are_extra_cards_without_nines():
    game = make_game("9C", rules=Rules.from_dict({"without_nines": True}))
    assert kinds(game) == ["third_copy"] and "deck holds 0" in game.flags[0].message


def test_close_trick_flags_an_incomplete_trick():
    game = make_game("AC 9C 10C")
    game.close_trick()
    assert kinds(game) == ["incomplete_trick"] and game.tricks[0].winner() == 0 and game.to_move == 0
    with pytest.raises(IllegalPlayError):
        game.close_trick()


def test_bad_input_raises():
    game = Game()
    with pytest.raises(InvalidCardError):
        game.play(0, "ZZ")
    with pytest.raises(IllegalPlayError, match="seat must be 0..3"):
        game.play(4, "AC")
    with pytest.raises(IllegalPlayError, match="game is over"):
        make_game(GAME_158).play(0, "AC")


def test_strict_games_with_hands_raise_instead_of_flagging():
    hands = hands_of(GAME_158)
    game = Game(hands=hands, strict=True)
    with pytest.raises(IllegalPlayError, match="seat 0 is to move"):
        game.play(1, "9C")
    with pytest.raises(IllegalPlayError, match="does not hold"):
        game.play(0, "10H")
    play_line(game, "AC")
    with pytest.raises(IllegalPlayError, match="must follow C"):
        game.play(1, "QD")
    play_line(game, GAME_158[3:])
    assert game.is_over and game.flags == [] and game.result().points == (4, -4, 4, -4)
    with pytest.raises(ValueError, match="needs the hands"):
        Game(strict=True)


def test_legal_cards_follow_suit_when_possible():
    game = Game(hands=hands_of(GAME_158))
    assert len(game.legal_cards(0)) == len(set(hands_of(GAME_158)[0]))
    game.play(0, "AC")
    assert [str(c) for c in game.legal_cards(1)] == ["9C"]
    play_line(game, "9C 10C KC | AC 9C 10C KC | 9S AS KS 10S | AS 9S KS 10S | AH 9H KH 9H | AH KH")
    # Seat 3 has no Herz left: every card is legal.
    assert sorted(map(str, game.legal_cards(3))) == sorted(set(map(str, game.hand(3).elements())))


def test_parties_as_the_cards_and_calls_reveal_them():
    game = Game()
    assert game.parties() == (None, None, None, None)
    play_line(game, "QC")
    assert game.parties() == (RE, None, None, None)
    game.call(1, Call.KONTRA)
    assert game.parties() == (RE, KONTRA, None, None)
    play_line(game, "9C QC")
    assert game.parties() == (RE, KONTRA, RE, KONTRA)
    solo = Game(contract=Contract.solo(SoloKind.JACKS, 3))
    assert solo.parties() == (KONTRA, KONTRA, KONTRA, RE)
    armut = Game(Rules.from_dict({"armut": True}), Contract.armut(1, 2))
    assert armut.parties() == (KONTRA, RE, RE, KONTRA)


def test_hands_tell_the_truth_before_the_cards_do():
    game = Game(hands=hands_of(GAME_158))
    assert game.parties() == (None, None, None, None)  # the camera's view
    game.call(2, Call.RE)  # seat 2 holds a Kreuz-Dame
    assert game.parties()[2] is RE


def test_undo_and_replay_rebuild_the_same_state():
    game = make_game("0:re AC 9C 10C KC | AC QD")
    before = (list(game.history), [t.plays for t in game.tricks], game.current_trick.plays, game.calls)
    event = game.undo()
    assert event == PlayEvent(1, Card.parse("QD"))
    assert game.to_move == 1 and len(game.current_trick.plays) == 1
    game.play(1, "QD")
    assert (list(game.history), [t.plays for t in game.tricks], game.current_trick.plays, game.calls) == before
    again = Game.replay(game.rules, game.contract, game.players, game.history)
    assert again.history == game.history and again.flags == game.flags and again.calls == game.calls
    assert game.history[0] == CallEvent(0, Call.RE)


def test_second_dulle_beats_the_first_with_the_switch():
    line = "10H QC 10H 9D"
    assert make_game(line).tricks[0].winner() == 0
    assert make_game(line, rules=Rules.from_dict({"second_dulle_beats_first": True})).tricks[0].winner() == 2


def test_second_dulle_exception_in_the_last_trick():
    rules = Rules.from_dict({"second_dulle_beats_first": True, "second_dulle_except_last_trick": True})
    head = GAME_158.rsplit("|", 1)[0].replace("10H QH JC AD | 10H QH JC AD", "QH QH JC AD | JH JD JC AD")
    game = make_game(head + "| 10H KD 10H 9D", rules=rules)
    assert game.tricks[-1].winner() == game.tricks[-1].leader  # first Dulle wins the last trick
    other = make_game(head + "| 10H KD 10H 9D", rules=Rules.from_dict({"second_dulle_beats_first": True}))
    assert other.tricks[-1].winner() == (other.tricks[-1].leader + 2) % 4


def test_schweinchen_from_the_hands():
    hands = hands_of(GAME_158)  # seat 1 holds both Karo-Asse
    pub = Game(Rules.pub(), hands=hands)
    assert pub.schweinchen_seat == 1
    assert str(pub.order.suit_class and [str(c) for c in pub.order.trumps_high_to_low][0]) == "AD"
    assert Game(hands=hands).schweinchen_seat is None
    assert Game(Rules.pub(), Contract.solo(SoloKind.DIAMONDS, 1), hands=hands).schweinchen_seat is None


def test_schweinchen_seen_by_the_camera_rewrites_the_tricks():
    # Seat 1 plays both Karo-Asse (tricks 9 and 10): they were Schweinchen from the start.
    game = make_game(GAME_158.rsplit("|", 3)[0], rules=Rules.pub())
    assert game.schweinchen_seat is None and game.tricks[8].winner() == 2
    play_line(game, "| 10H QH JC AD")
    assert game.schweinchen_seat == 1 and game.tricks[8].winner() == 1
    game.undo()
    assert game.schweinchen_seat is None and game.tricks[8].winner() == 2


def test_penalty_for_a_proven_renege_on_request():
    # Seat 1 discards 9S on the Kreuz lead of trick 1 and plays 9C in trick 2; Augen stay 120:120.
    line = GAME_120.replace(
        "AC 9C 10C KC | AC 9C 10C KC | 9S AS KS 10S | AS 9S KS 10S",
        "AC 9S 10C KC | AC 9C 10C KC | 9S AS KS 10S | AS 9C KS 10S",
    )
    game = make_game("1:kontra " + line)
    assert [(f.kind, f.seat, f.trick, str(f.card)) for f in game.flags] == [("renege", 1, 0, "9C")]
    plain = game.result()
    assert plain.augen[RE] == 120 and plain.winner is RE and plain.penalty is None  # Kontra-only: Re 120
    clean = make_game(line).result()
    assert clean.winner is KONTRA
    penalized = make_game(line).result(penalties=True)
    assert penalized.winner is RE and "DDV 9.3" in penalized.penalty  # seat 1 is Kontra
    assert [i.name for i in penalized.items] == ["gewonnen"] and penalized.points == (1, -1, 1, -1)


def test_a_renege_in_a_decided_game_counts_as_played():
    from dokocam.engine.scoring import _decided_before

    game = make_game(GAME_158)
    side = [0, 1, 0, 1]
    # Re has 50 Augen after trick 2, 132 after trick 10 (121 needed without announcements).
    assert not _decided_before(game, side, 2, [False, False], [0, 0])
    assert _decided_before(game, side, 10, [False, False], [0, 0])
    # After Re's keine 90 it needs 151: 150 after trick 11 is not yet decided.
    assert not _decided_before(game, side, 11, [True, False], [1, 0])
    # Kontra only: Re needs 120 and has 132.
    assert _decided_before(game, side, 10, [False, True], [0, 0])


def test_hochzeit_hands_must_hold_both_kreuz_damen():
    from dokocam.engine import RulesError

    hands = hands_of(GAME_158)  # seats 0 and 2 hold one Kreuz-Dame each
    with pytest.raises(RulesError, match="needs both Kreuz-Damen in the hand of seat 0"):
        Game(contract=Contract.hochzeit(0), hands=hands)
    with pytest.raises(RulesError, match="Armut is not played"):
        Game(contract=Contract.armut(0, 1))


def test_hands_must_match_the_deck():
    from dokocam.engine import RulesError

    hands = hands_of(GAME_158)
    hands[0][0], hands[1][0] = hands[1][0], "QC"
    with pytest.raises(RulesError, match="the hands hold"):
        Game(hands=hands)
    with pytest.raises(RulesError, match="has 11 cards"):
        Game(hands=[h[:11] for h in hands])


def test_schweinchen_announced_with_the_first_karo_ass():
    game = Game(Rules.pub())
    game.announce_schweinchen(0)
    play_line(game, "AD 10H 9D 9D")
    assert game.tricks[0].winner() == 0 and game.schweinchen_seat == 0
    # Said after the card was seen: the trick is followed again.
    late = make_game("AD 10H 9D 9D", rules=Rules.pub())
    assert late.tricks[0].winner() == 1
    late.announce_schweinchen(0)
    assert late.tricks[0].winner() == 0 and late.to_move == 0
    again = Game.replay(late.rules, late.contract, late.players, late.history)
    assert again.tricks[0].winner() == 0
    assert late.undo() == SchweinchenEvent(0) and late.tricks[0].winner() == 1


def test_schweinchen_announcement_is_checked():
    from dokocam.engine import IllegalCallError

    with pytest.raises(IllegalCallError, match="not played under these rules"):
        Game().announce_schweinchen(0)
    with pytest.raises(IllegalCallError, match="not played under these rules"):
        Game(Rules.pub(), Contract.solo(SoloKind.DIAMONDS, 0)).announce_schweinchen(0)
    game = make_game("AD", rules=Rules.pub())
    with pytest.raises(IllegalCallError, match="seat 0 played a Karo-Ass"):
        game.announce_schweinchen(1)
    with pytest.raises(IllegalCallError, match="does not hold both"):
        Game(Rules.pub(), hands=hands_of(GAME_158)).announce_schweinchen(0)
