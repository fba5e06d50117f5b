"""The one catalogue of the rules' words: message keys -> German and English texts with parameters.

Every sentence the engine says (errors, flags, score items, names of parties and calls) is a key
here. A text is a ``str.format`` template; its parameters are rendered per language:

- a ``Seat`` is ``Platz 2`` / ``seat 2``, or the player's name when ``names`` are given;
- a value with a ``name_in(lang)`` method (``Card``, ``Party``, ``Call``, ``FlagKind``,
  ``ItemKind``, ``Message``) says its own name in that language (``Kreuz-Dame`` / ``QC``);
- anything else is formatted as it is.

Errors and flags carry a ``Message`` (key + parameters); ``str()`` of an engine error is its
English text, ``.de`` its German one.

Other parts extend the catalogue for their own words with ``register`` and look any key up with
``text`` (a key may be registered once; the same texts again are accepted):

>>> register({"demo.hello": ("Hallo {seat}", "hello {seat}")})
>>> text("demo.hello", seat=Seat(2)), text("demo.hello", "en", seat=Seat(2))
('Hallo Platz 2', 'hello seat 2')
>>> text("demo.hello", names=("Anna", "Ben", "Cem", "Dora"), seat=Seat(2))
'Hallo Cem'
>>> Message("game_over", tricks=12, card="QC").en
'the game is over after 12 tricks; QC cannot be played'
>>> text("no.such.key")
Traceback (most recent call last):
...
KeyError: "no message 'no.such.key' in the catalogue"
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = ["LANGS", "Lang", "Seat", "Message", "Named", "CATALOGUE", "register", "text", "render"]

Lang = Literal["de", "en"]
#: The languages of the catalogue, German first.
LANGS: tuple[Lang, ...] = ("de", "en")


class Seat(int):
    """A game seat (0..3) as a message parameter: ``Platz 2`` / ``seat 2``, or the player's name."""

    def __repr__(self) -> str:
        return f"Seat({int(self)})"


@runtime_checkable
class Named(Protocol):
    """A value that says its own name per language."""

    def name_in(self, lang: Lang) -> str: ...


# key -> (German, English). Terms of the game (Re, Kontra, keine 90, Fuchs) stay German in English.
CATALOGUE: dict[str, tuple[str, str]] = {
    # -- names ------------------------------------------------------------------------------
    "seat": ("Platz {n}", "seat {n}"),
    "suit.0": ("Kreuz", "C"),
    "suit.1": ("Pik", "S"),
    "suit.2": ("Herz", "H"),
    "suit.3": ("Karo", "D"),
    "suit.4": ("Trumpf", "trump"),
    # -- cards, rules, contracts (bad input) --------------------------------------------------
    "card_code": (
        "{text!r} ist kein Kartencode; erwartet Rang 9 10 J Q K A + Farbe C S H D, z. B. QC oder 10H",
        "{text!r} is not a card code; expected rank 9 10 J Q K A + suit C S H D, e.g. QC or 10H",
    ),
    "card_index": ("Kartennummer {index!r} liegt nicht in 0..23", "card index {index!r} is outside 0..23"),
    "rules_object": (
        "Die Regeln sind ein Objekt wie {{'preset': 'tournament'}}, nicht {given!r}",
        "rules must be an object like {{'preset': 'tournament'}}, not {given!r}",
    ),
    "rules_preset": (
        "Unbekannte Regelvorgabe {preset!r}; erwartet eine von {known}",
        "unknown rules preset {preset!r}; expected one of {known}",
    ),
    "rules_switch": (
        "Unbekannter Regelschalter {switch!r}; bekannte Schalter: {known}",
        "unknown rule switch {switch!r}; known switches: {known}",
    ),
    "rules_bool": (
        "Regelschalter {switch!r} ist true oder false, nicht {value!r}",
        "rule switch {switch!r} must be true or false, not {value!r}",
    ),
    "rules_choice": (
        "Regelschalter {switch!r} ist einer von {known}, nicht {value!r}",
        "rule switch {switch!r} must be one of {known}, not {value!r}",
    ),
    "contract_object": (
        "Die Spielart ist ein Objekt wie {{'type': 'normal'}}, nicht {given!r}",
        "a contract must be an object like {{'type': 'normal'}}, not {given!r}",
    ),
    "contract_type": (
        "Unbekannte Spielart {given!r}; erwartet eine von {known}",
        "unknown contract type {given!r}; expected one of {known}",
    ),
    "solo_kind": (
        "Unbekannte Soloart {given!r}; erwartet eine von {known}",
        "unknown solo kind {given!r}; expected one of {known}",
    ),
    "seat_value": ("{what} ist ein Platz 0..3, nicht {value!r}", "{what} must be a seat 0..3, not {value!r}"),
    "armut_partner": (
        "Der Armut-Partner ist ein anderer Spieler als der Ansager",
        "an Armut partner must be another player than the declarer",
    ),
    "pflichtsolo_flag": (
        "pflichtsolo ist true oder false und nur bei einem Solo erlaubt, nicht {value!r}",
        "pflichtsolo is true or false and only for a solo, not {value!r}",
    ),
    # -- setting up a game --------------------------------------------------------------------
    "players_four": ("Ein Spiel hat 4 Spieler, nicht {n}", "a game has 4 players, got {n}"),
    "armut_off": (
        "Armut wird mit diesen Regeln nicht gespielt; den Schalter 'armut' setzen",
        "Armut is not played under these rules; set the 'armut' switch",
    ),
    "needs_both_qc": (
        "Eine {contract} braucht beide Kreuz-Damen auf der Hand von {seat}",
        "a {contract} needs both Kreuz-Damen in the hand of {seat}",
    ),
    "strict_needs_hands": ("Ein strenges Spiel braucht die Hände", "a strict game needs the hands"),
    "hands_four": ("Es sind 4 Hände anzugeben, nicht {n}", "hands must list 4 hands, got {n}"),
    "hand_size": (
        "Die Hand von {seat} hat {size} Karten; erwartet {expected}",
        "hand of {seat} has {size} cards; expected {expected}",
    ),
    "hands_copies": (
        "Die Hände enthalten {card} {n}-mal; das Blatt hat sie {copies}-mal",
        "the hands hold {card} {n} times; the deck holds {copies}",
    ),
    "hands_unknown": (
        "Die Hände sind nicht bekannt; das Spiel mit hands=... anlegen",
        "the hands are not known; build the game with hands=...",
    ),
    # -- plays --------------------------------------------------------------------------------
    "seat_range": ("Der Platz ist 0..3, nicht {seat!r}", "seat must be 0..3, not {seat!r}"),
    "game_over": (
        "Das Spiel ist nach {tricks} Stichen aus; {card} kann nicht mehr gespielt werden",
        "the game is over after {tricks} tricks; {card} cannot be played",
    ),
    "not_to_move": (
        "{seat} spielte {card}, aber {to_move} ist am Zug",
        "{seat} played {card} but {to_move} is to move",
    ),
    "not_held": ("{seat} hat {card} nicht auf der Hand", "{seat} does not hold {card}"),
    "must_follow": (
        "{seat} muss {led} bedienen und darf {card} nicht spielen",
        "{seat} must follow {led} and cannot play {card}",
    ),
    "no_trick_to_close": ("Es liegt kein Stich zum Schließen", "there is no trick in progress to close"),
    # -- Spielabkürzung (DDV 5.4) -------------------------------------------------------------
    "claim_mid_trick": (
        "{seat} kann die restlichen Stiche erst beanspruchen, wenn der laufende Stich vollständig ist",
        "{seat} can claim the remaining tricks only once the current trick is complete",
    ),
    "claim_over": ("Das Spiel ist aus; es bleibt nichts zu beanspruchen", "the game is over; nothing is left to claim"),
    "claim_hochzeit": (
        "{seat} kann erst nach dem Klärungsstich der Hochzeit abkürzen",
        "{seat} can claim only after the Hochzeit's Klärungsstich",
    ),
    "claim_sau": (
        "{seat} kann erst abkürzen, wenn die zweite Pik-Dame gefallen ist (schwarze Sau)",
        "{seat} can claim only after the second Pik-Dame has fallen (schwarze Sau)",
    ),
    # -- calls --------------------------------------------------------------------------------
    "not_a_call": (
        "{given!r} ist keine Ansage; erwartet eine von {known}",
        "{given!r} is not a call; expected one of {known}",
    ),
    "call_refused": ("{seat} kann nicht {call} sagen: {why}", "{seat} cannot say {call}: {why}"),
    "why.over": ("das Spiel ist aus", "the game is over"),
    "why.hochzeit_open": (
        "vor dem Klärungsstich der Hochzeit gibt es keine Ansagen (DDV 6.4.2)",
        "no announcement before the Hochzeit's Klärungsstich (DDV 6.4.2)",
    ),
    "why.cards": (
        "nur noch {held} Karten auf der Hand, {call} braucht mindestens {required}",
        "it holds {held} cards, {call} needs at least {required}",
    ),
    "why.cards_reply": (
        "nur noch {held} Karten auf der Hand, {call} braucht mindestens {required} "
        "(oder {reply}, um auf {other} zu antworten)",
        "it holds {held} cards, {call} needs at least {required} (or {reply} to reply to {other})",
    ),
    "why.trick": (
        "{call} ist nur bis zum Ende von Stich {trick} möglich",
        "{call} can be said only until the end of trick {trick}",
    ),
    "why.trick_reply": (
        "{call} ist nur bis zum Ende von Stich {trick} möglich (oder Stich {reply}, um auf {other} zu antworten)",
        "{call} can be said only until the end of trick {trick} (or trick {reply} to reply to {other})",
    ),
    "why.both_said": (
        "beide Parteien haben schon {call} oder mehr gesagt",
        "both parties already said {call} or more",
    ),
    "why.other_party": ("{seat} gehört zur Partei {party}", "{seat} is in the {party} party"),
    "why.said_already": ("die Partei {party} hat es schon gesagt", "the {party} party already said it"),
    "why.not_announced": (
        "die Partei {party} hat noch nicht {party} angesagt",
        "the {party} party has not announced {party} yet",
    ),
    "why.said_higher": ("die Partei {party} hat schon {top} gesagt", "the {party} party already said {top}"),
    "why.both_known": (
        "beide Spieler der Partei {party} sind schon bekannt",
        "both {party} players are already known",
    ),
    "why.nobody_announced": (
        "noch keine Partei hat Re oder Kontra angesagt",
        "no party has announced Re or Kontra yet",
    ),
    "schweinchen_refused": ("{seat} kann nicht Schweinchen sagen: {why}", "{seat} cannot say Schweinchen: {why}"),
    "why.schweinchen_off": (
        "mit diesen Regeln in einem {contract} nicht gespielt",
        "not played under these rules in a {contract}",
    ),
    "why.fox_played": ("{other} hat ein Karo-Ass gespielt", "{other} played a Karo-Ass"),
    "why.fox_missing": ("nicht beide Karo-Asse auf der Hand", "it does not hold both Karo-Asse"),
    # -- flags --------------------------------------------------------------------------------
    "flag.out_of_turn": (
        "{seat} spielte {card} in Stich {trick}, aber {to_move} war am Zug",
        "{seat} played {card} in trick {trick} but {to_move} was to move",
    ),
    "flag.third_copy": (
        "{card} {n}-mal gesehen; das Blatt hat sie {copies}-mal",
        "{card} seen {n} times; the deck holds {copies}",
    ),
    "flag.renege": (
        "{seat} hat in Stich {trick} {suit} nicht bedient, spielte aber später {card}",
        "{seat} did not follow {suit} in trick {trick} but later played {card}",
    ),
    "flag.incomplete_trick": (
        "Stich {trick} wurde mit {n} von 4 Karten geschlossen",
        "trick {trick} was closed with {n} of 4 cards",
    ),
    "flag.not_held": ("{seat} hat {card} nicht auf der Hand", "{seat} does not hold {card}"),
    "flag.party_conflict": (
        "Die Parteien passen nicht zusammen: {why} ({events}); kein Ergebnis, bis das berichtigt ist",
        "the parties do not fit together: {why} ({events}); no result until that is corrected",
    ),
    "event.play": ("Stich {trick}: {seat} spielt {card}", "trick {trick}: {seat} plays {card}"),
    "event.call": ("Stich {trick}: {seat} sagt {call}", "trick {trick}: {seat} says {call}"),
    "conflict.third_qc": (
        "{n} Kreuz-Damen gespielt, von {seats}",
        "{n} Kreuz-Damen were played, by {seats}",
    ),
    "conflict.qc_missing": (
        "nur {n} Kreuz-Dame(n) gesehen und die Ansagen nennen keine zwei Re-Spieler",
        "only {n} Kreuz-Dame(n) seen and the calls name no two Re players",
    ),
    "conflict.call": (
        "{seat} sagte {call}, gehört nach den Kreuz-Damen aber zur Partei {party}",
        "{seat} said {call} but the Kreuz-Damen put it in the {party} party",
    ),
    "conflict.too_many_re": (
        "{seats} wären alle Re",
        "{seats} would all be Re",
    ),
    "conflict.hochzeit_qc": (
        "{seat} spielte eine Kreuz-Dame, aber {declarer} hat beide ({contract})",
        "{seat} played a Kreuz-Dame but {declarer} holds both ({contract})",
    ),
    "unresolved": (
        "Kein Ergebnis: {flag}",
        "no result: {flag}",
    ),
    "not_over": (
        "Das Spiel ist noch nicht aus: {done} von {total} Stichen gespielt",
        "the game is not over: {done} of {total} tricks played",
    ),
    # -- records ------------------------------------------------------------------------------
    "record.event": ("Ereignis {i}: {why}", "event {i}: {why}"),
    "record.setup": ("Spielbeschreibung: {why}", "record: {why}"),
    "record.field": ("{field}: {why}", "{field}: {why}"),
    "record.unreadable": ("{path} kann nicht gelesen werden: {why}", "cannot read {path}: {why}"),
    "record.not_json": (
        "{path} ist kein JSON: {why} in Zeile {line}, Spalte {column}",
        "{path} is not JSON: {why} at line {line} column {column}",
    ),
    "record.not_object": ("Eine Spielbeschreibung ist ein JSON-Objekt", "a game record must be a JSON object"),
    "record.format": ("format muss {expected!r} sein, nicht {given!r}", "format must be {expected!r}, not {given!r}"),
    "record.players": (
        "players ist eine Liste von 4 Namen, nicht {given!r}",
        "players must be a list of 4 names, not {given!r}",
    ),
    "record.events": ("events ist eine Liste", "events must be a list"),
    "record.hands": ("hands sind 4 Listen von Kartencodes", "hands must be 4 lists of card codes"),
    "record.bock": (
        "bock ist eine ganze Zahl >= 0, nicht {given!r}",
        "bock must be a whole number >= 0, not {given!r}",
    ),
    "record.event_object": (
        "ein Ereignis ist ein Objekt wie {{'seat': 0, 'play': 'AC'}}, nicht {given!r}",
        "must be an object like {{'seat': 0, 'play': 'AC'}}, not {given!r}",
    ),
    "record.event_kind": (
        "braucht genau eines von 'play', 'call', 'announce' oder 'claim'",
        "needs exactly one of 'play', 'call', 'announce' or 'claim'",
    ),
    "record.event_seat": ("seat ist 0..3, nicht {given!r}", "seat must be 0..3, not {given!r}"),
}


class Message:
    """A message by key with its parameters; ``de``/``en`` render it, ``str()`` is the English text.

    Hashable and comparable (key and parameters), so flags that carry one stay values.
    """

    __slots__ = ("key", "params")

    def __init__(self, key: str, **params: Any) -> None:
        if key not in CATALOGUE:
            raise KeyError(f"no message {key!r} in the catalogue")
        self.key = key
        self.params: dict[str, Any] = params

    def text(self, lang: Lang = "de", names: Sequence[str] | None = None) -> str:
        """The message in ``lang``; seats as the ``names`` of the players when given."""
        return text(self.key, lang, names=names, **self.params)

    def name_in(self, lang: Lang) -> str:
        return self.text(lang)

    @property
    def de(self) -> str:
        return self.text("de")

    @property
    def en(self) -> str:
        return self.text("en")

    def __str__(self) -> str:
        return self.en

    def __repr__(self) -> str:
        params = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"Message({self.key!r}{params})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Message):
            return self.key == other.key and self.params == other.params
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.key, tuple(sorted((k, repr(v)) for k, v in self.params.items()))))


def register(entries: Mapping[str, tuple[str, str]]) -> None:
    """Add keys to the catalogue (e.g. the service's own words).

    Raises:
        ValueError: a key is already there with other texts, or an entry is not (German, English).
    """
    for key, texts in entries.items():
        if not (isinstance(texts, tuple) and len(texts) == 2 and all(isinstance(t, str) for t in texts)):
            raise ValueError(f"message {key!r} must be a pair (German, English), not {texts!r}")
        known = CATALOGUE.get(key)
        if known is not None and known != texts:
            raise ValueError(f"message {key!r} is already in the catalogue with other texts")
        CATALOGUE[key] = texts


def render(value: Any, lang: Lang = "de", names: Sequence[str] | None = None) -> str:
    """One parameter as it reads in ``lang`` (see the module docstring)."""
    if isinstance(value, Seat):
        if names is not None and 0 <= value < len(names):
            return names[value]
        return text("seat", lang, n=int(value))
    if isinstance(value, Message):
        return value.text(lang, names)
    if isinstance(value, Named):
        return value.name_in(lang)
    if isinstance(value, (list, tuple)) and value and not isinstance(value, str):
        return ", ".join(render(v, lang, names) for v in value)
    return str(value)


def text(key: str, lang: Lang = "de", *, names: Sequence[str] | None = None, **params: Any) -> str:
    """The text of ``key`` in ``lang`` with ``params`` filled in.

    Raises:
        KeyError: the key is not in the catalogue, or the text needs a parameter not given.
    """
    try:
        de, en = CATALOGUE[key]
    except KeyError:
        raise KeyError(f"no message {key!r} in the catalogue") from None
    template = de if lang == "de" else en
    values = {k: _Param(v, render(v, lang, names)) for k, v in params.items()}
    return template.format_map(values)


class _Param:
    """A parameter that formats as its rendered text and keeps its raw ``repr`` for ``!r``."""

    __slots__ = ("raw", "shown")

    def __init__(self, raw: Any, shown: str) -> None:
        self.raw = raw
        self.shown = shown

    def __format__(self, spec: str) -> str:
        if spec and isinstance(self.raw, (int, float)) and not isinstance(self.raw, (bool, Seat)):
            return format(self.raw, spec)
        return format(self.shown, spec)

    def __repr__(self) -> str:
        return repr(self.raw)

    def __str__(self) -> str:
        return self.shown
