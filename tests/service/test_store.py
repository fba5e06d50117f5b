from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from dokocam.service.store import EventStore, StoreError


def test_append_is_committed_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    store = EventStore(path)
    first = store.append("card_observed", {"seat": 1, "card": "QC"})
    store.append("call_made", {"seat": 1, "call": "re"})
    # Another connection sees the rows without any close or flush by the writer.
    rows = sqlite3.connect(path).execute("SELECT id, kind FROM events ORDER BY id").fetchall()
    assert rows == [(first.id, "card_observed"), (first.id + 1, "call_made")]
    store.close()
    again = EventStore(path)
    assert [(e.kind, dict(e.payload)) for e in again.events()] == [
        ("card_observed", {"card": "QC", "seat": 1}),
        ("call_made", {"call": "re", "seat": 1}),
    ]
    assert [e.id for e in again.events(after=first.id)] == [first.id + 1]
    assert len(again) == 2


def test_rows_cannot_be_changed_or_deleted(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "log.db")
    store.append("undo", {})
    db = sqlite3.connect(tmp_path / "log.db")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE events SET kind = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM events")


def test_uses_write_ahead_logging(tmp_path: Path) -> None:
    EventStore(tmp_path / "log.db").append("undo", {})
    mode = sqlite3.connect(tmp_path / "log.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_refuses_files_that_are_not_its_log(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="not a usable SQLite database"):
        EventStore(junk)
    newer = tmp_path / "newer.db"
    sqlite3.connect(newer).execute("PRAGMA user_version=99")
    with pytest.raises(StoreError, match="newer dokocam"):
        EventStore(newer)
