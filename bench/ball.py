"""How fast BallNode runs, against the baselines a user would otherwise write or pick.

Usage::

    .venv/bin/python bench/ball.py            # all three (a few minutes on 2 cores)
    .venv/bin/python bench/ball.py --quick    # smaller sizes, for a smoke run

Each figure is a ratio against a baseline measured in the same run, on the same
machine, after a warm-up call (so compile time is excluded from both sides):

1. **scan vs loop**: one ball, 10,000 steps. A jitted ``lax.scan`` over
   ``update()`` against a Python loop calling a jitted ``update()``. Goal >= 100x.
2. **vmap + scan vs NumPy**: 1e6 balls x 1,000 steps of the per-step scheme
   with a table, float32 on both sides. ``jit(vmap(scan))`` against the same
   arithmetic as a NumPy vectorised loop over the same arrays. Goal >= 3x.
3. **located BallNode vs Diffrax**: the drop of MADD-ANO-021 (h = 1 m, e = 0.8,
   |g| = 9.81, T = 0.8 s): ``x(T)`` and its derivatives in h, |g| and e by
   reverse mode, in float64. Diffrax (Tsit5, PID controller, an event on
   ``x = table`` with a Newton root find, the restitution applied and the solve
   restarted) at rtol = atol = 1e-10. Both sides must agree on all four numbers
   to 1e-6, and each side's error against the closed form is printed: that is
   the "equal accuracy". Goal >= 5x faster. Diffrax is a bench/test dependency
   only.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from maddening.core.simulation.batch import run_batch
from maddening.nodes import BallNode
from maddening.nodes.ball_evidence import SEED_DROP, exact_drop
from _timing import best

TABLE = {"table_position": 0.0}



def bench_scan_vs_loop(steps: int) -> float:
    ball = BallNode(initial_position=1.0)
    step = jax.jit(lambda s: ball.update(s, TABLE, 1e-3))

    @jax.jit
    def scanned(s):
        return jax.lax.scan(lambda c, _: (ball.update(c, TABLE, 1e-3), None), s, None, length=steps)[0]

    def loop():
        s = ball.initial_state()
        for _ in range(steps):
            s = step(s)
        return jax.block_until_ready(s)

    s0 = ball.initial_state()
    a, b = loop(), jax.block_until_ready(scanned(s0))
    assert np.allclose(a["position"], b["position"]) and np.allclose(a["velocity"], b["velocity"])
    t_loop = best(loop, 3)
    t_scan = best(lambda: jax.block_until_ready(scanned(s0)), 5)
    ratio = t_loop / t_scan
    print(f"1. scan vs Python loop, 1 ball x {steps} steps: loop {t_loop * 1e3:.1f} ms, "
          f"scan {t_scan * 1e3:.3f} ms -> {ratio:.0f}x (goal >= 100x)")
    return ratio


def bench_vmap_vs_numpy(balls: int, steps: int) -> float:
    dt, g, e, thr = np.float32(1e-3), np.float32(-9.81), np.float32(0.8), np.float32(BallNode.CONTACT_SPEED_THRESHOLD)
    rng = np.random.default_rng(0)
    x0 = rng.uniform(0.1, 2.0, balls).astype(np.float32)
    v0 = rng.uniform(-1.0, 1.0, balls).astype(np.float32)
    ball = BallNode()

    def jax_run(x, v):  # jit(vmap(scan(update))): maddening's batched entry point (mesh= shards it)
        return run_batch(ball, {"position": x, "velocity": v}, dt=1e-3, steps=steps, boundary_inputs=TABLE)

    def numpy_run():
        x, v = x0.copy(), v0.copy()
        for _ in range(steps):
            v = v + g * dt
            x = x + v * dt
            hit = x < 0.0
            v = np.where(hit, np.where(np.abs(v) <= thr, np.float32(0.0), -e * v), v)
            x = np.where(hit, np.float32(0.0), x)
        return x, v

    xj, vj = jnp.asarray(x0), jnp.asarray(v0)
    out = jax.block_until_ready(jax_run(xj, vj))
    t0 = time.perf_counter()
    xn, vn = numpy_run()
    t_numpy = time.perf_counter() - t0
    agree = np.max(np.abs(np.asarray(out["position"]) - xn))
    t_jax = best(lambda: jax.block_until_ready(jax_run(xj, vj)), 3)
    ratio = t_numpy / t_jax
    print(f"2. vmap+scan vs NumPy, {balls:.0e} balls x {steps} steps (float32): NumPy {t_numpy:.2f} s, "
          f"JAX {t_jax:.2f} s -> {ratio:.1f}x (goal >= 3x); max |dx| between them {agree:.1e} m")
    return ratio


def _diffrax_solver(case):
    import diffrax
    import optimistix as optx

    def solve(h, g, e):
        term = diffrax.ODETerm(lambda t, y, args: jnp.stack([y[1], -g]))
        event = diffrax.Event(
            lambda t, y, args, **kw: y[0] - case.table,
            root_finder=optx.Newton(rtol=1e-12, atol=1e-12),
            direction=False,
        )
        control = diffrax.PIDController(rtol=1e-10, atol=1e-10)
        fall = diffrax.diffeqsolve(term, diffrax.Tsit5(), 0.0, case.t_final, 1e-2, jnp.stack([h, 0.0 * h]),
                                   event=event, stepsize_controller=control, max_steps=4096)
        hit = fall.ys[-1]
        rise = diffrax.diffeqsolve(term, diffrax.Tsit5(), fall.ts[-1], case.t_final, 1e-2,
                                   jnp.stack([jnp.asarray(case.table, hit.dtype), -e * hit[1]]),
                                   stepsize_controller=control, max_steps=4096)
        return rise.ys[-1][0]

    return jax.jit(jax.value_and_grad(solve, argnums=(0, 1, 2)))


def _ours(case, dt):
    steps = int(round(case.t_final / dt))
    ball = BallNode(locate_contact=True)

    def final(h, g, e):
        s = {"position": h, "velocity": jnp.zeros_like(h)}
        params = {"gravity": -g, "elasticity": e}
        body = lambda c, _: (ball.update(c, TABLE, dt, params), None)  # noqa: E731
        return jax.lax.scan(body, s, None, length=steps)[0]["position"]

    return jax.jit(jax.value_and_grad(final, argnums=(0, 1, 2)))


def bench_against_diffrax() -> dict[str, float]:
    case = SEED_DROP
    exact = exact_drop(case)
    names = ("x", "dxdh", "dxdg", "dxde")
    ratios = {}
    with jax.enable_x64(True):
        args = tuple(jnp.float64(v) for v in (case.height, case.gravity, case.elasticity))
        theirs = _diffrax_solver(case)

        def unpack(result):
            x, grads = result
            return dict(zip(names, (float(x), *map(float, grads))))

        ref = unpack(jax.block_until_ready(theirs(*args)))
        t_theirs = best(lambda: jax.block_until_ready(theirs(*args)), 20)
        err_theirs = max(abs(ref[k] - exact[k]) for k in names)
        print(f"3. located BallNode vs Diffrax (x(T) and 3 derivatives by reverse mode, float64):")
        print(f"   Diffrax Tsit5 + event, rtol=atol=1e-10: {t_theirs * 1e6:.0f} us, max error vs closed form {err_theirs:.1e}")
        for dt in (1e-3, 1e-1):
            ours = _ours(case, dt)
            mine = unpack(jax.block_until_ready(ours(*args)))
            agree = max(abs(mine[k] - ref[k]) for k in names)
            assert agree <= 1e-6, f"located BallNode and Diffrax disagree by {agree:.2e} at dt={dt}"
            t_ours = best(lambda: jax.block_until_ready(ours(*args)), 20)
            err = max(abs(mine[k] - exact[k]) for k in names)
            ratios[dt] = t_theirs / t_ours
            print(f"   located BallNode dt={dt:g} ({int(round(case.t_final / dt))} steps): {t_ours * 1e6:.0f} us, "
                  f"max error vs closed form {err:.1e}, max |ours - Diffrax| {agree:.1e} "
                  f"-> {ratios[dt]:.1f}x (goal >= 5x)")
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes for a smoke run")
    options = parser.parse_args()
    print(f"jax {jax.__version__}, devices {jax.devices()}")
    bench_scan_vs_loop(2_000 if options.quick else 10_000)
    if options.quick:
        bench_vmap_vs_numpy(10_000, 200)
    else:
        bench_vmap_vs_numpy(1_000_000, 1_000)
    bench_against_diffrax()


if __name__ == "__main__":
    main()
