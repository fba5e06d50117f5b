"""The service's settings: one ``BaseSettings``, read from ``DOKOCAM_*`` variables or ``.env``."""

from __future__ import annotations

import ipaddress
import secrets
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def is_loopback(host: str) -> bool:
    """True for hosts only this machine can reach (``127.0.0.1``, ``::1``, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Settings(BaseSettings):
    """How one dashboard runs.

    Every field can be set as ``DOKOCAM_<NAME>`` (``DOKOCAM_DB=/tmp/table.db``).
    """

    model_config = SettingsConfigDict(env_prefix="DOKOCAM_", env_file=".env", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    db: Path = Path("dokocam.db")
    source: str | None = Field(
        None, description="camera index, video file, or a recorded event list (.json/.jsonl); None: no camera"
    )
    realtime: bool = Field(True, description="play a file source at its own pace (False: as fast as it decodes)")
    token: str | None = Field(None, description="the table token; generated at start when the host is not loopback")
    frame_fps: float = Field(5.0, gt=0, le=30, description="how often pages get a new camera image")

    @field_validator("host")
    @classmethod
    def _host_not_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("host must not be empty; use 127.0.0.1 for this machine only")
        return value.strip()

    @property
    def token_required(self) -> bool:
        """State-changing calls need the token whenever the network can reach the server."""
        return not is_loopback(self.host) or self.token is not None

    def with_token(self) -> Settings:
        """These settings, with a fresh token when one is needed and none was given."""
        if self.token is None and not is_loopback(self.host):
            return self.model_copy(update={"token": secrets.token_urlsafe(12)})
        return self
