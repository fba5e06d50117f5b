"""``python -m dokocam.service.cli``: the ``dokocam`` command."""

import sys

from dokocam.service.cli import main

# Guarded: importing the module (the doctest runner walks every module) must not run the command.
if __name__ == "__main__":
    sys.exit(main())
