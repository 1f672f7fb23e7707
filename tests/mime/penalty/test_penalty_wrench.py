"""The penalty rung's wrench: taken about the body's centre wherever the body is, and the springs a plan keeps."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mime.geometry import PointSet
from mime.interactions import penalty_wrench
from mime.interactions._penalty import plan_penalty
from mime.nodes import RigidInertialNode
from mime.scene import Floor

K, C = 1e5, 20.0
FLOOR = Floor().surface


def test_one_pressed_point_pushes_up_and_turns_the_body_about_its_centre():
    """One point 0.1 m along +x from a centre far from the world's origin, pressed 1e-4 m into the floor: the
    force is k times the press, straight up, and the torque about the centre is the lever 0.1 m times
    it, about -y (the closed form of (p - c) x f n)."""
    centre = np.array([2.0, 3.0, 0.05])
    point = np.array([[2.1, 3.0, -1e-4]])
    with jax.enable_x64(True):
        F, tau = penalty_wrench(jnp.asarray(point), jnp.zeros((1, 3)), jnp.asarray(centre), FLOOR, K)
    f = K * 1e-4
    np.testing.assert_allclose(np.asarray(F), [0.0, 0.0, f], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(tau), [0.0, -0.1 * f, 0.0], rtol=1e-12, atol=1e-12 * f)


_coordinate = st.floats(-0.2, 0.2)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_coordinate, _coordinate, st.floats(-1e-3, 1e-3)), min_size=1, max_size=6),
       st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3), st.floats(-50.0, 50.0), st.floats(-50.0, 50.0))
def test_the_wrench_is_the_same_wherever_on_the_floor_the_body_stands(offsets, velocity, sx, sy):
    """The floor looks alike everywhere along it, so moving the body and its points together along the
    floor changes neither the force nor the torque about the body's centre."""
    with jax.enable_x64(True):
        centre = jnp.array([0.0, 0.0, 0.1])
        points = centre + jnp.asarray(offsets) - jnp.array([0.0, 0.0, 0.1])
        velocities = jnp.broadcast_to(jnp.asarray(velocity), points.shape)
        shift = jnp.array([sx, sy, 0.0])
        here = penalty_wrench(points, velocities, centre, FLOOR, K, C)
        there = penalty_wrench(points + shift, velocities, centre + shift, FLOOR, K, C)
    scale = K * 1e-3 + C + 1e-300
    for a, b in zip(here, there):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-9, atol=1e-9 * scale)


def test_a_plan_keeps_the_given_points_in_their_order_with_repeats_dropped():
    """Points that coincide take one spring; the others keep the order they were given in."""
    given_points = [(0.1, 0.0, 0.0), (-0.1, 0.0, 0.0), (0.1, 0.0, 0.0), (0.0, 0.2, 0.0), (-0.1, 0.0, 0.0)]
    body = RigidInertialNode(PointSet(given_points[:2]), mass=1.0, inertia=(0.01,) * 3)
    plan = plan_penalty(body=body, surface=FLOOR, stiffness=K, points=given_points)
    assert np.asarray(plan.points).tolist() == [[0.1, 0.0, 0.0], [-0.1, 0.0, 0.0], [0.0, 0.2, 0.0]]
