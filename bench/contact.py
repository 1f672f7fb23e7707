"""Bench: the helical microrobot held in a tube by the projection contact.

1. 10,000 steps under one jitted ``lax.scan`` against a Python loop of the same jitted step
   (goal: the scan >= 50x the loop);
2. the cost of a step against the number of hull samples, 1e2 .. 1e5 (goal: at most linear).

Both are measured in this run and printed as ratios. Run: ``.venv/bin/python bench/contact.py``
(``--quick`` for a shorter run).

How the first figure is measured, so that it is fair to both sides:

- both sides are compiled by a warm-up call first (compile time is excluded from both), each
  timed side ends with ``block_until_ready`` on its whole output, and the best of
  ``--repeat`` runs is kept;
- the loop is a Python loop calling ``mime.nodes.rigid.step_jit`` -- the same step the scan
  runs -- on device arrays (the state each call returns is fed to the next); the bench checks
  that the loop compiled nothing (no re-tracing) and prints how far its final position lies
  from the scan's (two differently compiled programs may round apart);
- the loop's per-call dispatch overhead is measured apart, with a trivial jitted step taking
  and returning the same pytrees (same static arguments, same state and report structure).

A scan saves the loop's per-call overhead and nothing else: the loop's step costs the
scan's step plus that overhead, so the speed-up is ``1 + overhead / compute`` and 50x needs
a step whose compute is under 1/49 of the overhead. The bench prints the overhead (the
loop's step less the scan's) and the trivial dispatch inside it, so a miss is explained by
the numbers of the same run.
"""

from __future__ import annotations

import argparse
import math

import jax
import jax.numpy as jnp
import numpy as np

from mime import Contact, Experiment, mm
from mime import demos
from mime.dynamics import ContactReport
from mime.nodes.rigid import run_scan, step_jit
from _timing import best, block

GOAL = 50.0


def _held(spacing: float | None = None):
    umr = demos.microrobot()
    e = Experiment()
    settings = {"margin": mm(0.1)}
    if spacing is not None:
        from mime.units import m

        settings["spacing"] = m(spacing)
    e.attach(Contact.Projection(**settings), body=umr, surface=demos.NARROW_TUBE.inner_surface)
    return e




def _parts(experiment):
    body = demos.body_of(experiment)
    inputs = jax.tree_util.tree_map(jnp.asarray, experiment.build().step_inputs(body))
    s0 = jax.tree_util.tree_map(lambda v: jnp.asarray(v, dtype=jnp.float64), body.start)
    return inputs, s0


@jax.jit
def _trivial_step(inputs, state, t, dt):
    """As cheap as a step can be, with the step's signature: one add per state array, the report as zeros."""
    new = jax.tree_util.tree_map(lambda v: v + 0.0 * dt, state)
    return new, ContactReport.free(state.position)


def scan_vs_loop(steps: int, repeat: int) -> dict[str, float]:
    umr = _held()
    dt = demos.DT
    with jax.enable_x64(True):
        inputs, s0 = _parts(umr)

        def scan():
            out = run_scan(inputs, s0, dt, steps)
            block(out)
            return out

        ends = []

        def loop():
            state = s0
            for k in range(steps):
                state, _ = step_jit(inputs, state, k * dt, dt)
            block(state)
            ends.append(state)

        states, _ = scan()  # compile the scan
        block(step_jit(inputs, s0, 0.0, dt))  # compile the step
        t_scan = best(scan, repeat)
        compiled_before = step_jit._cache_size()
        t_loop = best(loop, repeat)
        retraced = step_jit._cache_size() - compiled_before
        # the two sides run differently compiled programs (one scan, one step), which may round apart
        end_diff = float(np.max(np.abs(np.asarray(states.position[-1]) - np.asarray(ends[-1].position))))

        # the dispatch of one jitted call taking and returning the step's pytrees
        def dispatch_loop():
            state = s0
            for k in range(steps):
                state, _ = _trivial_step(inputs, state, k * dt, dt)
            block(state)

        dispatch_loop()  # compile
        t_dispatch = best(dispatch_loop, repeat)
    return {
        "t_scan": t_scan,
        "t_loop": t_loop,
        "t_dispatch": t_dispatch,
        "retraced": retraced,
        "end_diff": end_diff,
        "steps": steps,
    }


def cost_by_samples(targets: list[int], steps: int, repeat: int) -> list[tuple[int, float]]:
    shape = demos.microrobot().hull.parts[0].geometry
    area = 2 * math.pi * shape.outer_radius * shape.length * 1.3 + 2 * math.pi * shape.outer_radius**2
    rows = []
    for n in targets:
        h = math.sqrt(area / n)
        umr = _held(spacing=h)
        with jax.enable_x64(True):
            inputs, s0 = _parts(umr)

            def scan():
                block(run_scan(inputs, s0, demos.DT, steps))

            scan()  # compile
            rows.append((demos.confinement(umr).report.samples, best(scan, repeat) / steps))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=None, help="timed runs per figure; the best is kept")
    args = parser.parse_args()
    steps = 2000 if args.quick else 10_000
    repeat = args.repeat or (2 if args.quick else 3)

    r = scan_vs_loop(steps, repeat)
    per_scan = r["t_scan"] / steps
    per_loop = r["t_loop"] / steps
    per_dispatch = r["t_dispatch"] / steps
    ratio = r["t_loop"] / r["t_scan"]
    print(f"screw in a tube, {steps} steps (best of {repeat}), compile excluded from both sides:")
    print(f"  scan                         {r['t_scan']:8.3f} s   {per_scan * 1e6:8.1f} us/step")
    print(f"  Python loop of jitted steps  {r['t_loop']:8.3f} s   {per_loop * 1e6:8.1f} us/step"
          f"   (compilations during the loop: {r['retraced']})")
    print(f"  scan / loop speed-up: {ratio:.2f}x (goal >= {GOAL:g}x){'' if ratio >= GOAL else '  -- MISSED'}")
    print(f"  the loop's step over the scan's: {(per_loop - per_scan) * 1e6:.1f} us per call, of which the dispatch"
          f" of a trivial jitted step taking and returning the same pytrees is {per_dispatch * 1e6:.1f} us"
          f" (the rest: launching the step's own program, one call at a time)")
    print(f"  {GOAL:g}x needs a step whose compute is under 1/{GOAL - 1:g} of the per-call overhead,"
          f" <= {(per_loop - per_scan) / (GOAL - 1) * 1e6:.2f} us; the held step computes {per_scan * 1e6:.1f} us"
          f" ({per_scan / (per_loop - per_scan):.1f}x its per-call overhead)")
    print(f"  the loop's final position vs the scan's: largest difference {r['end_diff']:.3g} m")

    targets = [100, 1000, 10_000] if args.quick else [100, 1000, 10_000, 100_000]
    rows = cost_by_samples(targets, 100 if args.quick else 200, repeat)
    print("samples   cost per step (ms)   cost / cost at the fewest samples")
    for n, c in rows:
        print(f"{n:8d}   {c * 1e3:14.4f}   {c / rows[0][1]:10.2f}")
    n = np.array([row[0] for row in rows], float)
    c = np.array([row[1] for row in rows])
    slope = np.polyfit(np.log(n), np.log(c), 1)[0]
    tail = np.log(c[-1] / c[-2]) / np.log(n[-1] / n[-2])
    print(f"  growth exponent (log cost vs log samples), fit over all sizes: {slope:.2f};"
          f" between the two largest: {tail:.2f} (goal <= 1)")


if __name__ == "__main__":
    main()
