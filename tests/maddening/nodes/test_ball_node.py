"""BallNode: every stated behaviour, its invariants, and tracing."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import maddening
from maddening.core.simulation.integrators import integrate_node
from maddening.nodes import BallNode
from maddening.nodes.ball_evidence import mechanical_energy, scheme_energy

TABLE = {"table_position": 0.0}


def test_defaults_and_specs():
    ball = BallNode()
    assert ball.params == {"initial_position": 0.0, "initial_velocity": 0.0, "elasticity": 0.8, "gravity": -9.81}
    assert ball.locate_contact is False
    assert BallNode.meta.discretization == "forward Euler"  # sic: MADD-ANO-011
    regimes = {r.parameter: (r.low, r.high) for r in BallNode.meta.validated_regimes}
    assert regimes == {"elasticity": (0.0, 1.0), "timestep": (1e-4, 1e-1)}


def test_bad_constructor_arguments():
    with pytest.raises(maddening.ValidationError, match="elasticity = -0.1"):
        BallNode(elasticity=-0.1)
    with pytest.raises(maddening.ValidationError, match="gravity = inf"):
        BallNode(gravity=float("inf"))
    with pytest.raises(maddening.ValidationError, match="locate_contact = 1"):
        BallNode(locate_contact=1)


def test_step_is_semi_implicit_euler_bitwise():
    with jax.enable_x64(True):
        ball = BallNode(initial_position=0.7, initial_velocity=0.3)
        s = ball.initial_state()
        out = ball.update(s, TABLE, 0.01)
        v = s["velocity"] + (-9.81) * 0.01
        assert out["velocity"].tobytes() == v.tobytes()
        assert out["position"].tobytes() == (s["position"] + v * 0.01).tobytes()


def test_limitation_5_example():
    """From 0.001 above the table at -1 m/s, dt = 0.01: integrate_node lands at -0.009, update at 0."""
    with jax.enable_x64(True):
        ball = BallNode(initial_position=0.001, initial_velocity=-1.0)
        s = ball.initial_state()
        euler = integrate_node(ball, s, TABLE, 0.01, method="euler")
        own = ball.update(s, TABLE, 0.01)
        assert float(euler["position"]) == pytest.approx(-0.009, abs=1e-15)
        assert float(own["position"]) == 0.0
        assert float(own["velocity"]) == pytest.approx(0.8 * (1.0 + 9.81 * 0.01), abs=1e-15)


@pytest.mark.parametrize("locate", [False, True])
def test_threshold_zeroes_slow_contacts(locate):
    with jax.enable_x64(True):
        ball = BallNode(gravity=0.0, locate_contact=locate)
        slow = {"position": jnp.float64(1e-7), "velocity": jnp.float64(-0.99e-4)}
        assert float(ball.update(slow, TABLE, 0.01)["velocity"]) == 0.0
        fast = {"position": jnp.float64(1e-7), "velocity": jnp.float64(-1.01e-4)}
        assert float(ball.update(fast, TABLE, 0.01)["velocity"]) == pytest.approx(0.8 * 1.01e-4)


def test_threshold_is_inclusive():
    with jax.enable_x64(True):
        ball = BallNode(gravity=0.0)
        at = {"position": jnp.float64(0.0), "velocity": jnp.float64(-BallNode.CONTACT_SPEED_THRESHOLD)}
        assert float(ball.update(at, {"table_position": 1.0}, 0.01)["velocity"]) == 0.0


@pytest.mark.parametrize("locate", [False, True])
def test_no_table_means_no_contact(locate):
    ball = BallNode(initial_position=0.001, initial_velocity=-1.0, locate_contact=locate)
    out = ball.update(ball.initial_state(), {}, 0.01)
    assert float(out["position"]) < -0.009
    assert float(out["velocity"]) < -1.0


def test_injected_params_merge_over_own():
    """MADD-ANO-013 (resolved in 0.4.0): {**self.params, **params} in update() and derivatives()."""
    with jax.enable_x64(True):
        ball = BallNode(initial_position=0.001, initial_velocity=-1.0, elasticity=0.5)
        s = ball.initial_state()
        out = ball.update(s, TABLE, 0.01, params={"gravity": 0.0})
        assert float(out["velocity"]) == pytest.approx(0.5)  # injected gravity used, own elasticity kept
        d = ball.derivatives(s, TABLE, params={"gravity": -2.0})
        assert float(d["velocity"]) == -2.0 and float(d["position"]) == -1.0
        assert ball.params["gravity"] == -9.81  # injection does not mutate the node


def test_injected_value_keeps_state_dtype():
    """MADD-ANO-018 (resolved in 0.4.0): an injected float64 value is added in the state's dtype."""
    with jax.enable_x64(True):
        ball = BallNode(initial_position=1.0)
        s32 = ball.initial_state(jnp.float32)
        g64 = jnp.asarray(-9.81, jnp.float64)
        out = ball.update(s32, TABLE, jnp.asarray(0.01, jnp.float64), params={"gravity": g64})
        assert out["position"].dtype == jnp.float32 and out["velocity"].dtype == jnp.float32
        d = ball.derivatives(s32, None, params={"gravity": g64})
        assert d["velocity"].dtype == jnp.float32
        assert integrate_node(ball, s32, None, 0.01, params={"gravity": g64})["velocity"].dtype == jnp.float32


def test_derivatives_ignore_table_and_elasticity():
    ball = BallNode(initial_position=-5.0, initial_velocity=-2.0)
    d = ball.derivatives(ball.initial_state(), TABLE, {"elasticity": 0.1})
    assert float(d["position"]) == -2.0 and float(d["velocity"]) == pytest.approx(-9.81)


@pytest.mark.parametrize("locate", [False, True])
def test_vmap_over_a_batch_of_balls(locate):
    ball = BallNode(locate_contact=locate)
    heights = jnp.linspace(0.0, 2.0, 5)
    states = {"position": heights, "velocity": -jnp.ones(5)}
    step = jax.jit(jax.vmap(lambda s: ball.update(s, TABLE, 0.01)))
    out = step(states)
    for i in range(5):
        one = ball.update({"position": heights[i], "velocity": jnp.float32(-1.0)}, TABLE, 0.01)
        np.testing.assert_allclose(out["position"][i], one["position"], rtol=1e-6)
        np.testing.assert_allclose(out["velocity"][i], one["velocity"], rtol=1e-6)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
@pytest.mark.parametrize("locate", [False, True])
def test_scan_in_both_precisions(dtype, locate):
    with jax.enable_x64(True):
        ball = BallNode(initial_position=1.0, locate_contact=locate)

        @jax.jit
        def run(s):
            return jax.lax.scan(lambda c, _: (ball.update(c, TABLE, 1e-3), c["position"]), s, None, length=2000)

        final, xs = run(ball.initial_state(dtype))
        assert final["position"].dtype == dtype and xs.dtype == dtype
        assert bool(jnp.all(xs >= 0.0))
        assert float(jnp.max(xs[1000:])) < 1.0  # it bounced and lost height


@settings(max_examples=60, deadline=None)
@given(
    x=st.floats(0.0, 0.5),
    v=st.floats(-8.0, 0.0),
    e=st.floats(0.0, 1.0),
    dt=st.sampled_from([1e-4, 1e-3, 1e-2, 1e-1]),
)
def test_per_step_energy_never_rises_across_a_falling_bounce(x, v, e, dt):
    """With e <= 1, a contact step that starts falling does not raise the scheme's own energy."""
    with jax.enable_x64(True):
        ball = BallNode(elasticity=e)
        s = {"position": jnp.float64(x), "velocity": jnp.float64(v)}
        new = ball.update(s, TABLE, dt)
        assert float(new["position"]) >= 0.0
        before = float(scheme_energy(s["position"], s["velocity"], dt))
        after = float(scheme_energy(new["position"], new["velocity"], dt))
        assert after <= before + 1e-12 * (1.0 + abs(before))


@settings(max_examples=60, deadline=None)
@given(
    x=st.floats(0.0, 0.5),
    v=st.floats(-8.0, 8.0),
    e=st.floats(0.0, 1.0),
    dt=st.sampled_from([1e-4, 1e-3, 1e-2, 1e-1]),
)
def test_located_energy_never_rises_and_table_holds(x, v, e, dt):
    """With e <= 1, a located step never raises the mechanical energy, and ends on or above the table."""
    with jax.enable_x64(True):
        ball = BallNode(elasticity=e, locate_contact=True)
        s = {"position": jnp.float64(x), "velocity": jnp.float64(v)}
        new = ball.update(s, TABLE, dt)
        assert float(new["position"]) >= 0.0
        before = float(mechanical_energy(s["position"], s["velocity"]))
        after = float(mechanical_energy(new["position"], new["velocity"]))
        assert after <= before + 1e-12 * (1.0 + abs(before))


@pytest.mark.parametrize("x0", [-0.01, -1e-9])
def test_a_located_step_started_below_the_table_is_a_contact_at_its_start(x0):
    """A ball that starts a located step below the table (a start the per-step contact test would also
    catch) is taken as touching it at the step's start: reflected there, it leaves from the table's height,
    by the closed form ``x = table + v_out h + g h^2 / 2`` with ``v_out = -e v``, and does not fall on through."""
    with jax.enable_x64(True):
        ball = BallNode(elasticity=0.5, locate_contact=True)
        h, v0, g = 1e-3, -1.0, -9.81
        new = ball.update({"position": jnp.float64(x0), "velocity": jnp.float64(v0)}, TABLE, h)
        v_out = -0.5 * v0
        np.testing.assert_allclose(float(new["velocity"]), v_out + g * h, rtol=1e-14)
        np.testing.assert_allclose(float(new["position"]), v_out * h + g * h * h / 2, rtol=1e-14)


@settings(max_examples=25, deadline=None)
@given(h=st.floats(0.01, 2.0), e=st.floats(0.0, 1.0), locate=st.booleans())
def test_position_never_below_table_after_contact(h, e, locate):
    with jax.enable_x64(True):
        ball = BallNode(initial_position=h, elasticity=e, locate_contact=locate)
        _, xs = _run(ball, ball.initial_state(), 1e-2, 300)
        assert float(jnp.min(xs)) >= 0.0


def _run(ball, s, dt, n):
    return jax.lax.scan(lambda c, _: (ball.update(c, TABLE, dt), c["position"]), s, None, length=n)


def test_located_contact_resting_ball_stays_and_gradients_finite():
    with jax.enable_x64(True):
        ball = BallNode(locate_contact=True)

        def final(x0):
            s = {"position": x0, "velocity": jnp.zeros_like(x0)}
            return _run(ball, s, 1e-3, 50)[0]["position"]

        assert float(final(jnp.float64(0.0))) == 0.0
        g = jax.grad(final)(jnp.float64(0.0))
        assert np.isfinite(float(g))


@pytest.mark.parametrize(
    "state, inputs, match",
    [
        ({"position": float("nan"), "velocity": 0.0}, TABLE, r"BallNode: state\['position'\] = nan is not allowed"),
        ({"position": "a", "velocity": 0.0}, TABLE, r"state\['position'\] = 'a' is not allowed"),
        ({"position": 1.0, "velocity": jnp.zeros(2)}, TABLE, r"state\['velocity'\] = .* expected a finite floating"),
        ({"position": 1.0, "velocity": 0}, TABLE, r"state\['velocity'\] = 0 is not allowed"),  # ints truncate
        ({"position": 1.0, "velocity": 1j}, TABLE, r"state\['velocity'\] = 1j"),
        ({"position": 1.0, "velocity": 0.0}, {"table_position": float("nan")},
         r"boundary_inputs\['table_position'\] = nan is not allowed"),
        ({"position": 1.0, "velocity": 0.0}, {"table_position": "a"}, r"boundary_inputs\['table_position'\] = 'a'"),
    ],
)
def test_update_checks_concrete_state_and_boundary_input_values(state, inputs, match):
    """F-MD-6 (fuzz): a NaN position gave a NaN state, a NaN table was ignored, 'a' raised a bare TypeError."""
    with pytest.raises(maddening.ValidationError, match=match):
        BallNode().update(state, inputs, 0.01)


def test_traced_state_and_inputs_pass_the_value_checks():
    """F-MD-6: the value checks skip tracers, so the update still traces (jit, grad in the state and table)."""
    ball = BallNode()
    out = jax.jit(lambda st, t: ball.update(st, {"table_position": t}, 0.01))(
        {"position": jnp.asarray(1.0), "velocity": jnp.asarray(0.0)}, 0.0)
    assert np.isfinite(float(out["position"]))
    assert float(ball.update(ball.initial_state(), {"table_position": -1}, 0.01)["velocity"]) == pytest.approx(-0.0981)
    dx = jax.grad(lambda x0: ball.update({"position": x0, "velocity": 0.0}, TABLE, 0.01)["position"])(1.0)
    assert float(dx) == pytest.approx(1.0)
