#!/usr/bin/env bash
# Installs what the tests need (venv, Chromium for the browser test) and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then
  echo "installing Debian's chromium for the browser test" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "warning: chromium could not be installed; the browser test will be skipped" >&2
fi
exec .venv/bin/python -m pytest "$@"
