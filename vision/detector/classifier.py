"""A small CNN that names the card of a cropped corner index (the second stage of the detector).

The locator (a one-class YOLO) finds corner indices; this network reads each crop. Crops are cheap,
so it trains on many more examples per CPU-minute than the detector could, and it sees every
index at one scale whatever the camera distance. Class ``24`` means "not a Doppelkopf index"
(backgrounds, pips, ranks 2-8): its probability scores the locator's false alarms down.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from dokocam.vision.yolo import BACKGROUND, CROP_PAD, YoloFolder, jitter_box, read_folder, square_boxes, train_split

CROP_SIZE = 32
NUM_CLASSES = 25
# The ONNX export records which checkpoint it was made from, so a retrained classifier is never read
# through a stale export.
SOURCE_DIGEST_KEY = "dokocam_checkpoint_sha256"
MIN_VIEWS = 8  # views a thread reads at least (IndexReader.read): fewer cost more in hand-over than they save

log = logging.getLogger(__name__)


class ClassifierCheckpointError(ValueError):
    """A file is not a dokocam index-classifier checkpoint."""


class DeviceError(ValueError):
    """A training device that torch does not know or this machine does not have."""


def conv_stages(width: int) -> nn.Sequential:
    """Four conv stages (``width``, 2x, 4x, 6x channels), each halving the crop: the trunk of the
    classifier and of the box refiner."""

    def block(c_in: int, c_out: int, convs: int) -> list[nn.Module]:
        layers: list[nn.Module] = []
        for k in range(convs):
            layers += [
                nn.Conv2d(c_in if k == 0 else c_out, c_out, 3, padding=1, bias=False),
                nn.BatchNorm2d(c_out),
                nn.ReLU(inplace=True),
            ]
        return [*layers, nn.MaxPool2d(2)]

    return nn.Sequential(
        *block(3, width, 1),
        *block(width, width * 2, 2),
        *block(width * 2, width * 4, 2),
        *block(width * 4, width * 6, 1),
    )


def inference_network(model: nn.Module) -> nn.Module:
    """A copy of ``model`` (an eval-mode network built on :func:`conv_stages`) for reading only:
    each BatchNorm folded into the convolution before it, the weights in channels-last order.

    The same outputs within float rounding; on this 2-core CPU torch reads 40 crops of 48 px in
    9 ms instead of 34. Checkpoints and training keep the unfolded network, which
    the ONNX export folds by itself.
    """
    from torch.nn.utils.fusion import fuse_conv_bn_eval

    net = copy.deepcopy(model).eval()
    layers = list(net.features)
    folded: list[nn.Module] = []
    while layers:
        layer = layers.pop(0)
        if isinstance(layer, nn.Conv2d) and layers and isinstance(layers[0], nn.BatchNorm2d):
            layer = fuse_conv_bn_eval(layer, layers.pop(0))
        folded.append(layer)
    net.features = nn.Sequential(*folded)
    return net.to(memory_format=torch.channels_last)


# torch is not followed by mypy (pyproject), so nn.Module is Any there.
class IndexClassifier(nn.Module):  # type: ignore[misc, unused-ignore]
    """Four small conv stages and a linear head over a ``CROP_SIZE`` RGB crop (about 0.1 M parameters).

    Kept to ~10 M multiply-adds per crop so it trains on tens of thousands of crops per CPU-minute.
    """

    def __init__(self, width: int = 16, num_classes: int = NUM_CLASSES) -> None:
        super().__init__()

        self.features = conv_stages(width)
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(width * 6, num_classes))
        self.width = width

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits ``(n, classes)`` for float crops ``(n, 3, CROP_SIZE, CROP_SIZE)`` scaled to ``[0, 1]``."""
        return self.head(self.features(x).mean(dim=(2, 3)))


def widen(model: IndexClassifier, width: int, *, noise: float = 0.01, seed: int = 0) -> IndexClassifier:
    """A copy of ``model`` with ``width`` first-layer channels that computes the same function.

    Net2WiderNet (Chen et al., 2016): each new channel copies a random old one, with its batch-norm
    statistics, and every layer reading a copied channel splits that channel's weight among its
    copies. Training then starts from what the narrow network has learnt instead of from scratch,
    which is what makes a wider classifier affordable on a CPU. ``noise`` (relative to each
    weight's scale) goes on the copies' incoming weights only, so the copies can drift apart.

    >>> narrow = IndexClassifier(width=4).eval()
    >>> wide = widen(narrow, 6, noise=0.0).eval()
    >>> x = torch.rand(2, 3, 32, 32)
    >>> bool(torch.allclose(narrow(x), wide(x), atol=1e-5)), wide.width
    (True, 6)

    Raises:
        ValueError: ``width`` is smaller than the model's.
    """
    if width < model.width:
        raise ValueError(
            f"cannot widen a width-{model.width} classifier to {width}: a narrower network drops what it learnt"
        )
    generator = torch.Generator().manual_seed(seed)
    wide = IndexClassifier(width=width, num_classes=model.head[-1].out_features)
    old_layers = [m for m in model.features if isinstance(m, (nn.Conv2d, nn.BatchNorm2d))]
    new_layers = [m for m in wide.features if isinstance(m, (nn.Conv2d, nn.BatchNorm2d))]
    source = torch.arange(3)  # which old input channel each new input channel copies

    def shares(n: int) -> torch.Tensor:  # per new input channel, how many copies split its old weight
        return torch.bincount(source, minlength=n)[source].float()

    with torch.no_grad():
        for (conv, norm), (new_conv, new_norm) in zip(
            zip(old_layers[::2], old_layers[1::2]), zip(new_layers[::2], new_layers[1::2])
        ):
            c_old, c_new = conv.out_channels, new_conv.out_channels
            picks = torch.cat([torch.arange(c_old), torch.randint(c_old, (c_new - c_old,), generator=generator)])
            weight = (conv.weight[:, source] / shares(conv.in_channels).view(1, -1, 1, 1))[picks]
            if c_new > c_old and noise:
                extra = weight[c_old:]
                extra += noise * extra.std() * torch.randn(extra.shape, generator=generator)
            new_conv.weight.copy_(weight)
            for name in ("weight", "bias", "running_mean", "running_var"):
                getattr(new_norm, name).copy_(getattr(norm, name)[picks])
            new_norm.num_batches_tracked.copy_(norm.num_batches_tracked)
            source = picks
        head, new_head = model.head[-1], wide.head[-1]
        new_head.weight.copy_(head.weight[:, source] / shares(head.in_features).view(1, -1))
        new_head.bias.copy_(head.bias)
    return wide


def crop(image: np.ndarray, box: Sequence[float], size: int = CROP_SIZE) -> np.ndarray:
    """A ``size`` x ``size`` crop of ``box`` (pixels, may leave the image: edges are replicated)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    scale = size / max(x2 - x1, 1e-3)
    matrix = np.array([[scale, 0, -x1 * scale], [0, size / max(y2 - y1, 1e-3), -y1 * size / max(y2 - y1, 1e-3)]])
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    cropped: np.ndarray = cv2.warpAffine(image, matrix, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    return cropped


def stretch_boxes(xyxy: np.ndarray, factor: float, axis: int) -> np.ndarray:
    """Boxes grown by ``factor`` about their centre along ``axis`` (0: x, 1: y).

    >>> stretch_boxes(np.array([[0.0, 0.0, 10.0, 10.0]]), 1.2, 0).tolist()
    [[-1.0, 0.0, 11.0, 10.0]]
    """
    out = np.array(xyxy, dtype=np.float64)
    centre = (out[:, axis] + out[:, axis + 2]) / 2
    half = (out[:, axis + 2] - out[:, axis]) / 2 * factor
    out[:, axis], out[:, axis + 2] = centre - half, centre + half
    return out


def to_tensor(crops: np.ndarray) -> torch.Tensor:
    """``(n, s, s, 3)`` BGR uint8 crops to the network's ``(n, 3, s, s)`` RGB float input."""
    array = np.ascontiguousarray(np.asarray(crops)[..., ::-1].transpose(0, 3, 1, 2))
    return torch.from_numpy(array).float().div_(255.0)


@dataclass
class IndexReader:
    """A loaded classifier: reads the card of each box in a BGR image.

    Attributes:
        model: the network.
        crop_size: its input side in pixels (stored in the checkpoint).
        turns: quarter turns averaged per crop (1, 2 or 4). An index can lie at any angle, so
            reading it upright, turned and upside down and averaging cancels much of the error
            one view makes (4 turns: 68.5% -> 76.8% of real index crops read right).
        stretches: more views averaged per crop: for each factor ``a``, the crop window widened
            by ``a`` and, separately, heightened by ``a`` (each squashed into the square input).
            Photos reach the detector stretched (a tilted camera, an export to a square), and a
            view squashed back the right way reads better; averaging needs no knowledge of which.
        pad: how far each crop window reaches past its box (:func:`~vision.yolo.square_boxes`),
            as the network was trained (stored in the checkpoint). The index classifier sees the index
            and a rim of card (``CROP_PAD``); a context classifier (``--pad 1.5``) a square four times
            the index, with the card's pips or picture and its edge.
    """

    model: IndexClassifier
    crop_size: int = CROP_SIZE
    turns: int = 4
    stretches: tuple[float, ...] = ()
    pad: float = CROP_PAD
    session: Any = None  # an onnxruntime InferenceSession of the same network (:meth:`using_onnx`)
    # What torch reads with (:func:`inference_network`; ``model`` itself when None). A loaded reader
    # has one; change ``model``'s weights after loading and it no longer matches them.
    net: nn.Module | None = field(default=None, repr=False, compare=False)

    @classmethod
    def load(cls, path: str | Path) -> IndexReader:
        """Loads a checkpoint written by :func:`train_classifier`.

        Raises:
            ClassifierCheckpointError: the file is not such a checkpoint.
        """
        state = torch.load(str(path), map_location="cpu", weights_only=True)
        if not isinstance(state, dict) or "model" not in state or "width" not in state:
            raise ClassifierCheckpointError(
                f"{path} is not a dokocam index classifier (train one with `dokocam detector train classifier`)"
            )
        model = IndexClassifier(width=int(state["width"]))
        model.load_state_dict(state["model"])
        return cls(
            model.eval(),
            crop_size=int(state.get("crop_size", CROP_SIZE)),
            pad=float(state.get("pad", CROP_PAD)),
            net=inference_network(model),
        )

    def using_onnx(self, checkpoint: str | Path) -> IndexReader:
        """This reader with its network run by onnxruntime from ``checkpoint``'s ONNX export
        (``<stem>.onnx``, written by ``dokocam detector export``): the same probabilities, about three times
        faster on this CPU for a frame's few dozen crops.

        The reader is returned unchanged, with a warning, when there is no export, it cannot be read,
        or it was made from another checkpoint (a classifier retrained since): torch then reads the crops.
        """
        session = export_session(checkpoint, "the classifier")
        if session is None:
            return self
        return replace(self, session=session)

    def probabilities(
        self, image: np.ndarray, xyxy: np.ndarray, pool: Executor | None = None, shares: int = 1
    ) -> np.ndarray:
        """``(n, 25)`` class probabilities for the boxes ``xyxy`` of ``image`` (``pool``, ``shares``: see
        :meth:`read`)."""
        boxes = square_boxes(xyxy, self.pad)
        if not len(boxes):
            return np.zeros((0, NUM_CLASSES), np.float32)
        windows = [boxes, *(stretch_boxes(boxes, a, axis) for a in self.stretches for axis in (0, 1))]
        batch = to_tensor(np.stack([crop(image, b, self.crop_size) for views in windows for b in views]))
        probs: np.ndarray = self.read(batch, pool, shares).reshape(len(windows), len(boxes), NUM_CLASSES).mean(axis=0)
        return probs

    def read(self, batch: torch.Tensor, pool: Executor | None = None, shares: int = 1) -> np.ndarray:
        """``(n, 25)`` class probabilities of crops already made into the network's input.

        With a thread ``pool`` the views are split into up to ``shares`` parts run at once: the network costs
        about 0.3 ms a 48 px view on this CPU and both runtimes let go of the GIL while they compute.
        """
        step = 4 // self.turns if self.turns in (1, 2, 4) else 4
        with torch.inference_mode():
            views = torch.cat([torch.rot90(batch, k, (2, 3)) for k in range(0, 4, step)])
            if pool is not None and shares > 1 and len(views) >= 2 * MIN_VIEWS:
                parts = torch.tensor_split(views, min(shares, len(views) // MIN_VIEWS))
                logits = torch.cat([f.result() for f in [pool.submit(self._logits, part) for part in parts]])
            else:
                logits = self._logits(views)
            probs = F.softmax(logits, dim=1).reshape(-1, len(batch), NUM_CLASSES)
            mean: np.ndarray = probs.mean(dim=0).numpy()
            return mean

    def _logits(self, views: torch.Tensor) -> torch.Tensor:
        if self.session is None:
            with torch.inference_mode():
                if self.net is None:
                    return self.model(views)
                return self.net(views.contiguous(memory_format=torch.channels_last))
        return torch.from_numpy(self.session.run(None, {"crops": views.contiguous().numpy()})[0])


@dataclass(frozen=True)
class WithContext:
    """Reads each box with an index classifier and a context classifier together: their probabilities'
    normalised geometric mean (``weight`` on the context).

    The index crop shows the rank and its suit sign and little else. Where the sign is tiny at the
    table's distance, or set apart from the rank, the window of a context classifier (four times the box:
    the card's picture or pips beside its index) still tells the suit. A deck's own classifiers read table
    frames this way (:func:`~vision.decks.adapt.deck_detector`): both were adapted to its faces.
    """

    index: IndexReader
    context: IndexReader
    weight: float = 0.5

    def probabilities(
        self, image: np.ndarray, xyxy: np.ndarray, pool: Executor | None = None, shares: int = 1
    ) -> np.ndarray:
        """``(n, 25)`` class probabilities for the boxes ``xyxy`` of ``image`` (see :meth:`IndexReader.read`)."""
        own = self.index.probabilities(image, xyxy, pool, shares)
        if not len(own):
            return own
        around = self.context.probabilities(image, xyxy, pool, shares)
        logs = (1 - self.weight) * np.log(own + 1e-6) + self.weight * np.log(around + 1e-6)
        fused = np.exp(logs - logs.max(axis=1, keepdims=True))
        probs: np.ndarray = (fused / fused.sum(axis=1, keepdims=True)).astype(np.float32)
        return probs


def export_session(checkpoint: str | Path, network: str) -> Any:
    """An onnxruntime session of ``checkpoint``'s ONNX export (``<stem>.onnx``), or ``None``, with a
    warning naming ``network``, when there is no export, it cannot be read, or it was made from
    another checkpoint (a network retrained since): torch then runs the network."""
    path = Path(checkpoint).with_suffix(".onnx")
    if not path.exists():
        log.warning(
            "%s: no ONNX export of %s; it runs in torch (run `dokocam detector export --format onnx`)", path, network
        )
        return None
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = torch.get_num_threads()
    options.inter_op_num_threads = 1
    try:
        session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's errors (InvalidProtobuf, Fail, ...) derive from Exception only
        log.warning(
            "%s is not a readable ONNX model (%s); %s runs in torch (run `dokocam detector export` again)",
            path,
            exc,
            network,
        )
        return None
    if session.get_modelmeta().custom_metadata_map.get(SOURCE_DIGEST_KEY) != file_digest(checkpoint):
        log.warning(
            "%s was exported from another checkpoint than %s; %s runs in torch (run `dokocam detector export` again)",
            path,
            checkpoint,
            network,
        )
        return None
    return session


def _background_boxes(
    labels: np.ndarray, width: int, height: int, n: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Random index-sized boxes that overlap no label much: what "no index here" looks like."""
    from dokocam.vision.detector.matching import box_iou

    sizes = (labels[:, 2:] - labels[:, :2]) if len(labels) else np.array([[min(width, height) * 0.05] * 2])
    boxes: list[np.ndarray] = []
    for _ in range(n * 4):
        w, h = sizes[rng.integers(len(sizes))] * np.exp(rng.normal(0, 0.3, 2))
        x, y = rng.uniform(0, max(width - w, 1)), rng.uniform(0, max(height - h, 1))
        box = np.array([x, y, x + w, y + h])
        if not len(labels) or box_iou(box, labels).max() < 0.15:
            boxes.append(box)
        if len(boxes) == n:
            break
    return boxes


SMALL_INDEX = 16.0


def extract_crops(
    folders: Sequence[YoloFolder],
    *,
    variants: int = 3,
    small_variants: int | None = None,
    backgrounds: float = 0.5,
    min_size: float = 0.0,
    seed: int = 0,
    size: int = CROP_SIZE,
    pad: float = CROP_PAD,
) -> tuple[np.ndarray, np.ndarray]:
    """Crops every labelled box (``variants`` jittered copies) plus background crops, each framed
    by :func:`~vision.yolo.square_boxes` with ``pad``.

    Boxes whose longer side is under ``min_size`` pixels are skipped: an index a few pixels tall
    cannot be read, and training on it only teaches guessing. Boxes whose shorter side is under
    ``SMALL_INDEX`` pixels get ``small_variants`` copies when given: they are a quarter of the
    labels of a table scene but most of the classifier's errors (a classifier that read 94.6% of 16-32 px
    index crops right read 56% of 8-12 px ones), so they are worth more of an epoch.

    Returns:
        ``(crops (n, CROP_SIZE, CROP_SIZE, 3) uint8 BGR, labels (n,) int64)``.
    """
    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    labels: list[int] = []
    for folder in folders:
        for item in folder.items:
            image = cv2.imread(str(item.image))
            if image is None:
                continue
            h, w = image.shape[:2]
            boxes = item.label_xyxy(w, h)
            for box, cls in zip(boxes, item.label_class):
                if max(box[2] - box[0], box[3] - box[1]) < min_size:
                    continue
                small = min(box[2] - box[0], box[3] - box[1]) < SMALL_INDEX
                copies = small_variants if small_variants is not None and small else variants
                for v in range(copies):
                    jittered = box if v == 0 else jitter_box(box, rng, 0.08)
                    crops.append(crop(image, square_boxes(jittered, pad)[0], size))
                    labels.append(int(cls))
            # Boxes of non-Doppelkopf cards (``ignore/``) are exactly the look-alikes to reject.
            n_bg = int(rng.binomial(max(len(boxes), 1) * variants, backgrounds))
            for box in [*item.ignore_xyxy(w, h), *_background_boxes(boxes, w, h, n_bg, rng)]:
                crops.append(crop(image, square_boxes(box, pad)[0], size))
                labels.append(BACKGROUND)
    if not crops:
        return np.zeros((0, size, size, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(crops), np.array(labels, dtype=np.int64)


STRETCH = 0.35


def random_affine(
    n: int, generator: torch.Generator, stretch: float = STRETCH, device: torch.device | str = "cpu"
) -> torch.Tensor:
    """``(n, 2, 3)`` sampling matrices (output -> input, as ``F.affine_grid`` takes them) for crops.

    Indices appear in every orientation (the lower corner is the upper one turned by 180 degrees),
    at a little more or less than the locator's box, and squashed along one axis by up to
    ``exp(stretch)``: a camera tilted by 35 degrees foreshortens the table by 0.82, and photo
    exports stretch whole pictures to a square (the real phone set: an index stretched by 4:3 more
    or less dropped a classifier from 89% to 71-83% of its crops read right).
    """
    angle = (torch.rand(n, generator=generator, device=device) * 2 - 1) * math.pi
    scale = torch.exp((torch.rand(n, generator=generator, device=device) * 2 - 1) * 0.15)
    aspect = torch.exp((torch.rand(n, generator=generator, device=device) * 2 - 1) * stretch / 2)
    shift = (torch.rand(n, 2, generator=generator, device=device) * 2 - 1) * 0.08
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    # R @ D: the content is turned, then squashed along the crop's axes, as a camera or an export
    # squashes a whole picture; with the turn random, the squash meets the index at any angle.
    theta = torch.stack(
        [
            torch.stack([cos / aspect, -sin * aspect, shift[:, 0]], 1),
            torch.stack([sin / aspect, cos * aspect, shift[:, 1]], 1),
        ],
        1,
    )
    return theta


def augment(batch: torch.Tensor, generator: torch.Generator, defocus: Sequence[float] = ()) -> torch.Tensor:
    """Photometric and geometric noise on a float batch: what real cameras do to an index.

    ``generator`` lives on the batch's device (a CUDA batch takes a CUDA generator).
    """
    theta = random_affine(batch.shape[0], generator, device=batch.device)
    grid = F.affine_grid(theta, list(batch.shape), align_corners=False)
    return photometric(F.grid_sample(batch, grid, padding_mode="border", align_corners=False), generator, defocus)


def photometric(batch: torch.Tensor, generator: torch.Generator, defocus: Sequence[float] = ()) -> torch.Tensor:
    """The light, colour, blur and noise part of :func:`augment`, which moves no pixel (the box
    refiner's targets stay where they are).

    ``defocus``: Gaussian sigmas in crop pixels; with any, a further 30% of the crops are blurred
    by one of them (drawn evenly): a camera out of focus. None (the default) draws nothing more, so
    a seed augments as it did before the choice existed.
    """
    n, device = batch.shape[0], batch.device
    # Grey photos and colour casts: the suit must be read from its shape, not only its colour.
    grey = batch.mean(dim=1, keepdim=True).expand_as(batch)
    to_grey = (torch.rand(n, 1, 1, 1, generator=generator, device=device) < 0.35).float()
    batch = batch * (1 - to_grey) + grey * to_grey
    # Decks print suits in other colours (four-colour decks: green Pik, orange Karo), so colour
    # alone must never name a suit: some crops get their colour channels swapped.
    swap = torch.rand(n, generator=generator, device=device) < 0.12
    if swap.any():
        order = torch.rand(int(swap.sum()), 3, generator=generator, device=device).argsort(
            dim=1
        )  # a random permutation each
        batch[swap] = torch.gather(batch[swap], 1, order[:, :, None, None].expand(-1, -1, *batch.shape[-2:]))
    cast = 1 + (torch.rand(n, 3, 1, 1, generator=generator, device=device) * 2 - 1) * 0.15
    contrast = torch.exp((torch.rand(n, 1, 1, 1, generator=generator, device=device) * 2 - 1) * 0.4)
    brightness = (torch.rand(n, 1, 1, 1, generator=generator, device=device) * 2 - 1) * 0.2
    mean = batch.mean(dim=(1, 2, 3), keepdim=True)
    batch = (batch - mean) * contrast + mean + brightness
    batch = batch * cast
    # Blur some crops (out-of-focus or small indices upscaled), add sensor noise to all.
    blur = torch.rand(n, generator=generator, device=device) < 0.3
    if blur.any():
        small = F.interpolate(batch[blur], scale_factor=0.4, mode="bilinear", align_corners=False)
        batch[blur] = F.interpolate(small, size=batch.shape[-2:], mode="bilinear", align_corners=False)
    if defocus:
        blurred = torch.rand(n, generator=generator, device=device) < 0.3
        level = torch.randint(len(defocus), (n,), generator=generator, device=device)
        for k, sigma in enumerate(defocus):
            chosen = blurred & (level == k)
            if chosen.any():
                batch[chosen] = gaussian_blur(batch[chosen], sigma)
    batch = batch + torch.randn(batch.shape, generator=generator, device=device) * 0.03
    return batch.clamp(0, 1)


def gaussian_blur(batch: torch.Tensor, sigma: float) -> torch.Tensor:
    """``batch`` (n, c, h, w) blurred by a Gaussian of ``sigma`` pixels, three sigmas each side
    (torchvision's, which reflects the edges: ``h`` and ``w`` above three sigmas)."""
    from torchvision.transforms.v2.functional import gaussian_blur as blur

    return blur(batch, kernel_size=2 * math.ceil(3 * sigma) + 1, sigma=sigma)


def train_classifier(
    data: Sequence[str | Path],
    out: str | Path,
    *,
    val: Sequence[str | Path] = (),
    epochs: int = 10,
    batch: int = 128,
    width: int = 16,
    variants: int = 3,
    small_variants: int | None = None,
    seed: int = 0,
    time_minutes: float | None = None,
    threads: int | None = None,
    min_size: float = 12.0,
    init: str | Path | None = None,
    crops: Sequence[str | Path] = (),
    crop_size: int = CROP_SIZE,
    lr: float = 3e-3,
    device: str | None = None,
    defocus: Sequence[float] = (),
    pad: float = CROP_PAD,
    log: Callable[[str], None] = print,
) -> dict[str, float]:
    """Trains the index classifier on the labelled boxes of YOLO folders and saves it to ``out``.

    Args:
        data: folders (or ``data.yaml`` files) with ``images/`` and ``labels/``.
        out: checkpoint path to write (``.pt``).
        val: folders to report accuracy on after each epoch.
        epochs: passes over the crops; stops early when ``time_minutes`` runs out.
        variants: jittered crops per labelled box; raising it multiplies the data cheaply.
        small_variants: jittered crops per box under ``SMALL_INDEX`` pixels (default: ``variants``).
        threads: torch threads; on a busy 2-core machine one thread is faster than two.
        min_size: skip labelled boxes smaller than this (pixels); see :func:`extract_crops`.
        init: a checkpoint to continue from: the same ``crop_size`` and the same or a smaller ``width``
            (a narrower one is widened by :func:`widen` first).
        crops: ``.npz`` crop files from ``dokocam dataset crops`` (same ``crop_size``), used
            beside the boxes of ``data``.
        crop_size: input side of the network in pixels.
        lr: peak learning rate of the one-cycle schedule (lower it to fine-tune from ``init``).
        device: ``"cpu"``, ``"cuda"`` or ``"cuda:N"``; by default CUDA when present. The crops stay
            in host memory as bytes and go to the device a batch at a time, where they are augmented.
        defocus: Gaussian sigmas (crop pixels) for a further 30% of the crops, one drawn per crop: a
            camera out of focus (see :func:`photometric`); none by default.
        pad: how far a crop reaches past its box (:attr:`IndexReader.pad`); another than ``CROP_PAD``
            trains a context classifier. ``init`` may have been trained with another pad.

    Returns:
        The last epoch's metrics (``loss``, ``train_acc`` and, with ``val``, ``val_acc``).
    """
    if threads:
        torch.set_num_threads(threads)
    target_device = resolve_device(device)
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)  # the order of the crops, drawn on the host
    noise = generator if target_device.type == "cpu" else torch.Generator(device=target_device).manual_seed(seed)
    start = time.monotonic()
    x, y = extract_crops(
        [train_split(d) for d in data],
        variants=variants,
        small_variants=small_variants,
        min_size=min_size,
        seed=seed,
        size=crop_size,
        pad=pad,
    )
    for path in crops:
        cx, cy = load_crops(path, crop_size, pad)
        x, y = np.concatenate([x, cx]), np.concatenate([y, cy])
    if not len(x):
        raise ValueError(f"no labelled boxes found in {', '.join(map(str, [*data, *crops]))}")
    vx, vy = (
        extract_crops(
            [read_folder(d) for d in val],
            variants=1,
            backgrounds=0.3,
            min_size=min_size,
            seed=seed + 1,
            size=crop_size,
            pad=pad,
        )
        if val
        else (x[:0], y[:0])
    )
    log(f"classifier: {len(x)} train crops, {len(vx)} val crops ({time.monotonic() - start:.0f}s to crop)")
    if init is None:
        model = IndexClassifier(width=width)
    else:
        start_from = IndexReader.load(init)
        if start_from.crop_size != crop_size or start_from.model.width > width:
            raise ClassifierCheckpointError(
                f"{init} has width {start_from.model.width} and crops of {start_from.crop_size} px; this run uses "
                f"{width} and {crop_size}"
            )
        if start_from.model.width < width:
            log(f"classifier: widening {init} from width {start_from.model.width} to {width}")
        model = widen(start_from.model, width, seed=seed)  # at the same width: a plain copy
    model.to(target_device)
    log(f"classifier: training on {target_device}")
    steps = epochs * math.ceil(len(x) / batch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=steps, pct_start=0.15)
    # Kept as uint8 and made float a batch at a time: 270,000 crops of 48 px are 1.9 GB as bytes, 7.5 GB as floats.
    inputs = np.ascontiguousarray(x)
    targets = torch.from_numpy(y)
    metrics: dict[str, float] = {}
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(inputs), generator=generator)
        total, correct, loss_sum = 0, 0, 0.0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            truth = targets[idx].to(target_device, non_blocking=True)
            logits = model(augment(to_tensor(inputs[idx.numpy()]).to(target_device, non_blocking=True), noise, defocus))
            loss = F.cross_entropy(logits, truth, label_smoothing=0.05)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += len(idx)
            correct += int((logits.argmax(1) == truth).sum())
            loss_sum += loss.item() * len(idx)
        metrics = {"epoch": epoch + 1, "loss": loss_sum / total, "train_acc": correct / total}
        if len(vx):
            metrics["val_acc"] = _accuracy(model, to_tensor(vx), torch.from_numpy(vy))
        log(
            "classifier: "
            + " ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in metrics.items())
        )
        _save(model, out, crop_size, pad)
        if time_minutes is not None and time.monotonic() - start > time_minutes * 60:
            log("classifier: time budget spent, stopping")
            break
    return metrics


def resolve_device(device: str | None) -> torch.device:
    """The torch device for ``device`` (``None``: CUDA when present, else the CPU).

    Raises:
        DeviceError: ``device`` names no device torch knows, or CUDA is asked for and absent.

    >>> resolve_device("cpu")
    device(type='cpu')
    >>> resolve_device("tpu7")
    Traceback (most recent call last):
    ...
    dokocam.vision.detector.classifier.DeviceError: --device 'tpu7': not a torch device (use cpu, cuda or cuda:N)
    """
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        # Ultralytics' spelling of a GPU ("0") is accepted too, so one --device serves both trainers.
        chosen = torch.device(f"cuda:{device}" if device.isdigit() else device)
    except RuntimeError:
        raise DeviceError(f"--device {device!r}: not a torch device (use cpu, cuda or cuda:N)") from None
    if chosen.type == "cuda" and not torch.cuda.is_available():
        raise DeviceError(f"--device {device!r}: this machine has no CUDA device torch can use")
    return chosen


def _accuracy(model: IndexClassifier, x: torch.Tensor, y: torch.Tensor) -> float:
    model.eval()
    device = next(model.parameters()).device
    with torch.inference_mode():
        pred = torch.cat([model(x[i : i + 512].to(device)).argmax(1).cpu() for i in range(0, len(x), 512)])
    return float((pred == y).float().mean())


def _save(model: IndexClassifier, out: str | Path, crop_size: int = CROP_SIZE, pad: float = CROP_PAD) -> None:
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    # Host tensors, so a checkpoint written on a GPU loads the same anywhere.
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    torch.save(
        {"model": state, "width": model.width, "crop_size": crop_size, "pad": pad, "classes": NUM_CLASSES}, str(out)
    )


def file_digest(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def export_onnx(checkpoint: str | Path) -> Path:
    """Writes the classifier in ``checkpoint`` as ONNX beside it (``<stem>.onnx``, any number of
    crops a batch), tagged with the checkpoint's digest for :meth:`IndexReader.using_onnx`.

    Raises:
        ClassifierCheckpointError: ``checkpoint`` is not a classifier checkpoint.
    """
    reader = IndexReader.load(checkpoint)
    target = Path(checkpoint).with_suffix(".onnx")
    example = torch.zeros(1, 3, reader.crop_size, reader.crop_size)
    # The TorchScript exporter (dynamo=False): the newer one needs onnxscript, which the project does not carry.
    torch.onnx.export(
        reader.model,
        (example,),
        str(target),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    tag_export(target, checkpoint)
    return target


def tag_export(exported: str | Path, source: str | Path) -> None:
    """Records in the ONNX file ``exported`` the digest of the checkpoint ``source`` it was made from."""
    import onnx

    proto = onnx.load(str(exported))
    for entry in list(proto.metadata_props):
        if entry.key == SOURCE_DIGEST_KEY:
            proto.metadata_props.remove(entry)
    entry = proto.metadata_props.add()
    entry.key, entry.value = SOURCE_DIGEST_KEY, file_digest(source)
    onnx.save(proto, str(exported))


def export_source_digest(exported: str | Path) -> str | None:
    """The digest :func:`tag_export` wrote into an ONNX file, or ``None`` (untagged or unreadable)."""
    import onnx

    try:
        proto = onnx.load(str(exported), load_external_data=False)
    except Exception:  # onnx raises DecodeError and others for a damaged file
        return None
    return next((e.value for e in proto.metadata_props if e.key == SOURCE_DIGEST_KEY), None)


class CropFileError(ValueError):
    """A crops file is missing, not written by ``dokocam dataset crops``, of another crop size, or given to a
    classifier framed with another pad."""


def load_crops(path: str | Path, size: int = CROP_SIZE, pad: float = CROP_PAD) -> tuple[np.ndarray, np.ndarray]:
    """The ``(x, y)`` of a crops file, checked against the network's input ``size`` and the ``pad``
    its crops must be framed with (files without a pad hold ``CROP_PAD`` crops).

    Raises:
        CropFileError: see the class.
    """
    try:
        with np.load(str(path)) as data:
            x, y = data["x"], data["y"].astype(np.int64)
            framed = float(data["pad"]) if "pad" in data else CROP_PAD
    except (OSError, KeyError, ValueError) as exc:
        raise CropFileError(f"{path} is not a crops file (make one with `dokocam dataset crops`): {exc}") from None
    if x.ndim != 4 or x.shape[1:] != (size, size, 3) or len(x) != len(y):
        raise CropFileError(f"{path} holds crops of shape {x.shape[1:]}; this classifier reads ({size}, {size}, 3)")
    if abs(framed - pad) > 1e-6:
        raise CropFileError(
            f"{path} holds crops framed with pad {framed:g}; this classifier reads crops framed with pad {pad:g} "
            f"(mine them with --pad {pad:g})"
        )
    if len(y) and (y.min() < 0 or y.max() >= NUM_CLASSES):
        raise CropFileError(f"{path} has class ids outside 0..{NUM_CLASSES - 1}")
    return x, y
