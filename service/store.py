"""The append-only event log: one SQLite file, one row per thing that happened at the table.

Nothing is ever updated or deleted; a correction or an undo is one more row. The table's state
is whatever replaying the rows gives (``service.table``). Each append is committed before it
returns, so whatever a page has been shown survives a crash of the process.

The file says its format (``meta.format``, ``dokocam-log/2``; SQLite's ``user_version`` 2). A
log of format 1 (no ``meta`` table) is read as it is and marked format 2 on opening: its rows
mean the same (every undo of format 1 already names its target), format 2 only adds kinds
(``call_corrected``) and the ``meta`` table.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 2
LOG_FORMAT = f"dokocam-log/{SCHEMA_VERSION}"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    time    REAL    NOT NULL,
    kind    TEXT    NOT NULL,
    payload TEXT    NOT NULL
);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


class StoreError(ValueError):
    """The database file cannot be used as a dokocam event log."""


@dataclass(frozen=True)
class StoredEvent:
    """One committed row of the log.

    Attributes:
        id: position in the log, 1-based and increasing.
        time: wall-clock seconds when it was appended.
        kind: what happened (``card_observed``, ``call_made``, ``undo`` ...).
        payload: the event's JSON object.
    """

    id: int
    time: float
    kind: str
    payload: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "time": self.time, "kind": self.kind, "payload": dict(self.payload)}


class EventStore:
    """An append-only event log in one SQLite file (WAL, full sync).

    Safe to share between threads: appends are serialized by a lock.

    Args:
        path: the database file; created with its schema when missing. ``":memory:"`` works
            for throwaway logs.

    Raises:
        StoreError: the file is not a dokocam log, or comes from a newer dokocam.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: a commit has reached the disk before append() returns, not just the OS cache.
            self._db.execute("PRAGMA synchronous=FULL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path} was written by a newer dokocam (schema {version}); upgrade dokocam")
            self.migrated_from = version if 0 < version < SCHEMA_VERSION else None
            self._db.executescript(_SCHEMA)
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('format', ?)", (LOG_FORMAT,))
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a usable SQLite database ({exc}); pass another --db") from exc

    def append(self, kind: str, payload: Mapping[str, Any]) -> StoredEvent:
        """Appends one event and commits it; returns the stored row."""
        text = json.dumps(dict(payload), separators=(",", ":"), sort_keys=True)
        now = time.time()
        with self._lock:
            cursor = self._db.execute("INSERT INTO events (time, kind, payload) VALUES (?, ?, ?)", (now, kind, text))
            event_id = cursor.lastrowid
        assert event_id is not None
        return StoredEvent(event_id, now, kind, json.loads(text))

    def events(self, after: int = 0) -> Iterator[StoredEvent]:
        """Yields the events with ``id > after`` in log order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, time, kind, payload FROM events WHERE id > ? ORDER BY id", (after,)
            ).fetchall()
        for event_id, when, kind, payload in rows:
            yield StoredEvent(event_id, when, kind, json.loads(payload))

    @property
    def format(self) -> str:
        """The log's format, ``dokocam-log/2``."""
        with self._lock:
            return str(self._db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()[0])

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
