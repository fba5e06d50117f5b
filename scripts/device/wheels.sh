#!/usr/bin/env bash
# Fetches the wheels scripts/device/build.sh installs on the GPU machine (Python 3.12) into .whl/,
# at the versions this project's own environment runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
version() { .venv/bin/python -c "import importlib.metadata as m; print(m.version('$1'))"; }
mkdir -p .whl
.venv/bin/python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
  "ultralytics==$(version ultralytics)" "ultralytics-thop==$(version ultralytics-thop)"
ls -la .whl
