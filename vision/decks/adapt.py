"""Adapting the detector to an enrolled deck: its classifiers fine-tuned on crops rendered from its faces.

The shipped photos' classifier, table classifier and context classifier each start from their shipped
weights and train a few epochs on crops drawn from the deck's face folder, cut around the boxes the
shipped locator finds on its faces (:mod:`vision.decks.indices`): turned, tilted, on table cloths, on and
under other cards, lit and degraded as :mod:`vision.synth.crops` draws them, mixed with crops of drawn
decks so that the look-alikes (pips, backs, ranks 2-8) stay rejected. Photos are read with the deck's
classifier; table frames, whose indices are a few pixels tall, with its table classifier and its context
classifier together (:class:`~vision.detector.classifier.WithContext`). The locator, refiner and rescorer
stay the shipped ones. Each deck records the digests of the checkpoints it started from: when the shipped
ones change, :func:`deck_detector` warns and ``dokocam deck adapt NAME`` adapts again.
"""

from __future__ import annotations

import logging
import math
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from dokocam.vision.decks.indices import label_face_folder
from dokocam.vision.decks.store import Deck, load_deck

log = logging.getLogger(__name__)

ROLES = ("classifier", "table_classifier", "context_classifier")  # model card entries adapted, in this order
FILES = {
    "classifier": "classifier.pt",
    "table_classifier": "table-classifier.pt",
    "context_classifier": "context-classifier.pt",
}
# The table classifier learnt blurred crops as well (a webcam out of focus); its fine-tuning keeps that, and
# the context classifier, which a deck reads with at the table too, learns them.
DEFOCUS = {"classifier": (), "table_classifier": (1.0, 2.0, 3.0), "context_classifier": (1.0, 2.0, 3.0)}


@dataclass(frozen=True)
class AdaptConfig:
    """How an adaptation trains.

    Attributes:
        crops: index crops rendered for each framing of crops (the index classifiers share one set, the
            context classifier has its own); raising it costs about 1.6 ms a crop to render and 4 ms a
            crop and epoch to train on this 2-core CPU.
        deck_share: the share of crops drawn from the deck's faces (the rest from drawn decks).
        epochs: passes over the crops per classifier.
        lr: the one-cycle schedule's peak learning rate (low: it fine-tunes).
        batch: crops per step.
        seed: the crops and their order.
        workers: processes rendering crops.
        roles: which classifiers to adapt (:data:`ROLES`).
    """

    crops: int = 10000
    deck_share: float = 0.75
    epochs: int = 2
    lr: float = 1e-3
    batch: int = 128
    seed: int = 0
    workers: int = 2
    roles: tuple[str, ...] = ROLES


def base_checkpoints() -> dict[str, Path]:
    """The shipped model card's checkpoint for each role in :data:`ROLES`."""
    from dokocam.models import DEFAULT_MODEL
    from dokocam.vision.detector.model import ModelCard

    card = ModelCard.load(DEFAULT_MODEL)
    folder = ModelCard.path_for(DEFAULT_MODEL).parent
    rescore = card.profile("photo").stage("rescore")
    names = {
        "classifier": card.classifier("photo"),
        "table_classifier": card.classifier("table"),
        "context_classifier": getattr(rescore, "context_classifier", None),
    }
    return {role: folder / name for role, name in names.items() if name}


def adapt_folder(folder: Path, config: AdaptConfig = AdaptConfig(), *, progress: bool = True) -> dict[str, Any]:
    """Fine-tunes the shipped classifiers on crops of the face folder ``folder / "faces"`` and writes
    them into ``folder``; returns the manifest's ``adapted`` record.

    Args:
        folder: a deck folder (staged by :func:`~vision.decks.store.save_deck`).
        config: how much to train.
        progress: show tqdm bars on stderr.
    """
    from tqdm import tqdm

    from dokocam.vision.detector.classifier import IndexReader, export_onnx, file_digest
    from dokocam.vision.synth.crops import CropConfig, write_crops

    start = time.monotonic()
    # The crops are cut around the boxes the locator will cut them around at the table.
    labelled = label_face_folder(folder / "faces")
    bases = {role: path for role, path in base_checkpoints().items() if role in config.roles}
    # Classifiers that frame their crops alike (size, pad) share one set of crops.
    starts = {role: IndexReader.load(base) for role, base in bases.items()}
    framings: dict[tuple[int, float], list[str]] = {}
    for role, start_from in starts.items():
        framings.setdefault((start_from.crop_size, start_from.pad), []).append(role)
    written: dict[str, str] = {}
    accuracy: dict[str, float] = {}
    rendered = 0.0
    for (size, pad), roles in framings.items():
        begun = time.monotonic()
        crop_config = CropConfig(size=size, pad=pad, folder_fraction=config.deck_share)
        with tempfile.TemporaryDirectory(prefix="dokocam-deck-") as tmp:
            crops_file = Path(tmp) / "crops.npz"
            desc = f"Karten-Ausschnitte / crops for {', '.join(FILES[role].removesuffix('.pt') for role in roles)}"
            with tqdm(total=config.crops, desc=desc, unit="crop", disable=not progress) as bar:
                for count in write_crops(
                    crops_file, config.crops, config.seed, crop_config, [folder / "faces"], config.workers
                ):
                    bar.update(count)
            with np.load(crops_file) as data:
                x, y = data["x"], data["y"].astype(np.int64)
        rendered += time.monotonic() - begun
        held = np.random.default_rng(config.seed).random(len(x)) < 0.1  # crops to report accuracy on
        for role in roles:
            out = folder / FILES[role]
            accuracy[role] = fine_tune(
                starts[role],
                x[~held],
                y[~held],
                out,
                config,
                defocus=DEFOCUS[role],
                held=(x[held], y[held]),
                progress=progress,
            )
            export_onnx(out)
            written[role] = FILES[role]
    return {
        "classifiers": written,
        "base": {role: file_digest(path) for role, path in bases.items()},
        "crops": config.crops,
        "faces_located": labelled,
        "epochs": config.epochs,
        "held_out_accuracy": {role: round(acc, 4) for role, acc in accuracy.items()},
        "seconds": round(time.monotonic() - start, 1),
        "render_seconds": round(rendered, 1),
    }


def fine_tune(
    start: Any,
    x: np.ndarray,
    y: np.ndarray,
    out: Path,
    config: AdaptConfig,
    *,
    defocus: tuple[float, ...] = (),
    held: tuple[np.ndarray, np.ndarray] | None = None,
    progress: bool = True,
) -> float:
    """Trains the loaded classifier ``start`` (a :class:`~vision.detector.classifier.IndexReader`, whose network
    it changes) on crops ``x`` (uint8 BGR) labelled ``y`` and saves it to ``out``; returns its accuracy on the
    ``held`` crops (``nan`` without)."""
    import torch
    from torch.nn import functional as F
    from tqdm import tqdm

    from dokocam.vision.detector.classifier import NUM_CLASSES, augment, to_tensor

    model = start.model.train()
    torch.manual_seed(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    steps = config.epochs * math.ceil(len(x) / config.batch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=config.lr, total_steps=steps, pct_start=0.15)
    targets = torch.from_numpy(y)
    with tqdm(total=steps, desc=f"Anpassen / adapting {out.stem}", unit="step", disable=not progress) as bar:
        for _ in range(config.epochs):
            for idx in torch.randperm(len(x), generator=generator).split(config.batch):
                logits = model(augment(to_tensor(x[idx.numpy()]), generator, defocus))
                loss = F.cross_entropy(logits, targets[idx], label_smoothing=0.05)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                schedule.step()
                bar.update(1)
                bar.set_postfix(loss=f"{loss.item():.3f}", refresh=False)
    model.eval()
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    # The checkpoint format IndexReader.load reads (train_classifier's).
    torch.save(
        {"model": state, "width": model.width, "crop_size": start.crop_size, "pad": start.pad, "classes": NUM_CLASSES},
        str(out),
    )
    if held is None or not len(held[0]):
        return float("nan")
    with torch.inference_mode():
        predicted = torch.cat(
            [model(to_tensor(part)).argmax(1) for part in np.array_split(held[0], max(1, len(held[0]) // 512))]
        )
    return float((predicted.numpy() == held[1]).mean())


def adapt_deck(name: str, config: AdaptConfig = AdaptConfig(), *, progress: bool = True) -> Deck:
    """Adapts the enrolled deck ``name`` again (to today's shipped classifiers); the deck as it was
    stays in place until this succeeds.

    Raises:
        UnknownDeckError: no such deck.
    """
    from dokocam.vision.decks.store import update_deck

    return update_deck(load_deck(name), lambda folder: adapt_folder(folder, config, progress=progress))


def stale_roles(deck: Deck) -> list[str]:
    """The roles whose adapted classifier was fine-tuned from another checkpoint than the shipped one
    (or never adapted): the deck should be adapted again."""
    from dokocam.vision.detector.classifier import file_digest

    base = deck.adapted.get("base", {})
    return [role for role, path in base_checkpoints().items() if base.get(role) != file_digest(path)]


def deck_detector(deck: Deck | str, model: str | Path | None = None, *, table: bool = False, **kwargs: Any) -> Any:
    """A :class:`~vision.detector.model.CardDetector` (``CardDetector.load(model, profile, **kwargs)``)
    that reads its boxes with ``deck``'s adapted classifier and each card seen by two corners again against the
    deck's faces (the match stage).

    Raises:
        UnknownDeckError: no deck of that name.
        DeckError: the deck has no adapted classifier for these frames (``dokocam deck adapt NAME``).
    """
    from dokocam.vision.decks.store import DeckError
    from dokocam.vision.detector.classifier import IndexReader, WithContext
    from dokocam.vision.detector.faces import FaceTemplates
    from dokocam.vision.detector.model import CardDetector

    deck = load_deck(deck) if isinstance(deck, str) else deck
    role = "table_classifier" if table else "classifier"
    checkpoint = deck.classifier(role) or (deck.classifier("classifier") if table else None)
    if checkpoint is None or not checkpoint.is_file():
        raise DeckError(
            f"Deck {deck.name!r} ist nicht angepasst: `dokocam deck adapt {deck.name}`.\n"
            f"Deck {deck.name!r} has no adapted classifier: run `dokocam deck adapt {deck.name}`."
        )
    stale = stale_roles(deck)
    if stale:
        log.warning(
            "deck %s is not adapted to the shipped %s (adapted from others, or never); run `dokocam deck adapt %s`",
            deck.name,
            ", ".join(stale),
            deck.name,
        )
    detector = CardDetector.load(model, "table" if table else "photo", **kwargs)
    if detector.reader is None:
        raise DeckError(
            f"Das Modell {model} hat keinen Klassifikator, den ein Deck ersetzen könnte.\n"
            f"The model {model} has no classifier a deck could replace."
        )
    onnx = detector.reader.session is not None  # the base reads through ONNX: so does the deck

    def load(path: Path) -> Any:
        reader = IndexReader.load(path)
        reader = reader.using_onnx(path) if onnx else reader
        return replace(reader, stretches=detector.reader.stretches, turns=detector.reader.turns)

    context = deck.classifier("context_classifier")
    # Photos' indices are large enough to read alone, and their rescorer was fitted on the shipped context
    # classifier's readings: only table frames read with the deck's context classifier.
    if table and context is not None and context.is_file():
        reader = WithContext(load(checkpoint), load(context))
    else:
        reader = load(checkpoint)
    # Every card seen by two corners is read again by its whole face, against the deck's own.
    return detector.with_reader(reader).with_faces(FaceTemplates.from_folder(deck.faces_dir))


def load_detector(
    model: str | Path | None = None, *, deck: str | None = None, table: bool = False, **kwargs: Any
) -> Any:
    """The card detector every command reads with: ``CardDetector.load(model, profile, **kwargs)`` (the ``table``
    profile with ``table``), or with
    ``deck`` its :func:`deck_detector` (the deck's adapted classifier swapped in).

    Raises:
        UnknownDeckError: no enrolled deck of that name.
        DeckError: the deck has no adapted classifier for these frames.
    """
    if deck is None:
        from dokocam.vision.detector.model import CardDetector

        return CardDetector.load(model, "table" if table else "photo", **kwargs)
    return deck_detector(deck, model, table=table, **kwargs)
