"""Live messages reach every subscriber, from any thread, in order; the last state waits for newcomers."""

from __future__ import annotations

import asyncio
import threading

from dokocam.service.hub import Hub


def test_messages_from_a_thread_reach_every_page_in_order() -> None:
    hub = Hub()
    hub.publish("state", {"seq": 1})

    async def main() -> list[list[str]]:
        async def page() -> list[str]:
            got = []
            async for text in hub.subscribe(replay=("state",)):
                got.append(text)
                if len(got) == 4:
                    return got
            return got

        pages = [asyncio.create_task(page()) for _ in range(3)]
        while hub.listeners < 3:
            await asyncio.sleep(0.01)
        worker = threading.Thread(target=lambda: [hub.publish("state", {"seq": n}) for n in (2, 3, 4)])
        worker.start()
        results = await asyncio.wait_for(asyncio.gather(*pages), timeout=5)
        worker.join()
        return results

    results = asyncio.run(main())
    for got in results:
        assert got == [f'event: state\ndata: {{"seq":{n}}}\n\n' for n in (1, 2, 3, 4)]
    assert hub.listeners == 0
