"""Where dokocam keeps a user's data: ``$DOKOCAM_HOME``, by default ``~/.dokocam``.

One home for the default event log, enrolled decks and settings, so that a user can back it up,
move it or point a second table at another one.

>>> import os
>>> os.environ["DOKOCAM_HOME"] = "/tmp/doko-home"
>>> str(dokocam_home()), str(decks_dir())
('/tmp/doko-home', '/tmp/doko-home/decks')
>>> del os.environ["DOKOCAM_HOME"]
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "DOKOCAM_HOME"


def dokocam_home() -> Path:
    """The data home: ``$DOKOCAM_HOME`` when set, else ``~/.dokocam`` (not created here)."""
    given = os.environ.get(ENV_VAR, "").strip()
    return Path(given).expanduser() if given else Path.home() / ".dokocam"


def decks_dir() -> Path:
    """Enrolled decks, one folder each: ``<home>/decks/NAME/``."""
    return dokocam_home() / "decks"
