"""``dokocam bench dashboard``: how long an event takes from the engine to many open pages.

A server runs in a subprocess on a replayed game (a recorded event list standing in for the
camera); N pages listen on ``/stream`` (SSE). For every ``state`` message a page receives, the
delay is the receive time minus the ``engine_time`` the server stamped when the engine applied
the event (same machine, same clock).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from dokocam.service.recorded import game_events


def run_bench(*, pages: int, interval: float, seed: int) -> int:
    with tempfile.TemporaryDirectory(prefix="dokocam-bench-") as tmp:
        source = Path(tmp) / "game.json"
        # The first card comes after the pages have had time to connect.
        events = game_events(seed, start=3.0, interval=interval)
        source.write_text(json.dumps(events))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        cmd = [
            sys.executable,
            "-m",
            "dokocam.service.cli",
            "serve",
            "--db",
            f"{tmp}/bench.db",
            "--port",
            str(port),
            "--source",
            str(source),
            "--players",
            "Anna,Ben,Cem,Dora",
        ]
        server = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_ready(url)
            plays = sum(1 for e in events if e["kind"] == "card_played")
            delays, received = asyncio.run(_listen(url, pages, expected=plays, timeout=20 + plays * interval))
        finally:
            os.kill(server.pid, signal.SIGTERM)
            server.wait(timeout=10)
    if not delays:
        print("no state messages reached the pages", file=sys.stderr)
        return 1
    delays_ms = sorted(d * 1000 for d in delays)
    p95 = delays_ms[min(len(delays_ms) - 1, int(round(0.95 * (len(delays_ms) - 1))))]
    print(f"pages: {pages}  events: {plays}  messages received: {received} (expected {pages * plays})")
    print(
        f"engine event -> page (SSE): median {statistics.median(delays_ms):.1f} ms"
        f"  p95 {p95:.1f} ms  max {delays_ms[-1]:.1f} ms"
    )
    return 0


def _get_state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/state", timeout=5) as response:
        state: dict[str, Any] = json.loads(response.read())
    return state


def _wait_ready(url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            _get_state(url)
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)
    raise RuntimeError("the bench server did not start within 60 s")


async def _listen(url: str, pages: int, *, expected: int, timeout: float) -> tuple[list[float], int]:
    start_seq = _get_state(url)["seq"]
    host, port = url.removeprefix("http://").split(":")
    delays: list[float] = []
    counts = [0] * pages

    async def page(i: int) -> None:
        # A bare HTTP/1.0 client (the standard library has no async one): the stream then comes
        # unchunked, one SSE line after another, as a browser's EventSource reads it.
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(f"GET /stream HTTP/1.0\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        name = None
        try:
            while line := (await reader.readline()).decode():
                if line.startswith("event: "):
                    name = line[7:].strip()
                elif line.startswith("data: ") and name == "state":
                    received = time.time()
                    state = json.loads(line[6:])
                    if state["seq"] > start_seq:
                        delays.append(received - state["engine_time"])
                        counts[i] += 1
                        if counts[i] >= expected:
                            return
        finally:
            writer.close()

    tasks = [asyncio.create_task(page(i)) for i in range(pages)]
    await asyncio.wait(tasks, timeout=timeout)
    for task in tasks:
        task.cancel()
    return delays, sum(counts)
