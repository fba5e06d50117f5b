"""Fixtures for the service tests: an app on a real database file in tmp_path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dokocam.service.config import Settings
from dokocam.service.main import create_app

# The dashboard's own address: state-changing requests through any other host name are refused.
LOCAL = "http://127.0.0.1:8000"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "table.db"


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(db=db_path)), base_url=LOCAL) as c:
        yield c
