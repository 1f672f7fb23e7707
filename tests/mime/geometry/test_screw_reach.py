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
        s = _Numbers(*jnp.asarray(screw.support_params(), dtype=jnp.float64)[:7])
        z = height * s.length / 2
        dj = jnp.asarray(d)

        def g(u):
            return s.point_at(u[0], u[1]) @ dj

        u = jnp.array([theta, z])
        slope, curvature = jax.grad(g)(u), jax.hessian(g)(u)
        got = [float(v) for v in s.reach_derivatives(dj, u[0], u[1])]
    want = [float(slope[0]), float(slope[1]), float(curvature[0, 0]), float(curvature[0, 1]), float(curvature[1, 1])]
    # each term is a few products of numbers of order 1 to k^2 (k = 2 pi / pitch, at most 4 pi): rounding only
    scale = 1.0 + float(s.k) ** 2
    np.testing.assert_allclose(got, want, rtol=0, atol=64 * np.finfo(float).eps * scale)
