"""Stable cards from noisy per-frame detections.

The tracker links boxes from frame to frame (nearest centre, identity-aware), votes each track's
card over all its frames, and reports a card as *landed* once it has come to rest in the trick
area, and as *left* once it is gone for good. A card hidden under a hand keeps its track for
``hold_time`` seconds, unless another card comes to rest on its spot (it was taken away); cards
outside the trick area (hands at the table edge, won tricks pushed aside) never land; face-down
cards carry no card class and are never detected as cards.

It reports what it saw and decides no game facts: a card that slid in and was carried off before
it came to rest (a trick collected at once) is reported as landed with a weight below 1 (a
*glimpse*), each landing says where the card came in from, and each departure when the card was
last seen, so that the decoder can tell a trick collected (its cards go together) from a card its
player took back (it goes alone, soon).

A corner-index detector reports a card as the boxes of the indices it saw (``data["corners"]``
counts them per row): one small box in a card corner, or the union of two. Such boxes are *parts*
of a card. The tracker joins same-card parts of one frame that fit inside one card, measures every
distance in whole-card sizes (estimated from the index size), and places a card by the footprint
of all its parts seen at rest, so a card seen now by one corner and now by two stays one track.

All times are video seconds, so frame skipping only coarsens the timing.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from dokocam.vision.detections import Detections
from dokocam.vision.detector.matching import box_iou
from dokocam.vision.table.geometry import TableGeometry

N_CLASSES = 24
DECK_COPIES = 2  # a Doppelkopf deck holds every card twice

# Seconds of a track's places kept (how long it rested, how far it slid): by time, not by count,
# so that a higher frame rate or a smaller stride does not shorten what the tracker remembers.
PATH_SECONDS = 8.0
# Two sightings of a card's part at this IoU or more saw it in one place (it lay still between them).
SAME_PLACE_IOU = 0.5
# A pair of indices scored under this reads its two indices as different cards (the grouping's
# joint score): of the 18,084 pairs in the shipped model's detections of 15 rendered games
# (bench-table seeds 39000, 59000 and 60000, five each), 59 scored under 0.6 and 99.1% 0.7 or more.
DOUBTFUL_PAIR = 0.6


@dataclass
class Track:
    """One physical card followed over frames."""

    id: int
    center: np.ndarray
    size: float
    box: np.ndarray  # the card's whole footprint as far as seen (x1, y1, x2, y2)
    first_time: float
    last_time: float
    parts: bool = False  # followed by parts (corner indices) rather than whole-card boxes
    recent: deque[tuple[float, np.ndarray]] = field(default_factory=lambda: deque(maxlen=64))  # parts seen
    votes: np.ndarray = field(default_factory=lambda: np.zeros(N_CLASSES))
    counts: np.ndarray = field(default_factory=lambda: np.zeros(N_CLASSES))
    hits: int = 0
    landed: bool = False
    co_seen: set[int] = field(default_factory=set)  # landed tracks seen in the same frames
    landed_center: np.ndarray | None = None
    landed_box: np.ndarray | None = None  # the footprint it came to rest with
    moved: bool = False
    path: deque[tuple[float, np.ndarray]] = field(default_factory=lambda: deque(maxlen=512))
    # Where it moved slowest inside the trick area, before it landed: (speed, time, frame, centre).
    slowest: tuple[float, float, int, np.ndarray] | None = None
    leaving: bool = False  # seen moving away from the trick's centre before it landed

    @property
    def card_index(self) -> int:
        return int(np.argmax(self.votes))

    @property
    def share(self) -> float:
        """The winning card's share of all votes."""
        total = float(self.votes.sum())
        return float(self.votes.max()) / total if total > 0 else 0.0

    @property
    def confidence(self) -> float:
        """How sure the identity is: the vote share (how consistent) times the winning card's mean
        score (how sure each frame was)."""
        index = self.card_index
        return round(self.share * float(self.votes[index]) / max(1.0, float(self.counts[index])), 3)

    def candidates(self, k: int = 3) -> list[tuple[int, float]]:
        total = float(self.votes.sum()) or 1.0
        order = np.argsort(-self.votes)[:k]
        return [(int(i), round(float(self.votes[i]) / total, 3)) for i in order if self.votes[i] > 0]


@dataclass(frozen=True)
class CardLanded:
    """A card came to rest in the trick area.

    Attributes:
        uncertain: the identity vote stayed below ``min_share`` until ``decide_within`` ran out.
        spread: how far (pixels) the card's true centre may lie from ``center``: 0 for a whole
            card, about a third of its diagonal when only one corner index was seen.
        weight: how much the sighting counts as a card put down: 1 for a card that came to rest,
            ``glimpse_weight`` for one only glimpsed (it slid into the trick area and was carried
            off before it settled, as when a trick is collected right after its last card).
        came_from: where its track began, when that lies half a card or more from ``center``
            (the card was seen coming in from there: its player's side); ``None`` when it was
            first seen where it lay.
    """

    track_id: int
    card_index: int
    confidence: float
    center: tuple[float, float]
    frame: int
    time: float
    candidates: tuple[tuple[int, float], ...] = ()
    uncertain: bool = False
    spread: float = 0.0
    weight: float = 1.0
    came_from: tuple[float, float] | None = None


@dataclass(frozen=True)
class CardLeft:
    """A landed card is gone (collected, or missing longer than ``hold_time``).

    Attributes:
        time: when the tracker gave it up.
        last_seen: when it was last seen (``None``: at ``time``); a card hidden as it is taken away
            is given up only ``hold_time`` later, so this says better when it went.
    """

    track_id: int
    card_index: int
    frame: int
    time: float
    last_seen: float | None = None


TrackerEvent = CardLanded | CardLeft


class CardTracker:
    """Turns per-frame :class:`Detections` into card landings and departures.

    Args:
        geometry: where the trick area is (``tracker.geometry`` may be replaced after calibration).
        min_confidence: detections scoring below this are ignored; raising it drops more noise
            and more real, partly hidden cards.
        gate: how far (in card sizes) a box may be from a track's last centre and still belong to
            it; raising it follows faster slides but may swap neighbouring cards.
        landed_gate: the same for a card that has landed (it lies still until swept away).
        whole_fraction: a box at least this fraction of a track's size shows the whole card and
            places it; smaller ones (one corner index, the part a hand leaves free) only confirm it.
            0 lets every box place the card (best for whole-card boxes); about 0.75 suits a
            detector that reports half-hidden cards by one corner index without saying so (boxes
            with ``data["corners"]`` are followed as parts instead, see ``index_ratio``).
        reappear_after: seconds unseen after which a landed card counts as hidden (under a hand):
            it is then matched only by a box of the same card that appears in its place and comes
            to rest there, never by a card sliding in (a second copy laid on the same spot).
        reappear_gate: how near (in card sizes) that box must appear and rest. A box that a card of the
            same name coming in (not yet at rest) may take within ``gate`` goes to a hidden card only if
            that card takes another: a second copy slid onto the spot where the first lay until its trick
            was collected is the card coming in, not the first one woken.
        hidden_penalty: extra matching cost (in card sizes) for a hidden card, so a box goes to a
            card in view before it wakes a hidden one.
        class_penalty: extra matching cost (in card sizes) for a box whose card differs from the
            track's vote; raising it keeps overlapping cards apart by identity.
        min_hits: frames a track must be seen before it can land.
        rest_time: seconds a card must stay still before it lands; raising it suppresses cards
            that only pass through, and delays every event by as much.
        rest_tolerance: how far (in card sizes) a card may move and still count as at rest.
        min_share: the identity vote share that makes a card certain.
        decide_within: seconds after coming to rest at most, before an uncertain card lands
            anyway (flagged ``uncertain``); keeps events within one second of rest.
        min_land_confidence: a track whose identity stays this unsure (vote share x mean score)
            never lands: it is made of misreadings; raising it drops more doubtful cards, which
            then go missing from their trick (and are asked for) rather than played wrongly.
        hold_time: seconds a landed card may stay unseen (under a hand) before it is given up;
            raising it survives longer occlusions and reports a cleared trick later.
        cover_distance: a landed card unseen since before another card came in is given up at once,
            not after ``hold_time``, when that card, of another name, comes to rest within this many
            card sizes of its place: it lies where the hidden card lay, so the hidden card was taken
            away (a card put down and taken back, then another played on its spot); 0 never.
        moved_hold_time: the same for a landed card seen moving away (being collected).
        tentative_hold_time: the same for a track that never landed.
        collected_after: seconds after which ``collected_count`` or more landed cards, all
            unseen, are taken to be collected; raising it tolerates longer hands over the trick
            and reports clearing later.
        collected_count: how many landed cards must vanish together to count as collected.
        move_tolerance: how far (in card sizes) a landed card must move to count as being collected.
        reread_distance: a new box this close (in card sizes) to a landed card still in view is
            taken for a misreading of it and never lands; raising it guards better against
            misreads and may swallow a card laid right on top of a visible one.
        moved_gap, moved_gate: a landed card that stops being seen while a box of the same card
            shows up within ``moved_gate`` card sizes no more than ``moved_gap`` seconds later was
            pushed on after it seemed to rest: the landed track follows it (no second card).
        index_ratio: for corner-index detections (``data["corners"]``): a card's diagonal in
            index-box lengths (about 5.7 for the rendered decks); raising it joins parts lying
            farther apart into one card, and widens every gate.
        part_join: parts of the same card whose joint box stays within this many card diagonals
            are one card (in one frame, and over frames while it lies still); raising it merges
            two overlapping copies of a card more often, lowering it splits one card into two.
        part_memory: seconds a part of a card (one corner index) keeps counting towards where
            the card lies after it was last seen; raising it steadies cards whose indices flicker,
            and lets a moved card drag its old place along for longer.
        glimpse_weight: the weight of a card that slid into the trick area and went without
            coming to rest (reported when its track ends, see :meth:`_glimpsed`); 0 reports none.
        glimpse_approach: how far (in card sizes) such a card must have come towards the centre;
            lowering it reports more glimpses, also of cards being collected.
        arrival_gate: how far (in card sizes) a card seen once may have slid by the next frame, towards the
            trick's centre and read as the same card (it has no speed yet to look ahead with): a card slid in
            fast at a low frame rate moves more than ``gate`` a frame, and a track broken on its way in never
            lands nor shows where it came from.
    """

    def __init__(
        self,
        geometry: TableGeometry,
        *,
        min_confidence: float = 0.25,
        gate: float = 1.0,
        landed_gate: float = 0.6,
        reappear_gate: float = 0.4,
        whole_fraction: float = 0.0,
        hidden_penalty: float = 0.5,
        reappear_after: float = 0.3,
        class_penalty: float = 0.6,
        min_hits: int = 2,
        rest_time: float = 0.25,
        rest_tolerance: float = 0.08,
        min_share: float = 0.7,
        decide_within: float = 0.7,
        min_land_confidence: float = 0.25,
        hold_time: float = 4.0,
        cover_distance: float = 0.35,
        moved_hold_time: float = 0.4,
        tentative_hold_time: float = 0.5,
        collected_after: float = 1.0,
        collected_count: int = 3,
        move_tolerance: float = 0.5,
        reread_distance: float = 0.2,
        moved_gap: float = 0.5,
        moved_gate: float = 1.0,
        index_ratio: float = 5.7,
        part_join: float = 1.25,
        part_memory: float = 1.0,
        glimpse_weight: float = 0.5,
        glimpse_approach: float = 0.4,
        arrival_gate: float = 2.5,
    ) -> None:
        self.geometry = geometry
        self.min_confidence = min_confidence
        self.gate = gate
        self.landed_gate = landed_gate
        self.reappear_gate = reappear_gate
        self.whole_fraction = whole_fraction
        self.hidden_penalty = hidden_penalty
        self.reappear_after = reappear_after
        self.class_penalty = class_penalty
        self.min_hits = min_hits
        self.rest_time = rest_time
        self.rest_tolerance = rest_tolerance
        self.min_share = min_share
        self.decide_within = decide_within
        self.min_land_confidence = min_land_confidence
        self.hold_time = hold_time
        self.cover_distance = cover_distance
        self.moved_hold_time = moved_hold_time
        self.tentative_hold_time = tentative_hold_time
        self.collected_after = collected_after
        self.collected_count = collected_count
        self.move_tolerance = move_tolerance
        self.reread_distance = reread_distance
        self.moved_gap = moved_gap
        self.moved_gate = moved_gate
        self.index_ratio = index_ratio
        self.part_join = part_join
        self.part_memory = part_memory
        self.glimpse_weight = glimpse_weight
        self.glimpse_approach = glimpse_approach
        self.arrival_gate = arrival_gate
        self.reset()

    def reset(self) -> None:
        self.tracks: list[Track] = []
        self._next_id = 1
        self._dropped: set[int] = set()
        self._index_sizes: deque[float] = deque(maxlen=256)  # long sides of single-index boxes
        self._pair_sizes: deque[float] = deque(maxlen=256)  # diagonals of index pairs
        # This frame's indices of second copies split off a pair with a landed copy seen apart
        # (see :meth:`_split_pairs`): ``(landed track id, the index's corner)``.
        self._apart: list[tuple[int, tuple[float, float]]] = []

    def skip_ids(self, through: int) -> None:
        """New tracks get ids above ``through`` (the logged evidence of a game holds tracks up to it)."""
        self._next_id = max(self._next_id, through + 1)

    def update(self, detections: Detections, frame: int, time: float) -> list[TrackerEvent]:
        """Takes one frame's detections; returns the landings and departures it decided."""
        keep = (detections.confidence >= self.min_confidence) & (detections.class_id >= 0)
        keep &= detections.class_id < N_CLASSES
        det = detections[keep]
        parts = _are_parts(det)
        if parts:
            det = self._join_parts(det)
        centers = det.center.astype(np.float64)
        sizes = np.maximum(_diagonal(det.xyxy), 1.0)
        if parts:
            sizes = np.full(len(det), self.card_size(), dtype=np.float64)
        matched_tracks = self._associate(det, centers, sizes, time, parts)
        seen_now = [t for t in self.tracks if t.id in matched_tracks]
        for track in seen_now:
            if not track.landed:
                track.co_seen.update(o.id for o in seen_now if o.landed and o.card_index == track.card_index)
                self._note_slowest(track, frame)
        events: list[TrackerEvent] = []
        survivors: list[Track] = []
        for track in self.tracks:
            if track.id in self._dropped:
                continue
            if track.id not in matched_tracks:
                unseen = time - track.last_time
                limit = (
                    (self.moved_hold_time if track.moved else self.hold_time)
                    if track.landed
                    else self.tentative_hold_time
                )
                if unseen > limit:
                    if track.landed and self._take_over(track):
                        survivors.append(track)
                        continue
                    if track.landed:
                        events.append(CardLeft(track.id, track.card_index, frame, time, track.last_time))
                    else:
                        events.extend(self._glimpsed(track, frame, time))
                    continue
            survivors.append(track)
            if track.landed:
                if not track.moved and track.landed_center is not None:
                    if np.hypot(
                        *(track.center - track.landed_center)
                    ) > self.move_tolerance * track.size and not self._still(track):
                        track.moved = True
                if track.moved and not self._in_trick_area(track):
                    events.append(CardLeft(track.id, track.card_index, frame, time, time))
                    survivors.pop()
                continue
            landed = self._try_land(track, frame, time)
            if landed is not None:
                events.append(landed)
            elif track.slowest is not None and time == track.last_time and not self._in_trick_area(track):
                # Carried out of the trick area before it came to rest: reported now, not once its track ends.
                glimpse = self._glimpsed(track, frame, time)
                if glimpse:
                    events.extend(glimpse)
                    survivors.pop()
        resting = {t.id: t for t in survivors if t.landed}
        for k in [k for k, e in enumerate(events) if isinstance(e, CardLanded) and e.track_id in resting][::-1]:
            away = self._taken_away(resting[events[k].track_id], survivors, time)
            events[k:k] = [CardLeft(t.id, t.card_index, frame, time, t.last_time) for t in away]
            taken = {t.id for t in away}
            survivors = [t for t in survivors if t.id not in taken]
        # Three or more landed cards all vanishing together is a trick being collected, not a
        # hand resting on them: let them go at once rather than after ``hold_time``.
        hidden = [t for t in survivors if t.landed and time - t.last_time > self.collected_after]
        if len(hidden) >= self.collected_count:
            # The cards of a trick vanish one after another as a hand sweeps them up: those hidden
            # a moment less long went with them.
            hidden = [t for t in survivors if t.landed and time - t.last_time > self.reappear_after]
            events.extend(CardLeft(t.id, t.card_index, frame, time, t.last_time) for t in hidden)
            gone = {t.id for t in hidden}
            survivors = [t for t in survivors if t.id not in gone]
        self.tracks = [t for t in survivors if t.id not in self._dropped]
        self._dropped.clear()
        return events

    def card_size(self) -> float:
        """A whole card's diagonal in pixels, from the corner-index boxes seen so far: the
        index size times ``index_ratio``, and at least the typical pair (which spans most of a
        card, whatever the deck's index size)."""
        by_index = self.index_ratio * float(np.median(self._index_sizes)) if self._index_sizes else 0.0
        by_pairs = float(np.median(self._pair_sizes)) if self._pair_sizes else 0.0
        return max(by_index, by_pairs, 1.0)

    def _join_parts(self, det: Detections) -> Detections:
        """One row per card: same-card parts of this frame whose joint box fits one card are
        joined (a card's indices found twice, or paired two by two on a four-index deck); pairs
        holding indices of two cards are taken apart first (:meth:`_split_pairs`)."""
        single = det.data["corners"] == 1
        sides = np.maximum(det.xyxy[:, 2] - det.xyxy[:, 0], det.xyxy[:, 3] - det.xyxy[:, 1])
        self._index_sizes.extend(float(v) for v in sides[single])
        self._pair_sizes.extend(float(v) for v in _diagonal(det.xyxy[~single]))
        size = self.card_size()
        self._apart = []
        det = self._split_pairs(det, size)
        groups: list[list[int]] = []
        boxes: list[np.ndarray] = []
        for i in np.argsort(-det.confidence, kind="stable"):
            for g, joint in zip(groups, boxes, strict=True):
                if (
                    det.class_id[g[0]] == det.class_id[i]
                    and self._fits(joint, det.xyxy[i], size)
                    and not self._copy_beside(joint, det.xyxy[i], int(det.class_id[i]))
                ):
                    g.append(int(i))
                    joint[:] = _union(joint, det.xyxy[i])
                    break
            else:
                groups.append([int(i)])
                boxes.append(det.xyxy[i].astype(np.float64).copy())
        corners = det.data["corners"]
        return Detections(
            xyxy=np.array(boxes, dtype=np.float32).reshape(-1, 4),
            confidence=np.array([float(det.confidence[g].max()) for g in groups], dtype=np.float32),
            class_id=np.array([int(det.class_id[g[0]]) for g in groups], dtype=np.int64),
            data={"corners": np.array([int(corners[g].sum()) for g in groups], dtype=np.int64)},
        )

    def _fits(self, a: np.ndarray, b: np.ndarray, size: float) -> bool:
        """Whether two parts can be one card of diagonal ``size``: their joint box fits the card,
        and when one already spans most of it, the other adds at most about one index (else it is
        an index of a second copy lying next to it)."""
        union = _union(a, b)
        joint = float(_diagonal(union[None])[0])
        if joint > self.part_join * size or _two_in_a_row(union, size, self.index_ratio):
            return False
        larger = float(
            max(_diagonal(np.asarray(a, np.float64)[None])[0], _diagonal(np.asarray(b, np.float64)[None])[0])
        )
        return larger < 0.75 * size or joint - larger <= 1.5 * size / self.index_ratio

    def _split_pairs(self, det: Detections, size: float) -> Detections:
        """Pairs of indices on two cards as single indices.

        A pair joining indices of two copies of its card (see :meth:`_bridges`) becomes
        index-sized boxes in the corners where those indices lie. Any other pair too big for one
        card of diagonal ``size`` (see :meth:`_fits`) is cut into two index-thick strips at the
        ends of its longer side, or dropped when wider than three indices (no side to cut).
        """
        index = size / self.index_ratio
        pair = det.data["corners"] >= 2
        misread = (
            pair
            & (det.confidence < DOUBTFUL_PAIR)
            & np.array([self._on_other_card(box, int(c)) for box, c in zip(det.xyxy, det.class_id)], dtype=bool)
        )
        det, pair = det[~misread], pair[~misread]
        # Four indices in a card's rectangle are one card: grouping checked its shape, so it is no
        # bridge between copies (seed 60001: a Pik-König landed by two of its indices, then seen
        # whole, more turned than the frame's cards, was cut in two and its far index landed as a
        # second copy).
        rectangle = det.data["corners"] >= 4
        ends = [
            self._bridges(det.xyxy[d], int(det.class_id[d]), size, self._seen_apart(det, d))
            if pair[d] and not rectangle[d]
            else []
            for d in range(len(det))
        ]
        bridge = np.array([bool(e) for e in ends], dtype=bool)
        thin = np.minimum(det.xyxy[:, 2] - det.xyxy[:, 0], det.xyxy[:, 3] - det.xyxy[:, 1]) <= 3.0 * index
        in_a_row = np.array([_two_in_a_row(box, size, self.index_ratio) for box in det.xyxy], dtype=bool)
        long = pair & ((_diagonal(det.xyxy) > self.part_join * size) | in_a_row) & ~bridge
        cut = long & thin
        keep = ~(long & ~thin) & ~bridge
        pieces: list[list[float]] = []
        rows: list[int] = []
        for d in np.nonzero(bridge)[0]:
            x1, y1, x2, y2 = (float(v) for v in det.xyxy[d])
            for group in ends[d]:
                boxes = []
                for ex, ey in group:
                    left = x1 if ex == x1 else x2 - index
                    top = y1 if ey == y1 else y2 - index
                    boxes.append(np.array([left, top, left + index, top + index]))
                joint = boxes[0]
                for other in boxes[1:]:
                    joint = _union(joint, other)
                pieces.append(joint.tolist())
                rows.append(int(d))
        for d in np.nonzero(cut)[0]:
            x1, y1, x2, y2 = (float(v) for v in det.xyxy[d])
            if x2 - x1 >= y2 - y1:
                pieces += [[x1, y1, x1 + index, y2], [x2 - index, y1, x2, y2]]
            else:
                pieces += [[x1, y1, x2, y1 + index], [x1, y2 - index, x2, y2]]
            rows += [int(d), int(d)]
        if not rows:
            return det[keep]
        singles = Detections(
            xyxy=np.array(pieces, dtype=np.float32),
            confidence=det.confidence[rows],
            class_id=det.class_id[rows],
            data={"corners": np.ones(len(rows), dtype=np.int64)},
        )
        return Detections.merge([det[keep], singles])

    def _on_other_card(self, box: np.ndarray, card: int) -> bool:
        """Whether a corner of ``box`` lies on a landed card of another identity.

        A doubtful pair reaching onto such a card holds that card's index, misread (seed 60000's
        tenth trick: a Kreuz-Zehn's index read partly as Karo-Zehn, paired with the index of the
        Karo-Zehn sliding in; the pair came to rest over the Kreuz-Zehn and landed as the
        Karo-Zehn there, and the Karo-Zehn's own landing was then asked about as a third copy).
        """
        x1, y1, x2, y2 = (float(v) for v in box)
        points = np.array([[x1, y1], [x2, y1], [x1, y2], [x2, y2]])
        return any(
            t.landed and t.card_index != card and bool((_outside(points, t.box) <= 0.0).any()) for t in self.tracks
        )

    def _seen_apart(self, det: Detections, d: int) -> set[int]:
        """The landed copies of row ``d``'s card that another row of this frame, clear of ``d``'s
        box, lies on: the copy is seen by itself, so a pair from it to an index off it holds an
        index of a second copy. Such a copy was pushed in and showed up paired with the landed
        one's index, the landed one's other index apart, before any track of it existed (both
        Herz-Könige of one trick, on a deck never trained on): it grew over the landed copy and
        the trick closed with three cards."""
        others = [
            e
            for e in range(len(det))
            if e != d and det.class_id[e] == det.class_id[d] and not _overlap(det.xyxy[e], det.xyxy[d])
        ]
        return {
            t.id
            for t in self.tracks
            if t.landed
            and t.parts
            and t.card_index == int(det.class_id[d])
            and any(_outside(_center(det.xyxy[e])[None], self._footprint(t))[0] <= 0.0 for e in others)
        }

    def _bridges(
        self, box: np.ndarray, card: int, size: float, apart: set[int] | frozenset[int] = frozenset()
    ) -> list[list[tuple[float, float]]]:
        """Where the indices lie of a pair that runs from one copy of its card to another (one
        index of each, paired by the detector), as groups of box corners, one group per index:
        both ends of a diagonal whose ends lie on two followed copies, or the far end of one with
        an end on a landed copy that the box does not fit, or whose far end lies where a second copy
        is being brought in (the other copy is still sliding in, or no track has settled there yet;
        both far corners when a whole side lies on the copy), or with an end on a landed copy in
        ``apart`` (seen by itself in this frame, see :meth:`_seen_apart`). ``size`` is the frame's
        card diagonal. Empty when the pair is not such a bridge: also when it spans most of a card
        where a copy not yet landed was just seen, or when both of the deck's copies have landed
        and its far end lies on neither."""
        copies = [t for t in self.tracks if t.parts and t.card_index == card and t.votes.sum() > 0]
        if not copies:
            return []
        whole = float(_diagonal(np.asarray(box, np.float64)[None])[0]) >= 0.75 * size
        if whole and any(not t.landed and float(box_iou(box, t.box)[0, 0]) >= SAME_PLACE_IOU for t in copies):
            # Most of a card, where a copy on its way in was just seen so: that copy, one of its
            # indices over the landed copy's corner (both Pik-Asse of a trick read at two frames a
            # second: the newcomer's pair was cut in two, its track took the landed one's boxes and
            # it never landed).
            return []
        # With both of the deck's copies lying there, a far end on neither is no further copy: the
        # footprint of one was stretched by a pair that ran from it to the other (both Pik-Zehnen
        # of one trick: a "third" one was asked about).
        every_copy_landed = sum(t.landed for t in copies) >= DECK_COPIES
        far: list[tuple[float, float]] = []
        x1, y1, x2, y2 = (float(v) for v in box)
        for a, b in (((x1, y1), (x2, y2)), ((x2, y1), (x1, y2))):
            ends = np.array([a, b])
            holders = [
                {k for k, t in enumerate(copies) if _outside(ends[i : i + 1], t.box)[0] <= 0.1 * t.size} for i in (0, 1)
            ]
            if any(h != g for h in holders[0] for g in holders[1]) and not holders[0] & holders[1]:
                return [[a], [b]]
            for end, other in ((0, b), (1, a)):
                for k in holders[end] - holders[1 - end]:
                    copy = copies[k]
                    if not copy.landed or other in far or every_copy_landed:
                        continue
                    if not self._fits(copy.box, box, copy.size) or self._copy_coming(copy, np.array([*other, *other])):
                        far.append(other)
                    elif copy.id in apart:
                        far.append(other)
                        self._apart.append((copy.id, other))
        return [far] if far else []

    def _associate(
        self, det: Detections, centers: np.ndarray, sizes: np.ndarray, time: float, parts: bool = False
    ) -> set[int]:
        """Greedy nearest matching (few cards per frame); unmatched boxes start tracks.

        A moving card is looked for where its speed carries it; a landed card lies still until
        swept away (a tight gate, so a card slid past it is not taken for it); a hidden landed card
        (under a hand) comes back exactly where it lay, and yields to tracks in view (a card of the
        same name coming in chooses first).
        """
        matched: set[int] = set()
        used = np.zeros(len(det), dtype=bool)
        pairs: list[tuple[bool, float, int, int]] = []
        coming: set[tuple[int, int]] = set()  # (card, box): a card of that name not yet at rest may take the box
        for k, track in enumerate(self.tracks):
            if len(det) == 0:
                break
            hidden = track.landed and time - track.last_time > self.reappear_after
            if track.landed:
                gate, penalty, expected = (
                    (self.reappear_gate, self.hidden_penalty, track.center)
                    if hidden
                    else (self.landed_gate, 0.0, track.center)
                )
            else:
                gate, penalty, expected = self.gate, 0.0, self._predict(track, time)
            arriving = self._arriving(track, det, centers) if not track.landed and len(track.path) == 1 else None
            if arriving is not None:
                gate = self.arrival_gate
            distance = self._distance(track, expected, centers)
            if not track.landed:
                # A sliding card may stop at any moment: where it was is as good a guess as where its speed takes it.
                distance = np.minimum(distance, self._distance(track, track.center, centers))
            voted = track.votes.sum() > 0
            for d in np.nonzero(distance <= gate)[0]:
                if arriving is not None and distance[d] > self.gate and not arriving[d]:
                    continue
                if track.parts and track.landed and not self._holds(track, det.xyxy[d]):
                    continue
                cost = float(distance[d]) + penalty
                if voted and int(det.class_id[d]) != track.card_index:
                    if track.landed:
                        continue  # a landed card's identity is settled: another card is another card
                    cost += self.class_penalty
                pairs.append((hidden, cost, k, int(d)))
                if not track.landed and voted and distance[d] <= self.gate:
                    coming.add((track.card_index, int(d)))
        # A hidden card's claim on a box that a card of its name coming in wants waits until that card has its own.
        pairs.sort(key=lambda p: (p[0] and (self.tracks[p[2]].card_index, p[3]) in coming, p[1:]))
        for _hidden, _cost, k, row in pairs:
            track = self.tracks[k]
            if used[row] or track.id in matched:
                continue
            used[row] = True
            matched.add(track.id)
            self._observe(track, det, row, centers[row], sizes[row], time)
        for d in np.nonzero(~used)[0]:
            if parts and self._on_landed(int(det.class_id[d]), centers[d]):
                continue  # a second part of a landed card in this frame (or a misplaced strip of it)
            track = Track(
                id=self._next_id,
                center=centers[d],
                size=float(sizes[d]),
                box=det.xyxy[d].astype(np.float64),
                parts=parts,
                first_time=time,
                last_time=time,
            )
            self._next_id += 1
            self._observe(track, det, int(d), centers[d], sizes[d], time)
            self.tracks.append(track)
            matched.add(track.id)
        return matched

    def _distance(self, track: Track, expected: np.ndarray, centers: np.ndarray) -> np.ndarray:
        """How far (in card sizes) each box centre lies from ``track`` were it at ``expected``."""
        if track.parts:
            # A part anywhere on the card's footprint is as near as its centre.
            box = self._footprint(track) + np.tile(expected - track.center, 2)
            return _outside(centers, box) / track.size
        return np.asarray(np.hypot(*(centers - expected).T) / track.size)

    def _arriving(self, track: Track, det: Detections, centers: np.ndarray) -> np.ndarray:
        """Per box: whether it may be where a card first seen once has slid since, farther than the gate: the
        same card, nearer the trick's centre (a card played slides in from its player's side)."""
        radius = self.geometry.polar((float(track.center[0]), float(track.center[1])))[1]
        nearer = np.array([self.geometry.polar((float(x), float(y)))[1] < radius for x, y in centers], dtype=bool)
        return nearer & (det.class_id == track.card_index)

    def _holds(self, track: Track, part: np.ndarray) -> bool:
        """Whether a landed card may take this part: it fits the card where it lies, or shows
        most of a card (and so may say the card is being moved)."""
        whole = float(_diagonal(np.asarray(part, np.float64)[None])[0]) >= 0.75 * track.size
        return whole or self._fits(self._footprint(track), part, track.size)

    def _copy_beside(self, joint: np.ndarray, part: np.ndarray, card: int) -> bool:
        """Whether one of ``joint`` and ``part`` lies on a landed copy of ``card`` and the other off
        it, where a second copy is being brought in (see :meth:`_copy_coming`): the two are then
        not joined into one card."""
        for t in self.tracks:
            if not (t.landed and t.parts and t.card_index == card):
                continue
            footprint = self._footprint(t)
            on = [bool(_outside(_center(b)[None], footprint)[0] <= 0.0) for b in (joint, part)]
            if on[0] != on[1] and self._copy_coming(t, part if on[0] else joint):
                return True
        return False

    def _copy_coming(self, landed: Track, part: np.ndarray) -> bool:
        """Whether ``part``, lying off the landed copy's footprint, is more likely the index of a
        second copy of the card on its way in: a track of the same card, begun after ``landed``
        and not landed itself, was last seen within two gates of it.

        Without this, a frame's parts join the newcomer's first index to the landed copy's index as
        one card (they fit one), the landed copy grows over it, and the newcomer then reads as a
        misreading of the landed copy and never lands (both Kreuz-Könige of one trick: seat 1's
        was counted 6 s late, after the next seat's card).
        """
        center = _center(part)
        if _outside(center[None], self._footprint(landed))[0] <= 0.0:
            return False
        if self._apart:
            index = self.card_size() / self.index_ratio
            if any(k == landed.id and np.hypot(center[0] - x, center[1] - y) <= index for k, (x, y) in self._apart):
                return True
        return any(
            not other.landed
            and other is not landed
            and other.first_time > landed.first_time
            and other.votes.sum() > 0
            and other.card_index == landed.card_index
            and np.hypot(*(other.center - center)) <= 2.0 * self.gate * max(other.size, landed.size)
            for other in self.tracks
        )

    def _still(self, track: Track) -> bool:
        """Whether a landed card seen by parts may still lie where it landed: what is seen of it
        now fits one card with what was seen when it came to rest. A four-index card seen now by
        one corner, now by the opposite one shifts its centre by most of a card without moving."""
        return track.parts and track.landed_box is not None and self._fits(track.landed_box, track.box, track.size)

    def _footprint(self, track: Track) -> np.ndarray:
        """Where a card's parts may be found: for a landed card lying still, what is seen of it
        now joined with where it came to rest (the corner seen a moment ago still belongs to it)."""
        if track.landed and not track.moved and track.landed_box is not None and self._still(track):
            return _union(track.box, track.landed_box)
        return track.box

    def _on_landed(self, card: int, center: np.ndarray) -> bool:
        """Whether a part of ``card`` centred here lies on (or within ``reread_distance`` of) a landed copy."""
        return any(
            t.landed
            and t.parts
            and t.card_index == card
            and _outside(center[None], t.box)[0] <= self.reread_distance * t.size
            for t in self.tracks
        )

    @staticmethod
    def _predict(track: Track, time: float) -> np.ndarray:
        """Where a sliding card should be now, at the speed of its last two sightings."""
        if len(track.path) < 2:
            return track.center
        (t0, c0), (t1, c1) = track.path[-2], track.path[-1]
        if t1 - t0 <= 0 or time - t1 > 0.5:
            return track.center
        # Damped: a sliding card slows down as it comes to rest.
        predicted: np.ndarray = c1 + 0.6 * (c1 - c0) * ((time - t1) / (t1 - t0))
        return predicted

    def _observe(self, track: Track, det: Detections, d: int, center: np.ndarray, size: float, time: float) -> None:
        box = det.xyxy[d].astype(np.float64)
        if track.parts:
            # The footprint joins the recent parts that fit one card: flickering indices of a card
            # at rest add up, a moving card leaves its old parts behind. It grows from the newest
            # part, or for a landed card (lying still) from the part most others agree with, so
            # that one index of a neighbouring copy, paired by mistake, does not move it.
            track.size = float(size)
            track.recent.append((time, box))
            while track.recent[0][0] < time - self.part_memory:
                track.recent.popleft()
            track.box = self._joined_parts(track)
        elif not track.hits or size >= self.whole_fraction * track.size:
            # A box of the whole card: it says where the card is.
            track.box = box
            track.size = 0.7 * track.size + 0.3 * float(size) if track.hits else float(size)
        else:
            # Part of the card (one corner index, the part a hand leaves free): it confirms the
            # card, and moves it only as far as needed to hold it.
            track.box = _shift_to_hold(track.box, box)
        track.center = _center(track.box)
        track.last_time = time
        track.hits += 1
        track.votes[int(det.class_id[d])] += float(det.confidence[d])
        track.counts[int(det.class_id[d])] += 1
        track.path.append((time, track.center))
        while track.path[0][0] < time - PATH_SECONDS:
            track.path.popleft()

    def _joined_parts(self, track: Track) -> np.ndarray:
        """The footprint of a card seen by parts: its recent parts that fit one card, grown from
        the newest part, or for a landed card from the part most others agree with.

        A landed card lies still, so its parts show up again where they lie: one seen once, and
        not just now, was a glimpse (a box drawn over a hand reaching across), and it would
        stretch the footprint so that the card's own pair overran it and read as a second copy
        (a Karo-Dame played twice, its trick repaired at the sweep with two questions).
        """
        recent = [part for _, part in reversed(track.recent)]  # newest first
        seed = 0
        if track.landed:
            again = _seen_again(recent)
            recent = [part for k, part in enumerate(recent) if k == 0 or again[k]]
            agree = [sum(self._fits(p, q, track.size) for q in recent) for p in recent]
            seed = int(np.argmax(agree))
        box: np.ndarray = recent[seed]
        for k, part in enumerate(recent):
            if k != seed and self._fits(box, part, track.size):
                box = _union(box, part)
        return box

    def _settle(self, track: Track, since: float) -> None:
        """Forgets the parts a landing card showed only in passing: seen once, before it came to
        rest at ``since``, and never again in that place.

        While it slid in, its leading index passed over where the card now lies and still fitted
        one card with the index at rest, so the footprint reached a card's length back along the
        path. A pair of the card's own two indices then overran that footprint, read as an index
        of a second copy, and the card was played twice (both Kreuz-Könige of one trick, on two
        decks never trained on). An index seen in the same place over several frames before the
        rest began lies where the card lies, and stays.
        """
        again = _seen_again([part for _, part in track.recent])
        kept = [entry for k, entry in enumerate(track.recent) if entry[0] >= since or again[k]]
        if kept and len(kept) < len(track.recent):
            track.recent = deque(kept, maxlen=track.recent.maxlen)
            track.box = self._joined_parts(track)
            track.center = _center(track.box)

    def _rest_since(self, track: Track) -> float | None:
        """The time since which the track has stayed within ``rest_tolerance`` of its last place."""
        if not track.path:
            return None
        last = track.path[-1][1]
        since = track.path[-1][0]
        for t, c in reversed(track.path):
            if np.hypot(*(c - last)) > self.rest_tolerance * track.size:
                break
            since = t
        return since

    def _rereads_landed(self, track: Track) -> bool:
        """A box lying on a landed card that was still seen after this track began is a misread of
        that card, not a new one (a card put on top hides the one below)."""
        for other in self.tracks:
            if not other.landed or other is track or other.last_time < track.first_time:
                continue
            # Where another card lay when it landed counts too: a four-index card read half as one
            # card, half as another, splits so. (Not for the same card: two copies side by side may
            # swap tracks. Not between cards seen by parts: where one landed is where its index lay,
            # and a card put on top covers that index; whether the parts lie on it is asked below.)
            places = [other.center]
            if (
                other.landed_center is not None
                and other.card_index != track.card_index
                and not (track.parts and other.parts)
            ):
                places.append(other.landed_center)
            if min(np.hypot(*(p - track.center)) for p in places) < self.reread_distance * max(other.size, track.size):
                return True
            if track.parts and other.parts:
                # Only part of a card seen, and all of it lying on the landed card: one of its
                # indices read as another card.
                ends = track.box.reshape(2, 2)
                if float(_outside(ends, other.box).max()) <= self.reread_distance * other.size:
                    return True
        return self._bridges_copies(track)

    def _bridges_copies(self, track: Track) -> bool:
        """Whether a card seen by parts joins an index of each of its card's two landed copies: the
        deck has no third copy, and each end of what is seen lies on one of them, so a frame's
        grouping paired the two copies' indices across (a misread index nearby can tip it).

        Seed 60000's fifth trick, both Karo-Buben in it: in 4 of 50 frames the pairing crossed,
        and the cross pair landed as a third copy the game asked about.
        """
        if not track.parts:
            return False
        copies = [
            o
            for o in self.tracks
            if o.landed
            and o is not track
            and o.parts
            and o.card_index == track.card_index
            and o.last_time >= track.first_time
        ]
        if len(copies) < 2:
            return False
        ends = track.box.reshape(2, 2)
        reach = np.array([_outside(ends, o.box) / o.size for o in copies]).min(0)
        return bool((reach <= self.reread_distance).all())

    def _reappears(self, track: Track) -> bool:
        """A landed card found again by a second track (it was hidden, its box changed shape as a
        hand let go of it, or a misreading next door started the track): a box of the same card
        that rests in its place and did not slide in (as a second copy would). The landed track takes the box over;
        the new track is dropped.
        """
        points = [c for _, c in track.path]
        steps = [float(np.hypot(*(b - a))) for a, b in zip(points, points[1:])]
        for other in self.tracks:
            if not other.landed or other is track or other.card_index != track.card_index:
                continue
            if other.id in track.co_seen:
                continue  # both in view at once: two copies of the card
            # How far it slid. A track begun while the landed card was in view may have jumped from a
            # misreading next door: its longest single step is left out (a slide is many). A track begun
            # while the card lay hidden counts its whole way: at a few frames a second, the second copy
            # slid onto the spot (its holder won the trick and led it) comes in by one long step.
            hidden = track.first_time - other.last_time > self.reappear_after
            travelled = sum(steps) - (0.0 if hidden else max(steps, default=0.0))
            near = self.reappear_gate * max(other.size, track.size)
            if 0.0 <= track.first_time - other.last_time <= self.moved_gap:
                # It vanished as this one showed up next to it: the same card, pushed on after
                # it seemed to rest (the hand let go of it only now).
                near = self.moved_gate * max(other.size, track.size)
            if np.hypot(*(other.center - track.center)) < near and travelled < near:
                other.center, other.last_time = track.center, track.last_time
                other.hits += track.hits
                self._dropped.add(track.id)
                return True
        return False

    def _taken_away(self, track: Track, survivors: list[Track], time: float) -> list[Track]:
        """The landed cards that ``track``, just come to rest, shows were taken away (see
        ``cover_distance``). A card it covered as it came in stays: that one was seen until it arrived."""
        if self.cover_distance <= 0:
            return []
        reach = self.cover_distance * track.size
        return [
            other
            for other in survivors
            if other.landed
            and other is not track
            and other.card_index != track.card_index
            and other.last_time < track.first_time
            and time - other.last_time > self.reappear_after
            and other.landed_center is not None
            and float(np.hypot(*(other.landed_center - track.center))) <= reach
        ]

    def _take_over(self, landed: Track) -> bool:
        """Before giving a landed card up: has a second track of the same card been taking its
        boxes in its place (born of a misreading nearby)? Then the card is still there; the
        landed track takes the other's place and the other is dropped."""
        for other in self.tracks:
            if other.landed or other.id in self._dropped or other.card_index != landed.card_index:
                continue
            near = self.reappear_gate * max(other.size, landed.size)
            if np.hypot(*(other.center - landed.center)) < near and other.last_time > landed.last_time:
                landed.center, landed.last_time = other.center, other.last_time
                landed.votes += other.votes
                landed.counts += other.counts
                self._dropped.add(other.id)
                return True
        return False

    def _in_trick_area(self, track: Track) -> bool:
        return bool(self.geometry.in_trick_area(track.center[None])[0])

    def _note_slowest(self, track: Track, frame: int) -> None:
        """Remembers where a card not yet landed moved slowest inside the trick area (pixels a second
        since it was seen before), on its way in: where it was put down, if it was. A card seen moving
        away from the centre is being carried off (with its trick, or back to its player), and where it
        slows down then is no place it was put."""
        if len(track.path) < 2 or not self._in_trick_area(track) or track.leaving:
            return
        (t0, c0), (t1, c1) = track.path[-2], track.path[-1]
        if float(np.hypot(*(c1 - c0))) > self.rest_tolerance * track.size and (
            self.geometry.polar((float(c1[0]), float(c1[1])))[1] > self.geometry.polar((float(c0[0]), float(c0[1])))[1]
        ):
            track.leaving = True
            return
        speed = float(np.hypot(*(c1 - c0))) / max(t1 - t0, 1e-6)
        if track.slowest is None or speed < track.slowest[0]:
            track.slowest = (speed, t1, frame, c1.copy())

    def _glimpsed(self, track: Track, frame: int, time: float) -> list[TrackerEvent]:
        """A card whose track ends without landing, reported where it moved slowest in the trick area
        with ``glimpse_weight``, then as gone, when it came there from ``glimpse_approach`` card
        sizes or more farther out and its reading holds.

        A trick collected right after its last card was put down carries that card off before it
        rests: it is still a play, only seen less well. A track begun on the table (a card being
        collected, a misreading on a card lying there) did not come in, and is no glimpse. A card
        slid in fast is followed only from its last hops (its first track ends where the next box
        lies more than ``gate`` away), so less than a card's length of its way in may be seen.
        """
        if self.glimpse_weight <= 0 or track.slowest is None or track.hits < self.min_hits:
            return []
        _, when, at, center = track.slowest
        start = track.path[0][1]
        came_in = (
            self.geometry.polar((float(start[0]), float(start[1])))[1]
            > self.geometry.polar((float(center[0]), float(center[1])))[1]
        )
        if not came_in or float(np.hypot(*(center - start))) < self.glimpse_approach * track.size:
            return []
        index, confidence = track.card_index, track.confidence
        if confidence < self.min_land_confidence:
            return []
        glimpse = CardLanded(
            track_id=track.id,
            card_index=index,
            confidence=confidence,
            center=(float(center[0]), float(center[1])),
            frame=at,
            time=when,
            candidates=tuple(track.candidates()),
            uncertain=track.share < self.min_share,
            weight=self.glimpse_weight,
            came_from=_came_from(track, center),
        )
        return [glimpse, CardLeft(track.id, index, frame, time, track.last_time)]

    def _try_land(self, track: Track, frame: int, time: float) -> CardLanded | None:
        if track.hits < self.min_hits or time - track.last_time > 1e-9:
            return None  # only decide on frames where the card is actually seen
        if not self._in_trick_area(track):
            return None
        since = self._rest_since(track)
        if since is None or time - since < self.rest_time:
            return None
        if self._reappears(track) or self._rereads_landed(track):
            return None
        uncertain = track.share < self.min_share
        if uncertain and time - since < self.decide_within:
            return None
        index, confidence = track.card_index, track.confidence
        if confidence < self.min_land_confidence:
            return None  # inconsistent and weakly scored: misreadings, not a card
        if track.parts:
            self._settle(track, since)
        track.landed = True
        track.landed_center = track.center.copy()
        track.landed_box = track.box.copy()
        return CardLanded(
            track_id=track.id,
            card_index=index,
            confidence=confidence,
            center=(float(track.center[0]), float(track.center[1])),
            frame=frame,
            time=time,
            candidates=tuple(track.candidates()),
            uncertain=uncertain,
            spread=round(max(0.0, (track.size - float(_diagonal(track.box[None])[0])) / 2.0), 1)
            if track.parts
            else 0.0,
            came_from=_came_from(track, track.center),
        )


def _came_from(track: Track, center: np.ndarray) -> tuple[float, float] | None:
    """Where ``track`` began, when half a card or more away from ``center``."""
    start = track.path[0][1] if track.path else center
    if float(np.hypot(*(start - center))) < 0.5 * track.size:
        return None
    return (float(start[0]), float(start[1]))


def _are_parts(det: Detections) -> bool:
    """Whether the rows are corner-index parts of cards rather than whole cards."""
    corners = det.data.get("corners")
    return corners is not None and len(corners) > 0 and bool((np.asarray(corners) > 0).all())


def _two_in_a_row(box: np.ndarray, size: float, index_ratio: float) -> bool:
    """Whether a box about one index thick is longer than a card's diagonal ``size``: indices
    side by side on one card lie at most its long side apart, so these lie on two cards."""
    w, h = float(box[2] - box[0]), float(box[3] - box[1])
    return min(w, h) <= 3.0 * size / index_ratio and max(w, h) > size


def _seen_again(parts: list[np.ndarray]) -> np.ndarray:
    """For each part, whether another of ``parts`` was seen in the same place.

    >>> _seen_again([np.array([0.0, 0, 10, 10]), np.array([1.0, 0, 11, 10]), np.array([50.0, 50, 60, 60])]).tolist()
    [True, True, False]
    """
    boxes = np.array(parts, dtype=np.float64).reshape(-1, 4)
    again: np.ndarray = (box_iou(boxes, boxes) >= SAME_PLACE_IOU).sum(1) > 1
    return again


def _center(box: np.ndarray) -> np.ndarray:
    b = np.asarray(box, np.float64)
    return (b[:2] + b[2:]) / 2.0


def _diagonal(xyxy: np.ndarray) -> np.ndarray:
    diagonal: np.ndarray = np.hypot(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]).astype(np.float64)
    return diagonal


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two boxes share any area."""
    return bool(min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1]))


def _union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])], dtype=np.float64)


def _outside(points: np.ndarray, box: np.ndarray) -> np.ndarray:
    """How far each point lies outside ``box`` (0 inside)."""
    dx = np.maximum(np.maximum(box[0] - points[:, 0], points[:, 0] - box[2]), 0.0)
    dy = np.maximum(np.maximum(box[1] - points[:, 1], points[:, 1] - box[3]), 0.0)
    distance: np.ndarray = np.hypot(dx, dy)
    return distance


def _shift_to_hold(box: np.ndarray, part: np.ndarray) -> np.ndarray:
    """``box`` moved only as far as needed to hold ``part`` (which is smaller)."""
    low = np.minimum(part[:2] - box[:2], 0.0)
    high = np.maximum(part[2:] - box[2:], 0.0)
    shifted: np.ndarray = box + np.tile(low + high, 2)
    return shifted
