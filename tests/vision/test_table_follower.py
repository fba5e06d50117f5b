"""The game follower: seats from turn order and position, tricks, clearing, flags as events."""

from __future__ import annotations

import math

import pytest

from dokocam.engine import Card, Game
from dokocam.vision.table.follower import GameFollower
from dokocam.vision.table.geometry import TableGeometry
from dokocam.vision.table.tracker import CardLanded, CardLeft

CENTER = (640.0, 360.0)


def spot(seat: int, seat0_angle: float = 90.0, r: float = 90.0) -> tuple[float, float]:
    a = math.radians(seat0_angle + 90 * seat)
    return (CENTER[0] + r * math.cos(a), CENTER[1] + r * math.sin(a))


class Table:
    """Drives a follower with landings and departures, one per call, at 1 s steps."""

    def __init__(self, **kwargs) -> None:
        self.follower = GameFollower(Game, TableGeometry.default(1280, 720), **kwargs)
        self.t = 0
        self.track = 0

    def land(
        self,
        card: str,
        at: tuple[float, float],
        *,
        uncertain: bool = False,
        confidence: float = 0.9,
        candidates: tuple[tuple[str, float], ...] | None = None,
    ) -> list[dict]:
        """One landing; ``candidates`` (card, vote share) default to the card 0.6, 9C 0.4."""
        self.t += 1
        self.track += 1
        votes = (
            ((Card.parse(card).index, 0.6), (0, 0.4))
            if candidates is None
            else tuple((Card.parse(c).index, v) for c, v in candidates)
        )
        event = CardLanded(
            self.track,
            Card.parse(card).index,
            confidence,
            at,
            self.t * 10,
            float(self.t),
            candidates=votes,
            uncertain=uncertain,
        )
        return [e.to_dict() for e in self.follower.update([event])]

    def clear(self, tracks: list[int]) -> list[dict]:
        self.t += 1
        return [e.to_dict() for e in self.follower.update([CardLeft(k, 0, self.t * 10, float(self.t)) for k in tracks])]


def test_turn_order_seats_the_first_trick_then_positions_calibrate_the_table():
    table = Table()
    seat0_angle = 200.0  # seat 0 sits upper left of the picture, not at the default bottom
    events = []
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        events += table.land(card, spot(seat, seat0_angle))
    plays = [e for e in events if e["type"] == "card_played"]
    assert [p["seat"] for p in plays] == [0, 1, 2, 3]
    assert all(p["seat_by_position"] is None for p in plays)
    complete = [e for e in events if e["type"] == "trick_complete"]
    assert len(complete) == 1 and complete[0]["winner"] == 0
    assert complete[0]["cards"] == ("AC", "9C", "KC", "10C") and complete[0]["augen"] == 25
    calibrated = [e for e in events if e["type"] == "calibrated"]
    assert calibrated and calibrated[0]["geometry"]["seat0_angle"] == pytest.approx(seat0_angle, abs=1)
    # Trick 2: seat 0 leads again; now positions are known and agree with the turn order.
    plays = [e for e in table.land("AS", spot(0, seat0_angle)) if e["type"] == "card_played"]
    assert plays[0]["seat_by_position"] == 0 and plays[0]["seat_by_turn"] == 0 and not plays[0]["seat_conflict"]


def test_seats_shifted_by_a_card_missed_in_the_first_trick_are_turned_back_by_vorhands_first_card():
    # From a rendered game: seat 1's winning card of trick 1 was never seen, so the turn order made
    # seat 2 the next leader and seated trick 2 one place on; calibrating from it learnt that.
    table = Table()
    table.land("9C", spot(0))  # the game's first card: Vorhand's, at seat 0's place
    table.land("KC", spot(2))  # (seat 1's AC is never seen)
    table.land("10C", spot(3))
    events = table.clear([1, 2, 3])
    assert [e["kind"] for e in events if e["type"] == "flag"] == ["incomplete_trick"]
    events = []
    for seat, card in [(1, "AS"), (2, "9S"), (3, "KS"), (0, "10S")]:
        events += table.land(card, spot(seat))
    kinds = [(e["type"], e.get("reason")) for e in events]
    assert ("calibrated", None) in kinds and ("needs_confirmation", "seats_changed") in kinds
    assert [s for s, _ in table.follower.game.tricks[1].plays] == [1, 2, 3, 0]
    # From now on places and turn order agree on the true seats.
    played = [e for e in table.land("QS", spot(1)) if e["type"] == "card_played"][0]
    assert played["seat"] == 1 and not played["seat_conflict"]


def test_a_copy_of_the_first_card_seen_before_vorhands_own_leaves_the_seats_as_they_are():
    # From a rendered game: Vorhand's 9S came to rest unseen, so seat 2's 9S landed first and the
    # turn order gave each 9S the other's place. The record is the same; the places say it.
    table = Table()
    table.land("9S", spot(2))
    table.land("KS", spot(1))
    table.land("9S", spot(0))
    table.land("10S", spot(3))  # seat 3 wins and leads trick 2
    table.clear([1, 2, 3, 4])
    events = []
    for seat, card in [(3, "KD"), (0, "QH"), (1, "10H"), (2, "QD")]:
        events += table.land(card, spot(seat))
    kinds = [(e["type"], e.get("reason")) for e in events]
    assert ("calibrated", None) in kinds and ("needs_confirmation", "seats_changed") not in kinds
    assert [s for s, _ in table.follower.game.tricks[1].plays] == [3, 0, 1, 2]
    assert table.follower.geometry.clockwise


def test_a_misreading_found_out_in_the_first_trick_calibrates_the_table_from_the_trick_played_anew():
    # From a rendered game (seed 36012, pixel positions as tracked): Vorhand's JC was also seen
    # as a second JC, which the turn order counted as seat 1's card; KD and QH went one seat on.
    # That counting fits seat directions only loosely, so it does not calibrate the table on its
    # own (it once did, and every later trick followed it). JH, seen only as the next trick's
    # "lead" and swept away with the trick, turned out to be seat 3's card.
    table = Table()
    table.land("JC", (604.6, 411.3))
    table.land("JC", (557.2, 488.9), confidence=0.5)  # the misreading
    table.land("KD", (554.9, 314.7))
    events = table.land("QH", (629.2, 241.8))
    assert "calibrated" not in [e["type"] for e in events]
    table.clear([2])  # the misreading goes long before the sweep
    table.land("JH", (730.2, 359.7))
    events = table.clear([1, 3, 4, 5])
    reasons = [e.get("reason") for e in events if e["type"] == "needs_confirmation"]
    assert "card_replaced" in reasons
    assert [(s, str(c)) for s, c in table.follower.game.tricks[0].plays] == [(0, "JC"), (1, "KD"), (2, "QH"), (3, "JH")]
    assert "calibrated" in [e["type"] for e in events]
    geometry = table.follower.geometry
    assert [geometry.seat_of(p).seat for p in [(604.6, 411.3), (554.9, 314.7), (629.2, 241.8), (730.2, 359.7)]] == [
        0,
        1,
        2,
        3,
    ]


def test_five_cards_swept_with_a_trick_of_four_drop_the_least_sure_of_them():
    # From a rendered game (seed 37005, positions as tracked): seat 1's four-index JD was read
    # half as QD, half as JD, and both were counted; seat 3's QC then counted as the next lead.
    # All five went together, none of the four before the others.
    table = Table()
    table.land("QS", (664.6, 464.2), confidence=0.853)
    table.land("QD", (556.1, 405.1), confidence=0.583)  # the misreading
    table.land("JD", (546.9, 357.3), confidence=0.685)
    table.land("AD", (658.0, 293.4), confidence=0.81)
    table.land("QC", (722.8, 353.9), confidence=0.747)
    events = table.clear([1, 2, 3, 4, 5])
    assert "card_replaced" in [e.get("reason") for e in events if e["type"] == "needs_confirmation"]
    replaced = next(e for e in events if e.get("reason") == "card_replaced")
    assert replaced["message"] == (
        "trick 1: QD, the least sure of five cards swept with a trick of four, was a misreading; "
        "QC, swept with the trick, counts as seat 3's card; check trick 1"
    )
    assert [(s, str(c)) for s, c in table.follower.game.tricks[0].plays] == [(0, "QS"), (1, "JD"), (2, "AD"), (3, "QC")]
    geometry = table.follower.geometry
    assert [geometry.seat_of(p).seat for p in [(664.6, 464.2), (546.9, 357.3), (658.0, 293.4), (722.8, 353.9)]] == [
        0,
        1,
        2,
        3,
    ]


def test_a_fifth_card_before_clearing_starts_the_next_trick_and_clearing_is_reported():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat))
    events = table.land("AS", spot(0, r=60))  # trick 1 still lies there
    assert [e["trick"] for e in events if e["type"] == "card_played"] == [1]
    assert table.clear([1, 2, 3]) == []
    assert table.clear([4]) == [{"type": "trick_cleared", "frame": 70, "time": 7.0, "trick": 0}]


def test_position_against_turn_order_is_said_in_the_event_and_flagged_by_the_engine():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat))
    # Seat 0 (the winner) should lead, but the card lies squarely in front of seat 2.
    events = table.land("AS", spot(2))
    played = [e for e in events if e["type"] == "card_played"][0]
    assert played["seat"] == 2 and played["seat_by_turn"] == 0 and played["seat_conflict"]
    flags = [e for e in events if e["type"] == "flag"]
    assert [f["kind"] for f in flags] == ["out_of_turn"] and flags[0]["seat"] == 2


def test_a_position_pointing_to_a_seat_that_has_played_leaves_the_seat_to_the_turn_order():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat))
    table.land("AS", spot(0))
    table.land("9S", spot(1))
    # Seat 2 is to move; its card slid far over to seat 0's side, which has played already.
    played = [e for e in table.land("KS", spot(0, r=60)) if e["type"] == "card_played"][0]
    assert played["seat"] == 2 and played["seat_by_position"] == 0 and played["seat_conflict"]
    assert not table.follower.game.flags


def test_an_ambiguous_position_leaves_the_seat_to_the_turn_order_but_says_so():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat))
    diagonal = (CENTER[0] - 70, CENTER[1] + 60)  # between seat 0 (bottom) and seat 1 (left), nearer 1
    played = [e for e in table.land("AS", diagonal) if e["type"] == "card_played"][0]
    assert played["seat"] == 0 and played["seat_by_position"] == 1 and played["seat_conflict"]


def test_a_trick_cleared_with_a_card_missing_is_closed_and_needs_confirmation():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC"]):
        table.land(card, spot(seat))
    events = table.clear([1, 2, 3])
    kinds = [e["type"] for e in events]
    assert kinds[:2] == ["trick_cleared", "needs_confirmation"]
    assert "trick_complete" in kinds and events[1]["reason"] == "incomplete_trick"
    assert any(e["type"] == "flag" and e["kind"] == "incomplete_trick" for e in events)
    assert table.follower.game.trick_number == 1 and table.follower.game.to_move == 0


def test_uncertain_cards_ask_for_confirmation_and_engine_flags_become_events():
    table = Table()
    events = table.land("AC", spot(0), uncertain=True)
    confirm = [e for e in events if e["type"] == "needs_confirmation"][0]
    assert confirm["card"] == "AC" and confirm["candidates"][0] == ("AC", 0.6)
    table.land("9H", spot(1))  # seat 1 does not follow clubs...
    table.land("KC", spot(2))
    table.land("10C", spot(3))
    table.land("AS", spot(0))
    events = table.land("9C", spot(1))  # ...and plays a club later: renege proven
    flags = [e for e in events if e["type"] == "flag"]
    assert [f["kind"] for f in flags] == ["renege"] and flags[0]["seat"] == 1 and flags[0]["trick"] == 0


def test_reset_starts_a_new_game_and_keeps_the_calibration():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat, 200.0))
    assert table.follower.calibrated
    table.follower.reset()
    assert table.follower.game.trick_number == 0 and table.follower.calibrated


def test_the_same_card_landing_again_at_the_same_spot_is_not_a_second_play():
    table = Table()
    table.land("AC", spot(0))
    events = table.land("AC", (spot(0)[0] + 25, spot(0)[1] - 10))  # its track was lost and found
    assert events == []
    assert len(table.follower.game.history) == 1
    # ...and both track ids belong to the trick, so clearing waits for both.
    table.land("9C", spot(1))
    table.land("KC", spot(2))
    table.land("10C", spot(3))
    assert table.clear([1, 3, 4, 5]) == []
    assert [e["type"] for e in table.clear([2])] == ["trick_cleared"]


def test_a_lone_lead_swept_away_with_the_trick_before_is_taken_back():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat))
    table.land("KC", spot(2, r=40))  # KC seen twice: counted as the lead of trick 2
    assert table.follower.game.trick_number == 1 and len(table.follower.game.current_trick.plays) == 1
    events = table.clear([1, 2, 3, 4]) + table.clear([5])  # ...but it leaves with trick 1
    assert [e["type"] for e in events] == ["trick_cleared", "needs_confirmation"]
    assert events[1]["reason"] == "card_withdrawn" and events[1]["card"] == "KC"
    game = table.follower.game
    assert len(game.history) == 4 and game.to_move == 0 and game.current_trick.plays == []


def test_a_lone_lead_leaving_while_the_whole_trick_before_lies_there_is_taken_back():
    # Seed 39003 out of focus: the fourth card's two indices read as two cards (10H and AH) in one
    # frame; AH was counted as the next trick's lead and vanished as the indices were seen as one.
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat))
    table.land("AH", spot(3, r=60))
    assert table.follower.game.trick_number == 1
    events = table.clear([5])
    assert [(e["type"], e["reason"], e["card"], e["trick"]) for e in events] == [
        ("needs_confirmation", "card_withdrawn", "AH", 1)
    ]
    assert "left while trick 1 still lay on the table" in events[0]["message"]
    game = table.follower.game
    assert len(game.history) == 4 and game.current_trick.plays == [] and not game.flags
    # The trick is then swept as usual, and the real lead opens trick 2, seated by the winner (AC, seat 0).
    assert [e["type"] for e in table.clear([1, 2, 3, 4])] == ["trick_cleared"]
    played = [e for e in table.land("9S", spot(0)) if e["type"] == "card_played"]
    assert [(e["trick"], e["seat"], e["card"]) for e in played] == [(1, 0, "9S")]


def test_a_real_lead_lost_before_the_trick_before_is_swept_is_played_again_when_seen_again():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat))
    table.land("AS", spot(0, r=60))  # the winner leads before sweeping, then a hand hides the card
    table.clear([5])
    played = [e for e in table.land("AS", spot(0, r=60)) if e["type"] == "card_played"]
    assert [(e["trick"], e["seat"], e["card"]) for e in played] == [(1, 0, "AS")]
    assert [str(c) for _, c in table.follower.game.current_trick.plays] == ["AS"]


def test_a_lead_that_stays_after_the_trick_before_is_cleared_is_kept():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat))
    table.land("AS", spot(0, r=60))
    table.clear([1, 2, 3, 4])
    table.t += 5  # the new lead lies on for a while, then the trick goes on
    table.land("9S", spot(1))
    assert len(table.follower.game.current_trick.plays) == 2


def test_a_doubtful_third_copy_is_not_played_but_asked_about():
    table = Table()
    table.land("AC", spot(0))
    table.land("AC", spot(1))
    # 0.63: how sure the detector was of a King read as Karo-König on a rendered table, where
    # playing it made the real card the next trick's lead and shifted every later trick.
    events = table.land("AC", spot(2), confidence=0.63, candidates=(("AC", 0.9), ("KC", 0.1)))
    assert [e["type"] for e in events] == ["needs_confirmation"] and "third copy" in events[0]["message"]
    assert len(table.follower.game.history) == 2
    events = table.land("AC", spot(3), confidence=0.95, candidates=(("AC", 0.95),))
    assert [e["kind"] for e in events if e["type"] == "flag"] == ["third_copy"]  # played, and the engine says so


def test_a_doubtful_third_copy_on_a_card_still_on_the_table_is_that_card_read_again():
    # Seed 60000 with session 18's classifier: both Pik-Buben played, then a covered Pik-König's
    # index, lying on the table in the trick just completed, was read as a Pik-Bube at 0.42.
    table = Table()
    table.land("JS", spot(0))
    table.land("JS", spot(1))
    table.land("KS", spot(2))
    table.land("AS", spot(3))
    x, y = spot(2)
    events = table.land("JS", (x + 8, y - 5), confidence=0.42, candidates=(("JS", 1.0),))
    assert events == [] and len(table.follower.game.history) == 4
    # Anywhere else it is still asked about: a card may be missing there.
    events = table.land("JS", spot(0, r=20), confidence=0.42, candidates=(("JS", 1.0),))
    assert [e["type"] for e in events] == ["needs_confirmation"] and "third copy" in events[0]["message"]
    # Once the trick is swept away, its cards no longer lie there.
    table.clear([1, 2, 3, 4])
    events = table.land("JS", (x + 8, y - 5), confidence=0.42, candidates=(("JS", 1.0),))
    assert [e["type"] for e in events] == ["needs_confirmation"]


def test_a_doubtful_third_copy_is_played_as_the_runner_up_of_its_vote():
    # From the demo video: Kreuz-Bube voted 0.62 Kreuz-Dame, 0.38 Kreuz-Bube, with both Kreuz-Damen
    # already played. Refusing it left the trick short; the runner-up is the card.
    table = Table()
    table.land("QC", spot(0))
    table.land("QC", spot(1))
    events = table.land("QC", spot(2), confidence=0.62, candidates=(("QC", 0.62), ("JC", 0.38)))
    assert [(e["type"], e.get("card")) for e in events] == [("card_played", "JC"), ("needs_confirmation", "JC")]
    assert "read as QC" in events[1]["message"]
    assert [str(c) for _, c in table.follower.game.history] == ["QC", "QC", "JC"]
    assert not table.follower.game.flags


def test_a_sure_third_copy_is_played_and_the_weak_earlier_copy_is_doubted():
    # From a rendered game: a Herz-9 read as Karo-Dame at 0.45 in trick 2; the real Karo-Damen
    # came later at 0.70 and 0.75. Refusing the last one left trick 10 short.
    table = Table()
    for seat, (card, confidence) in enumerate([("QD", 0.45), ("QD", 0.70), ("KD", 0.9), ("AD", 0.9)]):
        table.land(card, spot(seat), confidence=confidence, candidates=((card, 1.0),))
    table.clear([1, 2, 3, 4])  # trick 1 is swept away: no card of it lies where the next ones land
    events = table.land("QD", spot(0), confidence=0.75, candidates=(("QD", 1.0),))
    assert [e["type"] for e in events][:2] == ["card_played", "needs_confirmation"]
    assert events[1]["trick"] == 0 and "trick 1" in events[1]["message"]
    assert [e["kind"] for e in events if e["type"] == "flag"] == ["third_copy"]
    # Not sure enough over the weakest copy (0.45 + 0.25 > 0.62): refused as before.
    events = table.land("QD", spot(1), confidence=0.62, candidates=(("QD", 1.0),))
    assert [e["type"] for e in events] == ["needs_confirmation"]


# --- a corner-index detector, through the tracker -----------------------------------------------


def index_box(cx: float, cy: float, corner: str, w: float = 70, h: float = 100, index: float = 21) -> list[float]:
    """One printed index (``tl``, ``tr``, ``bl``, ``br``) of the card centred at ``(cx, cy)``."""
    x = cx - w / 2 + 3 if corner[1] == "l" else cx + w / 2 - 3 - index
    y = cy - h / 2 + 3 if corner[0] == "t" else cy + h / 2 - 3 - index
    return [x, y, x + index, y + index]


def test_a_card_seen_by_one_corner_only_is_one_play_of_the_seat_the_turn_order_names():
    import numpy as np

    from dokocam.vision.detections import Detections
    from dokocam.vision.table.pipeline import TablePipeline

    geometry = TableGeometry.from_seat_direction(CENTER, (640, 460), radius=260)
    pipeline = TablePipeline.for_video(1280, 720, geometry=geometry, target="corners")
    # Seat 1's 9C lies near the middle; only its lower right index shows, and that index alone
    # points to seat 0 (45 degrees clear): the place is too unsure to overrule the turn order.
    cards = [
        ("AC", (640, 450), ("tl", "br")),
        ("9C", (595, 381), ("br",)),
        ("KC", (640, 270), ("tl", "br")),
        ("10C", (730, 360), ("tr", "bl")),
    ]
    on_table: list[tuple[int, list[float]]] = []
    events = []
    frame = 0
    for code, (x, y), corners in cards:
        for k in range(12):
            seen = [(Card.parse(code).index, index_box(x, y, corners[k % len(corners)]))]
            if k % 3 == 0:  # the same index found twice
                seen.append((seen[0][0], [v + 2 for v in seen[0][1]]))
            rows = on_table + seen
            det = Detections(
                xyxy=[b for _, b in rows],
                confidence=[0.6] * len(rows),
                class_id=[c for c, _ in rows],
                data={"corners": np.ones(len(rows), dtype=np.int64)},
            )
            events += pipeline.update(det, frame, frame / 10)
            frame += 1
        on_table.append(seen[0])
    plays = [e.to_dict() for e in events if e.type == "card_played"]
    assert [(p["seat"], p["card"]) for p in plays] == [(0, "AC"), (1, "9C"), (2, "KC"), (3, "10C")]
    assert plays[1]["seat_by_position"] == 0  # the index alone would have said seat 0
    assert pipeline.follower.game.flags == []


def test_a_trick_swept_but_for_one_lingering_card_is_cleared_before_the_next_lead():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat))
    table.clear([1, 2, 3, 4])
    for seat, card in enumerate(["AS", "9S", "KS"]):  # seat 3's card is never seen
        table.land(card, spot(seat))
    events = table.clear([5, 6])  # track 7 is still "seen": a misreading lingering in its place
    asks = [e for e in events if e["type"] == "needs_confirmation"]
    assert [(e["reason"], e["trick"], e["seat"]) for e in asks] == [("incomplete_trick", 1, 3)]
    plays = [e for e in table.land("AH", spot(0)) if e["type"] == "card_played"]
    assert plays[0]["trick"] == 2 and plays[0]["seat"] == 0
    assert table.clear([7]) == []  # the lingering card's departure no longer counts


def test_two_cards_of_a_trick_leaving_while_two_lie_on_do_not_clear_it():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat))
    assert table.clear([1, 2]) == []


def test_a_misreading_that_left_early_gives_its_place_to_the_lead_swept_with_the_trick():
    table = Table()
    for seat, card in enumerate(["9C", "KC", "JD", "10C"]):  # JD is a misreading that wins the trick
        table.land(card, spot(seat))
    table.land("AC", spot(3, r=60))  # seat 3's real card, landing late: counted as the next lead
    table.clear([3])  # the misreading is gone well before the trick is swept
    table.clear([])
    events = table.clear([1, 2, 4, 5])
    asks = [(e["reason"], e["card"]) for e in events if e["type"] == "needs_confirmation"]
    assert asks == [("card_withdrawn", "AC"), ("card_replaced", "AC")]
    game = table.follower.game
    assert [(s, str(c)) for s, c in game.tricks[0].plays] == [(0, "9C"), (1, "KC"), (2, "10C"), (3, "AC")]
    assert game.to_move == 3 and game.trick_number == 1


def test_a_card_seen_twice_where_it_lay_loses_its_second_sighting_not_its_place():
    # Seed 40009's trick 10: seat 0's JC is found again under a new track where it lies, and that
    # second sighting counts as seat 3's card; the first track then ends early.
    table = Table()
    for seat, card in enumerate(["JC", "AD", "10S"]):  # seat 0's JC wins
        table.land(card, spot(seat))
    table.t += 3  # long after: not the same landing again
    x, y = spot(0)
    table.land("JC", (x + 8, y + 4))  # the second sighting, counted as seat 3's card
    table.land("9S", spot(3, r=60))  # seat 3's real card: counted as the next lead
    table.clear([1])  # the first sighting's track ends well before the sweep
    table.clear([])
    events = table.clear([2, 3, 4, 5])
    asks = [(e["reason"], e["card"]) for e in events if e["type"] == "needs_confirmation"]
    assert asks == [("card_withdrawn", "9S"), ("card_replaced", "9S")]
    game = table.follower.game
    assert [(s, str(c)) for s, c in game.tricks[0].plays] == [(0, "JC"), (1, "AD"), (2, "10S"), (3, "9S")]
    assert game.to_move == 0 and game.trick_number == 1


def test_a_card_that_left_early_stays_when_no_lead_was_swept_with_its_trick():
    table = Table()
    for seat, card in enumerate(["9C", "KC", "JD", "10C"]):
        table.land(card, spot(seat))
    table.clear([3])
    table.clear([])
    table.clear([1, 2, 4])
    assert [str(c) for _, c in table.follower.game.tricks[0].plays] == ["9C", "KC", "JD", "10C"]


def test_a_card_lost_under_a_hand_and_found_again_keeps_its_place_in_its_trick():
    table = Table()
    for seat, card in enumerate(["9C", "JD", "KC", "10C"]):  # seat 1's JD wins
        table.land(card, spot(seat))
    table.clear([2])  # the JD's track is lost...
    table.t += 3
    table.land("JD", spot(1, r=60))  # ...and found again long after: counted as the next lead
    events = table.clear([1, 3, 4, 5])  # it leaves with its trick
    asks = [(e["reason"], e["card"]) for e in events if e["type"] == "needs_confirmation"]
    assert asks == [("card_withdrawn", "JD")]  # taken back, and nothing else is re-read
    game = table.follower.game
    assert [(s, str(c)) for s, c in game.tricks[0].plays] == [(0, "9C"), (1, "JD"), (2, "KC"), (3, "10C")]
    assert game.to_move == 1 and game.current_trick.plays == []


def test_a_card_seen_late_is_seated_where_it_lies_once_the_trick_is_complete():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):  # calibrates; seat 0 wins
        table.land(card, spot(seat))
    table.clear([1, 2, 3, 4])
    a = math.radians(325)  # between seat 2 (top, 270 degrees) and seat 3 (right, 0), nearer 3
    between = (CENTER[0] + 90 * math.cos(a), CENTER[1] + 90 * math.sin(a))
    events = table.land("AS", spot(0)) + table.land("KS", spot(1))
    events += table.land("10S", between)  # seat 3's card, seen before seat 2's (under a hand):
    assert events[-1]["seat"] == 2  # too near the middle to outvote the turn order
    events += table.land("9S", spot(2))  # lands in front of seat 2, who has "already played"
    asks = [e for e in events if e["type"] == "needs_confirmation"]
    assert [a["reason"] for a in asks] == ["seats_changed"] and "10S to seat 3" in asks[0]["message"]
    game = table.follower.game
    assert [(s, str(c)) for s, c in game.tricks[1].plays] == [(0, "AS"), (1, "KS"), (2, "9S"), (3, "10S")]
    assert game.flags == [] and game.to_move == 0  # no out-of-turn flags remain; AS wins
    complete = [e for e in events if e["type"] == "trick_complete"]
    assert complete[-1]["cards"] == ("AS", "KS", "9S", "10S") and complete[-1]["winner"] == 0


def test_a_lead_misread_then_read_again_where_it_lies_keeps_its_seat():
    # Seed 43012's trick 10: seat 1's 9C was first read as QC (0.33) and counted; its track ended,
    # the card was found again where it lay as 9C and counted as the next lead. Dropping the QC and
    # playing the 9C last would have turned every seat of the trick one place on.
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):  # calibrates; seat 0 wins
        table.land(card, spot(seat))
    table.clear([1, 2, 3, 4])
    table.land("QC", spot(0), confidence=0.33)  # the misreading: seat 0's 9C
    for seat, card in [(1, "KS"), (2, "AH"), (3, "9H")]:
        table.land(card, spot(seat))
    table.clear([5])  # its track ends
    x, y = spot(0)
    table.land("9C", (x - 6, y + 9), confidence=0.67)  # the same card read again: the next "lead"
    table.clear([])
    events = table.clear([6, 7, 8, 9])
    asks = [(e["reason"], e["card"], e["seat"]) for e in events if e["type"] == "needs_confirmation"]
    assert asks[-1] == ("card_replaced", "9C", 0)
    game = table.follower.game
    assert [(s, str(c)) for s, c in game.tricks[1].plays] == [(0, "9C"), (1, "KS"), (2, "AH"), (3, "9H")]
    assert game.to_move == 0 and game.trick_number == 2  # nobody followed Kreuz: the 9C wins


def test_a_card_seen_twice_at_one_seat_gives_way_to_the_card_lying_at_the_seat_it_was_counted_for():
    # Seed 43005's trick 9: seat 2's 10S was seen again a little off its spot (still at seat 2's
    # place) and counted as seat 3's card; seat 3's JS then counted as the next lead. All five went
    # together, so nothing left early; the least sure card (seat 1's) was not the misreading.
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):  # calibrates; seat 0 wins
        table.land(card, spot(seat))
    table.clear([1, 2, 3, 4])
    table.land("JD", spot(0), confidence=0.79)
    table.land("KC", spot(1), confidence=0.6)
    table.land("10S", spot(2), confidence=0.75)
    table.land("10S", spot(2, seat0_angle=110.0), confidence=0.79)  # seat 2's card again, counted as seat 3's
    table.land("JS", spot(3), confidence=0.65)  # seat 3's card: counted as the next lead
    events = table.clear([5, 6, 7, 8, 9])
    asks = [(e["reason"], e["card"], e["seat"]) for e in events if e["type"] == "needs_confirmation"]
    assert asks[-1] == ("card_replaced", "JS", 3)
    game = table.follower.game
    assert [(s, str(c)) for s, c in game.tricks[1].plays] == [(0, "JD"), (1, "KC"), (2, "10S"), (3, "JS")]


def test_two_first_cards_swept_with_the_trick_before_take_the_places_of_its_two_early_misreadings():
    # Seed 44001's first trick: seats 1 and 3's cards were each first read as QC while pushed in;
    # both readings were lost, and seat 2's 9C and seat 3's 10C counted as the next trick's first two
    # cards. Closing those as a trick of their own put every later trick one trick on (0 of 12).
    table = Table()
    table.land("10C", spot(0), confidence=0.79)  # track 1
    table.land("QC", spot(1, r=60), confidence=0.35)  # 2: seat 1's 9C, misread on its way in
    table.land("9C", spot(1), confidence=0.73)  # 3
    table.clear([2])
    table.land("QC", spot(2, r=50), confidence=0.45)  # 4: seat 2's 9C, misread; completes the trick
    table.land("9C", spot(2), confidence=0.74)  # 5: counted as trick 2's lead
    table.clear([4])
    table.land("10C", spot(3), confidence=0.5)  # 6: seat 3's card, counted as trick 2's second
    table.t += 3
    events = table.clear([1, 3, 5, 6])
    asks = [(e["reason"], e["card"]) for e in events if e["type"] == "needs_confirmation"]
    assert asks == [("card_withdrawn", "9C"), ("card_replaced", "9C")]
    game = table.follower.game
    assert [(s, str(c)) for s, c in game.tricks[0].plays] == [(0, "10C"), (1, "9C"), (2, "9C"), (3, "10C")]
    assert game.trick_number == 1 and game.to_move == 0 and len(game.tricks) == 1
    assert [e["trick"] for e in events if e["type"] == "trick_cleared"] == [0]  # no trick 2 closed short


def test_first_cards_swept_with_the_trick_before_are_taken_back_even_when_nothing_tells_what_they_replace():
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):
        table.land(card, spot(seat))
    table.land("AC", spot(0, r=40))  # 5, 6: the trick's own cards seen again, counted as trick 2's
    table.land("KC", spot(2, r=40))
    events = table.clear([1, 2, 3, 4, 5, 6])
    asks = [(e["reason"], e["card"]) for e in events if e["type"] == "needs_confirmation"]
    assert asks == [("card_withdrawn", "AC")]
    game = table.follower.game
    assert [str(c) for _, c in game.tricks[0].plays] == ["AC", "9C", "KC", "10C"] and game.trick_number == 1


def _calibrated_table() -> Table:
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):  # calibrates; seat 0 wins and leads
        table.land(card, spot(seat))
    table.clear([1, 2, 3, 4])
    return table


@pytest.mark.parametrize(("again", "expected"), [(0.68, "AC"), (0.5, "KC")])
def test_a_card_read_again_on_its_spot_replaces_the_first_reading_only_when_far_surer(again: float, expected: str):
    # Seed 45009's trick 2: seat 1's AC was read as KC (0.34), then, on the same spot under a second
    # track, as AC (0.68), counted as the next lead. Seed 45007's trick 4: KC (0.52) then KD (0.63)
    # on one spot, and the first reading was the right one.
    table = _calibrated_table()
    for seat, card in [(0, "AS"), (1, "KS"), (2, "9S")]:
        table.land(card, spot(seat))
    table.land("KC", spot(3), confidence=0.34)
    x, y = spot(3)
    table.land("AC", (x - 4, y + 6), confidence=again)  # 9: the same card, read again
    events = table.clear([5, 6, 7, 8, 9])
    asks = [e["reason"] for e in events if e["type"] == "needs_confirmation"]
    assert asks == (["card_withdrawn", "card_replaced"] if expected == "AC" else ["card_withdrawn"])
    assert [(s, str(c)) for s, c in table.follower.game.tricks[1].plays] == [
        (0, "AS"),
        (1, "KS"),
        (2, "9S"),
        (3, expected),
    ]


def test_a_surer_second_reading_counted_for_the_next_seat_takes_the_first_readings_seat():
    # Seed 45007's trick 11: seat 2's 9C was read as 9D (0.36), then as 9C (0.48) on its spot and
    # counted as seat 3's card; seat 3's 10S then counted as the next lead, and all five went together.
    table = _calibrated_table()
    table.land("AS", spot(0))
    table.land("KS", spot(1))
    table.land("9D", spot(2), confidence=0.36)
    x, y = spot(2)
    table.land("9C", (x + 2, y - 3), confidence=0.48)  # 8: counted as seat 3's card
    table.land("10S", spot(3), confidence=0.7)  # 9: seat 3's card, counted as the next lead
    events = table.clear([5, 6, 7, 8, 9])
    assert [e["reason"] for e in events if e["type"] == "needs_confirmation"] == ["card_withdrawn", "card_replaced"]
    assert [(s, str(c)) for s, c in table.follower.game.tricks[1].plays] == [
        (0, "AS"),
        (1, "KS"),
        (2, "9C"),
        (3, "10S"),
    ]


def test_one_card_counted_twice_on_its_spot_keeps_its_first_place_under_its_surer_reading():
    # Seed 45007's trick 5: seat 2's QC was read as QD (0.49), lost, and read again on its spot as
    # QC (0.56), counted as seat 0's card; seat 0's AD went to seat 1, and seat 1's QD counted as
    # the next lead. The card keeps its first place in the turn order under the surer reading.
    table = _calibrated_table()
    table.land("QD", spot(0), confidence=0.49)  # 5: seat 0's QC, first reading
    table.land("10H", spot(1), confidence=0.75)  # 6
    x, y = spot(0)
    table.land("QC", (x + 4, y), confidence=0.56)  # 7: the same card, counted as seat 2's
    table.land("AD", spot(2), confidence=0.73)  # 8: seat 2's card, counted as seat 3's
    table.land("QD", spot(3), confidence=0.57)  # 9: seat 3's card, counted as the next lead
    table.clear([5])  # the first reading's track ends
    table.t += 3
    events = table.clear([6, 7, 8, 9])
    asks = [(e["reason"], e["card"], e["seat"]) for e in events if e["type"] == "needs_confirmation"]
    assert asks[-1] == ("card_replaced", "QD", 3)
    assert [(s, str(c)) for s, c in table.follower.game.tricks[1].plays] == [
        (0, "QC"),
        (1, "10H"),
        (2, "AD"),
        (3, "QD"),
    ]


def test_a_misreading_in_a_trick_seated_anew_gives_its_place_to_the_lead_swept_with_it():
    # Seed 41002's trick 2: the turn order of a trick seated anew by position is not the order its
    # cards landed in; the misreading is still found, by its seat.
    table = Table()
    for seat, card in enumerate(["AC", "9C", "KC", "10C"]):  # calibrates; seat 0 wins
        table.land(card, spot(seat))
    table.clear([1, 2, 3, 4])
    a = math.radians(325)  # between seat 2 (top) and seat 3 (right), nearer 3
    between = (CENTER[0] + 90 * math.cos(a), CENTER[1] + 90 * math.sin(a))
    table.land("AS", spot(0))
    table.land("KS", spot(1))
    table.land("QC", between)  # a misreading, counted as seat 2's card
    events = table.land("9S", spot(2))  # seat 2's card: the QC is seated anew as seat 3's
    assert [e["reason"] for e in events if e["type"] == "needs_confirmation"] == ["seats_changed"]
    table.land("10S", spot(3, r=60))  # seat 3's real card: counted as the next lead
    table.clear([7])  # the misreading is gone well before the trick is swept
    table.clear([])
    events = table.clear([5, 6, 8, 9])
    asks = [(e["reason"], e["card"]) for e in events if e["type"] == "needs_confirmation"]
    assert asks == [("card_withdrawn", "10S"), ("card_replaced", "10S")]
    game = table.follower.game
    assert [(s, str(c)) for s, c in game.tricks[1].plays] == [(0, "AS"), (1, "KS"), (2, "9S"), (3, "10S")]
    assert game.to_move == 0 and game.trick_number == 2


def test_a_misreading_that_lingers_after_the_sweep_gives_its_place_to_the_lead_swept_with_it():
    table = Table()
    for seat, card in enumerate(["9C", "KC", "AD", "10C"]):  # seat 2's AC first read as AD
        table.land(card, spot(seat))
    table.land("AC", spot(2, r=80))  # read right a moment later: a new track, counted as the next lead
    # The sweep: the lead's departure comes first in the frame, the AD track is held on (unseen).
    events = table.clear([5, 1, 2, 4])
    asks = [(e["reason"], e["card"]) for e in events if e["type"] == "needs_confirmation"]
    assert asks == [("card_withdrawn", "AC"), ("card_replaced", "AC")]
    game = table.follower.game
    assert [(s, str(c)) for s, c in game.tricks[0].plays] == [(0, "9C"), (1, "KC"), (2, "AC"), (3, "10C")]
    assert game.to_move == 2 and game.current_trick.plays == []  # AC wins the Kreuz trick
