#!/usr/bin/env bash
# Creates .venv with everything dokocam needs, once; later calls return at once.
# torch is pinned to the CPU-usable release this machine's pip serves from local disk.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=.venv/.dokocam-installed
if [ -f "$stamp" ] && [ "$stamp" -nt pyproject.toml ]; then
  exit 0
fi
python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "torch==2.14.1" "torchvision==0.29.1"
.venv/bin/python -m pip install -q -e ".[test]"
touch "$stamp"
