"""The game decoded live: tracker events in as they come, table events out, earlier plays revised.

:class:`LiveDecoder` keeps the :class:`~dokocam.vision.table.decoder.Evidence` of the game and,
whenever a card lands or leaves, decodes it again by the beam search of
:class:`~dokocam.vision.table.decoder.GameDecoder`: from the sighting that changed on, reusing the
beams before it (a landing costs one step, a departure the few steps since that card landed). The
difference between the game shown so far and the newly decoded one becomes events:

- new plays (``CardPlayed``) in turn order, each as soon as its card is at rest and every seat
  before it in the trick has played; a card at rest whose seat comes after a seat not read yet
  (a card slid under another) at once as ``CardSeen``; a finished trick (``TrickComplete``), its collection
  (``TrickCleared``) and the game's end (``GameOver``);
- :class:`CardRevised` when later evidence makes another reading of a play shown earlier more
  probable (a second Herz-Zehn turning up makes the first Herz-Zehn a Herz-Dame), then the
  revised trick's ``TrickComplete`` again;
- ``NeedsConfirmation`` only where the decoded game stays ambiguous, naming both candidates.

A person's word is a constraint the search never overrides: :meth:`LiveDecoder.fix` pins a play
to a card. What the table says that no camera sees is evidence too: the game type
(:meth:`LiveDecoder.set_contract`: a solo changes the trumps, so who wins each trick and who leads
the next) and the announcements (:meth:`LiveDecoder.set_calls`). The evidence is plain data
(:meth:`LiveDecoder.evidence_dict`), the table's word included, so a log of it decodes again to the
same game with the same revisions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from dokocam.engine import Card, Contract, Game
from dokocam.vision.table.decoder import DecodedPlay, Evidence, GameDecoder, Search, Sighting, seatings
from dokocam.vision.table.events import (
    Calibrated,
    CardPlayed,
    CardRevised,
    CardSeen,
    GameOver,
    NeedsConfirmation,
    TableEvent,
    TrickCleared,
    TrickComplete,
)
from dokocam.vision.table.geometry import TableGeometry
from dokocam.vision.table.tracker import CardLanded, CardLeft, TrackerEvent

SEATS = 4


def revision_message(trick: int, seat: int, old: Card, new: Card, new_seat: int) -> str:
    """The words a revision is shown with.

    >>> revision_message(4, 3, Card.parse("10H"), Card.parse("QH"), 3)
    'Stich 5, Sitz 3: Herz-Dame, nicht Herz-Zehn / trick 5, seat 3: QH, not 10H'
    """
    if new_seat == seat:
        return (
            f"Stich {trick + 1}, Sitz {seat}: {new.german_name}, nicht {old.german_name} / "
            f"trick {trick + 1}, seat {seat}: {new}, not {old}"
        )
    return (
        f"Stich {trick + 1}: {new.german_name} von Sitz {new_seat}, nicht {old.german_name} von Sitz {seat} / "
        f"trick {trick + 1}: {new} by seat {new_seat}, not {old} by seat {seat}"
    )


def _turn(a: TableGeometry, b: TableGeometry) -> float:
    """Degrees between two seatings' place 0 (a mirrored one counts as far away)."""
    return abs((a.seat0_angle - b.seat0_angle + 180.0) % 360.0 - 180.0) + (0.0 if a.clockwise == b.clockwise else 360.0)


def _nearest(seatings: Sequence[TableGeometry], geometry: TableGeometry) -> TableGeometry:
    """The one of ``seatings`` turned least from ``geometry``."""
    return min(seatings, key=lambda w: _turn(w, geometry))


def _same_seating(a: TableGeometry, b: TableGeometry, *, degrees: float, fraction: float) -> bool:
    """True when two seatings differ by less than ``degrees`` of turn and ``fraction`` of the radius."""
    shift = math.dist(a.center, b.center)
    return a.vorhand == b.vorhand and _turn(a, b) <= degrees and shift <= fraction * a.radius


class LiveDecoder:
    """Decodes one game while it is played (see the module docstring).

    Args:
        game_factory: builds the empty game (players, rules, contract).
        geometry: the table; a manual calibration is trusted, any other only sizes the table.
        decoder: the costs and beam width (a default :class:`GameDecoder` when ``None``).
        calls: ``(cards played before, seat, call)`` announcements, made at those points (also
            evidence: a game the cards contradict them in is less probable).
        drift_degrees, drift_fraction: the seating found from where the cards lie is searched
            again from the first sighting only when it turned by more than ``drift_degrees`` or
            its centre moved by more than ``drift_fraction`` of the radius; raising them saves
            time and decodes under a staler seating.
        seating_margin: a seating whose best game costs this many nats more than the best
            seating's is no longer searched (until the seating is searched again from the start).
        choose_until: while fewer cards than this lay, the seat directions found from where they
            lie still swing, so a drift decodes every way to seat them again: the evidence, not the
            estimate's walk, says which direction is which seat. Later a drift decodes only the
            seatings still searched (every way each time costs too much in a game read poorly).
    """

    def __init__(
        self,
        game_factory: Callable[[], Game],
        geometry: TableGeometry,
        *,
        decoder: GameDecoder | None = None,
        calls: Sequence[tuple[int, int, str]] = (),
        drift_degrees: float = 4.0,
        drift_fraction: float = 0.08,
        seating_margin: float = 4.0,
        choose_until: int = 4 * SEATS,
    ) -> None:
        self.game_factory = game_factory
        self.initial_geometry = geometry
        self.decoder = decoder or GameDecoder()
        self.calls = list(calls)
        self.drift_degrees = drift_degrees
        self.drift_fraction = drift_fraction
        self.seating_margin = seating_margin
        self.choose_until = choose_until
        self.reset()

    def reset(self) -> None:
        """Starts a new game on the same table."""
        self.evidence = Evidence()
        self.fixed: dict[tuple[int, int], int] = {}
        self.geometry = self.initial_geometry
        self.game = self.game_factory()
        self.call_errors: list[str] = []  # announcements the engine refused
        self._sightings: list[Sighting] = []
        self._searches: list[Search] = []
        self._from_start = False
        self._shown: list[tuple[int, Card]] = []  # (seat, card) of each play shown, in game order
        self._seen: set[tuple[int, int, Card]] = set()  # (trick, seat, card) shown ahead of its turn
        self._complete: set[int] = set()
        self._cleared: set[int] = set()
        self._asked: set[tuple[int, int | None]] = set()
        self._over = False
        self._rechecked = False  # every seating decoded again once the game ended
        self._log: list[dict[str, Any]] = []  # the evidence as plain data, in the order it came

    @property
    def over(self) -> bool:
        """True once the game's last trick has been shown complete."""
        return self._over

    # -- input ---------------------------------------------------------------------------------

    def update(self, events: Iterable[TrackerEvent]) -> list[TableEvent]:
        """Takes the tracker's events of one frame; returns the table events they lead to."""
        # Decoded from the data as logged, so that the log decodes to exactly this game again.
        data = [_event_dict(e) for e in events if isinstance(e, (CardLanded, CardLeft))]
        if not data:
            return []
        self._log.append({"kind": "tracked", "events": data})
        return self._tracked(data)

    def _tracked(self, data: Sequence[Mapping[str, Any]]) -> list[TableEvent]:
        events = [_event_from(d) for d in data]
        self.evidence.add(events)
        return self._decode(events[-1].frame, events[-1].time)

    def fix(self, trick: int, seat: int, card: str | Card, *, frame: int = 0, time: float = 0.0) -> list[TableEvent]:
        """A person says ``seat`` played ``card`` in ``trick`` (engine seats): never overridden.

        Raises:
            ValueError: a seat or trick outside the game, or a card code that does not parse.
        """
        card = card if isinstance(card, Card) else Card.parse(card)
        if not 0 <= seat < SEATS or not 0 <= trick < self.game.rules.hand_size:
            raise ValueError(f"trick {trick}, seat {seat}: no such play in this game")
        self._log.append({"kind": "fixed", "trick": trick, "seat": seat, "card": str(card), "time": time})
        self.fixed[(trick, seat)] = card.index
        for search in self._searches:
            search.fixed = dict(self.fixed)
        self._from_start = True  # a constraint reaches back: search again from the first sighting
        return self._decode(frame, time, shown_as_fixed=(trick, seat))

    def set_contract(self, contract: Contract, *, frame: int = 0, time: float = 0.0) -> list[TableEvent]:
        """The table says what is played (engine seats; told late, e.g. a solo after the first trick):
        the game is decoded again under it from the first card, the tricks shown so far revised."""
        base = self.game_factory()
        if contract == base.contract:
            return []
        self._log.append({"kind": "contract", "contract": contract.to_dict(), "time": time})
        rules, players = base.rules, base.players
        self.game_factory = lambda: Game(rules, contract, players)
        self._search_again()
        return self._decode(frame, time)

    def set_calls(
        self, calls: Sequence[tuple[int, int, str]], *, frame: int = 0, time: float = 0.0
    ) -> list[TableEvent]:
        """The table's announcements so far, ``(cards played before, seat, call)`` (engine seats): the
        game is decoded again with them."""
        calls = sorted(((int(n), int(seat), str(call)) for n, seat, call in calls), key=lambda c: c[0])
        if calls == sorted(self.calls, key=lambda c: c[0]):
            return []
        self._log.append({"kind": "calls", "calls": [list(c) for c in calls], "time": time})
        self.calls = calls
        self._search_again()
        return self._decode(frame, time)

    def _search_again(self) -> None:
        """Searches the seatings still searched again from the first sighting, under the game's
        set-up and calls as they are now; the seatings given up stay given up."""
        self._searches = [self._search(self._sightings, s.geometry) for s in self._searches]
        self._from_start = True

    def replay(self, entries: Iterable[Mapping[str, Any]]) -> list[TableEvent]:
        """Feeds logged evidence (:meth:`evidence_dict`'s entries) again; returns the events it leads to."""
        out: list[TableEvent] = []
        for entry in entries:
            kind = entry.get("kind")
            try:
                if kind == "fixed":
                    out += self.fix(int(entry["trick"]), int(entry["seat"]), str(entry["card"]), time=entry["time"])
                elif kind == "contract":
                    out += self.set_contract(Contract.from_dict(entry["contract"]), time=float(entry["time"]))
                elif kind == "calls":
                    out += self.set_calls(entry["calls"], time=float(entry["time"]))
                elif kind == "tracked" and entry.get("events"):
                    self._log.append({"kind": "tracked", "events": list(entry["events"])})
                    out += self._tracked(entry["events"])
                else:
                    raise ValueError(
                        f"logged evidence of kind {kind!r}: expected 'tracked', 'fixed', 'contract' or 'calls'"
                    )
            except (KeyError, TypeError) as exc:
                raise ValueError(f"logged evidence {dict(entry)!r} is malformed: {exc!r}") from None
        return out

    def evidence_dict(self) -> list[dict[str, Any]]:
        """Everything decoded from, as plain data in the order it came (for the event log)."""
        return list(self._log)

    # -- decoding ------------------------------------------------------------------------------

    def _decode(self, frame: int, time: float, shown_as_fixed: tuple[int, int] | None = None) -> list[TableEvent]:
        sightings = self.evidence.sightings
        start = next(
            (i for i, (a, b) in enumerate(zip(self._sightings, sightings)) if a != b),
            min(len(self._sightings), len(sightings)),
        )
        if self._from_start:
            start, self._from_start = 0, False
        self._sightings = sightings
        every = seatings(sightings, self.initial_geometry)
        wanted = every
        if len(sightings) >= 2 * SEATS and self._searches:
            # Only the seatings still searched, each where it is found now.
            wanted = [_nearest(every, s.geometry) for s in self._searches]
        kept = [s for s in self._searches if any(self._same(s.geometry, w) for w in wanted)]
        if not kept or len(kept) < len(self._searches) or len(self._searches) < len(wanted):
            # A seating that drifted while few cards lay: every way to seat is decoded again, so the estimate's
            # walk does not carry the seating it follows to a neighbouring seat.
            wanted = every if len(sightings) < self.choose_until else wanted
            self._searches = [self._search(sightings, w) for w in wanted]
            start = 0
        for search in self._searches:
            search.extend(sightings, start)
        ranked = self._ranked()
        hyps, search = ranked[0]
        if not self._rechecked and hyps and len(hyps[0].done) == search.n_tricks:
            # The game has ended: the seatings given up while few cards lay are decoded again from the first
            # sighting, as the offline decode does, and the whole game may turn out better explained by one.
            self._rechecked = True
            for w in every:
                if not any(self._same(w, s.geometry) for s in self._searches):
                    again = self._search(sightings, w)
                    again.extend(sightings, 0)
                    self._searches.append(again)
            ranked = self._ranked()
        if len(sightings) >= 2 * SEATS and ranked[0][0]:
            best = ranked[0][1].score(ranked[0][0][0])
            self._searches = [s for hyps, s in ranked if hyps and s.score(hyps[0]) - best < self.seating_margin]
        hyps, search = ranked[0]
        events: list[TableEvent] = []
        if search.geometry is not self.geometry and not (
            self.geometry.method == search.geometry.method and self._same(self.geometry, search.geometry)
        ):
            method = "manual" if search.geometry.method == "manual" else "auto"
            events.append(Calibrated(frame=frame, time=time, method=method, geometry=search.geometry.to_dict()))
        self.geometry = search.geometry
        events += self._difference(search, hyps, frame, time, shown_as_fixed) if hyps else []
        return events

    def _search(self, sightings: Sequence[Sighting], geometry: TableGeometry) -> Search:
        """A search of ``sightings`` under one seating, with the game's set-up, calls and corrections as they are."""
        return Search(self.decoder, sightings, self.game_factory, geometry, fixed=self.fixed, calls=self.calls)

    def _ranked(self) -> list[tuple[list[Any], Search]]:
        """Each seating searched, its hypotheses ranked, the seating with the best first."""
        return sorted(
            ((s.ranked(), s) for s in self._searches), key=lambda r: r[1].score(r[0][0]) if r[0] else math.inf
        )

    def _same(self, a: TableGeometry, b: TableGeometry) -> bool:
        return _same_seating(a, b, degrees=self.drift_degrees, fraction=self.drift_fraction)

    def _difference(
        self, search: Search, hyps: list[Any], frame: int, time: float, shown_as_fixed: tuple[int, int] | None
    ) -> list[TableEvent]:
        """The events that take the game shown so far to the best hypothesis ``hyps[0]``."""
        best = hyps[0]
        tricks, open_ = search.live_plays(best)
        asked: list[NeedsConfirmation] = []
        if len(best.done) == best.game.rules.hand_size:
            # The game has ended: the cards nobody read are decided by the whole deck now.
            tricks, asked = search.resolve(best)
        plays = [p for trick in tricks for p in trick] + open_
        game, self.call_errors = search.with_calls([(p.seat, p.card) for p in plays], self.calls)
        self.game = game
        out: list[TableEvent] = []
        revised: set[int] = set()
        for n, (play, (seat, card)) in enumerate(zip(plays, self._shown)):
            if (play.seat, play.card) == (seat, card):
                continue
            trick = n // SEATS
            self._shown[n] = (play.seat, play.card)
            if (trick, play.seat) == shown_as_fixed:
                continue  # the person's own correction: nothing to tell them
            revised.add(trick)
            copies = sum(p.card == card for p in plays)
            out.append(
                CardRevised(
                    frame=frame,
                    time=time,
                    trick=trick,
                    play=n,
                    seat=seat,
                    old=str(card),
                    new=str(play.card),
                    new_seat=play.seat,
                    reason="copies" if copies >= 2 else "evidence",
                    message=revision_message(trick, seat, card, play.card, play.seat),
                )
            )
        for n in range(len(self._shown), len(plays)):
            play = plays[n]
            self._shown.append((play.seat, play.card))
            out.append(self._played(play, n, frame, time, search))
        out += self._seen_ahead(search, best, len(tricks), frame, time)
        for trick in sorted(revised | {t for t in range(len(tricks)) if t not in self._complete}):
            if trick >= len(tricks) or len(self._shown) < SEATS * (trick + 1):
                continue
            self._complete.add(trick)
            out.append(self._trick_complete(game, trick, frame, time))
            out += self._questions(search, best, tricks, trick)
        for trick, done in enumerate(best.done):
            if trick in self._complete and trick not in self._cleared and done.sweep is not None:
                self._cleared.add(trick)
                out.append(TrickCleared(frame=frame, time=time, trick=trick))
        for question in asked:
            if (question.trick, question.seat) not in self._asked and question.trick in self._complete:
                self._asked.add((question.trick, question.seat))
                out.append(replace(question, frame=frame, time=time))
        if not self._over and len(self._complete) == game.rules.hand_size and game.is_over:
            self._over = True
            try:
                result = game.result().to_dict()
            except ValueError as exc:  # a contract the engine cannot score from what was seen
                result = {"error": str(exc)}
            out.append(GameOver(frame=frame, time=time, result=result))
        return out

    def _played(self, play: DecodedPlay, n: int, frame: int, time: float, search: Search) -> CardPlayed:
        seen = play.sighting
        return CardPlayed(
            frame=frame,
            time=time,
            seat=play.seat,
            card=str(play.card),
            confidence=0.0 if play.deduced or seen is None else seen.confidence,
            trick=n // SEATS,
            position=seen.center if seen else (0.0, 0.0),
            seat_by_position=search.geometry.seat_of(seen.center).seat if seen else None,
            seat_by_turn=play.seat,
        )

    def _seen_ahead(self, search: Search, best: Any, trick: int, frame: int, time: float) -> list[TableEvent]:
        """``CardSeen`` for each card of the trick in play shown ahead of its turn, once each reading."""
        out: list[TableEvent] = []
        for play in search.seen_ahead(best):
            key = (trick, play.seat, play.card)
            seen = play.sighting  # a card ahead of its turn is shown only as read
            if key in self._seen or seen is None:
                continue
            self._seen.add(key)
            out.append(
                CardSeen(
                    frame=frame,
                    time=time,
                    seat=play.seat,
                    card=str(play.card),
                    confidence=seen.confidence,
                    trick=trick,
                    position=seen.center,
                )
            )
        return out

    def _trick_complete(self, game: Game, trick: int, frame: int, time: float) -> TrickComplete:
        done = game.tricks[trick]
        return TrickComplete(
            frame=frame,
            time=time,
            trick=trick,
            winner=done.winner(),
            cards=tuple(str(c) for _, c in done.plays),
            augen=int(done.augen),
        )

    def _questions(self, search: Search, best: Any, tricks: list[list[DecodedPlay]], trick: int) -> list[TableEvent]:
        """Asks about the plays of ``trick`` nobody read (once each): the two likeliest cards."""
        out: list[TableEvent] = []
        for k, play in enumerate(tricks[trick]):
            if not play.deduced or (trick, play.seat) in self._asked or (trick, play.seat) in self.fixed:
                continue
            self._asked.add((trick, play.seat))
            question = search.deduced_question(best, trick, k)
            if question is not None:
                out.append(question)
        return out


def _event_dict(event: CardLanded | CardLeft) -> dict[str, Any]:
    if isinstance(event, CardLeft):
        return {
            "kind": "left",
            "track": event.track_id,
            "card": event.card_index,
            "frame": event.frame,
            "time": event.time,
            "last_seen": event.last_seen,
        }
    return {
        "kind": "landed",
        "track": event.track_id,
        "card": event.card_index,
        "confidence": round(event.confidence, 6),
        "center": [round(v, 3) for v in event.center],
        "frame": event.frame,
        "time": event.time,
        "candidates": [[c, round(share, 6)] for c, share in event.candidates],
        "spread": round(event.spread, 3),
        "weight": event.weight,
        "came_from": None if event.came_from is None else [round(v, 3) for v in event.came_from],
    }


def _point(values: Sequence[Any]) -> tuple[float, float]:
    x, y = (float(v) for v in values)
    return (x, y)


def _event_from(entry: Mapping[str, Any]) -> CardLanded | CardLeft:
    """A tracker event from :func:`_event_dict`'s data.

    Raises:
        ValueError: the entry is no landing or departure (named).
    """
    try:
        if entry["kind"] == "left":
            seen = entry.get("last_seen")
            return CardLeft(
                int(entry["track"]),
                int(entry["card"]),
                int(entry["frame"]),
                float(entry["time"]),
                None if seen is None else float(seen),
            )
        if entry["kind"] == "landed":
            x, y = (float(v) for v in entry["center"])
            return CardLanded(
                track_id=int(entry["track"]),
                card_index=int(entry["card"]),
                confidence=float(entry["confidence"]),
                center=(x, y),
                frame=int(entry["frame"]),
                time=float(entry["time"]),
                candidates=tuple((int(c), float(s)) for c, s in entry.get("candidates", [])),
                spread=float(entry.get("spread", 0.0)),
                weight=float(entry.get("weight", 1.0)),
                came_from=None if entry.get("came_from") is None else _point(entry["came_from"]),
            )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"logged evidence {dict(entry)!r} is malformed: {exc!r}") from None
    raise ValueError(f"a tracked event of kind {entry.get('kind')!r}: expected 'landed' or 'left'")
