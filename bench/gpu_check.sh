#!/usr/bin/env bash
# The GPU check of issue 26, in one run on a fresh machine with one CUDA device (about 8 minutes):
#   1. the maddening, skcomplex and mime tests on the GPU (float64 where the tests ask for it);
#   2. the contact bench (bench/contact_speed.py) at 1,000 and 100,000 bodies, MIME beside MJX.
#
# Usage, from the repository's root:
#     bash bench/gpu_check.sh                 # installs what is missing, then runs both parts
#     SKIP_INSTALL=1 bash bench/gpu_check.sh  # the environment is ready
#
# JAX with CUDA is installed with `pip install "jax[cuda12]"` at the version the project pins
# (pyproject.toml), so the CPU and GPU runs share one JAX. Results go to $OUT (or ./gpu-check).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-check}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
# several test processes share the one device: no process may take most of its memory up front
export XLA_PYTHON_CLIENT_PREALLOCATE=false

if [ -z "${SKIP_INSTALL:-}" ]; then
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
timeout 330 "$PY" -m pytest -q -p no:cacheprovider -n 4 --dist loadfile \
  tests/maddening tests/skcomplex tests/mime tests/test_fuzz_inputs.py \
  -k "not browser" 2>&1 | tail -25 | tee "$OUT/tests.txt"

# 2. the bench: MIME and MJX at 1,000 and 100,000 bodies (MuJoCo's C rollout runs on the host)
timeout 240 "$PY" bench/contact_speed.py --scenes ball_rest,box_incline --bodies 1000,100000 \
  --batch-steps 100 --repeat 3 2>&1 | tee "$OUT/bench.txt"
echo "results in $OUT"
