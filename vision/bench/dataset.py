"""Measures generation speed: dataset images per second and whole-table video frames."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import numpy as np

from dokocam.vision.synth.dataset import DeckPool, SceneConfig, generate_image
from dokocam.vision.synth.scene import Arm, Camera, Deck, Look, PlacedCard, Table, render_scene


@dataclass(frozen=True)
class BenchResult:
    """Wall-clock and CPU-time rates (CPU time is what counts on a machine shared with others)."""

    dataset_images_per_s: float
    dataset_images_per_cpu_s: float
    video_ms_median: float
    video_cpu_ms_median: float
    video_ms_clean_median: float
    video_cpu_ms_clean_median: float

    def __str__(self) -> str:
        return (
            f"dataset images, one process: {self.dataset_images_per_s:.1f} images/s wall, "
            f"{self.dataset_images_per_cpu_s:.1f} per CPU-second\n"
            f"1280x720 table frame, photo look (lens, JPEG): {self.video_ms_median:.1f} ms wall, "
            f"{self.video_cpu_ms_median:.1f} ms CPU (medians)\n"
            f"1280x720 table frame, video look (no lens, no JPEG): {self.video_ms_clean_median:.1f} ms wall, "
            f"{self.video_cpu_ms_clean_median:.1f} ms CPU (medians)"
        )


def benchmark(images: int = 40, frames: int = 50, imgsz: int = 640, seed: int = 0) -> BenchResult:
    """Times ``images`` dataset images (after drawing their decks once) and ``frames`` video frames."""
    config = SceneConfig(imgsz=imgsz, procedural_decks=4)
    pool = DeckPool(seed, config.procedural_decks)
    for i in range(8):  # draw the decks' faces once, as a long run does
        generate_image(i, seed, config, pool)
    start, cpu = time.perf_counter(), time.process_time()
    for i in range(images):
        generate_image(1000 + i, seed, config, pool)
    per_s = images / (time.perf_counter() - start)
    per_cpu_s = images / (time.process_time() - cpu)

    deck = Deck.procedural(seed)
    table = Table.random(seed)
    trick = [
        PlacedCard("QC", (0, 7), 4),
        PlacedCard("10H", (-7, 0), 86),
        PlacedCard("AS", (1, -7), 183),
        PlacedCard("9D", (7, 1), 272),
    ]
    piles = [PlacedCard("back", (25 + 0.2 * k, 35 - 0.3 * k), 8 * k, face_up=False) for k in range(8)]
    timings = {}
    for name, camera, look in (
        ("photo", Camera(1280, 720, view_width_cm=95, tilt_deg=18, k1=0.06), Look.random(np.random.default_rng(seed))),
        ("clean", Camera(1280, 720, view_width_cm=95, tilt_deg=18), Look(light_gradient=0.2, shadow=0.3, noise=3.0)),
    ):
        samples, cpu_samples = [], []
        for f in range(frames + 3):
            arm = Arm((40 * np.sin(f / 9), 70), (3 * np.sin(f / 5), 12 + 5 * np.cos(f / 7)))
            t, c = time.perf_counter(), time.process_time()
            render_scene(deck, table, piles + trick, camera, [arm], seed=f, look=look)
            if f >= 3:  # the first frames fill the background cache
                samples.append((time.perf_counter() - t) * 1000)
                cpu_samples.append((time.process_time() - c) * 1000)
        timings[name] = (statistics.median(samples), statistics.median(cpu_samples))
    return BenchResult(per_s, per_cpu_s, *timings["photo"], *timings["clean"])
