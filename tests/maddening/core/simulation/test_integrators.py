"""integrate_node: the method table, forward and symplectic Euler, and tracing."""

import jax
import jax.numpy as jnp
import pytest

import maddening
from maddening.core.simulation.integrators import METHODS, integrate_node, register_method
from maddening.nodes import BallNode


def test_unknown_method_lists_the_known_ones():
    ball = BallNode()
    with pytest.raises(maddening.ValidationError) as info:
        integrate_node(ball, ball.initial_state(), {}, 0.01, method="rk77")
    message = str(info.value)
    assert "method = 'rk77'" in message and str(sorted(METHODS)) in message


def test_both_methods_registered():
    assert {"euler", "symplectic_euler"} <= set(METHODS)


def test_duplicate_registration_raises():
    with pytest.raises(maddening.ValidationError, match="'euler'"):
        register_method("euler")(lambda *a: a)


def test_bad_dt_raises():
    ball = BallNode()
    with pytest.raises(maddening.ValidationError, match="dt = nan"):
        integrate_node(ball, ball.initial_state(), {}, float("nan"))


def test_forward_euler_formula():
    with jax.enable_x64(True):
        ball = BallNode(initial_position=2.0, initial_velocity=3.0, gravity=-10.0)
        out = integrate_node(ball, ball.initial_state(), None, 0.1, method="euler")
        assert float(out["position"]) == pytest.approx(2.0 + 0.1 * 3.0, abs=1e-15)
        assert float(out["velocity"]) == pytest.approx(3.0 - 0.1 * 10.0, abs=1e-15)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_symplectic_euler_matches_update_bitwise_without_table(dtype):
    with jax.enable_x64(True):
        ball = BallNode(initial_position=1.3, initial_velocity=-0.7)
        state = ball.initial_state(dtype)
        a = integrate_node(ball, state, {}, 0.013, method="symplectic_euler")
        b = ball.update(state, {}, 0.013)
        for k in state:
            assert a[k].dtype == dtype
            assert a[k].tobytes() == b[k].tobytes()


def test_integrate_node_traces_under_jit_grad_vmap():
    ball = BallNode()

    def final_position(h):
        state = {"position": h, "velocity": jnp.zeros_like(h)}
        return integrate_node(ball, state, {}, 0.1, method="symplectic_euler")["position"]

    assert float(jax.jit(jax.grad(final_position))(jnp.float32(1.0))) == 1.0
    batch = jax.vmap(final_position)(jnp.arange(3.0))
    assert batch.shape == (3,)


def test_symplectic_needs_rate_fields():
    from maddening.core import Node, StateField

    class FirstOrder(Node):
        state_fields = (StateField("c"),)

        def derivatives(self, state, boundary_inputs, params=None):
            return {"c": -state["c"]}

    node = FirstOrder()
    assert float(integrate_node(node, {"c": jnp.float32(1.0)}, None, 0.5)["c"]) == 0.5
    with pytest.raises(maddening.ValidationError, match="symplectic_euler"):
        integrate_node(node, {"c": jnp.float32(1.0)}, None, 0.5, method="symplectic_euler")
