"""The synthetic-scene generator: labels follow what is drawn, output is repeatable, the CLI writes a dataset."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from dokocam.vision.synth import Arm, Camera, Deck, Face, Look, PlacedCard, Table, load_face_folder, render_scene
from dokocam.vision.synth.dataset import DeckPool, SceneConfig, generate_image
from dokocam.vision.synth.faces import CARD_CODES, FaceFolderError, FaceStyle, card_index, draw_face, rounded_mask
from dokocam.vision.synth.textures import Surface

FLAT = Look()  # no light, blur, noise or JPEG: colours stay exact enough to find again
GREY_TABLE = Table(Surface("plastic", ((90, 90, 90), (90, 90, 90)), 1.0, seed=0), FLAT)


PALETTE = [(0, 0, 255), (0, 255, 0), (255, 0, 0), (0, 255, 255), (255, 0, 255), (255, 255, 0)]


def _colour(k: int) -> tuple[int, int, int]:
    return PALETTE[k % len(PALETTE)]


def _coded_deck(codes: list[str]) -> Deck:
    """A deck whose faces are white, with index ``j`` of ``codes[k]`` in colour ``2k + j``."""
    faces = {}
    w, h = 200, 300
    for code in CARD_CODES:
        image = np.full((h, w, 3), 255, np.uint8)
        quads = (
            np.array([[10, 10], [50, 10], [50, 70], [10, 70]], np.float32),
            np.array([[150, 230], [190, 230], [190, 290], [150, 290]], np.float32),
        )
        if code in codes:
            k = codes.index(code)
            for j, quad in enumerate(quads):
                x0, y0 = quad.min(axis=0).astype(int)
                x1, y1 = quad.max(axis=0).astype(int)
                image[y0:y1, x0:x1] = _colour(2 * k + j)
        faces[code] = Face(code, image, rounded_mask(w, h, 8), quads)
    return Deck.from_faces(faces, seed=0, width_cm=6.0)


def _pixels_of(
    image: np.ndarray, colour: tuple[int, int, int], others: tuple[tuple[int, int, int], ...] | None = None
) -> np.ndarray:
    """Pixels nearer to ``colour`` than to every other colour drawn (more than half covered)."""
    if others is None:
        others = tuple(c for c in PALETTE if c != colour) + ((255, 255, 255), (90, 90, 90))
    pixels = image.astype(int)
    near = np.abs(pixels - colour).sum(axis=2)
    return np.all([near < np.abs(pixels - other).sum(axis=2) for other in others], axis=0)


def _box_of(mask: np.ndarray) -> list[float]:
    ys, xs = np.nonzero(mask)
    return [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]


def _iou(a: list[float], b: list[float]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


TILTED = Camera(width=800, height=600, view_width_cm=17, tilt_deg=28, tilt_toward_deg=60, yaw_deg=25, k1=0.12)


@pytest.mark.parametrize(
    "card",
    [PlacedCard("QC", (-1.5, 0.5), 15), PlacedCard("10H", (1, -1), -70), PlacedCard("AS", (1.5, 1), 170)],
    ids=["QC", "10H", "AS"],
)
def test_corner_boxes_match_the_drawn_indices_through_tilt_and_distortion(card: PlacedCard) -> None:
    deck = _coded_deck([card.code])
    image, annotation = render_scene(deck, GREY_TABLE, [card], TILTED, look=FLAT)
    (drawn_card,) = annotation.cards
    assert drawn_card.class_id == card_index(card.code)
    for j, box in enumerate(drawn_card.index_boxes):
        drawn = _pixels_of(image, _colour(j))
        assert drawn.sum() > 100, "both indices of this card are in view"
        assert drawn_card.index_visibility[j] > 0.9
        assert box is not None and _iou(box, _box_of(drawn)) > 0.9
    assert len(annotation.yolo_lines("corners")) == 2


def test_card_boxes_match_the_card_pixels() -> None:
    deck = _coded_deck(["KD"])
    image, annotation = render_scene(deck, GREY_TABLE, [PlacedCard("KD", (1, 1), 33)], TILTED, look=FLAT)
    card_pixels = _pixels_of(image, (255, 255, 255), others=((90, 90, 90),))
    ((class_id, box),) = annotation.boxes("cards")
    assert class_id == card_index("KD")
    assert _iou(box, _box_of(card_pixels)) > 0.9


def test_hidden_corners_give_no_box() -> None:
    codes = ["JH", "9D"]
    deck = _coded_deck(codes)
    # 9D lies over JH's bottom-right index; an arm covers JH's top-left one.
    cards = [PlacedCard("JH", (0, 0), 0), PlacedCard("9D", (4, 5), 10)]
    arm = Arm(start=(-40, -3), end=(-3.5, -4.0), width_cm=5)
    image, annotation = render_scene(deck, GREY_TABLE, cards, Camera(view_width_cm=40), [arm], look=FLAT)
    jh, nine = annotation.cards
    assert jh.index_visibility[0] < 0.6 and jh.index_visibility[1] < 0.6
    assert _pixels_of(image, _colour(1)).sum() < 0.4 * (_pixels_of(image, _colour(2)).sum())
    corner_classes = [c for c, _ in annotation.boxes("corners")]
    assert card_index("JH") not in corner_classes
    assert corner_classes.count(card_index("9D")) == 2
    # JH still shows more than half of itself? Only then does the whole-card target keep it.
    card_classes = [c for c, _ in annotation.boxes("cards")]
    assert (card_index("JH") in card_classes) == (jh.visible_fraction >= 0.5)


def test_cards_outside_the_image_are_not_labelled() -> None:
    deck = _coded_deck(["AC"])
    _, annotation = render_scene(deck, GREY_TABLE, [PlacedCard("AC", (80, 0), 0)], Camera(view_width_cm=40), look=FLAT)
    assert annotation.boxes("both") == []


def test_face_down_cards_hide_and_are_not_labelled() -> None:
    deck = Deck.procedural(seed=1, face_width=120)
    cards = [PlacedCard("QC", (0, 0), 0), PlacedCard("QC", (0, 0), 0, face_up=False)]
    _, annotation = render_scene(deck, GREY_TABLE, cards, Camera(view_width_cm=30), look=FLAT)
    assert annotation.boxes("both") == []
    assert annotation.cards[1].class_id is None


def test_cards_outside_the_deck_are_ignored_not_labelled() -> None:
    deck = Deck.procedural(seed=1, face_width=120)
    cards = [PlacedCard("7H", (-4, 0), 0), PlacedCard("QC", (4, 0), 0), PlacedCard("8S", (0, 6), 0, face_up=False)]
    _, annotation = render_scene(deck, GREY_TABLE, cards, Camera(view_width_cm=30), look=FLAT)
    seven = annotation.cards[0]
    assert seven.class_id is None
    assert {c for c, _ in annotation.boxes("corners")} == {card_index("QC")}
    # The 7's indices, by the labels' own rule; the face-down 8 shows nothing.
    shown = [b for b, v in zip(seven.index_boxes, seven.index_visibility) if b is not None and v >= 0.6]
    assert annotation.ignore_boxes("corners") == [("7H", b) for b in shown] and len(shown) >= 2
    assert annotation.ignore_boxes("cards") == [("7H", seven.box)]
    assert all(line.startswith("7H 0.") for line in annotation.ignore_lines("corners"))


def test_same_seed_gives_identical_images_and_labels() -> None:
    config = SceneConfig(imgsz=192, procedural_decks=2)
    runs = []
    for _ in range(2):
        pool = DeckPool(seed=5, count=2)
        runs.append([generate_image(i, 5, config, pool) for i in range(3)])
    for (image_a, ann_a), (image_b, ann_b) in zip(*runs):
        assert np.array_equal(image_a, image_b)
        assert ann_a.yolo_lines("both") == ann_b.yolo_lines("both")
    other = generate_image(0, 6, config, DeckPool(seed=6, count=2))[0]
    assert not np.array_equal(other, runs[0][0][0])


def test_near_closeups_show_larger_indices_and_leave_other_scenes_alone() -> None:
    def largest_index(config: SceneConfig) -> list[float]:
        pool = DeckPool(seed=10, count=4)
        heights = []
        for i in range(16):
            lines = generate_image(i, 10, config, pool)[1].yolo_lines("corners")
            if lines:  # a corner held close may have its index just out of the frame
                heights.append(max(float(line.split()[4]) for line in lines))
        return heights

    base = SceneConfig(imgsz=160, procedural_decks=4, closeup_fraction=1.0)
    far = largest_index(base)
    near = largest_index(SceneConfig(imgsz=160, procedural_decks=4, closeup_fraction=1.0, near_fraction=1.0))
    # Held over a corner, the largest index is about a tenth to a quarter of the frame.
    assert np.median(near) > 1.3 * np.median(far)
    assert np.median(near) >= 0.12
    # near_fraction 0 draws nothing more: the seed's scenes stay as they were.
    unchanged = SceneConfig(imgsz=160, procedural_decks=4, near_fraction=0.0)
    assert generate_image(3, 10, unchanged, DeckPool(10, 4))[1].yolo_lines("both") == generate_image(
        3, 10, SceneConfig(imgsz=160, procedural_decks=4), DeckPool(10, 4)
    )[1].yolo_lines("both")


def test_cli_rejects_a_near_fraction_out_of_range(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--near-fraction must be in"):
        _cli(["dataset", "generate", str(tmp_path / "out"), "--images", "1", "--near-fraction", "1.5"])


def test_procedural_faces_record_indices_inside_the_card() -> None:
    style = FaceStyle.random(np.random.default_rng(3), width=160)
    for code in ("9C", "10S", "QH", "AD"):
        face = draw_face(code, style, seed=3)
        w, h = face.size
        assert len(face.indices) in (2, 4)
        for quad in face.indices:
            assert quad.min() >= 0 and quad[:, 0].max() <= w and quad[:, 1].max() <= h
            # The index is ink on card stock: it must differ from plain stock.
            x0, y0 = quad.min(axis=0).astype(int)
            x1, y1 = quad.max(axis=0).astype(int)
            assert np.abs(face.image[y0:y1, x0:x1].astype(int) - style.stock).max() > 60


def test_class_ids_follow_the_interface_contract() -> None:
    assert [card_index(c) for c in ("9C", "QC", "9S", "AD")] == [0, 3, 6, 23]
    engine = pytest.importorskip("engine")
    assert tuple(engine.CARD_CODES) == CARD_CODES


def _face_folder(tmp_path: Path, skip: str | None = None, extra: str | None = None) -> Path:
    folder = tmp_path / "faces"
    folder.mkdir()
    for code in CARD_CODES:
        if code != skip:
            cv2.imwrite(str(folder / f"{code}.png"), np.full((60, 40, 3), 200, np.uint8))
    if extra:
        cv2.imwrite(str(folder / extra), np.zeros((60, 40, 3), np.uint8))
    (folder / "README.txt").write_text("not an image, ignored")
    return folder


def test_face_folder_loads_every_code(tmp_path: Path) -> None:
    faces = load_face_folder(_face_folder(tmp_path))
    assert sorted(faces) == sorted(CARD_CODES)
    quad = faces["QC"].indices[0]
    assert quad[:, 0].max() <= 40 * 0.25 and quad[:, 1].max() <= 60 * 0.3


def test_face_folder_names_the_missing_face(tmp_path: Path) -> None:
    with pytest.raises(FaceFolderError, match="lacks faces for 10H"):
        load_face_folder(_face_folder(tmp_path, skip="10H"))


def test_face_folder_rejects_badly_named_files(tmp_path: Path) -> None:
    with pytest.raises(FaceFolderError, match="Queen_of_clubs.png not named by card code"):
        load_face_folder(_face_folder(tmp_path, extra="Queen_of_clubs.png"))


def _cli(argv: list[str]) -> int:
    from dokocam.service.cli import build_parser

    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


def test_cli_faces_writes_a_loadable_deck_in_the_font_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dokocam.vision.synth.faces import _FONT_DIR

    assert _cli(["dataset", "faces", str(tmp_path / "plain"), "--seed", "3", "--width", "120"]) == 0
    # Any TrueType file by path; this one is not among the generator's fonts.
    other = (
        _FONT_DIR / "DejaVuSansMono-Oblique.ttf"
        if (_FONT_DIR / "DejaVuSansMono-Oblique.ttf").exists()
        else _FONT_DIR / "cmtt10.ttf"
    )
    assert (
        _cli(["dataset", "faces", str(tmp_path / "other"), "--seed", "3", "--width", "120", "--font", str(other)]) == 0
    )
    assert other.name in capsys.readouterr().out
    plain, mono = load_face_folder(tmp_path / "plain"), load_face_folder(tmp_path / "other")
    assert sorted(plain) == sorted(mono) == sorted(CARD_CODES)
    assert plain["QC"].size == (120, Deck.procedural(3, face_width=120).style.height)
    # Same deck style, other lettering: the index corner differs, the middle of a pip card does not.
    x0, y0, x1, y1 = (int(v) for v in (*plain["QC"].indices[0].min(0), *plain["QC"].indices[0].max(0)))
    assert np.abs(plain["QC"].image[y0:y1, x0:x1].astype(int) - mono["QC"].image[y0:y1, x0:x1]).mean() > 5
    h, w = plain["9H"].image.shape[:2]
    assert np.array_equal(
        plain["9H"].image[h // 3 : 2 * h // 3, w // 3 : 2 * w // 3],
        mono["9H"].image[h // 3 : 2 * h // 3, w // 3 : 2 * w // 3],
    )


def test_cli_faces_refuses_a_file_that_is_not_a_font(tmp_path: Path) -> None:
    (tmp_path / "notes.ttf").write_text("not a font")
    with pytest.raises(SystemExit, match="not a font PIL can read"):
        _cli(["dataset", "faces", str(tmp_path / "out"), "--font", str(tmp_path / "notes.ttf")])
    with pytest.raises(SystemExit, match="no such file"):
        _cli(["dataset", "faces", str(tmp_path / "out"), "--font", str(tmp_path / "missing.ttf")])
    assert not (tmp_path / "out").exists()


def test_cli_generate_writes_a_repeatable_yolo_dataset(tmp_path: Path) -> None:
    faces = _face_folder(tmp_path)
    common = [
        "--images",
        "4",
        "--seed",
        "11",
        "--imgsz",
        "160",
        "--val-fraction",
        "0.25",
        "--target",
        "both",
        "--faces",
        str(faces),
    ]
    assert _cli(["dataset", "generate", str(tmp_path / "a"), *common]) == 0
    assert _cli(["dataset", "generate", str(tmp_path / "b"), *common]) == 0
    a, b = tmp_path / "a", tmp_path / "b"
    assert len(list((a / "images" / "train").glob("*.jpg"))) == 3
    assert len(list((a / "images" / "val").glob("*.jpg"))) == 1
    assert len(list((a / "meta" / "train").glob("*.json"))) == 3
    for meta in (a / "meta").rglob("*.json"):
        look = json.loads(meta.read_text())["look"]
        # The flag `dokocam eval` splits by is the renderer's own rule, from the same numbers.
        assert look["blurred"] == Look(motion_blur_px=look["motion_blur_px"], focus_blur_px=look["focus_blur_px"]).blurs
    labels = sorted((a / "labels").rglob("*.txt"))
    assert len(labels) == 4
    # Cards outside the deck: ignore/ files (seed 11 draws some), read back by eval's reader.
    ignored = sorted((a / "ignore").rglob("*.txt"))
    assert ignored and all(f.read_bytes() == (b / f.relative_to(a)).read_bytes() for f in ignored)
    from dokocam.vision.yolo import read_folder

    split = ignored[0].parent.name
    item = next(i for i in read_folder(a, split=split).items if i.image.stem == ignored[0].stem)
    assert len(item.ignore_cxcywh) == len(ignored[0].read_text().splitlines()) > 0
    for label in labels:
        assert label.read_bytes() == (b / label.relative_to(a)).read_bytes()
        for line in label.read_text().splitlines():
            cls, *xywh = line.split()
            assert 0 <= int(cls) < 24 and all(0 <= float(v) <= 1 for v in xywh)
    import yaml

    data = yaml.safe_load((a / "data.yaml").read_text())
    assert [data["names"][i] for i in range(24)] == list(CARD_CODES)
    assert Path(data["path"]) == a.resolve()
    assert data["target"] == "both"


def test_cli_reports_a_broken_face_folder(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="lacks faces for AS"):
        _cli(
            [
                "dataset",
                "generate",
                str(tmp_path / "out"),
                "--images",
                "1",
                "--faces",
                str(_face_folder(tmp_path, skip="AS")),
            ]
        )


def test_workers_do_not_change_the_output(tmp_path: Path) -> None:
    from dokocam.vision.synth.dataset import write_dataset

    config = SceneConfig(imgsz=128, procedural_decks=2)
    for name, workers in (("one", 1), ("two", 2)):
        for _ in write_dataset(tmp_path / name, 4, seed=9, config=config, workers=workers):
            pass
    one = sorted(
        p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file() and p.name != "data.yaml"
    )
    # 4 images, 4 labels, 4 geometry files, and an ignore file for each image that shows a card outside the deck
    assert len([p for p in one if p.parts[0] != "ignore"]) == 12
    assert one == sorted(
        p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*") if p.is_file() and p.name != "data.yaml"
    )
    for rel in one:
        assert (tmp_path / "one" / rel).read_bytes() == (tmp_path / "two" / rel).read_bytes(), rel


def test_generation_does_not_import_torch(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from dokocam.service.cli import main; "
        "main(['dataset', 'generate', sys.argv[1], '--images', '1', '--imgsz', '96']); "
        "print('torch' in sys.modules, 'ultralytics' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "out")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip().splitlines()[-1] == "False False"


@pytest.mark.parametrize("kind", ["wood", "felt", "cloth", "plastic", "stone", "pattern", "glass"])
def test_every_surface_kind_renders_a_textured_image(kind: str) -> None:
    from dokocam.vision.synth.textures import SURFACE_KINDS

    assert kind in SURFACE_KINDS
    surface = Surface(kind, ((120, 150, 180), (60, 80, 100)), 1.0, seed=4)
    image = surface.render(96, 64, 0.2)
    assert image.shape == (64, 96, 3) and image.dtype == np.uint8
    assert image.std() > 1.0  # a texture, not a flat fill
    assert np.array_equal(image, surface.render(96, 64, 0.2))


def test_boxes_reject_unknown_targets_and_drop_tiny_ones() -> None:
    deck = _coded_deck(["KC"])
    _, annotation = render_scene(
        deck, GREY_TABLE, [PlacedCard("KC", (0, 0), 0)], Camera(width=160, height=160, view_width_cm=20), look=FLAT
    )
    assert len(annotation.boxes("corners")) == 2
    assert annotation.boxes("corners", min_size=200) == []
    with pytest.raises(ValueError, match="target must be one of"):
        annotation.boxes("whole")


@pytest.mark.parametrize("k1", [-0.08, 0.15])
def test_lens_distortion_of_points_inverts_the_pixel_map(k1: float) -> None:
    camera = Camera(width=640, height=480, k1=k1)
    ideal = np.random.default_rng(0).uniform([0, 0], [640, 480], size=(50, 2))
    delivered = camera.distort(ideal)
    # The pixel map sends a delivered pixel back to the ideal image: p_u = c + (p_d - c)(1 + k1 r_d^2).
    c = np.array([320.0, 240.0])
    r2 = (((delivered - c) / np.hypot(320, 240)) ** 2).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(c + (delivered - c) * (1 + k1 * r2), ideal, atol=1e-6)
    assert (np.abs(delivered - ideal).max() > 5) and (k1 > 0) == (
        np.linalg.norm(delivered - c, axis=1) < np.linalg.norm(ideal - c, axis=1)
    ).all()


def test_props_lie_under_the_cards_and_are_never_labelled() -> None:
    from dokocam.vision.synth import Prop

    deck = _coded_deck(["QS"])
    phone = Prop(((-4.0, -8.0), (4.0, -8.0), (4.0, 8.0), (-4.0, 8.0)), (30, 30, 30), height_cm=0.8)
    image, annotation = render_scene(
        deck, GREY_TABLE, [PlacedCard("QS", (1, 1), 20)], Camera(view_width_cm=30), props=[phone], look=FLAT
    )
    assert len(annotation.boxes("corners")) == 2 and annotation.cards[0].visible_fraction > 0.95
    assert (
        _pixels_of(image, (30, 30, 30), others=((90, 90, 90), (255, 255, 255))).sum() > 500
    )  # the phone shows beside the card


def test_a_drawn_deck_read_back_from_its_folder_keeps_its_index_boxes(tmp_path: Path) -> None:
    from dokocam.vision.detector.matching import box_iou
    from dokocam.vision.synth.faces import CARD_CODES, FOLDER_INDEX_BOX, draw_face, write_face_folder
    from dokocam.vision.synth.scene import Deck

    def box(quad: np.ndarray) -> np.ndarray:
        return np.concatenate([quad.min(0), quad.max(0)])[None]

    found, region = [], []
    for seed in (3, 11, 40, 51):  # plain and serif fonts, German letters, large indices
        style = Deck.procedural(seed, face_width=240).style
        write_face_folder(tmp_path / str(seed), style, seed=seed)
        faces = load_face_folder(tmp_path / str(seed))
        for code in CARD_CODES:
            drawn, read = box(draw_face(code, style, seed).indices[0]), box(faces[code].indices[0])
            w, h = faces[code].size
            found.append(box_iou(read, drawn)[0, 0])
            region.append(box_iou(np.array([[0, 0, FOLDER_INDEX_BOX[2] * w, FOLDER_INDEX_BOX[3] * h]]), drawn)[0, 0])
    # The folder's label hugs the printed index, as the drawn deck's own label does; the fixed corner region did not.
    assert np.median(found) > 0.9 and min(found) > 0.6
    assert np.median(region) < 0.7


def test_a_face_without_ink_in_its_corner_keeps_the_corner_region(tmp_path: Path) -> None:
    from dokocam.vision.synth.faces import FOLDER_INDEX_BOX

    faces = load_face_folder(_face_folder(tmp_path))  # plain grey faces
    w, h = faces["QC"].size
    quad = faces["QC"].indices[0]
    assert np.allclose([quad[:, 0].max(), quad[:, 1].max()], [FOLDER_INDEX_BOX[2] * w, FOLDER_INDEX_BOX[3] * h])


def test_a_dataset_from_a_face_folder_generates_with_worker_processes(tmp_path: Path) -> None:
    import subprocess
    import sys

    from dokocam.vision.synth.faces import write_face_folder
    from dokocam.vision.synth.scene import Deck

    # The parent reads the folder (and finds its indices) before it forks its workers; nothing it does
    # there may leave a lock the workers then wait on for ever (OpenCV's thread pool did).
    write_face_folder(tmp_path / "deck", Deck.procedural(7, face_width=160).style, seed=7)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "dokocam.service.cli",
            "dataset",
            "generate",
            str(tmp_path / "out"),
            "--images",
            "4",
            "--seed",
            "1",
            "--faces",
            str(tmp_path / "deck"),
            "--workers",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert len(list((tmp_path / "out" / "labels").rglob("*.txt"))) == 4
