"""``python -m dokocam.service.cli``: the ``dokocam`` command."""

import sys

from dokocam.service.cli import main

sys.exit(main())
