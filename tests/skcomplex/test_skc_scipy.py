"""Against an independent implementation: SciPy solve_ivp with directional, terminal events."""

import numpy as np
import pytest

from skc_scenarios import box_walls, scipy_bounces, simulate
from skcomplex import ReflectionInteraction

G = 9.81


def compare(trajectory, reference, velocity="ball.x_d1"):
    times, positions, velocities = reference
    assert len(trajectory.events) == len(times) >= 3
    np.testing.assert_allclose(trajectory.event_times(), times, rtol=0, atol=1e-9)
    np.testing.assert_allclose([e.states["ball.x"] for e in trajectory.events], positions, rtol=0, atol=1e-9)
    np.testing.assert_allclose([e.states[velocity] for e in trajectory.events], velocities, rtol=0, atol=1e-9)


def test_tilted_plane_under_gravity():
    angle, e = 0.3, 0.8
    n = np.array([np.sin(angle), -np.cos(angle)])  # g = n . x < 0 above the plane y = x tan(angle)
    x0, v0, a = np.array([0.0, 1.0]), np.array([0.5, 0.0]), np.array([0.0, -G])
    wall = ReflectionInteraction("slope", target="ball", guard=lambda s: s.target.x @ n, direction=1, restitution=e)
    until = 3.0
    trajectory = simulate([wall], 0.05, until, x=x0, x_d1=v0, x_d2=a).trajectory_
    reference = scipy_bounces([(lambda x: x @ n, lambda x: n)], x0, v0, a, until, e)
    compare(trajectory, reference)


def test_circular_bowl_under_gravity():
    R, e = 1.0, 0.9
    x0, v0, a = np.array([0.3, 0.2]), np.array([1.5, 0.4]), np.array([0.0, -G])
    wall = ReflectionInteraction("bowl", target="ball", guard=lambda s: s.target.x @ s.target.x - R**2,
                                 direction=1, restitution=e)
    until = 2.0
    trajectory = simulate([wall], 0.05, until, x=x0, x_d1=v0, x_d2=a).trajectory_
    reference = scipy_bounces([(lambda x: x @ x - R**2, lambda x: 2 * x)], x0, v0, a, until, e)
    compare(trajectory, reference)


def test_box():
    e = 0.9
    x0, v0 = np.array([0.3, 0.6]), np.array([2.1, -1.7])
    until = 3.0
    trajectory = simulate(box_walls(e), 0.1, until, x=x0, x_d1=v0).trajectory_
    walls = [
        (lambda x: -x[0], lambda x: np.array([-1.0, 0.0])),
        (lambda x: x[0] - 1, lambda x: np.array([1.0, 0.0])),
        (lambda x: -x[1], lambda x: np.array([0.0, -1.0])),
        (lambda x: x[1] - 1, lambda x: np.array([0.0, 1.0])),
    ]
    reference = scipy_bounces(walls, x0, v0, np.zeros(2), until, e)
    compare(trajectory, reference)
