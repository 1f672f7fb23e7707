"""Bench: the helical microrobot held in a tube by the projection contact.

1. 10,000 steps under one jitted ``lax.scan`` against a Python loop of the same jitted step
   (goal: the scan >= 50x the loop);
2. the cost of a step against the number of hull samples, 1e2 .. 1e5 (goal: at most linear).

Both are measured in this run and printed as ratios. Run: ``.venv/bin/python bench/contact.py``
(``--quick`` for a shorter run).
"""

from __future__ import annotations

import argparse
import math
import time

import jax
import jax.numpy as jnp
import numpy as np

from mime import Contact, Experiment, mm
from mime import demos
from mime.geometry import Screw
from mime.interactions._projection import build_confinement
from mime.nodes.rigid import run_scan, step_jit


def _held(spacing: float | None = None):
    umr = demos.microrobot()
    e = Experiment()
    settings = {"margin": mm(0.1)}
    if spacing is not None:
        from mime.units import m

        settings["spacing"] = m(spacing)
    e.attach(Contact.Projection(**settings), body=umr, surface=demos.NARROW_TUBE.inner_surface)
    e.build("exploratory")
    return umr


def _block(tree):
    jax.tree_util.tree_map(lambda a: a.block_until_ready(), tree)


def scan_vs_loop(steps: int) -> tuple[float, float]:
    umr = _held()
    with jax.enable_x64(True):
        spec, arrays = umr._confinement_parts()
        static, params = umr._static(), umr._params()
        s0 = {k: jnp.asarray(v, dtype=jnp.float64) for k, v in umr.initial_state().items()}
        dt = demos.DT
        _block(run_scan(static, spec, params, arrays, s0, dt, steps))  # compile
        t0 = time.perf_counter()
        _block(run_scan(static, spec, params, arrays, s0, dt, steps))
        t_scan = time.perf_counter() - t0
        state = s0
        _block(step_jit(static, spec, params, arrays, state, 0.0, dt))  # compile
        t0 = time.perf_counter()
        for k in range(steps):
            state, _ = step_jit(static, spec, params, arrays, state, k * dt, dt)
        _block(state)
        t_loop = time.perf_counter() - t0
    return t_scan, t_loop


def cost_by_samples(targets: list[int], steps: int) -> list[tuple[int, float]]:
    shape = demos.microrobot().hull.parts[0].geometry
    area = 2 * math.pi * shape.outer_radius * shape.length * 1.3 + 2 * math.pi * shape.outer_radius**2
    rows = []
    for n in targets:
        h = math.sqrt(area / n)
        umr = _held(spacing=h)
        with jax.enable_x64(True):
            spec, arrays = umr._confinement_parts()
            static, params = umr._static(), umr._params()
            s0 = {k: jnp.asarray(v, dtype=jnp.float64) for k, v in umr.initial_state().items()}
            _block(run_scan(static, spec, params, arrays, s0, demos.DT, steps))
            t0 = time.perf_counter()
            _block(run_scan(static, spec, params, arrays, s0, demos.DT, steps))
            rows.append((umr.confinement.report.samples, (time.perf_counter() - t0) / steps))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    steps = 2000 if args.quick else 10_000
    t_scan, t_loop = scan_vs_loop(steps)
    print(f"screw in a tube, {steps} steps: scan {t_scan:.3f} s, Python loop of jitted steps {t_loop:.3f} s")
    print(f"  scan / loop speed-up: {t_loop / t_scan:.1f}x (goal >= 50x)")
    targets = [100, 1000, 10_000] if args.quick else [100, 1000, 10_000, 100_000]
    rows = cost_by_samples(targets, 100 if args.quick else 200)
    print("samples   cost per step (ms)   cost / cost at the fewest samples")
    for n, c in rows:
        print(f"{n:8d}   {c * 1e3:14.4f}   {c / rows[0][1]:10.2f}")
    n = np.array([r[0] for r in rows], float)
    c = np.array([r[1] for r in rows])
    slope = np.polyfit(np.log(n), np.log(c), 1)[0]
    tail = np.log(c[-1] / c[-2]) / np.log(n[-1] / n[-2])
    print(f"  growth exponent, fit over all sizes: {slope:.2f}; between the two largest: {tail:.2f} (goal <= 1)")


if __name__ == "__main__":
    main()
