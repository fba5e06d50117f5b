"""Property tests: random legal games under every contract and rule set keep the invariants.

Every game comes from ``engine.bench.random_game`` driven by a Hypothesis random: random rules
(both presets, every game switch), a random contract of any kind with hands dealt to fit it,
legal cards only (``game.legal_cards`` in a strict game) and random announcements.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import Card, Contract, ContractType, Game, Party, Rules
from engine.bench import random_game
from engine.errors import IllegalCallError
from engine.sheet import Partie, check_entries

# A game draws a few hundred choices; the suppressed checks only say that this is a lot of data.
SLOW_OK = [HealthCheck.too_slow, HealthCheck.large_base_example, HealthCheck.data_too_large]
FAST = settings(max_examples=60, deadline=None, suppress_health_check=SLOW_OK)

randoms = st.randoms(use_true_random=False)


@st.composite
def games(draw: st.DrawFn) -> Game:
    game = random_game(draw(randoms))
    event(f"contract {game.contract.type.value}")
    return game


def state(game: Game) -> tuple:
    """Everything observable about a game's position."""
    return (
        list(game.history),
        [(t.leader, list(t.plays)) for t in game.tricks],
        (game.current_trick.leader, list(game.current_trick.plays)),
        game.to_move,
        [flag.to_dict() for flag in game.flags],
        game.parties(),
        game.calls,
        game.trick_number,
        game.is_over,
    )


def hands_of(game: Game) -> list[list[Card]]:
    assert game.hands is not None
    return [list(hand.elements()) for hand in game.hands]


@FAST
@given(games())
def test_every_trick_has_four_cards_and_the_augen_add_up(game: Game) -> None:
    assert game.is_over and game.to_move is None
    assert len(game.tricks) == game.rules.hand_size  # 12, or 10 without nines
    assert all(len(trick.plays) == 4 for trick in game.tricks)
    assert [trick.leader for trick in game.tricks[1:]] == [trick.winner() for trick in game.tricks[:-1]]
    assert sum(trick.augen for trick in game.tricks) == 240
    result = game.result()
    assert result.augen[Party.RE] + result.augen[Party.KONTRA] == 240
    assert result.tricks_won[Party.RE] + result.tricks_won[Party.KONTRA] == game.rules.hand_size
    played = sorted((card.index for trick in game.tricks for _, card in trick.plays))
    dealt = sorted(card.index for hand in hands_of(game) for card in hand)
    assert played == dealt


@FAST
@given(games(), st.integers(0, 2))
def test_points_sum_to_zero_and_share_parity(game: Game, bock: int) -> None:
    result = Game.replay(game.rules, game.contract, game.players, game.history, hands_of(game), bock=bock).result()
    check_entries(result.points)  # DDV 7.3.3
    assert result.game_value == result.base_value * 2**bock
    assert result.points == tuple(p * 2**bock for p in game.result().points)
    re_seats = [s for s in range(4) if result.parties[s] is Party.RE]
    if result.solo is not None:
        assert re_seats == [result.solo]
        others = [result.points[s] for s in range(4) if s != result.solo]
        assert len(set(others)) == 1 and result.points[result.solo] == -3 * others[0]
    else:
        assert len(re_seats) == 2
        assert len({result.points[s] for s in re_seats}) == 1


@FAST
@given(games())
def test_parties_follow_the_contract(game: Game) -> None:
    result = game.result()
    re_seats = {s for s in range(4) if result.parties[s] is Party.RE}
    contract = game.contract
    if contract.type is ContractType.NORMAL:
        assert re_seats == {s for s, hand in enumerate(hands_of(game)) if Card.parse("QC") in hand}
    elif contract.type in (ContractType.SOLO, ContractType.SILENT_HOCHZEIT):
        assert re_seats == {contract.declarer}
    elif contract.type is ContractType.ARMUT:
        assert re_seats == {contract.declarer, contract.partner}
    else:
        partner = game.hochzeit_partner
        assert re_seats == ({contract.declarer} if partner is None else {contract.declarer, partner})
    # At the end of a legal game every party is known.
    assert game.parties() == result.parties


@FAST
@given(games())
def test_legal_games_raise_no_flags(game: Game) -> None:
    assert game.flags == []
    assert game.result().flags == []


@FAST
@given(games())
def test_replaying_the_history_gives_the_same_state_and_result(game: Game) -> None:
    again = Game.replay(game.rules, game.contract, game.players, game.history, hands_of(game), strict=True)
    assert state(again) == state(game)
    assert again.result().to_dict() == game.result().to_dict()


@FAST
@given(games(), st.data())
def test_undo_then_replay_gives_the_same_state(game: Game, data: st.DataObject) -> None:
    history = list(game.history)
    k = data.draw(st.integers(1, len(history)), label="events undone")
    work = Game.replay(game.rules, game.contract, game.players, history, hands_of(game), strict=True)
    undone = [work.undo() for _ in range(k)][::-1]
    assert undone == history[-k:]
    shorter = Game.replay(game.rules, game.contract, game.players, history[:-k], hands_of(game))
    assert state(work) == state(shorter)
    for ev in undone:
        if hasattr(ev, "card"):
            work.play(ev.seat, ev.card)
        else:
            work.call(ev.seat, ev.call)
    assert state(work) == state(game)
    assert work.result().to_dict() == game.result().to_dict()


@FAST
@given(games())
def test_the_camera_view_scores_like_the_full_view(game: Game) -> None:
    """Without hands (what a camera sees) a game without calls or Schweinchen scores the same.

    Calls and Schweinchen are left out here: see the strict xfail tests below.
    """
    if game.calls or game.schweinchen_seat is not None:
        return
    seen = Game.replay(game.rules, game.contract, game.players, game.history)
    assert [t.winner() for t in seen.tricks] == [t.winner() for t in game.tricks]
    assert seen.result().to_dict() == game.result().to_dict()


@settings(max_examples=20, deadline=None, suppress_health_check=SLOW_OK)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_a_partie_of_random_games_keeps_the_sheet_balanced(seed: int, five: bool) -> None:
    # Six games are too much data for Hypothesis to shrink well; a seed keeps the case small.
    rng = random.Random(seed)
    rules = Rules.pub()  # Bockrunden on
    players = ["A", "B", "C", "D", "E"][: 5 if five else 4]
    partie = Partie(players, rules, games=6)
    while not partie.is_over:
        deal = partie.deal
        assert deal is not None
        game = random_game(rng, rules, Contract.normal(), players=deal.seats)
        game = Game.replay(rules, game.contract, deal.seats, game.history, hands_of(game), bock=deal.bocks)
        entry = partie.record_game(game)
        assert sorted(entry.points.values()) == sorted(game.result().points)
        assert sum(partie.totals.values()) == 0
    assert len(partie.entries) == 6


# -- known limits of the camera view (hands unknown); strict xfails flip when fixed --------


@pytest.mark.xfail(raises=IllegalCallError, strict=True, reason="camera view: Absage by a seat of unknown party")
def test_camera_view_accepts_an_absage_when_both_parties_announced() -> None:
    # Legal at a real table: seat 2 knows its party (Re or Kontra) and says keine 90 while
    # holding 12 cards. Without hands the engine cannot tell which party it is for and refuses,
    # so a legal record without "hands" cannot be replayed.
    game = Game()
    game.call(0, "re")
    game.call(1, "kontra")
    game.call(2, "no90")


@pytest.mark.xfail(strict=True, reason="camera view: Schweinchen is known only at the second Karo-Ass")
def test_camera_view_knows_schweinchen_at_the_first_karo_ass() -> None:
    # Seat 0 holds both Karo-Asse under the pub rules; at the table they say "Schweinchen" when
    # playing the first one, which then beats the Dulle. The camera has no event for that
    # announcement, so until the second Karo-Ass is played the trick goes to the Dulle.
    game = Game(Rules.pub())
    for seat, card in enumerate(["AD", "10H", "9D", "9D"]):
        game.play(seat, card)
    assert game.tricks[0].winner() == 0
