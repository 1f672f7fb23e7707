"""hypothesis: random walls, restitutions and initial states.

One compiled simulation per scenario: the wall is described by constant states
of the element (a normal and an offset), so every example reuses the same
jitted roll-out of the library's pure step with new arrays.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jax import lax

from skcomplex import ContinuousSpace, PointElement, ReflectionInteraction, Simulation, System

STEPS, DT = 40, 0.1
unit = st.floats(-1.0, 1.0, allow_nan=False)
speed = st.floats(-3.0, 3.0, allow_nan=False)
restitution = st.floats(0.0, 1.0, allow_nan=False)
angle = st.floats(0.0, 2 * np.pi, allow_nan=False)


def rollout(simulation):
    step = simulation.step_function(differentiable=False)

    def run(state, params):
        def body(s, _):
            new, info = step(s, params, DT)
            return new, (new["elements"]["ball"], info["overflow"])

        return lax.scan(body, state, None, length=STEPS)[1]

    return jax.jit(run)


@pytest.fixture(scope="module")
def plane():
    with jax.enable_x64(True):
        wall = ReflectionInteraction("wall", target="ball", guard=lambda s: s.target.x @ s.target.n - s.target.c,
                                     direction=1)
        ball = PointElement("ball", x=[0.0, 0.0], x_d1=[1.0, 0.0], n=[1.0, 0.0], c=1.0)
        simulation = Simulation(System([ball], [wall], ContinuousSpace(2)), dt=DT).prepare()
        return simulation, rollout(simulation)


@pytest.fixture(scope="module")
def box():
    with jax.enable_x64(True):
        guards = {
            "u_plus": lambda s: s.target.x @ s.target.u - s.target.half[0],
            "u_minus": lambda s: -s.target.x @ s.target.u - s.target.half[0],
            "p_plus": lambda s: s.target.x @ s.target.p - s.target.half[1],
            "p_minus": lambda s: -s.target.x @ s.target.p - s.target.half[1],
        }
        walls = [ReflectionInteraction(k, target="ball", guard=g, direction=1) for k, g in guards.items()]
        ball = PointElement("ball", x=[0.0, 0.0], x_d1=[1.0, 0.0], u=[1.0, 0.0], p=[0.0, 1.0], half=[1.0, 1.0])
        simulation = Simulation(System([ball], walls, ContinuousSpace(2)), dt=DT).prepare()
        return simulation, rollout(simulation)


def kinetic(v):
    return 0.5 * np.sum(np.asarray(v) ** 2, axis=-1)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(theta=angle, c=unit, depth=st.floats(1e-3, 2.0), px=unit, py=unit, vx=speed, vy=speed, e=restitution)
def test_random_plane_never_crossed_and_energy_never_rises(plane, theta, c, depth, px, py, vx, vy, e):
    simulation, run = plane
    n = np.array([np.cos(theta), np.sin(theta)])
    tangent = np.array([-n[1], n[0]])
    x0 = (c - depth) * n + px * tangent  # n . x0 - c = -depth < 0
    state = {**simulation.initial_state_,
             "elements": {"ball": {"x": jnp.asarray(x0), "x_d1": jnp.array([vx, vy]), "n": jnp.asarray(n),
                                   "c": jnp.asarray(c)}}}
    ball, overflow = run(state, {"wall": {"restitution": jnp.asarray(e)}})
    assert not np.any(overflow)
    g = np.asarray(ball["x"]) @ n - c
    assert np.all(g <= 1e-12)
    energy = np.concatenate([[kinetic([vx, vy])], kinetic(ball["x_d1"])])
    assert np.all(np.diff(energy) <= 1e-12 * energy[0] + 1e-300)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(theta=angle, a=st.floats(0.2, 1.5), b=st.floats(0.2, 1.5), fx=st.floats(-0.95, 0.95),
       fy=st.floats(-0.95, 0.95), vx=speed, vy=speed, e=restitution)
def test_random_box_keeps_the_point_inside_and_energy_never_rises(box, theta, a, b, fx, fy, vx, vy, e):
    simulation, run = box
    u = np.array([np.cos(theta), np.sin(theta)])
    p = np.array([-u[1], u[0]])
    x0 = fx * a * u + fy * b * p
    state = {**simulation.initial_state_,
             "elements": {"ball": {"x": jnp.asarray(x0), "x_d1": jnp.array([vx, vy]), "u": jnp.asarray(u),
                                   "p": jnp.asarray(p), "half": jnp.array([a, b])}}}
    params = {k: {"restitution": jnp.asarray(e)} for k in simulation.params_}
    ball, overflow = run(state, params)
    assert not np.any(overflow)
    x = np.asarray(ball["x"])
    assert np.all(np.abs(x @ u) <= a + 1e-12) and np.all(np.abs(x @ p) <= b + 1e-12)
    energy = np.concatenate([[kinetic([vx, vy])], kinetic(ball["x_d1"])])
    assert np.all(np.diff(energy) <= 1e-12 * max(energy[0], 1e-300))
