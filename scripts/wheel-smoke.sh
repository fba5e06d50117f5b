#!/usr/bin/env bash
# Builds the wheel, installs it into a new virtual environment and uses it from another folder:
# what a user who runs `pip install dokocam` gets, with nothing found through this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
start=$(date +%s)
.venv/bin/python -m build --wheel --outdir "$work/dist" . >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
python3.11 -m venv "$work/venv" 2>/dev/null || python3 -m venv "$work/venv"
# The dependencies come from .venv through a folder of links that leaves out dokocam's own editable install:
# a second copy of torch is 5 GB, more than a CI disk may have free. pip still checks the wheel's
# requirements against them and installs whatever is missing.
deps="$work/deps"
mkdir "$deps"
for entry in "$repo"/.venv/lib/python3*/site-packages/*; do
  case "$(basename "$entry")" in
    dokocam*|__editable__*|*.pth|pip|pip-*|setuptools|setuptools-*|_distutils_hack) ;;
    *) ln -s "$entry" "$deps/" ;;
  esac
done
echo "$deps" >"$(echo "$work"/venv/lib/python3*/site-packages)/dokocam-smoke-deps.pth"
"$work/venv/bin/python" -m pip install -q --no-cache-dir "$work"/dist/dokocam-*.whl >"$work/install.log" 2>&1 \
  || { cat "$work/install.log"; echo "wheel-smoke: the wheel did not install (above)"; exit 1; }
echo "wheel-smoke: built and installed in $(( $(date +%s) - start )) s"

cd "$work"
bin="$work/venv/bin"
"$bin/python" -c "import dokocam.engine as e, dokocam.vision, dokocam.service; assert e.__file__.startswith('$work/venv/'), e.__file__"
if "$bin/python" -c "import engine" 2>/dev/null; then echo "wheel-smoke: 'import engine' must fail"; exit 1; fi
cp "$repo/tests/reference_games/82187246.json" game.json
"$bin/dokocam" score game.json --json >score.json
"$bin/python" -c "import json; r = json.load(open('score.json')); assert sum(r['points']) == 0, r"
cp "$repo/datasets/synth-sample/images/val/0000000.jpg" photo.jpg
"$bin/dokocam" detect photo.jpg --json >detect.jsonl
"$bin/python" -c "import json; r = json.loads(open('detect.jsonl').readline()); assert r['cards'], r"
"$bin/dokocam" analyze "$("$bin/python" -c 'from dokocam.demo import DEMO_VIDEO; print(DEMO_VIDEO)')" \
  --json demo.json --stride 4 >/dev/null
"$bin/python" -c "import json; r = json.load(open('demo.json')); assert len(r['events']) >= 40, len(r['events'])"
"$bin/dokocam" dataset generate scenes --images 4 --imgsz 160 --seed 1 >/dev/null
"$bin/dokocam" detector train classifier --data scenes --out cls.pt --epochs 1 --crop-size 24 >/dev/null
test -s cls.pt
port=$("$bin/python" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
"$bin/dokocam" demo --port "$port" >demo.log 2>&1 &
server=$!
for _ in $(seq 60); do
  if "$bin/python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/', timeout=1)" 2>/dev/null; then
    echo "wheel-smoke: score, detect, analyze, dataset generate, detector train, demo all work from $work ($(( $(date +%s) - start )) s)"
    exit 0
  fi
  sleep 1
done
cat demo.log
echo "wheel-smoke: the demo dashboard did not answer"
exit 1
