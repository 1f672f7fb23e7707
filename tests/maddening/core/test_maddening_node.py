"""The node base: declarations, the params merge rule and the errors it raises."""

import math
import re

import jax.numpy as jnp
import pytest

import maddening
from maddening.core import (
    BoundaryInputField,
    DiscretizationOrder,
    Node,
    NodeMeta,
    ParamField,
    Stability,
    StateField,
    as_state_dtype,
)
from maddening.nodes import BallNode


def test_validation_error_is_a_value_error():
    assert issubclass(maddening.ValidationError, ValueError)


def test_ball_declares_second_order_structure():
    assert BallNode.second_order_pairs() == (("position", "velocity"),)
    assert list(BallNode.state_spec()) == ["position", "velocity"]
    assert list(BallNode.boundary_input_spec()) == ["table_position"]
    assert BallNode.meta.order == DiscretizationOrder(spatial=None, temporal=1.0)


def test_rate_of_must_name_a_state_field():
    with pytest.raises(TypeError, match="rate_of='pos'"):
        class Bad(Node):  # noqa: F841
            state_fields = (StateField("x"), StateField("v", rate_of="pos"))


def test_unknown_constructor_param_names_it():
    class Toy(Node):
        meta = NodeMeta("T-1", "0.1", Stability.EXPERIMENTAL, "none", DiscretizationOrder())
        param_fields = (ParamField("k", 1.0, low=0.0),)

    assert Toy().params == {"k": 1.0}
    with pytest.raises(maddening.ValidationError, match=r"params = \{'q': 2\}.*\['k'\]"):
        Toy(q=2)
    with pytest.raises(maddening.ValidationError, match=r"k = -1.0 is not allowed; expected a finite number >= 0"):
        Toy(k=-1.0)


def test_injected_unknown_param_raises():
    ball = BallNode()
    with pytest.raises(maddening.ValidationError, match="gravty"):
        ball.update(ball.initial_state(), {}, 0.01, params={"gravty": -1.0})


def test_bad_state_and_inputs_raise():
    ball = BallNode()
    with pytest.raises(maddening.ValidationError, match=r"state = \['position'\]"):
        ball.update({"position": 0.0}, {}, 0.01)
    with pytest.raises(maddening.ValidationError, match=r"boundary_inputs = \['table'\]"):
        ball.update(ball.initial_state(), {"table": 0.0}, 0.01)
    with pytest.raises(maddening.ValidationError, match="dt = -0.01"):
        ball.update(ball.initial_state(), {}, -0.01)


def test_required_boundary_input_is_enforced():
    class Driven(Node):
        state_fields = (StateField("x"),)
        boundary_input_fields = (BoundaryInputField("force", required=True),)

    with pytest.raises(maddening.ValidationError, match=r"includes \['force'\]"):
        Driven().check_boundary_inputs({})


def test_as_state_dtype_never_promotes():
    import jax

    with jax.enable_x64(True):
        like = jnp.zeros((), jnp.float32)
        assert as_state_dtype(jnp.asarray(1.0, jnp.float64), like).dtype == jnp.float32
        assert as_state_dtype(1.0, jnp.zeros((), jnp.float64)).dtype == jnp.float64


def test_injected_param_values_are_checked_when_concrete():
    """F-MD-3 (fuzz): ``params={'gravity': nan}`` returned a NaN state, ``{'gravity': 'a'}`` a bare TypeError."""
    ball = BallNode(initial_position=1.0)
    state = ball.initial_state()
    with pytest.raises(maddening.ValidationError, match=r"BallNode: gravity = nan is not allowed; expected a finite number"):
        ball.update(state, {"table_position": 0.0}, 0.01, params={"gravity": float("nan")})
    with pytest.raises(maddening.ValidationError, match=r"gravity = 'a' is not allowed"):
        ball.update(state, {"table_position": 0.0}, 0.01, params={"gravity": "a"})
    with pytest.raises(maddening.ValidationError, match=r"elasticity = -0.5 is not allowed; expected a finite number >= 0"):
        ball.update(state, {"table_position": 0.0}, 0.01, params={"elasticity": -0.5})
    with pytest.raises(maddening.ValidationError, match="gravity"):
        ball.resolve_params({"gravity": jnp.zeros(3)})  # a concrete array of the wrong shape
    assert ball.resolve_params({"gravity": jnp.asarray(-1.0)})["gravity"] == -1.0


def test_traced_injected_params_pass_untouched():
    """F-MD-3: the check never sees a tracer, so jit, grad, vmap and lax.scan still trace the update."""
    import jax

    ball = BallNode(initial_position=1.0)
    state = ball.initial_state()

    def x_after(g):
        return ball.update(state, {"table_position": 0.0}, 0.01, params={"gravity": g})["position"]

    assert float(jax.jit(x_after)(-9.81)) == pytest.approx(float(x_after(-9.81)))
    assert float(jax.grad(x_after)(-9.81)) == pytest.approx(1e-4)
    assert jax.vmap(x_after)(jnp.array([-9.81, -1.0])).shape == (2,)
    out, _ = jax.lax.scan(lambda s, g: (ball.update(s, None, 0.01, params={"gravity": g}), None), state,
                          jnp.full(5, -9.81))
    assert float(out["velocity"]) == pytest.approx(-5 * 9.81 * 0.01, rel=1e-5)



@pytest.mark.parametrize("low, high, allowed", [(0.0, 1.0, "a number in [0, 1]"), (None, 1.0, "a finite number <= 1"),
                                                (0.0, None, "a finite number >= 0")])
def test_a_parameters_bounds_are_inclusive_and_the_message_states_them(low, high, allowed):
    """``low`` and ``high`` are allowed values themselves; the next float past either is refused, by name."""
    field = ParamField("e", 0.5, low=low, high=high)
    for bound, outward in ((low, -math.inf), (high, math.inf)):
        if bound is None:
            continue
        field.check(bound)
        with pytest.raises(maddening.ValidationError, match=rf"e = .* is not allowed; expected {re.escape(allowed)}$"):
            field.check(math.nextafter(bound, outward))
