"""Builds the dashboard app: the table from its event log, the routers, the page."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from dokocam.service import errors
from dokocam.service.config import Settings
from dokocam.service.deckdesk import MAX_PHOTO, DeckDesk
from dokocam.service.feed import Feed
from dokocam.service.guard import Guard, HostPolicy
from dokocam.service.routes import decks, events, games, partie, settings, stream
from dokocam.service.scorekeeper import Scorekeeper
from dokocam.service.store import EventStore
from dokocam.service.table import DECK_SET, PARTIE_STARTED
from dokocam.vision.decks.adapt import AdaptConfig

STATIC = Path(str(files("dokocam.service") / "static"))


def create_app(
    config: Settings | None = None,
    *,
    feed: Feed | None = None,
    resume: bool = False,
    players: Sequence[str] | None = None,
    deck: str | None = None,
    adapt: AdaptConfig | None = None,
) -> FastAPI:
    """The dashboard for one table.

    Args:
        config: the settings (read from the environment when None).
        feed: the pipeline's events and frames; None: no camera (people enter cards).
        resume: ``feed`` replays a file that may already be partly in the log (after a restart).
        players: start a Partie with these 4 or 5 names (last one deals first) when the log has none.
        deck: the enrolled deck ``feed`` reads with (``--deck``), logged when the log has another one in use.
        adapt: how the Deck page adapts a newly enrolled deck (the default: ``AdaptConfig()``).
    """
    config = (config or Settings()).with_token()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = EventStore(config.db)
        table = Scorekeeper(store, frame_fps=config.frame_fps)
        app.state.table = table
        app.state.decks = desks = DeckDesk(table, adapt)
        if players is not None and table.state.partie is None:
            table.submit(
                PARTIE_STARTED,
                {
                    "players": list(players),
                    "first_dealer": players[-1],
                    "rules": table.state.rules.to_dict(),
                    "length": {},
                },
            )
        if deck != table.state.deck and (deck is not None or feed is not None):
            table.submit(DECK_SET, {"name": deck})  # what the camera reads with, before its first card
        if feed is not None:
            table.attach(feed, resume=resume)
        try:
            yield
        finally:
            desks.close()
            table.detach()
            store.close()

    app = FastAPI(
        title="dokocam",
        summary="The live Doppelkopf table: camera, tricks, announcements, score sheet.",
        lifespan=lifespan,
        # Swagger UI and ReDoc load their scripts from a CDN; the table may have no internet.
        # The OpenAPI document itself stays at /openapi.json.
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = config
    errors.install(app)
    # Outermost: no foreign page, rebinding host, non-JSON or oversized body reaches a router.
    # The Deck page's photo upload is the one request that may come as multipart/form-data.
    app.add_middleware(Guard, hosts=HostPolicy(config.allowed_hosts), uploads={decks.UPLOAD_PATH: MAX_PHOTO + 4096})
    for module in (partie, games, events, settings, stream, decks):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    return app
