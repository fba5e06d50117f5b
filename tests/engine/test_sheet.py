"""The score sheet: seats and dealer rotation, length, Bock rounds, Pflichtsolo, checks, export."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import pytest

from dokocam.engine import Contract, Rules, SoloKind
from dokocam.engine.record import load_record
from dokocam.engine.sheet import (
    BockStacking,
    Partie,
    PartieOverError,
    PflichtsoloError,
    ScoreCheckError,
    SheetError,
    check_entries,
)

FOUR = ["Anna", "Ben", "Cem", "Dora"]
FIVE = ["Anna", "Ben", "Cem", "Dora", "Emil"]
NORMAL = (1, -1, -1, 1)  # seats 0 and 3 win a plain game


REFERENCE = Path(__file__).resolve().parents[1] / "reference_games"


def FakeRules(**switches: bool) -> Rules:  # noqa: N802 - reads like the value it builds
    return Rules(**switches)


@dataclass(frozen=True)
class FakeResult:
    points: tuple[int, int, int, int]
    bock_trigger: bool = False
    bock: int = 0


def play_normal(p: Partie, n: int, points: tuple[int, ...] = NORMAL) -> None:
    for _ in range(n):
        p.record_points(points)


# -- seats and rotation ----------------------------------------------------------------


def test_four_players_rotate_the_dealer_and_seat_vorhand_left_of_him() -> None:
    p = Partie(FOUR)
    seen = []
    for _ in range(5):
        deal = p.deal
        assert deal is not None
        seen.append((deal.dealer, deal.seats))
        assert deal.seats[-1] == deal.dealer  # with four at the table the dealer plays last
        assert deal.sitting_out is None
        p.record_points(NORMAL)
    assert seen[0] == ("Dora", ("Anna", "Ben", "Cem", "Dora"))
    assert seen[1] == ("Anna", ("Ben", "Cem", "Dora", "Anna"))
    assert seen[2] == ("Ben", ("Cem", "Dora", "Anna", "Ben"))
    assert seen[3] == ("Cem", ("Dora", "Anna", "Ben", "Cem"))
    assert seen[4] == seen[0]


def test_round_counts_one_deal_by_every_player() -> None:
    p = Partie(FOUR)
    rounds = []
    for _ in range(9):
        rounds.append(p.deal.round)
        p.record_points(NORMAL)
    assert rounds == [1, 1, 1, 1, 2, 2, 2, 2, 3]


def test_first_dealer_can_be_chosen() -> None:
    p = Partie(FOUR, first_dealer="Ben")
    assert p.deal.dealer == "Ben"
    assert p.deal.seats == ("Cem", "Dora", "Anna", "Ben")
    assert p.deal.vorhand == "Cem"
    assert p.deal.seat_of("Anna") == 2


def test_five_players_the_dealer_sits_out() -> None:
    p = Partie(FIVE)
    deal = p.deal
    assert deal.dealer == "Emil" and deal.sitting_out == "Emil"
    assert deal.seats == ("Anna", "Ben", "Cem", "Dora")
    with pytest.raises(SheetError, match="does not play game 1"):
        deal.seat_of("Emil")
    entry = p.record_points((3, -1, -1, -1), solo_seat=0)
    assert "Emil" not in entry.points
    assert p.totals == {"Anna": 3, "Ben": -1, "Cem": -1, "Dora": -1, "Emil": 0}
    assert p.deal.sitting_out == "Anna"
    assert p.deal.seats == ("Ben", "Cem", "Dora", "Emil")
    # a round at five is five deals
    play_normal(p, 3)
    assert p.deal.round == 1
    play_normal(p, 1)
    assert p.deal.round == 2


def test_entries_map_game_seats_to_sheet_players() -> None:
    p = Partie(FOUR, first_dealer="Anna")  # seats: Ben Cem Dora Anna
    entry = p.record_points((2, -2, 2, -2))
    assert entry.points == {"Ben": 2, "Cem": -2, "Dora": 2, "Anna": -2}
    assert entry.totals == {"Anna": -2, "Ben": 2, "Cem": -2, "Dora": 2}


# -- length ----------------------------------------------------------------------------


def test_length_in_games() -> None:
    p = Partie(FOUR, games=3)
    play_normal(p, 2)
    assert not p.is_over
    p.record_points(NORMAL)
    assert p.is_over and p.deal is None
    with pytest.raises(PartieOverError, match="over"):
        p.record_points(NORMAL)


def test_abandoned_games_count_towards_the_length() -> None:
    single = Partie(FOUR, games=1)
    single.abandon()
    assert single.is_over and single.totals == dict.fromkeys(FOUR, 0)
    p = Partie(FOUR, games=3)
    p.record_points(NORMAL)
    p.abandon()
    assert not p.is_over
    p.record_points(NORMAL)
    assert p.is_over and len(p.entries) == 3


def test_length_in_rounds() -> None:
    p = Partie(FIVE, rounds=2)
    play_normal(p, 9)
    assert not p.is_over
    play_normal(p, 1)
    assert p.is_over and len(p.entries) == 10


def test_point_target_finishes_the_round() -> None:
    p = Partie(FOUR, target=5)
    p.record_points((5, -5, -5, 5))  # target reached in game 1 of round 1
    assert not p.is_over
    play_normal(p, 2)
    assert not p.is_over
    play_normal(p, 1)
    assert p.is_over
    # once reached, the round is finished even if nobody holds the target any more
    assert p.totals == {"Anna": 4, "Ben": -4, "Cem": -4, "Dora": 4}
    assert p.standings() == [("Anna", 4), ("Dora", 4), ("Ben", -4), ("Cem", -4)]
    assert p.leaders == ["Anna", "Dora"]


def test_point_target_not_reached_plays_on() -> None:
    p = Partie(FOUR, target=30)
    play_normal(p, 8)
    assert not p.is_over and p.round == 3


def test_open_ended_partie_never_ends() -> None:
    p = Partie(FOUR)
    play_normal(p, 20)
    assert not p.is_over


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"games": 3, "rounds": 2}, "at most one length"),
        ({"rounds": 0}, "rounds must be at least 1"),
        ({"first_dealer": "Zoe"}, "first dealer 'Zoe'"),
    ],
)
def test_bad_lengths_and_dealers_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(SheetError, match=message):
        Partie(FOUR, **kwargs)


@pytest.mark.parametrize("players", [FOUR[:3], FIVE + ["Fritz"], ["A", "A", "B", "C"]])
def test_bad_player_lists_are_refused(players: list[str]) -> None:
    with pytest.raises(SheetError, match="players|differ"):
        Partie(players)


# -- DDV 7.3.3 -------------------------------------------------------------------------


def test_check_entries_accepts_a_solo_and_a_normal_game() -> None:
    check_entries([9, -3, -3, -3])
    check_entries([-2, 2, 2, -2])
    check_entries([0, 0, 0, 0])


def test_check_entries_refuses_a_nonzero_sum() -> None:
    with pytest.raises(ScoreCheckError, match=r"game 2: entries \[1, 1, -1, 0\] sum to 1"):
        check_entries([1, 1, -1, 0], game=2)


def test_check_entries_refuses_mixed_parity() -> None:
    with pytest.raises(ScoreCheckError, match="mix even and odd"):
        check_entries([3, -1, -2, 0])


def test_check_entries_wants_four_entries() -> None:
    with pytest.raises(ScoreCheckError, match="expected 4 entries"):
        check_entries([1, -1])


def test_a_refused_game_leaves_the_sheet_unchanged() -> None:
    p = Partie(FOUR)
    p.record_points(NORMAL)
    before = (p.totals, p.deal, len(p.entries))
    with pytest.raises(ScoreCheckError, match="game 2"):
        p.record_points((1, 1, -1, 0))
    with pytest.raises(ScoreCheckError, match="expected 4 points"):
        p.record_points((1, -1))
    assert (p.totals, p.deal, len(p.entries)) == before


# -- Bock rounds -----------------------------------------------------------------------


def test_bock_round_doubles_the_next_round() -> None:
    p = Partie(FOUR, rules=FakeRules(bockrunden=True))
    first = p.record_points((1, -1, -1, 1), bock_trigger=True)
    assert first.bock_trigger and first.deal.multiplier == 1
    multipliers = []
    for _ in range(5):
        multipliers.append(p.deal.multiplier)
        entry = p.record_points((1, -1, -1, 1))
        assert entry.points[entry.deal.seats[0]] == entry.deal.multiplier
    assert multipliers == [2, 2, 2, 2, 1]


def test_bock_round_at_five_players_is_five_games() -> None:
    p = Partie(FIVE, rules=FakeRules(bockrunden=True))
    p.record_points(NORMAL, bock_trigger=True)
    assert p.bock_queue == [1, 1, 1, 1, 1]


def test_overlapping_bock_triggers_stack_to_doppelbock() -> None:
    p = Partie(FOUR, rules=FakeRules(bockrunden=True))
    p.record_points(NORMAL, bock_trigger=True)
    p.record_points(NORMAL)  # first Bock game
    p.record_points(NORMAL, bock_trigger=True)  # second Bock game triggers again
    assert p.bock_queue == [2, 2, 1, 1]
    entry = p.record_points(NORMAL)
    assert entry.deal.multiplier == 4
    assert sorted(entry.points.values()) == [-4, -4, 4, 4]


def test_append_stacking_queues_the_new_round_after_the_old() -> None:
    p = Partie(FOUR, rules=FakeRules(bockrunden=True), bock_stacking=BockStacking.APPEND)
    p.record_points(NORMAL, bock_trigger=True)
    p.record_points(NORMAL)
    p.record_points(NORMAL, bock_trigger=True)
    assert p.bock_queue == [1, 1, 1, 1, 1, 1]


def test_bock_trigger_is_ignored_without_bockrunden() -> None:
    p = Partie(FOUR, rules=FakeRules(bockrunden=False))
    entry = p.record_points(NORMAL, bock_trigger=True)
    assert not entry.bock_trigger
    assert p.bock_queue == [] and p.deal.multiplier == 1


def test_bock_is_applied_before_the_ddv_check() -> None:
    p = Partie(FOUR, rules=FakeRules(bockrunden=True))
    p.record_points((3, -1, -1, -1), solo_seat=0, bock_trigger=True)
    entry = p.record_points((-3, 1, 1, 1), solo_seat=0)
    assert sorted(entry.points.values()) == [-6, 2, 2, 2]


# -- Pflichtsolo -----------------------------------------------------------------------


def test_after_a_pflichtsolo_the_same_dealer_deals_again() -> None:
    p = Partie(FOUR, rules=FakeRules(pflichtsolo=True), rounds=2)
    assert p.pflichtsolo_owed == FOUR
    entry = p.record_points((3, -1, -1, -1), solo_seat=0, contract="Damensolo")
    assert entry.pflichtsolo and not entry.vorfuehrung
    assert p.deal.dealer == "Dora" and p.deal.number == 2
    assert p.pflichtsolo_owed == ["Ben", "Cem", "Dora"]
    assert p.pflichtsolo_played == ["Anna"]
    # Anna's second solo is a Lustsolo: the deal moves on
    entry = p.record_points((3, -1, -1, -1), solo_seat=0)
    assert not entry.pflichtsolo
    assert p.deal.dealer == "Anna"


def test_a_pflichtsolo_does_not_count_towards_the_round() -> None:
    p = Partie(FOUR, rules=FakeRules(pflichtsolo=True), rounds=3)
    play_normal(p, 3)
    p.record_points((-3, 1, 1, 1), solo_seat=0)  # Dora's Pflichtsolo in the 4th deal
    assert p.deal.round == 1
    play_normal(p, 1)
    assert p.deal.round == 2


def test_without_the_rule_a_solo_moves_the_deal_on() -> None:
    p = Partie(FOUR, rounds=1)
    entry = p.record_points((3, -1, -1, -1), solo_seat=0)
    assert not entry.pflichtsolo
    assert p.deal.dealer == "Anna"
    assert p.pflichtsolo_owed == []


def test_vorfuehrung_in_the_last_round() -> None:
    p = Partie(FOUR, rules=FakeRules(pflichtsolo=True), rounds=2)
    # Round 1: Anna, Ben and Cem play their solos; Dora never does.
    for player in ("Anna", "Ben", "Cem"):
        assert p.deal.vorhand == player
        p.record_points((3, -1, -1, -1), solo_seat=0)  # Pflichtsolo: same dealer again
        assert p.deal.vorhand == player
        play_normal(p, 1)
    play_normal(p, 1)
    assert p.deal.round == 2 and p.deal.vorhand == "Anna"
    assert p.deal.forced_solo is None  # Anna has played hers
    play_normal(p, 3)
    deal = p.deal
    assert deal.vorhand == "Dora" and deal.forced_solo == "Dora"
    with pytest.raises(PflichtsoloError, match="Dora still owes a Pflichtsolo"):
        p.record_points(NORMAL)
    with pytest.raises(PflichtsoloError, match="Vorführung"):
        p.record_points((-1, 3, -1, -1), solo_seat=1)
    entry = p.record_points((-3, 1, 1, 1), solo_seat=0, contract="Kreuzsolo")
    assert entry.vorfuehrung and entry.pflichtsolo
    assert p.pflichtsolo_owed == []
    assert p.deal.vorhand == "Dora" and p.deal.forced_solo is None
    play_normal(p, 1)
    assert p.is_over
    assert "Vorführung" in p.to_csv()


def test_pflichtsolo_needs_a_partie_by_rounds() -> None:
    with pytest.raises(SheetError, match="Pflichtsolo needs a Partie by rounds"):
        Partie(FOUR, rules=FakeRules(pflichtsolo=True), games=24)


# -- abandoned games -------------------------------------------------------------------


def test_abandoned_game_has_no_score_and_the_next_game_is_dealt() -> None:
    p = Partie(FOUR, rules=FakeRules(bockrunden=True))
    p.record_points(NORMAL, bock_trigger=True)
    entry = p.abandon()
    assert entry.abandoned and entry.points == {}
    assert p.deal.dealer == "Ben" and p.deal.number == 3
    assert p.bock_queue == [1, 1, 1, 1]  # the abandoned game used no Bock
    assert p.totals == {"Anna": 1, "Ben": -1, "Cem": -1, "Dora": 1}


def test_a_player_leaving_at_five_leaves_four() -> None:
    p = Partie(FIVE)
    p.record_points(NORMAL)  # Emil dealt; next dealer Anna
    p.abandon(left="Cem")
    assert p.present == ("Anna", "Ben", "Dora", "Emil")
    assert not p.is_over
    deal = p.deal
    assert deal.dealer == "Ben" and deal.sitting_out is None
    assert deal.seats == ("Dora", "Emil", "Anna", "Ben")
    assert p.totals["Cem"] == -1  # scored games stay


def test_a_player_leaving_at_four_aborts_the_partie() -> None:
    p = Partie(FOUR, rounds=2)
    p.record_points(NORMAL)
    p.abandon(left="Ben")
    assert p.is_over and p.aborted and p.deal is None
    assert p.totals["Ben"] == -1


def test_leaving_player_must_be_at_the_table() -> None:
    with pytest.raises(SheetError, match="'Zoe' is not at the table"):
        Partie(FOUR).abandon(left="Zoe")


# -- undo ------------------------------------------------------------------------------


def test_undo_rebuilds_the_sheet() -> None:
    p = Partie(FOUR, rules=FakeRules(bockrunden=True, pflichtsolo=True), rounds=2)
    p.record_points(NORMAL, bock_trigger=True)
    snapshot = (p.totals, p.deal, p.bock_queue, p.pflichtsolo_owed)
    p.record_points((3, -1, -1, -1), solo_seat=0)
    undone = p.undo()
    assert undone.pflichtsolo
    assert (p.totals, p.deal, p.bock_queue, p.pflichtsolo_owed) == snapshot
    p.undo()
    assert p.entries == [] and p.totals == dict.fromkeys(FOUR, 0)
    with pytest.raises(PartieOverError, match="nothing to undo"):
        p.undo()


# -- engine results and export ---------------------------------------------------------


def test_record_takes_a_result_and_a_contract() -> None:
    p = Partie(FOUR, rules=FakeRules(pflichtsolo=True, bockrunden=True), rounds=2)
    entry = p.record(FakeResult((-1, -1, -1, 3), bock_trigger=True), Contract.solo(SoloKind.QUEENS, 3))
    assert entry.solo_player == "Dora" and entry.pflichtsolo
    assert entry.contract == "Damensolo" and entry.bock_trigger
    entry = p.record(FakeResult((-3, 1, 1, 1)), Contract.silent_hochzeit(0))
    assert entry.solo_player is None and not entry.pflichtsolo  # a silent Hochzeit is no Pflichtsolo
    assert entry.contract == "stille Hochzeit"
    assert entry.deal.multiplier == 2 and entry.points["Anna"] == -6


def test_a_result_scored_with_the_deals_bocks_is_not_doubled_twice() -> None:
    p = Partie(FOUR, rules=FakeRules(bockrunden=True))
    p.record(FakeResult((1, -1, -1, 1), bock_trigger=True))
    entry = p.record(FakeResult((2, -2, -2, 2), bock=1))
    assert entry.game_points == (1, -1, -1, 1)
    assert sorted(entry.points.values()) == [-2, -2, 2, 2]
    with pytest.raises(SheetError, match="scored with 2 Bock"):
        p.record(FakeResult((4, -4, -4, 4), bock=2))


def test_real_games_on_the_sheet() -> None:
    record = load_record(REFERENCE / "82187246.json")
    game = record.to_game()
    p = Partie(record.players, rules=Rules.pub())  # pub rules: Bockrunden
    deal = p.deal
    assert deal.seats == record.players
    entry = p.record_game(game)
    assert entry.game_points == game.result().points == (-5, 5, 5, -5)
    assert p.totals == {"player1": -5, "player2": 5, "player3": 5, "player4": -5}
    # new_game builds the next game for the deal: seats, rules and Bocks
    nxt = p.new_game(Contract.normal())
    assert nxt.players == p.deal.seats and nxt.rules == Rules.pub() and nxt.bock == p.deal.bocks


def test_csv_export_has_entries_and_running_totals() -> None:
    p = Partie(FIVE, rules=FakeRules(bockrunden=True))
    p.record_points(NORMAL, bock_trigger=True)
    p.abandon()
    p.record_points((-3, 1, 1, 1), solo_seat=0, contract="Herzsolo")
    rows = list(csv.reader(io.StringIO(p.to_csv())))
    assert rows == p.csv_rows()
    header, first, second, third = rows
    assert header == ["game", "round", "dealer", "contract", "multiplier", "note", *FIVE] + [
        f"total {name}" for name in FIVE
    ]
    assert first[:6] == ["1", "1", "Emil", "Normalspiel", "1", "Bock"]
    assert first[6:11] == ["1", "-1", "-1", "1", ""]
    assert second[5] == "abandoned" and second[6:11] == ["", "", "", "", ""]
    # game 3: Ben deals and sits out; Cem declares; Bock doubles
    assert third[2:5] == ["Ben", "Herzsolo", "2"]
    assert third[6:11] == ["2", "", "-6", "2", "2"]
    assert third[11:] == ["3", "-1", "-7", "3", "2"]


def test_no_game_after_the_end() -> None:
    p = Partie(FOUR, games=1)
    p.record(FakeResult((1, -1, -1, 1)))
    with pytest.raises(PartieOverError, match="no more games can be dealt"):
        p.new_game()
    with pytest.raises(PartieOverError, match="no more games can be recorded"):
        p.record(FakeResult((1, -1, -1, 1)))
    with pytest.raises(PartieOverError, match="over"):
        p.abandon()
    assert isinstance(PartieOverError("x"), ValueError)
