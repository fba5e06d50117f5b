"""Convert the online-doppelkopf.com command logs (GDL match logs) to dokocam-game/1 records.

Usage::

    python tests/reference_games/convert.py ../shared/reference/online-doppelkopf-games tests/reference_games

Each log holds the deal (``random (deal player1 kreuz_ass_1)``), the reservations
(``player2 (vorbehalt hochzeit)``), the plays (``player1 (spielen pik_ass_1)``), the calls
(``player2 (ansagen re)``, ``player2 (absagen 90)``) and the final points
(``(punkte player1 3)`` or ``(goal player1 3)``). Seats: player1..player4 = seats 0..3; player1
leads the first trick in every log. The record keeps the hands (``hands``), the log's address
(``source``) and the platform's points (``expected.points``).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

RANKS = {"neun": "9", "zehn": "10", "bube": "J", "dame": "Q", "koenig": "K", "ass": "A"}
SUITS = {"kreuz": "C", "pik": "S", "herz": "H", "karo": "D"}
SOLOS = {
    "solo_damen": "queens",
    "solo_buben": "jacks",
    "solo_fleischlos": "fleischlos",
    "solo_trumpf_kreuz": "clubs",
    "solo_trumpf_pik": "spades",
    "solo_trumpf_herz": "hearts",
    "solo_trumpf_karo": "diamonds",
}
CALLS = {"re": "re", "kontra": "kontra", "90": "no90", "60": "no60", "30": "no30", "schwarz": "black"}
#: The platform's rules as far as these logs show them: DDV tournament scoring.
RULES = {"preset": "tournament"}

_LINE = re.compile(r"^(player[1-4]) \((\w+) (\w+)\)$")
_DEAL = re.compile(r"^random \(deal (player[1-4]) (\w+)\)$")
_POINTS = re.compile(r"^\((?:punkte|goal) (player[1-4]) (-?\d+)\)$")
_SOURCE = re.compile(r"^# (https://\S+)")


def card_code(name: str) -> str:
    """``kreuz_dame_1`` -> ``QC``."""
    suit, rank, _copy = name.split("_")
    return RANKS[rank] + SUITS[suit]


def seat(player: str) -> int:
    return int(player[-1]) - 1


def convert(text: str) -> dict:
    """One log's text as a record object (raises ValueError on a line it does not understand)."""
    hands: list[list[str]] = [[], [], [], []]
    events: list[dict] = []
    contract: dict = {"type": "normal"}
    points: dict[int, int] = {}
    source = None
    for raw in text.splitlines():
        line = raw.strip()
        if m := _SOURCE.match(line):
            source = m.group(1)
        elif m := _DEAL.match(line):
            hands[seat(m.group(1))].append(card_code(m.group(2)))
        elif m := _POINTS.match(line):
            points[seat(m.group(1))] = int(m.group(2))
        elif m := _LINE.match(line):
            who, verb, arg = seat(m.group(1)), m.group(2), m.group(3)
            if verb == "spielen":
                events.append({"seat": who, "play": card_code(arg)})
            elif verb in ("ansagen", "absagen"):
                events.append({"seat": who, "call": CALLS[arg]})
            elif verb == "vorbehalt":
                if arg == "hochzeit":
                    contract = {"type": "hochzeit", "declarer": who}
                elif arg in SOLOS:
                    contract = {"type": "solo", "kind": SOLOS[arg], "declarer": who}
                elif arg != "gesund":
                    raise ValueError(f"unknown reservation {arg!r}")
            else:
                raise ValueError(f"unknown command {line!r}")
    if len(points) != 4:
        raise ValueError("the log has no final points")
    return {
        "format": "dokocam-game/1",
        "players": ["player1", "player2", "player3", "player4"],
        "rules": dict(RULES),
        "contract": contract,
        "hands": hands,
        "events": events,
        "source": source,
        "expected": {"points": [points[s] for s in range(4)]},
    }


def main(argv: list[str]) -> int:
    src, dst = Path(argv[0]), Path(argv[1])
    for path in sorted(src.glob("*.txt")):
        record = convert(path.read_text(encoding="utf-8"))
        out = dst / (path.stem + ".json")
        out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
