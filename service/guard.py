"""The gate every request passes before a router sees it: host, origin, content type, size, JSON.

A state-changing request (POST, PUT, PATCH, DELETE) is let through only when

- its ``Host`` is this machine's (an IP address, ``localhost``, the machine's own names, or a
  name given with ``--allow-host``): a page on a rebinding domain name is refused;
- its ``Origin``, when a browser sends one, is the dashboard's own: another web page is refused;
- it says ``Content-Type: application/json``: a browser sends that across origins only after a
  preflight the server never grants, so a foreign page cannot even reach the table with it;
- its body is at most ``max_body`` bytes and is JSON without ``NaN`` or ``Infinity``.

The one exception is an upload route (``uploads``: a phone's photo of a deck): a POST there may be
``multipart/form-data`` up to that route's own limit; host and origin are checked as for every change.

Nothing is read from the table or written to it before all of this holds.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from dokocam.service.texts import Text, error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_BODY = 64 * 1024  # the largest real request (a Partie with five names and house rules) is under 1 KiB


def host_name(value: str) -> str:
    """The name part of a ``Host`` header or an origin's netloc, lower-case, without port or brackets.

    >>> host_name("Table.local:8000"), host_name("[::1]:8000"), host_name("192.168.1.20")
    ('table.local', '::1', '192.168.1.20')
    """
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value[1:]
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _without_default_port(netloc: str, scheme: str) -> str:
    default = {"http": ":80", "https": ":443"}[scheme]
    return netloc[: -len(default)] if netloc.endswith(default) else netloc


def machine_names() -> set[str]:
    """The names this machine answers to on the local network (``hostname``, ``hostname.local``, its FQDN)."""
    names = {"localhost"}
    try:
        hostname = socket.gethostname().lower()
        names |= {hostname, f"{hostname}.local", socket.getfqdn().lower()}
    except OSError:
        pass
    return {n for n in names if n}


class HostPolicy:
    """Which ``Host`` names a request may carry.

    An IP address is always accepted: DNS rebinding needs a domain name, and a person who typed
    the address meant this machine. Names are accepted when they are this machine's or given.

    Args:
        extra: further names (a reverse proxy's public name), without port.
    """

    def __init__(self, extra: Iterable[str] = ()) -> None:
        self.given = {n.strip().lower() for n in extra if n.strip()}
        self.names = machine_names() | {host_name(n) for n in self.given}

    def allows(self, host: str) -> bool:
        name = host_name(host)
        return bool(name) and (_is_ip(name) or name in self.names)

    def same_origin(self, origin: str, host: str) -> bool:
        """True when a browser's ``Origin`` is the page this ``Host`` serves (port included), or a given name.

        >>> HostPolicy(["doko.example.org"]).same_origin("https://doko.example.org", "127.0.0.1:8000")
        True
        >>> HostPolicy().same_origin("http://localhost:3000", "localhost:8000")
        False
        """
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False
        netloc = _without_default_port(parts.netloc.lower(), parts.scheme)
        if netloc == _without_default_port(host.strip().lower(), parts.scheme):
            return True
        return netloc in self.given


class Guard:
    """ASGI middleware applying the module's rules to every state-changing request.

    Args:
        app: the application behind the gate.
        hosts: the accepted ``Host`` names.
        max_body: the largest body accepted, in bytes (larger: 413).
        uploads: path -> largest body for the routes that take a ``multipart/form-data`` POST instead of JSON.
    """

    def __init__(
        self, app: App, *, hosts: HostPolicy, max_body: int = MAX_BODY, uploads: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.hosts = hosts
        self.max_body = max_body
        self.uploads = dict(uploads or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in CHANGING:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        upload = self._upload(scope, headers)
        limit = self.uploads[scope["path"]] if upload else self.max_body
        refusal = self._refusal(headers, limit, upload)
        if refusal is not None:
            await _reply(send, *refusal)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > limit:
                await _reply(send, 413, Text("body_too_large", limit=limit // 1024))
                return
            if not message.get("more_body", False):
                break
        if body.strip() and not upload:
            problem = _json_problem(bytes(body))
            if problem is not None:
                await _reply(send, 422, problem)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # only a disconnect can come after the body
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    def _upload(self, scope: Scope, headers: dict[str, str]) -> bool:
        """A multipart POST to one of the upload routes."""
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        return scope["method"] == "POST" and scope["path"] in self.uploads and media == "multipart/form-data"

    def _refusal(self, headers: dict[str, str], limit: int, upload: bool = False) -> tuple[int, Text] | None:
        host = headers.get("host", "")
        if not self.hosts.allows(host):
            return 421, Text("host_refused", host=_excerpt(host_name(host)))
        origin = headers.get("origin")
        if origin is not None and not self.hosts.same_origin(origin, host):
            return 403, Text("origin_refused", origin=_excerpt(origin))
        if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return 403, Text("origin_refused", origin=_excerpt(headers.get("origin", "?")))
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media != "application/json" and not upload:
            return 415, Text("json_only", given=_excerpt(media or "-"))
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            return 413, Text("body_too_large", limit=limit // 1024)
        return None


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def _json_problem(body: bytes) -> Text | None:
    """Why ``body`` is not strict JSON (``NaN``, ``Infinity``, bad syntax, not UTF-8), or None."""
    try:
        json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError:
        return Text("json_not_utf8")
    except json.JSONDecodeError as exc:
        return Text("json_invalid", line=exc.lineno, column=exc.colno)
    except ValueError as exc:
        return Text("json_not_a_number", value=str(exc))
    except RecursionError:
        return Text("json_too_deep")
    return None


def _excerpt(text: str, limit: int = 40) -> str:
    """At most ``limit`` characters of something a client sent, for an error message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def _reply(send: Send, status: int, text: Text) -> None:
    payload = json.dumps(error_body(text), ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json; charset=utf-8"),
                (b"content-length", b"%d" % len(payload)),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
