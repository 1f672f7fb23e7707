"""The screw's Newton search reads the reach's derivatives in closed form.

``_Numbers.reach_derivatives`` gives the slope and curvature of ``g(theta, z) = p(theta, z) . d``
from the formulas in its docstring; JAX's own differentiation of ``g`` (the independent
implementation) must agree with them to rounding, at any angle, height and direction, for
screws of the seed's proportions and of others.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mime.geometry import Screw
from mime.geometry.screw import _Numbers

_angle = st.floats(-2 * np.pi, 2 * np.pi, allow_nan=False)
_unit = st.floats(-1.0, 1.0, allow_nan=False)


@jax.jit
def _both(params, d, u):
    """``(closed form, JAX's own)``: the five derivatives at ``u = (theta, z)``, each way."""
    s = _Numbers(*(params[i] for i in range(7)))

    def g(u):
        return s.point_at(u[0], u[1]) @ d

    slope, curvature = jax.grad(g)(u), jax.hessian(g)(u)
    own = jnp.stack([slope[0], slope[1], curvature[0, 0], curvature[0, 1], curvature[1, 1]])
    return jnp.stack(s.reach_derivatives(d, u[0], u[1])), own


@settings(max_examples=200, deadline=None)
@given(theta=_angle, height=st.floats(-1.0, 1.0), dx=_unit, dy=_unit, dz=_unit,
       depth=st.floats(0.05, 0.6), turns=st.floats(0.5, 4.0))
def test_reach_derivatives_are_the_reachs_own(theta, height, dx, dy, dz, depth, turns):
    d = np.array([dx, dy, dz])
    if np.linalg.norm(d) < 1e-3:
        d = np.array([0.0, 0.0, 1.0])
    d = d / np.linalg.norm(d)
    screw = Screw(core_radius=1.0, thread_depth=depth, pitch=2.0 / turns, length=2.0)
    with jax.enable_x64(True):
        params = jnp.asarray(screw.support_params(), dtype=jnp.float64)
        k = float(params[4])
        got, want = _both(params, jnp.asarray(d), jnp.array([theta, height * screw.length / 2]))
    # each term is a few products of numbers of order 1 to k^2 (k = 2 pi / pitch, at most 4 pi): rounding only
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=0, atol=64 * np.finfo(float).eps * (1.0 + k * k))
