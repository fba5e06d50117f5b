"""The game decoder: the most probable whole game given every card the tracker saw and the rules.

The tracker reports what it saw and decides nothing about the game: each physical card that came
to rest (a :class:`Sighting`) with its top readings, where it lay, when it landed and when it
left. The decoder explains all sightings at once by one game, the one of least cost (a cost is a
negative log-probability): every seat plays once a trick, the leader is whoever the engine says
(Vorhand first, then each trick's winner), every card is in the deck twice. A sighting is a play
(read as one of its readings, or as a card the deck still holds), a second sighting of a card
already seen on that spot, or nothing at all; a play nobody saw is a card of the deck, decided at
the end by elimination (the 48 cards of a game are every card twice).

What each choice costs, in nats (``GameDecoder``'s arguments):

- the reading: ``-log`` of the share of the card in the track's votes, mixed with an even share
  for every card by how sure the track was;
- the seat: how far the card lies from the seat's direction (a normal spread of ``seat_sigma``
  degrees) and how far its landing order departs from the turn order (``inversion`` each);
- the rules as a prior, never as a constraint: a card that does not follow the led suit
  (``off_suit``), a renege the engine can prove (``renege``), a third copy (``third_copy``);
- time: the cards of a trick leave together (``apart``), nothing lands in a trick after it left
  (``late``), and the next trick's cards land after it left (``early``);
- the announcements (``call_conflict``): a call the engine refuses in a game, or one its cards
  contradict (a Kontra caller playing a Kreuz-Dame), makes that game less probable;
- a card never seen (``missed``), a sighting that was no card (``spurious``), the second sighting
  of one (``duplicate``) or a card its player put down and took back (``withdrawn``: it went alone,
  soon after it landed, while its trick stayed); a sighting glimpsed rather than seen at rest (the
  tracker's weight below 1: a card carried off with its trick before it settled) is that much
  cheaper to explain as no play.

The search is a beam over the sightings in landing order (``beam`` hypotheses, each holding an
engine ``Game`` of its finished tricks); hypotheses that agree on everything the rest of the game
can see are merged (Viterbi). Decoding a video that shows the whole game (every trick but perhaps
the last seen collected), hypotheses are ranked with the plays they can no longer fill from the
sightings left (each will cost ``missed``): otherwise explaining sightings away looks cheap while
the game is under way, and a game read poorly is given up after a few tricks.

Without a manual calibration the table's seating is found the same way: the four seat directions
come from where all cards lay, and each of the four ways to seat them is decoded; the cheapest wins.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, product
from typing import NamedTuple

import numpy as np

from dokocam.engine import CallEvent, Card, Game, PlayEvent, Trick
from dokocam.vision.table.events import (
    CardPlayed,
    FlagRaised,
    GameOver,
    NeedsConfirmation,
    TableEvent,
    TrickCleared,
    TrickComplete,
)
from dokocam.vision.table.geometry import TableGeometry
from dokocam.vision.table.tracker import CardLanded, CardLeft, TrackerEvent

N_CARDS = 24
SEATS = 4
# Two landings this many seconds apart or less are taken for consecutive plays when finding the
# turning sense of the table (a trick's next card comes within a few seconds).
NEXT_PLAY = 4.0
_UNREAD = -1  # a play whose card no reading names: decided by the deck


@dataclass(frozen=True)
class Sighting:
    """One physical card that came to rest on the trick area, as the tracker saw it.

    Attributes:
        track_id: the tracker's id of the card.
        readings: ``(card index, vote share)`` pairs, best first.
        confidence: how sure the tracker was of the best reading (vote share x mean score).
        center: where it lay (image pixels).
        landed, frame: when it came to rest (video seconds, frame index).
        left, left_frame: when it was gone (``None``: still there when the video ended).
        spread: how far (pixels) the card's centre may lie from ``center`` (one corner seen).
        weight: 1 for a card that came to rest, less for one glimpsed passing (see ``CardLanded``).
        last_seen: when it was last seen before it was gone (``None`` while it lies there).
        came_from: where the tracker first saw it on its way in (``None``: first seen where it lay).
    """

    track_id: int
    readings: tuple[tuple[int, float], ...]
    confidence: float
    center: tuple[float, float]
    landed: float
    frame: int
    left: float | None = None
    left_frame: int | None = None
    spread: float = 0.0
    weight: float = 1.0
    last_seen: float | None = None
    came_from: tuple[float, float] | None = None

    @classmethod
    def from_event(cls, event: CardLanded) -> Sighting:
        readings = tuple(event.candidates) or ((event.card_index, 1.0),)
        return cls(
            track_id=event.track_id,
            readings=readings,
            confidence=event.confidence,
            center=event.center,
            landed=event.time,
            frame=event.frame,
            spread=event.spread,
            weight=event.weight,
            came_from=event.came_from,
        )


class Evidence:
    """The sightings of a game, gathered from the tracker's events as they come."""

    def __init__(self) -> None:
        self._by_track: dict[int, Sighting] = {}

    def add(self, events: Iterable[TrackerEvent]) -> None:
        for event in events:
            if isinstance(event, CardLanded):
                self._by_track[event.track_id] = Sighting.from_event(event)
            elif isinstance(event, CardLeft) and event.track_id in self._by_track:
                seen = self._by_track[event.track_id]
                last_seen = event.time if event.last_seen is None else event.last_seen
                self._by_track[event.track_id] = replace(
                    seen, left=event.time, left_frame=event.frame, last_seen=last_seen
                )

    @property
    def sightings(self) -> list[Sighting]:
        """Every sighting so far, in landing order."""
        return sorted(self._by_track.values(), key=lambda s: (s.landed, s.track_id))


# --- the seating -------------------------------------------------------------------------------


def seatings(sightings: Sequence[Sighting], geometry: TableGeometry) -> list[TableGeometry]:
    """The seatings to decode under: a manual calibration as it is; otherwise the four ways to seat
    the four directions in which the cards lay (found from all of them), in play's turning sense;
    before four cards lay, the four ways to seat the table's own directions.

    The centre is the median of where the cards lay (every seat plays as many cards); the four seat
    directions are 90 degrees apart, their common turn the circular mean of four times each card's
    angle; the turning sense is the one most consecutive landings step in.
    """
    if geometry.method == "manual" or geometry.places != SEATS:
        return [geometry]
    if len(sightings) < SEATS:
        return [replace(geometry, seat0_angle=(geometry.seat0_angle + 90.0 * k) % 360.0) for k in range(SEATS)]
    plane = geometry.to_plane([s.center for s in sightings]).reshape(-1, 2)
    cx, cy = (float(v) for v in np.median(plane, axis=0))
    angles = [math.atan2(y - cy, x - cx) for x, y in plane]
    turn = math.degrees(math.atan2(sum(math.sin(4 * a) for a in angles), sum(math.cos(4 * a) for a in angles))) / 4.0
    sides = [round((math.degrees(a) - turn) / 90.0) % SEATS for a in angles]
    steps = [
        (b - a) % SEATS
        for (a, s), (b, t) in zip(zip(sides, sightings), zip(sides[1:], sightings[1:]))
        if t.landed - s.landed < NEXT_PLAY
    ]
    clockwise = steps.count(1) >= steps.count(3)
    base = replace(geometry, center=(cx, cy), clockwise=clockwise, method="auto")
    return [replace(base, seat0_angle=(turn + 90.0 * k) % 360.0) for k in range(SEATS)]


def sweeps(sightings: Sequence[Sighting], tolerance: float) -> int:
    """How many times cards left the table together (two or more within ``tolerance`` seconds of each
    other, by when each was last seen): the tricks collected in the video. A card that went alone (taken
    back, or lost by the tracker) is no sweep.

    >>> gone = [9.0, 9.5, 10.2, 17.0, 30.0, 31.0]
    >>> seen = [Sighting(k, ((0, 1.0),), 0.9, (0.0, 0.0), 0.0, 0, left=t, last_seen=t) for k, t in enumerate(gone)]
    >>> sweeps(seen, 1.5)
    2
    """
    times = sorted(t for s in sightings if (t := s.last_seen if s.last_seen is not None else s.left) is not None)
    count, run = 0, 0
    for k, t in enumerate(times):
        run = run + 1 if k and t - times[k - 1] <= tolerance else 1
        count += run == 2
    return count


def _swept(lefts: Sequence[float]) -> float | None:
    """When a trick was swept, from when its cards left: the time by which half of them had gone
    (a card the tracker stops seeing is given up only a while later, so late ones say little).

    >>> _swept([99.9, 103.2, 99.9, 103.2])
    99.9
    """
    if not lefts:
        return None
    return sorted(lefts)[(len(lefts) - 1) // 2]


def _call_conflicts(game: Game) -> int:
    """The party conflicts of ``game`` that involve a call (a third Kreuz-Dame alone is a third copy)."""
    return sum(
        f.kind == "party_conflict" and any(isinstance(game.history[i], CallEvent) for i in f.events) for f in game.flags
    )


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else 0.5 * (ordered[n // 2 - 1] + ordered[n // 2])


# --- the result ----------------------------------------------------------------------------------


class DecodedPlay(NamedTuple):
    """One play of the decoded game: ``sighting`` is ``None`` for a card nobody saw; ``deduced``
    says the card was decided by the deck (what was left), not by a reading."""

    seat: int
    card: Card
    sighting: Sighting | None
    deduced: bool


@dataclass
class DecodedGame:
    """The decoded game and how it explains the evidence.

    Attributes:
        game: the engine's game (calls included), plays in turn order.
        tricks: each trick's plays in turn order.
        dropped: sightings explained as no play: ``(sighting, why)``, ``why`` one of ``"duplicate"``
            (a card seen again on its spot), ``"withdrawn"`` (put down and taken back), ``"spurious"``
            (no card) or ``"after_game"``.
        questions: what a person should confirm (the game stays ambiguous there).
        geometry: the seating decoded under.
        cost: the game's cost (negative log-probability, up to a constant).
        call_errors: announcements the engine refused.
    """

    game: Game
    tricks: list[list[DecodedPlay]]
    dropped: list[tuple[Sighting, str]]
    questions: list[NeedsConfirmation]
    geometry: TableGeometry
    cost: float
    call_errors: list[str] = field(default_factory=list)

    def events(self) -> list[TableEvent]:
        """The game as table events in time order: each play, each trick complete and cleared,
        the engine's flags, the questions and the game's end."""
        out: list[TableEvent] = []
        for number, (plays, trick) in enumerate(zip(self.tricks, self.game.tricks, strict=False)):
            seen = [p.sighting for p in plays if p.sighting is not None]
            last = max(seen, key=lambda s: s.landed) if seen else None
            frame, time = (last.frame, last.landed) if last else (0, 0.0)
            for play in plays:
                where = play.sighting or last
                out.append(
                    CardPlayed(
                        frame=where.frame if where else 0,
                        time=where.landed if where else 0.0,
                        seat=play.seat,
                        card=str(play.card),
                        confidence=0.0 if play.deduced or play.sighting is None else play.sighting.confidence,
                        trick=number,
                        position=play.sighting.center if play.sighting else (0.0, 0.0),
                        seat_by_position=self.geometry.seat_of(play.sighting.center).seat if play.sighting else None,
                        seat_by_turn=play.seat,
                    )
                )
            out.append(
                TrickComplete(
                    frame=frame,
                    time=time,
                    trick=number,
                    winner=trick.winner(),
                    cards=tuple(str(c) for _, c in trick.plays),
                    augen=int(trick.augen),
                )
            )
            gone = [s for s in seen if s.left is not None]
            if gone:
                sweep = max(gone, key=lambda s: s.left or 0.0)
                out.append(TrickCleared(frame=sweep.left_frame or 0, time=sweep.left or 0.0, trick=number))
        end = out[-1] if out else None
        for flag in self.game.flags:
            out.append(
                FlagRaised(
                    frame=end.frame if end else 0,
                    time=end.time if end else 0.0,
                    kind=str(getattr(flag.kind, "value", flag.kind)),
                    trick=flag.trick,
                    seat=flag.seat,
                    card=None if flag.card is None else str(flag.card),
                    message=flag.message,
                )
            )
        out.extend(self.questions)
        if self.game.is_over:
            try:
                result = self.game.result().to_dict()
            except ValueError as exc:  # a contract the engine cannot score from what was seen
                result = {"error": str(exc)}
            out.append(GameOver(frame=end.frame if end else 0, time=end.time if end else 0.0, result=result))
        return sorted(out, key=lambda e: e.time)


# --- the search ----------------------------------------------------------------------------------


class _Play(NamedTuple):
    seat: int
    card: int  # card index, or _UNREAD
    sighting: int  # index into the sightings, or -1 for a card nobody saw


class _Done(NamedTuple):
    """A finished trick: plays in turn order, which cards the deck decided, its winner, its sweep."""

    plays: tuple[_Play, ...]
    deduced: tuple[bool, ...]
    winner: int
    sweep: float | None


@dataclass(slots=True)
class _Hyp:
    cost: float
    game: Game  # the engine after the finished tricks; never changed once made
    done: tuple[_Done, ...]
    known: tuple[int, ...]  # copies of each card read into the finished tricks (deduced ones not counted)
    current: tuple[_Play, ...]  # the trick in play, in landing order
    dropped: tuple[tuple[int, str], ...]

    def key(self) -> tuple[object, ...]:
        """What the rest of the game can tell apart: hypotheses alike in it keep the cheaper one."""
        last = tuple(p.sighting for p in self.done[-1].plays) if self.done else ()
        return (len(self.done), self.game.to_move, tuple(sorted(self.current)), self.known, last)


def _in_turn(h: _Hyp) -> list[_Play | None]:
    """The plays of ``h``'s trick in play by turn from its leader (``None``: that seat has not played; no
    turns once the game is over)."""
    leader = h.game.to_move
    if leader is None:
        return []
    by_seat = {p.seat: p for p in h.current}
    return [by_seat.get((leader + k) % SEATS) for k in range(SEATS)]


def _first_unread(turns: list[_Play | None]) -> int:
    """The first of ``turns`` not played yet or played with a card no reading names (``len(turns)``: none)."""
    return next((k for k, p in enumerate(turns) if p is None or p.card < 0), len(turns))


class GameDecoder:
    """Finds the most probable game for a list of sightings (see the module docstring).

    Args:
        beam: hypotheses kept after each sighting; raising it finds rarer explanations (a misreading
            noticed many cards later) and costs time in proportion.
        sure_confidence: a track this confident trusts its readings by ``read_trust``; a less sure one
            proportionally less (more of its probability goes to cards it was not read as).
        read_trust: the weight of the track's vote shares against an even share for every card.
        seat_sigma: degrees by which a card typically lies off its seat's direction; raising it
            leans on the turn order more than on where cards lie.
        seat_floor: probability that a card lies anywhere (pushed far off, or the seating is off).
        arrival_sigma: degrees by which the way a card came in typically departs from its seat's
            direction (a player pushes a card in from their side, also one slid under another
            player's card); 0 leaves where it came from out.
        inversion: cost of one pair of cards of a trick landing against the turn order.
        off_suit: cost of a card not following the led suit (legal only for a seat without it).
        renege: cost of a renege the engine can prove; high, yet a renege read surely stays.
        third_copy: cost of a third copy of a card.
        missed: cost of a play nobody saw.
        missed_lead: more for a trick's first card nobody saw: it lands on an empty table, where
            nothing hides it (and, unseen in the first trick, it leaves Vorhand's place open).
        duplicate: cost of a sighting explained as a second sighting of a card lying on its spot.
        spurious: cost of a sighting explained as no card at all, plus ``spurious_per_confidence``
            times its confidence.
        after_game: cost of a sighting after the game's last trick (the next game, a hand).
        withdrawn: cost of a sighting explained as a card its player put down and took back: one
            that went alone within ``withdraw_within`` seconds of landing (see ``Search._taken_back``).
        withdraw_within: seconds a card taken back lies at most; raising it lets a card that lay
            longer, then went alone (lost by the tracker), count as taken back.
        apart: cost of a card that left the table at another time than the rest of its trick
            (``sweep_tolerance`` before it, ``linger`` after it).
        late: cost of a card landing in a trick after that trick had left the table.
        early: cost of a card landing while the trick before its own still lay on the table.
        sweep_tolerance: seconds within which leaving and landing times count as together.
        linger: seconds a card may count as gone after the rest of its trick (the tracker holds a
            card it stops seeing for a while before it gives it up).
        duplicate_distance: how near (a fraction of the cards' median distance from the centre) a
            second sighting must lie to the card it sees again.
        ask_margin: a question is asked when another game is within this many nats of the best.
        call_conflict: cost of a call the engine refuses in a game, or of a party conflict its cards
            raise with a call; raising it leans on the calls more than on the readings.
    """

    def __init__(
        self,
        *,
        beam: int = 48,
        sure_confidence: float = 0.6,
        read_trust: float = 0.95,
        seat_sigma: float = 22.0,
        seat_floor: float = 0.05,
        arrival_sigma: float = 30.0,
        inversion: float = 2.0,
        off_suit: float = 1.0,
        renege: float = 8.0,
        third_copy: float = 15.0,
        missed: float = 7.0,
        missed_lead: float = 0.5,
        duplicate: float = 1.5,
        spurious: float = 4.0,
        spurious_per_confidence: float = 6.0,
        after_game: float = 1.0,
        withdrawn: float = 1.0,
        withdraw_within: float = 4.0,
        apart: float = 3.0,
        late: float = 4.0,
        early: float = 4.0,
        sweep_tolerance: float = 1.5,
        linger: float = 4.5,
        duplicate_distance: float = 0.35,
        ask_margin: float = 2.0,
        call_conflict: float = 6.0,
    ) -> None:
        self.beam = beam
        self.sure_confidence = sure_confidence
        self.read_trust = read_trust
        self.seat_sigma = seat_sigma
        self.seat_floor = seat_floor
        self.arrival_sigma = arrival_sigma
        self.inversion = inversion
        self.off_suit = off_suit
        self.renege = renege
        self.third_copy = third_copy
        self.missed = missed
        self.missed_lead = missed_lead
        self.duplicate = duplicate
        self.spurious = spurious
        self.spurious_per_confidence = spurious_per_confidence
        self.after_game = after_game
        self.withdrawn = withdrawn
        self.withdraw_within = withdraw_within
        self.apart = apart
        self.late = late
        self.early = early
        self.sweep_tolerance = sweep_tolerance
        self.linger = linger
        self.duplicate_distance = duplicate_distance
        self.ask_margin = ask_margin
        self.call_conflict = call_conflict

    def decode(
        self,
        sightings: Sequence[Sighting],
        game_factory: Callable[[], Game],
        geometry: TableGeometry,
        *,
        calls: Sequence[tuple[int, int, str]] = (),
        fixed: Mapping[tuple[int, int], int] | None = None,
    ) -> DecodedGame:
        """The most probable game for ``sightings`` (landing order), under each of :func:`seatings`.

        Args:
            game_factory: builds the empty game (players, rules, contract).
            geometry: the table; a manual calibration is trusted, any other only sizes the table.
            calls: ``(cards played before, seat, call)`` announcements, made at those points; evidence
                too (a game its cards contradict them in is less probable).
            fixed: ``(trick, seat) -> card index`` a person said was played there; never overridden.
        """
        sightings = sorted(sightings, key=lambda s: (s.landed, s.track_id))
        whole = sweeps(sightings, self.sweep_tolerance) >= game_factory().rules.hand_size - 1
        searches = [
            Search(self, sightings, game_factory, seating, fixed=fixed, calls=calls, whole=whole)
            for seating in seatings(sightings, geometry)
        ]
        done = sorted((s for s in searches if s.run()), key=lambda s: s.finals[0].cost)
        if not done:
            return searches[0].result([], calls)
        best = done[0]
        decoded = best.result(best.finals, calls)
        if len(done) > 1:
            # Another seating explains it nearly as well (the first trick's lead unseen: who was
            # Vorhand?): asked as the first play where the two games differ.
            seating = best.ask(best.finals[0], done[1].finals[:1])
            asked = {(q.trick, q.seat) for q in seating}
            decoded.questions = seating + [q for q in decoded.questions if (q.trick, q.seat) not in asked]
        return decoded


class Search:
    """One beam search under one seating, kept step by step so that it can go on from any sighting.

    ``beams[k]`` is the beam after the first ``k`` sightings; :meth:`extend` searches again from a
    sighting on (a new one, or one whose departure is now known), reusing the beams before it.
    ``fixed`` holds what a person said: ``(trick, seat) -> card index``; ``calls`` the announcements
    ``(cards played before, seat, call)``, made in each hypothesis's game where they were said.
    ``whole``: the sightings are the whole game (a finished video in which every trick but perhaps the
    last was seen collected, :func:`sweeps`), so a hypothesis that has played fewer cards than the
    sightings left can still fill already owes those plays as missed; hypotheses are ranked with that
    debt (an A* bound: it never exceeds what they will pay). A video that ends mid-game is searched
    without it: its unplayed tricks were not missed, and a card taken back is no play owed.
    """

    def __init__(
        self,
        decoder: GameDecoder,
        sightings: Sequence[Sighting],
        factory: Callable[[], Game],
        geometry: TableGeometry,
        *,
        fixed: Mapping[tuple[int, int], int] | None = None,
        calls: Sequence[tuple[int, int, str]] = (),
        whole: bool = False,
    ) -> None:
        self.d = decoder
        self.whole = whole
        self.sightings = list(sightings)
        self.factory = factory
        self.geometry = geometry
        self.fixed = dict(fixed or {})
        self.calls = sorted(calls, key=lambda c: c[0])
        base = factory()
        self.base = base
        self.rules, self.contract, self.players = base.rules, base.contract, base.players
        self.copies = tuple(base.rules.copies_of)
        self.n_tricks = base.rules.hand_size
        self.order = base.order
        self.finals: list[_Hyp] = []
        self.options = [self._readings(s) for s in self.sightings]
        self.seat_costs = [self._seat_costs(s) for s in self.sightings]
        offsets = [geometry.polar(s.center)[1] for s in self.sightings]
        self.spot = self.d.duplicate_distance * (_median(offsets) if offsets else geometry.radius)
        self.plane = [geometry.to_plane(s.center) for s in self.sightings]
        self.beams: list[list[_Hyp]] = [[_Hyp(0.0, self.base, (), (0,) * N_CARDS, (), ())]]
        self._winners: dict[tuple[object, ...], dict[int, tuple[float, list[int]]]] = {}

    # -- costs of one sighting ------------------------------------------------------------------

    def _readings(self, s: Sighting) -> list[tuple[int, float]]:
        """``(card, cost)`` for each card read, and for a card no reading names (``_UNREAD``)."""
        trust, even = self._trust(s)
        out = [(card, -math.log(trust * share + even)) for card, share in s.readings if share > 0]
        out.append((_UNREAD, -math.log(even)))
        return out

    def _trust(self, s: Sighting) -> tuple[float, float]:
        """How far ``s``'s readings are trusted, and the even share every card keeps besides."""
        trust = self.d.read_trust * min(1.0, s.confidence / self.d.sure_confidence)
        return trust, (1.0 - trust) / N_CARDS

    def _seat_costs(self, s: Sighting) -> tuple[float, ...]:
        """Per seat, how much less probable it is that the card lies where it lies, and came in the
        way it came, than for the best seat."""
        offsets = self.geometry.seat_offsets(s.center)
        sigma = self.d.seat_sigma
        distance = self.geometry.polar(s.center)[1]
        if s.spread > 0 and distance > 0:
            sigma = math.hypot(sigma, math.degrees(math.atan2(s.spread, distance)))
        weights = [math.exp(-0.5 * (o / sigma) ** 2) for o in offsets]
        if s.came_from is not None and self.d.arrival_sigma > 0:
            (fx, fy), (x, y) = self.geometry.to_plane([s.came_from, s.center])
            way = math.degrees(math.atan2(fy - y, fx - x))
            for seat in range(SEATS):
                turn = abs((way - self.geometry.seat_angle(seat) + 180.0) % 360.0 - 180.0)
                weights[seat] *= math.exp(-0.5 * (turn / self.d.arrival_sigma) ** 2)
        total = sum(weights) or 1.0
        p = [(1.0 - self.d.seat_floor) * w / total + self.d.seat_floor / SEATS for w in weights]
        top = max(p)
        return tuple(-math.log(v / top) for v in p)

    def _drop_cost(self, h: _Hyp, i: int) -> tuple[float, str]:
        """The cost of explaining sighting ``i`` as no play: a card put down and taken back, a
        second sighting of a card on its spot (still lying there, or gone a moment ago), or nothing;
        a glimpse (weight below 1) is that much more likely to be no play."""
        s = self.sightings[i]
        if len(h.done) >= self.n_tricks:
            return self.d.after_game, "after_game"
        options = [(self.d.spurious + self.d.spurious_per_confidence * s.confidence, "spurious")]
        if self._taken_back(i):
            options.append((self.d.withdrawn, "withdrawn"))
        # The cards still lying there: the trick in play, and the one before until it was swept.
        near = [(j, self.sightings[j].left) for p in h.current if (j := p.sighting) >= 0]
        if h.done:
            sweep = h.done[-1].sweep
            near += [(j, sweep) for p in h.done[-1].plays if (j := p.sighting) >= 0]
        here = self.plane[i]
        for j, gone in near:
            other = self.sightings[j]
            if gone is not None and s.landed > gone + self.d.sweep_tolerance:
                continue
            if math.hypot(*(self.plane[j] - here)) <= self.spot:
                same = other.readings[0][0] == s.readings[0][0]
                options.append((self.d.duplicate + (0.0 if same else 1.0), "duplicate"))
                break
        cost, why = min(options)
        return s.weight * cost, why

    def _taken_back(self, i: int) -> bool:
        """Whether sighting ``i`` went the way a card taken back goes: within ``withdraw_within`` of
        landing, and alone: at most one other sighting (a second track of the same card) was last
        seen within ``sweep_tolerance`` of it. A trick's cards go together towards its winner; a
        card its player takes back goes by itself while the trick stays."""
        s = self.sightings[i]
        if s.last_seen is None or s.last_seen - s.landed > self.d.withdraw_within:
            return False
        with_it = sum(
            o.last_seen is not None and abs(o.last_seen - s.last_seen) <= self.d.sweep_tolerance
            for j, o in enumerate(self.sightings)
            if j != i
        )
        return with_it <= 1

    # -- the beam ---------------------------------------------------------------------------------

    def run(self) -> list[_Hyp]:
        """Searches every sighting and ends the game: the ranked whole games (also ``finals``)."""
        self.extend(self.sightings, 0)
        self.finals = self.ended()
        return self.finals

    def ended(self) -> list[_Hyp]:
        """The hypotheses after the last sighting with the game ended (tricks never seen cost their
        plays as missed), cheapest first."""
        finals: list[_Hyp] = []
        for h in self.beams[-1]:
            for end in self._close(h) if h.current else [h]:
                short = self.n_tricks - len(end.done)
                finals.append(replace(end, cost=end.cost + SEATS * self.d.missed * short))
        # Not merged: games alike to the rest of a game that has ended are the alternatives to ask about.
        return sorted(finals, key=lambda h: h.cost)[: self.d.beam]

    def resolve(self, h: _Hyp) -> tuple[list[list[DecodedPlay]], list[NeedsConfirmation]]:
        """The tricks of an ended game ``h``, cards nobody read decided by the whole deck, and the
        questions where another game is nearly as probable."""
        tricks, questions = self._resolve(h)
        others = [o for o in self.ended() if o is not h and o.cost >= h.cost]
        return tricks, questions + self.ask(h, others)

    def extend(self, sightings: Sequence[Sighting], start: int) -> None:
        """Searches ``sightings`` from index ``start`` on; those before ``start`` must be unchanged."""
        start = min(start, len(self.beams) - 1, len(sightings))
        self.sightings = list(sightings)
        new = self.sightings[start:]
        self.options[start:] = [self._readings(s) for s in new]
        self.seat_costs[start:] = [self._seat_costs(s) for s in new]
        self.plane[start:] = [self.geometry.to_plane(s.center) for s in new]
        del self.beams[start + 1 :]
        beam = self.beams[start]
        for i in range(start, len(self.sightings)):
            kept = self._prune((h for parent in beam for h in self._expand(parent, i)), i)
            # Finishing a trick costs at least its plays nobody saw: parents whose finished trick
            # could not reach the beam anyway are not finished (the costliest step of the search).
            bar = self._ranked_cost(kept[-1], i) if len(kept) >= self.d.beam else math.inf
            closing = (
                h
                for parent in beam
                if parent.current and self._closing_bound(parent, i) <= bar
                for h in self._expand_closed(parent, i)
            )
            beam = self._prune(chain(kept, closing), i)
            self.beams.append(beam)

    def ranked(self) -> list[_Hyp]:
        """The hypotheses after the last sighting, the game going on: cheapest first by :meth:`score`,
        the best ones' full tricks in play finished."""
        beam = sorted(self.beams[-1], key=self.score)
        if beam and self._last_trick_gone(beam[0]):
            # The last trick was collected with a card of it never seen: no sighting is left to close it, the
            # game has ended (its missed cards are the deck's).
            return self.ended()
        if not beam or len(beam[0].current) < SEATS:
            return beam
        # Finishing a trick may cost more (a call its cards contradict): the next ones are finished
        # too while they could still be cheaper than the best finished so far.
        closed = sorted(self._close(beam[0]), key=lambda h: h.cost)
        rest = []
        for h in beam[1:]:
            if len(h.current) == SEATS and closed and self.score(h) < closed[0].cost:
                closed = sorted([*closed, *self._close(h)], key=lambda h: h.cost)
            else:
                rest.append(h)
        return [*closed, *rest]

    def _last_trick_gone(self, h: _Hyp) -> bool:
        """Whether ``h``'s trick in play is the game's last, short of cards, and every card of it has left."""
        if len(h.done) != self.n_tricks - 1 or not h.current or len(h.current) == SEATS:
            return False
        seen = [p for p in h.current if p.sighting >= 0]
        return bool(seen) and len(self._lefts(seen)) == len(seen)

    def score(self, h: _Hyp) -> float:
        """The cost of ``h`` and the least that its trick in play must still cost: a seat whose turn
        comes before a card that lies there lands later (against the turn order) or was missed."""
        leader = h.game.to_move
        if not h.current or leader is None:
            return h.cost
        turns = [(p.seat - leader) % SEATS for p in h.current]
        gaps = [g for g in range(max(turns)) if g not in turns]
        return h.cost + sum(min(self.d.inversion * sum(t > g for t in turns), self.d.missed) for g in gaps)

    def _prune(self, hyps: Iterable[_Hyp], i: int) -> list[_Hyp]:
        kept: dict[tuple[object, ...], _Hyp] = {}
        for h in hyps:
            key = h.key()
            if key not in kept or h.cost < kept[key].cost:
                kept[key] = h
        return sorted(kept.values(), key=lambda h: self._ranked_cost(h, i))[: self.d.beam]

    def _closing_bound(self, parent: _Hyp, i: int) -> float:
        """The least a hypothesis made by finishing ``parent``'s trick and playing sighting ``i`` can be
        ranked at: its unseen plays are missed, and they count against the debt of :meth:`_ranked_cost`."""
        unseen = SEATS - len(parent.current)
        debt = self._ranked_cost(parent, i - 1) - parent.cost
        return parent.cost + max(self.d.missed * unseen, debt)

    def _ranked_cost(self, h: _Hyp, i: int) -> float:
        """``h``'s cost after sighting ``i`` and, for a whole game, the plays it must still miss:
        those the sightings after ``i`` cannot fill even if every one of them is a play."""
        if not self.whole:
            return h.cost
        needed = SEATS * (self.n_tricks - len(h.done)) - len(h.current)
        left = len(self.sightings) - 1 - i
        return h.cost + self.d.missed * max(0, needed - left)

    def _expand(self, h: _Hyp, i: int) -> list[_Hyp]:
        """``h`` with sighting ``i`` dropped, or played into the trick in play."""
        cost, why = self._drop_cost(h, i)
        out = [replace(h, cost=h.cost + cost, dropped=(*h.dropped, (i, why)))]
        if len(h.done) < self.n_tricks and len(h.current) < SEATS:
            out.extend(self._join(h, i))
        return out

    def _expand_closed(self, h: _Hyp, i: int) -> list[_Hyp]:
        """``h`` with its trick in play finished and sighting ``i`` leading the next one."""
        out: list[_Hyp] = []
        if len(h.done) < self.n_tricks and h.current and self._may_close(h, i):
            for closed in self._close(h):
                if len(closed.done) < self.n_tricks:
                    out.extend(self._join(closed, i))
        return out

    def _lefts(self, plays: Iterable[_Play]) -> list[float]:
        return [t for p in plays if p.sighting >= 0 and (t := self.sightings[p.sighting].left) is not None]

    def _may_close(self, h: _Hyp, i: int) -> bool:
        """A trick ends when it is full, or when its cards left the table before sighting ``i`` landed."""
        if len(h.current) == SEATS:
            return True
        swept = _swept(self._lefts(h.current))
        return swept is None or self.sightings[i].landed >= swept - self.d.sweep_tolerance

    def _join(self, h: _Hyp, i: int) -> list[_Hyp]:
        """``h`` with sighting ``i`` played into its current trick, for every free seat and reading."""
        s = self.sightings[i]
        leader = h.game.to_move
        assert leader is not None
        taken = {p.seat for p in h.current}
        base = h.cost
        swept = _swept(self._lefts(h.current))
        if swept is not None and s.landed > swept + self.d.sweep_tolerance:
            base += self.d.late
        before = h.done[-1].sweep if h.done else None
        if before is not None and s.landed < before - self.d.sweep_tolerance:
            base += self.d.early
        turns = [(p.seat - leader) % SEATS for p in h.current]
        out = []
        for seat in range(SEATS):
            if seat in taken:
                continue
            turn = (seat - leader) % SEATS
            seat_cost = base + self.seat_costs[i][seat] + self.d.inversion * sum(t > turn for t in turns)
            fix = self.fixed.get((len(h.done), seat))
            for card, read_cost in self.options[i] if fix is None else [(fix, 0.0)]:
                cost = seat_cost + read_cost
                if card >= 0 and h.known[card] + sum(p.card == card for p in h.current) >= self.copies[card]:
                    cost += self.d.third_copy
                out.append(replace(h, cost=cost, current=(*h.current, _Play(seat, card, i))))
        return out

    def _close(self, h: _Hyp) -> list[_Hyp]:
        """``h`` with its current trick finished: seats nobody was seen for play a card the deck
        holds; one hypothesis per winner that the cards not read can make."""
        leader = h.game.to_move
        assert leader is not None
        by_seat = {p.seat: p for p in h.current}
        plays = [by_seat.get((leader + k) % SEATS, _Play((leader + k) % SEATS, _UNREAD, -1)) for k in range(SEATS)]
        trick = len(h.done)
        plays = [p._replace(card=self.fixed.get((trick, p.seat), p.card)) for p in plays]
        known = list(h.known)
        for p in plays:
            if p.card >= 0:
                known[p.card] += 1
        open_ = [k for k, p in enumerate(plays) if p.card < 0]
        cost = h.cost + self.d.missed * sum(p.sighting < 0 for p in plays)
        if plays[0].sighting < 0:
            cost += self.d.missed_lead
        lefts = self._lefts(plays)
        sweep = _swept(lefts)
        if sweep is not None:
            cost += self.d.apart * sum(t < sweep - self.d.sweep_tolerance or t > sweep + self.d.linger for t in lefts)
        # The winners the open plays can make depend only on the trick's cards, leader and the deck.
        memo = (len(h.done), plays[0].seat, tuple(p.card for p in plays), tuple(known))
        best = self._winners.get(memo)
        if best is None:
            best = {}
            for filled in self._fillings(known, len(open_)):
                cards = [p.card for p in plays]
                for k, card in zip(open_, filled, strict=True):
                    cards[k] = card
                winner, prior = self._judge(h.game.current_trick, plays, cards)
                if winner not in best or prior < best[winner][0]:
                    best[winner] = (prior, cards)
            self._winners[memo] = best
        out = []
        for winner, (prior, cards) in best.items():
            game, conflicts = self._played(
                h.game, [PlayEvent(p.seat, Card.from_index(c)) for p, c in zip(plays, cards)]
            )
            reneges = sum(f.kind == "renege" for f in game.flags) - sum(f.kind == "renege" for f in h.game.flags)
            done = _Done(
                tuple(_Play(p.seat, c, p.sighting) for p, c in zip(plays, cards)),
                tuple(p.card < 0 for p in plays),
                winner,
                sweep,
            )
            out.append(
                _Hyp(
                    cost + prior + self.d.renege * reneges + self.d.call_conflict * conflicts,
                    game,
                    (*h.done, done),
                    tuple(known),
                    (),
                    h.dropped,
                )
            )
        return out

    def _played(self, before: Game, plays: Sequence[PlayEvent]) -> tuple[Game, int]:
        """The game ``before`` with one more trick's ``plays`` and the calls said during it, and how
        many of those calls the engine refused or found contradicted by the cards (a party conflict)."""
        first = SEATS * len(before.tricks)
        said = [c for c in self.calls if first <= c[0] < first + len(plays)]
        if not said:
            game = Game.replay(self.rules, self.contract, self.players, [*before.history, *plays])
            return game, _call_conflicts(game) - _call_conflicts(before) if self.calls else 0
        game = Game.replay(self.rules, self.contract, self.players, before.history)
        refused = 0
        for n, play in enumerate(plays):
            for _, seat, call in (c for c in said if c[0] == first + n):
                try:
                    game.call(seat, call)
                except ValueError:
                    refused += 1
            game.play(play.seat, play.card)
        return game, refused + _call_conflicts(game) - _call_conflicts(before)

    def _fillings(self, known: list[int], count: int) -> Iterable[tuple[int, ...]]:
        """The cards that may fill ``count`` plays nobody read: cards the deck still holds (for
        three or more, only each suit's highest and lowest, enough to tell winners apart)."""
        if count == 0:
            return [()]
        left = [c for c in range(N_CARDS) if self.copies[c] - known[c] > 0] or list(range(N_CARDS))
        if count >= 3:
            by_class: dict[int, list[int]] = {}
            for c in left:
                by_class.setdefault(self.order.suit_class[c], []).append(c)
            left = sorted({c for cs in by_class.values() for c in (min(cs, key=self._power), max(cs, key=self._power))})
        return product(left, repeat=count)

    def _power(self, card: int) -> int:
        return self.order.power[card]

    def _judge(self, like: Trick, plays: Sequence[_Play], cards: Sequence[int]) -> tuple[int, float]:
        """The winner of a trick of ``cards`` (turn order) as the engine rules a trick ``like`` this
        one (same leader, card order and Dulle rule), and the cost of the cards not following suit."""
        trick = copy.copy(like)
        trick.plays = []
        trick.augen = 0
        for p, c in zip(plays, cards, strict=True):
            trick.add(p.seat, Card.from_index(c))
        led = self.order.suit_class[cards[0]]
        off = sum(self.order.suit_class[c] != led for c in cards[1:])
        winner = trick.winner()
        assert winner is not None
        return winner, self.d.off_suit * off

    # -- the result ------------------------------------------------------------------------------

    def result(self, finals: list[_Hyp], calls: Sequence[tuple[int, int, str]]) -> DecodedGame:
        if not finals:
            game, errors = self.with_calls([], calls)
            return DecodedGame(game, [], [(s, "spurious") for s in self.sightings], [], self.geometry, 0.0, errors)
        best = finals[0]
        tricks, questions = self._resolve(best)
        questions += self.ask(best, finals[1:])
        plays = [(p.seat, p.card) for trick in tricks for p in trick]
        game, errors = self.with_calls(plays, calls)
        dropped = [(self.sightings[i], why) for i, why in best.dropped]
        return DecodedGame(game, tricks, dropped, questions, self.geometry, best.cost, errors)

    def with_calls(
        self, plays: Sequence[tuple[int, Card]], calls: Sequence[tuple[int, int, str]]
    ) -> tuple[Game, list[str]]:
        """The game of ``plays`` with each call made once its number of cards had been played."""
        game = self.factory()
        errors: list[str] = []
        pending = sorted(calls, key=lambda c: c[0])
        for n in range(len(plays) + 1):
            while pending and pending[0][0] <= n:
                _, caller, call = pending.pop(0)
                try:
                    game.call(caller, call)
                except ValueError as exc:
                    errors.append(f"seat {caller} {call}: {exc}")
            if n < len(plays):
                game.play(*plays[n])
        return game, errors

    def live_plays(self, h: _Hyp) -> tuple[list[list[DecodedPlay]], list[DecodedPlay]]:
        """The finished tricks of ``h`` (cards nobody read as its trick's closing chose them) and the
        plays of the trick in play that can be shown: in turn order from its leader, up to the first
        seat not yet seen or a card no reading names."""
        tricks = [[self._decoded(p, d) for p, d in zip(done.plays, done.deduced, strict=True)] for done in h.done]
        turns = _in_turn(h)
        return tricks, [self._decoded(p, False) for p in turns[: _first_unread(turns)] if p is not None]

    def seen_ahead(self, h: _Hyp) -> list[DecodedPlay]:
        """The plays of the trick in play after its first seat nobody has read yet (a card slid under
        another, a hand over it) whose card a reading names, in turn order: shown before their turn
        comes, since the seat before them is decided only when more is seen."""
        turns = _in_turn(h)
        return [
            self._decoded(p, False)
            for p in turns[_first_unread(turns) + 1 :]
            if p is not None and p.card >= 0 and p.sighting >= 0
        ]

    def _decoded(self, p: _Play, deduced: bool) -> DecodedPlay:
        return DecodedPlay(
            p.seat, Card.from_index(p.card), self.sightings[p.sighting] if p.sighting >= 0 else None, deduced
        )

    def deduced_question(self, h: _Hyp, trick: int, k: int) -> NeedsConfirmation | None:
        """A question about play ``k`` of finished ``trick`` nobody read, naming the two likeliest
        cards the deck still holds that keep the trick's winner (None when one card is left)."""
        cards = [[p.card for p in done.plays] for done in h.done]
        ranked = self._hand_out(h, cards, [(trick, k)])
        if len(ranked) < 2:
            return None
        (cost, (a,)), (other, (b,)) = ranked[0], ranked[1]
        seat = h.done[trick].plays[k].seat
        return self._question(
            h, trick, seat, Card.from_index(a), Card.from_index(b), other - cost, "nicht gelesen / not read"
        )

    def _resolve(self, h: _Hyp) -> tuple[list[list[DecodedPlay]], list[NeedsConfirmation]]:
        """The tricks of ``h`` with the cards nobody read decided by elimination: the deck holds
        every card twice, so what is left over was played where nobody read a card. Of the ways to
        hand it out that keep every trick's winner, the one of least cost wins; one nearly as
        cheap that tells another story is asked about."""
        cards = [[p.card for p in done.plays] for done in h.done]
        open_ = [(t, k) for t, done in enumerate(h.done) for k, unread in enumerate(done.deduced) if unread]
        questions: list[NeedsConfirmation] = []
        if open_:
            ranked = self._hand_out(h, cards, open_)
            if ranked:
                cost, filled = ranked[0]
                for (t, k), card in zip(open_, filled, strict=True):
                    cards[t][k] = card
                if len(ranked) > 1 and ranked[1][0] - cost < self.d.ask_margin:
                    questions.append(self._unread_question(h, open_, filled, ranked[1][1], ranked[1][0] - cost))
        tricks = [
            [
                DecodedPlay(
                    p.seat, Card.from_index(card), self.sightings[p.sighting] if p.sighting >= 0 else None, unread
                )
                for p, card, unread in zip(done.plays, row, done.deduced, strict=True)
            ]
            for done, row in zip(h.done, cards, strict=True)
        ]
        return tricks, questions

    def _hand_out(
        self, h: _Hyp, cards: list[list[int]], open_: list[tuple[int, int]], limit: int = 50000
    ) -> list[tuple[float, tuple[int, ...]]]:
        """Ways to play the cards left over into the ``open_`` plays, cheapest first, keeping every
        trick's winner (the search stops after ``limit`` steps: many unread plays have too many ways to
        try them all). Where no way keeping every winner is found, the leftover cards in deck order."""
        left = [max(0, self.copies[c] - h.known[c]) for c in range(N_CARDS)]
        if sum(left) < len(open_):
            return []
        last_of = {t: max(k for u, k in open_ if u == t) for t, _ in open_}
        found: list[tuple[float, tuple[int, ...]]] = []
        steps = 0
        chosen: list[int] = []
        said = [self._unread_costs(h.done[t].plays[k]) for t, k in open_]

        def walk(n: int, cost: float) -> None:
            nonlocal steps
            steps += 1
            if steps >= limit:
                return
            if n == len(open_):
                found.append((cost, tuple(chosen)))
                return
            t, k = open_[n]
            for card in range(N_CARDS):
                if left[card] <= 0:
                    continue
                left[card] -= 1
                chosen.append(card)
                cards[t][k] = card
                step = said[n][card]
                ok = True
                if k == last_of[t]:
                    trick = h.game.tricks[t]
                    winner, off_suit = self._judge(trick, h.done[t].plays, cards[t])
                    step += off_suit
                    ok = winner == h.done[t].winner
                if ok:
                    walk(n + 1, cost + step)
                chosen.pop()
                left[card] += 1
            cards[t][k] = h.done[t].plays[k].card

        walk(0, 0.0)
        if not found:
            leftover = [card for card in range(N_CARDS) for _ in range(left[card])]
            return [(math.inf, tuple(leftover[: len(open_)]))]
        # A renege is proven only by a later trick, so it is counted on whole hand-outs, cheapest first, while
        # one could still rank among the best two: a card nobody read is never made a renege where another
        # card left over explains the game without one.
        found.sort()
        best: list[tuple[float, tuple[int, ...]]] = []
        for cost, filled in found:
            if len(best) == 2 and cost >= best[1][0]:
                break
            for (t, k), card in zip(open_, filled, strict=True):
                cards[t][k] = card
            best = sorted([*best, (cost + self.d.renege * self._reneges(h, cards), filled)])[:2]
        for t, k in open_:
            cards[t][k] = h.done[t].plays[k].card
        return best

    def _reneges(self, h: _Hyp, cards: list[list[int]]) -> int:
        """How many reneges the engine proves in ``h``'s tricks played with ``cards``."""
        plays = [
            PlayEvent(p.seat, Card.from_index(card))
            for done, row in zip(h.done, cards, strict=True)
            for p, card in zip(done.plays, row, strict=True)
        ]
        game = Game.replay(self.rules, self.contract, self.players, plays)
        return sum(f.kind == "renege" for f in game.flags)

    def _unread_costs(self, play: _Play) -> list[float]:
        """Per card, what it costs handed to a play nobody read: a card glimpsed or misread still said something
        of itself (its readings, each as probable as when it was read), a card nobody saw nothing."""
        if play.sighting < 0:
            return [0.0] * N_CARDS
        s = self.sightings[play.sighting]
        trust, even = self._trust(s)
        shares = dict(s.readings)
        return [-math.log(trust * shares.get(card, 0.0) + even) + math.log(even) for card in range(N_CARDS)]

    def _unread_question(
        self, h: _Hyp, open_: list[tuple[int, int]], best: tuple[int, ...], other: tuple[int, ...], gap: float
    ) -> NeedsConfirmation:
        """Asks about the first play nobody read whose card the deck does not settle."""
        n = next(n for n in range(len(open_)) if best[n] != other[n])
        t, k = open_[n]
        play = h.done[t].plays[k]
        a, b = Card.from_index(best[n]), Card.from_index(other[n])
        return self._question(h, t, play.seat, a, b, gap, "nicht gelesen / not read")

    def ask(self, best: _Hyp, others: Sequence[_Hyp]) -> list[NeedsConfirmation]:
        """A question when another game is nearly as probable as the best, naming both cards of the
        first play where the two games (cards nobody read decided by the deck) differ."""
        mine = [[(p.seat, p.card) for p in trick] for trick in self._resolve(best)[0]]
        for other in others:
            if other.cost - best.cost >= self.d.ask_margin:
                break
            theirs = [[(p.seat, p.card) for p in trick] for trick in self._resolve(other)[0]]
            t = next((t for t, (a, b) in enumerate(zip(mine, theirs)) if a != b), None)
            if t is None:
                continue  # the same game, the evidence explained another way
            ours, alt = dict(mine[t]), dict(theirs[t])
            # The same cards by the same seats in another order (another leader): no card to ask about.
            seat = next((s for s in range(SEATS) if ours.get(s) != alt.get(s)), None)
            if seat is None:
                continue
            if seat not in ours or seat not in alt:
                return []
            return [
                self._question(best, t, seat, ours[seat], alt[seat], other.cost - best.cost, "unsicher / uncertain")
            ]
        return []

    def _question(self, h: _Hyp, trick: int, seat: int, a: Card, b: Card, gap: float, why: str) -> NeedsConfirmation:
        """A question naming the two candidates for ``seat``'s card in ``trick`` (``a`` the likelier)."""
        sure = 1.0 / (1.0 + math.exp(-gap))
        seen = [self.sightings[p.sighting] for p in h.done[trick].plays if p.sighting >= 0]
        where = max(seen, key=lambda s: s.landed) if seen else None
        return NeedsConfirmation(
            frame=where.frame if where else 0,
            time=where.landed if where else 0.0,
            reason="uncertain_card",
            trick=trick,
            seat=seat,
            card=str(a),
            candidates=((str(a), round(sure, 3)), (str(b), round(1.0 - sure, 3))),
            message=f"Stich {trick + 1}, Sitz {seat} ({why}): {a.german_name} oder {b.german_name}? / "
            f"trick {trick + 1}, seat {seat}: {a} or {b}?",
        )
