"""``dokocam run``, ``analyze``, ``dataset render-game``, ``bench table`` and ``table setup``.

Nothing heavy is imported at module level (the CLI must stay instant for ``dokocam score``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dokocam.service.cli.dataset import LIGHT_KINDS

if TYPE_CHECKING:
    from dokocam.vision.bench.table import TableBench
    from dokocam.vision.detections import Detections


def register(groups: Mapping[str, Any]) -> None:
    """Adds this module's verbs to the ``dokocam`` parser's groups (``top``, ``bench``, ...)."""
    p = groups["top"].add_parser(
        "run",
        help="follow a live table: print card events and the running game",
        description="Reads a camera, stream, video or image folder, detects and tracks the cards, "
        "feeds the rules engine and prints every event (one JSON line each with --jsonl).",
    )
    p.add_argument("--source", required=True, help="camera index (0), stream URL, video file or image folder")
    _add_game_arguments(p)
    p.add_argument(
        "--stride", type=int, help="for video files: analyse every N-th frame (default: about 8 frames a video second)"
    )
    p.add_argument("--jsonl", action="store_true", help="print events as JSON lines instead of text")
    p.set_defaults(func=_run)

    p = groups["top"].add_parser(
        "analyze",
        help="reconstruct a whole game from a video into a dokocam-game/1 record",
        description="Detects, tracks and follows the cards of a recorded game; writes the record "
        "(score it with `dokocam score OUT.json`) and the events with frame numbers and confidences.",
    )
    p.add_argument("video", help="the video file")
    p.add_argument("--json", required=True, dest="out", help="where to write the dokocam-game/1 record")
    p.add_argument("--events", help="where to write the events as JSON lines (default: OUT.events.jsonl)")
    _add_game_arguments(p)
    p.add_argument(
        "--stride",
        type=int,
        help="analyse every N-th frame (default: about 8 frames a video second, whatever the frame rate)",
    )
    p.add_argument(
        "--truth",
        help="use the per-frame ground truth of `dataset render-game` (FRAMES.jsonl) instead of the detector",
    )
    p.add_argument(
        "--detections",
        help="replay detections recorded by --save-detections instead of running the detector (seconds, not minutes)",
    )
    p.add_argument("--save-detections", help="also record the detector's per-frame detections to this JSON-lines file")
    p.set_defaults(func=_analyze)

    p = groups["dataset"].add_parser(
        "render-game",
        help="render a simulated legal game as a video with its ground truth",
        description="Simulates a legal game (random deal per seed), renders it as an mp4 (cards pushed in "
        "by hands, tricks swept to the winner, camera shake, light drift) and writes the game record "
        "and per-frame ground truth (OUT.frames.jsonl).",
    )
    p.add_argument("out", help="the video to write (.mp4)")
    p.add_argument("--seed", type=int, required=True, help="picks the deal, deck, table cloth, camera and timing")
    p.add_argument("--fps", type=float, default=10.0, help="frames per second (default 10)")
    p.add_argument("--record", help="the ground-truth game record (default: OUT.json)")
    p.add_argument("--tricks", type=int, default=12, help="tricks to play (default 12, a whole game)")
    p.add_argument("--size", default="1280x720", help="frame size WxH (default 1280x720)")
    p.add_argument("--steady", action="store_true", help="no camera shake, noise or light drift (small files)")
    p.add_argument(
        "--faces",
        metavar="DIR",
        help="play with this folder of face images named by card code (QC.png ...) instead of the seed's drawn deck",
    )
    p.add_argument(
        "--design",
        metavar="NAME",
        help="draw the cards in this design (datasets/designs.md), e.g. svg:gm-paris or font:liberation-serif",
    )
    p.add_argument(
        "--events",
        default="none",
        metavar="SPEC",
        help="real-table events to stage: 'none' (default), 'realistic', or NAME=RATE,... as for `bench table`",
    )
    p.set_defaults(func=_render_game)

    p = groups["bench"].add_parser(
        "table",
        help="benchmark the table pipeline on rendered games (tricks and games reconstructed, fps)",
    )
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--seed-base", type=int, default=10000, help="seeds seed-base .. seed-base+games-1")
    p.add_argument("--fps", type=float, default=10.0, help="frame rate of the simulated videos")
    p.add_argument("--stride", type=int, default=1, help="analyse every N-th frame")
    p.add_argument(
        "--detector",
        default="truth",
        help="'truth' (rendered ground truth as detections, no pixels), 'noisy' (ground truth with "
        "detector-like errors), or a model path / 'model' (the shipped model, renders pixels)",
    )
    p.add_argument("--drop", type=float, default=0.15, help="noisy: chance a card is missed in a frame")
    p.add_argument("--misread", type=float, default=0.05, help="noisy: chance a card is read as another card")
    p.add_argument("--corner", type=float, default=0.0, help="noisy: chance a card is seen by one corner index only")
    p.add_argument(
        "--whole-fraction",
        type=float,
        default=None,
        help="tracker: boxes smaller than this part of a card only confirm it",
    )
    p.add_argument(
        "--whole-frame", action="store_true", help="model detector: search whole frames, not the trick area only"
    )
    p.add_argument("--size", default="1280x720")
    p.add_argument("--json", dest="out", help="write the per-game results as JSON")
    p.add_argument(
        "--decoder",
        action="store_true",
        help="decode each whole game from all its sightings at the end (as `analyze` does), not live as `run` does",
    )
    p.add_argument(
        "--cache",
        metavar="DIR",
        help="model detector: replay the detections recorded in DIR for a seed, record those missing (one folder per "
        "detector)",
    )
    p.add_argument(
        "--faces",
        metavar="DIR",
        help="render every game with this folder of face images named by card code (QC.png ...), e.g. a deck the "
        "detector never saw, instead of each seed's drawn deck",
    )
    p.add_argument(
        "--deck",
        metavar="NAME",
        help="model detector: read with this enrolled deck's adapted classifier (`dokocam deck list`)",
    )
    p.add_argument(
        "--designs",
        choices=("heldout", "train", "drawn"),
        default="heldout",
        help="draw each game in a design held out of the detector's training (default; the held-out SVG decks and "
        "font families in turn, by seed), in a training design, or in the seed's own drawn deck",
    )
    p.add_argument(
        "--events",
        default="realistic",
        metavar="SPEC",
        help="real-table events staged in each game: 'realistic' (default), 'none', or NAME=RATE,... with NAME one of "
        "twins, slide_under, hand_rest, pull_back, early_sweep, bump",
    )
    p.add_argument(
        "--light",
        metavar="KIND",
        help="model detector: lay a change of light or camera over every frame ("
        + ", ".join(LIGHT_KINDS)
        + "): the same games in another room",
    )
    p.set_defaults(func=_bench)

    p = groups["bench"].add_parser(
        "live",
        help="benchmark memory over hours of live play (a video looped through the `run` loop)",
        description="Plays a recorded game again and again through the live loop of `dokocam run` "
        "(frames decoded by the real source, numbered and timed on), samples the process RSS and the "
        "Python heap every few simulated minutes and reports growth and slope per simulated hour.",
    )
    p.add_argument("--hours", type=float, default=2.0, help="simulated hours of video time (default 2)")
    p.add_argument("--every-minutes", type=float, default=10.0, help="sample every N simulated minutes (default 10)")
    p.add_argument("--video", help="the game to loop (default: the bundled demo game)")
    p.add_argument(
        "--truth", help="its per-frame ground truth, FRAMES.jsonl (default: the demo's, with the demo video)"
    )
    p.add_argument(
        "--model",
        help="run a detector model (a path, or 'model' for the shipped one) instead of replaying the truth: slow, for "
        "short runs",
    )
    p.add_argument("--stride", type=int, help="analyse every N-th frame (default: about 8 frames a video second)")
    p.add_argument("--json", dest="out", help="write the samples, summary and top growing allocation sites as JSON")
    p.set_defaults(func=_bench_live)

    p = groups["table"].add_parser(
        "setup",
        help="store a manual table calibration (centre + seat 0, or four corners) as JSON",
    )
    p.add_argument("out", help="the table setup JSON to write")
    p.add_argument("--center", help="table centre in image pixels, X,Y")
    p.add_argument("--seat0", help="a point towards seat 0 (Vorhand) in image pixels, X,Y")
    p.add_argument("--radius", type=float, help="trick area radius (pixels; plane units with --corners)")
    p.add_argument(
        "--corners",
        help="four table corners X,Y;X,Y;X,Y;X,Y clockwise, the first two bounding seat 0's edge",
    )
    p.add_argument("--players", help="four names, seat 0 first")
    p.add_argument("--places", type=int, default=4, help="4, or 5 when the dealer sits out")
    p.set_defaults(func=_table_setup)


def _add_game_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", help="four names, seat 0 (Vorhand) first: A,B,C,D")
    p.add_argument("--contract", help="normal (default), hochzeit:S, solo:KIND:S, armut:S:P, silent_hochzeit:S or JSON")
    p.add_argument("--calls", help="announcements SEAT:CALL[@CARDS],... e.g. 1:re,2:kontra@6")
    p.add_argument("--rules", default="tournament", help="rules preset (tournament, pub) or a JSON object")
    p.add_argument("--setup", help="a table setup JSON (`dokocam table setup`): manual calibration")
    p.add_argument("--model", help="detector model (default: the shipped one)")
    p.add_argument(
        "--deck", metavar="NAME", help="read with this enrolled deck's adapted classifier (`dokocam deck list`)"
    )


def _spec(args: argparse.Namespace) -> Any:
    from dokocam.vision.table.pipeline import GameSpec, SpecError, parse_calls, parse_contract, parse_players

    rules_text = args.rules or "tournament"
    if rules_text.lstrip().startswith("{"):
        try:
            rules = json.loads(rules_text)
        except json.JSONDecodeError as exc:
            raise SpecError(f"--rules: not JSON ({exc.msg})") from None
    else:
        rules = {"preset": rules_text}
    return GameSpec(
        players=parse_players(args.players),
        contract=parse_contract(args.contract),
        rules=rules,
        calls=parse_calls(args.calls),
    )


def _geometry(args: argparse.Namespace, width: int, height: int) -> Any:
    from dokocam.vision.table.geometry import TableGeometry, TableSetup

    if getattr(args, "setup", None):
        return TableSetup.load(args.setup).geometry
    return TableGeometry.default(width, height)


def _error(message: str) -> int:
    print(f"dokocam: error: {message}", file=sys.stderr)
    return 2


def _load_detector(model: str | None, deck: str | None = None) -> Any:
    from dokocam.vision.table.focus import table_detector

    return table_detector(model, deck)


def _analyze(args: argparse.Namespace) -> int:
    from dokocam.vision.sources import VideoFileSource
    from dokocam.vision.table.pipeline import TablePipeline, analyze_stream, detect_video, every_nth, truth_frames
    from dokocam.vision.table.recording import RecordingHeader, load_detections, save_detections

    if args.truth and args.detections:
        return _error("--truth and --detections both replace the detector: give one")
    if args.stride is not None and args.stride < 1:
        return _error(f"--stride must be at least 1, got {args.stride}")
    try:
        spec = _spec(args)
        timer = None
        detector = None
        frames: Iterable[tuple[int, float, Detections]]
        if args.detections:
            header, frames = load_detections(args.detections)
            frames = every_nth(frames, args.stride)
            width, height, total, target = header.width, header.height, header.frames, header.target
        elif args.truth:
            probe = VideoFileSource(args.video)
            width, height, total = probe.width, probe.height, probe.frame_count
            probe.close()
            frames = truth_frames(args.truth, stride=args.stride)
            target = "cards"
        else:
            detector = _load_detector(args.model, args.deck)
            frames, source, timer = detect_video(args.video, detector, stride=args.stride)
            width, height, total = source.width, source.height, source.frame_count
            target = detector.card.target
        if args.save_detections:
            frames = save_detections(args.save_detections, RecordingHeader(width, height, target, total), frames)
        pipeline = TablePipeline.for_video(
            width,
            height,
            spec,
            geometry=_geometry(args, width, height),
            target=target,
            detector=detector,
            offline=True,
        )
        analysis = analyze_stream(frames, pipeline, total_frames=total, detect_seconds=timer)
    except ValueError as exc:
        return _error(str(exc))
    out = Path(args.out)
    out.write_text(json.dumps(analysis.record, indent=1) + "\n")
    events_path = Path(args.events) if args.events else out.with_suffix(".events.jsonl")
    with events_path.open("w") as f:
        for event in analysis.events:
            f.write(json.dumps(event.to_dict()) + "\n")
    plays = sum(1 for e in analysis.record["events"] if "play" in e)
    flags = [e for e in analysis.events if e.type == "flag"]
    confirm = [e for e in analysis.events if e.type == "needs_confirmation"]
    print(
        f"{args.video}: {plays} cards in {plays // 4} complete tricks, {len(flags)} flags, "
        f"{len(confirm)} to confirm; {analysis.frames_analysed} of {analysis.frames_read} frames analysed "
        f"at {analysis.fps:.1f} video fps",
        file=sys.stderr,
    )
    for call_error in pipeline.call_errors:
        print(f"warning: call not applied: {call_error}", file=sys.stderr)
    print(f"wrote {out} and {events_path}", file=sys.stderr)
    return 0


def _run(args: argparse.Namespace) -> int:
    from dokocam.vision.sources import open_source
    from dokocam.vision.table.events import TrickComplete
    from dokocam.vision.table.pipeline import LiveTable, TablePipeline

    def report(event: Any) -> None:
        print(json.dumps(event.to_dict()) if args.jsonl else f"[source] {event.message}", flush=True)

    try:
        spec = _spec(args)
        source = open_source(args.source, stride=args.stride, on_event=report)
        detector = _load_detector(args.model, args.deck)
    except ValueError as exc:
        return _error(str(exc))

    def make_pipeline(width: int, height: int) -> TablePipeline:
        return TablePipeline.for_video(width, height, spec, geometry=_geometry(args, width, height), detector=detector)

    def show(event: Any) -> None:
        if args.jsonl:
            print(json.dumps(event.to_dict()), flush=True)
            return
        print(_describe(event), flush=True)
        if isinstance(event, TrickComplete) and live.pipeline is not None:
            print("   " + _describe_game(live.pipeline.game), flush=True)

    def new_game() -> None:
        if not args.jsonl:
            print("   new game: Vorhand moves one place clockwise", flush=True)

    live = LiveTable(detector, make_pipeline, on_event=show, on_new_game=new_game)
    try:
        live.run(source)
    finally:
        source.close()
    return 0


def _describe(event: Any) -> str:
    d = event.to_dict()
    kind = d.pop("type")
    stamp = f"{d.pop('time'):8.2f}s #{d.pop('frame'):<6}"
    if kind == "card_played":
        note = (
            f" (position says seat {d['seat_by_position']}, turn order seat {d['seat_by_turn']})"
            if d["seat_conflict"]
            else ""
        )
        return f"{stamp} trick {d['trick'] + 1}: seat {d['seat']} plays {d['card']} ({d['confidence']:.2f}){note}"
    if kind == "card_seen":
        return f"{stamp} trick {d['trick'] + 1}: seat {d['seat']} has laid {d['card']} (a seat before it not read yet)"
    if kind == "trick_complete":
        cards = " ".join(d["cards"])
        return f"{stamp} trick {d['trick'] + 1} complete: {cards} -> seat {d['winner']} ({d['augen']} Augen)"
    if kind == "trick_cleared":
        return f"{stamp} trick {d['trick'] + 1} cleared"
    if kind == "flag":
        return f"{stamp} FLAG {d['kind']}: {d['message']}"
    if kind == "needs_confirmation":
        return f"{stamp} CONFIRM: {d['message']}"
    if kind == "card_revised":
        return f"{stamp} REVISED: {d['message']}"
    if kind == "game_over":
        result = d["result"]
        return f"{stamp} game over: winner {result.get('winner')}, points {result.get('points')}"
    return f"{stamp} {kind}: {d}"


def _describe_game(game: Any) -> str:
    won = [0, 0, 0, 0]
    for trick in game.tricks:
        won[trick.winner()] += int(trick.augen)
    return f"Augen so far by seat: {won}; flags: {len(game.flags)}"


def _render_game(args: argparse.Namespace) -> int:
    from dokocam.vision.synth.video import GameVideo, Mishaps

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        return _error(f"--size {args.size!r}: use WIDTHxHEIGHT, e.g. 1280x720")
    if args.fps <= 0 or not 1 <= args.tricks <= 12:
        return _error("--fps must be positive and --tricks between 1 and 12")
    from dokocam.vision.synth.faces import FaceFolderError

    try:
        mishaps = Mishaps.parse(args.events)
    except ValueError as exc:
        return _error(f"--events: {exc}")
    try:
        video = GameVideo(
            seed=args.seed,
            tricks=args.tricks,
            width=width,
            height=height,
            fps=args.fps,
            steady=args.steady,
            faces=args.faces,
            design=args.design,
            mishaps=mishaps,
        )
    except FaceFolderError as exc:
        return _error(f"--faces: {exc}")
    except ValueError as exc:
        return _error(f"--design: {exc}")
    summary = video.write(args.out, record_path=args.record, progress=sys.stderr.isatty())
    print(json.dumps(summary))
    return 0


def _table_setup(args: argparse.Namespace) -> int:
    from dokocam.vision.table.geometry import CalibrationError, TableGeometry, TableSetup
    from dokocam.vision.table.pipeline import SpecError, parse_players

    def point(text: str) -> tuple[float, float]:
        x, y = (float(v) for v in text.split(","))
        return x, y

    try:
        if args.corners:
            corners = [point(p) for p in args.corners.split(";")]
            geometry = TableGeometry.from_corners(corners, radius=args.radius or 0.45, places=args.places)
        elif args.center and args.seat0 and args.radius:
            geometry = TableGeometry.from_seat_direction(
                point(args.center), point(args.seat0), radius=args.radius, places=args.places
            )
        else:
            return _error("give --corners, or --center, --seat0 and --radius")
        setup = TableSetup(geometry, parse_players(args.players))
    except (CalibrationError, SpecError) as exc:
        return _error(str(exc))
    except ValueError:
        return _error("points are X,Y pairs of numbers (corners separated by ';')")
    setup.save(args.out)
    print(f"wrote {args.out}")
    return 0


def bench_settings(args: argparse.Namespace) -> TableBench:
    """The ``bench table`` flags as the bench's settings: each field from the flag of its name, the
    frame size from ``--size``, ``decode`` from ``--decoder`` and the staged events from ``--events``.

    Raises:
        ValueError: a malformed ``--size`` or ``--events`` (named).
    """
    from dokocam.vision.bench.table import TableBench
    from dokocam.vision.synth.video import Mishaps

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size: WIDTHxHEIGHT in pixels, e.g. 1280x720, got {args.size!r}") from None
    try:
        mishaps = Mishaps.parse(args.events)
    except ValueError as exc:
        raise ValueError(f"--events: {exc}") from None
    named = {f.name: getattr(args, f.name) for f in fields(TableBench) if f.name in vars(args)}
    return TableBench(**{**named, "width": width, "height": height, "decode": args.decoder, "mishaps": mishaps})


def _bench(args: argparse.Namespace) -> int:
    from dokocam.vision.bench.table import run_bench
    from dokocam.vision.decks.store import DeckError
    from dokocam.vision.synth.faces import FaceFolderError
    from dokocam.vision.synth.perturb import PerturbError
    from dokocam.vision.synth.svgdecks import SvgDeckError

    try:
        settings = bench_settings(args)
    except ValueError as exc:
        return _error(str(exc))
    try:
        report = run_bench(settings, progress=print)
    except FaceFolderError as exc:  # the first game's GameVideo reads the folder before drawing anything
        return _error(f"--faces: {exc}")
    except PerturbError as exc:
        return _error(f"--light: {exc}")
    except SvgDeckError as exc:  # a held-out SVG design needs Debian's card decks
        return _error(f"--designs: {exc}")
    except DeckError as exc:  # an unknown or unadapted --deck
        return _error(f"--deck: {exc}")
    print(json.dumps(report["summary"], indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    return 0


def _bench_live(args: argparse.Namespace) -> int:
    from dokocam.demo import DEMO_TRUTH, DEMO_VIDEO
    from dokocam.vision.bench.live import format_table, run_live_bench, write_report

    if args.stride is not None and args.stride < 1:
        return _error(f"--stride must be at least 1, got {args.stride}")
    video = args.video or DEMO_VIDEO
    truth = args.truth or (DEMO_TRUTH if args.video is None else None)
    try:
        detector = _load_detector(None if args.model == "model" else args.model) if args.model else None
        report = run_live_bench(
            hours=args.hours,
            every_minutes=args.every_minutes,
            video=video,
            truth=truth,
            detector=detector,
            detector_label=f"model ({args.model})" if args.model else None,
            stride=args.stride,
            progress=lambda s: print(
                f"  {s.minutes:7.1f} min: RSS {s.rss_mib:.1f} MiB, heap {s.heap_mib:.3f} MiB",
                file=sys.stderr,
                flush=True,
            ),
        )
    except ValueError as exc:
        return _error(str(exc))
    print(format_table(report["samples"]))
    for site in report["top_growth"][:3]:
        print(f"grew most: {site['where']} {site['growth_kib']:+.1f} KiB ({site['blocks']:+d} blocks)")
    print(json.dumps(report["summary"], indent=1))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        write_report(report, args.out)
    return 0
