"""Opens what ``--source`` names as a feed: a recorded event list, or a camera or video through the pipeline."""

from __future__ import annotations

from dokocam.service.feed import Feed, RecordedFeed, is_recorded


def open_feed(
    source: str, *, realtime: bool = True, model: str | None = None, deck: str | None = None, stride: int | None = None
) -> Feed:
    """Opens a camera index, a video file or a recorded event list as a feed.

    Camera and video go through ``vision.table`` (imported here, lazily: it loads the detector).

    Raises:
        FeedError, SourceError, ModelNotFoundError: the source or the model cannot be opened.
    """
    if is_recorded(source):
        return RecordedFeed(source, realtime=realtime)
    from dokocam.service.vision_feed import VisionFeed  # heavy: cv2, the detector

    return VisionFeed(source, realtime=realtime, model=model, deck=deck, stride=stride)
