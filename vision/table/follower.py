"""The game follower: turns tracked card landings into plays of an ``engine.Game`` and table events.

It decides the seat of each card (its place on the table against the turn order the engine
expects), groups cards into tricks (a fifth card on the table starts the next trick), notices when
a trick has been cleared away, calibrates the table automatically from the first tricks, and
passes the engine's own findings (renege, third copy, out of turn) on as events.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from dokocam.vision.table.events import (
    Calibrated,
    CardPlayed,
    FlagRaised,
    GameOver,
    NeedsConfirmation,
    TableEvent,
    TrickCleared,
    TrickComplete,
)
from dokocam.vision.table.geometry import AutoCalibrator, TableGeometry
from dokocam.vision.table.tracker import CardLanded, CardLeft, TrackerEvent

if TYPE_CHECKING:
    import numpy as np

    from dokocam.engine import Card, Game, Trick


@dataclass
class _TableTrick:
    """The cards of one trick that are still lying on the table (by track id)."""

    number: int
    on_table: set[int] = field(default_factory=set)
    plays: list[tuple[int, int, tuple[float, float]]] = field(default_factory=list)  # (track, seat, centre)
    reads: dict[int, tuple[int, float]] = field(default_factory=dict)  # (card index, confidence) by track
    left_at: dict[int, float] = field(default_factory=dict)  # when each track left the table


class GameFollower:
    """Feeds ``engine.Game`` from tracker events and reports what happened.

    Args:
        game_factory: builds a fresh ``engine.Game`` (players, rules, contract); called at start
            and by :meth:`reset`.
        geometry: the table as calibrated so far (a ``default`` one is replaced by the automatic
            calibration; a ``manual`` one is kept).
        auto_calibrate: calibrate from the first tricks when the geometry is only the default.
        trust_position: degrees of margin by which a card's place must point to one seat for the
            place to outvote the turn order; raising it leans on the turn order more, lowering it
            on positions (a missed card then shifts fewer seats).
        calibrator: the automatic calibrator (a default one when ``None``).
        duplicate_window: seconds within which the same card landing again at the same spot is
            taken for the first landing (a track lost and found again), not a second copy.
        third_copy_confidence: a card whose copies are all played is taken as one more (and
            flagged by the engine) only this sure; below it, it is a misreading and is not played.
            Kept high: a misreading played as a trick's fourth card pushes the real fourth card
            into the next trick, and every later trick with it; a real card refused only leaves
            its trick short, which clearing closes and a person is asked to complete.
        outvote_margin: a further copy is played (and the engine flags it) when it is read this
            much surer than the weakest copy already played, which is then doubted and asked about
            instead; raising it refuses more such cards, which leaves their trick short.
        runner_up_share: such a misreading is played as the runner-up of its identity vote when
            that card is still in the deck and won at least this share of the votes (and a
            person is asked to check); raising it leaves more tricks short instead.
        swept_together: seconds within which a trick's lone lead card leaving right after the
            previous trick was cleared counts as part of that trick (and is taken back).
        duplicate_distance: how near (as a fraction of the trick area's radius) counts as the
            same spot; raising it merges more, and may swallow a second copy laid close by.
        reseat_tolerance: degrees within which every card of a complete trick must lie of its seat's
            direction for the trick to be seated anew by position (see ``_reseat``).
        reseat_inversion: degrees of position error one card landing out of turn order is worth
            when seating a complete trick anew; raising it trusts the landing order more.
    """

    def __init__(
        self,
        game_factory: Callable[[], Game],
        geometry: TableGeometry,
        *,
        auto_calibrate: bool = True,
        trust_position: float = 30.0,
        calibrator: AutoCalibrator | None = None,
        duplicate_window: float = 2.0,
        duplicate_distance: float = 0.12,
        swept_together: float = 1.0,
        third_copy_confidence: float = 0.9,
        runner_up_share: float = 0.2,
        outvote_margin: float = 0.25,
        reseat_tolerance: float = 40.0,
        reseat_inversion: float = 15.0,
    ) -> None:
        self.game_factory = game_factory
        self.initial_geometry = geometry
        self.auto_calibrate = auto_calibrate
        self.trust_position = trust_position
        self.calibrator = calibrator or AutoCalibrator()
        self.duplicate_window = duplicate_window
        self.duplicate_distance = duplicate_distance
        self.swept_together = swept_together
        self.third_copy_confidence = third_copy_confidence
        self.runner_up_share = runner_up_share
        self.outvote_margin = outvote_margin
        self.reseat_tolerance = reseat_tolerance
        self.reseat_inversion = reseat_inversion
        self.reset()

    def reset(self) -> None:
        """Starts a new game on the same table (the calibration found so far is kept)."""
        self.game = self.game_factory()
        self.geometry = getattr(self, "geometry", self.initial_geometry)
        self.calibrator.reset()
        self._tricks: dict[int, _TableTrick] = {}
        self._reads: dict[int, list[tuple[int, float]]] = {}  # each card's plays: (trick, confidence)
        # The first trick's cards as played, and where: the game's first card is Vorhand's.
        self._opening: list[tuple[int, tuple[float, float]]] = []
        self._calibrated_by: tuple[int, TableGeometry] | None = (
            None  # this game's calibrating trick, the geometry before
        )
        self._track_trick: dict[int, int] = {}
        self._flags_seen = 0
        self._last_cleared: tuple[int, float] | None = None
        self._recent: list[tuple[float, int, Any, int]] = []
        self._over_reported = False
        self._cleared: dict[int, _TableTrick] = {}  # the last tricks taken off the table, by number
        self._leaving: Counter[int | None] = Counter()  # this frame's departures not yet handled, by trick
        self._left_now: dict[int | None, int] = {}  # all of this frame's departures, by trick

    @property
    def calibrated(self) -> bool:
        return self.geometry.method != "default"

    def update(self, events: list[TrackerEvent]) -> list[TableEvent]:
        """Takes the tracker's landings and departures of one frame; returns the table events."""
        out: list[TableEvent] = []
        self._leaving = Counter(self._track_trick.get(e.track_id) for e in events if isinstance(e, CardLeft))
        self._left_now = dict(self._leaving)
        # A trick and the next one's lone lead swept off in one frame: the older trick's cards
        # leave first, so the lead is seen to go with the trick before it (and taken back).
        departures = iter(sorted((e for e in events if isinstance(e, CardLeft)), key=self._trick_of))
        events = [next(departures) if isinstance(e, CardLeft) else e for e in events]
        for event in events:
            if isinstance(event, CardLanded):
                out.extend(self._landed(event))
            elif isinstance(event, CardLeft):
                out.extend(self._left(event))
        return out

    def _trick_of(self, event: CardLeft) -> int:
        number = self._track_trick.get(event.track_id)
        return number if number is not None else 1 << 30

    # --- landings -----------------------------------------------------------------------------

    def _landed(self, event: CardLanded) -> list[TableEvent]:
        game = self.game
        if game.is_over or self._relinked(event):
            return []
        out: list[TableEvent] = []
        trick_number = game.trick_number
        by_turn = game.to_move
        by_position: int | None = None
        margin = 0.0
        if self.calibrated:
            guess = self.geometry.seat_of(event.center, spread=event.spread)
            by_position, margin = guess.seat, guess.margin
        seat = by_turn if by_turn is not None else (by_position or 0)
        played = {s for s, _ in game.current_trick.plays} if game.current_trick is not None else set()
        if (
            by_position is not None
            and by_position != by_turn
            and margin >= self.trust_position
            and by_position not in played
        ):
            # (A seat plays once a trick: a place pointing to a seat that has played is off.)
            seat = by_position
        conflict = by_position is not None and by_turn is not None and by_position != by_turn
        card, read_as, doubted = self._identity(event)
        if game.copies_left(card) <= 0 and event.confidence < self.third_copy_confidence and doubted is None:
            # Every copy the deck holds is played: a doubtful further one is a misreading, not a play.
            if self._on_a_played_card(event):
                # Where a card still on the table lies, it is that card read again (seed 60000 with
                # a classifier once read a covered Pik-König's index read as Pik-Bube at 0.42): no
                # card is missing, so nobody is asked.
                return []
            return [
                _ask(
                    event,
                    trick_number,
                    seat,
                    card,
                    f"a doubtful {card} would be its third copy: not played; "
                    f"what did seat {seat} play into trick {trick_number + 1}?",
                )
            ]
        game.play(seat, card)
        if trick_number == 0:
            self._opening.append((card.index, event.center))
        trick = self._tricks.setdefault(trick_number, _TableTrick(trick_number))
        trick.on_table.add(event.track_id)
        trick.plays.append((event.track_id, seat, event.center))
        trick.reads[event.track_id] = (event.card_index, event.confidence)
        self._reads.setdefault(card.index, []).append((trick_number, event.confidence))
        self._track_trick[event.track_id] = trick_number
        out.append(
            CardPlayed(
                frame=event.frame,
                time=event.time,
                seat=seat,
                card=str(card),
                confidence=event.confidence,
                trick=trick_number,
                position=(round(event.center[0], 1), round(event.center[1], 1)),
                seat_by_position=by_position,
                seat_by_turn=by_turn,
                seat_conflict=conflict,
            )
        )
        if doubted is not None:
            number, confidence = doubted
            out.append(
                _ask(
                    event,
                    number,
                    None,
                    card,
                    f"a third {card} (read at {event.confidence:.2f}) was played into trick {trick_number + 1}; the "
                    f"{card} of trick {number + 1} (read at {confidence:.2f}) is likely a misreading; "
                    f"check trick {number + 1}",
                    candidates=((str(card), event.confidence), (str(card), confidence)),
                )
            )
        question = f"is the card seat {seat} played into trick {trick_number + 1} really {card}?"
        if read_as is not None:
            out.append(
                _ask(
                    event,
                    trick_number,
                    seat,
                    card,
                    f"read as {read_as}, whose copies are both played: counted as {card}; {question}",
                )
            )
        elif event.uncertain:
            out.append(_ask(event, trick_number, seat, card, question))
        out.extend(self._new_flags(event.frame, event.time))
        if len(game.tricks) > trick_number:
            out.extend(self._reseat(trick, event))
            game = self.game
            out.append(_trick_complete(game.tricks[trick_number], trick_number, event.frame, event.time))
            out.extend(self._calibrate(trick, event))
            out.extend(self._game_over(event.frame, event.time))
        return out

    def _identity(self, event: CardLanded) -> tuple[Card, Card | None, tuple[int, float] | None]:
        """The card to play for a landing, by the deck's count of copies: ``(card, read_as,
        doubted)``. ``read_as`` is the read it replaces (a third copy whose runner-up is still in
        the deck); ``doubted`` the (trick, confidence) of an earlier copy that this far surer one
        outvotes."""
        from dokocam.engine import Card

        game = self.game
        card = Card.from_index(event.card_index)
        if game.copies_left(card) > 0:
            return card, None, None
        if event.confidence < self.third_copy_confidence:
            # Both copies are played, so the read is wrong; the runner-up of the vote, if it is
            # still in the deck and had real support, is what the card most likely is.
            for index, share in event.candidates:
                other = Card.from_index(index)
                if index != event.card_index and share >= self.runner_up_share and game.copies_left(other) > 0:
                    return other, card, None
        weakest = min(self._reads.get(card.index, []), key=lambda r: r[1], default=None)
        if weakest is not None and event.confidence >= weakest[1] + self.outvote_margin:
            # Far surer than the weakest copy already played: that one is the misreading.
            return card, None, weakest
        return card, None, None

    def _reseat(self, trick: _TableTrick, event: CardLanded) -> list[TableEvent]:
        """Seats a just-completed trick's cards anew from where they lie, when that is clear.

        Each card was seated as it landed, mostly by the turn order; a card the camera saw late
        (under a hand) then takes the seat of the one after it, and the next card lands where
        its own seat has "already played". With all four cards on the table the question is
        simpler: which one-card-per-seat assignment fits where the cards lie (and, second, the
        order they landed in)? When the best one differs from the plays and fits clearly, the
        trick is replayed in seat order from its leader and a person is asked to check it.
        """
        from itertools import permutations

        game = self.game
        if not self.calibrated or len(trick.plays) != 4 or len(game.tricks) != trick.number + 1:
            return []
        plays = game.tricks[trick.number].plays
        if len(plays) != 4 or any(s != ts for (s, _), (_, ts, _) in zip(plays, trick.plays, strict=True)):
            return []
        leader = game.tricks[trick.number - 1].winner() if trick.number else 0
        assert leader is not None  # the trick before this one is complete
        turn = [(leader + k) % 4 for k in range(4)]
        off = [self.geometry.seat_offsets(c) for _, _, c in trick.plays]

        def cost(seats: tuple[int, ...]) -> float:
            order = [turn.index(s) for s in seats]  # where each card (in landing order) sits in the turn
            inversions = sum(1 for a in range(4) for b in range(a + 1, 4) if order[a] > order[b])
            return sum(off[i][s] for i, s in enumerate(seats)) + self.reseat_inversion * inversions

        current = tuple(s for s, _ in plays)
        best = min(permutations(range(4)), key=cost)
        if best == current or max(off[i][s] for i, s in enumerate(best)) > self.reseat_tolerance:
            return []
        if len(set(current)) == 4 and cost(current) - cost(best) < self.trust_position:
            return []  # a seat that played twice is impossible; otherwise the change must be clear
        cards = [c for _, c in plays]
        by_seat = {seat: cards[i] for i, seat in enumerate(best)}
        self._replay_trick(4, [(seat, by_seat[seat]) for seat in turn])
        trick.plays = [(track, best[i], c) for i, (track, _, c) in enumerate(trick.plays)]
        moved = [f"{cards[i]} to seat {s}" for i, s in enumerate(best) if s != current[i]]
        return [
            NeedsConfirmation(
                frame=event.frame,
                time=event.time,
                reason="seats_changed",
                trick=trick.number,
                message=f"trick {trick.number + 1}: where the cards lie puts {', '.join(moved)}; check trick "
                f"{trick.number + 1}",
            )
        ]

    def _relinked(self, event: CardLanded) -> bool:
        """A landing of the card that landed at the same spot moments ago is that card again (its
        track was lost while a hand let go of it): it joins its trick silently."""
        here = self.geometry.to_plane(event.center)
        for time, index, where, trick_number in reversed(self._recent):
            if event.time - time > self.duplicate_window:
                break
            if index == event.card_index and self._same_spot(here, where):
                trick = self._tricks.get(trick_number)
                if trick is not None:
                    trick.on_table.add(event.track_id)
                    self._track_trick[event.track_id] = trick_number
                return True
        self._recent.append((event.time, event.card_index, here, self.game.trick_number))
        del self._recent[:-8]
        return False

    def _reread(self, lead: _TableTrick, before: _TableTrick | None, event: CardLeft) -> list[TableEvent]:
        """A withdrawn lead, swept away with the trick before, whose one card had left the table
        on its own well before the sweep (or that card's second sighting on its spot; or, when
        none did, whose one card like it still lingers after the sweep; or, when neither, whose
        least sure card was read less surely than the withdrawn one): that card was a misreading
        and the withdrawn card is the one played in its place. The game is replayed with it, so
        that the trick's winner, and with it every later seat, comes out right."""
        from dokocam.engine import Card

        if before is None or not lead.plays or before.number != len(self.game.tricks) - 1:
            return []
        early = [
            (track, seat)
            for track, seat, _ in before.plays
            if before.left_at.get(track, event.time) < event.time - self.swept_together
        ]
        (new_index, new_confidence) = lead.reads[lead.plays[0][0]]
        new = Card.from_index(new_index)
        lingering = [
            t for t, _, _ in before.plays if t in before.on_table and _alike(Card.from_index(before.reads[t][0]), new)
        ]
        pair = self._seen_twice(before) if len(before.plays) == 4 else None
        here = self.geometry.to_plane(lead.plays[0][2])
        if pair is not None and not any(
            self._same_spot(here, self.geometry.to_plane(p)) for t, _, p in before.plays if t in pair
        ):
            return self._merge_twice(before, pair, lead, event)
        # Whether the misreading is dropped and the withdrawn card played last (else the withdrawn
        # card takes the misreading's place), and what gave the misreading away.
        dropped, why = True, "which left the table early"
        if len(early) == 1:
            old_track = early[0][0]
            twin = self._second_sighting(before, old_track)
            if twin is not None:
                # The card that left early was seen again where it lay, under a new track that was
                # counted as the next seat's card: that second sighting is the misreading.
                old_track, why = twin, "seen a second time where it lay"
            elif self._read_again(before, old_track, lead.plays[0][2]):
                # The withdrawn card lies where the early one lay, at the seat it was counted for:
                # one card, its track lost and found again under a better reading. It keeps its
                # seat; nothing after it moves.
                dropped, why = False, "read again where it lay"
        elif not early and len(lingering) == 1:
            # Nothing left early, but a card like the withdrawn one (same rank or suit) stays after
            # its trick was swept: the tracker holds a card it stopped seeing, a misreading whose
            # spot the withdrawn card took.
            old_track = lingering[0]
            dropped, why = False, "which lingered after the sweep"
        elif not early and not lingering and len(before.plays) == 4:
            # Five cards went with a trick of four: one of the four counted was a misreading (one
            # card read as two). Where they lie tells which, when one lies at a seat that has its
            # card already and the withdrawn card lies at the seat it was counted for; else the
            # least sure of the four, if the withdrawn card was read surer.
            on_spot = [t for t, _, place in before.plays if self._same_spot(here, self.geometry.to_plane(place))]
            misplaced = self._misplaced(before, lead.plays[0][2])
            if on_spot:
                # The withdrawn card lies on a counted card's spot: one card seen as two at once.
                # A clearly surer reading replaces the first one; else the trick as seen stands.
                old_track = on_spot[0]
                if new_confidence < before.reads[old_track][1] + self.outvote_margin:
                    return []
                dropped, why = False, "read again, far surer, on its spot"
            elif misplaced is not None:
                old_track, dropped, why = misplaced, False, "which lay at another seat's place"
            else:
                old_track = min((t for t, _, _ in before.plays), key=lambda t: before.reads[t][1])
                if before.reads[old_track][1] >= new_confidence:
                    return []
                why = "the least sure of five cards swept with a trick of four"
        else:
            return []
        old_index, old_confidence = before.reads[old_track]
        old = Card.from_index(old_index)
        if old == new:
            # The same card: its track was lost under a hand and found again as a "lead". Taking
            # that lead back already set things right; the trick as first seen stands.
            return []
        # The trick as the game holds it: once seated anew by position, its turn order is not the
        # order the cards landed in, so the misreading is found by its seat.
        plays = self.game.tricks[-1].plays
        seat_of = {track: seat for track, seat, _ in before.plays}
        place_of = {seat: place for _, seat, place in before.plays}
        if len(place_of) != len(before.plays) or sorted(place_of) != sorted(s for s, _ in plays):
            return []
        k = next((i for i, (s, c) in enumerate(plays) if s == seat_of[old_track] and c == old), None)
        if k is None:
            return []
        cards = [c for _, c in plays]
        places = [place_of[s] for s, _ in plays]
        if dropped:
            # Played again without the misreading and with the withdrawn card last: the cards
            # after the misreading were seated one place too far on by the turn order.
            cards = [*cards[:k], *cards[k + 1 :], new]
            places = [*places[:k], *places[k + 1 :], lead.plays[0][2]]
        else:
            # The lingering misreading lay where the withdrawn card lies: it takes its place.
            cards[k] = new
            before.on_table.discard(old_track)
            self._track_trick.pop(old_track, None)
        game = self._replay_trick(len(cards), [(None, c) for c in cards])
        seat = game.tricks[-1].plays[-1 if dropped else k][0]
        number = before.number
        message = (
            f"trick {number + 1}: {old}, {why}, was a misreading; {new}, swept with the trick, counts as seat "
            f"{seat}'s card; check trick {number + 1}"
        )
        return self._replaced(
            number, places, event, seat, new, ((str(new), new_confidence), (str(old), old_confidence)), message
        )

    def _reread_many(self, lead: _TableTrick, before: _TableTrick | None, event: CardLeft) -> list[TableEvent]:
        """Two or three withdrawn "first cards" (see :meth:`_reread` for one): when exactly as many of
        the trick before left the table on their own well before the sweep, those were misreadings
        (a card read wrongly while it was pushed in, then lost), and the withdrawn cards, in the
        order they landed, are the trick's last cards. The game is replayed with them."""
        from dokocam.engine import Card

        if before is None or len(before.plays) != 4 or before.number != len(self.game.tricks) - 1:
            return []
        early = [
            track
            for track, _, _ in before.plays
            if before.left_at.get(track, event.time) < event.time - self.swept_together
        ]
        new = [(Card.from_index(lead.reads[track][0]), lead.reads[track][1], place) for track, _, place in lead.plays]
        if len(early) != len(new):
            return []
        old = [(Card.from_index(before.reads[track][0]), before.reads[track][1]) for track in early]
        if sorted(str(c) for c, _ in old) == sorted(str(c) for c, _, _ in new):
            return []  # the same cards, their tracks lost and found again: the trick as first seen stands
        plays = self.game.tricks[-1].plays
        seat_of = {track: seat for track, seat, _ in before.plays}
        place_of = {seat: place for _, seat, place in before.plays}
        if len(place_of) != 4 or sorted(place_of) != sorted(s for s, _ in plays):
            return []
        gone = {seat_of[track] for track in early}
        kept = [(s, c) for s, c in plays if s not in gone]
        cards = [c for _, c in kept] + [c for c, _, _ in new]
        places = [place_of[s] for s, _ in kept] + [place for _, _, place in new]
        game = self._replay_trick(len(cards), [(None, c) for c in cards])
        number = before.number
        seats = [s for s, _ in game.tricks[number].plays[-len(new) :]]
        candidates = tuple((str(c), conf) for c, conf, _ in new) + tuple((str(c), conf) for c, conf in old)
        message = (
            f"trick {number + 1}: {', '.join(str(c) for c, _ in old)}, which left the table early, were misreadings; "
            f"{', '.join(f'{c} (seat {s})' for (c, _, _), s in zip(new, seats, strict=True))}, swept with the trick, "
            f"count in their place; check trick {number + 1}"
        )
        return self._replaced(number, places, event, seats[0], new[0][0], candidates, message)

    def _replaced(
        self,
        number: int,
        places: list[tuple[float, float]],
        event: CardLeft,
        seat: int,
        card: Card,
        candidates: tuple[tuple[str, float], ...],
        message: str,
    ) -> list[TableEvent]:
        """What a re-read trick ``number`` reports: a new calibration if it was the calibrating trick
        (or none has calibrated yet), the question to check it, and the trick as it now stands."""
        return [
            *self._recalibrate(number, places, event),
            NeedsConfirmation(
                frame=event.frame,
                time=event.time,
                reason="card_replaced",
                trick=number,
                seat=seat,
                card=str(card),
                candidates=candidates,
                message=message,
            ),
            _trick_complete(self.game.tricks[number], number, event.frame, event.time),
        ]

    def _read_again(self, trick: _TableTrick, track: int, place: tuple[float, float]) -> bool:
        """Whether ``place`` is ``track``'s own spot and, on a calibrated table, lies at the seat
        that track was counted for (a card seen early at another seat's place was that seat's)."""
        counted, where = next((seat, at) for t, seat, at in trick.plays if t == track)
        if not self._same_spot(self.geometry.to_plane(where), self.geometry.to_plane(place)):
            return False
        return not self.calibrated or self.geometry.seat_of(place).seat == counted

    def _misplaced(self, trick: _TableTrick, place: tuple[float, float]) -> int | None:
        """The one card of a complete ``trick`` that lies clearly at another seat's place than the
        seat it was counted for, that seat being where ``place`` (a card swept with the trick)
        clearly lies; ``None`` when no single card fits."""
        if not self.calibrated:
            return None
        seat = self.geometry.seat_of(place)
        if seat.margin < self.trust_position:
            return None
        found = []
        for track, counted, where in trick.plays:
            lies = self.geometry.seat_of(where)
            if counted == seat.seat and lies.seat != counted and lies.margin >= self.trust_position:
                found.append(track)
        return found[0] if len(found) == 1 else None

    def _merge_twice(
        self, before: _TableTrick, pair: tuple[int, int], lead: _TableTrick, event: CardLeft
    ) -> list[TableEvent]:
        """Trick ``before`` counted one card twice (two plays on one spot, ``pair`` in landing
        order) and a card swept with it was counted as the next lead: the card keeps the first
        sighting's place in the turn order under the surer of its two readings, the second
        sighting goes, and the withdrawn card is played last."""
        from dokocam.engine import Card

        first, second = pair
        seat_of = {track: seat for track, seat, _ in before.plays}
        place_of = {seat: place for _, seat, place in before.plays}
        plays = self.game.tricks[-1].plays
        if len(place_of) != 4 or sorted(place_of) != sorted(s for s, _ in plays):
            return []
        surer = max(pair, key=lambda t: before.reads[t][1])
        name = Card.from_index(before.reads[surer][0])
        (new_index, new_confidence) = lead.reads[lead.plays[0][0]]
        new = Card.from_index(new_index)
        cards, places = [], []
        for seat, card in plays:
            if seat == seat_of[second]:
                continue
            cards.append(name if seat == seat_of[first] else card)
            places.append(place_of[seat])
        cards.append(new)
        places.append(lead.plays[0][2])
        game = self._replay_trick(len(cards), [(None, c) for c in cards])
        number = before.number
        seat = game.tricks[number].plays[-1][0]
        others = [Card.from_index(before.reads[t][0]) for t in pair]
        candidates = (
            (str(new), new_confidence),
            *((str(c), before.reads[t][1]) for c, t in zip(others, pair, strict=True)),
        )
        message = (
            f"trick {number + 1}: {others[0]} and {others[1]} lay on one spot, one card counted twice (as {name}); "
            f"{new}, swept with the trick, counts as seat {seat}'s card; check trick {number + 1}"
        )
        return self._replaced(number, places, event, seat, new, candidates, message)

    def _seen_twice(self, trick: _TableTrick) -> tuple[int, int] | None:
        """The only two plays of ``trick`` lying on one spot (one card counted twice), else ``None``."""
        places = [(track, self.geometry.to_plane(place)) for track, _, place in trick.plays]
        pairs = [(a, b) for i, (a, pa) in enumerate(places) for b, pb in places[i + 1 :] if self._same_spot(pa, pb)]
        return pairs[0] if len(pairs) == 1 else None

    def _second_sighting(self, trick: _TableTrick, track: int) -> int | None:
        """A later play of ``trick`` read as the same card as ``track`` and lying on its spot."""
        k = [t for t, _, _ in trick.plays].index(track)
        here = self.geometry.to_plane(trick.plays[k][2])
        for other, _, place in trick.plays[k + 1 :]:
            if trick.reads[other][0] == trick.reads[track][0] and self._same_spot(here, self.geometry.to_plane(place)):
                return other
        return None

    def _on_a_played_card(self, event: CardLanded) -> bool:
        """Whether a landing lies on the spot of a card played and still on the table."""
        here = self.geometry.to_plane(event.center)
        return any(
            self._same_spot(here, self.geometry.to_plane(center))
            for trick in self._tricks.values()
            for track, _, center in trick.plays
            if track in trick.on_table
        )

    def _same_spot(self, a: np.ndarray, b: np.ndarray) -> bool:
        """Whether two table-plane points are one card's spot (``duplicate_distance``)."""
        return math.hypot(*(a - b)) < self.duplicate_distance * self.geometry.radius

    def _recalibrate(self, number: int, places: list[tuple[float, float]], event: CardLeft) -> list[TableEvent]:
        """Calibrates again when trick ``number``, the one this game's calibration came from, was
        just played anew: its seats as first counted (a misreading among them) taught the table
        a turned seating that every later trick would follow. Before any calibration, the trick
        played anew replaces what the calibrator learnt from its first counting."""
        if len(places) != 4:
            return []
        if self._calibrated_by is not None and self._calibrated_by[0] == number:
            self.geometry = self._calibrated_by[1]
            self._calibrated_by = None
        elif self.calibrated:
            return []
        # Not calibrated yet (the trick as first counted was too messy to decide alone): what the
        # calibrator learnt from that counting goes, and the trick as played anew counts instead.
        self.calibrator.reset()
        seats = [s for s, _ in self.game.tricks[number].plays]
        trick = _TableTrick(number)
        trick.plays = [(-1, seat, place) for seat, place in zip(seats, places, strict=True)]
        return self._calibrate(trick, event)

    def _replay_trick(self, count: int, plays: list[tuple[int | None, Card]]) -> Game:
        """Rebuilds the game with its last ``count`` plays replaced by ``plays`` (seat ``None``:
        whoever is to move then); other events after them (calls) keep their place after the trick."""
        from dokocam.engine import PlayEvent

        history = list(self.game.history)
        first = [i for i, e in enumerate(history) if isinstance(e, PlayEvent)][-count]
        game = self.game_factory()
        for past in history[:first]:
            game.apply(past)
        for seat, card in plays:
            mover = game.to_move if seat is None else seat
            assert mover is not None  # these plays were made before, so the game was not over
            game.play(mover, card)
        for past in history[first:]:
            if not isinstance(past, PlayEvent):
                game.apply(past)
        return self._adopt(game)

    def _adopt(self, game: Game) -> Game:
        """Makes a rebuilt game the one followed; the flags its replay raised are not news."""
        self.game = game
        self._flags_seen = len(game.flags)
        return game

    def _swept_now(self, trick: _TableTrick) -> bool:
        """Whether ``trick`` is the one in play, still short of four cards, and at least two of its
        cards left in this frame (a complete trick waits for all its cards: nothing is lost by
        that, the next card starts the next trick anyway)."""
        current = trick.number == self.game.trick_number and len(trick.plays) < 4
        return current and self._left_now.get(trick.number, 0) >= 2

    def _game_over(self, frame: int, time: float) -> list[TableEvent]:
        if not self.game.is_over or self._over_reported:
            return []
        self._over_reported = True
        try:
            result = self.game.result().to_dict()
        except ValueError as exc:  # e.g. a contract the engine cannot score from what was seen
            result = {"error": str(exc)}
        return [GameOver(frame=frame, time=time, result=result)]

    def _calibrate(self, trick: _TableTrick, event: CardLanded | CardLeft) -> list[TableEvent]:
        if not self.auto_calibrate or self.calibrated:
            return []
        # Calibrate only from the turn order, which the engine knows before any position does.
        found = self.calibrator.update(self.geometry, [(c, s) for _, s, c in trick.plays])
        if found is None:
            return []
        out: list[TableEvent] = []
        shift = self._anchor_shift(found)
        self._calibrated_by = (trick.number, self.geometry)
        if shift:
            # The game's first card is Vorhand's, so it names seat 0's place. Lying at another
            # seat's place, it shows every trick since the first seated `shift` places on (the
            # first trick lost or gained a card, and the turn order carried that on).
            found = replace(found, seat0_angle=found.place_angle(shift))
            out.extend(self._rotate_seats(-shift, event))
        self.geometry = found
        return [Calibrated(frame=event.frame, time=event.time, method="auto", geometry=found.to_dict()), *out]

    def _anchor_shift(self, geometry: TableGeometry) -> int:
        """How many seats on from Vorhand the game's first card lies by ``geometry`` (0 when it
        lies at Vorhand's place, or not clearly at any place)."""
        if not self._opening:
            return 0
        guess = geometry.seat_of(self._opening[0][1])
        if guess.margin < self.trust_position or self._copy_at_vorhand(geometry):
            return 0
        return guess.seat

    def _copy_at_vorhand(self, geometry: TableGeometry) -> bool:
        """Whether another copy of the game's first card, played into the first trick, lies at
        Vorhand's place: the tracker saw that copy first (Vorhand's came to rest unseen), and the
        record is the same either way."""
        if not self._opening:
            return False
        lead = self._opening[0][0]
        return any(card == lead and geometry.seat_of(center).seat == 0 for card, center in self._opening[1:])

    def _rotate_seats(self, by: int, event: CardLanded | CardLeft) -> list[TableEvent]:
        """Rebuilds the game with the seat of every play after the first trick turned by ``by``."""
        from dokocam.engine import PlayEvent

        game = self.game_factory()
        for past in self.game.history:
            if isinstance(past, PlayEvent) and game.trick_number >= 1:
                game.play((past.seat + by) % 4, past.card)
            else:
                game.apply(past)
        self._adopt(game)
        for number, trick in self._tricks.items():
            if number >= 1:
                trick.plays = [(track, (seat + by) % 4, center) for track, seat, center in trick.plays]
        return [
            NeedsConfirmation(
                frame=event.frame,
                time=event.time,
                reason="seats_changed",
                trick=1,
                seat=None,
                card=None,
                candidates=(),
                message=f"the game's first card lies at another seat's place than Vorhand's: every trick after the "
                f"first "
                f"was seated {-by % 4} place(s) on and is seated anew; check trick 1",
            ),
            *(
                _trick_complete(t, n, event.frame, event.time)
                for n, t in enumerate(game.tricks)
                if n >= 1 and len(t.plays) == 4
            ),
        ]

    def _new_flags(self, frame: int, time: float) -> list[TableEvent]:
        flags = self.game.flags[self._flags_seen :]
        self._flags_seen = len(self.game.flags)
        return [
            FlagRaised(
                frame=frame,
                time=time,
                kind=str(getattr(f.kind, "value", f.kind)),
                trick=f.trick,
                seat=f.seat,
                card=None if f.card is None else str(f.card),
                message=f.message,
            )
            for f in flags
        ]

    # --- departures ---------------------------------------------------------------------------

    def _undo(self, count: int) -> list[Any]:
        """Takes the game's last ``count`` plays back, oldest first; flags they raised are forgotten, so
        that raised again they are reported again."""
        withdrawn = [self.game.undo() for _ in range(count)][::-1]
        self._flags_seen = min(self._flags_seen, len(self.game.flags))
        return withdrawn

    def _left(self, event: CardLeft) -> list[TableEvent]:
        number = self._track_trick.pop(event.track_id, None)
        if number is None:
            return []
        trick = self._tricks[number]
        trick.on_table.discard(event.track_id)
        trick.left_at[event.track_id] = event.time
        self._leaving[number] -= 1
        if len(trick.on_table) == 1 and not self._leaving[number] and self._swept_now(trick):
            # All of an incomplete trick but one card left together: the trick was collected, and
            # the card still "seen" is a misreading lingering in its place. Waiting for it would
            # let the next trick's first card complete this one.
            self._track_trick.pop(trick.on_table.pop(), None)
        if trick.on_table:
            return []
        del self._tricks[number]
        before = self._tricks.get(number - 1)
        if (
            number == self.game.trick_number
            and len(trick.plays) == 1
            and _last_plays(self.game, 1)
            and before is not None
            and len(before.plays) == 4
            and len(before.on_table) == 4
        ):
            # The lone lead of the next trick left while the whole trick before it still lies
            # there: nobody takes a trick's first card back up before the trick is swept, so it
            # was a card seen twice (one card's two indices read as two cards, seed 39003 out of
            # focus), not a play. Closing it as a trick of its own would put every later trick
            # one trick on; if it was a real card, it is seen again and played again.
            (withdrawn,) = self._undo(1)
            lead_index = trick.reads[trick.plays[0][0]][0]
            # Seen again on its spot, it is played again, not joined to a play that no longer is.
            self._recent = [r for r in self._recent if not (r[1] == lead_index and r[3] == number)]
            card = str(getattr(withdrawn, "card", ""))
            message = (
                f"{card}, counted as the lead of trick {number + 1}, left while trick {number} still lay on the "
                f"table: it was taken back; check trick {number}"
            )
            return [_taken_back(event, number, withdrawn, message)]
        self._cleared = {n: t for n, t in self._cleared.items() if n >= number - 1} | {number: trick}
        game = self.game
        previous = self._last_cleared
        self._last_cleared = (number, event.time)
        with_before = (
            previous is not None and previous[0] == number - 1 and event.time - previous[1] <= self.swept_together
        ) or (
            # The trick before is still "on the table" only by a lingering track, while the rest
            # of it left moments ago: it was swept too.
            before is not None and sum(1 for t in before.left_at.values() if event.time - t <= self.swept_together) >= 2
        )
        if number == game.trick_number and with_before and _last_plays(game, len(trick.plays)):
            # The "first cards" of a trick (one to three), swept away together with the trick
            # before: they lay in that trick all along (cards seen twice, or misreadings), so they
            # are taken back. Closing them as a trick of their own would put every later trick one
            # trick on.
            withdrawn = self._undo(len(trick.plays))
            cards = [str(getattr(w, "card", "")) for w in withdrawn]
            named = cards[0] if len(cards) == 1 else ", ".join(cards)
            before_trick = self._cleared.get(number - 1) or before
            message = (
                f"{named}, counted as the {'lead' if len(cards) == 1 else 'first cards'} of trick {number + 1}, "
                f"left with trick {number}: {'it was' if len(cards) == 1 else 'they were'} taken back; check trick "
                f"{number}"
            )
            return [
                _taken_back(event, number, withdrawn[0], message),
                *(
                    self._reread(trick, before_trick, event)
                    if len(cards) == 1
                    else self._reread_many(trick, before_trick, event)
                ),
            ]
        out: list[TableEvent] = [TrickCleared(frame=event.frame, time=event.time, trick=number)]
        if number == game.trick_number and not game.is_over and 0 < len(trick.plays) < 4:
            # The camera saw the trick taken with cards missing: close it (flagged by the engine)
            # so the next card starts the next trick instead of completing this one.
            seen = len(trick.plays)
            played = {s for s, _ in game.current_trick.plays}
            missing = [seat for seat in range(4) if seat not in played]
            game.close_trick()
            out.append(
                NeedsConfirmation(
                    frame=event.frame,
                    time=event.time,
                    reason="incomplete_trick",
                    trick=number,
                    seat=missing[0] if len(missing) == 1 else None,
                    message=f"trick {number + 1} was cleared with {seen} card(s) seen; "
                    f"what did seat(s) {', '.join(map(str, missing))} play into it?",
                )
            )
            out.extend(self._new_flags(event.frame, event.time))
            out.append(_trick_complete(game.tricks[number], number, event.frame, event.time))
            out.extend(self._game_over(event.frame, event.time))
        return out


def _taken_back(event: CardLeft, trick: int, first: Any, message: str) -> NeedsConfirmation:
    """A person is asked to check trick ``trick`` after the cards counted into the next one, ``first``
    (a game event) the first of them, were taken back."""
    return NeedsConfirmation(
        frame=event.frame,
        time=event.time,
        reason="card_withdrawn",
        trick=trick,
        seat=getattr(first, "seat", None),
        card=str(getattr(first, "card", "")),
        message=message,
    )


def _ask(
    event: CardLanded,
    trick: int,
    seat: int | None,
    card: Card,
    message: str,
    *,
    candidates: tuple[tuple[str, float], ...] | None = None,
) -> NeedsConfirmation:
    """A person is asked about a card's identity (by default with the candidates of its vote)."""
    from dokocam.engine import Card

    if candidates is None:
        candidates = tuple((str(Card.from_index(i)), s) for i, s in event.candidates)
    return NeedsConfirmation(
        frame=event.frame,
        time=event.time,
        reason="uncertain_card",
        trick=trick,
        seat=seat,
        card=str(card),
        candidates=candidates,
        message=message,
    )


def _alike(a: Card, b: Card) -> bool:
    """Two cards a detector confuses: the same rank or the same suit."""
    return a.rank == b.rank or a.suit == b.suit


def _last_plays(game: Game, count: int) -> bool:
    """Whether the game's last ``count`` events (one to three) are plays (so ``undo`` removes exactly those cards)."""
    return 0 < count < 4 and len(game.history) >= count and all(hasattr(e, "card") for e in game.history[-count:])


def _trick_complete(done: Trick, number: int, frame: int, time: float) -> TrickComplete:
    """The event for the engine's finished trick ``number``."""
    return TrickComplete(
        frame=frame,
        time=time,
        trick=number,
        winner=done.winner(),
        cards=tuple(str(c) for _, c in done.plays),
        augen=int(done.augen),
    )
