#!/usr/bin/env bash
# `dokocam detector build runs/gpu ARGS...` on a lent GPU machine, then its model and scores to $OUT.
#
# That machine has Python 3.12 with torch (CUDA), OpenCV, numpy, matplotlib and tqdm, but neither
# ultralytics nor polars, and reaches no registry: scripts/device/wheels.sh puts the wheels into .whl/
# here, and the device call carries it (carry: [".whl"]). polars' wheel is too large to carry, so
# scripts/device/polars stands in for the one call Ultralytics' trainer makes of it.
# A call stopped by its time limit leaves runs/gpu on the warm machine: the same command continues it.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
if ! "$PY" -c "import ultralytics" 2>/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --target /tmp/dokocam-site .whl/*.whl
  export PYTHONPATH=/tmp/dokocam-site${PYTHONPATH:+:$PYTHONPATH}
fi
if ! "$PY" -c "import polars" 2>/dev/null; then
  export PYTHONPATH=$PWD/scripts/device${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} YOLO_OFFLINE=1 PYTHONUNBUFFERED=1
"$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"
dir=${BUILD_DIR:-runs/gpu}
"$PY" -m service.cli build-detector "$dir" "$@"
cat "$dir/build.json"
if [ -n "${OUT:-}" ]; then  # at most 8 files come back from a device call: these are 6
  cp "$dir"/model/* "$dir/build.json" "$dir/eval/scores.json" "$OUT"/
fi
