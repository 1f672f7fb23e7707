"""Projected Gauss-Seidel is skipped where no held row starts below its target (``pgs_if``).

The skip saves the sweeps on the steps that need none; it must change no bit of any step.
Each scenario is run twice through a freshly traced scan: once as built, once with
``pgs_if`` replaced by a version that always sweeps. The trajectories and the reports
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
from mime.interactions import _projection
from mime.nodes import rigid
from mime.nodes.rigid import ConstantLoad


def _always(needed, K, u0, target, active, sweeps):
    return _projection.pgs(K, u0, target, active, sweeps)


def _run(body, steps):
    with jax.enable_x64(True):
        static, spec, params, arrays = body.step_inputs()
        s0 = {k: jnp.asarray(v, dtype=jnp.float64) for k, v in body.initial_state().items()}

        def scan(params, arrays, s0):  # a new function each call: traced afresh, never a cached trace
            def one(state, k):
                new, report = rigid.step(static, spec, params, arrays, state, {"time": k * demos.DT}, demos.DT)
                return new, (new, report)

            return jax.lax.scan(one, s0, jnp.arange(steps, dtype=jnp.float64))[1]

        states, reports = jax.jit(scan)(params, arrays, s0)
        return jax.tree_util.tree_map(np.asarray, (states, reports))


def _microrobot():
    body = demos.microrobot()
    demos.attach(body, demos.NARROW_TUBE.inner_surface)
    return body


def _bouncing_ball():
    body = demos.make_body(Sphere(4e-4), mass=1e-6, name="ball", position=(0.0, 0.0, 1.2e-3),
                           velocity=(1e-3, 0.0, 0.0), force=ConstantLoad((0.0, 0.0, -2e-5)))
    demos.attach(body, demos.FLOOR.surface)
    return body


@pytest.mark.parametrize("make, steps", [(_microrobot, 300), (_bouncing_ball, 200)], ids=["microrobot", "ball"])
def test_skipping_the_sweeps_changes_no_bit(make, steps, monkeypatch):
    skipped = _run(make(), steps)
    monkeypatch.setattr(_projection, "pgs_if", _always)
    swept = _run(make(), steps)
    for a, b in zip(jax.tree_util.tree_leaves(skipped), jax.tree_util.tree_leaves(swept)):
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))
    reports = skipped[1]
    pushed = reports["contact_push"] > 0
    assert pushed.any() or reports["contact_impulse"].any(), "the scenario never needed a sweep"
    assert not (reports["contact_impulse"] > 0).all() or not pushed.all(), "the scenario never skipped one"


def test_pgs_if_returns_exactly_what_pgs_would_where_no_row_is_violated():
    with jax.enable_x64(True):
        K = jnp.array([[2.0, 0.5], [0.5, 1.0]])
        u0 = jnp.array([0.3, -0.0])
        target = jnp.array([0.1, -0.2])
        active = jnp.array([True, True])
        ran = _projection.pgs(K, u0, target, active, 5)
        skipped = _projection.pgs_if(jnp.array(False), K, u0, target, active, 5)
        (lam_r, u_r, hist_r), (lam_s, u_s, hist_s) = ran, skipped
        # the forces and the residual history are the same bits (+0.0); the speeds are the same
        # numbers (a sweep may turn a -0.0 speed into +0.0, and no step reads the speeds back)
        for a, b in ((lam_r, lam_s), (hist_r, hist_s)):
            assert np.array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8))
        assert np.array_equal(np.asarray(u_r), np.asarray(u_s))
