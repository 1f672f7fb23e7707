"""The batched step (``step_function(batched=True)``): bitwise the vmapped per-point step.

The batched step only schedules the event passes differently (the first on the
whole batch, the later ones on the points that still have time left, gathered
into a buffer), so every leaf of its states and infos must be *equal*, not
close, to those of ``jax.vmap`` of the per-point while-loop step, whatever the
buffer size, including buffers far smaller than the number of busy points.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from skc_scenarios import box_walls
from skcomplex import ContinuousSpace, PointElement, ReflectionInteraction, Simulation, System, ValidationError


def box_simulation(max_events=16, dt=0.3, restitution=0.9):
    system = System([PointElement("ball", x=[0.5, 0.5], x_d1=[0.0, 0.0])], box_walls(restitution),
                    ContinuousSpace(2))
    return Simulation(system, dt=dt, max_events=max_events).prepare()


def batch(simulation, x, v):
    n = x.shape[0]
    walls = len(simulation.crossing_labels_)
    return {"t": jnp.zeros(n), "elements": {"ball": {"x": jnp.asarray(x), "x_d1": jnp.asarray(v)}},
            "on_wall": jnp.zeros((n, walls), bool), "scale": jnp.zeros((n, walls))}


def random_points(n, speed, seed=7):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.05, 0.95, size=(n, 2))
    v = rng.uniform(-speed, speed, size=(n, 2))
    x[:3] = [[0.5, 0.5], [0.25, 0.25], [0.7, 0.5]]  # two exact corner hits, a horizontal bounce
    v[:3] = [[1.0, 1.0], [-1.0, -1.0], [2.0, 0.0]]
    return x, v


def rollout(step, steps):
    def run(state, params, dt):
        def body(s, _):
            new, info = step(s, params, dt)
            return new, (new, info)

        return lax.scan(body, state, None, length=steps)[1]

    return jax.jit(run)


def vmapped(simulation, record=False, dt_axis=None):
    return jax.vmap(simulation.step_function(differentiable=False, record=record), in_axes=(0, None, dt_axis))


def assert_bitwise(a, b):
    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    assert tree_a == tree_b
    for x, y in zip(leaves_a, leaves_b):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        # equal bit for bit (NaN where the other has NaN: the unused log slots)
        np.testing.assert_array_equal(x, y, strict=True)


@pytest.fixture(scope="module")
def box():
    with jax.enable_x64(True):
        simulation = box_simulation()
        x, v = random_points(300, 8.0)
        reference = rollout(vmapped(simulation), 12)(batch(simulation, x, v), simulation.params_, 0.3)
        return simulation, x, v, reference


@pytest.mark.parametrize("capacity", [None, 1, 7, 10_000])
def test_batched_step_is_bitwise_the_vmapped_step_for_any_buffer(box, capacity):
    simulation, x, v, reference = box
    # the scenario really needs later passes: several crossings in a step, corners included
    assert int(np.max(reference[1]["events"])) >= 3
    assert not np.any(reference[1]["overflow"])
    step = simulation.step_function(differentiable=False, batched=True, capacity=capacity)
    result = rollout(step, 12)(batch(simulation, x, v), simulation.params_, 0.3)
    assert_bitwise(result, reference)


def test_batched_step_with_record_matches_the_vmapped_logs():
    simulation = box_simulation(max_events=8)
    x, v = random_points(50, 3.0, seed=11)
    state = batch(simulation, x, v)
    reference = rollout(vmapped(simulation, record=True), 5)(state, simulation.params_, 0.3)
    step = simulation.step_function(differentiable=False, record=True, batched=True, capacity=4)
    result = rollout(step, 5)(state, simulation.params_, 0.3)
    assert np.any(np.isfinite(np.asarray(result[1]["log"]["time"])))
    assert_bitwise(result, reference)


def test_batched_step_flags_the_same_overflows():
    simulation = box_simulation(max_events=2, dt=0.5)
    x, v = random_points(40, 20.0, seed=3)
    state = batch(simulation, x, v)
    reference = rollout(vmapped(simulation), 3)(state, simulation.params_, 0.5)
    result = rollout(simulation.step_function(differentiable=False, batched=True, capacity=5), 3)(
        state, simulation.params_, 0.5)
    overflow = np.asarray(result[1]["overflow"])
    assert overflow.any() and not overflow.all()
    assert_bitwise(result, reference)


def test_batched_step_under_gravity_in_a_bowl():
    # a curved guard on a quadratic path: the search does real Newton work
    bowl = ReflectionInteraction("bowl", target="ball", guard=lambda s: s.target.x @ s.target.x - 1.0,
                                 direction=1, restitution=0.8)
    ball = PointElement("ball", x=[0.0, 0.5], x_d1=[0.0, 0.0], x_d2=[0.0, -9.81])
    simulation = Simulation(System([ball], [bowl], ContinuousSpace(2)), dt=0.05, max_events=8).prepare()
    rng = np.random.default_rng(5)
    n = 64
    radius, angle = np.sqrt(rng.uniform(0, 0.8, n)), rng.uniform(0, 2 * np.pi, n)
    x = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    state = {"t": jnp.zeros(n), "elements": {"ball": {"x": jnp.asarray(x), "x_d1": jnp.asarray(rng.normal(size=(n, 2))),
                                                       "x_d2": jnp.tile(jnp.array([0.0, -9.81]), (n, 1))}},
             "on_wall": jnp.zeros((n, 1), bool), "scale": jnp.zeros((n, 1))}
    reference = rollout(vmapped(simulation), 40)(state, simulation.params_, 0.05)
    result = rollout(simulation.step_function(differentiable=False, batched=True, capacity=3), 40)(
        state, simulation.params_, 0.05)
    assert int(np.sum(reference[1]["events"])) > n
    assert_bitwise(result, reference)


def test_batched_step_takes_one_dt_per_point():
    simulation = box_simulation()
    x, v = random_points(20, 4.0, seed=2)
    dts = jnp.asarray(np.linspace(0.0, 0.6, 20))  # the first point does not move (dt = 0)
    state = batch(simulation, x, v)
    reference = jax.jit(vmapped(simulation, dt_axis=0))(state, simulation.params_, dts)
    result = jax.jit(simulation.step_function(differentiable=False, batched=True, capacity=2))(
        state, simulation.params_, dts)
    assert_bitwise(result, reference)
    np.testing.assert_array_equal(result[0]["elements"]["ball"]["x"][0], x[0])
    np.testing.assert_array_equal(result[0]["t"], dts)


def test_batched_step_of_an_empty_batch():
    simulation = box_simulation()
    state = batch(simulation, np.zeros((0, 2)), np.zeros((0, 2)))
    new, info = simulation.step_function(differentiable=False, batched=True)(state, simulation.params_, 0.3)
    assert new["elements"]["ball"]["x"].shape == (0, 2) and info["events"].shape == (0,)


@pytest.mark.parametrize("kwargs, pattern", [
    ({"batched": True}, r"batched=True needs differentiable=False.*got differentiable=True"),
    ({"batched": True, "differentiable": False, "capacity": 0}, r"capacity must be None or an int >= 1, got 0"),
    ({"batched": True, "differentiable": False, "capacity": True}, r"capacity must be None or an int >= 1, got True"),
    ({"batched": True, "differentiable": False, "capacity": 2.5}, r"capacity must be None or an int >= 1, got 2.5"),
    ({"differentiable": False, "capacity": 4}, r"capacity=4 is the buffer of the batched step; pass batched=True"),
    ({"batched": "yes", "differentiable": False}, r"batched must be a bool, got 'yes'"),
])
def test_step_function_rejects(kwargs, pattern):
    with pytest.raises(ValidationError, match=pattern):
        box_simulation().step_function(**kwargs)


def test_batched_step_rejects_states_without_one_batch_axis():
    simulation = box_simulation()
    step = simulation.step_function(differentiable=False, batched=True)
    x, v = random_points(5, 1.0)
    state = batch(simulation, x, v)
    with pytest.raises(ValidationError, match=r"one leading batch axis on every state leaf"):
        step({**state, "t": jnp.zeros(4)}, simulation.params_, 0.3)
    with pytest.raises(ValidationError, match=r"one leading batch axis on every state leaf"):
        step(simulation.initial_state_, simulation.params_, 0.3)
    with pytest.raises(ValidationError, match=r"dt to be a scalar or of shape \(5,\), got shape \(3,\)"):
        step(state, simulation.params_, jnp.full(3, 0.1))


def test_sharded_step_on_a_mesh_is_bitwise_the_batched_step():
    simulation = box_simulation()
    x, v = random_points(8, 4.0, seed=3)
    state = batch(simulation, x, v)
    dt = 0.3  # one dt shared by the batch
    mesh = jax.make_mesh((jax.device_count(),), ("batch",))
    reference = jax.jit(simulation.step_function(differentiable=False, batched=True))(state, simulation.params_, dt)
    result = jax.jit(simulation.step_function(differentiable=False, batched=True, mesh=mesh))(
        state, simulation.params_, dt)
    assert_bitwise(result, reference)
