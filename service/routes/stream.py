"""What pages watch: the full state, live updates (Server-Sent Events) and the camera image."""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import APIRouter, Query, Request, Response, status
from fastapi.responses import StreamingResponse

from dokocam.engine.messages import Message
from dokocam.service.camera_check import check_frame
from dokocam.service.deps import TableDep
from dokocam.service.errors import ApiError
from dokocam.service.schemas import CheckPublic, TablePublic
from dokocam.service.texts import Text

router = APIRouter(tags=["stream"])


@router.get("/state")
def read_state(*, table: TableDep) -> TablePublic:
    """Everything a page shows, as of the last event."""
    return TablePublic.model_validate(table.view())


@router.get(
    "/stream",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "events `state`, `frame`, `feed`, `pipeline`"}
    },
)
async def stream(*, table: TableDep, request: Request) -> StreamingResponse:
    """Live updates as Server-Sent Events: ``state`` (a ``TablePublic``) on every change, ``frame`` per image."""

    async def messages() -> AsyncIterator[str]:
        async for text in table.hub.subscribe(replay=("state", "frame")):
            if await request.is_disconnected():
                break
            yield text

    return StreamingResponse(
        messages(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@router.get("/camera/check")
def check_camera(*, table: TableDep) -> list[CheckPublic]:
    """A check of the newest camera image before play: trick area in view, index size, light, focus.

    Each finding says what to change. Lay four cards face up in the middle of the table first.
    """
    import cv2
    import numpy as np

    frame = table.frame()
    if frame is None:
        raise ApiError(status.HTTP_404_NOT_FOUND, Message("service.check.no_frame"))
    image = cv2.imdecode(np.frombuffer(frame.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise ApiError(status.HTTP_404_NOT_FOUND, Message("service.check.no_frame"))
    checks = check_frame(image, [box.xyxy for box in frame.boxes], scale=frame.scale)
    return [CheckPublic.model_validate(c.to_dict()) for c in checks]


@router.get("/frame.jpg", response_class=Response, responses={200: {"content": {"image/jpeg": {}}}})
def read_frame(
    *,
    table: TableDep,
    index: int | None = Query(None, ge=0, le=2**62, description="a frame named by a `frame` message"),
) -> Response:
    """The newest camera image (or the one ``index`` names while it is kept), as JPEG."""
    frame = table.frame(index)
    if frame is None:
        raise ApiError(
            status.HTTP_404_NOT_FOUND, Text("no_frame") if index is None else Text("frame_gone", index=index)
        )
    return Response(frame.jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})
