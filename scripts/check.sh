#!/usr/bin/env bash
# The code's habits: ruff's format and lint, mypy (engine/ strict, the rest as typed code).
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin
$py/ruff format --check --quiet .
$py/ruff check --quiet .
# mypy sees the folders as they install (dokocam.engine ...) through a tree of links.
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir "$tree/dokocam"
for folder in engine vision service models; do ln -s "$PWD/$folder" "$tree/dokocam/$folder"; done
ln -s "$PWD/datasets/demo" "$tree/dokocam/demo"
MYPYPATH="$tree" $py/mypy --config-file pyproject.toml --cache-dir .mypy_cache \
  -p dokocam.engine -p dokocam.vision -p dokocam.service -p dokocam.models -p dokocam.demo
echo "check: ruff and mypy clean"
