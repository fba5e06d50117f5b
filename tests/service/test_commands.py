"""The service's subcommands: registered, light to import, clear when a source is wrong."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dokocam.service.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def test_serve_demo_and_bench_are_registered() -> None:
    parser = build_parser()
    args = parser.parse_args(["serve", "--source", "0", "--host", "0.0.0.0", "--port", "9000", "--db", "x.db"])
    assert (args.source, args.host, args.port, args.db) == ("0", "0.0.0.0", 9000, "x.db")
    args = parser.parse_args(["demo"])
    assert args.host is None and args.port is None and args.db is None  # DOKOCAM_* or the defaults apply
    assert parser.parse_args(["bench", "dashboard", "--pages", "20"]).pages == 20


def test_importing_the_commands_loads_nothing_heavy() -> None:
    code = (
        "import sys, dokocam.service.commands; "
        "print(sorted(m for m in ('fastapi', 'uvicorn', 'cv2', 'torch') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_missing_source_is_a_clear_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "dokocam.service.cli",
            "serve",
            "--source",
            str(tmp_path / "nope.mp4"),
            "--db",
            str(tmp_path / "t.db"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "nope.mp4: no such file or folder" in result.stderr
    bad = tmp_path / "events.json"
    bad.write_text('[{"time": 1}]')
    result = subprocess.run(
        [sys.executable, "-m", "dokocam.service.cli", "serve", "--source", str(bad), "--db", str(tmp_path / "t.db")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "needs a 'kind'" in result.stderr
    result = subprocess.run(
        [sys.executable, "-m", "dokocam.service.cli", "serve", "--port", "70000", "--db", str(tmp_path / "t.db")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "invalid settings: port" in result.stderr


def test_settings_come_from_dokocam_variables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from dokocam.service.commands import _settings

    monkeypatch.setenv("DOKOCAM_PORT", "8123")
    monkeypatch.setenv("DOKOCAM_DB", str(tmp_path / "env.db"))
    settings = _settings(build_parser().parse_args(["serve", "--host", "0.0.0.0"]))
    assert (settings.host, settings.port, str(settings.db)) == ("0.0.0.0", 8123, str(tmp_path / "env.db"))  # type: ignore[attr-defined]


def test_bench_dashboard_reports_every_message_to_every_page() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dokocam.service.cli", "bench", "dashboard", "--pages", "3", "--interval", "0.02"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "pages: 3  events: 48  messages received: 144 (expected 144)" in result.stdout
    assert "median" in result.stdout and "p95" in result.stdout


def test_building_the_whole_cli_loads_nothing_heavy() -> None:
    # `dokocam score` builds every command's parser first; OpenCV, matplotlib or torch there cost it a third of a second
    code = (
        "import sys; from dokocam.service.cli import build_parser; build_parser(); "
        "heavy = ('cv2', 'numpy', 'matplotlib', 'torch', 'ultralytics', 'fastapi'); "
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_demo_without_db_leaves_no_folder_behind(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import tempfile

    import dokocam.service.commands as commands

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen: list[Path] = []

    def run(settings: object, *args: object, **kwargs: object) -> int:
        seen.append(Path(settings.db))  # type: ignore[attr-defined]
        assert seen[0].parent.is_dir()  # the game is stored while the demo runs
        return 0

    monkeypatch.setattr(commands, "_run", run)
    assert commands._demo(build_parser().parse_args(["demo"])) == 0
    assert seen and seen[0].parent.parent == tmp_path
    assert list(tmp_path.iterdir()) == []
