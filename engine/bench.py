"""Engine benchmark: replay and score complete recorded games in a loop on one core.

``run`` loads ``dokocam-game/1`` records (such as the reference games under
``tests/reference_games`` of a checkout) plus random legal games made with a fixed seed, then replays every
record into a fresh ``Game`` and scores it with ``result()`` until the time is up. This is what
``dokocam bench engine`` prints. It also holds ``random_game``, the random legal game the
property tests and the benchmark share.

>>> import random
>>> game = random_game(random.Random(7))
>>> game.is_over, len(game.tricks) == game.rules.hand_size, sum(game.result().points)
(True, True, 0)
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from dokocam.engine.cards import ALL_CARDS, Card, Rank, Suit
from dokocam.engine.contract import Contract, ContractType, SoloKind
from dokocam.engine.errors import IllegalCallError
from dokocam.engine.game import Game
from dokocam.engine.record import GameRecord, load_record
from dokocam.engine.rules import HochzeitPartner, Rules
from dokocam.engine.types import Call, Party, PlayEvent

__all__ = ["random_rules", "random_contract", "deal_hands", "random_game", "run", "format_report"]


_QC = Card(Rank.QUEEN, Suit.CLUBS)
_FOX = Card(Rank.ACE, Suit.DIAMONDS)
#: Switches that change how a game is played or scored (Pflichtsolo and Schmeißen do not).
_GAME_SWITCHES = (
    "without_nines",
    "second_dulle_beats_first",
    "second_dulle_except_last_trick",
    "schweinchen",
    "fuchs_am_end",
    "karlchen_fangen",
    "armut",
    "bockrunden",
    "bock_after_120",
    "bock_after_lost_solo",
    "bock_after_heart_trick",
    "bock_after_lost_announcement",
    "solo_special_points",
    "gegen_die_alten_in_solo",
    "schwarze_sau",
    "announce_by_trick",
)
_CONTRACT_KINDS = ("normal", "hochzeit", "silent_hochzeit", "solo", "armut")


def random_rules(rng: random.Random) -> Rules:
    """A preset with every game switch set at random (and a random Hochzeit partner condition)."""
    base = rng.choice((Rules.tournament(), Rules.pub(), Rules.family()))
    switches: dict[str, Any] = {name: rng.random() < 0.5 for name in _GAME_SWITCHES}
    switches["hochzeit_partner"] = rng.choice(list(HochzeitPartner))
    return replace(base, **switches)


def random_contract(rng: random.Random, rules: Rules) -> Contract:
    """A random contract of any kind the rules allow (Armut only with the ``armut`` switch)."""
    kinds = [k for k in _CONTRACT_KINDS if k != "armut" or rules.armut]
    kind = rng.choice(kinds)
    declarer = rng.randrange(4)
    if kind == "normal":
        return Contract.normal()
    if kind == "hochzeit":
        return Contract.hochzeit(declarer)
    if kind == "silent_hochzeit":
        return Contract.silent_hochzeit(declarer)
    if kind == "solo":
        return Contract.solo(rng.choice(list(SoloKind)), declarer, pflichtsolo=rng.random() < 0.3)
    return Contract.armut(declarer, rng.choice([s for s in range(4) if s != declarer]))


def deal_hands(rng: random.Random, rules: Rules, contract: Contract) -> list[list[Card]]:
    """Shuffle the deck and deal four hands that fit the contract.

    Normal game: the Kreuz-Damen lie in two hands. Hochzeit (announced or silent): both lie
    with the declarer. Armut: the declarer held at most three trumps, handed them to the partner
    and got as many cards of the partner's choice back (the hands returned are after that).
    """
    copies = rules.copies_of
    deck = [card for card in ALL_CARDS for _ in range(copies[card.index])]
    rng.shuffle(deck)
    size = rules.hand_size
    hands = [deck[k * size : (k + 1) * size] for k in range(4)]
    ctype = contract.type
    if ctype is ContractType.NORMAL:
        holders = [s for s in range(4) for c in hands[s] if c == _QC]
        if holders[0] == holders[1]:
            _swap_into(rng, hands, rng.choice([s for s in range(4) if s != holders[0]]), hands[holders[0]].index(_QC))
    elif ctype in (ContractType.HOCHZEIT, ContractType.SILENT_HOCHZEIT):
        declarer = contract.declarer
        assert declarer is not None
        for seat in range(4):
            while seat != declarer and _QC in hands[seat]:
                mine = [i for i, c in enumerate(hands[declarer]) if c != _QC]
                i, j = rng.choice(mine), hands[seat].index(_QC)
                hands[declarer][i], hands[seat][j] = hands[seat][j], hands[declarer][i]
    elif ctype is ContractType.ARMUT:
        _armut_exchange(rng, hands, contract)
    return hands


def _swap_into(rng: random.Random, hands: list[list[Card]], to: int, card_at: int) -> None:
    """Move the card at ``card_at`` of the hand holding two Kreuz-Damen to hand ``to``."""
    source = next(s for s in range(4) if hands[s].count(_QC) == 2)
    i = rng.choice([k for k, c in enumerate(hands[to]) if c != _QC])
    hands[source][card_at], hands[to][i] = hands[to][i], hands[source][card_at]


def _armut_exchange(rng: random.Random, hands: list[list[Card]], contract: Contract) -> None:
    declarer, partner = contract.declarer, contract.partner
    assert declarer is not None and partner is not None
    order = contract.card_order()
    poor = hands[declarer]
    # Give the declarer's surplus trumps to the others until at most three are left.
    others = [s for s in range(4) if s != declarer]
    while sum(order.is_trump(c) for c in poor) > 3:
        i = next(k for k, c in enumerate(poor) if order.is_trump(c))
        seat = rng.choice([s for s in others if any(not order.is_trump(c) for c in hands[s])])
        j = rng.choice([k for k, c in enumerate(hands[seat]) if not order.is_trump(c)])
        poor[i], hands[seat][j] = hands[seat][j], poor[i]
    trumps = [c for c in poor if order.is_trump(c)]
    for card in trumps:
        poor.remove(card)
    hands[partner].extend(trumps)
    for _ in trumps:
        back = hands[partner].pop(rng.randrange(len(hands[partner])))
        poor.append(back)


def _true_party(game: Game, hands: Sequence[Sequence[Card]], seat: int) -> Party | None:
    """The seat's party as the seat itself knows it (None: a Hochzeit not yet decided)."""
    c = game.contract
    if game.schwarze_sau is not None:
        return Party.RE if seat == game.schwarze_sau else Party.KONTRA
    if c.type is ContractType.NORMAL:
        return Party.RE if _QC in hands[seat] else Party.KONTRA
    if c.type is ContractType.ARMUT:
        return Party.RE if seat in (c.declarer, c.partner) else Party.KONTRA
    if c.type is ContractType.HOCHZEIT:
        return game.parties()[seat] if game.hochzeit_decided else None
    return Party.RE if seat == c.declarer else Party.KONTRA


def _random_call(rng: random.Random, game: Game, hands: Sequence[Sequence[Card]]) -> None:
    """Let a random seat try a random announcement its party may make; refusals are ignored."""
    seat = rng.randrange(4)
    party = _true_party(game, hands, seat)
    if party is None:
        return
    own = Call.RE if party is Party.RE else Call.KONTRA
    made = {call for _, call, p in game.calls if p is party}
    if own not in made:
        call = own
    else:
        higher = [c for c in (Call.NO90, Call.NO60, Call.NO30, Call.BLACK) if c not in made]
        if not higher:
            return
        call = higher[0] if rng.random() < 0.7 else rng.choice(higher)
    try:
        game.call(seat, call)
    except IllegalCallError:
        pass  # too late for this call, or an Absage skipped; a random player just stays silent


def random_game(
    rng: random.Random,
    rules: Rules | None = None,
    contract: Contract | None = None,
    *,
    call_chance: float = 0.08,
    players: Sequence[str] = ("A", "B", "C", "D"),
) -> Game:
    """A complete random legal game: random hands, legal cards only, random announcements.

    A seat holding both Karo-Asse under the Schweinchen rule says so with the first one, as at
    the table (``Game.announce_schweinchen``), so the history replays the same without hands.

    Args:
        rng: the source of every choice (a ``random.Random`` or anything with its methods).
        rules: the house rules; random when None.
        contract: the contract; a random one the rules allow when None.
        call_chance: before each play, the chance that some seat tries an announcement.
        players: the four names.
    """
    rules = rules if rules is not None else random_rules(rng)
    contract = contract if contract is not None else random_contract(rng, rules)
    hands = deal_hands(rng, rules, contract)
    game = Game(rules, contract, players, hands, strict=True)
    pig = game.schweinchen_seat
    while not game.is_over:
        if rng.random() < call_chance:
            _random_call(rng, game, hands)
        seat = game.to_move
        assert seat is not None
        card = rng.choice(game.legal_cards(seat))
        if seat == pig and card == _FOX:
            game.announce_schweinchen(seat)
            pig = None
        game.play(seat, card)
    return game


# -- the benchmark ---------------------------------------------------------------------------


def _load(paths: Sequence[str | Path], random_games: int, seed: int) -> tuple[list[GameRecord], int]:
    records = [load_record(Path(p)) for p in paths]
    loaded = len(records)
    if random_games:
        rng = random.Random(seed)
        records += [GameRecord.from_game(random_game(rng)) for _ in range(random_games)]
    return records, loaded


def run(
    paths: list[str],
    seconds: float = 3.0,
    *,
    random_games: int = 200,
    seed: int = 20260101,
) -> dict[str, Any]:
    """Replay and score complete games in a loop for about ``seconds`` on this core.

    Args:
        paths: ``dokocam-game/1`` record files, replayed beside ``random_games`` random legal
            games (seeded with ``seed``).
        seconds: how long to loop (at least one pass over the records is made).

    Returns:
        ``games`` (complete games replayed and scored), ``seconds``, ``games_per_second``,
        ``plays_per_second``, ``cpu_seconds`` and ``games_per_cpu_second`` (the process's CPU
        time, which other processes on a busy machine do not inflate), ``records`` (records in
        the loop), ``files`` (records read from files), ``random_records``, ``skipped``
        (records that are not a complete game) and ``passes``.

    Raises:
        RecordError: a record cannot be read or replayed.
    """
    records, from_files = _load(paths, random_games, seed)
    jobs = []
    skipped = 0
    for record in records:
        game = record.to_game()  # raises RecordError with the event for a broken record
        if not game.is_over:
            skipped += 1
            continue
        game.result()
        jobs.append((record.rules, record.contract, record.players, record.events, record.hands, record.bock))
    games = passes = 0
    elapsed = cpu = 0.0
    if jobs:
        replay = Game.replay
        clock = time.perf_counter
        cpu_start = time.process_time()
        start = clock()
        deadline = start + seconds
        while True:
            for rules, contract, players, events, hands, bock in jobs:
                replay(rules, contract, players, events, hands, bock=bock).result()
            games += len(jobs)
            passes += 1
            if clock() >= deadline:
                break
        elapsed = clock() - start
        # On a shared machine the wall clock also counts other processes; CPU time does not.
        cpu = time.process_time() - cpu_start
    plays_per_pass = sum(sum(1 for e in job[3] if isinstance(e, PlayEvent)) for job in jobs)
    return {
        "games": games,
        "seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 1) if elapsed else 0.0,
        "plays_per_second": round(passes * plays_per_pass / elapsed, 1) if elapsed else 0.0,
        "cpu_seconds": round(cpu, 3),
        "games_per_cpu_second": round(games / cpu, 1) if cpu else 0.0,
        "records": len(jobs),
        "files": from_files,
        "random_records": len(records) - from_files,
        "skipped": skipped,
        "passes": passes,
    }


def format_report(report: dict[str, Any]) -> str:
    """One readable line for ``dokocam bench engine``.

    >>> format_report({"games": 3000, "seconds": 1.0, "games_per_second": 3000.0,
    ...     "plays_per_second": 144000.0, "games_per_cpu_second": 3100.0, "records": 30, "skipped": 0})
    '3000 games in 1.00 s: 3000 games/s, 3100 per CPU second (144000 plays/s) over 30 records'
    """
    line = (
        f"{report['games']} games in {report['seconds']:.2f} s: {report['games_per_second']:.0f} games/s, "
        f"{report['games_per_cpu_second']:.0f} per CPU second ({report['plays_per_second']:.0f} plays/s) "
        f"over {report['records']} records"
    )
    if report.get("skipped"):
        line += f", {report['skipped']} incomplete records skipped"
    return line
