#!/usr/bin/env bash
# The tests, as CI runs them: installs what they need (venv, Debian's chromium for the browser tests,
# the SVG card decks and their rasterizer), then ruff and mypy, the wheel installed into a new
# environment and used from another folder, and the whole suite.
# With arguments, only pytest runs, with those arguments (scripts/test.sh tests/engine -x).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -d /usr/share/carddecks ] || missing+=(kdegames-card-data-kf5)
command -v rsvg-convert >/dev/null || missing+=(librsvg2-bin)
[ -d /usr/share/fonts/truetype/liberation ] || missing+=(fonts-liberation)  # the held-out designs' fonts
# The further font families of datasets/designs.md.
for package in fonts-urw-base35 fonts-cantarell fonts-lato fonts-open-sans fonts-comfortaa fonts-linuxlibertine fonts-go; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's ${missing[*]}" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null) \
    || echo "warning: could not install ${missing[*]}; the tests that need them will say so" >&2
fi
if [ $# -gt 0 ]; then
  exec .venv/bin/python -m pytest "$@"
fi
scripts/check.sh
scripts/wheel-smoke.sh
exec .venv/bin/python -m pytest
