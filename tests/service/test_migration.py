"""A log written by the code before format 2 (``data/log-format-1.jsonl``, made with commit 595b563's
service: camera and hand-entered cards, a game type, calls, an undo of a Kontra, a doubted card, a
correction, a game ended early, pub rules) replays to the same sheet and games with today's code."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dokocam.service.config import Settings
from dokocam.service.main import create_app
from dokocam.service.store import LOG_FORMAT, EventStore, StoreError

DATA = Path(__file__).parent / "data"

# The schema of format 1, as that code created it.
_FORMAT_1 = """
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, time REAL NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL
);
PRAGMA user_version=1;
"""


def _format_1_log(path: Path) -> None:
    db = sqlite3.connect(path)
    db.executescript(_FORMAT_1)
    for line in (DATA / "log-format-1.jsonl").read_text().splitlines():
        row = json.loads(line)
        db.execute(
            "INSERT INTO events VALUES (?, ?, ?, ?)", (row["id"], row["time"], row["kind"], json.dumps(row["payload"]))
        )
    db.commit()
    db.close()


def test_a_format_1_log_replays_to_the_same_sheet_and_is_marked_format_2(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    _format_1_log(db)
    expected = json.loads((DATA / "log-format-1.expected.json").read_text())
    with TestClient(create_app(Settings(db=db)), base_url="http://127.0.0.1:8000") as client:
        state = client.get("/state").json()
        partie = state["partie"]
        assert partie["totals"] == expected["totals"]
        assert [(r["points"], r["totals"], r["ended_early"]) for r in partie["sheet"]] == [
            (r["points"], r["totals"], r["ended_early"]) for r in expected["sheet"]
        ]
        assert state["game"]["number"] == expected["game_number"]
        last = state["last_game"]
        assert [[p["card"]["code"] for p in t["plays"]] for t in last["tricks"]] == expected["last_game_tricks"]
        assert [[c["player"], c["call"]] for c in last["calls"]] == expected["last_game_calls"]
        assert state["notes"] == []  # every old event still fits
        # The log goes on in format 2.
        assert client.post("/games/current/cards", json={"seat": 1, "card": "QC"}).status_code == 201
    store = EventStore(db)
    assert store.format == LOG_FORMAT == "dokocam-log/2"
    assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == 2
    store.close()


def test_a_log_from_a_newer_dokocam_is_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    sqlite3.connect(db).execute("PRAGMA user_version=9")
    with pytest.raises(StoreError, match="newer dokocam"):
        EventStore(db)
