"""Real-table mishaps as evidence: a card taken back, a trick collected before its last card settled,
a card whose track is lost as it slides under another, both copies in one trick. The tracker reports
what it saw; the decoder explains it; every trick of the game stays exact."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from dokocam.engine import Card
from dokocam.engine.record import load_record
from dokocam.vision.detections import Detections
from dokocam.vision.synth.video import GameVideo, Mishaps, simulate_game
from dokocam.vision.table.decoder import Evidence, GameDecoder, Sighting
from dokocam.vision.table.geometry import TableGeometry
from dokocam.vision.table.pipeline import GameSpec
from dokocam.vision.table.tracker import CardLanded, CardLeft, CardTracker

WIDTH, HEIGHT = 1280, 720
FPS = 10.0
GEOMETRY = TableGeometry.default(WIDTH, HEIGHT)


def frame(*cards: tuple[int, float, float]) -> Detections:
    """Detections of ``(class_id, cx, cy)`` cards, 70 x 100 pixels, scored 0.9."""
    if not cards:
        return Detections.empty()
    return Detections(
        xyxy=[[x - 35, y - 50, x + 35, y + 50] for _, x, y in cards],
        confidence=[0.9] * len(cards),
        class_id=[k for k, _, _ in cards],
    )


def track(frames: list[Detections], tracker: CardTracker | None = None) -> list[CardLanded | CardLeft]:
    tracker = tracker or CardTracker(GEOMETRY)
    return [e for i, det in enumerate(frames) for e in tracker.update(det, i, i / FPS)]


def tricks_of(game) -> list[list[tuple[int, str]]]:
    return [[(s, str(c)) for s, c in t.plays] for t in game.tricks]


# --- the tracker ---------------------------------------------------------------------------------


LYING = [(3, 640, 460), (7, 560, 360), (12, 640, 280)]  # three cards of a trick at rest


def collected_while_coming(card: int, rest_frames: int) -> list[Detections]:
    """Three cards lie; a fourth slides in from seat 1's side (left), lies ``rest_frames`` frames,
    and the trick is swept off towards seat 0 (down) with it."""
    frames = [frame(*LYING)] * 10
    for step in range(6):
        frames.append(frame(*LYING, (card, 200 + 78 * step, 420)))
    frames += [frame(*LYING, (card, 590, 420))] * rest_frames
    for step in range(1, 8):
        frames.append(frame(*[(k, x, y + 50 * step) for k, x, y in [*LYING, (card, 590, 420)]]))
    return frames + [frame()] * 10


def test_a_card_collected_before_it_settled_is_reported_as_a_glimpse_with_its_reading():
    events = track(collected_while_coming(20, rest_frames=1))
    landed = [e for e in events if isinstance(e, CardLanded)]
    assert sorted(e.card_index for e in landed if e.weight == 1.0) == [3, 7, 12]
    (glimpse,) = [e for e in landed if e.weight < 1.0]
    assert glimpse.card_index == 20 and glimpse.candidates[0] == (20, 1.0)
    # Where it came nearest the middle, not where the sweep carried it.
    assert glimpse.center == pytest.approx((590, 420), abs=1)
    assert 1.5 <= glimpse.time <= 1.8
    (gone,) = [e for e in events if isinstance(e, CardLeft) and e.track_id == glimpse.track_id]
    # Reported as the sweep carries it out of the trick area, not once its track ends.
    assert gone.frame < 10 + 6 + 1 + 7


def test_a_card_slid_in_faster_than_a_card_a_frame_and_collected_at_once_is_still_glimpsed():
    # 130 px a frame: more than the gate of one card between two sightings. Its first sighting has no speed to
    # look ahead with; the second is the same card nearer the middle, so the track follows it in.
    frames = [frame(*LYING)] * 10
    frames += [frame(*LYING, (20, 200 + 130 * step, 420)) for step in range(4)] + [frame(*LYING, (20, 590, 420))]
    for step in range(1, 8):
        frames.append(frame(*[(k, x, y + 50 * step) for k, x, y in [*LYING, (20, 590, 420)]]))
    events = track(frames + [frame()] * 10)
    (glimpse,) = [e for e in events if isinstance(e, CardLanded) and e.weight < 1.0]
    assert glimpse.card_index == 20 and glimpse.center == pytest.approx((590, 420), abs=1)
    assert glimpse.came_from is not None and glimpse.came_from[0] < 400  # from seat 1's side, where it was first seen
    # Another card that far on is no continuation: it starts a track of its own.
    tracker = CardTracker(GEOMETRY)
    track([frame(*LYING)] * 10 + [frame(*LYING, (20, 200, 420)), frame(*LYING, (21, 330, 420))], tracker)
    assert sorted(t.card_index for t in tracker.tracks if not t.landed) == [20, 21]


def test_a_card_that_rested_lands_whole_and_no_glimpse_is_reported_for_the_sweep():
    events = track(collected_while_coming(20, rest_frames=6))
    landed = [e for e in events if isinstance(e, CardLanded)]
    assert sorted(e.card_index for e in landed) == [3, 7, 12, 20]
    assert all(e.weight == 1.0 for e in landed)


def test_cards_in_hands_and_a_card_read_anew_on_the_table_are_no_glimpse():
    frames = [frame(*LYING, (5, 640, 700), (7, 40, 360))] * 10
    # A card of the trick is read as another card for a few frames (no card came in).
    frames += [frame((3, 640, 460), (7, 560, 360), (15, 640, 280), (5, 640, 700))] * 3
    frames += [frame()] * 10
    landed = [e for e in track(frames) if isinstance(e, CardLanded)]
    assert sorted(e.card_index for e in landed) == [3, 7, 12]
    assert all(e.weight == 1.0 for e in landed)


def test_a_card_says_where_it_came_in_from_unless_first_seen_where_it_lay():
    landed = [e for e in track(collected_while_coming(20, rest_frames=6)) if isinstance(e, CardLanded)]
    came = {e.card_index: e.came_from for e in landed}
    assert came[20] == pytest.approx((200, 420))  # pushed in from seat 1's side
    assert came[3] is None and came[7] is None and came[12] is None


def test_a_card_given_up_says_when_it_was_last_seen():
    frames = [frame((3, 640, 460))] * 10 + [frame()] * 50
    (left,) = [e for e in track(frames) if isinstance(e, CardLeft)]
    assert left.last_seen == pytest.approx(0.9)
    assert left.time - left.last_seen > 1.0  # given up only after the hold time


def test_no_glimpses_when_their_weight_is_zero():
    events = track(collected_while_coming(20, rest_frames=1), CardTracker(GEOMETRY, glimpse_weight=0.0))
    assert sorted(e.card_index for e in events if isinstance(e, CardLanded)) == [3, 7, 12]


# --- the decoder, on sightings made up card by card ------------------------------------------------


def made_up(plays: list[tuple[int, str]]) -> list[Sighting]:
    """Sure sightings of ``plays`` (seat, card): a card 2 s after the one before, lying towards its
    seat (seat 0 at the bottom, clockwise), each trick swept 2 s after its last card."""
    out = []
    for n, (seat, code) in enumerate(plays):
        trick = n // 4
        angle = math.radians(90.0 + 90.0 * seat + (n % 3 - 1) * 8.0)
        landed = 14.0 * trick + 2.0 * (n % 4)
        swept = 14.0 * trick + 8.0
        out.append(
            Sighting(
                track_id=n,
                readings=((Card.parse(code).index, 1.0),),
                confidence=0.9,
                center=(WIDTH / 2 + 110 * math.cos(angle), HEIGHT / 2 + 110 * math.sin(angle)),
                landed=landed,
                frame=int(landed * FPS),
                left=swept + 0.5,
                left_frame=int((swept + 0.5) * FPS),
                last_seen=swept,
            )
        )
    return out


def decode(sightings: list[Sighting]):
    return GameDecoder().decode(sightings, GameSpec().game_factory(), GEOMETRY)


PLAYS = list(simulate_game(7).plays)


@pytest.mark.parametrize("trick", [0, 5, 11])
def test_a_card_put_down_and_taken_back_is_no_play(trick):
    sightings = made_up(PLAYS)
    n = 4 * trick + 2
    play = sightings[n]
    # Its player first put down another card where the played one lies, then took it back alone.
    seat, code = PLAYS[n]
    other = next(c for s, c in PLAYS[n + 1 :] if s == seat) if trick < 11 else PLAYS[n - 4][1]
    taken = replace(
        play,
        track_id=1000,
        readings=((Card.parse(other).index, 1.0),),
        landed=play.landed - 1.5,
        last_seen=play.landed - 0.6,
        left=play.landed + 3.4,  # given up while still out of sight
        center=(play.center[0] + 8.0, play.center[1] - 5.0),
    )
    result = decode([*sightings, taken])
    assert tricks_of(result.game) == tricks_of(decode(sightings).game)
    assert [(s.track_id, why) for s, why in result.dropped] == [(1000, "withdrawn")]


@pytest.mark.parametrize("trick", [0, 6, 11])
def test_a_glimpse_of_the_last_card_swept_with_its_trick_is_its_play(trick):
    sightings = made_up(PLAYS)
    n = 4 * trick + 3
    swept = sightings[n].last_seen
    assert swept is not None
    sightings[n] = replace(sightings[n], landed=swept - 0.2, weight=0.5, confidence=0.7)
    assert [(s, str(c)) for t in decode(sightings).game.tricks for s, c in t.plays] == PLAYS


@pytest.mark.parametrize("trick", [1, 6, 10])
def test_two_cards_lying_towards_each_others_seats_go_to_the_seats_they_came_from(trick):
    sightings = made_up(PLAYS)
    for n, lean in ((4 * trick + 1, 75.0), (4 * trick + 2, -75.0)):
        # Slid half under other cards: each lies well towards the other player, pushed in from its own side.
        own = 90.0 + 90.0 * PLAYS[n][0]
        lies, came = math.radians(own + lean), math.radians(own)
        sightings[n] = replace(
            sightings[n],
            center=(WIDTH / 2 + 110 * math.cos(lies), HEIGHT / 2 + 110 * math.sin(lies)),
            came_from=(WIDTH / 2 + 330 * math.cos(came), HEIGHT / 2 + 330 * math.sin(came)),
        )
    assert [(s, str(c)) for t in decode(sightings).game.tricks for s, c in t.plays] == PLAYS


def test_a_glimpse_of_a_card_that_then_landed_is_no_second_play():
    sightings = made_up(PLAYS)
    play = sightings[9]
    # The track was lost as the card slid under another; a new one found it at rest.
    glimpse = replace(
        play,
        track_id=1000,
        landed=play.landed - 0.3,
        left=play.landed + 0.2,
        last_seen=play.landed - 0.3,
        weight=0.5,
        center=(play.center[0] - 12.0, play.center[1] + 8.0),
    )
    result = decode([*sightings, glimpse])
    assert [(s, str(c)) for t in result.game.tricks for s, c in t.plays] == PLAYS


# --- whole rendered games with one kind of mishap at a time ------------------------------------------


def decoded_video(video: GameVideo):
    tracker = CardTracker(GEOMETRY)
    evidence = Evidence()
    for index, time in video.frame_times():
        evidence.add(tracker.update(video.truth(time), index, time))
    return GameDecoder().decode(evidence.sightings, GameSpec().game_factory(), GEOMETRY)


@pytest.mark.parametrize(
    "mishap",
    [
        Mishaps(pull_back=1.0),
        Mishaps(early_sweep=1.0),
        Mishaps(twins=1.0),
    ],
    ids=["pull_back", "early_sweep", "twins"],
)
def test_a_rendered_game_full_of_one_mishap_is_decoded_exactly(mishap):
    video = GameVideo(seed=72100, tricks=5, fps=FPS, mishaps=mishap)
    staged = {event for events in video.trick_mishaps().values() for event in events}
    assert staged & {"pull_back", "early_sweep", "twins"}  # the game shows it
    truth = tricks_of(load_record(video.game.record()).to_game())
    assert tricks_of(decoded_video(video).game) == truth


def test_the_live_decoders_log_keeps_a_glimpse_and_when_a_card_was_last_seen():
    from dokocam.vision.table.live import LiveDecoder

    # A trick collected with its last card still coming, then a card lying alone until given up.
    events = track(collected_while_coming(20, rest_frames=1) + [frame((3, 640, 460))] * 10 + [frame()] * 50)
    live = LiveDecoder(GameSpec().game_factory(), GEOMETRY)
    for event in events:
        live.update([event])
    sightings = live.evidence.sightings
    assert sorted(s.weight for s in sightings) == [0.5, 1.0, 1.0, 1.0, 1.0]
    assert all(s.last_seen is not None and s.left is not None and s.last_seen <= s.left for s in sightings)
    assert sum(s.came_from is not None for s in sightings) == 1
    again = LiveDecoder(GameSpec().game_factory(), GEOMETRY)
    again.replay(live.evidence_dict())
    assert again.evidence.sightings == sightings
