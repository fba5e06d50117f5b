"""Scoring per DDV 7.1-7.3 on hand-built games (Augen per trick are listed in doko_builders)."""

import random

import pytest
from doko_builders import GAME_120, GAME_158, GAME_TWO_FOXES, OPENING, make_game

from dokocam.engine import Contract, Party, Rules, SoloKind
from dokocam.engine.bench import random_game

RE, KONTRA = Party.RE, Party.KONTRA
# Tournament rules with Bockrunden (the pub preset would also turn Schweinchen on).
BOCK = Rules.from_dict({"bockrunden": True, "bock_after_heart_trick": False})


def names(result, party=None):
    return sorted(i.name for i in result.items if party is None or i.party is party)


def with_calls(line, calls):
    """Put ``calls`` before the first card (everyone still holds 12)."""
    return " ".join(calls) + " " + line


def check_sheet_rules(points):
    assert sum(points) == 0
    assert len({p % 2 for p in points}) == 1


def test_plain_win_with_unter_90_and_two_fuechse():
    result = make_game(GAME_158).result()
    assert result.winner is RE and result.augen == {RE: 158, KONTRA: 82}
    assert names(result) == ["Fuchs gefangen", "Fuchs gefangen", "gewonnen", "unter 90"]
    assert result.game_value == 4 and result.points == (4, -4, 4, -4)


def test_120_to_120_without_announcements_kontra_wins():
    result = make_game(GAME_120).result()
    assert result.augen == {RE: 120, KONTRA: 120}
    assert result.winner is KONTRA
    assert names(result, KONTRA) == ["gegen die Alten", "gewonnen"]
    assert names(result, RE) == ["Fuchs gefangen"]  # netted: 2 - 1
    assert result.points == (-1, 1, -1, 1)
    assert not result.bock_trigger  # no Bockrunden in the tournament rules


def test_120_to_120_with_kontra_only_re_wins():
    result = make_game(with_calls(GAME_120, ["1:kontra"])).result()
    assert result.winner is RE
    assert names(result) == ["Fuchs gefangen", "Kontra angesagt", "gewonnen"]
    assert result.game_value == 4 and result.points == (4, -4, 4, -4)


def test_120_to_120_with_re_announced_kontra_wins():
    result = make_game(with_calls(GAME_120, ["0:re"])).result()
    assert result.winner is KONTRA
    assert result.game_value == 1 + 2 + 1 - 1  # gewonnen, Re angesagt, gegen die Alten, minus Re's Fuchs
    assert result.points == (-3, 3, -3, 3)


def test_120_to_120_with_both_announced_kontra_wins():
    result = make_game(with_calls(GAME_120, ["0:re", "1:kontra"])).result()
    assert result.winner is KONTRA and result.game_value == 1 + 2 + 2 + 1 - 1


def test_both_absagen_failing_nobody_wins():
    result = make_game(with_calls(GAME_120, ["0:re", "0:no90", "1:kontra", "1:no90"])).result()
    assert result.winner is None
    # Each party reached 120 against the other's keine 90; Re keeps its Fuchs: 1 - 1 + 1.
    assert names(result, RE) == ["120 gegen keine 90", "Fuchs gefangen"]
    assert names(result, KONTRA) == ["120 gegen keine 90"]
    assert result.base_value == 1 and result.points == (1, -1, 1, -1)


def test_failed_absage_loses_and_the_opponents_collect_it():
    result = make_game(with_calls(GAME_120, ["0:re", "0:no60"])).result()
    # Re needed 181; Kontra needed 60 and has 120.
    assert result.winner is KONTRA
    assert names(result, KONTRA) == [
        "120 gegen keine 90",
        "90 gegen keine 60",
        "Re angesagt",
        "gegen die Alten",
        "gewonnen",
        "keine 60 abgesagt (Re)",
        "keine 90 abgesagt (Re)",
    ]
    assert result.game_value == 1 + 2 + 1 + 1 + 1 + 1 + 1 - 1


def test_fulfilled_absage():
    result = make_game(with_calls(GAME_158, ["2:re", "2:no90"])).result()
    assert result.winner is RE
    assert result.game_value == 1 + 1 + 2 + 1 + 2  # gewonnen, unter 90, Re, keine 90, 2 Füchse


def test_special_points_net_to_a_negative_value_for_the_winner():
    result = make_game(GAME_TWO_FOXES).result()
    assert result.augen == {RE: 124, KONTRA: 116} and result.winner is RE
    assert names(result, KONTRA) == ["Fuchs gefangen", "Fuchs gefangen"]  # two Füchse in one trick
    assert result.base_value == 1 - 2
    assert result.points == (-1, 1, -1, 1)


def test_doppelkopf_trick_of_40_augen():
    line = OPENING.replace("AC 9C 10C KC | AC 9C 10C KC", "AC 10C AC 10C | KC 9C 9C KC")
    game = make_game(line + GAME_158[len(OPENING) :])
    assert game.tricks[0].augen == 42 and game.tricks[1].augen == 8
    result = game.result()
    assert result.augen[RE] == 158 and names(result, RE).count("Doppelkopf") == 1
    assert result.game_value == 1 + 1 + 2 + 1  # gewonnen, unter 90, Füchse, Doppelkopf


ENDINGS = {
    # tricks 9-12 after OPENING; the Kreuz-Buben fall in the last trick
    "karlchen_wins": "10H QH JH AD | 10H QH JS AD | QS QD JD 10D | JC KD JC 9D",
    "karlchen_beaten": "10H QH JH AD | 10H QH JS AD | QD JD 9D 10D | QS JC KD JC",
}


def test_karlchen_only_when_the_kreuz_bube_wins_the_last_trick():
    won = make_game(OPENING + ENDINGS["karlchen_wins"]).result()
    assert str(make_game(OPENING + ENDINGS["karlchen_wins"]).tricks[-1].winning_card()) == "JC"
    assert won.flags == [] and "Karlchen" in names(won, RE)
    beaten = make_game(OPENING + ENDINGS["karlchen_beaten"]).result()
    assert beaten.flags == [] and "Karlchen" not in names(beaten)


def test_karlchen_fangen_and_fuchs_am_end_house_rules():
    rules = Rules.from_dict({"karlchen_fangen": True})
    caught = make_game(OPENING + ENDINGS["karlchen_beaten"], rules=rules).result()
    # Seat 2 (Re) wins the last trick with QS over both Kreuz-Buben of seats 3 and 1 (Kontra).
    last = make_game(OPENING + ENDINGS["karlchen_beaten"]).tricks[-1]
    assert [(s, str(c)) for s, c in last.plays] == [(2, "QS"), (3, "JC"), (0, "KD"), (1, "JC")]
    assert names(caught, RE).count("Karlchen gefangen") == 2
    fox_end = OPENING + "10H QH JC JS | 10H QH JC JH | QS QD JD 10D | AD KD AD 9D"
    plain = make_game(fox_end).result()
    house = make_game(fox_end, rules=Rules.from_dict({"fuchs_am_end": True})).result()
    assert plain.flags == [] and "Fuchs am End" not in names(plain)
    assert names(house, RE).count("Fuchs am End") == 1


def test_solo_counts_three_times_without_special_points():
    game = make_game(GAME_158, contract=Contract.solo(SoloKind.DIAMONDS, 2))
    result = game.result()
    # Seat 2 alone took tricks 8-12: 13 + 26 + 26 + 18 + 8 = 91.
    assert result.solo == 2 and result.augen == {RE: 91, KONTRA: 149}
    assert result.winner is KONTRA and names(result) == ["gewonnen"]
    assert result.points == (1, 1, -3, 1)


def test_solo_with_announcement_and_bock():
    result = make_game(with_calls(GAME_158, ["2:re"]), contract=Contract.solo(SoloKind.DIAMONDS, 2), bock=1).result()
    assert result.base_value == 3 and result.game_value == 6
    assert result.points == (6, 6, -18, 6)
    check_sheet_rules(result.points)


def test_unannounced_silent_hochzeit_is_scored_as_a_solo():
    # Seat 0 plays both Kreuz-Damen.
    line = OPENING.replace("JH QC JS 10D | QS QD QC KD", "JH QC JS 10D | QC QD QS KD")
    result = make_game(line + "10H QH JC AD | 10H QH JC AD | QS QD JS 10D | JH JD KD 9D").result()
    assert result.solo == 0 and result.parties == (RE, KONTRA, KONTRA, KONTRA)
    check_sheet_rules(result.points)
    assert result.points[0] == -3 * result.points[1]


def test_hochzeit_without_partner_is_a_solo_for_the_declarer():
    # Seat 0 holds both Kreuz-Damen (trick 8 puts the second one in its hand, as a Hochzeit needs).
    game = make_game(GAME_158.replace("QS QD QC KD", "QC QD QS KD"), contract=Contract.hochzeit(0))
    # Seat 0 wins tricks 1 and 2, seat 1 trick 3: seat 1 is the partner.
    assert game.hochzeit_partner == 1 and game.result().solo is None
    alone = make_game("AC 9C 10C KC | AC 9C 10C KC | AS 9S KS 10S", contract=Contract.hochzeit(0))
    assert alone.hochzeit_partner is None and alone.plays_alone == 0
    # A whole game without a partner: the declarer's result counts three times.
    for seed in range(100):
        game = random_game(random.Random(seed), Rules.tournament(), Contract.hochzeit(0))
        if game.hochzeit_partner is None:
            break
    assert game.hochzeit_partner is None and game.result().solo == 0
    assert game.result().points[0] == -3 * game.result().points[1]


def test_bock_trigger_under_pub_rules_after_120():
    assert make_game(GAME_120, rules=BOCK).result().bock_trigger
    assert not make_game(GAME_158, rules=BOCK).result().bock_trigger


def test_heart_trick_and_lost_announcement_trigger_bock():
    assert make_game(with_calls(GAME_158, ["1:kontra"]), rules=BOCK).result().bock_trigger
    assert not make_game(with_calls(GAME_158, ["0:re"]), rules=BOCK).result().bock_trigger
    # Trick 5 of every hand-built game is four plain Herz cards.
    hearts_only = Rules.from_dict({"bockrunden": True, "bock_after_heart_trick": True, "bock_after_120": False})
    assert make_game(GAME_158, rules=hearts_only).result().bock_trigger
    no_hearts = Rules.from_dict({"bockrunden": True, "bock_after_heart_trick": False})
    assert not make_game(GAME_158, rules=no_hearts).result().bock_trigger


def test_result_only_when_over():
    with pytest.raises(ValueError, match="not over"):
        make_game(OPENING).result()


def test_result_to_dict_is_json_ready():
    import json

    data = make_game(GAME_158).result().to_dict()
    assert json.loads(json.dumps(data))["points"] == [4, -4, 4, -4]
    assert data["winner"] == "re" and data["augen"] == {"re": 158, "kontra": 82}
    under = next(item for item in data["items"] if item["kind"] == "under_90")
    assert (under["name"], under["name_en"], under["party"], under["value"]) == ("unter 90", "under 90", "re", 1)


def test_against_schwarz_takes_one_trick_to_win_and_30_augen_for_the_point():
    # Re says schwarz; Kontra wins with its 4 tricks (82 Augen) and gets the point for 30 Augen.
    result = make_game(with_calls(GAME_158, ["0:re", "0:black"])).result()
    assert result.winner is KONTRA and "30 gegen schwarz" in names(result, KONTRA)
    # Kontra says schwarz and loses; Re reached 158 against it: 120, 90, 60 and 30 points.
    result = make_game(with_calls(GAME_158, ["1:kontra", "1:black"])).result()
    assert result.winner is RE
    assert {"120 gegen keine 90", "90 gegen keine 60", "60 gegen keine 30", "30 gegen schwarz"} <= set(
        names(result, RE)
    )


def test_a_trick_below_30_augen_wins_against_schwarz_without_the_point():
    # Re (seats 0, 2) takes eleven tricks; seat 1 (Kontra) takes only the last: 9D JH KD JD = 8 Augen.
    line = (
        "AC 9C 10C KC | AC 9C 10C KC | AS 9S KS 10S | AS 9S KS 10S | AH 9H KH 9H | AH KH JD 9D | "
        "QC JH JS 10D | QS QD QC KD | 10H QH JC AD | 10H QH JC AD | QS QD JS 10D | 9D JH KD JD"
    )
    game = make_game(with_calls(line, ["0:re", "0:black"]))
    assert game.flags == [] and game.tricks[-1].winner() == 1
    result = game.result()
    assert result.augen == {RE: 232, KONTRA: 8} and result.winner is KONTRA
    assert names(result, KONTRA) == [
        "Re angesagt",
        "gegen die Alten",
        "gewonnen",
        "keine 30 abgesagt (Re)",
        "keine 60 abgesagt (Re)",
        "keine 90 abgesagt (Re)",
        "schwarz abgesagt (Re)",
    ]
    assert names(result, RE) == ["Fuchs gefangen", "Fuchs gefangen"]
    assert result.base_value == 1 + 2 + 4 + 1 - 2 and result.points == (-6, 6, -6, 6)
