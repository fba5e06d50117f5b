"""Hard examples for the index classifier: what a detector gets wrong on labelled scenes.

Random background crops are mostly table and card face, which the classifier already rejects. What
costs precision are the few things the locator takes for an index: a lone pip, a court card's
picture, the edges of a stack of card backs. What costs recall are the labels it misreads. Both are
found by running the detector over generated scenes and kept as crops for
``dokocam detector train classifier --crops`` (the format of ``dokocam dataset crops``).

A box counts as "on no index" only when it overlaps no label and, in a generated scene, no index the
generator drew at all (its ``meta/``): an index too hidden to be labelled is still an index, and
teaching the classifier to reject it would cost the table the cards it sees by one corner.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dokocam.vision.detector.matching import box_iou
from dokocam.vision.yolo import BACKGROUND, CROP_PAD, YoloFolder, images_of, jitter_box, square_boxes

# A located box overlapping every known index less than this is on no index.
OFF_INDEX_IOU = 0.1
# A label counts as read when a box over it (IoU >= 0.5) names its card at the detector's threshold.
ON_LABEL_IOU = 0.5
# The detector's reads are taken down to this score: a false index ranked for mAP50 is worth mining too.
MINE_CONF = 0.05


def mine_crops(
    folder: YoloFolder,
    detector: Any,
    *,
    variants: int = 3,
    min_score: float = MINE_CONF,
    seed: int = 0,
    progress: bool = False,
    pad: float = CROP_PAD,
) -> tuple[np.ndarray, np.ndarray]:
    """The classifier's hard examples in ``folder``'s labelled images, as ``detector`` (a
    :class:`vision.detector.model.CardDetector` with a classifier) reads them.

    - Every box read at ``min_score`` or more that lies on no index (``OFF_INDEX_IOU``): one crop of
      it, labelled ``BACKGROUND``.
    - Every label that no box over it names at the detector's own threshold: ``variants`` crops of
      the label's box with its card, the first as it is, the others jittered as training crops are.

    Each crop is framed with ``pad`` (:func:`~vision.yolo.square_boxes`): the index
    classifier's, or a context classifier's (``detector train classifier --pad``).

    Returns:
        ``(crops (n, S, S, 3) uint8 BGR, classes (n,) int64)``, ``S`` the classifier's crop size.
    """
    from dokocam.vision.detector.classifier import crop

    size = detector.reader.crop_size
    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    classes: list[int] = []
    for item, image in images_of(folder, desc="mine", progress=progress):
        h, w = image.shape[:2]
        found = detector.reads(image, min_score)
        labels = item.label_xyxy(w, h)
        known = labels if item.indices is None else np.concatenate([labels, item.indices])
        off = box_iou(found.xyxy, known).max(1, initial=0.0) < OFF_INDEX_IOU
        for box in found.xyxy[off]:
            crops.append(crop(image, square_boxes(box, pad)[0], size))
            classes.append(BACKGROUND)
        over = box_iou(labels, found.xyxy) >= ON_LABEL_IOU
        sure = found.confidence >= detector.conf
        for j, card in enumerate(item.label_class):
            if (over[j] & sure & (found.class_id == card)).any():
                continue
            for v in range(variants):
                box = labels[j] if v == 0 else jitter_box(labels[j], rng, 0.08)
                crops.append(crop(image, square_boxes(box, pad)[0], size))
                classes.append(int(card))
    if not crops:
        return np.zeros((0, size, size, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(crops), np.array(classes, dtype=np.int64)


def save_crops(path: str | Path, crops: np.ndarray, classes: np.ndarray, pad: float = CROP_PAD) -> Path:
    """Writes crops as ``dokocam dataset crops`` does, for ``detector train classifier --crops``, with the
    ``pad`` they were framed with (a classifier trains only on crops framed as it reads)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, x=crops, y=classes, size=crops.shape[1] if len(crops) else 0, pad=pad)
    return path
