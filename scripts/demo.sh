#!/usr/bin/env bash
# Installs dokocam into .venv (first run only) and starts the dashboard on the bundled demo game.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/dokocam demo "$@"
