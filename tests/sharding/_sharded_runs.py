"""Run in a subprocess with XLA_FLAGS=--xla_force_host_platform_device_count=4 (see test_sharded_runs.py).

Each library's batched entry point is run without a mesh and with a mesh over
the four fake host devices, on a batch that divides by four and on one that does
not; the script prints one JSON object: per case, whether every leaf is equal
bit for bit, and what the margin sweep of every hull kind measured (sharded).
"""

from __future__ import annotations

import json
import sys

import jax
import jax.numpy as jnp
import numpy as np


def bitwise(a, b) -> bool:
    la, ta = jax.tree_util.tree_flatten(a)
    lb, tb = jax.tree_util.tree_flatten(b)
    if ta != tb:
        return False
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype.kind == "f":  # compare the bits (so -0.0 and +0.0 differ, NaN equals its own bits)
            x, y = x.view(np.dtype(f"u{x.itemsize}")), y.view(np.dtype(f"u{y.itemsize}"))
        if not np.array_equal(x, y):
            return False
    return True


def maddening_cases(mesh) -> dict:
    from maddening.core.simulation.batch import run_batch
    from maddening.nodes import BallNode

    out = {}
    ball = BallNode()
    rng = np.random.default_rng(0)
    for n in (12, 10, 1):
        states = {"position": jnp.asarray(rng.uniform(0.1, 2.0, n).astype(np.float32)),
                  "velocity": jnp.asarray(rng.uniform(-1.0, 1.0, n).astype(np.float32))}
        kw = dict(dt=1e-3, steps=400, boundary_inputs={"table_position": 0.0})
        plain = run_batch(ball, states, **kw)
        sharded = run_batch(ball, states, mesh=mesh, **kw)
        out[f"maddening_n{n}"] = {"bitwise": bitwise(plain, sharded), "bounced": bool(np.any(np.asarray(plain["velocity"]) > 0))}
    return out


def skcomplex_cases(mesh) -> dict:
    from jax import lax

    from skcomplex import ContinuousSpace, PointElement, ReflectionInteraction, Simulation, System

    out = {}
    with jax.enable_x64(True):
        walls = [ReflectionInteraction(name, target="ball", guard=lambda s, n=n, c=c: s.target.x @ jnp.asarray(n) - c,
                                       direction=1, restitution=0.9)
                 for name, n, c in (("left", (-1.0, 0.0), 0.0), ("right", (1.0, 0.0), 1.0),
                                    ("bottom", (0.0, -1.0), 0.0), ("top", (0.0, 1.0), 1.0))]
        sim = Simulation(System([PointElement("ball", x=[0.5, 0.5], x_d1=[0.0, 0.0])], walls, ContinuousSpace(2)),
                         dt=0.3, max_events=16).prepare()

        def roll(step, steps=8):
            def run(s, p, dt):
                def body(s, _):
                    new, info = step(s, p, dt)
                    return new, (new, info)

                return lax.scan(body, s, None, length=steps)[1]

            return jax.jit(run)

        # a batch that divides by four (200: no padding) and one that does not (203: padded with its last point
        # and unpadded), each against its own unsharded run; one dt per point with a buffer of 3 per device on
        # the first (four programs in all: each takes seconds to compile)
        for n, variants in ((200, ("sharded", "per_point")), (203, ("sharded",))):
            rng = np.random.default_rng(7)
            x = rng.uniform(0.05, 0.95, size=(n, 2))
            v = rng.uniform(-8.0, 8.0, size=(n, 2))
            state = {"t": jnp.zeros(n), "elements": {"ball": {"x": jnp.asarray(x), "x_d1": jnp.asarray(v)}},
                     "on_wall": jnp.zeros((n, 4), bool), "scale": jnp.zeros((n, 4))}
            plain = roll(sim.step_function(differentiable=False, batched=True))(state, sim.params_, 0.3)
            case = {"events": int(np.sum(np.asarray(plain[1]["events"])))}
            if "sharded" in variants:
                sharded = roll(sim.step_function(differentiable=False, batched=True, mesh=mesh))(state, sim.params_, 0.3)
                case["bitwise"] = bitwise(plain, sharded)
            if "per_point" in variants:
                per_point = roll(sim.step_function(differentiable=False, batched=True, capacity=3, mesh=mesh))(
                    state, sim.params_, jnp.full((n,), 0.3))
                case["bitwise_dt_per_point_capacity_3"] = bitwise(plain, per_point)
            out[f"skcomplex_n{n}"] = case
    return out


def mime_cases(mesh) -> dict:
    import dataclasses

    from mime.sweep import margin_sweep, sweep_kinds

    out = {}
    for kind in sweep_kinds():
        sharded = margin_sweep(kind, 6, seed=3, mesh=mesh)
        row = {"worst_gap": float(sharded.worst_gap.min()), "worst_inward": float(sharded.worst_inward.max()),
               "touching": int(np.sum(sharded.touching > 0)), "unconverged": int(np.sum(sharded.unconverged)),
               "size": sharded.size}
        if kind in ("sphere", "box"):
            plain = margin_sweep(kind, 6, seed=3)
            row["bitwise"] = bitwise(dataclasses.asdict(plain), dataclasses.asdict(sharded))
        out[f"mime_{kind}"] = row
    return out


def main() -> None:
    which = sys.argv[1:] or ["maddening", "skcomplex", "mime"]
    mesh = jax.make_mesh((4,), ("batch",))
    result = {"devices": jax.device_count()}
    for name in which:
        result.update(globals()[f"{name}_cases"](mesh))
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
