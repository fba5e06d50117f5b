"""The camera check before play: each finding from a picture, with what to change."""

from __future__ import annotations

import base64

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from dokocam.service.camera_check import MIN_INDEX_PX, check_frame
from dokocam.service.config import Settings
from dokocam.service.feed import RecordedFeed
from dokocam.service.main import create_app


def _table(light: int = 120, index_px: int = 32, blur: int = 0, at: tuple[int, int] = (400, 250)) -> tuple:
    """A felt table with four cards whose corner indices are ``index_px`` tall; their index boxes."""
    rng = np.random.default_rng(0)
    image = np.full((540, 960), light * 0.6, np.float32) + rng.normal(0, 3, (540, 960))
    boxes = []
    for k in range(4):
        x, y = at[0] + k * 40, at[1] + (k % 2) * 30
        image[y : y + 3 * index_px, x : x + 2 * index_px] = min(255, light * 1.6)
        for row in range(3):  # the index: dark strokes the size of a rank and a suit sign
            top = y + 4 + row * index_px // 3
            image[top : top + index_px // 6, x + 4 : x + index_px // 2] = 20
        boxes.append([x + 2, y + 2, x + index_px // 2 + 4, y + index_px + 2])
    image = np.clip(image, 0, 255).astype(np.uint8)
    if blur:
        image = cv2.GaussianBlur(image, (0, 0), blur)
    return image, boxes


def _by_topic(image: np.ndarray, boxes: list, **kw: float) -> dict:
    return {c.topic: c for c in check_frame(image, boxes, **kw)}


def test_a_good_picture_passes_every_check() -> None:
    found = _by_topic(*_table())
    assert all(c.ok for c in found.values()), {t: c.message.de for t, c in found.items()}
    assert set(found) == {"view", "size", "light", "focus"}


def test_each_problem_says_what_to_change() -> None:
    dark = _by_topic(*_table(light=40))["light"]
    assert not dark.ok and "mehr Licht" in dark.message.de and "more light" in dark.message.en
    image, boxes = _table()
    image[:, 800:] = 255  # a lamp's reflection over a sixth of the picture
    glare = _by_topic(image, boxes)["light"]
    assert not glare.ok and "Lampe seitlich" in glare.message.de
    soft = _by_topic(*_table(blur=4))["focus"]
    assert not soft.ok and "scharf stellen" in soft.message.de
    edge = _by_topic(*_table(at=(5, 250)))["view"]
    assert not edge.ok and "links" in edge.message.de


def test_small_indices_ask_for_the_camera_closer_by_how_much() -> None:
    image, boxes = _table(index_px=32)
    small = _by_topic(image, boxes, scale=2.0)["size"]  # the camera's own frame has half the pixels
    assert not small.ok
    px = (boxes[0][3] - boxes[0][1]) / 2.0
    assert f"{px:.0f} px hoch" in small.message.de
    assert f"von 100 cm auf {100 * px / MIN_INDEX_PX:.0f} cm" in small.message.de


def test_no_cards_asks_for_four_cards() -> None:
    image, _ = _table()
    assert check_frame(image, [])[0].message.de.startswith("Keine Karte erkannt")


@pytest.mark.parametrize("light", [120, 40])
def test_the_check_reads_the_newest_camera_frame(tmp_path: object, light: int) -> None:
    image, boxes = _table(light=light)
    frame = {
        "time": 0.1,
        "kind": "frame",
        "index": 1,
        "jpeg": base64.b64encode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()).decode(),
        "width": 960,
        "height": 540,
        "boxes": [{"xyxy": b, "card": "QC", "confidence": 0.9} for b in boxes],
    }
    app = create_app(Settings(db=tmp_path / "t.db"), feed=RecordedFeed([frame], realtime=False))  # type: ignore[operator]
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        import time

        deadline = time.monotonic() + 10
        while app.state.table.frame() is None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        checks = {c["topic"]: c for c in client.get("/camera/check").json()}
    assert checks["light"]["ok"] == (light == 120)
    assert checks["size"]["ok"] and checks["view"]["ok"]


def test_no_camera_is_a_404_in_german(client: TestClient) -> None:
    response = client.get("/camera/check")
    assert response.status_code == 404 and response.json()["detail"].startswith("Noch kein Kamerabild")
