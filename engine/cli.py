"""The engine's subcommands: ``dokocam score`` and ``dokocam bench engine``.

``dokocam score GAME.json`` prints the tricks, their winners, the Augen, the itemized game value,
the points per player and any flags; ``--json`` prints one JSON object instead. A broken record
gets an error naming the event and the reason, and exit status 2; a game that is not over, or
whose parties are in conflict (a ``party_conflict`` flag), has no result: its flags and exit
status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from dokocam.engine.errors import EngineError, UnresolvedError

__all__ = ["register", "score_command", "bench_command", "format_result"]


def register(groups: Mapping[str, Any]) -> None:
    """Add ``score`` and ``bench engine`` to the ``dokocam`` parser's groups."""
    score = groups["top"].add_parser(
        "score",
        help="score a dokocam-game/1 record per the DDV rules",
        description="Replay a dokocam-game/1 record and print its result.",
    )
    score.add_argument("game", help="path to a dokocam-game/1 JSON record")
    score.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    score.add_argument(
        "--penalties", action="store_true", help="apply the DDV penalty to a proven renege (the offender's party loses)"
    )
    score.set_defaults(func=score_command)

    bench = groups["bench"].add_parser(
        "engine",
        help="replay and score game records as fast as possible; prints games per second",
        description="Benchmark the rules engine on recorded games (one core).",
    )
    bench.add_argument(
        "games",
        nargs="*",
        help="dokocam-game/1 records, e.g. tests/reference_games/*.json of a checkout (default: random games only)",
    )
    bench.add_argument("--seconds", type=float, default=3.0, help="how long to run (default 3)")
    bench.set_defaults(func=bench_command)


def score_command(args: argparse.Namespace) -> int:
    """Exit status: 0 scored, 1 the game is not over or its parties are in conflict, 2 the record is broken."""
    from dokocam.engine.record import load_record

    try:
        record = load_record(args.game)
        game = record.to_game()
    except EngineError as exc:
        print(f"dokocam score: {args.game}: {exc}", file=sys.stderr)
        return 2
    if not game.is_over:
        if args.json:
            print(json.dumps({"over": False, "tricks": len(game.tricks), "flags": [f.to_dict() for f in game.flags]}))
        else:
            print(f"{args.game}: the game is not over ({len(game.tricks)} of {game.rules.hand_size} tricks)")
            for flag in game.flags:
                print(f"  flag {flag.kind}: {flag.message}")
        print(f"dokocam score: {args.game}: the game is not over", file=sys.stderr)
        return 1
    try:
        result = game.result(penalties=args.penalties)
    except UnresolvedError as exc:
        if args.json:
            print(json.dumps({"over": True, "result": None, "flags": [f.to_dict() for f in game.flags]}))
        else:
            for flag in game.flags:
                print(f"  flag {flag.kind}: {flag.message}")
        print(f"dokocam score: {args.game}: {exc}", file=sys.stderr)
        return 1
    if args.json:
        out = result.to_dict()
        out["contract"] = game.contract.to_dict()
        out["tricks"] = [
            {
                "leader": t.leader,
                "plays": [[seat, str(card)] for seat, card in t.plays],
                "winner": t.winner(),
                "augen": t.augen,
            }
            for t in game.tricks
        ]
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(format_result(game, result))
    return 0


def format_result(game: Any, result: Any) -> str:
    """The human-readable report of ``dokocam score``."""
    names = game.players
    lines = [f"{game.contract.name}  ({', '.join(f'{i}={n}' for i, n in enumerate(names))})"]
    for seat, call, party in game.calls:
        side = "party unknown" if party is None else party.german_name
        lines.append(f"  {names[seat]} ({side}) says {call.german_name}")
    lines.append("Tricks:")
    for i, trick in enumerate(game.tricks, 1):
        cards = "  ".join(f"{names[seat]}:{card}" for seat, card in trick.plays)
        lines.append(f"  {i:2d}. {cards:<48} -> {names[trick.winner()]} ({trick.augen})")
    re_names = [names[s] for s, p in enumerate(result.parties) if p.value == "re"]
    ko_names = [names[s] for s, p in enumerate(result.parties) if p.value == "kontra"]
    augen = {p.value: n for p, n in result.augen.items()}
    lines.append(f"Augen: Re ({', '.join(re_names)}) {augen['re']} : Kontra ({', '.join(ko_names)}) {augen['kontra']}")
    winner = "nobody (both Absagen missed)" if result.winner is None else result.winner.german_name
    lines.append(f"Winner: {winner}")
    if result.claimed:
        lines.append(f"Claimed: the last {result.claimed} tricks (Spielabkürzung, DDV 5.4)")
    if result.penalty:
        lines.append(f"Penalty: {result.penalty}")
    lines.append("Game value (sign: for or against the winner; party: who earned it):")
    reference = result.winner.value if result.winner is not None else "re"
    for item in result.items:
        sign = "+" if item.party.value == reference else "-"
        party = "?" if item.party is None else item.party.german_name
        lines.append(f"  {sign}{item.value}  {party:<7} {item.name}")
    lines.append(f"  = {result.base_value}")
    if result.bock:
        lines.append(f"  x{2**result.bock} Bock = {result.game_value}")
    if result.solo is not None:
        lines.append(f"  solo: {names[result.solo]} counts three times")
    lines.append("Points: " + "  ".join(f"{names[s]} {p:+d}" for s, p in enumerate(result.points)))
    if result.bock_trigger:
        lines.append("This game starts Bock rounds.")
    if result.flags:
        lines.append("Flags:")
        for flag in result.flags:
            lines.append(f"  {flag.kind}: {flag.message}")
    return "\n".join(lines)


def bench_command(args: argparse.Namespace) -> int:
    import importlib

    bench = importlib.import_module("dokocam.engine.bench")
    try:
        report = bench.run(list(args.games), args.seconds)
    except EngineError as exc:
        print(f"dokocam bench engine: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=1, default=str))
    return 0
