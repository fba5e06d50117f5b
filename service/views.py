"""The table state as the public JSON the pages and the API show (``schemas.TablePublic``).

Built once per event and sent as is to every page, so it is plain dicts, not models.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from dokocam.engine import Card, Rules, SoloKind
from dokocam.engine.rules import PRESETS
from dokocam.engine.sheet import Partie
from dokocam.service import table as t
from dokocam.service.feed import FeedFrame
from dokocam.service.texts import Text


def card_view(card: Card) -> dict[str, str]:
    return {"code": str(card), "name": card.german_name, "symbol": card.symbol}


def _switches(rules: Rules) -> dict[str, bool]:
    """The on/off rules."""
    return {f.name: value for f in fields(rules) if isinstance(value := getattr(rules, f.name), bool)}


def _options(rules: Rules) -> dict[str, str]:
    """The rules with a choice of values (an enum's value)."""
    return {
        f.name: str(getattr(value, "value", value))
        for f in fields(rules)
        if f.name != "preset" and not isinstance(value := getattr(rules, f.name), bool)
    }


def _plain(value: Any) -> Any:
    return value if isinstance(value, (bool, int, str)) else str(getattr(value, "value", value))


def rules_view(rules: Rules, *, settable: bool) -> dict[str, Any]:
    differs = {k: _plain(v) for k, v in rules.to_dict().items() if k != "preset"}
    presets = {name: _switches(preset) for name, preset in sorted(PRESETS.items())}
    return {
        "preset": rules.preset,
        "differs": differs,
        "switches": _switches(rules),
        "options": _options(rules),
        "presets": presets,
        "settable": settable,
    }


def table_view(
    state: t.TableState,
    *,
    actions: Sequence[Mapping[str, Any]] = (),
    seen: Mapping[tuple[int, int, int], str] | None = None,
) -> dict[str, Any]:
    """The whole public state; ``actions`` are a person's latest actions in force, newest first; ``seen``
    the camera's cards seen before their turn, ``(game number, trick index, table seat) -> card code``."""
    partie = state.partie
    last = next((f for f in reversed(state.finished) if not f.ended_early), None)
    game = None
    if state.current is not None:
        game = {**game_view(state.current), "seen": seen_view(state.current, seen or {})}
    return {
        "seq": state.last_event_id,
        "engine_time": state.applied_at or time.time(),
        "rules": rules_view(state.rules, settable=partie is None or partie.is_over),
        "partie": partie_view(state) if partie is not None else None,
        "game": game,
        "last_game": game_view(last.state, entry_points=last.entry.points) if last is not None else None,
        "notes": [dict(n) for n in state.notes[-20:]],
        "pipeline_flags": [camera_flag_view(f) for f in state.pipeline_flags[-20:]],
        "undo": dict(actions[0]) if actions else None,
        "actions": [dict(a) for a in actions],
        "deck": state.deck,
    }


_CAMERA_REASONS = ("incomplete_trick", "card_withdrawn", "card_replaced", "seats_changed")


def camera_flag_view(flag: Mapping[str, Any]) -> dict[str, Any]:
    """What the camera asks a person to look at, in German (``message``) and English; its own words in ``detail``."""
    kind = str(flag.get("kind", ""))
    if kind == "card_revised":
        return {**flag, "detail": ""}  # worded with the players' names when it was replayed
    trick = flag.get("trick")
    number = int(trick) + 1 if isinstance(trick, int) else "?"
    text = Text(f"camera.{kind}", trick=number) if kind in _CAMERA_REASONS else Text("camera.other", kind=kind)
    return {**flag, "message": text.de, "message_en": text.en, "detail": flag.get("message", "")}


def partie_view(state: t.TableState) -> dict[str, Any]:
    """The Partie in force (``state.partie`` must be set)."""
    assert state.partie is not None
    return sheet_view(state.partie, state.partie_config, state.finished, state.partie_number)


def past_view(past: t.PastPartie) -> dict[str, Any]:
    """An earlier Partie, as ``partie_view`` shows the one in force."""
    return sheet_view(past.partie, past.config, past.finished, past.number)


def parties_view(state: t.TableState) -> list[dict[str, Any]]:
    """Every Partie of the log, oldest first: number, players, games on the sheet, totals, in force."""
    rows = [(p.number, p.partie, p.finished, False) for p in state.past]
    if state.partie is not None:
        rows.append((state.partie_number, state.partie, state.finished, True))
    return [
        {
            "number": number,
            "players": list(partie.players),
            "games": len(finished),
            "is_over": partie.is_over,
            "totals": dict(partie.totals),
            "current": current,
        }
        for number, partie, finished, current in rows
    ]


def sheet_view(
    partie: Partie, config: Mapping[str, Any], finished_games: Sequence[t.FinishedGame], number: int
) -> dict[str, Any]:
    """A Partie's players, totals and sheet rows with running totals."""
    rows = []
    for finished in finished_games:
        entry = finished.entry
        notes = []
        if entry.abandoned:
            notes.append(
                f"abgebrochen, {entry.abandoned_by} ging" if entry.abandoned_by else "abgebrochen, ohne Wertung"
            )
        if entry.vorfuehrung:
            notes.append("Vorführung")
        elif entry.pflichtsolo:
            notes.append("Pflichtsolo")
        if entry.bock_trigger:
            notes.append("Bock folgt")
        rows.append(
            {
                "number": entry.deal.number,
                "round": entry.deal.round,
                "dealer": entry.deal.dealer,
                "sitting_out": entry.deal.sitting_out,
                "contract": "" if entry.abandoned else entry.contract,
                "multiplier": entry.deal.multiplier,
                "notes": notes,
                "points": dict(entry.points),
                "totals": dict(entry.totals),
                "ended_early": entry.abandoned,
            }
        )
    return {
        "number": number,
        "players": list(partie.players),
        "present": list(partie.present),
        "first_dealer": config.get("first_dealer", partie.first_dealer),
        "length": {k: v for k, v in (config.get("length") or {}).items() if v is not None},
        "round": partie.round,
        "is_over": partie.is_over,
        "totals": partie.totals,
        "standings": [list(s) for s in partie.standings()],
        "bock_queue": partie.bock_queue,
        "pflichtsolo_owed": partie.pflichtsolo_owed,
        "sheet": rows,
    }


def game_view(current: t.GameState, *, entry_points: dict[str, int] | None = None) -> dict[str, Any]:
    game = current.game
    players = current.table_players
    refs = iter(current.plays)  # the log's plays, in the engine's order

    def ref_for(seat: int, card: Card) -> t.PlayRef:
        ref = next(refs, None)
        if ref is None or ref.card != card:  # cannot happen while log and engine agree; show the engine's
            return t.PlayRef(0, current.table_seat(seat), card, 1.0, uncertain=False, corrected=False)
        return ref

    def trick_view(number: int, trick: Any) -> dict[str, Any]:
        plays = [ref_for(seat, card) for seat, card in trick.plays]
        winner = trick.winner()
        return {
            "number": number,
            "leader": current.table_seat(trick.leader) if trick.leader is not None else None,
            "plays": [play_view(ref, players) for ref in plays],
            "winner": current.table_seat(winner) if winner is not None else None,
            "augen": trick.augen,
        }

    tricks = [trick_view(i + 1, trick) for i, trick in enumerate(game.tricks)]
    current_trick = None
    if not game.is_over:
        current_trick = trick_view(len(tricks) + 1, game.current_trick)
    parties = game.parties()
    party_of = {current.table_seat(seat): _party_name(p) for seat, p in enumerate(parties)}
    augen = {"re": 0, "kontra": 0, "unknown": 0}
    for trick in tricks:
        augen[party_of.get(trick["winner"]) or "unknown"] += trick["augen"]
    result = None
    specials = game.special_points()
    if game.is_over:
        try:
            scored = game.result()
        except ValueError:
            pass
        else:
            result = result_view(scored, current, entry_points)
            specials = scored.special_items
    to_move = game.to_move
    contract = current.contract
    return {
        "number": current.number,
        "seats": list(players),
        "sitting_out": current.sitting_out,
        "dealer": current.dealer,
        "vorhand": current.table_seat(0),
        "bocks": current.bocks,
        "deck": current.deck,
        "forced_solo": current.forced_solo,
        "contract": contract_view(contract, current),
        "to_move": current.table_seat(to_move) if to_move is not None else None,
        "trick_number": len(tricks) + (0 if game.is_over else 1),
        "current_trick": current_trick,
        "tricks": tricks,
        "parties": {players[seat]: party for seat, party in party_of.items()},
        "augen": augen,
        "calls": [
            {"event_id": event_id, "seat": seat, "player": players[seat], "call": call.value}
            for seat, call, event_id in current.calls
        ],
        "specials": [_special_view(item) for item in specials],
        "flags": [flag_view(flag, current) for flag in game.flags],
        "uncertain": [play_view(ref, players) for ref in current.plays if ref.uncertain],
        "is_over": game.is_over,
        "claimed": _claim_view(game.claimed, current),
        "blocked": current.blocked,
        "blocked_en": current.blocked_en,
        "result": result,
    }


def seen_view(current: t.GameState, seen: Mapping[tuple[int, int, int], str]) -> list[dict[str, Any]]:
    """The cards of ``current``'s trick in play seen before their turn whose seat has not played yet."""
    game = current.game
    if game.is_over:
        return []
    trick = len(game.tricks)
    played = {current.table_seat(seat) for seat, _ in game.current_trick.plays}
    return [
        {"seat": seat, "player": current.table_players[seat], "card": card_view(Card.parse(card))}
        for (number, k, seat), card in sorted(seen.items())
        if number == current.number and k == trick and seat not in played
    ]


def _claim_view(claim: Any, current: t.GameState) -> dict[str, Any] | None:
    """A Spielabkürzung (DDV 5.4) as the engine counted it: who, how many tricks, their Augen."""
    if claim is None:
        return None
    seat = current.table_seat(claim.seat)
    return {"seat": seat, "player": current.table_players[seat], "tricks": claim.tricks, "augen": claim.augen}


def play_view(ref: t.PlayRef, players: tuple[str, ...]) -> dict[str, Any]:
    return {
        "event_id": ref.event_id,
        "seat": ref.seat,
        "player": players[ref.seat],
        "card": card_view(ref.card),
        "confidence": round(ref.confidence, 3),
        "uncertain": ref.uncertain,
        "corrected": ref.corrected,
        "revised": ref.revised,
        "manual": ref.manual,
    }


def flag_view(flag: Any, current: t.GameState) -> dict[str, Any]:
    """A flag of the engine with its title and sentence in German and English, seats as names."""
    return {
        "kind": str(flag.kind),
        "title": flag.kind.name_in("de"),
        "trick": flag.trick + 1 if flag.trick is not None else None,
        "seat": current.table_seat(flag.seat) if flag.seat is not None else None,
        "card": card_view(flag.card) if flag.card is not None else None,
        "message": flag.text.text("de", current.deal_seats),
        "message_en": flag.text.text("en", current.deal_seats),
    }


def contract_view(contract: Any, current: t.GameState) -> dict[str, Any]:
    data = contract.to_dict()
    out: dict[str, Any] = {"type": data.get("type", "normal"), "kind": data.get("kind")}
    for key in ("declarer", "partner"):
        out[key] = current.table_seat(data[key]) if data.get(key) is not None else None
    out["label"] = contract_label(out, current.table_players)
    return out


_CONTRACT_NAMES = {
    "normal": "Normalspiel",
    "hochzeit": "Hochzeit",
    "silent_hochzeit": "stille Hochzeit",
    "armut": "Armut",
}


def contract_label(record: Mapping[str, Any], table_players: Sequence[str]) -> str:
    """A game type in German with its declarer, e.g. ``Damensolo (Anna)``; seats are table seats.

    >>> contract_label({"type": "solo", "kind": "queens", "declarer": 0}, ["Anna", "Ben", "Cem", "Dora"])
    'Damensolo (Anna)'
    """
    kind = record.get("type", "normal")
    label = _CONTRACT_NAMES.get(kind, "Solo")
    if kind == "solo" and record.get("kind"):
        label = SoloKind(record["kind"]).german_name
    declarer = record.get("declarer")
    if declarer is not None and 0 <= int(declarer) < len(table_players):
        label += f" ({table_players[int(declarer)]})"
    return label


def result_view(result: Any, current: t.GameState, entry_points: dict[str, int] | None) -> dict[str, Any]:
    names = current.deal_seats
    points = entry_points if entry_points is not None else dict(zip(names, result.points))
    return {
        "winner": _party_name(result.winner),
        "augen": {_party_name(p) or "?": n for p, n in result.augen.items()},
        "items": [{"name": i.name, "party": _party_name(i.party), "value": i.value} for i in result.items],
        "game_value": result.game_value,
        "points": {name: points.get(name, 0) for name in current.table_players},
    }


def _party_name(party: Any) -> str | None:
    if party is None:
        return None
    return str(getattr(party, "value", party)).lower()


def _special_view(item: Any) -> str:
    """One special point as the engine counts it: its German name, the trick and the party (once known)."""
    party = "Partei offen" if item.party is None else item.party.name_in("de")
    where = f"Stich {item.trick + 1}, " if item.trick is not None else ""
    return f"{item.kind.german_name} ({where}{party})"


def frame_message(frame: FeedFrame) -> dict[str, Any]:
    """The SSE ``frame`` message: which image to load and the boxes to draw on it."""
    boxes = []
    for box in frame.boxes:
        try:
            card = Card.parse(box.card)
            label = f"{card.symbol} {card.german_name}"
        except ValueError:
            label = box.card
        boxes.append(
            {
                "xyxy": [round(v, 1) for v in box.xyxy],
                "card": box.card,
                "label": label,
                "confidence": round(box.confidence, 2),
            }
        )
    return {"index": frame.index, "time": frame.time, "width": frame.width, "height": frame.height, "boxes": boxes}
