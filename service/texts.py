"""The service's own words, German first and English second, in the engine's one catalogue.

The rules' words (flags, score items, refusals of the engine) are the engine's
(``engine.messages``); these are the words only the dashboard and its API say: refused requests,
undo, the feed. They are registered under ``service.<key>``. An error reply carries both
languages: ``{"detail": German, "detail_en": English, "code": key}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dokocam.engine.messages import Message, register

# key -> (German, English); placeholders in str.format style.
TEXTS: dict[str, tuple[str, str]] = {
    # the gate (service.guard)
    "host_refused": (
        "Unbekannter Host-Name {host!r}: Änderungen nur über die Adresse dieses Rechners "
        "(oder einen mit --allow-host genannten Namen)",
        "unknown host name {host!r}: changes only through this machine's address (or a name given with --allow-host)",
    ),
    "origin_refused": (
        "Eine fremde Webseite ({origin}) darf am Tisch nichts ändern",
        "another web page ({origin}) may not change anything at this table",
    ),
    "json_only": (
        "Änderungen kommen als JSON (Content-Type: application/json), nicht als {given}",
        "changes come as JSON (Content-Type: application/json), not as {given}",
    ),
    "body_too_large": (
        "Die Anfrage ist zu groß (höchstens {limit} KiB)",
        "the request is too large (at most {limit} KiB)",
    ),
    "json_not_utf8": ("Die Anfrage ist kein UTF-8-Text", "the request is not UTF-8 text"),
    "json_invalid": (
        "Die Anfrage ist kein gültiges JSON (Zeile {line}, Spalte {column})",
        "the request is not valid JSON (line {line}, column {column})",
    ),
    "json_not_a_number": (
        "{value} ist keine Zahl, die der Tisch annimmt; nur endliche Zahlen",
        "{value} is not a number the table takes; finite numbers only",
    ),
    "json_too_deep": ("Die Anfrage ist zu tief verschachtelt", "the request is nested too deeply"),
    "invalid_input": ("Ungültige Eingabe: {problems}", "invalid input: {problems}"),
    "server_error": (
        "Interner Fehler; nichts wurde geändert. Details stehen im Server-Protokoll",
        "internal error; nothing was changed. The server log has the details",
    ),
    # request bodies (service.schemas)
    "rules_too_many": ("Zu viele Regeln (höchstens 40 Schalter)", "too many rules (at most 40 switches)"),
    "rules_preset_text": (
        "preset muss Text sein, z. B. 'tournament' oder 'pub'",
        "preset must be text, e.g. 'tournament' or 'pub'",
    ),
    "rules_switch_bool": ("Schalter {switch!r} muss true oder false sein", "switch {switch!r} must be true or false"),
    "length_one": (
        "Nur eine Länge angeben (games, rounds oder target), nicht {given}",
        "give one length (games, rounds or target), not {given}",
    ),
    "players_count": (
        "Eine Partie braucht 4 oder 5 Spieler (zu fünft setzt der Geber aus), nicht {count}",
        "a Partie needs 4 or 5 players (with five, the dealer sits out each game), got {count}",
    ),
    "first_dealer_range": (
        "first_dealer ist ein Platz in players (0..{last}), nicht {given}",
        "first_dealer is a position in players (0..{last}), got {given}",
    ),
    "names_length": (
        "Jeder Spieler braucht einen Namen mit 1 bis 40 Zeichen",
        "every player needs a name of 1 to 40 characters",
    ),
    "names_differ": ("Die Namen der Spieler müssen verschieden sein", "player names must differ"),
    "contract_declarer": (
        "{type} braucht den Platz des Spielers, der sie ansagt",
        "a {type} needs its declarer's seat",
    ),
    "contract_solo_kind": (
        "Ein Solo braucht seine Art: queens, jacks, fleischlos, clubs, spades, hearts oder diamonds",
        "a solo needs its kind: queens, jacks, fleischlos, clubs, spades, hearts or diamonds",
    ),
    "contract_kind_only_solo": ("Nur ein Solo hat eine Art, {type} nicht", "only a solo has a kind; a {type} does not"),
    "contract_armut_partner": (
        "Eine Armut braucht den Platz des Spielers, der sie mitnimmt",
        "an Armut needs the seat of the player who takes it",
    ),
    "contract_partner_only_armut": ("Nur eine Armut hat einen Partner", "only an Armut has a partner"),
    "contract_normal_declarer": ("Ein Normalspiel hat keinen Ansager", "a normal game has no declarer"),
    # the token (service.deps)
    "token_needed": (
        "Dieser Tisch nimmt Änderungen nur mit seinem Token an (beim Start des Servers angezeigt): "
        "als 'Authorization: Bearer <Token>' oder Feld 'token' senden",
        "this table takes changes only with its token (printed where the server was started): "
        "send 'Authorization: Bearer <token>' or a 'token' field",
    ),
    "token_wrong": (
        "Falsches Tisch-Token; der Gastgeber kennt das beim Start angezeigte Token",
        "wrong table token; ask the host for the token printed at start",
    ),
    # reading
    "no_game": (
        "Kein Spiel läuft; eine Partie mit POST /partie starten",
        "no game is running; start a Partie with POST /partie",
    ),
    "no_partie": ("Noch keine Partie; eine mit POST /partie starten", "no Partie yet; start one with POST /partie"),
    "no_such_game": (
        "Kein Spiel {number} in dieser Partie; GET /partie listet die Spiele der Liste",
        "no game {number} in this Partie; GET /partie lists the games on the sheet",
    ),
    "no_such_partie": (
        "Keine Partie {number}; GET /parties listet sie",
        "no Partie {number}; GET /parties lists them",
    ),
    "no_frame": ("Noch kein Kamerabild", "no camera image yet"),
    "frame_gone": (
        "Bild {index} ist nicht mehr vorhanden; /frame.jpg zeigt das neueste",
        "frame {index} is no longer kept; load /frame.jpg for the newest",
    ),
    # undo and corrections (service.scorekeeper)
    "nothing_to_undo": (
        "Nichts zurückzunehmen: in diesem Spiel hat noch niemand etwas eingegeben",
        "nothing to undo: nobody has entered anything in this game yet",
    ),
    "undo_camera": (
        "Ereignis {id} kommt von der Kamera: Kamerakarten werden berichtigt, nicht zurückgenommen",
        "event {id} comes from the camera: camera cards are corrected, not undone",
    ),
    "undo_not_undoable": (
        "Ereignis {id} ({kind}) kann nicht zurückgenommen werden",
        "event {id} ({kind}) cannot be taken back",
    ),
    "undo_not_in_force": (
        "Ereignis {id} gilt nicht (mehr) und kann nicht zurückgenommen werden",
        "event {id} is not in force and cannot be taken back",
    ),
    "no_such_event": ("Kein Ereignis {id} im Protokoll", "no event {id} in the log"),
    "no_such_card": (
        "Keine Karte mit Nummer {id} in dieser Partie; die Nummern stehen in event_id jeder Karte",
        "no card with id {id} in this Partie; the ids are in each play's event_id",
    ),
    "no_such_call": (
        "Keine Ansage mit Nummer {id} in dieser Partie",
        "no announcement with id {id} in this Partie",
    ),
    "not_doubted": (
        "Karte {id} ({card}) wartet auf keine Bestätigung",
        "card {id} ({card}) is not waiting for a confirmation",
    ),
    "correction_empty": (
        "Eine Berichtigung braucht die richtige Karte, den richtigen Spieler oder beides",
        "a correction needs the right card, the right seat, or both",
    ),
    "correction_same": (
        "Karte {id} ist schon {card} bei {player}; nichts zu berichtigen",
        "card {id} already is {card} at {player}; nothing to correct",
    ),
    "call_correction_empty": (
        "Eine Berichtigung der Ansage braucht den richtigen Spieler, die richtige Ansage oder beides",
        "a correction of an announcement needs the right player, the right call, or both",
    ),
    "call_correction_same": (
        "Ansage {id} ist schon {call} von {player}; nichts zu berichtigen",
        "announcement {id} already is {call} by {player}; nothing to correct",
    ),
    "partie_running": (
        "Eine Partie läuft; {action} geht erst danach",
        "a Partie is running; {action} only after it",
    ),
    "action_rules": ("die Regeln ändern", "changing the rules"),
    "action_partie": (
        "eine neue Partie starten (mit replace: true wird die laufende beendet)",
        "starting another Partie (send replace: true to end it)",
    ),
    "partie_over": (
        "Die Partie ist zu Ende; eine neue Partie starten, um weiterzuspielen",
        "the Partie is over; start a new Partie to play on",
    ),
    "forced_solo": (
        "{player} schuldet noch ein Pflichtsolo und ist Vorhand in der letzten Runde: "
        "dieses Spiel muss das Solo sein (Vorführung)",
        "{player} still owes a Pflichtsolo and is Vorhand in the last round: this game must be their solo (Vorführung)",
    ),
    "game_blocked": (
        "Spiel {number} ist aus, steht aber nicht auf der Liste ({why}); erst das berichtigen",
        "game {number} is over but not on the sheet ({why}); fix that first",
    ),
    "not_at_table": (
        "{name!r} sitzt nicht am Tisch; am Tisch: {players}",
        "{name!r} is not at the table; players: {players}",
    ),
    "not_applied": ("Nicht anwendbar: {why}", "cannot be applied: {why}"),
    "engine_refused": ("{why}", "{why}"),
    # a person's actions, as their undo buttons name them
    "act_call": ("{call} von {player}", "{call_en} by {player}"),
    "act_call_fix": ("Ansage berichtigt: {call} von {player}", "announcement corrected: {call_en} by {player}"),
    "act_contract": ("Spielart {contract}", "game type {contract}"),
    "act_card": ("{card} von {player} (von Hand)", "{code} by {player} (entered by hand)"),
    "act_card_fix": ("Berichtigung: {card} von {player}", "correction: {code} by {player}"),
    "act_confirm": ("Bestätigung: {card} von {player}", "confirmation: {code} by {player}"),
    "act_end": ("Spiel {number} ohne Wertung beendet", "game {number} ended without score"),
    "act_claim": (
        "Spielabkürzung: {player} beansprucht den Rest (Spiel {number})",
        "claim: {player} takes the rest (game {number})",
    ),
    "act_other": ("Ereignis {id} ({kind})", "event {id} ({kind})"),
    # what the camera asks a person to look at (the pipeline's reasons)
    "camera.incomplete_trick": (
        "Kamera: Stich {trick} ging unvollständig vom Tisch; fehlende Karte von Hand eintragen",
        "camera: trick {trick} left the table incomplete; enter the missing card by hand",
    ),
    "camera.card_withdrawn": (
        "Kamera: eine Karte in Stich {trick} wurde zurückgenommen",
        "camera: a card of trick {trick} was taken back",
    ),
    "camera.card_replaced": (
        "Kamera: eine Karte in Stich {trick} wurde ausgetauscht; bitte prüfen",
        "camera: a card of trick {trick} was replaced; please check",
    ),
    "camera.seats_changed": (
        "Kamera: die Plätze am Tisch scheinen vertauscht; bitte prüfen",
        "camera: the places at the table seem swapped; please check",
    ),
    "camera.card_revised": (
        "Kamera: Stich {trick}, {player}: {card}, nicht {old}",
        "camera: trick {trick}, {player}: {code}, not {old_code}",
    ),
    "camera.other": ("Kamera: bitte prüfen ({kind})", "camera: please check ({kind})"),
    # the camera feed
    "feed_stopped": (
        "Die Kamera ist ausgefallen; Näheres im Server-Protokoll",
        "the camera feed stopped; see the server log",
    ),
    "feed_ended": ("Die Quelle ist zu Ende", "the source has ended"),
    "feed_refused": (
        "Kamera: {kind} bei {time:.1f} s nicht übernommen: {why}",
        "camera: {kind} at {time:.1f}s not applied: {why}",
    ),
    "feed_resumed": (
        "Quelle ab {seconds:.1f} s fortgesetzt (so weit stand das Protokoll)",
        "source resumed at {seconds:.1f}s (where the log left off)",
    ),
    # the deck desk (service.deckdesk)
    "deck_name_bad": (
        "Deckname {name!r} geht nicht: bis zu 40 Buchstaben, Ziffern, - und _, "
        "am Anfang ein Buchstabe oder eine Ziffer",
        "deck name {name!r} is not allowed: up to 40 letters, digits, - and _, starting with a letter or digit",
    ),
    "deck_busy": (
        "Am Deck wird gerade gearbeitet ({state}: {name}); warte, bis es fertig ist",
        "the deck desk is busy ({state}: {name}); wait until it is done",
    ),
    "deck_no_frame": (
        "Kein Kamerabild da; lade ein Foto hoch (z. B. mit dem Handy)",
        "no camera image yet; upload a photo (e.g. from a phone)",
    ),
    "deck_nothing_to_confirm": (
        "Nichts zu bestätigen ({state}); erst ein Foto der Auslage aufnehmen",
        "nothing to confirm ({state}); take a photo of the layout first",
    ),
    "deck_refused": ("{why}", "{why}"),
    "deck_kreuz_unknown": (
        "Die Karten verraten nicht, wie herum das Foto liegt. Wähle auf dieser Seite bei „Kreuz-Reihe liegt“, "
        "wo die Kreuz-Reihe auf dem Foto liegt ({sides}); das Foto wird damit noch einmal gelesen",
        "the cards do not tell which way round the photo is; choose under 'Kreuz-Reihe liegt' on this page "
        "where the Kreuz row lies in the photo ({sides_en}) and the photo is read again",
    ),
    "deck_kreuz_impossible": (
        "Die Kreuz-Reihe kann auf diesem Foto nicht {kreuz} liegen. Wähle bei „Kreuz-Reihe liegt“ {sides}",
        "the Kreuz row cannot lie at the {kreuz} side of this photo; choose {sides_en} under 'Kreuz-Reihe liegt'",
    ),
    "deck_kreuz_no_photo": (
        "Kein abgelehntes Foto da, das mit einer Kreuz-Seite noch einmal gelesen werden kann ({state}); "
        "nimm ein Foto der Auslage auf",
        "there is no refused photo to read again with a Kreuz side ({state}); take a photo of the layout",
    ),
    "deck_unsure_unchecked": (
        "Erst die unsicheren Plätze prüfen ({count}, unter „Bitte prüfen“) und „Geprüft“ ankreuzen, dann bestätigen",
        "check the unsure places first ({count}, under 'Bitte prüfen') and tick 'Geprüft', then confirm",
    ),
    "deck_not_adapted": (
        "Deck {name!r} ist noch nicht angepasst; auf der Deck-Seite neu anlernen oder `dokocam deck adapt {name}`",
        "deck {name!r} is not adapted yet; enrol it again on the Deck page or run `dokocam deck adapt {name}`",
    ),
    "deck_upload_bad": (
        "Das Foto kam nicht an: ein Formular mit den Feldern name und photo (eine Bilddatei) senden",
        "the photo did not arrive: send a form with the fields name and photo (an image file)",
    ),
    "deck_photo_too_large": (
        "Das Foto ist zu groß (höchstens {limit} MiB)",
        "the photo is too large (at most {limit} MiB)",
    ),
}


PREFIX = "service."
register({PREFIX + key: texts for key, texts in TEXTS.items()})


class Text(Message):
    """One of the service's messages: ``Text("no_such_event", id=7)`` is ``Message("service.no_such_event", id=7)``.

    >>> Text("no_such_event", id=7).de, Text("no_such_event", id=7).code
    ('Kein Ereignis 7 im Protokoll', 'no_such_event')
    """

    __slots__ = ()

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(PREFIX + key, **params)

    @property
    def code(self) -> str:
        """The key without the service's prefix, as error replies name it."""
        return self.key.removeprefix(PREFIX)


class TextError(ValueError):
    """A refusal with its message (the service's or the engine's); ``str()`` is the German text.

    Args:
        text: the message.
        names: the players in the engine's seat order, so "Platz 2" reads as a name.
    """

    def __init__(self, text: Message, names: Sequence[str] | None = None) -> None:
        super().__init__(text.text("de", names))
        self.text = text
        self.names = names

    @property
    def de(self) -> str:
        return self.text.text("de", self.names)

    @property
    def en(self) -> str:
        return self.text.text("en", self.names)


class Bilingual:
    """A message parameter that is already text in both languages (a note the replay wrote)."""

    def __init__(self, de: str, en: str) -> None:
        self.de, self.en = de, en

    def name_in(self, lang: str) -> str:
        return self.de if lang == "de" else self.en


def code_of(message: Message) -> str:
    return message.key.removeprefix(PREFIX)


def error_body(text: Message, names: Sequence[str] | None = None) -> dict[str, str]:
    """The JSON body of an error reply: German ``detail``, English ``detail_en``, the message ``code``."""
    return {"detail": text.text("de", names), "detail_en": text.text("en", names), "code": code_of(text)}
