"""Whole games rendered as video, with their ground truth, for tests, benchmarks and the demo.

A legal game is simulated with the engine (a random deal per seed, a policy picking random legal
cards), laid out on a timeline (each card pushed in from its player's side by a hand, the trick
lying a few seconds, then swept to the winner's side and gone), and drawn frame by frame with the
synthesis of ``vision.synth`` (a deck, a table cloth and light per seed, camera shake, light drift).

Real-table events (:class:`Mishaps`, each a seeded rate, all off by default) make the game harder to
read without changing what was played: both copies of a card in one trick, a card slid partly under
another, a hand resting on the trick, a card put down and pulled back, a trick collected before its last
card settled, the camera bumped. A ``design`` (:mod:`vision.synth.designs`) draws the game in one printed
look, e.g. one the detector never saw.

Layout and pixels are separate: :meth:`GameVideo.scene` says where everything is at a time,
:meth:`GameVideo.truth` what a perfect detector would report (no pixels needed, fast), and
:meth:`GameVideo.render` draws the frame.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from dokocam.vision.detections import Detections

RECORD_FORMAT = "dokocam-game/1"


# --- the game ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimulatedGame:
    """A legal game: who played what, in order, and the record the engine writes for it."""

    seed: int
    players: tuple[str, ...]
    plays: tuple[tuple[int, str], ...]  # (seat, card code) in play order
    winners: tuple[int, ...]  # winner of each completed trick
    hands: tuple[tuple[str, ...], ...] = ()  # each seat's twelve dealt cards

    def record(self) -> dict[str, Any]:
        """The ``dokocam-game/1`` record of the game."""
        return {
            "format": RECORD_FORMAT,
            "players": list(self.players),
            "rules": {"preset": "tournament"},
            "contract": {"type": "normal"},
            "events": [{"seat": s, "play": c} for s, c in self.plays],
        }


def simulate_game(
    seed: int, *, tricks: int = 12, players: tuple[str, ...] = ("A", "B", "C", "D"), twins: float = 0.0
) -> SimulatedGame:
    """Deals 48 cards at random (per ``seed``) and plays ``tricks`` tricks of random legal cards.

    ``twins``: when a player may legally play the second copy of a card already in the trick, the chance
    that they do (both copies in one trick; 0 plays as chance has it).
    """
    from dokocam.engine import Card, Game

    rng = random.Random(seed)
    twin_rng = random.Random(seed * 7919 + 3)  # its own stream: twins=0 plays the same game as before
    deck = [Card.from_index(i) for i in range(24)] * 2
    rng.shuffle(deck)
    hands = [deck[k * 12 : (k + 1) * 12] for k in range(4)]
    game = Game(players=players, hands=hands, strict=True)
    plays: list[tuple[int, str]] = []
    while len(game.tricks) < tricks and not game.is_over:
        seat = game.to_move
        assert seat is not None
        legal = game.legal_cards(seat)
        card = rng.choice(legal)
        if twins > 0:
            in_trick = {str(c) for _, c in game.current_trick.plays}
            doubles = [c for c in legal if str(c) in in_trick]
            if doubles and twin_rng.random() < twins:
                card = doubles[0]
        game.play(seat, card)
        plays.append((seat, str(card)))
    winners = tuple(int(t.winner()) for t in game.tricks)  # type: ignore[arg-type]
    dealt = tuple(tuple(str(c) for c in hand) for hand in hands)
    return SimulatedGame(seed, tuple(players), tuple(plays), winners, dealt)


# --- the timeline ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardTimeline:
    """One played card's life on the table (times in video seconds, places in table cm)."""

    card: str
    seat: int
    trick: int
    push: float  # the hand starts pushing the card in
    land: float  # the card lies still
    release: float  # the hand lets go and withdraws
    sweep: float  # the winner starts sweeping the trick away
    gone: float  # the trick has left the table (face down at the winner's side)
    start: tuple[float, float]
    rest: tuple[float, float]
    angle: float
    pile: tuple[float, float]
    layer: float = 0.0  # drawing order on the table (higher lies on top)
    withdrawn: bool = False  # put down, let go, taken back from ``sweep`` to ``gone`` (``pile``: the player's side)


@dataclass(frozen=True)
class HandRest:
    """A player's hand resting on the trick from ``start`` to ``end`` (video seconds), palm at ``at`` (cm)."""

    seat: int
    start: float
    end: float
    at: tuple[float, float]


@dataclass(frozen=True)
class Bump:
    """The camera knocked at ``time``: its view shifts by ``shift`` cm and turns by ``turn`` degrees, and stays so."""

    time: float
    shift: tuple[float, float]
    turn: float


@dataclass(frozen=True)
class Mishaps:
    """Real-table events a game video shows, each a chance (0: never), drawn from the video's seed.

    None changes what was played except ``twins``, which changes which legal card a player picks; the
    ground truth is always the played game.

    Attributes:
        twins: a player who may legally play the second copy of a card already in the trick does so.
        slide_under: a card (not a trick's first) is slid half under a card already lying there.
        hand_rest: after a card lands, a player rests a hand on the trick for 1.5-4 s.
        pull_back: before a card, its player puts down another card of their hand, then takes it back.
        early_sweep: the winner collects the trick 0.05-0.3 s after its last card landed.
        bump: the camera is knocked once in mid-game: its view shifts 2-5 cm and turns 1.5-4 degrees.
    """

    twins: float = 0.0
    slide_under: float = 0.0
    hand_rest: float = 0.0
    pull_back: float = 0.0
    early_sweep: float = 0.0
    bump: float = 0.0

    @classmethod
    def realistic(cls) -> Mishaps:
        """Rates chosen to show each event in most games (not measured at real tables): per game about
        three slid cards, one resting hand, one or two pulled-back cards, one early collection, a bump in
        every second game; random legal play already puts both copies in one trick about four times a
        game, ``twins`` makes it five."""
        return cls(twins=0.2, slide_under=0.08, hand_rest=0.025, pull_back=0.03, early_sweep=0.1, bump=0.5)

    @classmethod
    def parse(cls, text: str) -> Mishaps:
        """``realistic``, ``none``, or ``NAME=RATE`` items separated by commas (the others 0).

        >>> Mishaps.parse("bump=1,twins=0.5") == Mishaps(twins=0.5, bump=1.0)
        True

        Raises:
            ValueError: an unknown name or a rate outside 0-1 (named).
        """
        if text == "realistic":
            return cls.realistic()
        if text in ("none", ""):
            return cls()
        names = tuple(f.name for f in fields(cls))
        rates: dict[str, float] = {}
        for item in text.split(","):
            name, _, value = item.strip().partition("=")
            try:
                rate = float(value)
            except ValueError:
                rate = -1.0
            if name not in names or not 0.0 <= rate <= 1.0:
                raise ValueError(
                    f"events item {item!r}: use realistic, none, or NAME=RATE with RATE 0-1 and NAME one of "
                    + ", ".join(names)
                )
            rates[name] = rate
        return cls(**rates)

    @property
    def tag(self) -> str:
        """A short name for file names: ``""`` when no event is on.

        >>> Mishaps(bump=1.0).tag
        'bump1'
        """
        return "-".join(
            f"{f.name.replace('_', '')}{getattr(self, f.name):g}" for f in fields(self) if getattr(self, f.name)
        )


def _ease(a: float) -> float:
    a = min(1.0, max(0.0, a))
    return a * a * (3 - 2 * a)


def _lerp(p: tuple[float, float], q: tuple[float, float], a: float) -> tuple[float, float]:
    return (p[0] + (q[0] - p[0]) * a, p[1] + (q[1] - p[1]) * a)


@dataclass(frozen=True)
class SceneState:
    """Everything on the table at one time: cards bottom first, arms, and the camera's jitter."""

    cards: tuple[tuple[str, tuple[float, float], float, bool], ...]  # code, centre cm, angle, face up
    arms: tuple[tuple[tuple[float, float], tuple[float, float]], ...]  # start, end in cm
    shake: tuple[float, float, float]  # dx cm, dy cm, yaw degrees
    light: float  # brightness factor drift


@dataclass
class GameVideo:
    """A simulated game laid out on a timeline and drawable at any time.

    Args:
        seed: picks the deal, the deck, the table, the camera and all timings.
        tricks: how many tricks to play (12 for a whole game; fewer for quick tests).
        width, height: frame size in pixels.
        fps: frames per second of the video.
        steady: a camera on a tripod in even light: no shake, no sensor noise, no light drift
            (compresses far better: for the small demo video).
        faces: a folder of face images named by card code (``QC.png`` ...; see
            :func:`vision.synth.faces.load_face_folder`) to play with instead of the seed's drawn
            deck: a user's own photographed deck, or a design the detector never saw. Only the pixels
            change; the deal, the table and the timing are the seed's.
        design: a design of :data:`vision.synth.designs.DESIGNS` to draw the cards in (an SVG deck's
            faces, or the seed's drawn deck in that font family; see :func:`design_deck`); ``faces``
            wins when both are given.
        mishaps: the real-table events to stage (:class:`Mishaps`; none by default).

    Raises:
        ValueError: ``design`` is not a design that can be drawn (named).
        FaceFolderError: ``faces`` is not a readable face folder.
    """

    seed: int
    tricks: int = 12
    width: int = 1280
    height: int = 720
    fps: float = 10.0
    steady: bool = False
    faces: str | Path | None = None
    design: str | None = None
    mishaps: Mishaps = field(default_factory=Mishaps)
    game: SimulatedGame = field(init=False)
    timeline: list[CardTimeline] = field(init=False)
    withdrawn: list[CardTimeline] = field(init=False)  # cards put down and taken back, not played
    rests: list[HandRest] = field(init=False)
    bump: Bump | None = field(init=False)
    duration: float = field(init=False)

    def __post_init__(self) -> None:
        if self.faces is not None:
            from dokocam.vision.synth.faces import load_face_folder

            # Read now, so a bad folder fails before any frame is drawn.
            self._folder_faces = load_face_folder(self.faces)
        elif self.design is not None:
            game_design(self.design)  # an unknown name fails before any frame is drawn
        self.game = simulate_game(self.seed, tricks=self.tricks, twins=self.mishaps.twins)
        rng = random.Random(self.seed * 7919 + 1)
        self._rng_seed = self.seed
        # Which side of the picture seat 0 sits on, and the camera's own turn: calibration must cope.
        self.seat0_side = rng.randrange(4)
        self.view_width_cm = rng.uniform(100.0, 125.0)
        self.tilt_deg = rng.uniform(0.0, 18.0)
        self.tilt_toward = rng.uniform(0.0, 360.0)
        self.yaw_deg = rng.uniform(-12.0, 12.0)
        self.target = (rng.uniform(-4.0, 4.0), rng.uniform(-3.0, 3.0))
        self.shake_cm = 0.0 if self.steady else rng.uniform(0.0, 0.5)
        self.withdrawn, self.rests = [], []
        self.timeline = self._plan(rng)
        # A few seconds after the last trick has gone: the table is seen empty (people count).
        self.duration = (self.timeline[-1].gone if self.timeline else 0.0) + 5.0
        self.bump = self._plan_bump()

    def seat_direction(self, seat: int) -> tuple[float, float]:
        """Unit vector from the table centre towards ``seat`` (table cm, y towards the bottom)."""
        angle = math.radians(90.0 + 90.0 * (seat + self.seat0_side))
        return (math.cos(angle), math.sin(angle))

    def _plan(self, rng: random.Random) -> list[CardTimeline]:
        """The played cards' timeline; also fills :attr:`withdrawn` and :attr:`rests`.

        ``rng`` draws the ordinary game's timing and places; the mishaps draw from a stream of their own,
        so a video without mishaps is laid out as it always was.
        """
        mishaps = self.mishaps
        odd = random.Random(self.seed * 7919 + 2)
        held = {seat: list(hand) for seat, hand in enumerate(self.game.hands)}
        out: list[CardTimeline] = []
        t = 1.0
        plays = self.game.plays
        for trick in range((len(plays) + 3) // 4):
            cards = plays[4 * trick : 4 * trick + 4]
            pending: list[dict[str, Any]] = []
            rested_last = False
            for k, (seat, code) in enumerate(cards):
                t += rng.uniform(0.3, 1.2)  # thinking
                dx, dy = self.seat_direction(seat)
                # Cards lie near the middle, pushed in from the player's side, often overlapping.
                r = rng.uniform(6.5, 10.5)
                side = rng.uniform(-2.5, 2.5)
                rest = (dx * r - dy * side, dy * r + dx * side)
                start = (dx * 42.0 - dy * side * 2, dy * 42.0 + dx * side * 2)
                facing = math.degrees(math.atan2(dy, dx))
                angle = 90.0 - facing + rng.uniform(-20.0, 20.0)
                layer = float(len(out) + len(pending))
                if mishaps.pull_back and odd.random() < mishaps.pull_back:
                    t = self._pull_back(odd, held, seat, code, trick, t, start, rest, angle, layer + 0.5)
                if code in held.get(seat, []):
                    held[seat].remove(code)
                if pending and mishaps.slide_under and odd.random() < mishaps.slide_under:
                    # Half under a card already there, its own player's end sticking out.
                    over = pending[odd.randrange(len(pending))]
                    shift = odd.uniform(4.0, 5.5)
                    rest = (over["rest"][0] + dx * shift, over["rest"][1] + dy * shift)
                    layer = over["layer"] - 0.5 + 0.01 * k
                push = t
                land = push + rng.uniform(0.45, 0.8)
                release = land + rng.uniform(0.1, 0.7)
                t = release + 0.3
                pending.append(
                    dict(
                        card=code,
                        seat=seat,
                        push=push,
                        land=land,
                        release=release,
                        start=start,
                        rest=rest,
                        angle=angle,
                        layer=layer,
                    )
                )
                if mishaps.hand_rest and odd.random() < mishaps.hand_rest:
                    who = odd.randrange(4)
                    hx, hy = self.seat_direction(who)
                    under = pending[odd.randrange(len(pending))]["rest"]
                    length = odd.uniform(1.5, 4.0)
                    palm = (under[0] + hx * 3.0, under[1] + hy * 3.0)
                    self.rests.append(HandRest(who, t, t + length, palm))
                    t += length + 0.3
                    rested_last = k == len(cards) - 1
            winner = self.game.winners[trick] if trick < len(self.game.winners) else None
            t += rng.uniform(1.5, 3.0)  # everyone looks at the trick
            sweep = t + 0.5  # the winner's hand reaches in first
            if winner is not None and not rested_last and mishaps.early_sweep and odd.random() < mishaps.early_sweep:
                last = pending[-1]
                sweep = last["land"] + odd.uniform(0.05, 0.3)
                last["release"] = min(last["release"], sweep)
            gone = sweep + rng.uniform(0.5, 0.8)
            if winner is None:
                pile = (0.0, 0.0)
                sweep = gone = t + 60.0  # an unfinished trick stays
            else:
                wx, wy = self.seat_direction(winner)
                pile = (wx * 45.0, wy * 45.0)
            for p in pending:
                out.append(CardTimeline(trick=trick, sweep=sweep, gone=gone, pile=pile, **p))
            t = gone + rng.uniform(0.2, 0.6)
        return out

    def _pull_back(
        self,
        odd: random.Random,
        held: dict[int, list[str]],
        seat: int,
        code: str,
        trick: int,
        t: float,
        start: tuple[float, float],
        rest: tuple[float, float],
        angle: float,
        layer: float,
    ) -> float:
        """Stages another card of ``seat``'s hand put down and taken back before ``code``; returns the time
        the player goes on (``t`` when the hand holds no other card)."""
        others = [c for c in held.get(seat, []) if c != code]
        if not others:
            return t
        land = t + odd.uniform(0.45, 0.8)
        release = land + odd.uniform(0.1, 0.4)
        back = release + 0.7 + odd.uniform(0.3, 1.0)  # lies there alone, then the hand comes back for it
        gone = back + odd.uniform(0.4, 0.7)
        where = (rest[0] + odd.uniform(-1.5, 1.5), rest[1] + odd.uniform(-1.5, 1.5))
        card = odd.choice(others)
        self.withdrawn.append(
            CardTimeline(
                card=card,
                seat=seat,
                trick=trick,
                push=t,
                land=land,
                release=release,
                sweep=back,
                gone=gone,
                start=start,
                rest=where,
                angle=angle + odd.uniform(-10.0, 10.0),
                pile=start,
                layer=layer,
                withdrawn=True,
            )
        )
        return gone + odd.uniform(0.3, 0.8)

    def _plan_bump(self) -> Bump | None:
        """One knock of the camera between the end of the second trick and the start of the last ten percent."""
        odd = random.Random(self.seed * 7919 + 4)
        if not self.mishaps.bump or odd.random() >= self.mishaps.bump or len(self.timeline) < 12:
            return None
        begin = max(c.gone for c in self.timeline if c.trick == 1)
        when = odd.uniform(begin, max(begin, 0.9 * self.timeline[-1].gone))
        angle = odd.uniform(0.0, 2 * math.pi)
        size = odd.uniform(2.0, 5.0)
        turn = odd.choice((-1.0, 1.0)) * odd.uniform(1.5, 4.0)
        return Bump(when, (size * math.cos(angle), size * math.sin(angle)), turn)

    def trick_mishaps(self) -> dict[int, list[str]]:
        """The real-table events each trick saw (``twins``, ``slide_under``, ``hand_rest``, ``pull_back``,
        ``early_sweep``, ``bump``), by trick index; tricks without any are left out."""
        out: dict[int, list[str]] = {}
        by_trick: dict[int, list[CardTimeline]] = {}
        for c in self.timeline:
            by_trick.setdefault(c.trick, []).append(c)
        # The bump belongs to the first trick still on the table (or yet to come) when it happens.
        bumped = None
        if self.bump is not None:
            bumped = min((t for t, cs in by_trick.items() if cs[0].gone > self.bump.time), default=None)
        for trick, cards in by_trick.items():
            seen = []
            if len({c.card for c in cards}) < len(cards):
                seen.append("twins")
            if any(c.layer != int(c.layer) for c in cards):
                seen.append("slide_under")
            begin, end = min(c.push for c in cards), max(c.gone for c in cards)
            if any(begin <= r.start < end for r in self.rests):
                seen.append("hand_rest")
            if any(w.trick == trick for w in self.withdrawn):
                seen.append("pull_back")
            if len(cards) == 4 and cards[-1].sweep - cards[-1].land < 0.35:
                seen.append("early_sweep")
            if trick == bumped:
                seen.append("bump")
            if seen:
                out[trick] = seen
        return out

    # --- state at a time ---------------------------------------------------------------------

    def scene(self, time: float) -> SceneState:
        """Where every card and arm is at ``time``."""
        placed: list[tuple[float, tuple[str, tuple[float, float], float, bool]]] = []
        arms: list[tuple[tuple[float, float], tuple[float, float]]] = []
        reaching: set[int] = set()
        for c in self.timeline + self.withdrawn:
            if time < c.push or time >= c.gone:
                continue
            dx, dy = self.seat_direction(c.seat)
            if time < c.land:
                where = _lerp(c.start, c.rest, _ease((time - c.push) / (c.land - c.push)))
            elif time < c.sweep:
                where = c.rest
            else:
                where = _lerp(c.rest, c.pile, _ease((time - c.sweep) / (c.gone - c.sweep)))
            placed.append((c.layer, (c.card, where, c.angle, True)))
            # The player's hand holds the card by its near end while pushing it, then withdraws.
            hand = (where[0] + dx * 10.0, where[1] + dy * 10.0)
            shoulder = (dx * 80.0, dy * 80.0)
            away = (dx * 60.0, dy * 60.0)
            if time < c.release or (c.withdrawn and time >= c.sweep):
                arms.append((shoulder, hand))
            elif c.withdrawn and time >= c.sweep - 0.4:  # the player reaches back in for the card
                arms.append((shoulder, _lerp(away, hand, _ease((time - (c.sweep - 0.4)) / 0.4))))
            elif time < c.release + 0.3:
                arms.append((shoulder, _lerp(hand, away, (time - c.release) / 0.3)))
            # The winner reaches in for half a second, then sweeps the trick towards the pile.
            if not c.withdrawn and c.trick not in reaching and c.sweep - 0.5 <= time < c.gone:
                reaching.add(c.trick)
                n = math.hypot(*c.pile) or 1.0
                ux, uy = c.pile[0] / n, c.pile[1] / n
                if time < c.sweep:
                    a = _ease((time - (c.sweep - 0.5)) / 0.5)
                    arms.append(((ux * 80.0, uy * 80.0), _lerp((ux * 60.0, uy * 60.0), (ux * 10.0, uy * 10.0), a)))
                else:
                    arms.append(((ux * 80.0, uy * 80.0), (where[0] + ux * 2.0, where[1] + uy * 2.0)))
        for rest in self.rests:
            if rest.start <= time < rest.end:
                dx, dy = self.seat_direction(rest.seat)
                away = (dx * 60.0, dy * 60.0)
                coming = _ease((time - rest.start) / 0.4) * (1.0 - _ease((time - (rest.end - 0.4)) / 0.4))
                arms.append(((dx * 80.0, dy * 80.0), _lerp(away, rest.at, coming)))
        placed.sort(key=lambda p: p[0])  # stable: the play order among equal layers
        cards = tuple(card for _, card in placed)
        knock = (0.0, 0.0, 0.0)
        if self.bump is not None and time >= self.bump.time:
            a = _ease((time - self.bump.time) / 0.2)
            knock = (self.bump.shift[0] * a, self.bump.shift[1] * a, self.bump.turn * a)
        if self.steady:
            return SceneState(cards, tuple(arms), knock, 1.0)
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, int(time * 1000)]))
        drift = math.sin(time * 0.7 + self.seed) * self.shake_cm
        shake = (
            knock[0] + drift + float(rng.normal(0, self.shake_cm * 0.3)),
            knock[1] + math.cos(time * 0.5 + self.seed) * self.shake_cm + float(rng.normal(0, self.shake_cm * 0.3)),
            knock[2] + float(rng.normal(0, 0.15)) + 0.3 * math.sin(time * 0.3),
        )
        light = 1.0 + 0.15 * math.sin(time * 2 * math.pi / 37.0 + self.seed)
        return SceneState(cards, tuple(arms), shake, light)

    # --- camera, ground truth, pixels ------------------------------------------------------------

    def camera(self, state: SceneState) -> Any:
        from dokocam.vision.synth.scene import Camera

        dx, dy, yaw = state.shake
        return Camera(
            width=self.width,
            height=self.height,
            view_width_cm=self.view_width_cm,
            tilt_deg=self.tilt_deg,
            tilt_toward_deg=self.tilt_toward,
            yaw_deg=self.yaw_deg + yaw,
            target=(self.target[0] + dx, self.target[1] + dy),
        )

    def truth(self, time: float, *, min_visible: float = 0.35, scale: int = 4) -> Detections:
        """What a perfect detector sees at ``time`` (no pixels drawn): one box per face-up card
        showing at least ``min_visible`` of itself, around its visible part, confidence 1.

        Visibility is rasterised at ``1/scale`` of the frame size (cards and arms as polygons).
        """
        import cv2

        state = self.scene(time)
        camera = self.camera(state)
        w, h = self.width // scale, self.height // scale
        owner = np.full((h, w), -1, np.int16)
        polygons = []
        size = (6.1, 6.1 * 1.45)
        for i, (_code, center, angle, _up) in enumerate(state.cards):
            corners = camera.project(_card_corners(center, angle, size)) / scale
            polygons.append(corners)
            cv2.fillPoly(owner, [np.round(corners * 4).astype(np.int32)], i, cv2.LINE_8, shift=2)
        for start, end in state.arms:
            for poly in _arm_outline(start, end):
                cv2.fillPoly(
                    owner, [np.round(camera.project(poly) / scale * 4).astype(np.int32)], -2, cv2.LINE_8, shift=2
                )
        xyxy, class_id = [], []
        for i, (code, _c, _a, up) in enumerate(state.cards):
            if not up:
                continue
            full = _area(polygons[i])
            mine = owner == i
            count = int(mine.sum())
            if full <= 0 or count / full < min_visible:
                continue
            ys, xs = np.nonzero(mine)
            xyxy.append([xs.min() * scale, ys.min() * scale, (xs.max() + 1) * scale, (ys.max() + 1) * scale])
            class_id.append(_card_index(code))
        if not xyxy:
            return Detections.empty()
        return Detections(xyxy=np.array(xyxy), confidence=np.ones(len(xyxy)), class_id=np.array(class_id))

    def render_annotated(self, time: float, *, frame: int = 0) -> tuple[np.ndarray, Any]:
        """Draws the frame at ``time``; returns the BGR image and the scene's full annotation
        (:class:`~vision.synth.scene.SceneAnnotation`: every card and corner index with its box)."""
        from dokocam.vision.synth.scene import Arm, PlacedCard, render_scene

        state = self.scene(time)
        deck, table, look = self._assets()
        placed = [PlacedCard(code, center, angle, up) for code, center, angle, up in state.cards]
        arms = [Arm(start, end, width_cm=7.5, skin=self._skin, sleeve=self._sleeve) for start, end in state.arms]
        look = _scaled_look(look, state.light)
        return render_scene(deck, table, placed, self.camera(state), arms, seed=self.seed * 100003 + frame, look=look)

    def render(self, time: float, *, frame: int = 0) -> tuple[np.ndarray, Detections]:
        """Draws the frame at ``time``; returns the BGR image and the labelled boxes
        (one per card whose corner index or half of whose face shows, around its visible part)."""
        image, annotation = self.render_annotated(time, frame=frame)
        xyxy, class_id = [], []
        for card in annotation.cards:
            if card.class_id is None or card.box is None:
                continue
            if any(v >= 0.6 for v in card.index_visibility) or card.visible_fraction >= 0.5:
                xyxy.append(card.box)
                class_id.append(card.class_id)
        det = (
            Detections.empty()
            if not xyxy
            else Detections(xyxy=np.array(xyxy), confidence=np.ones(len(xyxy)), class_id=np.array(class_id))
        )
        return image, det

    def _assets(self) -> tuple[Any, Any, Any]:
        cached = getattr(self, "_asset_cache", None)
        if cached is None:
            from dokocam.vision.synth.scene import Deck, Look, Table

            if self.faces is not None:
                deck = Deck.from_faces(self._folder_faces, seed=self.seed)
            elif self.design is not None:
                deck = design_deck(self.design, self.seed)
            else:
                deck = Deck.procedural(self.seed, face_width=200)
            table = Table.random(self.seed)
            rng = random.Random(self.seed + 5)
            # Video light: no per-frame JPEG or heavy blur (the video codec compresses anyway).
            look = Look(
                light_gradient=table.look.light_gradient,
                light_angle_deg=table.look.light_angle_deg,
                shadow=table.look.shadow,
                color_gain=table.look.color_gain,
                brightness=table.look.brightness,
                vignette=table.look.vignette,
                noise=0.0 if self.steady else min(table.look.noise, 3.0),
            )
            self._skin = rng.choice([(140, 170, 215), (110, 140, 190), (80, 110, 150), (60, 80, 120)])
            self._sleeve = rng.choice([None, (40, 40, 40), (120, 60, 30), (50, 50, 150), (200, 200, 200)])
            cached = self._asset_cache = (deck, table, look)
        return cached

    def frame_times(self) -> Iterator[tuple[int, float]]:
        n = int(math.ceil(self.duration * self.fps))
        for i in range(n):
            yield i, i / self.fps

    def write(
        self,
        video_path: str | Path,
        *,
        record_path: str | Path | None = None,
        truth_path: str | Path | None = None,
        progress: bool = False,
    ) -> dict[str, Any]:
        """Renders every frame into an mp4 (``mp4v``) and writes the ground truth.

        Args:
            record_path: the game's ``dokocam-game/1`` record (default: next to the video, ``.json``).
            truth_path: per-frame ground truth as JSON lines (default: ``.frames.jsonl``).

        Returns:
            A summary: frames, duration, paths.
        """
        import cv2

        video_path = Path(video_path)
        video_path.parent.mkdir(parents=True, exist_ok=True)
        record_path = Path(record_path) if record_path else video_path.with_suffix(".json")
        truth_path = Path(truth_path) if truth_path else video_path.with_suffix(".frames.jsonl")
        writer = cv2.VideoWriter(str(video_path), cv2.VideoWriter.fourcc(*"mp4v"), self.fps, (self.width, self.height))
        if not writer.isOpened():
            raise OSError(f"{video_path}: OpenCV cannot write mp4v video here")
        frames = list(self.frame_times())
        iterator: Any = frames
        if progress:
            from tqdm import tqdm

            iterator = tqdm(frames, desc=f"render seed {self.seed}", unit="frame")
        with truth_path.open("w") as truth:
            for index, time in iterator:
                image, det = self.render(time, frame=index)
                writer.write(image)
                truth.write(json.dumps(_truth_line(index, time, det)) + "\n")
        writer.release()
        record = self.game.record()
        record_path.write_text(json.dumps(record, indent=1) + "\n")
        return {
            "video": str(video_path),
            "record": str(record_path),
            "frames_truth": str(truth_path),
            "frames": len(frames),
            "duration_s": round(self.duration, 2),
            "tricks": len(self.game.winners),
        }


def _truth_line(index: int, time: float, det: Detections) -> dict[str, Any]:
    from dokocam.engine import CARD_CODES

    return {
        "frame": index,
        "time": round(time, 4),
        "cards": [
            {"card": CARD_CODES[int(k)], "box": [round(float(v), 1) for v in box]}
            for k, box in zip(det.class_id, det.xyxy, strict=True)
        ],
    }


def truth_detections(lines: list[dict[str, Any]]) -> Iterator[tuple[int, float, Detections]]:
    """Per-frame ground truth (as written by :meth:`GameVideo.write`) as ``(frame, time, Detections)``."""
    from dokocam.engine import Card

    for line in lines:
        cards = line["cards"]
        if not cards:
            yield line["frame"], line["time"], Detections.empty()
            continue
        yield (
            line["frame"],
            line["time"],
            Detections(
                xyxy=np.array([c["box"] for c in cards], np.float32).reshape(-1, 4),
                confidence=np.ones(len(cards)),
                class_id=np.array([Card.parse(c["card"]).index for c in cards], np.int64),
            ),
        )


def _card_index(code: str) -> int:
    from dokocam.engine import Card

    return Card.parse(code).index


def _card_corners(center: tuple[float, float], angle: float, size: tuple[float, float]) -> np.ndarray:
    w, h = size
    a = math.radians(angle)
    rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return local @ rot.T + np.asarray(center)


def _arm_outline(start: tuple[float, float], end: tuple[float, float], width: float = 7.5) -> list[np.ndarray]:
    """A forearm and an open hand, roughly as ``vision.synth`` draws them (table cm)."""
    s, e = np.asarray(start, float), np.asarray(end, float)
    d = e - s
    d /= np.linalg.norm(d) or 1.0
    n = np.array([-d[1], d[0]])
    half = width / 2
    forearm = np.array([s + n * half * 1.15, e + n * half, e - n * half, s - n * half * 1.15])
    t = np.linspace(0, 2 * math.pi, 16, endpoint=False)
    palm = e + np.outer(np.cos(t) * width * 0.75, d) + np.outer(np.sin(t) * half * 1.25, n)
    fingers = np.array([e + n * half, e + n * half + d * width * 1.3, e - n * half + d * width * 1.3, e - n * half])
    return [forearm, palm, fingers]


def _area(points: np.ndarray) -> float:
    x, y = points[:, 0], points[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def _scaled_look(look: Any, factor: float) -> Any:
    return replace(look, brightness=look.brightness * factor)


# --- designs ---------------------------------------------------------------------------------------


def game_designs(split: str) -> tuple[str, ...]:
    """The designs of ``split`` (``train``, ``heldout``) a game video can be drawn in: SVG decks and the font
    families installed here (a face-folder design is played with ``faces=``).

    >>> game_designs("heldout")  # doctest: +NORMALIZE_WHITESPACE
    ('svg:gm-paris', 'svg:xskat-french', 'font:liberation-sans', 'font:liberation-serif', 'font:liberation-mono',
     'font:p052', 'font:lato', 'font:go-mono')
    """
    from dokocam.vision.synth.designs import designs, font_families

    families = font_families(split)  # type: ignore[arg-type]
    return tuple(d.name for d in designs(split) if d.kind == "svg" or d in families)  # type: ignore[arg-type]


def design_for_seed(seed: int, split: str) -> str:
    """The design game ``seed`` is drawn in when games cycle through ``split``'s designs by seed.

    >>> [design_for_seed(s, "heldout") for s in (8, 9)]
    ['svg:gm-paris', 'svg:xskat-french']
    """
    names = game_designs(split)
    return names[seed % len(names)]


def game_design(name: str) -> Any:
    """The :class:`~vision.synth.designs.Design` named ``name``, if a game can be drawn in it.

    Raises:
        ValueError: no SVG deck or font family of that name (the message lists those there are).
    """
    from dokocam.vision.synth.designs import DESIGNS

    for design in DESIGNS:
        if design.name == name and design.kind in ("svg", "font"):
            return design
    raise ValueError(f"design {name!r} cannot be drawn in a game; choose from {', '.join(game_designs('all'))}")


def design_deck(name: str, seed: int) -> Any:
    """The deck of design ``name`` for game ``seed``: an SVG deck's faces (rasterized once and cached), or
    the seed's drawn deck with its indices in one of the font family's fonts (chosen by the seed).

    Raises:
        ValueError: not an SVG or font design.
        SvgDeckError: the SVG deck is not installed.
    """
    from dokocam.vision.synth.scene import Deck

    design = game_design(name)
    if design.kind == "svg":
        from dokocam.vision.synth.faces import load_face_folder
        from dokocam.vision.synth.svgdecks import svg_face_folders

        return Deck.from_faces(load_face_folder(svg_face_folders([design.short])[0]), seed=seed)
    drawn = Deck.procedural(seed, face_width=200)
    font = design.fonts[seed % len(design.fonts)]
    return Deck(replace(drawn.style, font=font), drawn.seed, size_cm=drawn.size_cm)
