"""Fan-out of live messages to every open page (Server-Sent Events).

Publishers may be any thread (the feed worker, request handlers); each subscriber is an
asyncio queue read by one SSE response. A message is serialized once, however many pages
listen. A page too slow to keep up loses its oldest messages, never blocks the table.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

_QUEUE_SIZE = 64


@dataclass
class _Subscriber:
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[str]


class Hub:
    """Sends named messages to all subscribers as SSE text."""

    def __init__(self) -> None:
        self._subscribers: list[_Subscriber] = []
        self._lock = threading.Lock()
        self._last: dict[str, str] = {}

    @property
    def listeners(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def publish(self, name: str, data: Any) -> None:
        """Sends ``data`` (JSON-serializable) as an SSE event called ``name`` to every page."""
        text = f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'), ensure_ascii=False)}\n\n"
        with self._lock:
            self._last[name] = text
            subscribers = list(self._subscribers)
        for sub in subscribers:
            try:
                sub.loop.call_soon_threadsafe(_put_dropping_oldest, sub.queue, text)
            except RuntimeError:  # that page's loop is closed; it unsubscribes itself
                pass

    async def subscribe(self, *, replay: tuple[str, ...] = ()) -> AsyncIterator[str]:
        """Yields SSE text for one page: first the last message of each ``replay`` name, then live ones."""
        sub = _Subscriber(asyncio.get_running_loop(), asyncio.Queue(_QUEUE_SIZE))
        with self._lock:
            self._subscribers.append(sub)
            backlog = [self._last[name] for name in replay if name in self._last]
        try:
            for text in backlog:
                yield text
            while True:
                try:
                    yield await asyncio.wait_for(sub.queue.get(), timeout=15)
                except TimeoutError:
                    yield ": keep-alive\n\n"  # proxies and phones drop silent connections
        finally:
            with self._lock:
                self._subscribers.remove(sub)


def _put_dropping_oldest(queue: asyncio.Queue[str], text: str) -> None:
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(text)
