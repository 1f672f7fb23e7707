#!/usr/bin/env bash
# The GPU check of issue 26, in one run on a fresh machine with one CUDA device (about 8 minutes):
#   1. the maddening, skcomplex and mime tests on the GPU (float64 where the tests ask for it);
#   2. the contact bench (bench/contact_speed.py) at 1,000 and 100,000 bodies, MIME beside MJX.
#
# Usage, from the repository's root:
#     bash bench/gpu_check.sh                 # installs what is missing, then runs both parts
#     SKIP_INSTALL=1 bash bench/gpu_check.sh  # the environment is ready
#
# Where the repository carries a folder .whl (wheels for a machine that reaches no registry), they
# are installed into /tmp/site and the project runs from src/ on the machine's own JAX; otherwise
# JAX with CUDA is installed with `pip install "jax[cuda12]"` at the version the project pins
# (pyproject.toml), so the CPU and GPU runs share one JAX. Results go to $OUT (or ./gpu-check).
# The tests run without the project's pytest options (nbval's among them: no page runs here).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-check}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
# several test processes share the one device: no process may take most of its memory up front
export XLA_PYTHON_CLIENT_PREALLOCATE=false

if [ -d .whl ]; then
  # a machine that reaches no registry: the wheels carried in .whl (mujoco, mujoco-mjx and what
  # they need), the project from src/, and the JAX with CUDA the machine already has
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    || exit 1
  export PYTHONPATH="/tmp/site:$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
elif [ -z "${SKIP_INSTALL:-}" ]; then
  jax_version=$("$PY" - <<'EOF'
import re, tomllib
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
spec = next(d for d in deps if d.startswith("jax>") or d.startswith("jax<") or d.startswith("jax="))
print(spec[3:])
EOF
)
  "$PY" -m pip install --quiet -e ".[test]" "jax[cuda12]${jax_version}" "mujoco>=3.2,<5" "mujoco-mjx" \
    2>&1 | tail -3
fi

"$PY" - <<'EOF' | tee "$OUT/devices.txt"
import jax
print("jax", jax.__version__, "devices", jax.devices())
assert jax.default_backend() == "gpu", "no GPU: this check is meant for a CUDA device"
EOF

# 1. the tests (no pages, no browser): about 5 minutes on a warm GPU
timeout 330 "$PY" -m pytest -q -p no:cacheprovider -o addopts="-ra" -n 4 --dist loadfile \
  tests/maddening tests/skcomplex tests/mime tests/test_fuzz_inputs.py \
  -k "not browser" 2>&1 | tail -25 | tee "$OUT/tests.txt"

# 2. the bench: MIME and MJX at 1,000 and 100,000 bodies (MuJoCo's C rollout runs on the host)
timeout 240 "$PY" bench/contact_speed.py --scenes ball_rest,box_incline --bodies 1000,100000 \
  --batch-steps 100 --repeat 3 2>&1 | tee "$OUT/bench.txt"
echo "results in $OUT"
