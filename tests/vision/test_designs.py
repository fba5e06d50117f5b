"""The design split, the SVG-deck face source, odd print and webcam optics keep designs apart and labels right."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from dokocam.vision.synth import designs as D
from dokocam.vision.synth.dataset import DeckPool, SceneConfig, design_folders, generate_image
from dokocam.vision.synth.faces import CARD_CODES, FaceStyle, draw_face, write_face_folder
from dokocam.vision.synth.optics import INDEX_PX, MAX_TILT_DEG, SENSORS, index_height_cm, webcam_camera
from dokocam.vision.synth.print import (
    hue_turned,
    inverted,
    light_on_dark,
    suit_coloured,
    weight,
    without_court_indices,
)
from dokocam.vision.synth.scene import Camera, Deck, Look, PlacedCard, Table, render_scene

HAVE_SVG = shutil.which("rsvg-convert") is not None and Path("/usr/share/carddecks/svg-standard").is_dir()


def _fonts(split: D.SplitName) -> set[str]:
    """The font files of a split's font families."""
    return {font for design in D.designs(split) if design.kind == "font" for font in design.fonts}


def test_split_is_fixed_disjoint_and_about_a_quarter_held_out():
    train, held = D.designs("train"), D.designs("heldout")
    assert D.designs("train") == train and D.designs("heldout") == held  # the same every call
    assert {d.name for d in train}.isdisjoint({d.name for d in held})
    assert len(train) + len(held) == len(D.DESIGNS) == len({d.name for d in D.DESIGNS})
    assert 0.2 <= len(held) / len(D.DESIGNS) <= 0.35
    assert _fonts("train").isdisjoint(_fonts("heldout"))
    assert any(d.kind == "font" for d in held) and any(d.kind == "svg" for d in held)
    assert not set(D.split_svg_decks("train")) & set(D.REJECTED_SVG_DECKS)


def test_split_is_written_down_in_the_spec():
    spec = (Path(__file__).parents[2] / "datasets" / "designs.md").read_text()
    for design in D.DESIGNS:
        row = next((line for line in spec.splitlines() if f"`{design.name}`" in line), None)
        assert row is not None, f"{design.name} missing from datasets/designs.md"
        assert ("held out" in row) == (design.split == "heldout"), row


def test_training_decks_never_draw_a_held_out_font():
    pool = DeckPool(seed=3, count=64, designs="train")
    held = _fonts("heldout")
    fonts = {pool.procedural(k).style.font for k in range(64)}
    assert fonts <= _fonts("train") and not fonts & held
    heldout_pool = DeckPool(seed=3, count=64, designs="heldout")
    assert {heldout_pool.procedural(k).style.font for k in range(64)} <= held


def test_training_decks_draw_each_font_family_of_the_split_in_turn():
    families = D.font_families("train")
    assert len(families) > 7  # more than matplotlib's own fonts: Debian's font packages are installed
    pool = DeckPool(seed=3, count=2 * len(families), designs="train")
    drawn = [D.design_of_font(pool.procedural(k).style.font) for k in range(2 * len(families))]
    assert all(design is not None for design in drawn)
    assert sorted(d.name for d in drawn if d) == sorted(2 * [d.name for d in families])


def test_a_font_family_whose_files_are_missing_is_left_out(monkeypatch):
    nowhere = D.Design("font:nowhere", "train", ("/nonexistent/Nowhere-Regular.ttf",))
    monkeypatch.setattr(D, "DESIGNS", (*D.DESIGNS, nowhere))
    assert nowhere in D.designs("train") and nowhere not in D.font_families("train")
    assert DeckPool(seed=3, count=64, designs="train").procedural(0).style.font != nowhere.fonts[0]


def test_scenes_name_the_design_they_were_drawn_in(tmp_path):
    write_face_folder(tmp_path / "my-deck", FaceStyle(width=60), seed=1)
    config = SceneConfig(imgsz=160, folder_fraction=0.5)
    held = {d.name for d in D.designs("heldout")}
    pool = DeckPool(seed=5, count=4, folders=[tmp_path / "my-deck"], designs="heldout")
    names = [generate_image(i, 5, config, pool)[1].to_dict()["design"] for i in range(8)]
    assert set(names) - {"folder:my-deck"} and set(names) - {"folder:my-deck"} <= held, names
    assert "folder:my-deck" in names


def test_training_data_refuses_a_held_out_face_folder(tmp_path):
    folder = tmp_path / "xskat-french-360"  # named as the held-out SVG deck's cache folder
    write_face_folder(folder, FaceStyle(width=60), seed=1)
    with pytest.raises(ValueError, match="held"):
        design_folders([folder], "train")
    assert design_folders([folder], None) == [folder]  # without --designs a folder is the user's choice


@pytest.mark.skipif(not HAVE_SVG, reason="kdegames-card-data-kf5 and librsvg2-bin are not installed")
def test_svg_deck_rasterizes_24_faces_with_labels_on_the_index_ink(tmp_path):
    from dokocam.vision.synth.faces import load_face_folder
    from dokocam.vision.synth.svgdecks import element_id, find_svg_decks, rasterize_deck

    deck = next(d for d in find_svg_decks() if d.name == "standard")
    folder = rasterize_deck(deck, tmp_path, width=360)  # the width scenes use
    assert sorted(p.stem for p in folder.glob("*.png")) == sorted(CARD_CODES)
    assert rasterize_deck(deck, tmp_path, width=360) == folder  # cached
    faces = load_face_folder(folder)
    for code, face in faces.items():
        w, h = face.size
        assert 1.3 < h / w < 1.6, code  # the card alone, not the sheet
        x0, y0 = face.indices[0].min(axis=0)
        x1, y1 = face.indices[0].max(axis=0)
        # The index hugs the ink in the top-left corner: small, near the corner, and ink inside it.
        assert x1 < 0.3 * w and y1 < 0.35 * h and (y1 - y0) > 0.08 * h, code
        patch = face.image[int(y0) : int(y1), int(x0) : int(x1)].astype(int)
        assert (np.abs(patch - np.median(patch.reshape(-1, 3), axis=0)).max(axis=2) > 60).mean() > 0.1, code
    assert element_id("QH") == "queen_heart"


def test_odd_print_keeps_labels_and_marks_the_ink():
    style = FaceStyle(width=120)
    face = draw_face("QH", style, seed=2)
    for changed in (
        light_on_dark(face, (20, 20, 20), (60, 180, 225), metallic=0.5, angle_deg=30),
        inverted(face),
        hue_turned(face, 120),
        suit_coloured(face),
        weight(face, 2),
        weight(face, -1),
    ):
        assert changed.image.shape == face.image.shape
        assert len(changed.indices) == len(face.indices)
        assert all(np.array_equal(a, b) for a, b in zip(changed.indices, face.indices))
        assert not np.array_equal(changed.image, face.image)
    dark = light_on_dark(face, (20, 20, 20), (240, 240, 240))
    assert np.median(dark.image[face.mask > 0]) < 60  # the stock is dark now
    x0, y0 = face.indices[0].min(axis=0).astype(int)
    x1, y1 = face.indices[0].max(axis=0).astype(int)
    assert dark.image[y0:y1, x0:x1].max() > 200  # the index is light ink on it
    bare = without_court_indices(face)
    assert bare.indices == () and without_court_indices(draw_face("9H", style, seed=2)).indices


def test_a_two_ink_dark_deck_prints_red_suits_in_the_second_ink():
    style = FaceStyle(width=120)
    gold, white = (60, 180, 225), (240, 240, 240)
    for code, ink in (("QH", gold), ("QS", white)):
        face = draw_face(code, style, seed=2)
        b, g, r = (face.image[..., k].astype(int) for k in range(3))
        full = np.abs(face.image.astype(int) - np.median(face.image[face.mask > 0], axis=0)).max(axis=2) > 150
        suit = full & ((r > g + 60) & (r > b + 60) if code == "QH" else (r < 80))  # the suit's full ink
        assert suit.sum() > 50, code
        dark = light_on_dark(face, (20, 20, 20), white, red_ink=gold)
        assert np.abs(np.median(dark.image[suit], axis=0) - ink).max() < 30, code


def test_webcam_camera_makes_small_indices_on_webcam_sensors():
    deck = Deck.procedural(seed=4, face_width=200)
    rng = np.random.default_rng(0)
    for _ in range(20):
        camera = webcam_camera(rng, deck, Camera())
        assert (camera.width, camera.height) in SENSORS
        assert 0 <= camera.tilt_deg <= MAX_TILT_DEG
        px = camera.width / camera.view_width_cm * index_height_cm(deck)
        assert INDEX_PX[0] - 0.5 <= px <= INDEX_PX[1] + 0.5 or camera.view_width_cm in (50.0, 260.0)


def test_labels_follow_the_index_under_tilt_and_wide_angle_distortion():
    # A face whose index is a pure red block on white: the label box must sit on the red pixels.
    style = FaceStyle(width=200, stock=(255, 255, 255))
    face = draw_face("9C", style, seed=1)
    image = np.full_like(face.image, 255)
    x0, y0 = face.indices[0].min(axis=0).astype(int)
    x1, y1 = face.indices[0].max(axis=0).astype(int)
    image[y0:y1, x0:x1] = (0, 0, 255)
    red = type(face)(face.code, image, face.mask, face.indices[:1])
    deck = Deck(style, 1, faces={code: red for code in CARD_CODES})
    for tilt, k1 in ((0.0, 0.0), (45.0, 0.25), (30.0, 0.15)):
        camera = Camera(width=640, height=480, view_width_cm=30, tilt_deg=tilt, tilt_toward_deg=60, k1=k1, fov_deg=90)
        scene, notes = render_scene(
            deck, Table.random(1), [PlacedCard("9C", (4.0, -3.0), 20)], camera, look=Look(), seed=1
        )
        is_red = (scene[:, :, 2] > 150) & (scene[:, :, 0] < 100) & (scene[:, :, 1] < 100)
        ys, xs = np.nonzero(is_red)
        ((_, box),) = notes.boxes("corners")
        assert abs(xs.mean() - (box[0] + box[2]) / 2) < 2 and abs(ys.mean() - (box[1] + box[3]) / 2) < 2, (tilt, k1)
        assert box[0] - 2 <= xs.min() and xs.max() <= box[2] + 2 and box[1] - 2 <= ys.min() and ys.max() <= box[3] + 2


def test_webcam_and_odd_print_scenes_are_deterministic_and_labelled():
    config = SceneConfig(closeup_fraction=0.0, webcam_fraction=1.0, odd_print=1.0, designs="train")
    pool = DeckPool(seed=9, count=8, designs="train")
    image, notes = generate_image(0, 9, config, pool)
    again, notes2 = generate_image(0, 9, config, DeckPool(seed=9, count=8, designs="train"))
    assert (image.shape[1], image.shape[0]) in SENSORS and np.array_equal(image, again)
    assert notes.look.get("webcam") and notes.yolo_lines("corners") == notes2.yolo_lines("corners")
