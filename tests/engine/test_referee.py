"""The engine as a referee: DDV cases, camera-mode conflicts, the family rules of seed 000, the
Spielabkürzung and the message catalogue."""

from __future__ import annotations

import json
import random
import string

import pytest
from doko_builders import GAME_158, hands_of, make_game, play_line

from dokocam.engine import (
    Call,
    Card,
    Contract,
    FlagKind,
    Game,
    HochzeitPartner,
    IllegalCallError,
    IllegalPlayError,
    ItemKind,
    Party,
    Rules,
    SoloKind,
    UnresolvedError,
)
from dokocam.engine.bench import random_game
from dokocam.engine.messages import CATALOGUE, Message, Seat, register, text
from dokocam.engine.record import load_record
from dokocam.engine.rules import schmeissen_reason
from dokocam.engine.sheet import Partie, check_entries
from dokocam.service.cli import build_parser

FAMILY = Rules.family()


def kinds(game: Game) -> list[str]:
    return [flag.kind.value for flag in game.flags]


# -- DDV 6.4.2: the Hochzeit's Klärungsstich ------------------------------------------------------


def test_a_hochzeit_clarified_in_trick_one_keeps_the_limits() -> None:
    game = Game(contract=Contract.hochzeit(0))
    play_line(game, "9C AC 10C KC")  # seat 1 wins trick 1: the Klärungsstich is trick 1
    assert game.hochzeit_partner == 1 and game.hochzeit_decided_at == 1
    assert game.required_cards(Call.KONTRA) == 11
    play_line(game, "AC 9C KC 10C")  # everyone holds 10 now
    with pytest.raises(IllegalCallError, match="it holds 10 cards, Kontra needs at least 11"):
        game.call(2, Call.KONTRA)


def test_a_hochzeit_clarified_in_trick_two_moves_the_limits_by_one() -> None:
    game = Game(contract=Contract.hochzeit(0))
    play_line(game, "AC 9C 10C KC | 9S AS 10S KS")  # seat 0 wins trick 1, seat 1 trick 2
    assert game.hochzeit_partner == 1 and game.hochzeit_decided_at == 2
    game.call(2, Call.KONTRA)  # 10 cards are enough now
    assert game.required_cards(Call.NO90) == 9


def test_nobody_announces_before_the_klaerungsstich_the_hochzeit_player_neither() -> None:
    game = Game(contract=Contract.hochzeit(0))
    with pytest.raises(IllegalCallError, match="Klärungsstich"):
        game.call(0, Call.RE)
    play_line(game, "AC 9C 10C KC")  # seat 0 wins trick 1: still undecided
    with pytest.raises(IllegalCallError, match="Klärungsstich"):
        game.call(0, Call.RE)


# -- camera mode: scores that never break the sheet -------------------------------------------


def test_a_false_re_call_is_a_conflict_not_three_re_players() -> None:
    game = make_game("1:re " + GAME_158)  # seat 1 is Kontra: seats 0 and 2 play the Kreuz-Damen
    conflict = [f for f in game.flags if f.kind is FlagKind.PARTY_CONFLICT]
    assert len(conflict) == 1 and game.conflict is conflict[0]
    assert conflict[0].events[0] == 0  # the false call is named, with the Kreuz-Damen played
    assert {game.history[i].seat for i in conflict[0].events} == {0, 1, 2}
    assert "seat 0, seat 1, seat 2 would all be Re" in conflict[0].message
    assert "Platz 0, Platz 1, Platz 2 wären alle Re" in conflict[0].de
    with pytest.raises(UnresolvedError) as error:
        game.result()
    assert error.value.flag is game.conflict


def test_a_spade_queen_read_as_a_third_club_queen_is_a_conflict() -> None:
    # Trick 8 (QS QD QC KD): the Pik-Dame of seat 0 read as a Kreuz-Dame.
    game = make_game(GAME_158.replace("QS QD QC KD", "QC QD QC KD"))
    assert "third_copy" in kinds(game) and "party_conflict" in kinds(game)
    with pytest.raises(UnresolvedError):
        game.result()


def test_a_missing_club_queen_leaves_the_game_without_result() -> None:
    # Both Kreuz-Damen misread (as Herz-Damen): only the calls could tell the parties.
    game = make_game("0:re " + GAME_158.replace("QC", "QH"))
    assert game.conflict is not None and "only 0 Kreuz-Dame(n) seen" in game.conflict.message
    with pytest.raises(UnresolvedError):
        game.result()
    # One Kreuz-Dame seen (seat 0's) and a Re call by seat 2 name the Re party: scored as they say.
    named = make_game("2:re " + GAME_158.replace("QS QD QC KD", "QS QD QH KD"))
    assert named.conflict is None and named.result().parties == (Party.RE, Party.KONTRA, Party.RE, Party.KONTRA)


def test_correcting_the_false_call_brings_the_result_back() -> None:
    game = make_game("1:re " + GAME_158)
    events = list(game.history)
    fixed = Game.replay(game.rules, game.contract, game.players, events[1:])
    assert fixed.conflict is None and fixed.result().points == (4, -4, 4, -4)


def test_a_club_queen_outside_the_hochzeit_hand_is_a_conflict() -> None:
    game = make_game(GAME_158, contract=Contract.hochzeit(0))  # seat 2 plays a Kreuz-Dame
    assert game.conflict is not None and "seat 2 played a Kreuz-Dame but seat 0 holds both" in game.conflict.message


def test_with_the_hands_known_a_card_not_held_is_one_clear_flag() -> None:
    hands = hands_of(GAME_158)
    game = Game(hands=hands)
    game.play(0, "AC")
    game.play(1, "KD")  # seat 1 holds clubs, not the Karo-König
    assert kinds(game) == ["not_held"]
    assert game.flags[0].message == "seat 1 does not hold KD"
    assert game.flags[0].de == "Platz 1 hat Karo-König nicht auf der Hand"
    play_line(game, "10C KC | 9C")  # seat 1 leads a club later: no renege built on the KD
    assert kinds(game) == ["not_held"]


# -- dokocam score -----------------------------------------------------------------------------


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    args = build_parser().parse_args(argv)
    code = args.func(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_score_without_club_queens_and_an_absage_of_unknown_party(tmp_path, capsys) -> None:
    line = "0:re 1:kontra 2:no90 " + GAME_158.replace("QC", "QH")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(make_game(line).to_dict()))
    code, out, err = run(["score", str(path)], capsys)
    assert code == 1 and "party_conflict" in out and "no result" in err


def test_score_refuses_rules_given_as_a_list(tmp_path, capsys) -> None:
    record = make_game(GAME_158).to_dict()
    record["rules"] = ["pub"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    code, out, err = run(["score", str(path)], capsys)
    assert code == 2 and out == "" and "rules: rules must be an object like {'preset': 'tournament'}" in err


# -- Pflichtsolo in the record ------------------------------------------------------------------


def test_a_pflichtsolo_is_led_by_the_soloist() -> None:
    record = {
        "format": "dokocam-game/1",
        "players": ["A", "B", "C", "D"],
        "contract": {"type": "solo", "kind": "queens", "declarer": 2, "pflichtsolo": True},
        "events": [{"seat": 2, "play": "QC"}, {"seat": 3, "play": "QS"}],
    }
    game = load_record(record).to_game()
    assert game.flags == [] and game.to_move == 0 and game.tricks == []
    assert game.to_dict()["contract"] == record["contract"]
    # The same record without the key is a Lustsolo: Vorhand leads, the soloist played out of turn.
    del record["contract"]["pflichtsolo"]  # type: ignore[attr-defined]
    assert kinds(load_record(record).to_game()) == ["out_of_turn"]


def test_pflichtsolo_is_only_for_a_solo() -> None:
    record = {"format": "dokocam-game/1", "players": ["A", "B", "C", "D"], "events": []}
    record["contract"] = {"type": "normal", "pflichtsolo": True}
    with pytest.raises(ValueError, match="pflichtsolo is true or false and only for a solo"):
        load_record(record)


def test_the_sheet_writes_the_pflichtsolo_into_the_games_it_deals() -> None:
    partie = Partie(["A", "B", "C", "D"], Rules.from_dict({"pflichtsolo": True}), rounds=2)
    solo = Contract.solo(SoloKind.QUEENS, 2)
    game = partie.new_game(solo)
    assert game.contract.pflichtsolo and game.to_move == 2
    assert game.to_dict()["contract"]["pflichtsolo"] is True  # type: ignore[index]
    partie.record_points((-1, -1, 3, -1), solo_seat=2, contract="Damensolo")
    # Same dealer again; C's second solo is a Lustsolo, led by Vorhand.
    again = partie.new_game(solo)
    assert not again.contract.pflichtsolo and again.to_move == 0
    tournament = Partie(["A", "B", "C", "D"])
    assert not tournament.new_game(solo).contract.pflichtsolo


# -- the family preset (seed 000) ---------------------------------------------------------------


def test_the_family_preset() -> None:
    assert Rules.from_dict({"preset": "family"}) == FAMILY
    assert FAMILY.without_nines and FAMILY.hand_size == 10 and FAMILY.schwarze_sau and FAMILY.announce_by_trick
    assert FAMILY.hochzeit_partner is HochzeitPartner.FIRST_PLAIN_TRICK
    assert schmeissen_reason([Card.parse(c) for c in "KC KC KS KH KD QC".split()], FAMILY) == "5 kings"
    assert Rules.from_dict({"preset": "family", "hochzeit_partner": "first_trick"}).to_dict() == {
        "preset": "family",
        "hochzeit_partner": "first_trick",
    }
    with pytest.raises(ValueError, match="hochzeit_partner' must be one of"):
        Rules.from_dict({"hochzeit_partner": "the last trick"})
    game = random_game(random.Random(3), FAMILY, Contract.normal())
    assert len(game.tricks) == 10 and sum(t.augen for t in game.tricks) == 240


def _sau_games(count: int) -> list[Game]:
    found = []
    for seed in range(400):
        game = random_game(random.Random(seed), FAMILY, Contract.normal())
        if game.schwarze_sau is not None:
            found.append(game)
            if len(found) == count:
                break
    return found


def test_the_schwarze_sau_plays_alone_one_against_three() -> None:
    games = _sau_games(8)
    assert len(games) == 8
    for game in games:
        # Independently: the winner of the trick where the second Pik-Dame fell.
        spades = [(t, trick) for t, trick in enumerate(game.tricks) for _, c in trick.plays if str(c) == "QS"]
        sau = spades[1][1].winner()
        result = game.result()
        assert game.schwarze_sau == sau and result.solo == sau
        assert result.parties == tuple(Party.RE if s == sau else Party.KONTRA for s in range(4))
        others = [result.points[s] for s in range(4) if s != sau]
        assert len(set(others)) == 1 and result.points[sau] == -3 * others[0]
        check_entries(result.points)
        assert ItemKind.GEGEN_DIE_ALTEN not in [item.kind for item in result.items]


def test_the_hochzeit_partner_condition() -> None:
    line = "JH QH JS JC | KS AS 10S KS"  # seat 1 wins trick 1 (trump led), seat 2 trick 2 (Pik led)
    plain = make_game(line, rules=FAMILY, contract=Contract.hochzeit(0))
    assert plain.tricks[0].winner() == 1 and plain.tricks[1].winner() == 2
    assert plain.hochzeit_partner == 2 and plain.hochzeit_decided_at == 2
    tournament = make_game(line, contract=Contract.hochzeit(0))
    assert tournament.hochzeit_partner == 1
    trump = make_game(
        line, rules=Rules.from_dict({"hochzeit_partner": "first_trump_trick"}), contract=Contract.hochzeit(0)
    )
    assert trump.hochzeit_partner == 1


def test_family_announcements_are_timed_by_trick() -> None:
    game = Game(FAMILY)
    play_line(game, "AC 9C 10C KC")
    game.call(0, Call.RE)  # after trick 1, before trick 2: still in time
    game.play(0, "AS")
    game.call(1, Call.KONTRA)  # a reply to Re may come one trick later
    game.call(0, Call.NO90)  # keine 90 until the end of trick 2
    play_line(game, "10S KS AS | AH KH AH KH | AD")  # trick 4 is under way
    with pytest.raises(IllegalCallError, match="until the end of trick 3"):
        game.call(0, Call.NO60)
    late = play_line(Game(FAMILY), "AC 9C 10C KC | AS")
    with pytest.raises(IllegalCallError, match="Re can be said only until the end of trick 1"):
        late.call(0, Call.RE)


# -- DDV 5.4 Spielabkürzung ---------------------------------------------------------------------


def test_a_claim_scores_the_remaining_tricks_for_the_claimers_party() -> None:
    eight = " | ".join(GAME_158.split(" | ")[:8])
    game = make_game(eight)
    assert game.to_move == 2
    game.claim(2)  # Cem (Re) shows the cards: the last four tricks are Re's
    assert game.is_over and game.claimed is not None and game.claimed.tricks == 4
    result = game.result()
    assert result.augen == {Party.RE: 158, Party.KONTRA: 82} and result.tricks_won[Party.RE] == 8
    assert result.claimed == 4 and result.points == (2, -2, 2, -2)  # gewonnen, unter 90; no Füchse played
    again = load_record(game.to_dict()).to_game()
    assert again.claimed == game.claimed and again.result().points == result.points
    with pytest.raises(IllegalPlayError, match="game is over"):
        game.play(2, "10H")


def test_a_claim_waits_for_the_trick_and_the_klaerungsstich() -> None:
    game = make_game("AC 9C")
    with pytest.raises(IllegalPlayError, match="once the current trick is complete"):
        game.claim(0)
    hochzeit = Game(contract=Contract.hochzeit(0))
    with pytest.raises(IllegalPlayError, match="Klärungsstich"):
        hochzeit.claim(0)


# -- the message catalogue ---------------------------------------------------------------------


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# The engine's own keys: other parts register theirs (``service.*``) under their own rules, and whether they
# are registered yet depends on which tests ran first.
@pytest.mark.parametrize("key", sorted(k for k in CATALOGUE if not k.startswith("service.")))
def test_every_message_has_both_languages_with_the_same_parameters(key: str) -> None:
    de, en = CATALOGUE[key]
    assert de and en and _fields(de) == _fields(en), key


def test_the_catalogue_takes_more_keys_and_names_the_players() -> None:
    register({"test.at_table": ("{seat} sitzt am Tisch", "{seat} is at the table")})
    register({"test.at_table": ("{seat} sitzt am Tisch", "{seat} is at the table")})  # the same again is fine
    with pytest.raises(ValueError, match="already in the catalogue"):
        register({"test.at_table": ("anders", "other")})
    names = ("Anna", "Ben", "Cem", "Dora")
    assert text("test.at_table", "de", names=names, seat=Seat(1)) == "Ben sitzt am Tisch"
    error = pytest.raises(IllegalCallError, Game().call, 0, Call.NO90).value
    assert error.key == "call_refused" and error.params["seat"] == 0
    assert error.message.text("de", names) == (
        "Anna kann nicht keine 90 sagen: noch keine Partei hat Re oder Kontra angesagt"
    )
    assert isinstance(error.message, Message) and str(error) == error.en


# -- what the dashboard shows: the engine's items -------------------------------------------------


def test_special_points_during_play_and_in_a_solo_by_the_house_rule() -> None:
    nine = " | ".join(GAME_158.split(" | ")[:9])
    game = make_game(nine)  # trick 9: Re (seat 2) catches the Fuchs of seat 1
    items = game.special_points()
    assert [(i.kind, i.party, i.trick) for i in items] == [(ItemKind.FUCHS_GEFANGEN, Party.RE, 8)]
    assert items[0].to_dict()["name"] == "Fuchs gefangen" and items[0].to_dict()["special"] is True
    done = make_game(GAME_158)
    assert done.special_points() == done.result().special_items
    solo = Contract.solo(SoloKind.DIAMONDS, 2)  # seat 2 catches the Füchse of seat 1
    assert make_game(GAME_158, contract=solo).special_points() == []
    house = make_game(GAME_158, contract=solo, rules=Rules.from_dict({"solo_special_points": True}))
    assert house.special_points() and house.special_points() == house.result().special_items
