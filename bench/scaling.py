"""Scaling of the sharded batch runs: throughput on 1 and 2 host devices, and parallel efficiency.

Usage::

    .venv/bin/python bench/scaling.py                 # both workloads, 1 and 2 devices
    .venv/bin/python bench/scaling.py --quick         # smaller sizes, for a smoke run
    .venv/bin/python bench/scaling.py --devices 4     # fake more host devices (or real GPUs: see below)

Two workloads, each run in one process three ways, after a warm-up call (compile
time excluded):

1. **the 1e6-ball sweep**: ``maddening.core.simulation.batch.run_batch`` of
   ``BallNode`` (1e6 balls x 1,000 steps, float32, the route of
   ``bench/ball.py``'s case 2);
2. **the reflection cloud**: skcomplex's batched step
   (``Simulation.step_function(batched=True)``) of 1e5 points in the unit box,
   rolled out by ``lax.scan`` under ``jax.jit`` (``bench/reflection.py``'s scenario,
   fewer steps), float64.

The baseline is the unsharded run (``mesh=None``); then a mesh of 1 device and a
mesh of ``d`` devices. Throughput is points x steps per second; the speed-up is
the baseline's time over the sharded run's, and the parallel efficiency the
speed-up over the device count. Every sharded result is checked equal bit for
bit to the baseline's. The machine's load (``os.getloadavg``) is printed with
each figure: on a shared machine it decides how much the second core can give.

On a CPU the devices are faked with ``XLA_FLAGS=--xla_force_host_platform_device_count``
(this script sets it and re-executes itself when it is missing). On GPUs the same
code runs unchanged on ``jax.devices()``: pass ``--no-fake``.
"""

from __future__ import annotations

import argparse
import os
import sys
from _timing import best

FLAG = "--xla_force_host_platform_device_count"


def _ensure_devices(count: int) -> None:
    flags = os.environ.get("XLA_FLAGS", "")
    if FLAG in flags:
        return
    os.environ["XLA_FLAGS"] = f"{flags} {FLAG}={count}".strip()
    os.execv(sys.executable, [sys.executable, *sys.argv])



def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f} (1/5 min)"


def bitwise(a, b) -> bool:
    import jax
    import numpy as np

    return all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in
               zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)))


def report(name: str, work: float, runs: dict[str, tuple[float, bool]]) -> None:
    base = runs["unsharded"][0]
    print(f"{name}: {work:.3g} point-steps per run")
    for label, (t, same) in runs.items():
        devices = 1 if label == "unsharded" else int(label.split()[1])
        speedup = base / t
        print(f"  {label:12s} {t:8.3f} s  {work / t:10.3g} point-steps/s  speed-up {speedup:5.2f}  "
              f"efficiency {speedup / devices:5.2f}  bitwise {same}  [{load()}]")


def ball_sweep(balls: int, steps: int, device_counts: list[int], repeat: int) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    from maddening.core.simulation.batch import run_batch
    from maddening.nodes import BallNode

    rng = np.random.default_rng(0)
    states = {"position": jnp.asarray(rng.uniform(0.1, 2.0, balls).astype(np.float32)),
              "velocity": jnp.asarray(rng.uniform(-1.0, 1.0, balls).astype(np.float32))}
    ball = BallNode()
    kw = dict(dt=1e-3, steps=steps, boundary_inputs={"table_position": 0.0})

    def run(mesh):
        return jax.block_until_ready(run_batch(ball, states, mesh=mesh, **kw))

    reference = run(None)
    runs = {"unsharded": (best(lambda: run(None), repeat), True)}
    for d in device_counts:
        mesh = jax.make_mesh((d,), ("batch",), devices=jax.devices()[:d])
        same = bitwise(reference, run(mesh))
        runs[f"mesh {d}"] = (best(lambda: run(mesh), repeat), same)
    report(f"1. ball sweep, {balls:.0e} balls x {steps} steps (float32, run_batch)", balls * steps, runs)


def reflection_cloud(points: int, steps: int, device_counts: list[int], repeat: int) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from reflection import NAMES, jax_rollout, make_simulation

    rng = np.random.default_rng(20240604)
    with jax.enable_x64(True):
        sim = make_simulation(0.9, 0.01, 8)
        state = {
            "t": jnp.zeros(points),
            "elements": {"ball": {"x": jnp.asarray(rng.uniform(0.02, 0.98, size=(points, 2))),
                                  "x_d1": jnp.asarray(rng.uniform(-1.0, 1.0, size=(points, 2)))}},
            "on_wall": jnp.zeros((points, len(NAMES)), bool),
            "scale": jnp.zeros((points, len(NAMES))),
        }

        def rollout(mesh):
            step = sim.step_function(differentiable=False, batched=True, mesh=mesh)

            def go(s, params, dt):
                def body(c, _):
                    return step(c, params, dt)[0], None

                return jax.lax.scan(body, s, None, length=steps)[0]

            compiled = jax.jit(go).lower(state, sim.params_, 0.01).compile()
            return lambda: jax.block_until_ready(compiled(state, sim.params_, 0.01))

        plain = rollout(None)
        reference = plain()
        runs = {"unsharded": (best(plain, repeat), True)}
        for d in device_counts:
            mesh = jax.make_mesh((d,), ("batch",), devices=jax.devices()[:d])
            sharded = rollout(mesh)
            same = bitwise(reference, sharded())
            runs[f"mesh {d}"] = (best(sharded, repeat), same)
    report(f"2. reflection cloud, {points:.0e} points x {steps} steps (float64, batched step)", points * steps, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes for a smoke run")
    parser.add_argument("--devices", type=int, default=2, help="the most devices to shard over (default 2)")
    parser.add_argument("--no-fake", action="store_true", help="use the real devices (GPUs); do not fake host devices")
    parser.add_argument("--which", default="ball,reflection")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    if not options.no_fake:
        _ensure_devices(options.devices)
    import jax

    print(f"jax {jax.__version__}, {jax.device_count()} devices: {jax.devices()}; cores {os.cpu_count()}")
    counts = sorted({1, min(options.devices, jax.device_count())})
    which = options.which.split(",")
    if "ball" in which:
        ball_sweep(100_000 if options.quick else 1_000_000, 100 if options.quick else 1_000, counts, options.repeat)
    if "reflection" in which:
        reflection_cloud(10_000 if options.quick else 100_000, 20 if options.quick else 100, counts, options.repeat)


if __name__ == "__main__":
    main()
