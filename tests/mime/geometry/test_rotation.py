"""``mime.geometry.rotation``: the quaternion of a small turn to the last bits, and of a turn about an axis.

A step turns a body by ``w dt``, often a tiny angle. ``exp_body`` takes ``sin(|phi|/2)/|phi|``
through its limit only where ``|phi|^2`` is below 1e-30, so every turn a float64 angle can tell
from none keeps its cosine and sine: against NumPy's ``cos(a/2)`` and ``sin(a/2)`` of the same
angle about the unit axis, within two units in the last place.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings, strategies as st

from mime.geometry import rotation

EPS = np.finfo(np.float64).eps


@settings(max_examples=200, deadline=None)
@given(st.floats(-14.0, -2.0), st.tuples(*[st.floats(-1.0, 1.0)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1))
def test_a_small_turn_keeps_its_cosine_and_sine(log_angle, axis):
    angle = 10.0 ** log_angle
    unit = np.asarray(axis) / np.linalg.norm(axis)
    with jax.enable_x64(True):
        q = np.asarray(rotation.exp_body(jnp.asarray(angle * unit)))
    want = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * unit])
    # two units in the last place of each component, and of the angle for a component near zero
    assert np.allclose(q, want, rtol=2 * EPS, atol=2 * EPS * angle), (angle, q - want)


def test_no_turn_is_the_identity_exactly():
    with jax.enable_x64(True):
        assert np.asarray(rotation.exp_body(jnp.zeros(3))).tolist() == [1.0, 0.0, 0.0, 0.0]
        # and its derivative there is the half-turn's, 1/2 along each axis
        jac = np.asarray(jax.jacfwd(rotation.exp_body)(jnp.zeros(3)))
    assert np.array_equal(jac, np.vstack([np.zeros(3), 0.5 * np.eye(3)]))


@settings(max_examples=100, deadline=None)
@given(st.floats(-3.0, 3.0), st.tuples(*[st.floats(-1.0, 1.0)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1),
       st.floats(0.01, 100.0))
def test_a_turn_about_an_axis_of_any_length_is_the_unit_axis_turn(angle, axis, length):
    """``about_axis`` takes the axis at any length (its docstring): the quaternion is ``(cos(a/2), sin(a/2) u)``
    for the unit axis ``u``, of unit length, and turns a vector about ``u`` by Rodrigues' formula."""
    unit = np.asarray(axis) / np.linalg.norm(axis)
    with jax.enable_x64(True):
        q = np.asarray(rotation.about_axis(jnp.asarray(length * unit), angle))
        turned = np.asarray(rotation.rotate(jnp.asarray(q), jnp.array([0.3, -0.2, 0.9])))
    assert np.allclose(q, np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * unit]), rtol=0, atol=4 * EPS)
    v = np.array([0.3, -0.2, 0.9])
    rodrigues = v * np.cos(angle) + np.cross(unit, v) * np.sin(angle) + unit * (unit @ v) * (1 - np.cos(angle))
    assert np.allclose(turned, rodrigues, rtol=0, atol=16 * EPS)
