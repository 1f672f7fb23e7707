"""Gradients through reflections against closed forms."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from skcomplex import ContinuousSpace, PointElement, ReflectionInteraction, Simulation, System


@pytest.fixture(scope="module")
def line():
    with jax.enable_x64(True):
        wall = ReflectionInteraction("wall", target="ball", guard=lambda s: s.target.x - 1.0, direction=1,
                                     restitution=0.8)
        system = System([PointElement("ball", x=0.3, x_d1=0.9)], [wall], ContinuousSpace(1))
        return Simulation(system, dt=0.1).prepare()


def test_gradient_of_final_position_through_one_reflection(line):
    # x(T) = 1 - e (v0 T - (1 - x0)) for T after the hit at t* = (1 - x0) / v0
    steps, T = 15, 1.5

    def final_x(e, x0, v0):
        state = {**line.initial_state_, "elements": {"ball": {"x": x0, "x_d1": v0}}}
        return line.final_state({"wall": {"restitution": e}}, state, steps=steps)["elements"]["ball"]["x"]

    e, x0, v0 = 0.8, 0.3, 0.9
    value = final_x(e, x0, v0)
    de, dx0, dv0 = jax.grad(final_x, argnums=(0, 1, 2))(e, x0, v0)
    assert float(value) == pytest.approx(1 - e * (v0 * T - (1 - x0)), abs=1e-12)
    assert float(de) == pytest.approx(-(v0 * T - (1 - x0)), abs=1e-6)
    assert float(dx0) == pytest.approx(-e, abs=1e-6)
    assert float(dv0) == pytest.approx(-e * T, abs=1e-6)


def test_gradient_through_a_bounce_under_gravity():
    # a ball dropped from height h with speed 0 onto y = 0: hit at t* = sqrt(2 h / g) with speed g t*,
    # after it y(T) = e g t* (T - t*) - g (T - t*)^2 / 2
    g, h, e, T = 9.81, 1.0, 0.7, 0.6
    floor = ReflectionInteraction("floor", target="ball", guard=lambda s: s.target.y, direction=-1,
                                  positions=("y",), velocities=("y_d1",), restitution=e)
    ball = PointElement("ball", y=h, y_d1=0.0, y_d2=-g)
    sim = Simulation(System([ball], [floor], ContinuousSpace(1)), dt=0.05).prepare()

    def final_y(e, h):
        state = {**sim.initial_state_, "elements": {"ball": {"y": h, "y_d1": jnp.zeros_like(h), "y_d2": -g}}}
        return sim.final_state({"floor": {"restitution": e}}, state, steps=12)["elements"]["ball"]["y"]

    ts = np.sqrt(2 * h / g)
    closed = e * g * ts * (T - ts) - g * (T - ts) ** 2 / 2
    d_e = g * ts * (T - ts)
    # d/dh with dts/dh = 1 / (g ts)
    dts = 1 / (g * ts)
    d_h = e * g * (T - 2 * ts) * dts + g * (T - ts) * dts
    value = final_y(jnp.asarray(e), jnp.asarray(h))
    ge, gh = jax.grad(final_y, argnums=(0, 1))(jnp.asarray(e), jnp.asarray(h))
    assert float(value) == pytest.approx(closed, abs=1e-12)
    assert float(ge) == pytest.approx(d_e, abs=1e-6)
    assert float(gh) == pytest.approx(d_h, abs=1e-6)


def test_jit_and_vmap_of_the_pure_step(line):
    step = jax.jit(jax.vmap(line.step_, in_axes=(0, None, None)))
    x0 = jnp.array([0.3, 0.95, 0.5])
    states = {**line.initial_state_, "elements": {"ball": {"x": x0, "x_d1": jnp.full(3, 0.9)}},
              "t": jnp.zeros(3), "on_wall": jnp.zeros((3, 1), bool), "scale": jnp.zeros((3, 1))}
    new, info = step(states, line.params_, 0.1)
    # only the point at 0.95 reaches the wall within 0.1 (at 0.05 / 0.9), then comes back at 0.8 of the speed
    np.testing.assert_allclose(new["elements"]["ball"]["x"], [0.39, 1 - 0.8 * (0.09 - 0.05), 0.59], atol=1e-14)
    assert info["events"].tolist() == [0, 1, 0]
