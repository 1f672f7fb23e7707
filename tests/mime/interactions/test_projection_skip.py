"""The solve's shortcuts change no bit: no sweep where none is needed, none after a fixed point.

``mime.interactions._solve.solve`` skips the sweeps where no active row starts below its
target, and stops once a sweep leaves the forces and speeds as they were. Each scenario is
run twice through a freshly traced scan: once as built, once with ``solve`` replaced by the
plain projected Gauss-Seidel of a fixed count of sweeps. The trajectories and the reports
must be equal bit for bit, and the scenario must have steps of both kinds (some whose
projection had to run and some whose did not), or the comparison would prove nothing.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mime import demos
from mime.geometry import Sphere
from mime.interactions import _hold, _solve
from mime.nodes.rigid import ConstantLoad

from _fresh_scan import run_fresh


def _always(needed, K, u0, target, active, sweeps):
    # the hold's counts of sweeps are traced; the scenarios take the defaults, one count for both solves
    assert _hold.SWEEPS == _hold.PROJECTION_SWEEPS
    lam, u, hist = _solve.pgs(K, u0, target, active, _hold.SWEEPS)
    keep = jnp.asarray(needed)
    return jnp.where(keep, lam, jnp.zeros_like(lam)), jnp.where(keep, u, u0), jnp.where(keep, hist[-1], 0.0)


def _microrobot():
    return demos.attach(demos.microrobot(), demos.NARROW_TUBE.inner_surface)


def _bouncing_ball():
    body = demos.make_body(Sphere(4e-4), mass=1e-6, name="ball", position=(0.0, 0.0, 1.2e-3),
                           velocity=(1e-3, 0.0, 0.0), force=ConstantLoad((0.0, 0.0, -2e-5)))
    return demos.attach(body, demos.FLOOR.surface)


@pytest.mark.parametrize("make, steps", [(_microrobot, 300), (_bouncing_ball, 200)], ids=["microrobot", "ball"])
def test_the_solves_shortcuts_change_no_bit(make, steps, monkeypatch):
    shortcut = run_fresh(make(), steps=steps)
    monkeypatch.setattr(_hold, "solve", _always)
    swept = run_fresh(make(), steps=steps)
    for a, b in zip(jax.tree_util.tree_leaves(shortcut), jax.tree_util.tree_leaves(swept)):
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))
    reports = shortcut[1]
    pushed = reports.contact_push > 0
    assert pushed.any() or reports.contact_impulse.any(), "the scenario never needed a sweep"
    assert not (reports.contact_impulse > 0).all() or not pushed.all(), "the scenario never skipped one"


def test_solve_returns_exactly_what_pgs_would():
    with jax.enable_x64(True):
        K = jnp.array([[2.0, 0.5], [0.5, 1.0]])
        target = jnp.array([0.1, -0.2])
        active = jnp.array([True, True])
        # nothing needed: no sweep, the forces +0.0 and the speeds as given
        u0 = jnp.array([0.3, -0.0])
        lam, u, last = _solve.solve(jnp.array(False), K, u0, target, active, 5)
        assert np.asarray(lam).view(np.uint64).tolist() == [0, 0] and np.array_equal(np.asarray(u), np.asarray(u0))
        assert float(last) == 0.0
        # needed: the fixed count's forces, speeds and last residual, bit for bit, though it stops early
        u0 = jnp.array([-0.3, -0.4])
        ran = _solve.pgs(K, u0, target, active, 24)
        stopped = _solve.solve(jnp.array(True), K, u0, target, active, 24)
        for a, b in ((ran[0], stopped[0]), (ran[1], stopped[1]), (ran[2][-1], stopped[2])):
            assert np.array_equal(np.atleast_1d(np.asarray(a)).view(np.uint8), np.atleast_1d(np.asarray(b)).view(np.uint8))


def test_under_vmap_a_batch_that_needs_no_sweep_runs_none():
    """Batched, the sweeps run while any member needs one: a batch needing none sweeps zero times."""
    with jax.enable_x64(True):
        K = jnp.eye(2)[None].repeat(3, axis=0)
        u0 = jnp.ones((3, 2))
        target = jnp.zeros((3, 2))
        active = jnp.ones((3, 2), bool)
        jaxpr = jax.make_jaxpr(jax.vmap(lambda *a: _solve.solve(jnp.any(a[1] < a[2]), *a, 24)))(K, u0, target, active)
        assert "while" in str(jaxpr)
        lam, u, _ = jax.vmap(lambda *a: _solve.solve(jnp.any(a[1] < a[2]), *a, 24))(K, u0, target, active)
        assert np.array_equal(np.asarray(u), np.asarray(u0)) and not np.asarray(lam).any()
