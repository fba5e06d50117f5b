"""Game videos: each real-table event changes the frames as it says and never the game that was played."""

from __future__ import annotations

import math

import pytest

from dokocam.engine import Card
from dokocam.engine.record import load_record
from dokocam.vision.synth.video import (
    GameVideo,
    Mishaps,
    design_deck,
    design_for_seed,
    game_designs,
    simulate_game,
)

SEEDS = range(300, 306)


def tricks_of(plays: tuple[tuple[int, str], ...]) -> list[tuple[tuple[int, str], ...]]:
    return [plays[k : k + 4] for k in range(0, len(plays), 4)]


def card_index(code: str) -> int:
    return Card.parse(code).index


def twin_tricks(plays: tuple[tuple[int, str], ...]) -> int:
    return sum(len({card for _, card in trick}) < len(trick) for trick in tricks_of(plays))


def same_game(video: GameVideo, seed: int) -> bool:
    """The video's ground truth is the game a tidy table plays with that seed."""
    return video.game.record() == GameVideo(seed=seed, tricks=video.tricks).game.record()


def test_twins_make_players_put_both_copies_into_one_trick_and_the_game_stays_legal():
    plain = sum(twin_tricks(simulate_game(seed).plays) for seed in SEEDS)
    twins = [simulate_game(seed, twins=1.0) for seed in SEEDS]
    assert sum(twin_tricks(g.plays) for g in twins) > plain
    for g in twins:
        game = load_record(g.record()).to_game()  # every card legal: the record replays without a flag
        assert game.flags == [] and len(game.tricks) == 12
        assert sorted(c for hand in g.hands for c in hand) == sorted(c for _, c in g.plays)


def test_a_card_slid_under_another_lies_below_it_partly_hidden_and_the_game_is_unchanged():
    video = GameVideo(seed=301, tricks=4, mishaps=Mishaps(slide_under=1.0))
    assert same_game(video, 301)
    slid = [c for c in video.timeline if c.layer != int(c.layer)]
    assert slid, "every card after a trick's first slides under another at rate 1"
    card = slid[0]
    over = min(
        (c for c in video.timeline if c.trick == card.trick and c.push < card.push),
        key=lambda c: math.dist(c.rest, card.rest),
    )
    t = max(card.land, over.land) + 0.05
    codes = [code for code, *_ in video.scene(t).cards]
    # Drawn before (under) the card it was pushed under, though played after it, and half over it.
    assert codes.index(card.card) < codes.index(over.card)
    assert math.dist(card.rest, over.rest) < 6.0
    tidy = GameVideo(seed=301, tricks=4)
    tidy_card = next(c for c in tidy.timeline if (c.trick, c.seat) == (card.trick, card.seat))
    assert math.dist(tidy_card.rest, over.rest) != math.dist(card.rest, over.rest)


def test_a_resting_hand_covers_cards_of_the_trick_for_a_while():
    video = GameVideo(seed=302, tricks=4, mishaps=Mishaps(hand_rest=1.0), steady=True)
    assert same_game(video, 302)
    assert video.rests and all(1.5 <= r.end - r.start <= 4.0 for r in video.rests)
    hidden = 0
    for rest in video.rests:
        mid = (rest.start + rest.end) / 2
        state = video.scene(mid)
        assert any(math.dist(end, rest.at) < 1e-6 for _, end in state.arms)
        hidden += len(video.truth(mid)) < len(state.cards)
    assert hidden > 0, "a palm on the trick hides at least one card in some rest"


def test_a_card_put_down_and_pulled_back_shows_then_leaves_and_the_player_plays_another():
    video = GameVideo(seed=303, tricks=4, mishaps=Mishaps(pull_back=1.0))
    assert same_game(video, 303)
    assert video.withdrawn
    for w in video.withdrawn:
        played = next(c for c in video.timeline if (c.trick, c.seat) == (w.trick, w.seat))
        assert w.card in video.game.hands[w.seat] and w.card != played.card
        assert w.gone < played.push  # taken back before the real card comes
        # Let go, it lies there alone for a moment, and a perfect detector sees it.
        alone = (w.release + 0.3 + w.sweep - 0.4) / 2
        assert w.card in [code for code, *_ in video.scene(alone).cards]
        assert card_index(w.card) in video.truth(alone).class_id.tolist()
        after = [code for code, *_ in video.scene(w.gone + 0.01).cards]
        played_copies = [c.card for c in video.timeline if c.push <= w.gone + 0.01 < c.gone]
        assert after.count(w.card) == played_copies.count(w.card)


def test_an_early_collection_sweeps_the_trick_a_moment_after_its_last_card_lands():
    tidy = GameVideo(seed=304, tricks=4)
    video = GameVideo(seed=304, tricks=4, mishaps=Mishaps(early_sweep=1.0))
    assert same_game(video, 304)
    for trick in range(4):
        last = [c for c in video.timeline if c.trick == trick][-1]
        tidy_last = [c for c in tidy.timeline if c.trick == trick][-1]
        assert 0.05 <= last.sweep - last.land <= 0.3 < tidy_last.sweep - tidy_last.land
        # The winner's hand is already reaching in while the last card is still being pushed.
        assert len(video.scene(last.land - 0.05).arms) >= 2
    assert all("early_sweep" in video.trick_mishaps()[k] for k in range(4))


def test_a_bumped_camera_shifts_and_turns_the_view_and_it_stays_so():
    video = GameVideo(seed=305, mishaps=Mishaps(bump=1.0), steady=True)
    assert same_game(video, 305) and video.bump is not None
    bump = video.bump
    centre = [[0.0, 0.0]]
    before = video.camera(video.scene(bump.time - 0.1)).project(centre)[0]
    after = video.camera(video.scene(bump.time + 0.5)).project(centre)[0]
    later = video.camera(video.scene(video.duration - 0.1)).project(centre)[0]
    assert math.dist(before, after) > 10.0  # pixels: 2-5 cm on a 1280 px view of about a metre
    assert math.dist(after, later) < 1e-6
    assert video.scene(video.duration - 0.1).shake == (bump.shift[0], bump.shift[1], bump.turn)
    assert 2.0 <= math.hypot(*bump.shift) <= 5.0 and 1.5 <= abs(bump.turn) <= 4.0


def test_mishaps_parse_names_a_bad_item():
    assert Mishaps.parse("none") == Mishaps() and Mishaps.parse("realistic") == Mishaps.realistic()
    with pytest.raises(ValueError, match="'wobble=1'"):
        Mishaps.parse("wobble=1")
    with pytest.raises(ValueError, match="RATE 0-1"):
        Mishaps.parse("bump=2")


def test_games_cycle_through_the_held_out_designs_and_draw_each():
    heldout = game_designs("heldout")
    assert {design_for_seed(s, "heldout") for s in range(10)} == set(heldout)
    assert not set(heldout) & set(game_designs("train"))
    for name in heldout:
        deck = design_deck(name, seed=7)
        assert deck.face("QC").image.shape[0] > deck.face("QC").image.shape[1]
    font = design_deck("font:liberation-serif", seed=7)
    assert "LiberationSerif" in font.style.font
    with pytest.raises(ValueError, match="cannot be drawn"):
        GameVideo(seed=1, design="svg:nope")


def test_render_game_refuses_an_unknown_design_or_event_with_a_message(tmp_path, capsys):
    from dokocam.service.cli import main

    out = tmp_path / "g.mp4"
    base = ["dataset", "render-game", str(out), "--seed", "5", "--tricks", "1", "--size", "160x90", "--fps", "2"]
    assert main([*base, "--design", "svg:nope"]) == 2
    assert "--design" in capsys.readouterr().err and not out.exists()
    assert main([*base, "--events", "wobble=1"]) == 2
    assert "--events" in capsys.readouterr().err and not out.exists()
