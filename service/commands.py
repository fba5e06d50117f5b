"""The service's subcommands: ``serve``, ``demo``, ``bench dashboard``.

Nothing heavy is imported at module level: FastAPI, uvicorn and the pipeline load when a
command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dokocam.service.feed import Feed

from dokocam.demo import DEMO_DIR

DEMO_PLAYERS = "Anna,Ben,Cem,Dora"
_VIDEO_SUFFIXES = (".mp4", ".mkv", ".avi", ".mov", ".webm")
RECORDED_DEMO = "demo:recorded"  # a generated game's events, when no demo video can be played


def register(groups: Mapping[str, Any]) -> None:
    """Adds this module's verbs to the ``dokocam`` parser's groups (``top``, ``bench``, ...)."""
    serve = groups["top"].add_parser(
        "serve",
        help="run the live dashboard for a table",
        description="Starts the table pipeline on SRC and the dashboard (http://HOST:PORT). "
        "State-changing calls need the printed table token when HOST is not loopback.",
    )
    serve.add_argument(
        "--source",
        metavar="SRC",
        help="camera index, video file, or recorded events (.json/.jsonl); none: cards entered by hand",
    )
    _server_options(serve)
    serve.set_defaults(func=_serve)

    demo = groups["top"].add_parser(
        "demo",
        help="the dashboard on the bundled demo game (no camera needed)",
        description=f"Plays the demo video from {DEMO_DIR} through the pipeline into the dashboard.",
    )
    _server_options(demo)
    demo.set_defaults(func=_demo)

    bench = groups["bench"].add_parser(
        "dashboard",
        help="measure how fast an event reaches many open pages",
        description="Starts a server on a replayed game, opens N live pages (SSE) and reports the time "
        "from the engine applying an event to each page receiving it.",
    )
    bench.add_argument("--pages", type=int, default=20, help="concurrent live pages (default 20)")
    bench.add_argument("--interval", type=float, default=0.25, help="seconds between cards of the replayed game")
    bench.add_argument("--seed", type=int, default=7, help="which generated deal to replay")
    bench.set_defaults(func=_bench)


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1: this machine only; env DOKOCAM_HOST)")
    parser.add_argument("--port", type=int, help="port (default 8000; env DOKOCAM_PORT)")
    parser.add_argument(
        "--db", help="event log file (serve: $DOKOCAM_HOME/table.db, env DOKOCAM_DB; demo: a fresh temporary file)"
    )
    parser.add_argument("--token", help="the table token (at least 22 characters; default: generated off loopback)")
    parser.add_argument(
        "--allow-host",
        action="append",
        metavar="NAME",
        help="a further host name changes may come through, e.g. a reverse proxy's public name (repeatable)",
    )
    parser.add_argument(
        "--https",
        metavar="CERT.pem",
        help="serve HTTPS with this certificate (a PEM file that may also hold the key; see --https-key)",
    )
    parser.add_argument("--https-key", metavar="KEY.pem", help="the certificate's private key, when not in --https")
    parser.add_argument(
        "--players",
        help="start a Partie with these 4 or 5 names (comma-separated, clockwise; the last deals first; "
        f"with 5 the dealer sits out) when the log has none, e.g. {DEMO_PLAYERS}",
    )
    parser.add_argument(
        "--fast", action="store_true", help="play a file source as fast as it decodes, not in real time"
    )
    parser.add_argument("--model", help="detector weights for a camera or video source (default: the shipped model)")
    parser.add_argument(
        "--deck", metavar="NAME", help="read with this enrolled deck's adapted classifier (`dokocam deck list`)"
    )
    parser.add_argument(
        "--stride",
        type=int,
        default=None,
        help="video files: detect on every N-th frame (default: about 8 frames a video second)",
    )


def _settings(args: argparse.Namespace, **values: object) -> object:
    """Settings from the command line where given, else from DOKOCAM_* variables and defaults."""
    from pydantic import ValidationError

    from dokocam.service.config import Settings

    given = {k: getattr(args, k) for k in ("host", "port", "db", "token") if getattr(args, k, None) is not None}
    if getattr(args, "allow_host", None):
        given["allowed_hosts"] = args.allow_host
    if getattr(args, "https", None):
        given["https_cert"] = args.https
    if getattr(args, "https_key", None):
        given["https_key"] = args.https_key
    try:
        return Settings(**{**given, **values})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        print(f"invalid settings: {problems}", file=sys.stderr)
        return None


def _serve(args: argparse.Namespace) -> int:
    if args.stride is not None and args.stride < 1:
        print("--stride must be at least 1", file=sys.stderr)
        return 2
    settings = _settings(args, source=args.source, realtime=not args.fast)
    if settings is None:
        return 2
    return _run(settings, args.players, model=args.model, deck=args.deck, stride=args.stride)


def _demo(args: argparse.Namespace) -> int:
    source = find_demo_source()
    if source is None:
        print(f"no demo video in {DEMO_DIR}: playing a recorded demo game instead", file=sys.stderr)
    # Without --db the demo's game is thrown away with its folder when the server stops.
    with contextlib.ExitStack() as stack:
        db = (
            Path(args.db)
            if args.db
            else Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="dokocam-demo-"))) / "demo.db"
        )
        settings = _settings(args, db=db, source=source or RECORDED_DEMO, realtime=not args.fast)
        if settings is None:
            return 2
        return _run(
            settings,
            args.players or DEMO_PLAYERS,
            model=args.model,
            deck=args.deck,
            stride=args.stride if args.stride is None else max(1, args.stride),
            fallback_to_recorded=True,
        )


def find_demo_source() -> str | None:
    """The bundled demo video, or None when there is none."""
    if not DEMO_DIR.is_dir():
        return None
    for suffix in _VIDEO_SUFFIXES:
        found = sorted(DEMO_DIR.glob(f"*{suffix}"))
        if found:
            return str(found[0])
    return None


def _run(
    settings: object,
    players: str | None,
    *,
    model: str | None = None,
    deck: str | None = None,
    stride: int | None = None,
    fallback_to_recorded: bool = False,
) -> int:
    import uvicorn

    from dokocam.service.config import Settings
    from dokocam.service.feed import RecordedFeed, is_recorded
    from dokocam.service.main import create_app
    from dokocam.service.sources import open_feed
    from dokocam.vision.decks.store import DeckError

    assert isinstance(settings, Settings)
    settings = settings.with_token()
    names = [n.strip() for n in players.split(",")] if players else None
    if names is not None and (len(names) not in (4, 5) or not all(names) or len(set(names)) != len(names)):
        print(f"--players needs 4 or 5 different names separated by commas, got {players!r}", file=sys.stderr)
        return 2
    feed: Feed | None = None
    resume = False
    source = settings.source
    if source is not None and source != RECORDED_DEMO:
        try:
            feed = open_feed(source, realtime=settings.realtime, model=model, deck=deck, stride=stride)
            resume = is_recorded(source) or Path(source).is_file()
        except DeckError as exc:  # the deck asked for, not the source: no demo stands in for it either
            print(f"dokocam: --deck: {exc}", file=sys.stderr)
            return 2
        except ValueError as exc:  # FeedError, SourceError, ModelNotFoundError
            if not fallback_to_recorded:
                print(f"cannot open --source {source}: {exc}", file=sys.stderr)
                return 2
            feed = _demo_with_truth(source, exc, realtime=settings.realtime)
            resume = feed is not None
            source = source if feed is not None else RECORDED_DEMO
    if source == RECORDED_DEMO:
        from dokocam.service.recorded import game_events

        feed = RecordedFeed(game_events(7, start=3.0, interval=1.5, uncertain=(9,)), realtime=settings.realtime)
    app = create_app(settings, feed=feed, resume=resume, players=names, deck=deck)
    scheme = "https" if settings.https_cert is not None else "http"
    url = f"{scheme}://{settings.host}:{settings.port}"
    print(f"dokocam dashboard: {url}  (event log: {settings.db})", file=sys.stderr)
    if settings.token_required:
        print(f"table token (needed to change anything from another device): {settings.token}", file=sys.stderr)
    # Live pages hold their SSE streams open forever: do not wait for them on shutdown.
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level="warning",
        timeout_graceful_shutdown=1,
        ssl_certfile=str(settings.https_cert) if settings.https_cert else None,
        ssl_keyfile=str(settings.https_key) if settings.https_key else None,
    )
    return 0


def _demo_with_truth(video: str, why: Exception, *, realtime: bool) -> Feed | None:
    """The demo video with its ground truth standing in for a detector that cannot be loaded."""
    truth = Path(video).with_suffix(".frames.jsonl")
    if not truth.is_file():
        print(f"cannot play {video} ({why}): playing a recorded demo game instead", file=sys.stderr)
        return None
    from dokocam.service.vision_feed import TruthDetector, VisionFeed

    print(f"{why}\nplaying the demo video with its recorded ground truth in place of the detector", file=sys.stderr)
    return VisionFeed(video, realtime=realtime, stride=1, detector=TruthDetector(truth, stride=1))


def _bench(args: argparse.Namespace) -> int:
    from dokocam.service.bench import run_bench

    if args.pages < 1:
        print("--pages must be at least 1", file=sys.stderr)
        return 2
    return run_bench(pages=args.pages, interval=args.interval, seed=args.seed)
