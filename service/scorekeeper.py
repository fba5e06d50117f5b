"""The table's scorekeeper (Schreiber): validates an action, appends it to the log, applies it, tells every page.

One ``Scorekeeper`` per server. All writes go through ``submit`` under one lock, in the order
*validate -> append (committed) -> apply -> publish*, so a refused action changes nothing and
nothing is shown before it is on disk.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dokocam.engine import Call, Card, EngineError, Game, IllegalCallError, IllegalPlayError, PlayEvent, Rules
from dokocam.engine.messages import Message
from dokocam.engine.sheet import Partie
from dokocam.service import table as t
from dokocam.service.feed import (
    CARD_PLAYED,
    CARD_SEEN,
    NEEDS_CONFIRMATION,
    Feed,
    FeedEvent,
    FeedFrame,
    FollowsGame,
    ReadsDeck,
    Resumes,
)
from dokocam.service.hub import Hub
from dokocam.service.store import EventStore, StoredEvent
from dokocam.service.texts import Bilingual, Text, TextError
from dokocam.service.views import contract_label, frame_message, parties_view, past_view, table_view

log = logging.getLogger(__name__)

_FRAMES_KEPT = 8
_ACTIONS_SHOWN = 12  # a person's latest actions the page offers to take back


class NotFoundError(TextError):
    """The card, call or event an action names does not exist (HTTP 404)."""


class EngineRefusal(TextError):
    """The engine refused an action; ``conflict``: it is well-formed but does not fit the game now (HTTP 409).

    Args:
        error: the engine's error.
        names: the players in the engine's seat order (Vorhand first).
    """

    def __init__(self, error: EngineError, names: Sequence[str] | None) -> None:
        message = error.message if isinstance(error.message, Message) else Text("engine_refused", why=str(error))
        super().__init__(message, names)
        self.conflict = isinstance(error, (IllegalCallError, IllegalPlayError))


class Scorekeeper:
    """Keeps one table's state in step with its event log; the only writer of that log.

    Args:
        store: the event log; the state is rebuilt from it at once.
        hub: where state and frame messages go; a fresh one when None.
    """

    def __init__(self, store: EventStore, hub: Hub | None = None, *, frame_fps: float = 5.0) -> None:
        self.store = store
        self.hub = hub or Hub()
        self.frame_interval = 1.0 / frame_fps
        self._lock = threading.RLock()
        self._events: list[StoredEvent] = list(store.events())
        self._replayer = t.Replayer.rebuild(self._events)
        self._frames: OrderedDict[int, FeedFrame] = OrderedDict()
        self._last_frame_sent = 0.0
        self._feed: Feed | None = None
        self._feed_thread: threading.Thread | None = None
        self._repeats: list[tuple[int, str]] = []  # (table seat, card) a restarted camera will report again
        # (game number, trick index, table seat) -> card the camera sees before its turn: shown, not logged
        # (the evidence it comes from is), so a restart shows it again once the decoder has decoded that far.
        self._seen: dict[tuple[int, int, int], str] = {}
        self._view: dict[str, Any] = self._build_view()
        self.hub.publish("state", self._view)

    # -- reading ------------------------------------------------------------------------

    @property
    def state(self) -> t.TableState:
        return self._replayer.state

    def view(self) -> dict[str, Any]:
        """The public state (``schemas.TablePublic`` as a dict), as the last event left it."""
        with self._lock:
            return self._view

    def parties(self) -> list[dict[str, Any]]:
        """Every Partie of the log, oldest first (``schemas.PartieSummary``)."""
        with self._lock:
            return parties_view(self.state)

    def sheet(self, partie: int | None = None) -> dict[str, Any] | None:
        """Partie number ``partie`` (default: the one in force) as ``schemas.PartiePublic``, or None."""
        with self._lock:
            if partie is None or partie == self.state.partie_number:
                shown: dict[str, Any] | None = self._view["partie"]
                return shown
            past = next((p for p in self.state.past if p.number == partie), None)
            return past_view(past) if past is not None else None

    def game_record(self, number: int, partie: int | None = None) -> dict[str, Any] | None:
        """Game ``number`` of a Partie (default: the one in force) as a ``dokocam-game/1`` record, or None."""
        with self._lock:
            if partie is None or partie == self.state.partie_number:
                games = self.state.games()
            else:
                past = next((p for p in self.state.past if p.number == partie), None)
                if past is None:
                    return None
                games = [f.state for f in past.finished] + ([past.unfinished] if past.unfinished else [])
            for game in games:
                if game.number == number:
                    return game.game.to_dict()
            return None

    def events(self, after: int = 0) -> list[StoredEvent]:
        with self._lock:
            return [e for e in self._events if e.id > after]

    def frame(self, index: int | None = None) -> FeedFrame | None:
        """The newest camera frame, or the one with ``index`` while it is still kept."""
        with self._lock:
            if not self._frames:
                return None
            if index is None:
                return next(reversed(self._frames.values()))
            return self._frames.get(index)

    def _build_view(self) -> dict[str, Any]:
        actions = [self._action(event) for event in t.person_actions(self._events)[:_ACTIONS_SHOWN]]
        current = self.state.current
        self._seen = {k: v for k, v in self._seen.items() if current is not None and k[0] == current.number}
        return table_view(self._replayer.state, actions=actions, seen=self._seen)

    def _action(self, event: StoredEvent) -> dict[str, Any]:
        """A person's action as the page offers it for taking back: id, kind, labels."""
        game = self._game_of(event)
        label = _action_text(event, game)
        return {
            "event_id": event.id,
            "kind": event.kind,
            "game": game.number if game is not None else None,
            "label": label.de,
            "label_en": label.en,
        }

    def _game_of(self, event: StoredEvent) -> t.GameState | None:
        """The game an event belongs to (its card or call, or the card or call it names); None if unknown."""
        ids = {event.id, int(event.payload.get("target", 0) or 0)}
        games = self.state.games()
        for game in reversed(games):
            if any(p.event_id in ids for p in game.plays) or any(c[2] in ids for c in game.calls):
                return game
        for game in reversed(games):  # a game type or an early end: the game that was running then
            if game.first_event_id is not None and game.first_event_id < event.id:
                return game
        return self.state.current

    def new_game(self) -> Game:
        """The table's current game for the pipeline to follow: players, rules, contract and its complete tricks.

        The cards of a trick still being played are left out: they lie on the table, and a camera
        that starts again (after a restart) sees them arrive once more (``attach`` drops those repeats).
        """
        with self._lock:
            current = self.state.current
            if current is None:
                return Game(self.state.rules)
            history = list(current.game.history)
            for _ in range(0 if current.game.is_over else len(current.game.current_trick.plays)):
                last = max(i for i, e in enumerate(history) if isinstance(e, PlayEvent))
                del history[last]
            return Game.replay(current.rules, current.contract, current.deal_seats, history)

    def seating(self) -> tuple[str, ...]:
        """Everyone still at the table in seating order (4 or 5); empty before a Partie."""
        with self._lock:
            partie = self.state.partie
            return partie.present if partie is not None else ()

    # -- writing ------------------------------------------------------------------------

    def submit(self, kind: str, payload: Mapping[str, Any]) -> StoredEvent:
        """Validates, appends and applies one event; returns it as stored.

        Raises:
            TableError: the action does not fit the table now (the message says why).
            NotFoundError: it names a card, call or event that is not there.
            EngineRefusal: the engine refuses it (an illegal call, a card code that names no card).
            TextError: its content is malformed (the message says what).
            ValueError: the sheet refuses it (a Partie that cannot be set up).
        """
        with self._lock:
            payload = dict(payload)
            try:
                _VALIDATORS[kind](self, payload)
            except EngineError as exc:
                # The engine counts seats from Vorhand; people know each other by name.
                current = self.state.current
                raise EngineRefusal(exc, current.deal_seats if current is not None else None) from exc
            if payload.get("source") != "camera":
                self._dry_run(kind, payload)
            event = self.store.append(kind, payload)
            self._events.append(event)
            if kind in t.REBUILDS:
                self._replayer = t.Replayer.rebuild(self._events)
            else:
                self._replayer.apply(event)
            current = self.state.current
            if isinstance(self._feed, FollowsGame):
                # The game type and the calls are evidence for the camera's decoder (a person's undo may take one back).
                undo = kind == t.UNDO and payload.get("source") != "camera"
                if (kind == t.CONTRACT_SET or undo) and current is not None:
                    self._feed.contract_changed(current.contract)
                calls_changed = getattr(self._feed, "calls_changed", None)
                if (kind in (t.CALL_MADE, t.CALL_CORRECTED) or undo) and current is not None and calls_changed:
                    calls_changed(t.calls_of(current.game))
                if kind == t.GAME_ENDED_EARLY:
                    self._feed.game_abandoned()
            if kind == t.CARD_CORRECTED:
                self._tell_feed_the_correction(payload)
            if kind == t.DECK_SET and isinstance(self._feed, ReadsDeck):
                self._feed.use_deck(payload.get("name"))
            self._view = self._build_view()
            # Published under the lock, so pages (and the hub's last-state replay) see states in log order.
            self.hub.publish("state", self._view)
        return event

    # -- validation (nothing is written when these raise) --------------------------------

    def _dry_run(self, kind: str, payload: dict[str, Any]) -> None:
        """Refuses a person's action the replay would only keep as a note (it would change nothing).

        Raises:
            TableError: what the replay says is wrong with it.
        """
        candidate = StoredEvent(self._events[-1].id + 1 if self._events else 1, time.time(), kind, payload)
        if kind in t.REBUILDS:
            trial = t.Replayer.rebuild([*self._events, candidate])
        else:
            trial = self._replayer.trial()
            trial.apply(candidate)
        # The action itself, or the card or call it corrects, would not fit: refused. Later events
        # that no longer fit after it are recomputed and shown as notes, as a correction should.
        own = {candidate.id} if kind == t.UNDO else {candidate.id, int(payload.get("target") or 0)}
        before = {n["event_id"] for n in self.state.notes}
        for note in trial.state.notes:
            if note["event_id"] in own and note["event_id"] not in before:
                why = Bilingual(note["message"], note.get("message_en", note["message"]))
                raise t.TableError(Text("not_applied", why=why))

    def _check_rules(self, payload: dict[str, Any]) -> None:
        self._require_no_partie(Text("action_rules"))
        payload["rules"] = Rules.from_dict(payload["rules"]).to_dict()

    def _check_partie(self, payload: dict[str, Any]) -> None:
        if not payload.pop("replace", False):
            self._require_no_partie(Text("action_partie"))
        rules = Rules.from_dict(payload["rules"])
        payload["rules"] = rules.to_dict()
        Partie(payload["players"], rules, first_dealer=payload["first_dealer"], **payload.get("length", {}))

    def _check_contract(self, payload: dict[str, Any]) -> None:
        current = self._require_game()
        contract = t.contract_from_payload(payload["contract"], current)
        if current.forced_solo is not None:
            declarer = current.deal_seats[contract.declarer] if contract.declarer is not None else None
            if contract.type.value != "solo" or declarer != current.forced_solo:
                raise t.TableError(Text("forced_solo", player=current.forced_solo))
        Game.replay(current.rules, contract, current.deal_seats, current.game.history)

    def _check_card(self, payload: dict[str, Any]) -> None:
        current = self._require_game()
        payload["card"] = str(Card.parse(payload["card"]))
        if payload.get("source") != "camera" and current.game.is_over:
            raise t.TableError(Text("game_blocked", number=current.number, why=current.blocked or "?"))

    def _check_call(self, payload: dict[str, Any]) -> None:
        current = self._require_game()
        trial = Game.replay(current.rules, current.contract, current.deal_seats, current.game.history)
        trial.call(current.game_seat(payload["seat"]), Call(payload["call"]))

    def _check_claim(self, payload: dict[str, Any]) -> None:
        current = self._require_game()
        trial = Game.replay(current.rules, current.contract, current.deal_seats, current.game.history)
        trial.claim(current.game_seat(payload["seat"]))

    def _check_confirm(self, payload: dict[str, Any]) -> None:
        play, _ = self._find_play(payload["target"])
        if not play.uncertain:
            raise t.TableError(Text("not_doubted", id=payload["target"], card=play.card.german_name))

    def _check_correction(self, payload: dict[str, Any]) -> None:
        play, game = self._find_play(payload["target"])
        if payload.get("card") is None and payload.get("seat") is None:
            raise TextError(Text("correction_empty"))
        if payload.get("card") is not None:
            payload["card"] = str(Card.parse(payload["card"]))
        if payload.get("card") in (None, str(play.card)) and payload.get("seat") in (None, play.seat):
            raise t.TableError(
                Text(
                    "correction_same",
                    id=play.event_id,
                    card=play.card.german_name,
                    player=game.table_players[play.seat],
                )
            )

    def _check_call_correction(self, payload: dict[str, Any]) -> None:
        target = int(payload["target"])
        for game in self.state.games():
            for seat, call, event_id in game.calls:
                if event_id == target:
                    if payload.get("call") is None and payload.get("seat") is None:
                        raise TextError(Text("call_correction_empty"))
                    if payload.get("call") in (None, call.value) and payload.get("seat") in (None, seat):
                        raise t.TableError(
                            Text(
                                "call_correction_same",
                                id=target,
                                call=call.german_name,
                                player=game.table_players[seat],
                            )
                        )
                    return
        raise NotFoundError(Text("no_such_call", id=target))

    def _check_undo(self, payload: dict[str, Any]) -> None:
        """An undo names its target; a person's undo without one takes back their last action.

        The camera may withdraw its own card (a lead it counted too early); a person never undoes
        a camera event: those are corrected.
        """
        by_camera = payload.get("source") == "camera"
        if payload.get("target") is None:
            target = t.last_undoable(self._events)
            if target is None:
                raise t.TableError(Text("nothing_to_undo"))
        else:
            target = next((e for e in self._events if e.id == int(payload["target"])), None)
            if target is None:
                raise NotFoundError(Text("no_such_event", id=payload["target"]))
            if target.kind not in t.UNDOABLE:
                raise t.TableError(Text("undo_not_undoable", id=target.id, kind=target.kind))
            if t.from_camera(target) and not by_camera:
                raise t.TableError(Text("undo_camera", id=target.id))
            if target not in t.partie_events(self._events):
                raise t.TableError(Text("undo_not_in_force", id=target.id))
        payload["target"] = target.id
        payload["target_kind"] = target.kind

    def _check_end(self, payload: dict[str, Any]) -> None:
        self._require_game()
        left = payload.get("left")
        present = self.state.partie.present  # type: ignore[union-attr]
        if left is not None and left not in present:
            raise TextError(Text("not_at_table", name=left, players=", ".join(present)))

    def _check_deck(self, payload: dict[str, Any]) -> None:
        name = payload.get("name")
        if name is not None and not (isinstance(name, str) and t.DECK_NAME.match(name)):
            raise TextError(Text("deck_name_bad", name=str(name)[:60]))
        payload["name"] = name

    def _check_nothing(self, payload: dict[str, Any]) -> None:
        """The pipeline's own findings need no check: they are what the camera saw."""

    def _require_no_partie(self, action: Text) -> None:
        partie = self.state.partie
        if partie is not None and not partie.is_over:
            raise t.TableError(Text("partie_running", action=action))

    def _require_game(self) -> t.GameState:
        return self._replayer.require_game()

    def _find_play(self, event_id: int) -> tuple[t.PlayRef, t.GameState]:
        for game in self.state.games():
            for play in game.plays:
                if play.event_id == event_id:
                    return play, game
        raise NotFoundError(Text("no_such_card", id=event_id))

    # -- the camera -----------------------------------------------------------------------

    def attach(self, feed: Feed, *, resume: bool = False) -> None:
        """Consumes ``feed`` on a worker thread until it ends or ``detach`` is called.

        Args:
            resume: the feed is a file played again after a restart: skip the events the log
                already holds (counted by their position in the feed).
        """
        self._feed = feed
        if isinstance(feed, FollowsGame):
            feed.game_factory = self.new_game  # the pipeline follows the game really played
            feed.seating = self.seating
        skip, skip_until = (self.state.source_seq if resume else 0), None
        current = self.state.current
        if resume and isinstance(feed, Resumes) and self.state.source_time > 0:
            # A video picks up at the start of the last game its camera saw, not at its own start.
            start, game = t.resume_point(self.state)
            feed.resume_at(start, Game(game.rules, game.contract, game.deal_seats) if game is not None else None)
            skip, skip_until = 0, self.state.source_time
            self.hub.publish("feed", {"state": "resumed", **_texts(Text("feed_resumed", seconds=start))})
        elif not resume and isinstance(feed, FollowsGame) and current is not None and not current.game.is_over:
            evidence = t.game_evidence(self._events, current)
            prime = getattr(feed, "prime", None)
            if evidence and prime is not None:
                # A live camera starting again decodes the game from the evidence in the log first.
                prime(evidence)
            else:
                # A live camera starting again mid-trick sees that trick's cards arrive once more.
                pending = len(current.game.current_trick.plays)
                self._repeats = [(p.seat, str(p.card)) for p in current.plays[len(current.plays) - pending :]]
        args = (feed, skip, skip_until)
        self._feed_thread = threading.Thread(target=self._consume, args=args, name="feed", daemon=True)
        self._feed_thread.start()

    def detach(self) -> None:
        if self._feed is not None:
            self._feed.close()
        if self._feed_thread is not None:
            self._feed_thread.join(timeout=5)

    def _consume(self, feed: Feed, skip: int, skip_until: float | None = None) -> None:
        """Logs the feed's events; the first ``skip`` of them, or those up to ``skip_until`` seconds, are in the log."""
        seq = self.state.source_seq if skip_until is not None else 0
        pacer = getattr(feed, "pacer", None)
        realtime = pacer is not None and pacer.realtime
        if (skip or skip_until is not None) and pacer is not None:
            pacer.realtime = False  # catch up with the log at full speed, then play on in real time
        try:
            for item in feed:
                if isinstance(item, FeedFrame):
                    self.show_frame(item)
                    continue
                if skip_until is not None:
                    if item.time <= skip_until:
                        continue
                    if pacer is not None:
                        pacer.realtime = realtime
                    skip_until = None
                seq += 1
                if seq > skip:
                    self.observe(item, seq)
                elif seq == skip and pacer is not None:
                    pacer.realtime = realtime
        except Exception:  # a broken camera must not take the dashboard down
            log.exception("the camera feed stopped")
            self.hub.publish("feed", {"state": "stopped", **_texts(Text("feed_stopped"))})
        else:
            self.hub.publish("feed", {"state": "ended", **_texts(Text("feed_ended"))})

    def observe(self, event: FeedEvent, seq: int = 0) -> StoredEvent | None:
        """Logs one pipeline event that changes the table; returns the stored event or None.

        The pipeline counts seats from Vorhand (game seats); the log keeps table seats.
        """
        data = dict(event.data)
        origin = {"source": "camera", "source_seq": seq, "source_time": event.time}
        try:
            if event.kind == CARD_PLAYED:
                current = self._require_game()
                seat, card = current.table_seat(int(data["seat"])), str(data["card"])
                if self._repeats and self._repeats[0] == (seat, card):
                    self._repeats.pop(0)  # a card of the trick in play, in the log before the restart
                    return None
                self._repeats = []
                return self.submit(
                    t.CARD_OBSERVED,
                    {
                        "seat": seat,
                        "card": card,
                        "confidence": float(data.get("confidence", 1.0)),
                        **origin,
                    },
                )
            if event.kind == CARD_SEEN:
                self._show_seen(int(data["trick"]), int(data["seat"]), str(data["card"]))
                return None
            if event.kind == t.CARD_REVISED:
                return self._revise(data, origin)
            if event.kind == t.CAMERA_EVIDENCE:
                return self.submit(t.CAMERA_EVIDENCE, {"entry": data["entry"], **origin})
            if event.kind == NEEDS_CONFIRMATION and data.get("reason") == "uncertain_card":
                target = self._last_play(data.get("card"))
                if target is not None:
                    return self.submit(
                        t.CARD_DOUBTED,
                        {
                            "target": target.event_id,
                            "candidates": data.get("candidates", []),
                            "message": data.get("message", ""),
                            **origin,
                        },
                    )
            elif event.kind == NEEDS_CONFIRMATION and data.get("reason") == "card_withdrawn":
                # The pipeline took back a card it had counted as a lead (it left with the trick
                # before); mirror that with an undo when it is still the last card in force.
                last = next((e for e in reversed(t.in_force(self._events)) if e.kind == t.CARD_OBSERVED), None)
                if last is not None and last.payload.get("card") == data.get("card"):
                    self.submit(t.UNDO, {"target": last.id, **origin})
                return self.submit(
                    t.PIPELINE_FLAG,
                    {
                        "kind": "card_withdrawn",
                        "trick": data.get("trick"),
                        "message": str(data.get("message", "")),
                        **origin,
                    },
                )
            elif event.kind == NEEDS_CONFIRMATION:
                return self.submit(
                    t.PIPELINE_FLAG,
                    {
                        "kind": str(data.get("reason", "check")),
                        "trick": data.get("trick"),
                        "message": str(data.get("message", "")),
                        **origin,
                    },
                )
        except (ValueError, LookupError) as exc:
            log.warning("pipeline event %s at %.2fs not applied: %s", event.kind, event.time, exc)
            refused = Text("feed_refused", kind=event.kind, time=event.time, why=str(exc))
            self.hub.publish("feed", {"state": "refused", **_texts(refused)})
            return None
        self.hub.publish("pipeline", {"kind": event.kind, "time": event.time})
        return None

    def _show_seen(self, trick: int, game_seat: int, card: str) -> None:
        """Shows a card the camera sees in the trick in play before its turn, until its seat's play is logged.

        Raises:
            ValueError: no game is running, or the seat or the card code names nothing.
        """
        with self._lock:
            current = self._require_game()
            if not 0 <= game_seat < 4:
                raise ValueError(f"seat {game_seat}: a game has seats 0 to 3")
            self._seen[(current.number, trick, current.table_seat(game_seat))] = str(Card.parse(card))
            self._view = self._build_view()
            self.hub.publish("state", self._view)

    def _revise(self, data: Mapping[str, Any], origin: Mapping[str, Any]) -> StoredEvent | None:
        """Logs the camera's new reading of the ``play``-th card of its game (none for a card a person corrected)."""
        current = self.state.current
        game = current if current is not None and current.plays else None
        if game is None and self.state.finished:
            game = self.state.finished[-1].state  # the game's last card finished it
        play = int(data["play"])
        if game is None or not 0 <= play < len(game.plays) or game.plays[play].corrected:
            return None
        return self.submit(
            t.CARD_REVISED,
            {
                "target": game.plays[play].event_id,
                "card": str(data["new"]),
                "old": str(data["old"]),
                "seat": game.table_seat(int(data["new_seat"])),
                "message": str(data.get("message", "")),
                **origin,
            },
        )

    def _tell_feed_the_correction(self, payload: Mapping[str, Any]) -> None:
        """A person's correction of a camera card of the game played now is a fixed reading for the camera's decoder."""
        card_fixed = getattr(self._feed, "card_fixed", None)
        current = self.state.current
        if card_fixed is None or current is None:
            return
        play = next((k for k, p in enumerate(current.plays) if p.event_id == int(payload["target"])), None)
        if play is not None and current.plays[play].source_time is not None:
            ref = current.plays[play]
            card_fixed(play // 4, current.game_seat(ref.seat), str(ref.card))

    def _last_play(self, card: str | None) -> t.PlayRef | None:
        current = self.state.current
        plays = current.plays if current is not None else []
        if not plays and self.state.finished:
            plays = self.state.finished[-1].state.plays  # the last card of a game finished it
        for play in reversed(plays):
            if card is None or str(play.card) == card:
                return play
        return None

    def show_frame(self, frame: FeedFrame) -> None:
        """Keeps a frame for the pages and, at most ``frame_fps`` times a second, announces it."""
        with self._lock:
            self._frames[frame.index] = frame
            while len(self._frames) > _FRAMES_KEPT:
                self._frames.popitem(last=False)
        now = time.monotonic()
        if now - self._last_frame_sent >= self.frame_interval:
            self._last_frame_sent = now
            self.hub.publish("frame", frame_message(frame))


def _action_text(event: StoredEvent, game: t.GameState | None) -> Text:
    """What a person's action was, named for its undo button ("Re von Ben")."""
    payload = event.payload

    def player(seat: Any) -> str:
        return game.table_players[int(seat)] if game is not None and seat is not None else "?"

    def card_of(target: int) -> t.PlayRef | None:
        return next((p for p in game.plays if p.event_id == target), None) if game is not None else None

    if event.kind in (t.CALL_MADE, t.CALL_CORRECTED):
        call = Call(payload["call"]) if payload.get("call") else None
        if event.kind == t.CALL_CORRECTED and game is not None:
            seat, current, _ = next((c for c in game.calls if c[2] == int(payload["target"])), (None, None, 0))
            call = call or current
            key, who = "act_call_fix", player(payload.get("seat", seat))
        else:
            key, who = "act_call", player(payload.get("seat"))
        return Text(key, call=call.german_name if call else "?", call_en=call.value if call else "?", player=who)
    if event.kind == t.CONTRACT_SET:
        label = contract_label(payload.get("contract", {}), game.table_players if game is not None else ())
        return Text("act_contract", contract=label)
    if event.kind == t.CARD_OBSERVED:
        card = Card.parse(payload["card"])
        return Text("act_card", card=card.german_name, code=str(card), player=player(payload["seat"]))
    if event.kind in (t.CARD_CORRECTED, t.CARD_CONFIRMED):
        play = card_of(int(payload["target"]))
        key = "act_card_fix" if event.kind == t.CARD_CORRECTED else "act_confirm"
        if play is None:
            return Text(key, card="?", code="?", player="?")
        return Text(key, card=play.card.german_name, code=str(play.card), player=player(play.seat))
    if event.kind == t.GAME_ENDED_EARLY:
        return Text("act_end", number=game.number if game is not None else "?")
    if event.kind == t.REST_CLAIMED:
        return Text("act_claim", player=player(payload["seat"]), number=game.number if game is not None else "?")
    return Text("act_other", kind=event.kind, id=event.id)


def _texts(text: Text) -> dict[str, str]:
    return {"message": text.de, "message_en": text.en}


_VALIDATORS: dict[str, Callable[[Scorekeeper, dict[str, Any]], None]] = {
    t.RULES_SET: Scorekeeper._check_rules,
    t.PARTIE_STARTED: Scorekeeper._check_partie,
    t.CONTRACT_SET: Scorekeeper._check_contract,
    t.CARD_OBSERVED: Scorekeeper._check_card,
    t.CARD_DOUBTED: Scorekeeper._check_nothing,
    t.CARD_CONFIRMED: Scorekeeper._check_confirm,
    t.CARD_CORRECTED: Scorekeeper._check_correction,
    t.CALL_MADE: Scorekeeper._check_call,
    t.CALL_CORRECTED: Scorekeeper._check_call_correction,
    t.REST_CLAIMED: Scorekeeper._check_claim,
    t.GAME_ENDED_EARLY: Scorekeeper._check_end,
    t.PIPELINE_FLAG: Scorekeeper._check_nothing,
    t.CARD_REVISED: Scorekeeper._check_nothing,
    t.CAMERA_EVIDENCE: Scorekeeper._check_nothing,
    t.UNDO: Scorekeeper._check_undo,
    t.DECK_SET: Scorekeeper._check_deck,
}
