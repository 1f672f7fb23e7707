"""Bench: event-located reflections of many points in a unit box, skcomplex (JAX) against NumPy.

Scenario (issue 4): 1e5 points in the unit box [0, 1]^2, four plane walls with
restitution e = 0.9, 1,000 steps of dt = 0.01, every crossing located inside its
step. The library's batched pure step (``Simulation.step_function(batched=True)``,
bitwise the same results as ``jax.vmap`` of the per-point step, but each event
pass after the first runs only on the points that still have time left in the
step, gathered into a fixed-size buffer) is rolled out with ``lax.scan`` under
one ``jax.jit``; ``--vmap`` also times the plain ``jax.vmap`` of the per-point
step (whose every pass runs on the whole batch). The baseline is a
NumPy implementation of the same located algorithm (same samples, same secant
start, same safeguarded Newton iterations, same tie, slide and on-wall rules),
vectorized over the points, which processes only the points that still have
time left in the step on each pass. Both run in the same process, in float64;
the script prints both times, their ratio, and the largest difference of the
final states.

Run: ``.venv/bin/python bench/reflection.py [--points N] [--steps S] [--vmap]``
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from skcomplex import ContinuousSpace, PointElement, ReflectionInteraction, Simulation, System
from skcomplex.engine._stepper import SLIDE, TIE
from skcomplex.engine.events import DEFAULT_ITERATIONS, DEFAULT_SUBDIVISIONS

# the four walls as g(x) = n . x - c, the inside being g < 0
NORMALS = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, -1.0], [0.0, 1.0]])
OFFSETS = np.array([0.0, 1.0, 0.0, 1.0])
NAMES = ("left", "right", "bottom", "top")


def make_simulation(restitution: float, dt: float, max_events: int) -> Simulation:
    walls = [
        ReflectionInteraction(name, target="ball", guard=lambda s, n=n, c=c: s.target.x @ n - c, direction=1,
                              restitution=restitution)
        for name, n, c in zip(NAMES, NORMALS, OFFSETS)
    ]
    ball = PointElement("ball", x=[0.5, 0.5], x_d1=[0.0, 0.0])
    return Simulation(System([ball], walls, ContinuousSpace(2)), dt=dt, max_events=max_events).prepare()


def jax_rollout(sim: Simulation, steps: int, batched: bool = True):
    if batched:
        step = sim.step_function(differentiable=False, batched=True)
    else:
        step = jax.vmap(sim.step_function(differentiable=False), in_axes=(0, None, None))

    def run(state, params, dt):
        def body(s, _):
            new, info = step(s, params, dt)
            return new, (jnp.sum(info["events"]), jnp.any(info["overflow"]))

        final, (events, overflow) = lax.scan(body, state, None, length=steps)
        return final, jnp.sum(events), jnp.any(overflow)

    return jax.jit(run)


# ----------------------------------------------------------------------------- NumPy baseline

def numpy_rollout(x, v, restitution, dt, steps, max_events, K=DEFAULT_SUBDIVISIONS, iters=DEFAULT_ITERATIONS):
    """The located algorithm of skcomplex.engine, for straight paths and plane walls, in NumPy."""
    x, v = x.copy(), v.copy()
    n_points, n_walls = x.shape[0], NORMALS.shape[0]
    on_wall = np.zeros((n_points, n_walls), bool)
    scale = np.zeros((n_points, n_walls))
    fractions = np.linspace(0.0, 1.0, K + 1)
    total_events = 0
    for _ in range(steps):
        remaining = np.full(n_points, dt)
        idx = np.arange(n_points)
        for _ in range(max_events + 1):
            if idx.size == 0:
                break
            xi, vi, rem = x[idx], v[idx], remaining[idx]
            ow, sc = on_wall[idx], scale[idx]
            g0 = xi @ NORMALS.T - OFFSETS                       # (m, W)
            slope0 = vi @ NORMALS.T                              # g'(0) = n . v
            wall = ow | (g0 == 0)
            taus = rem[:, None] * fractions[None, :]             # (m, K+1)
            gs = g0[:, :, None] + slope0[:, :, None] * taus[:, None, :]   # straight path: exact
            # direction +1: f = g; on the wall search (f - f(0)) / tau, equal to f'(0) at 0
            offset = np.where(wall, g0, 0.0)
            safe = np.where(taus > 0, taus, 1.0)[:, None, :]
            deflated = np.where(taus[:, None, :] > 0, (gs - offset[:, :, None]) / safe, slope0[:, :, None])
            hs = np.where(wall[:, :, None], deflated, gs)
            sliding = wall & (np.abs(slope0) <= SLIDE * sc)
            brackets = (hs[:, :, :-1] < 0) & (hs[:, :, 1:] >= 0)
            found = brackets.any(axis=2) & (rem > 0)[:, None] & ~sliding & (rem > TIE * dt)[:, None]
            j = brackets.argmax(axis=2)
            a = np.take_along_axis(taus[:, None, :].repeat(n_walls, 1), j[:, :, None], 2)[:, :, 0]
            b = np.take_along_axis(taus[:, None, :].repeat(n_walls, 1), j[:, :, None] + 1, 2)[:, :, 0]
            fa = np.take_along_axis(hs, j[:, :, None], 2)[:, :, 0]
            fb = np.take_along_axis(hs, j[:, :, None] + 1, 2)[:, :, 0]
            den = np.where(found, fb - fa, 1.0)
            tau = np.where(found, a + (b - a) * (-fa / den), rem[:, None])
            tau = np.clip(tau, a, b)
            lo, hi = a, b

            def h_and_slope(t):
                g = g0 + slope0 * t
                safe_t = np.where(t > 0, t, 1.0)
                value = np.where(wall, np.where(t > 0, (g - offset) / safe_t, slope0), g)
                # d/dt of (g - offset) / t = slope0 / t - (g - offset) / t^2
                d_deflated = np.where(t > 0, slope0 / safe_t - (g - offset) / safe_t**2, 0.0)
                return value, np.where(wall, d_deflated, slope0)

            for _ in range(iters):
                value, slope = h_and_slope(tau)
                lo = np.where(value < 0, tau, lo)
                hi = np.where(value >= 0, tau, hi)
                step = tau - value / np.where(slope != 0, slope, 1.0)
                inside = (slope != 0) & (step >= lo) & (step <= hi)
                tau = np.where(inside, step, 0.5 * (lo + hi))
            tau = np.where(found, tau, rem[:, None])
            value = g0 + slope0 * tau
            usable = found & (slope0 != 0)
            corr = np.where(usable, value / np.where(usable, slope0, 1.0), 0.0)
            polished = tau - corr
            polished = np.where(polished > rem[:, None], rem[:, None], np.where(polished < 0, 0.0, polished))
            tau = np.where(found, polished, rem[:, None])
            impact = np.where(found, np.abs(slope0), 0.0)

            times = np.where(found, tau, np.inf)
            earliest = times.min(axis=1)
            any_found = found.any(axis=1)
            with np.errstate(invalid="ignore"):  # inf - inf where nothing was found
                hits = found & (times - earliest[:, None] <= TIE * rem[:, None])
            advance = np.where(any_found, earliest, rem)
            xi = xi + vi * advance[:, None]
            for k in range(n_walls):
                nk = NORMALS[k]
                vn = vi @ nk
                reflected = vi - (1.0 + restitution) * (vn / (nk @ nk))[:, None] * nk
                vi = np.where(hits[:, k, None], reflected, vi)
            tiny = advance <= TIE * dt
            ow_new = hits | (ow & (sliding | (tiny & ~any_found)[:, None]))
            x[idx], v[idx] = xi, vi
            on_wall[idx] = ow_new
            scale[idx] = np.where(hits, impact, sc)
            remaining[idx] = np.where(any_found, rem - earliest, 0.0)
            total_events += int(any_found.sum())
            idx = idx[remaining[idx] > 0]
        if idx.size:
            raise RuntimeError("a step needed more crossings than max_events")
    return x, v, total_events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=1_000)
    parser.add_argument("--dt", type=float, default=0.01)
    parser.add_argument("--restitution", type=float, default=0.9)
    parser.add_argument("--max-events", type=int, default=8)
    parser.add_argument("--vmap", action="store_true",
                        help="also time jax.vmap of the per-point step (no compaction), and check it is bitwise equal")
    args = parser.parse_args()

    rng = np.random.default_rng(20240604)
    x0 = rng.uniform(0.02, 0.98, size=(args.points, 2))
    v0 = rng.uniform(-1.0, 1.0, size=(args.points, 2))

    with jax.enable_x64(True):
        sim = make_simulation(args.restitution, args.dt, args.max_events)
        run = jax_rollout(sim, args.steps)
        base = sim.initial_state_
        state = {
            "t": jnp.zeros(args.points),
            "elements": {"ball": {"x": jnp.asarray(x0), "x_d1": jnp.asarray(v0)}},
            "on_wall": jnp.zeros((args.points, len(NAMES)), bool),
            "scale": jnp.zeros((args.points, len(NAMES))),
        }
        assert jax.tree_util.tree_structure(jax.tree_util.tree_map(lambda a: a[0], state)) == \
            jax.tree_util.tree_structure(base)
        start = time.perf_counter()
        compiled = run.lower(state, sim.params_, args.dt).compile()
        compile_time = time.perf_counter() - start
        start = time.perf_counter()
        final, events, overflow = compiled(state, sim.params_, args.dt)
        jax.block_until_ready(final)
        jax_time = time.perf_counter() - start
        xj = np.asarray(final["elements"]["ball"]["x"])
        vj = np.asarray(final["elements"]["ball"]["x_d1"])
        events, overflow = int(events), bool(overflow)
        if args.vmap:
            plain = jax_rollout(sim, args.steps, batched=False).lower(state, sim.params_, args.dt).compile()
            start = time.perf_counter()
            final_v = plain(state, sim.params_, args.dt)[0]
            jax.block_until_ready(final_v)
            vmap_time = time.perf_counter() - start
            bitwise = all(jax.tree_util.tree_leaves(jax.tree_util.tree_map(
                lambda a, b: bool(jnp.array_equal(a, b)), final, final_v)))

    start = time.perf_counter()
    xn, vn, events_np = numpy_rollout(x0, v0, args.restitution, args.dt, args.steps, args.max_events)
    numpy_time = time.perf_counter() - start

    gap = max(np.max(np.abs(xj - xn)), np.max(np.abs(vj - vn)))
    inside = bool(np.all((xj >= -1e-12) & (xj <= 1 + 1e-12)))
    print(f"points={args.points} steps={args.steps} dt={args.dt} e={args.restitution} walls={len(NAMES)}")
    print(f"events located: skcomplex {events}, numpy {events_np}; overflow: {overflow}; all inside: {inside}")
    print(f"skcomplex (jax.jit + batched step + scan): {jax_time:.3f} s (compile {compile_time:.2f} s, not counted)")
    if args.vmap:
        print(f"skcomplex (jax.jit + vmap + scan), no compaction: {vmap_time:.3f} s; "
              f"bitwise equal to the batched step: {bitwise}")
    print(f"numpy baseline, same algorithm:    {numpy_time:.3f} s")
    print(f"speed-up numpy / skcomplex: {numpy_time / jax_time:.2f}x (goal >= 2x)")
    print(f"largest final-state difference: {gap:.3e} (goal <= 1e-12): {'identical' if gap <= 1e-12 else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
