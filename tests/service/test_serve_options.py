"""``dokocam serve`` on the network: HTTPS from one flag, a proxy's name allowed, a token of 128 bits."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from svc_helpers import Server

from dokocam.service.cli import main


@pytest.fixture
def certificate(tmp_path: Path) -> Path:
    """A self-signed certificate and its key in one PEM file."""
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    both = tmp_path / "both.pem"
    both.write_text(cert.read_text() + key.read_text())
    return both


def test_https_from_one_flag_and_a_proxys_name(tmp_path: Path, certificate: Path) -> None:
    server = Server(
        tmp_path / "table.db", "--https", str(certificate), "--allow-host", "doko.example.org", scheme="https"
    )
    try:
        assert server.get("/state")["partie"]["players"]
        card = {"seat": 0, "card": "QC"}
        assert server.post("/games/current/cards", card, headers={"Origin": "https://evil.example"}).status_code == 403
        proxied = server.post("/games/current/cards", card, headers={"Host": "doko.example.org"})
        assert proxied.status_code == 201, proxied.text
        assert server.post("/games/current/cards", card, headers={"Host": "rebind.example"}).status_code == 421
        assert len(server.get("/events")) == 2  # the Partie and one card
    finally:
        server.stop()


@pytest.mark.parametrize("token", ["", "x", "short-token-of-21-chr"])
def test_a_short_token_is_refused_at_start(tmp_path: Path, token: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--db", str(tmp_path / "t.db"), "--host", "0.0.0.0", "--token", token]) == 2
    assert "at least 22 characters" in capsys.readouterr().err


def test_a_key_without_its_certificate_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "key.pem"
    key.write_text("-")
    assert main(["serve", "--db", str(tmp_path / "t.db"), "--https-key", str(key)]) == 2
    assert "needs its certificate" in capsys.readouterr().err


def test_the_data_home_holds_the_event_log_and_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dokocam.service.config import Settings

    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.env").write_text("DOKOCAM_PORT=8123\nDOKOCAM_TOKEN=from-the-home-settings-file-0123\n")
    monkeypatch.chdir(tmp_path)  # no ./.env here
    monkeypatch.setenv("DOKOCAM_HOME", str(home))
    settings = Settings()
    assert settings.home == home and settings.db == home / "table.db"
    assert settings.port == 8123 and settings.token == "from-the-home-settings-file-0123"
    monkeypatch.setenv("DOKOCAM_PORT", "9000")  # the environment wins over the home's file
    assert Settings().port == 9000 and Settings(db=tmp_path / "x.db").db == tmp_path / "x.db"
