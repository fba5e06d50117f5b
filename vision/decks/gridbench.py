"""How often grid enrolment works: rendered grid photos of drawn decks on ordinary, pale and glaring tables.

Each seed draws its own deck, table, light, camera tilt and the side of the table the photo is taken
from; the seed's remainder by four chooses the condition (:data:`CONDITIONS`). A photo counts as
enrolled when :func:`~vision.decks.enrol.enrol_grid` accepts it and every card's outline lies within
:data:`MAX_CORNER_ERROR` of its rendered corners, the face's top-left first; a refusal or an outline off
is a failure. The same photo with one card taken away must be refused, naming the empty place.
Run it as ``python -m dokocam.vision.decks.gridbench FIRST LAST``.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from dokocam.vision.decks.layout import COLUMNS, GridShot, place_name, render_grid, render_grid_scene
from dokocam.vision.synth.faces import CARD_CODES, Face, FaceStyle, draw_face
from dokocam.vision.synth.scene import Look, Table
from dokocam.vision.synth.textures import Surface

CONDITIONS = ("any", "pale", "glare", "pale+glare")
MAX_CORNER_ERROR = 0.05  # of the card's width: an enrolled outline off by more crops the face visibly


def pale_surface(rng: np.random.Generator) -> Surface:
    """A table nearly as light as card stock: white-washed wood, a light cloth, plastic or stone."""
    kind = str(rng.choice(["wood", "cloth", "plastic", "stone"]))
    grey = float(rng.uniform(185, 235))
    b, g, r = (int(np.clip(grey + rng.normal(0, 6), 0, 255)) for _ in range(3))
    base = (b, g, r)
    accent = (int(b * rng.uniform(0.85, 0.97)), int(g * rng.uniform(0.85, 0.97)), int(r * rng.uniform(0.85, 0.97)))
    scale = float(rng.uniform(0.3, 1.2) if kind == "wood" else rng.uniform(0.1, 3.0))
    return Surface(kind, (base, accent), scale, int(rng.integers(2**31)))


def grid_case(seed: int) -> tuple[dict[str, Face], GridShot, Table, Look, str]:
    """The deck, shot, table, light and condition of benchmark photo ``seed``."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 4242]))
    style = FaceStyle.random(rng, width=300)
    faces = {code: draw_face(code, style, seed) for code in CARD_CODES}
    condition = CONDITIONS[seed % len(CONDITIONS)]
    table = Table.random(seed)
    if "pale" in condition:
        table = Table(pale_surface(rng), table.look)
    # The grid test is about finding cards: blur belongs to the blurred-photo refusal, not here.
    look = replace(table.look, motion_blur_px=0.0, focus_blur_px=min(table.look.focus_blur_px, 1.0))
    if "glare" in condition:
        look = replace(look, glare=float(rng.uniform(0.5, 0.9)), light_gradient=float(rng.uniform(0.2, 0.5)))
    shot = GridShot(turn=int(rng.integers(4)), tilt_deg=float(rng.uniform(0, 15)))
    return faces, shot, table, look, condition


def misplaced(enrolled: dict[str, np.ndarray], annotation: Any, tolerance: float = MAX_CORNER_ERROR) -> list[str]:
    """The codes whose enrolled outline lies off the card's true corners by more than ``tolerance`` of its
    width (at any corner; the face's top-left must be the true top-left)."""
    truth = {card.code: np.asarray(card.corners, np.float64) for card in annotation.cards}
    wrong = []
    for code, corners in enrolled.items():
        true = truth[code]
        width = float(np.linalg.norm(true[1] - true[0]))
        if float(np.linalg.norm(corners - true, axis=1).max()) > tolerance * width:
            wrong.append(code)
    return wrong


def run(seeds: range, reader: object | None = None) -> list[dict[str, Any]]:
    """One row per seed: ``seed``, ``condition``, ``ok``, ``message`` (a refusal's first line or the wrong
    faces), ``seconds`` (enrolment only)."""
    from dokocam.vision.decks.enrol import EnrolmentError, enrol_grid, shipped_reader

    reader = reader or shipped_reader()
    rows = []
    for seed in seeds:
        faces, shot, table, look, condition = grid_case(seed)
        photo, annotation = render_grid_scene(faces, shot, seed=seed, look=look, table=table)
        start = time.monotonic()
        try:
            enrolment = enrol_grid(photo, reader=reader)
            wrong = misplaced(enrolment.outlines, annotation)
            ok, message = not wrong, f"outlines off: {' '.join(wrong)}" if wrong else ""
        except EnrolmentError as exc:
            ok, message = False, str(exc).splitlines()[0]
        seconds = round(time.monotonic() - start, 2)
        # The same photo with one card taken away must be refused, naming its place (no card made up).
        empty = divmod(int(np.random.default_rng(seed).integers(len(CARD_CODES))), COLUMNS)
        photo = render_grid(faces, shot, seed=seed, look=look, table=table, codes={empty: None})
        try:
            enrol_grid(photo, reader=reader)
            refused, why = False, "a photo with an empty place was enrolled"
        except EnrolmentError as exc:
            refused, why = f"Leer: {place_name(*empty)} " in str(exc), str(exc).splitlines()[0]
        rows.append(
            {
                "seed": seed,
                "condition": condition,
                "ok": ok,
                "message": message,
                "seconds": seconds,
                "empty_place_refused": refused,
                "empty_place_message": "" if refused else why,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=int, help="the first seed")
    parser.add_argument("last", type=int, help="the last seed (inclusive)")
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--save", help="write each photo as SEED.jpg into this folder")
    args = parser.parse_args(argv)
    seeds = range(args.first, args.last + 1)
    if args.save:
        from pathlib import Path

        Path(args.save).mkdir(parents=True, exist_ok=True)
        for seed in seeds:
            faces, shot, table, look, _ = grid_case(seed)
            cv2.imwrite(f"{args.save}/{seed}.jpg", render_grid(faces, shot, seed=seed, look=look, table=table))
    rows = []
    for row in run(seeds):
        rows.append(row)
    for row in rows:
        print(
            f"{row['seed']} {row['condition']:<10} {'ok' if row['ok'] else 'FAIL'} {row['seconds']}s {row['message']}"
            + ("" if row["empty_place_refused"] else f" | EMPTY PLACE NOT REFUSED: {row['empty_place_message']}")
        )
    for condition in CONDITIONS:
        part = [r for r in rows if r["condition"] == condition]
        if part:
            print(f"{condition}: {sum(r['ok'] for r in part)}/{len(part)}")
    print(f"all: {sum(r['ok'] for r in rows)}/{len(rows)} enrolled with every face right")
    print(f"empty place refused by name: {sum(r['empty_place_refused'] for r in rows)}/{len(rows)}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
