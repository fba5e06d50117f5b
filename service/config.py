"""The service's settings: one ``BaseSettings``, read from ``DOKOCAM_*`` variables, ``.env`` or the data home.

The data home is ``$DOKOCAM_HOME`` (default ``~/.dokocam``): the default event log
(``table.db``), enrolled decks (``decks/``) and settings (``settings.env``, the same
``DOKOCAM_*`` lines as ``.env``; the environment and ``./.env`` win over it).
"""

from __future__ import annotations

import ipaddress
import secrets
from pathlib import Path

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, DotEnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from dokocam.vision.home import dokocam_home

TOKEN_BYTES = 16  # 128 random bits
TOKEN_MIN_CHARS = 22  # what 128 random bits take in URL-safe base64


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

    Every field can be set as ``DOKOCAM_<NAME>`` (``DOKOCAM_DB=/tmp/table.db``), in ``./.env`` or in
    ``$DOKOCAM_HOME/settings.env``, in that order of precedence after the arguments.
    """

    model_config = SettingsConfigDict(env_prefix="DOKOCAM_", env_file=".env", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    home: Path = Field(default_factory=dokocam_home, description="the data home ($DOKOCAM_HOME, default ~/.dokocam)")
    db: Path = Field(
        default_factory=lambda fields: Path(fields["home"]) / "table.db",
        description="the event log; default: table.db in the data home",
    )
    source: str | None = Field(
        default=None, description="camera index, video file, or a recorded event list (.json/.jsonl); None: no camera"
    )
    realtime: bool = Field(
        default=True, description="play a file source at its own pace (False: as fast as it decodes)"
    )
    token: str | None = Field(
        default=None,
        description=f"the table token, at least {TOKEN_MIN_CHARS} characters; generated at start when the host "
        "is not loopback",
    )
    frame_fps: float = Field(default=5.0, gt=0, le=30, description="how often pages get a new camera image")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="host names besides this machine's own that changes may come through (a reverse proxy's)",
    )
    https_cert: Path | None = Field(
        default=None, description="serve HTTPS with this PEM certificate (it may hold the key)"
    )
    https_key: Path | None = Field(default=None, description="the certificate's private key, when not in https_cert")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The home's file is looked up when settings are read, so a changed $DOKOCAM_HOME counts.
        home_file = DotEnvSettingsSource(settings_cls, env_file=dokocam_home() / "settings.env")
        return init_settings, env_settings, dotenv_settings, home_file, file_secret_settings

    @field_validator("home")
    @classmethod
    def _home_expanded(cls, value: Path) -> Path:
        return value.expanduser()

    @field_validator("host")
    @classmethod
    def _host_not_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("host must not be empty; use 127.0.0.1 for this machine only")
        return value.strip()

    @field_validator("token")
    @classmethod
    def _token_long_enough(cls, value: str | None) -> str | None:
        if value is not None and len(value.strip()) < TOKEN_MIN_CHARS:
            raise ValueError(
                f"the table token needs at least {TOKEN_MIN_CHARS} characters (128 bits); "
                "leave it out and one is generated"
            )
        return value.strip() if value is not None else None

    @field_validator("https_cert", "https_key")
    @classmethod
    def _file_exists(cls, value: Path | None) -> Path | None:
        if value is not None and not value.is_file():
            raise ValueError(f"{value}: no such file (HTTPS needs a PEM certificate and its key)")
        return value

    @model_validator(mode="after")
    def _key_needs_cert(self) -> Settings:
        if self.https_key is not None and self.https_cert is None:
            raise ValueError("an HTTPS key needs its certificate: give --https CERT.pem too")
        return self

    @property
    def token_required(self) -> bool:
        """State-changing calls need the token whenever the network can reach the server."""
        return not is_loopback(self.host) or self.token is not None

    def with_token(self) -> Settings:
        """These settings, with a fresh token when one is needed and none was given."""
        if self.token is None and not is_loopback(self.host):
            return self.model_copy(update={"token": secrets.token_urlsafe(TOKEN_BYTES)})
        return self
