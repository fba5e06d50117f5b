"""Small builders for engine tests: a game from a line of plays and calls."""

from __future__ import annotations

from dokocam.engine import Call, Contract, Game, Rules


def play_line(game: Game, line: str) -> Game:
    """Apply a line of tokens: a card code is played by the seat to move; ``S:call`` is a call.

    ``|`` may separate tricks for readability.

    >>> game = play_line(Game(), "AC 9C KC 10C | 1:re")
    >>> game.tricks[0].winner(), game.calls[0][1]
    (0, <Call.RE: 're'>)
    """
    for token in line.split():
        if token == "|":
            continue
        if ":" in token:
            seat, call = token.split(":")
            game.call(int(seat), Call(call))
        else:
            game.play(game.to_move, token)  # type: ignore[arg-type]
    return game


def make_game(line: str, *, rules: Rules | None = None, contract: Contract | None = None, **kwargs: object) -> Game:
    """A new game with ``line`` applied (see ``play_line``)."""
    return play_line(Game(rules, contract, **kwargs), line)  # type: ignore[arg-type]


# Hand-built normal games (seat 0 leads). Seats 0 and 2 play the Kreuz-Damen (Re), 1 and 3 are
# Kontra. Every seat follows suit except in trick 6, where seats 3 and 0 have no Herz left to
# follow with (no Herz card remains after it). Augen per trick are in the comments.
OPENING = (
    "AC 9C 10C KC | "  # 1  seat 0 wins 25 (Re)
    "AC 9C 10C KC | "  # 2  seat 0 wins 25 (Re)
    "9S AS KS 10S | "  # 3  seat 1 wins 25 (Kontra)
    "AS 9S KS 10S | "  # 4  seat 1 wins 25 (Kontra)
    "AH 9H KH 9H | "  # 5  seat 1 wins 15 (Kontra)
    "AH KH JD 9D | "  # 6  seat 3 wins 17 (Kontra)
    "JH QC JS 10D | "  # 7  seat 0 wins 17 (Re)
    "QS QD QC KD | "  # 8  seat 2 wins 13 (Re)
)
#: Re 158 : Kontra 82; Re catches both Füchse of seat 1 (tricks 9 and 10).
GAME_158 = OPENING + (
    "10H QH JC AD | "  # 9  seat 2 wins 26 (Re), Fuchs of seat 1
    "10H QH JC AD | "  # 10 seat 2 wins 26 (Re), Fuchs of seat 1
    "QS QD JS 10D | "  # 11 seat 2 wins 18 (Re)
    "JH JD KD 9D"  # 12 seat 2 wins 8 (Re)
)
#: Re 120 : Kontra 120; Re catches one Fuchs (trick 9).
GAME_120 = OPENING + (
    "10H QH JC AD | "  # 9  seat 2 wins 26 (Re), Fuchs of seat 1
    "QH 10H JC AD | "  # 10 seat 3 wins 26 (Kontra), seat 1's own Fuchs
    "QS JS QD KD | "  # 11 seat 3 wins 12 (Kontra)
    "9D JH JD 10D"  # 12 seat 0 wins 14 (Re)
)
#: Re 124 : Kontra 116; Kontra catches both Füchse of Re in one trick (trick 9).
GAME_TWO_FOXES = OPENING + (
    "AD 10H AD JC | "  # 9  seat 3 wins 34 (Kontra), Füchse of seats 2 and 0
    "QH 10H JC QH | "  # 10 seat 0 wins 18 (Re)
    "QS QD JS 10D | "  # 11 seat 0 wins 18 (Re)
    "JH JD KD 9D"  # 12 seat 0 wins 8 (Re)
)


def hands_of(line: str) -> list[list[str]]:
    """The hands that a complete line of plays implies (each seat held what it played)."""
    game = make_game(line)
    hands: list[list[str]] = [[], [], [], []]
    for trick in game.tricks:
        for seat, card in trick.plays:
            hands[seat].append(str(card))
    return hands
