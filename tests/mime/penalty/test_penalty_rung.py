"""The penalty rung: force law, wrench, plan into a rigid body's applied loads."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mime.errors import ValidationError
from mime.geometry import Box
from mime.interactions._penalty import normal_force, penalty_forces, penalty_wrench, plan_penalty
from mime.nodes import RigidInertialNode
from mime.scene import Plane

K = 1e5


def test_normal_force_cases():
    with jax.enable_x64(True):
        assert float(normal_force(-1e-3, 0.0, K)) == pytest.approx(100.0)
        assert float(normal_force(1e-3, 0.0, K)) == 0.0
        assert float(normal_force(0.0, -1.0, K, 50.0)) == 0.0  # touching is not overlapping
        assert float(normal_force(-1e-3, -0.5, K, 40.0)) == pytest.approx(100.0 + 20.0)  # closing: dashpot adds
        assert float(normal_force(-1e-3, 5.0, K, 40.0)) == 0.0  # opening fast: clipped, never pulls


def test_forces_follow_the_surface_normal():
    with jax.enable_x64(True):
        wall = Plane(point=(0.0, 0.0, 0.0), normal=(1.0, 0.0, 0.0))
        points = jnp.array([[-2e-4, 0.0, 0.0], [3e-4, 0.0, 0.0]])
        forces, f, gaps = penalty_forces(points, jnp.zeros((2, 3)), wall, K)
        np.testing.assert_allclose(np.asarray(f), [20.0, 0.0])
        np.testing.assert_allclose(np.asarray(forces[0]), [20.0, 0.0, 0.0])
        np.testing.assert_allclose(np.asarray(gaps), [-2e-4, 3e-4])


def test_wrench_of_two_supports():
    with jax.enable_x64(True):
        pts = jnp.array([[-0.1, 0.0, -1e-4], [0.1, 0.0, -3e-4]])
        F, tau = penalty_wrench(pts, jnp.zeros((2, 3)), jnp.zeros(3), Plane(), K)
        np.testing.assert_allclose(np.asarray(F), [0.0, 0.0, 40.0], atol=1e-12)
        # r x f summed: y-component = -(x f_z) summed = -(-0.1*10 + 0.1*30)
        np.testing.assert_allclose(np.asarray(tau), [0.0, -2.0, 0.0], atol=1e-12)


def _body(z=-1e-4, **kw):
    return RigidInertialNode(Box(0.2, 0.05, 0.02), mass=2.0, inertia=(0.001, 0.005, 0.005),
                             position=(0.0, 0.0, z), **kw)


def test_plan_delivers_into_the_applied_wrench():
    from mime.dynamics import RigidState
    from mime.nodes.rigid import applied_loads

    with jax.enable_x64(True):
        body = _body(force=(0.0, 0.0, -19.62))
        plan = plan_penalty(body=body, surface=Plane(), stiffness=K, points=[[-0.1, 0, 0], [0.1, 0, 0]])
        state = RigidState.from_mapping(body.initial_state())
        before, _ = applied_loads(body.step_inputs(), state, 0.0)
        after, _ = applied_loads(body.step_inputs(wrenches=(plan,)), state, 0.0)
        # two points each 1e-4 into the floor: 2 * k * 1e-4 = 20 N up
        np.testing.assert_allclose(np.asarray(after - before), [0.0, 0.0, 20.0], atol=1e-10)
        assert plan.feeds == "body.applied_wrench" and body.step_inputs().wrenches == ()  # the body is unchanged


def test_plan_runs_under_the_bodys_compiled_scan():
    from mime._simulate import run_body

    body = _body(z=-2e-4)
    plan = plan_penalty(body=body, surface=Plane(), stiffness=K, points=[[-0.1, 0, 0], [0.1, 0, 0]])
    states = run_body(body.step_inputs(wrenches=(plan,)), body.start, 1e-5, 20).states
    z = states.position[:, 2]
    assert z[-1] > -2e-4  # pushed out of the floor
    assert np.all(np.isfinite(z))


def test_plan_samples_the_hull_without_points():
    body = _body()
    plan = plan_penalty(body=body, surface=Plane(), stiffness=K, spacing=0.05)
    assert plan.points.shape[1] == 3 and plan.points.shape[0] > 4


@pytest.mark.parametrize("kw,argument", [
    ({"stiffness": -1.0}, "stiffness"),
    ({"stiffness": 0.0}, "stiffness"),
    ({"stiffness": K, "damping": -1.0}, "damping"),
    ({"stiffness": K, "points": [[0.0, 0.0]]}, "points"),
    ({"stiffness": K}, "spacing"),
])
def test_bad_plans_name_the_argument(kw, argument):
    with pytest.raises(ValidationError, match=f"{argument} = "):
        plan_penalty(body=_body(), surface=Plane(), **kw)


W, C = 2.0, 50.0
"""rad/s and N s/m: the spin and the dashpots of the two tests below."""


def _dashpots_on_a_spinning_body(orientation, spin):
    """``(forces, gaps)`` of two springs with dashpots, at body-frame ``(+-0.1, 0, 0)`` m and 1e-4 m into the
    floor, on a body of that ``orientation`` whose centre is at rest and whose body-frame spin is ``spin``."""
    from mime.dynamics import RigidState

    with jax.enable_x64(True):
        body = _body()
        plan = plan_penalty(body=body, surface=Plane(), stiffness=K, damping=C,
                            points=[[-0.1, 0.0, 0.0], [0.1, 0.0, 0.0]])
        start = RigidState.from_mapping(body.initial_state())
        f, gaps = plan.forces(RigidState(start.position, jnp.asarray(orientation, jnp.float64), start.velocity,
                                         jnp.asarray(spin, jnp.float64)))
    np.testing.assert_allclose(np.asarray(gaps), [-1e-4, -1e-4], rtol=1e-12)
    return np.asarray(f)


def test_the_dashpot_reads_each_point_velocity_of_a_spinning_body():
    """A body turning about the y axis, its centre at rest: a point's velocity is w x r, so the one at
    x = +0.1 comes down at w 0.1 and its dashpot adds c w 0.1, while the one at x = -0.1 rises as fast
    and its dashpot takes as much away."""
    f = _dashpots_on_a_spinning_body([1.0, 0.0, 0.0, 0.0], [0.0, W, 0.0])
    # (0, w, 0) x (x, 0, 0) = (0, 0, -w x): the point at +x moves down (closing), the one at -x up
    np.testing.assert_allclose(f, [K * 1e-4 - C * W * 0.1, K * 1e-4 + C * W * 0.1], rtol=1e-12)


def test_the_dashpot_turns_the_body_frame_spin_into_the_world_before_it_reads_a_point_velocity():
    """The same two points on a body turned a quarter turn about z: they lie on the world's y axis, and a
    spin about the body's -y axis is a spin about the world's +x. The point at world y = -0.1 comes down
    and the one at y = +0.1 rises (a spin read in the wrong frame would move neither)."""
    quarter = [np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)]
    f = _dashpots_on_a_spinning_body(quarter, [0.0, -W, 0.0])
    np.testing.assert_allclose(f, [K * 1e-4 + C * W * 0.1, K * 1e-4 - C * W * 0.1], rtol=1e-12)
