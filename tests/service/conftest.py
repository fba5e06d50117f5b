"""Fixtures for the service tests: an app on a real database file in tmp_path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dokocam.service.config import Settings
from dokocam.service.main import create_app

# Debian's chromium, driven by Playwright in the browser tests.
CHROMIUM = "/usr/bin/chromium"

# The dashboard's own address: state-changing requests through any other host name are refused.
LOCAL = "http://127.0.0.1:8000"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "table.db"


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(db=db_path)), base_url=LOCAL) as c:
        yield c


@pytest.fixture
def browser() -> Iterator[object]:
    """A headless Chromium for the browser tests (they skip without the playwright package)."""
    playwright = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()
