"""The Deck page's API: enrol a deck from a photo (upload or camera), confirm its faces, adapt, use it.

The handlers only pass requests to the table's deck desk (``service.deckdesk``); the desk works on
its own threads and process, and the page polls ``GET /decks/enrolment`` for its state.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response, status

from dokocam.service.deckdesk import MAX_PHOTO, DeckDesk, DeskBusy, UnknownDeck
from dokocam.service.deps import TokenDep
from dokocam.service.errors import ApiError
from dokocam.service.schemas import CameraEnrolment, DeckConfirm, DeckPublic, DeckUse, EnrolmentPublic, KreuzChoice
from dokocam.service.texts import Text, TextError
from dokocam.vision.synth.faces import CARD_CODES

router = APIRouter(prefix="/decks", tags=["decks"])

UPLOAD_PATH = "/decks/enrolment"  # the one route the gate lets a multipart photo through to


def get_desk(request: Request) -> DeckDesk:
    desk: DeckDesk = request.app.state.decks
    return desk


DeskDep = Annotated[DeckDesk, Depends(get_desk)]


def _refusal(exc: TextError) -> ApiError:
    if isinstance(exc, DeskBusy):
        return ApiError(status.HTTP_409_CONFLICT, exc.text)
    if isinstance(exc, UnknownDeck):
        return ApiError(status.HTTP_404_NOT_FOUND, exc.text)
    return ApiError(status.HTTP_422_UNPROCESSABLE_CONTENT, exc.text)


@router.get("")
def list_decks(*, desk: DeskDep) -> list[DeckPublic]:
    """The enrolled decks; ``in_use`` marks the one the table reads with."""
    return [DeckPublic.model_validate(d) for d in desk.decks()]


@router.get("/enrolment")
def enrolment(*, desk: DeskDep) -> EnrolmentPublic:
    """The enrolment in progress: its state, the rectified faces to confirm, refusals, the adaptation's progress."""
    return EnrolmentPublic.model_validate(desk.status())


@router.post(
    "/enrolment",
    status_code=status.HTTP_202_ACCEPTED,
    dependencies=[TokenDep],
    openapi_extra={
        "requestBody": {
            "content": {
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "required": ["name", "photo"],
                        "properties": {
                            "name": {"type": "string", "maxLength": 40},
                            "kreuz": {"type": "string", "enum": ["oben", "unten", "links", "rechts"]},
                            "photo": {"type": "string", "format": "binary"},
                        },
                    }
                }
            },
            "required": True,
        }
    },
)
async def upload_photo(*, request: Request, desk: DeskDep) -> EnrolmentPublic:
    """Enrols a deck from an uploaded photo of its 24 faces in the layout (a form: ``name``, ``photo``, ``kreuz``).

    The enrolment runs on a worker thread: poll ``GET /decks/enrolment`` for the faces or the refusal.
    """
    body = await request.body()
    if len(body) > MAX_PHOTO:
        raise ApiError(status.HTTP_413_CONTENT_TOO_LARGE, Text("deck_photo_too_large", limit=MAX_PHOTO // 2**20))
    fields = parse_form(request.headers.get("content-type", ""), body)
    name, photo = fields.get("name", b"").decode("utf-8", "replace").strip(), fields.get("photo", b"")
    kreuz = fields.get("kreuz", b"").decode("utf-8", "replace").strip() or None
    if not name or not photo or kreuz not in (None, "oben", "unten", "links", "rechts"):
        raise ApiError(status.HTTP_422_UNPROCESSABLE_CONTENT, Text("deck_upload_bad"))
    try:
        return EnrolmentPublic.model_validate(desk.enrol(name, photo, kreuz=kreuz))
    except TextError as exc:
        raise _refusal(exc) from exc


@router.post("/enrolment/camera", status_code=status.HTTP_202_ACCEPTED, dependencies=[TokenDep])
def enrol_camera(*, desk: DeskDep, body: CameraEnrolment) -> EnrolmentPublic:
    """Enrols a deck from the camera's newest frame (the 24 faces laid out under the camera)."""
    try:
        return EnrolmentPublic.model_validate(desk.enrol_from_camera(body.name, kreuz=body.kreuz))
    except TextError as exc:
        raise _refusal(exc) from exc


@router.post("/enrolment/kreuz", status_code=status.HTTP_202_ACCEPTED, dependencies=[TokenDep])
def enrol_with_kreuz(*, desk: DeskDep, body: KreuzChoice) -> EnrolmentPublic:
    """Reads the photo refused for its orientation again, with the Kreuz row on the side chosen
    (``kreuz_sides`` of ``GET /decks/enrolment`` names the possible ones)."""
    try:
        return EnrolmentPublic.model_validate(desk.enrol_with_kreuz(body.kreuz))
    except TextError as exc:
        raise _refusal(exc) from exc


@router.get("/enrolment/faces/{code}.png", response_class=Response)
def face(*, desk: DeskDep, code: str) -> Response:
    """One rectified face of the enrolment waiting for confirmation."""
    image = desk.face(code.upper()) if code.upper() in CARD_CODES else None
    if image is None:
        raise ApiError(status.HTTP_404_NOT_FOUND, Text("deck_nothing_to_confirm", state=desk.status()["phase"]))
    return Response(image, media_type="image/png", headers={"Cache-Control": "no-store"})


@router.post("/enrolment/confirm", status_code=status.HTTP_202_ACCEPTED, dependencies=[TokenDep])
def confirm(*, desk: DeskDep, body: DeckConfirm) -> EnrolmentPublic:
    """The players confirm the faces: the deck is stored and adapted (progress in ``GET /decks/enrolment``),
    then the table reads with it. With unsure places it needs ``unsure_checked``."""
    try:
        return EnrolmentPublic.model_validate(desk.confirm(unsure_checked=body.unsure_checked))
    except TextError as exc:
        raise _refusal(exc) from exc


@router.post("/enrolment/cancel", dependencies=[TokenDep])
def cancel(*, desk: DeskDep) -> EnrolmentPublic:
    """Drops the enrolment waiting for confirmation; nothing is saved."""
    try:
        return EnrolmentPublic.model_validate(desk.cancel())
    except TextError as exc:
        raise _refusal(exc) from exc


@router.put("/current", dependencies=[TokenDep])
def use_deck(*, desk: DeskDep, body: DeckUse) -> EnrolmentPublic:
    """Switches the table to an enrolled deck (null: the shipped detector); logged as ``deck_set``."""
    try:
        return EnrolmentPublic.model_validate(desk.use(body.name))
    except TextError as exc:
        raise _refusal(exc) from exc


def parse_form(content_type: str, body: bytes) -> dict[str, bytes]:
    """The fields of a ``multipart/form-data`` body (name -> raw bytes); empty when it is not one.

    >>> body = b'--x\\r\\nContent-Disposition: form-data; name="a"\\r\\n\\r\\n1\\r\\n--x--'
    >>> parse_form("multipart/form-data; boundary=x", body)
    {'a': b'1'}
    """
    media, _, params = content_type.partition(";")
    if media.strip().lower() != "multipart/form-data":
        return {}
    boundary = ""
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "boundary":
            boundary = value.strip('"')
    if not boundary:
        return {}
    fields: dict[str, bytes] = {}
    for part in body.split(b"--" + boundary.encode("latin-1"))[1:]:
        if part.startswith(b"--"):
            break
        head, sep, content = part.partition(b"\r\n\r\n")
        if not sep:
            continue
        for line in head.decode("latin-1").split("\r\n"):
            if line.lower().startswith("content-disposition:") and 'name="' in line:
                name = line.split('name="', 1)[1].split('"', 1)[0]
                fields[name] = content[:-2] if content.endswith(b"\r\n") else content
    return fields
