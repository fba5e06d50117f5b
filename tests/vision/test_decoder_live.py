"""The live decoder: plays as their cards come to rest, revisions as events, a person's word kept,
the evidence replayed to the same game, and the live game equal to the offline decode at the end."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from dokocam.engine import Card, Contract, Game, SoloKind
from dokocam.engine.record import load_record
from dokocam.service.recorded import legal_plays
from dokocam.vision.synth.video import GameVideo, simulate_game
from dokocam.vision.table.decoder import Evidence, GameDecoder
from dokocam.vision.table.events import CardPlayed, CardRevised
from dokocam.vision.table.geometry import TableGeometry
from dokocam.vision.table.live import LiveDecoder, _event_from
from dokocam.vision.table.pipeline import GameSpec
from dokocam.vision.table.tracker import CardLanded, CardLeft, CardTracker, TrackerEvent

WIDTH, HEIGHT = 1280, 720
GEOMETRY = TableGeometry.default(WIDTH, HEIGHT)


def tricks_of(game: Game) -> list[list[tuple[int, str]]]:
    return [[(s, str(c)) for s, c in t.plays] for t in game.tricks]


@pytest.fixture(scope="module")
def stream() -> tuple[list[list[TrackerEvent]], list[list[tuple[int, str]]]]:
    """A whole rendered game as the tracker reported it, frame by frame (ground-truth boxes), and its true tricks."""
    video = GameVideo(seed=23, fps=5.0)
    tracker = CardTracker(GEOMETRY)
    frames = [tracker.update(video.truth(time), index, time) for index, time in video.frame_times()]
    return [f for f in frames if f], tricks_of(load_record(video.game.record()).to_game())


def live_decoder() -> LiveDecoder:
    return LiveDecoder(GameSpec().game_factory(), GEOMETRY)


def run(live: LiveDecoder, frames: list[list[TrackerEvent]]) -> list:
    return [e for events in frames for e in live.update(events)]


def test_live_decoding_of_a_recorded_stream_ends_with_the_offline_decode(stream):
    frames, truth = stream
    live = live_decoder()
    events = run(live, frames)
    evidence = Evidence()
    for events_of_frame in frames:
        evidence.add(events_of_frame)
    offline = GameDecoder().decode(evidence.sightings, GameSpec().game_factory(), GEOMETRY)
    assert tricks_of(live.game) == tricks_of(offline.game) == truth
    kinds = [e.type for e in events]
    assert kinds.count("card_played") == 48 and kinds.count("trick_complete") == 12 and kinds.count("game_over") == 1
    assert "card_revised" not in kinds  # clean readings: nothing to take back
    assert "card_seen" not in kinds  # every card seen in its turn: none shown ahead of it


def _misread(frames: list[list[TrackerEvent]], track: int, code: str, share: float) -> list[list[TrackerEvent]]:
    """``frames`` with the landing of ``track`` read as ``code`` by ``share`` of the votes, its true card the rest."""
    wrong = Card.parse(code).index
    out = []
    for events in frames:
        changed = []
        for e in events:
            if isinstance(e, CardLanded) and e.track_id == track:
                e = replace(
                    e, card_index=wrong, candidates=((wrong, share), (e.card_index, 1.0 - share)), confidence=0.5
                )
            changed.append(e)
        out.append(changed)
    return out


def _landings(frames: list[list[TrackerEvent]]) -> list[CardLanded]:
    return [e for events in frames for e in events if isinstance(e, CardLanded)]


def _swaps(truth: list[list[tuple[int, str]]]) -> list[tuple[int, int, str]]:
    """``(trick, turn, card)``: another card a play could have been that the rules cannot tell from it
    (the same suit class, every trick's winner and every flag but the third copy unchanged)."""
    factory = GameSpec().game_factory()
    plays = [p for trick in truth for p in trick]
    base = factory()
    for seat, code in plays:
        base.play(seat, code)
    out = []
    for n, (_, code) in enumerate(plays):
        for other in (str(Card.from_index(i)) for i in range(24)):
            if other == code:
                continue
            trial = factory()
            for k, (s, c) in enumerate(plays):
                trial.play(s, other if k == n else c)
            same_class = base.order.suit_class[Card.parse(code).index] == base.order.suit_class[Card.parse(other).index]
            winners = [t.winner() for t in trial.tricks] == [t.winner() for t in base.tricks]
            if same_class and winners and _flags(trial) == _flags(base):
                out.append((n // 4, n % 4, other))
    return out


def _flags(game: Game) -> list[str]:
    return [str(f.kind) for f in game.flags if "third" not in str(f.kind)]


def _early_play_and_late_copies(frames, truth):
    """The landings, their codes, and an early play (trick, turn, landing index) with a card ``late`` that fits it as
    well and whose two copies are both played later: a misreading only later evidence can undo."""
    landings = _landings(frames)
    codes = [str(Card.from_index(e.card_index)) for e in landings]
    plays = [c for trick in truth for _, c in trick]
    trick, turn, late = next((t, k, c) for t, k, c in _swaps(truth) if 1 <= t <= 4 and plays.index(c) > 4 * t + 3)
    return landings, codes, trick, turn, late, codes.index(truth[trick][turn][1], 4 * trick)


def test_a_last_trick_collected_with_a_card_never_seen_ends_the_game_by_the_deck(stream):
    frames, truth = stream
    landed = [e for events in frames for e in events if isinstance(e, CardLanded)]
    last = max(landed, key=lambda e: e.time)  # the game's last card: nobody sees it
    unseen = [[e for e in events if e.track_id != last.track_id] for events in frames]
    live = live_decoder()
    events = run(live, [f for f in unseen if f])
    kinds = [e.type for e in events]
    # No sighting follows the collected trick to close it: its cards leaving end the game.
    assert kinds.count("game_over") == 1 and kinds.count("trick_complete") == 12
    assert tricks_of(live.game) == truth  # the 48th card is the one the deck still holds


def test_a_card_nobody_sees_does_not_hold_back_the_cards_after_it_in_its_trick(stream):
    frames, truth = stream
    landings = _landings(frames)
    hidden = landings[4 * 3 + 1]  # the second card of the fourth trick slides under the first: never seen
    after = landings[4 * 3 + 2 : 4 * 3 + 4]
    assert [str(Card.from_index(e.card_index)) for e in after] == [c for _, c in truth[3][2:]]
    unseen = [[e for e in events if e.track_id != hidden.track_id] for events in frames]
    events = run(live_decoder(), [f for f in unseen if f])
    seen = [e for e in events if e.type == "card_seen"]
    # Each shown the moment it came to rest, with its seat and card, while the seat before it is still open ...
    assert [(e.trick, e.seat, e.card, e.time) for e in seen] == [
        (3, seat, card, landing.time) for (seat, card), landing in zip(truth[3][2:], after, strict=True)
    ]
    # ... and played in turn order only once the trick is decided, the unseen card by what the deck holds.
    played = [e for e in events if e.type == "card_played" and e.trick == 3]
    assert [(e.seat, e.card) for e in played] == truth[3]
    assert played[0].time < seen[0].time and all(p.time > seen[-1].time for p in played[1:])


def test_a_second_copy_turning_up_revises_the_first_reading_once(stream):
    frames, truth = stream
    landings, codes, trick, turn, late, early = _early_play_and_late_copies(frames, truth)
    second = max(k for k, c in enumerate(codes) if c == late)
    frames = _misread(frames, landings[early].track_id, late, 0.7)
    live = live_decoder()
    events = run(live, frames)
    revisions = [e for e in events if isinstance(e, CardRevised)]
    assert [(r.trick, r.old, r.new, r.reason) for r in revisions] == [(trick, late, codes[early], "copies")]
    # Told within a second of the landing that makes the first reading a third copy.
    assert 0 <= revisions[0].time - landings[second].time <= 1.0
    assert f"Stich {trick + 1}" in revisions[0].message
    assert f"nicht {Card.parse(late).german_name}" in revisions[0].message
    assert tricks_of(live.game) == truth


def test_a_persons_correction_survives_everything_seen_later(stream):
    frames, truth = stream
    landings, codes, trick, turn, late, early = _early_play_and_late_copies(frames, truth)
    # The camera reads the card surely as another one; a person corrects it before its copies show.
    frames = _misread(frames, landings[early].track_id, late, 1.0)
    frames = [[replace(e, confidence=1.0) if isinstance(e, CardLanded) else e for e in f] for f in frames]
    cut = next(i for i, f in enumerate(frames) if any(e.time > landings[4 * trick + 3].time + 3 for e in f))
    live = live_decoder()
    run(live, frames[:cut])
    seat = truth[trick][turn][0]
    assert dict(tricks_of(live.game)[trick])[seat] == late
    events = live.fix(trick, seat, codes[early])
    assert not [e for e in events if isinstance(e, CardRevised)]  # their own word is not told back to them
    later = run(live, frames[cut:])
    assert not [e for e in later if isinstance(e, CardRevised) and e.trick == trick]
    assert tricks_of(live.game) == truth
    # A correction the deck contradicts (a third copy) is kept all the same.
    wrong = live_decoder()
    run(wrong, frames[:cut])
    wrong.fix(trick, seat, late)
    run(wrong, frames[cut:])
    assert dict(tricks_of(wrong.game)[trick])[seat] == late


def test_the_logged_evidence_replays_to_the_same_game_and_the_same_revisions(stream):
    frames, truth = stream
    landings = _landings(frames)
    frames = _misread(frames, landings[5].track_id, str(Card.from_index(landings[40].card_index)), 0.7)
    live = live_decoder()
    events = run(live, frames[:25])
    events += live.fix(1, truth[1][0][0], truth[1][0][1])
    events += run(live, frames[25:])
    logged = json.loads(json.dumps(live.evidence_dict()))
    again = live_decoder()
    replayed = again.replay(logged)
    assert [e.to_dict() for e in replayed] == [e.to_dict() for e in events]
    assert tricks_of(again.game) == tricks_of(live.game)


def test_logged_evidence_that_is_not_evidence_is_refused_with_its_kind():
    with pytest.raises(ValueError, match="'tracked', 'fixed', 'contract' or 'calls'"):
        live_decoder().replay([{"kind": "frame"}])


# --- what the table tells the decoder -------------------------------------------------------------

SOLO = Contract.solo(SoloKind.QUEENS, 2)


def solo_plays(seed: int = 1) -> list[tuple[int, str]]:
    """A whole queens solo of seat 2: random legal cards from a random deal (seed 1's first trick goes to
    another seat under the normal trumps)."""
    return legal_plays(seed, SOLO)


def tracked(plays: list[tuple[int, str]]) -> list[list[TrackerEvent]]:
    """The tracker's frames for ``plays``: each card at rest 2 s after the one before, lying towards its seat
    (seat 0 at the bottom, clockwise), read surely; each trick collected 2 s after its last card."""
    frames: list[list[TrackerEvent]] = []
    for n, (seat, code) in enumerate(plays):
        trick, k = divmod(n, 4)
        angle = math.radians(90.0 + 90.0 * seat + (n % 3 - 1) * 8.0)
        center = (WIDTH / 2 + 110 * math.cos(angle), HEIGHT / 2 + 110 * math.sin(angle))
        landed = 14.0 * trick + 2.0 * k
        index = Card.parse(code).index
        frames.append([CardLanded(n, index, 0.9, center, int(landed * 5), landed, candidates=((index, 1.0),))])
        if k == 3:
            gone = landed + 2.0
            frames.append(
                [CardLeft(m, Card.parse(plays[m][1]).index, int(gone * 5), gone) for m in range(n - 3, n + 1)]
            )
    return frames


def test_a_solo_told_after_the_first_trick_decodes_the_next_leaders_by_its_trumps():
    plays = solo_plays()
    truth = [plays[k : k + 4] for k in range(0, 48, 4)]
    normal = Game()
    for seat, code in plays[:4]:
        normal.play(seat, code)
    assert normal.tricks[0].winner() != truth[1][0][0]  # the normal trumps would have another seat lead trick 2
    frames = tracked(plays)
    live = live_decoder()
    run(live, frames[:5])  # the first trick, played and collected
    assert tricks_of(live.game) == truth[:1]
    events = live.set_contract(SOLO, time=10.0)
    assert live.set_contract(SOLO) == []  # told again: nothing changes
    run(live, frames[5:])
    assert live.game.contract == SOLO and tricks_of(live.game) == truth
    assert not [e for e in events if isinstance(e, CardRevised)]  # trick 1's cards stay as shown
    # The log holds the table's word: decoded again from it, under the normal contract first, the same game.
    again = live_decoder()
    again.replay(json.loads(json.dumps(live.evidence_dict())))
    assert again.game.contract == SOLO and tricks_of(again.game) == truth


def test_a_call_its_cards_contradict_makes_that_reading_less_probable():
    base = Game()
    # A normal game's first two tricks where seat 1 plays a trump other than a Kreuz-Dame in the second.
    plays, n = next(
        (p, n)
        for seed in range(100)
        for p in [list(simulate_game(seed, tricks=2).plays)]
        for n in range(4, 8)
        if p[n][0] == 1
        and p[n][1] != "QC"
        and base.order.is_trump(Card.parse(p[n][1]))
        and all(c != "QC" for s, c in p if s == 1)
    )
    game = Game()
    for seat, code in plays:
        game.play(seat, code)
    # Seat 1 says Kontra before the first card; its trump is read rather as a Kreuz-Dame.
    frames = tracked(plays)
    landing = frames_landing(frames, n)
    true = Card.parse(plays[n][1]).index
    frames = [
        [replace(e, candidates=((Card.parse("QC").index, 0.55), (true, 0.45))) if e is landing else e for e in f]
        for f in frames
    ]
    guessed = live_decoder()
    run(guessed, frames)
    assert dict(tricks_of(guessed.game)[1])[1] == "QC"  # without the call the reading wins
    told = live_decoder()
    told.set_calls([(0, 1, "kontra")])
    run(told, frames)
    assert tricks_of(told.game) == tricks_of(game)
    assert [(seat, call.value) for seat, call, _ in told.game.calls] == [(1, "kontra")]


def frames_landing(frames: list[list[TrackerEvent]], track: int) -> CardLanded:
    return next(e for f in frames for e in f if isinstance(e, CardLanded) and e.track_id == track)


def test_a_seating_given_up_early_is_decoded_again_when_the_game_ends():
    """While few cards lay, the right seating of this recorded game was more than the seating margin behind and
    was given up: the live decoder ended with every card in its trick under the wrong seat. At the game's end
    every seating is decoded again, as the offline decode does."""
    data = json.loads((Path(__file__).parent / "data" / "seed73054-tracked.json").read_text())
    live = live_decoder()
    evidence = Evidence()
    for frame in data["frames"]:
        events = [_event_from(e) for e in frame]
        live.update(events)
        evidence.add(events)
    offline = GameDecoder().decode(evidence.sightings, GameSpec().game_factory(), GEOMETRY)
    assert live.over and len(offline.game.tricks) == 12
    assert tricks_of(live.game) == tricks_of(offline.game)


def test_a_seating_is_not_carried_to_a_neighbouring_seat_by_directions_that_swing_while_few_cards_lay():
    """In this recorded game the seat directions found from where the first twelve cards lay swung by 45 degrees;
    a seating that only followed them came to the neighbouring seat, and every play was shown at the wrong seat
    until the game ended. Every way to seat is decoded again while few cards lay: once four tricks' cards have
    landed, each play is shown at the seat it keeps."""
    data = json.loads((Path(__file__).parent / "data" / "seed73141-tracked.json").read_text())
    live = live_decoder()
    landed, played = 0, 0
    late: list[tuple[int, int]] = []  # (play, seat) shown once four tricks' cards had landed
    for frame in data["frames"]:
        events = [_event_from(e) for e in frame]
        landed += sum(isinstance(e, CardLanded) for e in events)
        for e in live.update(events):
            if isinstance(e, CardPlayed):
                late += [(played, e.seat)] if landed > 16 else []
                played += 1
            elif isinstance(e, CardRevised) and landed > 16:
                late.append((e.play, e.new_seat))
    seats = [seat for trick in live.game.tricks for seat, _ in trick.plays]
    assert live.over and len(seats) == 48 and len(late) > 30
    assert [(n, seats[n]) for n, _ in late] == late
