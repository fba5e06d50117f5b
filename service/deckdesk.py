"""The dashboard's deck desk: enrol a deck from one photo, let the players confirm, adapt, switch the table.

One enrolment at a time walks ``idle -> enrolling -> review (or refused) -> adapting -> done (or failed)``.
Enrolment (finding and rectifying the 24 faces) runs on a worker thread; adaptation runs in a
separate process at low priority with one torch thread, so it never starves the live camera. The
table is switched to the new deck through the log (a ``deck_set`` event), as every change is.
"""

from __future__ import annotations

import io
import logging
import multiprocessing
import os
import queue
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from dokocam.service.scorekeeper import Scorekeeper
from dokocam.service.table import DECK_NAME, DECK_SET
from dokocam.service.texts import Bilingual, Text, TextError
from dokocam.vision.decks.adapt import AdaptConfig

log = logging.getLogger(__name__)

MAX_PHOTO = 20 * 1024 * 1024  # a phone's full-resolution JPEG is 3-8 MiB
NICE = 10  # the adaptation process's priority below the camera's


class DeskBusy(TextError):
    """The desk is doing something else (an enrolment or an adaptation runs): HTTP 409."""


class UnknownDeck(TextError):
    """No enrolled deck of that name: HTTP 404."""


@dataclass
class Job:
    """The enrolment the desk works on, as the page shows it.

    Attributes:
        state: ``idle``, ``enrolling``, ``review``, ``refused``, ``adapting``, ``done`` or ``failed``.
        name: the deck's name.
        message: why it was refused or failed, German then English.
        faces: card code -> PNG of the rectified face (in ``review`` and after).
        unsure: places the check read unsurely as another card (German, English), to confirm.
        turn: the side of the photo the Kreuz row lay on.
        photo: the photo, kept while it is refused for its orientation so a Kreuz side can re-read it.
        kreuz_sides: refused for its orientation: the sides the Kreuz row can lie on in the photo.
        progress: the adaptation's stage, steps done and total, and the fraction of all of it.
    """

    state: str = "idle"
    name: str | None = None
    message: tuple[str, str] | None = None
    faces: dict[str, bytes] = field(default_factory=dict)
    raw: dict[str, np.ndarray] = field(default_factory=dict)
    unsure: list[tuple[str, str]] = field(default_factory=list)
    turn: str | None = None
    photo: bytes = b""
    kreuz_sides: tuple[str, ...] = ()
    progress: dict[str, Any] = field(default_factory=dict)


def _split(text: str) -> tuple[str, str]:
    """A vision message ("German\\nEnglish") as its two languages."""
    german, _, english = text.partition("\n")
    return german, english or german


class DeckDesk:
    """Enrols and adapts decks for one table.

    Args:
        table: the table whose log records which deck is in use.
        adapt: how the adaptation trains (tiny in tests).
        nice: how far below the camera's priority the adaptation's process runs (``os.nice``); 0 runs it
            beside the camera as an equal, which only a test without a camera wants.
    """

    def __init__(self, table: Scorekeeper, adapt: AdaptConfig | None = None, *, nice: int = NICE) -> None:
        self.table = table
        self.adapt = adapt or AdaptConfig()
        self.nice = nice
        self._job = Job()
        self._lock = threading.Lock()
        self._reader: object | None = None
        self._process: Any = None

    # -- reading ------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """The enrolment as ``schemas.EnrolmentPublic`` (faces as URLs)."""
        with self._lock:
            job = self._job
            return {
                "phase": job.state,
                "name": job.name,
                "message": job.message[0] if job.message else None,
                "message_en": job.message[1] if job.message else None,
                "faces": [{"code": code, "url": f"/decks/enrolment/faces/{code}.png"} for code in job.faces],
                "unsure": [{"message": de, "message_en": en} for de, en in job.unsure],
                "turn": job.turn,
                "kreuz_sides": list(job.kreuz_sides),
                "progress": dict(job.progress),
                "deck": self.table.state.deck,
            }

    def face(self, code: str) -> bytes | None:
        with self._lock:
            return self._job.faces.get(code)

    def decks(self) -> list[dict[str, Any]]:
        """The enrolled decks (``schemas.DeckPublic``)."""
        from dokocam.vision.decks.store import list_decks

        in_use = self.table.state.deck
        return [
            {
                "name": d.name,
                "created": d.manifest.get("created"),
                "source": d.manifest.get("source"),
                "adapted": bool(d.adapted),
                "in_use": d.name == in_use,
            }
            for d in list_decks()
        ]

    # -- enrolling ----------------------------------------------------------------------

    def enrol(self, name: str, photo: bytes, *, kreuz: str | None = None) -> dict[str, Any]:
        """Starts enrolling ``photo`` (encoded image bytes) as deck ``name`` on a worker thread.

        Raises:
            DeskBusy: an enrolment or adaptation is running.
            TextError: the name is not allowed.
        """
        if not DECK_NAME.match(name):
            raise TextError(Text("deck_name_bad", name=name[:60]))
        with self._lock:
            if self._job.state in ("enrolling", "adapting"):
                raise DeskBusy(Text("deck_busy", state=self._job.state, name=self._job.name or "?"))
            self._job = Job(state="enrolling", name=name)
        threading.Thread(target=self._enrol, args=(name, photo, kreuz), name="enrol", daemon=True).start()
        return self.status()

    def enrol_with_kreuz(self, kreuz: str) -> dict[str, Any]:
        """Reads the photo refused for its orientation again, with the Kreuz row on side ``kreuz`` (``enrol``).

        Raises:
            DeskBusy: no photo refused for its orientation is waiting.
            TextError: as ``enrol``.
        """
        with self._lock:
            job = self._job
            if job.state != "refused" or not job.kreuz_sides or job.name is None:
                raise DeskBusy(Text("deck_kreuz_no_photo", state=job.state))
            name, photo = job.name, job.photo
            self._job = Job()  # ``enrol`` checks the desk is free and takes it again
        return self.enrol(name, photo, kreuz=kreuz)

    def enrol_from_camera(self, name: str, *, kreuz: str | None = None) -> dict[str, Any]:
        """Enrols the camera's newest frame (``enrol``).

        Raises:
            DeskBusy, TextError: as ``enrol``; TextError also when the camera has shown no frame.
        """
        frame = self.table.frame()
        if frame is None or not frame.jpeg:
            raise TextError(Text("deck_no_frame"))
        return self.enrol(name, frame.jpeg, kreuz=kreuz)

    def _enrol(self, name: str, photo: bytes, kreuz: str | None) -> None:
        from dokocam.vision.decks.enrol import EnrolmentError, OrientationError, enrol_grid, shipped_reader

        try:
            image = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_COLOR)
            if image is None:
                raise EnrolmentError(
                    "Das ist kein lesbares Foto (JPEG oder PNG).\nThat is not a photo that can be read (JPEG or PNG)."
                )
            if self._reader is None:
                self._reader = shipped_reader()
            enrolment = enrol_grid(image, reader=self._reader, kreuz=kreuz)
        except OrientationError as exc:
            # The page offers the sides; the CLI's --kreuz in the vision message means nothing there.
            sides = exc.sides
            ask = (
                Text("deck_kreuz_unknown", sides=" oder ".join(sides), sides_en=" or ".join(sides))
                if kreuz is None
                else Text("deck_kreuz_impossible", kreuz=kreuz, sides=" oder ".join(sides), sides_en=" or ".join(sides))
            )

            def ask_side(job: Job) -> None:
                _refuse(job, f"{ask.de}\n{ask.en}")
                job.photo, job.kreuz_sides = photo, sides

            self._finish_enrolment(name, ask_side)
            return
        except (EnrolmentError, ValueError) as exc:
            why = str(exc)
            self._finish_enrolment(name, lambda job: _refuse(job, why))
            return
        except Exception as exc:  # the desk must come back to a state the page can leave
            log.exception("enrolment of %s failed", name)
            why = f"Fehler: {exc}\nerror: {exc}"
            self._finish_enrolment(name, lambda job: _refuse(job, why, "failed"))
            return
        faces = {code: cv2.imencode(".png", face)[1].tobytes() for code, face in enrolment.faces.items()}

        def review(job: Job) -> None:
            job.state, job.raw, job.faces, job.turn = "review", enrolment.faces, faces, enrolment.turn
            job.unsure = [_split(line) for line in enrolment.unsure]

        self._finish_enrolment(name, review)

    def _finish_enrolment(self, name: str, change: Callable[[Job], None]) -> None:
        with self._lock:
            if self._job.state == "enrolling" and self._job.name == name:
                change(self._job)

    def cancel(self) -> dict[str, Any]:
        """Drops an enrolment waiting for confirmation (or its refusal); nothing is saved.

        Raises:
            DeskBusy: an adaptation runs (it finishes or fails on its own).
        """
        with self._lock:
            if self._job.state in ("enrolling", "adapting"):
                raise DeskBusy(Text("deck_busy", state=self._job.state, name=self._job.name or "?"))
            self._job = Job()
        return self.status()

    # -- adapting -----------------------------------------------------------------------

    def confirm(self, *, unsure_checked: bool = False) -> dict[str, Any]:
        """The players confirmed the faces: stores the deck and adapts it in a low-priority process.

        Args:
            unsure_checked: the players looked at the places read unsurely and say they are right; without
                it an enrolment with unsure places is not confirmed.

        Raises:
            DeskBusy: there is nothing waiting for confirmation.
            TextError: unsure places not said to be checked (the enrolment waits on).
        """
        with self._lock:
            job = self._job
            if job.state != "review" or job.name is None:
                raise DeskBusy(Text("deck_nothing_to_confirm", state=job.state))
            if job.unsure and not unsure_checked:
                raise TextError(Text("deck_unsure_unchecked", count=len(job.unsure)))
            job.state = "adapting"
            job.progress = {"stage": "start", "done": 0, "total": 0, "fraction": 0.0}
            manifest = {"source": "grid", "kreuz": job.turn, "unsure": ["\n".join(u) for u in job.unsure]}
            args = (job.name, job.raw, manifest, self.adapt, self.nice)
        context = multiprocessing.get_context("spawn")
        messages: Any = context.Queue()
        # Not a daemon: the adaptation renders its crops in worker processes of its own.
        self._process = context.Process(target=adapt_in_child, args=(*args, messages), name="adapt")
        self._process.start()
        threading.Thread(target=self._watch, args=(args[0], self._process, messages), name="adapt", daemon=True).start()
        return self.status()

    def _watch(self, name: str, process: Any, messages: Any) -> None:
        """Follows the adaptation's messages; switches the table to the deck when it is done."""
        # In the order adapt_folder runs them: each classifier's crops, then its training (a classifier that
        # shares the crops of the one before has none of its own: the bar passes its crops' share at once).
        stages = [stage for role in self.adapt.roles for stage in (f"crops:{role}", role)]
        outcome: tuple[str, str] | None = None
        while outcome is None:
            try:
                message = messages.get(timeout=1.0)
            except queue.Empty:
                if not process.is_alive():
                    outcome = ("failed", f"Prozess beendet ({process.exitcode})\nprocess ended ({process.exitcode})")
                continue
            if message[0] == "progress":
                _, stage, done, total = message
                index = stages.index(stage) if stage in stages else 0
                fraction = (index + (done / total if total else 0.0)) / len(stages)
                with self._lock:
                    self._job.progress = {"stage": stage, "done": done, "total": total, "fraction": round(fraction, 3)}
            else:
                outcome = (message[0], message[1])
        process.join(timeout=10)
        if outcome[0] == "done":
            try:
                self.use(name)
            except TextError as exc:
                outcome = ("failed", f"{exc.de}\n{exc.en}")
        with self._lock:
            if outcome[0] == "done":
                self._job.state = "done"
                self._job.progress = {**self._job.progress, "fraction": 1.0}
            else:
                _refuse(self._job, outcome[1], "failed")
            self._job.raw = {}

    def close(self) -> None:
        """Stops an adaptation still running (the server stops; the deck before it stays as it was)."""
        if self._process is not None and self._process.is_alive():
            self._process.terminate()
            self._process.join(timeout=5)

    # -- the table ----------------------------------------------------------------------

    def use(self, name: str | None) -> dict[str, Any]:
        """Switches the table to the enrolled deck ``name`` (None: the shipped detector) through its log.

        Raises:
            UnknownDeck: no such deck.
            TextError: the deck is not adapted yet.
        """
        if name is not None:
            from dokocam.vision.decks.store import DeckError, UnadaptedDeckError, UnknownDeckError, usable_deck

            try:
                usable_deck(name)  # the check every --deck goes through
            except UnknownDeckError as exc:
                raise UnknownDeck(Text("deck_refused", why=Bilingual(*_split(str(exc))))) from exc
            except UnadaptedDeckError as exc:  # the page's own words: it can enrol again
                raise TextError(Text("deck_not_adapted", name=name)) from exc
            except DeckError as exc:
                raise TextError(Text("deck_refused", why=Bilingual(*_split(str(exc))))) from exc
        self.table.submit(DECK_SET, {"name": name})
        return self.status()


def _refuse(job: Job, text: str, state: str = "refused") -> None:
    job.state, job.message = state, _split(text)
    job.faces, job.raw, job.unsure, job.photo, job.kreuz_sides = {}, {}, [], b"", ()


def adapt_in_child(
    name: str, faces: dict[str, np.ndarray], manifest: dict[str, Any], config: AdaptConfig, nice: int, messages: Any
) -> None:
    """Stores and adapts deck ``name`` in this (spawned) process; reports progress and the outcome on ``messages``.

    Runs ``nice`` steps below the camera's priority with one torch thread: the camera's process keeps its cores.
    """
    os.nice(nice)
    import torch
    import tqdm

    from dokocam.vision.decks.adapt import adapt_folder
    from dokocam.vision.decks.store import save_deck

    torch.set_num_threads(1)

    class Reporting(tqdm.tqdm):
        """adapt_folder's progress bars, sent to the dashboard instead of a terminal."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["file"] = io.StringIO()
            super().__init__(*args, **kwargs)

        def update(self, n: float | None = 1) -> bool | None:
            shown = super().update(n)
            desc = str(self.desc)
            # adapt_folder's bars name the checkpoints: "crops for classifier, table-classifier", "adapting classifier".
            named = re.search(r"(?:context-|table-)?classifier", desc)
            if named is None:  # a bar of something else: not a stage of the adaptation
                return shown
            role = named.group().replace("-", "_")
            stage = f"crops:{role}" if "crops" in desc else role
            messages.put(("progress", stage, int(self.n), int(self.total or 0)))
            return shown

    tqdm.tqdm = Reporting  # adapt_folder imports the name when it runs
    try:
        deck = save_deck(name, faces, manifest, lambda folder: adapt_folder(folder, config, progress=True))
    except Exception as exc:
        messages.put(("failed", str(exc) if "\n" in str(exc) else f"{exc}\n{exc}"))
        raise
    messages.put(("done", deck.name))
