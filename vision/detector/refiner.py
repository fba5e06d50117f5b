"""A small CNN that moves a located index's box onto the index (the detector's last stage).

The locator's box on an index a dozen pixels tall is often two or three pixels off: enough to fall
below IoU 0.5 while it still covers the index. Snapping every box to its label (an oracle, session
17) lifts seed 77's synthetic mAP50 from 0.945 to 0.974, more than any classifier change had. The
refiner sees the classifier's own crop of a box (grown by ``CROP_PAD`` and made square) plus where
the box lies in it, and gives the index's box in the same crop.

Boxes travel in *crop units*: 0 and 1 are the crop's edges, so the refiner's answer does not depend
on how large the index was in the frame, and flipping or transposing a crop maps a box by
``u -> 1 - u`` or by swapping x and y exactly (:func:`to_crop_units`).
"""

from __future__ import annotations

import math
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from dokocam.vision.detector.classifier import (
    ClassifierCheckpointError,
    conv_stages,
    crop,
    export_session,
    inference_network,
    photometric,
    resolve_device,
    tag_export,
    to_tensor,
)
from dokocam.vision.detector.matching import box_iou
from dokocam.vision.yolo import YoloFolder, images_of, jitter_box, square_boxes

CROP_SIZE = 48
MATCH_IOU = 0.2  # a located box this close to a label is the label's, for training pairs
# Crops averaged per box at inference (as is, flipped in x, in y, in both). Measured: four
# against one: seed 77 mAP50 0.9798 / 0.9796, seed 78 0.9588 / 0.9604, real photos F1 0.918 / 0.914
# (two hits apart), for four times the refiner's time. One it is.
VIEWS = 1
ROUNDS = 2  # refinements in a row at inference (BoxReader.rounds)


class RefinerCheckpointError(ClassifierCheckpointError):
    """A file is not a dokocam box-refiner checkpoint."""


# torch is not followed by mypy (pyproject), so nn.Module is Any there.
class BoxRefiner(nn.Module):  # type: ignore[misc, unused-ignore]
    """The classifier's four conv stages, then a small MLP over the whole feature map and the box.

    Unlike the classifier it keeps the map's layout (no global pooling): where an edge lies is
    the answer. The last layer starts at zero, so an untrained refiner leaves every box as it is.
    """

    def __init__(self, width: int = 16, crop_size: int = CROP_SIZE) -> None:
        super().__init__()

        self.features = conv_stages(width)
        side = crop_size // 16
        self.head = nn.Sequential(nn.Linear(width * 6 * side * side + 4, 128), nn.ReLU(inplace=True), nn.Linear(128, 4))
        nn.init.zeros_(self.head[-1].weight)
        nn.init.zeros_(self.head[-1].bias)
        self.width, self.crop_size = width, crop_size

    def forward(self, crops: torch.Tensor, boxes: torch.Tensor) -> torch.Tensor:
        """Refined boxes ``(n, 4)`` in crop units, for float crops ``(n, 3, s, s)`` and their located boxes
        ``(n, 4)``."""
        features = self.features(crops).flatten(1)
        return boxes + self.head(torch.cat([features, (boxes - 0.5) * 4], dim=1)) * 0.25


def to_crop_units(xyxy: np.ndarray, windows: np.ndarray, size: int = CROP_SIZE) -> np.ndarray:
    """Boxes in image pixels to units of their crop ``windows`` (from :func:`square_boxes`).

    :func:`vision.detector.classifier.crop` puts an image pixel's centre ``x + 0.5`` at crop pixel
    centre ``(x - x1) * size / side``; crop units are that crop's pixel edges over ``size``, so a
    flipped crop holds ``1 - u``.

    >>> w = np.array([[10.0, 10.0, 58.0, 58.0]])
    >>> to_crop_units(np.array([[10.0, 10.0, 58.0, 58.0]]), w).round(4).tolist()
    [[0.0, 0.0, 1.0, 1.0]]
    >>> from_crop_units(to_crop_units(np.array([[20.0, 30, 40, 41]]), w), w).round(6).tolist()
    [[20.0, 30.0, 40.0, 41.0]]
    """
    windows = np.asarray(windows, np.float64)
    origin, side = windows[:, [0, 1, 0, 1]], (windows[:, 2] - windows[:, 0])[:, None]
    units: np.ndarray = ((np.asarray(xyxy, np.float64) - 0.5 - origin) / side + 0.5 / size).astype(np.float32)
    return units


def from_crop_units(units: np.ndarray, windows: np.ndarray, size: int = CROP_SIZE) -> np.ndarray:
    """The inverse of :func:`to_crop_units`."""
    windows = np.asarray(windows, np.float64)
    origin, side = windows[:, [0, 1, 0, 1]], (windows[:, 2] - windows[:, 0])[:, None]
    xyxy: np.ndarray = ((np.asarray(units, np.float64) - 0.5 / size) * side + origin + 0.5).astype(np.float32)
    return xyxy


def dihedral(
    crops: torch.Tensor, boxes: torch.Tensor, flip_x: torch.Tensor, flip_y: torch.Tensor, swap: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Crops transposed (``swap``), then flipped in x and y, per row; their boxes moved to match.

    >>> c = torch.arange(4.0).reshape(1, 1, 2, 2); b = torch.tensor([[0.1, 0.2, 0.3, 0.6]])
    >>> yes, no = torch.tensor([True]), torch.tensor([False])
    >>> np.round(dihedral(c, b, yes, no, no)[1].numpy().astype(float), 4).tolist()
    [[0.7, 0.2, 0.9, 0.6]]
    >>> moved, box = dihedral(c, b, no, no, yes)
    >>> moved.flatten().tolist(), np.round(box.numpy().astype(float), 4).tolist()
    ([0.0, 2.0, 1.0, 3.0], [[0.2, 0.1, 0.6, 0.3]])
    """
    crops, boxes = crops.clone(), boxes.clone()
    crops[swap] = crops[swap].transpose(2, 3)
    boxes[swap] = boxes[swap][:, [1, 0, 3, 2]]
    crops[flip_x] = crops[flip_x].flip(3)
    boxes[flip_x] = torch.stack(
        [1 - boxes[flip_x][:, 2], boxes[flip_x][:, 1], 1 - boxes[flip_x][:, 0], boxes[flip_x][:, 3]], 1
    )
    crops[flip_y] = crops[flip_y].flip(2)
    boxes[flip_y] = torch.stack(
        [boxes[flip_y][:, 0], 1 - boxes[flip_y][:, 3], boxes[flip_y][:, 2], 1 - boxes[flip_y][:, 1]], 1
    )
    return crops, boxes


@dataclass
class BoxReader:
    """A loaded refiner: moves boxes of a BGR image onto the indices they found.

    Attributes:
        views: crops read per box and averaged (1, 2 or 4: as is, flipped in x, in y, in both; see ``VIEWS``).
        rounds: refinements in a row. A box far off shows only part of its index in its crop; the
            second round sees the index whole (seed 77 mAP50: one round 0.9776, two
            0.9798, three 0.9783).
    """

    model: BoxRefiner
    views: int = VIEWS
    rounds: int = ROUNDS
    session: Any = None  # an onnxruntime InferenceSession of the same network (:meth:`using_onnx`)
    net: nn.Module | None = field(default=None, repr=False, compare=False)  # as ``IndexReader.net``

    @property
    def crop_size(self) -> int:
        return self.model.crop_size

    @classmethod
    def load(cls, path: str | Path) -> BoxReader:
        """Loads a checkpoint written by :func:`train_refiner`.

        Raises:
            RefinerCheckpointError: the file is not such a checkpoint.
        """
        try:
            state = torch.load(str(path), map_location="cpu", weights_only=True)
        except (
            OSError,
            RuntimeError,
            EOFError,
            ValueError,
            KeyError,
            pickle.UnpicklingError,
        ) as exc:  # what torch's loader raises for foreign bytes
            raise RefinerCheckpointError(f"{path} cannot be read as a box refiner: {exc}") from None
        if not isinstance(state, dict) or state.get("kind") != "box-refiner":
            raise RefinerCheckpointError(
                f"{path} is not a dokocam box refiner (train one with `dokocam detector train refiner`)"
            )
        model = BoxRefiner(width=int(state["width"]), crop_size=int(state["crop_size"]))
        model.load_state_dict(state["model"])
        return cls(model.eval(), net=inference_network(model))

    def using_onnx(self, checkpoint: str | Path) -> BoxReader:
        """This reader run by onnxruntime from ``checkpoint``'s export (``<stem>.onnx``), when it
        exists and was made from this checkpoint; else unchanged, with a warning."""
        session = export_session(checkpoint, "the box refiner")
        if session is None:
            return self
        return replace(self, session=session)

    def refine(self, image: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
        """``xyxy`` (pixels) moved onto the indices they found, as float32 ``(n, 4)``: ``rounds``
        times, each from a crop around the last round's box."""
        xyxy = np.asarray(xyxy, np.float32).reshape(-1, 4)
        for _ in range(self.rounds if len(xyxy) else 0):
            windows = square_boxes(xyxy)
            crops = to_tensor(np.stack([crop(image, w, self.crop_size) for w in windows]))
            units = torch.from_numpy(to_crop_units(xyxy, windows, self.crop_size))
            xyxy = from_crop_units(self.read(crops, units), windows, self.crop_size)
        return xyxy

    def read(self, crops: torch.Tensor, units: torch.Tensor) -> np.ndarray:
        """Refined boxes in crop units for crops already made into the network's input."""
        n = len(crops)
        no, yes = torch.zeros(n, dtype=torch.bool), torch.ones(n, dtype=torch.bool)
        flips = [(no, no), (yes, no), (no, yes), (yes, yes)][: max(1, min(self.views, 4))]
        views = [dihedral(crops, units, fx, fy, no) for fx, fy in flips]
        out = self._run(torch.cat([v[0] for v in views]), torch.cat([v[1] for v in views]))
        # Each view's answer flipped back (a flip is its own inverse) before averaging.
        back = [dihedral(torch.zeros(n, 1, 1, 1), part, fx, fy, no)[1] for part, (fx, fy) in zip(out.split(n), flips)]
        refined: np.ndarray = torch.stack(back).mean(0).numpy()
        return refined

    def _run(self, crops: torch.Tensor, units: torch.Tensor) -> torch.Tensor:
        if self.session is None:
            with torch.inference_mode():
                if self.net is None:
                    return self.model(crops, units)
                return self.net(crops.contiguous(memory_format=torch.channels_last), units)
        return torch.from_numpy(
            self.session.run(None, {"crops": crops.contiguous().numpy(), "boxes": units.contiguous().numpy()})[0]
        )


@dataclass
class Pairs:
    """Training examples: crops ``(n, s, s, 3)`` uint8 BGR, their located boxes and the labels' boxes, both
    ``(n, 4)`` in crop units."""

    crops: np.ndarray
    located: np.ndarray
    target: np.ndarray

    def __len__(self) -> int:
        return len(self.crops)

    @classmethod
    def join(cls, parts: Sequence[Pairs]) -> Pairs:
        return cls(*(np.concatenate([getattr(p, k) for p in parts]) for k in ("crops", "located", "target")))

    def save(self, path: str | Path) -> None:
        np.savez(str(path), crops=self.crops, located=self.located, target=self.target)

    @classmethod
    def load(cls, path: str | Path) -> Pairs:
        with np.load(str(path)) as data:
            return cls(data["crops"], data["located"], data["target"])


def make_pairs(
    folder: YoloFolder,
    locate: Callable[[np.ndarray], np.ndarray] | None = None,
    *,
    jittered: int = 2,
    jitter: float = 0.12,
    seed: int = 0,
    size: int = CROP_SIZE,
    progress: bool = False,
) -> Pairs:
    """Refiner examples from a labelled folder: each box ``locate(image)`` finds within IoU
    ``MATCH_IOU`` of a label (the locator's own mistakes, which the refiner must undo), plus
    ``jittered`` copies of every label moved as :func:`jitter_box` moves it."""
    rng = np.random.default_rng(seed)
    crops, located, target = [], [], []
    for item, image in images_of(folder, desc="pairs", progress=progress):
        h, w = image.shape[:2]
        labels = item.label_xyxy(w, h)
        if not len(labels):
            continue
        boxes = [jitter_box(label, rng, jitter) for label in labels for _ in range(jittered)]
        owners = [j for j in range(len(labels)) for _ in range(jittered)]
        if locate is not None:
            found = np.asarray(locate(image), np.float64).reshape(-1, 4)
            if len(found):
                iou = box_iou(found, labels)
                for k in np.flatnonzero(iou.max(1) >= MATCH_IOU):
                    boxes.append(found[k])
                    owners.append(int(iou[k].argmax()))
        if not boxes:
            continue
        boxes_arr = np.array(boxes)
        windows = square_boxes(boxes_arr)
        crops += [crop(image, win, size) for win in windows]
        located.append(to_crop_units(boxes_arr, windows, size))
        target.append(to_crop_units(labels[owners], windows, size))
    if not crops:
        return Pairs(np.zeros((0, size, size, 3), np.uint8), np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32))
    return Pairs(np.stack(crops), np.concatenate(located), np.concatenate(target))


def unit_iou(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Row-wise IoU of two ``(n, 4)`` box tensors."""
    lt, rb = torch.maximum(a[:, :2], b[:, :2]), torch.minimum(a[:, 2:], b[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(1)
    area = (a[:, 2:] - a[:, :2]).clamp(min=0).prod(1) + (b[:, 2:] - b[:, :2]).clamp(min=0).prod(1)
    return inter / (area - inter).clamp(min=1e-9)


def score(reader: BoxReader, pairs: Pairs, batch: int = 1024) -> dict[str, float]:
    """Mean IoU with the labels, and the share at IoU 0.5 or more, before and after refining."""
    before, after = [], []
    for i in range(0, len(pairs), batch):
        crops = to_tensor(pairs.crops[i : i + batch])
        located, target = torch.from_numpy(pairs.located[i : i + batch]), torch.from_numpy(pairs.target[i : i + batch])
        before.append(unit_iou(located, target))
        after.append(unit_iou(torch.from_numpy(reader.read(crops, located)), target))
    b, a = torch.cat(before), torch.cat(after)
    return {
        "iou_before": float(b.mean()),
        "iou_after": float(a.mean()),
        "at_50_before": float((b >= 0.5).float().mean()),
        "at_50_after": float((a >= 0.5).float().mean()),
    }


def train_refiner(
    pairs: Pairs,
    out: str | Path,
    *,
    val: Pairs | None = None,
    epochs: int = 8,
    batch: int = 256,
    width: int = 16,
    lr: float = 3e-3,
    seed: int = 0,
    time_minutes: float | None = None,
    init: str | Path | None = None,
    device: str | None = None,
    log: Callable[[str], Any] = print,
) -> dict[str, float]:
    """Trains the refiner on ``pairs`` and saves it to ``out`` after each epoch.

    Each batch is flipped and transposed at random with its boxes, and gets the classifier's light,
    colour, blur and noise augmentation (:func:`vision.detector.classifier.photometric`), which moves
    no pixel. The loss is smooth L1 on the box edges in crop units.

    Returns:
        The last epoch's metrics (``loss``; with ``val`` also :func:`score`'s).
    """
    if not len(pairs):
        raise ValueError("no training pairs: the folders have no labelled boxes")
    target_device = resolve_device(device)
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    noise = generator if target_device.type == "cpu" else torch.Generator(device=target_device).manual_seed(seed)
    model = BoxReader.load(init).model if init is not None else BoxRefiner(width=width, crop_size=pairs.crops.shape[1])
    model.to(target_device)
    steps = epochs * math.ceil(len(pairs) / batch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=steps, pct_start=0.15)
    located, target = torch.from_numpy(pairs.located), torch.from_numpy(pairs.target)
    start, metrics = time.monotonic(), {}
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(pairs), generator=generator)
        loss_sum = 0.0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            n = len(idx)
            flips = [torch.rand(n, generator=generator) < 0.5 for _ in range(3)]
            crops, (given, truth) = _flip_pair(to_tensor(pairs.crops[idx.numpy()]), located[idx], target[idx], flips)
            crops = photometric(crops.to(target_device), noise)
            pred = model(crops, given.to(target_device))
            # Smooth L1 with a narrow quadratic zone: a hundredth of a crop is a third of a pixel on a small index.
            loss = F.smooth_l1_loss(pred, truth.to(target_device), beta=0.01)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            loss_sum += loss.item() * n
        model.eval()
        _save(model, out)
        metrics = {"epoch": epoch + 1, "loss": loss_sum / len(pairs)}
        if val is not None and len(val):
            metrics.update(score(BoxReader(model.cpu(), views=1), val))
            model.to(target_device)
        log("refiner: " + " ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in metrics.items()))
        if time_minutes is not None and time.monotonic() - start > time_minutes * 60:
            log("refiner: time budget spent, stopping")
            break
    return metrics


def _flip_pair(
    crops: torch.Tensor, located: torch.Tensor, target: torch.Tensor, flips: list[torch.Tensor]
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """:func:`dihedral` applied to crops, moving both their located and their target boxes."""
    fx, fy, swap = flips
    moved, given = dihedral(crops, located, fx, fy, swap)
    _, truth = dihedral(torch.zeros(len(crops), 1, 1, 1), target, fx, fy, swap)
    return moved, (given, truth)


def _save(model: BoxRefiner, out: str | Path) -> None:
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    torch.save({"kind": "box-refiner", "model": state, "width": model.width, "crop_size": model.crop_size}, str(out))


def export_onnx(checkpoint: str | Path) -> Path:
    """Writes the refiner in ``checkpoint`` as ONNX beside it (``<stem>.onnx``), tagged with the checkpoint's digest."""
    reader = BoxReader.load(checkpoint)
    target = Path(checkpoint).with_suffix(".onnx")
    example = (torch.zeros(1, 3, reader.crop_size, reader.crop_size), torch.zeros(1, 4))
    torch.onnx.export(
        reader.model,
        example,
        str(target),
        input_names=["crops", "boxes"],
        output_names=["refined"],
        dynamic_axes={"crops": {0: "n"}, "boxes": {0: "n"}, "refined": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    tag_export(target, checkpoint)
    return target
