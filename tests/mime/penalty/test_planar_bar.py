"""PlanarBarNode on penalty supports: rest, wrench, frozen modes and measured frequencies (small size)."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from maddening.analysis import critical_step, numerical_frequency
from maddening.analysis.signals import crossing_frequency
from mime.errors import ValidationError
from mime.nodes.planar_bar import PlanarBarNode, run_bar


@pytest.fixture(scope="module")
def bar():
    return PlanarBarNode(supports=(-0.1, 0.1), stiffness=1e5, mass=2.0, inertia=0.005, preload=980.38)


def test_rest_is_an_equilibrium(bar):
    with jax.enable_x64(True):
        rest = bar.equilibrium()
        rates = bar.derivatives(rest, None)
        assert float(rest["y"]) == pytest.approx(-5e-3, rel=1e-12)
        assert abs(float(rates["y_rate"])) < 1e-9 and abs(float(rates["theta_rate"])) < 1e-9
        np.testing.assert_allclose(np.asarray(bar.support_forces(rest)), [500.0, 500.0], rtol=1e-12)


def test_wrench_torque_sign(bar):
    with jax.enable_x64(True):
        s = {**bar.equilibrium(), "theta": 0.01}
        _, tau = bar.wrench(s)
        assert float(tau) < 0  # raising the +r end unloads it: the torque pushes it back down


@pytest.mark.parametrize("theta", [0.0, 0.3, -1.1])
def test_each_supports_velocity_is_the_rate_of_its_position(theta):
    """The supports' velocities (what a damper reads) are the time derivative of their positions along the
    state's rates, taken here by forward-mode differentiation of ``support_points``'s positions alone."""
    bar = PlanarBarNode(supports=(-0.1, 0.05, 0.2), stiffness=1e5)
    with jax.enable_x64(True):
        state = {"y": jnp.float64(-2e-3), "theta": jnp.float64(theta), "y_rate": jnp.float64(0.4),
                 "theta_rate": jnp.float64(-3.0)}

        def positions(y, th):
            return bar.support_points({**state, "y": y, "theta": th})[0]

        _, rate = jax.jvp(positions, (state["y"], state["theta"]), (state["y_rate"], state["theta_rate"]))
        np.testing.assert_allclose(np.asarray(bar.support_points(state)[1]), np.asarray(rate), rtol=1e-14, atol=1e-17)


@pytest.mark.parametrize("supports, gravity", [((0.05, 0.2), -9.81), ((-0.1, 0.1), 9.81)],
                         ids=["both supports on one side of the centre", "gravity pointing up"])
def test_a_rest_that_would_leave_a_support_pulling_or_the_bar_unloaded_is_refused(supports, gravity):
    """Linear springs balance any load, but a support can only push: with both supports on one side of the
    centre, the level rest's moment balance needs one of them pulling (its gap open), and an upward load
    needs both; either way there is no rest on the supports, and ``equilibrium`` says so."""
    bar = PlanarBarNode(supports=supports, gravity=gravity)
    with pytest.raises(ValidationError, match=r"equilibrium: load = .* is not allowed; expected a downward load "
                                              r"\(N\) that keeps every support compressed"):
        bar.equilibrium()


def test_frozen_modes_of_the_bar(bar):
    modes = bar.frozen_modes()
    np.testing.assert_allclose(modes.frequencies, [math.sqrt(1e5), math.sqrt(4e5)], rtol=1e-12)


@pytest.mark.parametrize("mode", ["translation", "rocking"])
def test_measured_frequency_matches_the_frozen_prediction(bar, mode):
    with jax.enable_x64(True):
        rest = {k: float(v) for k, v in bar.equilibrium().items()}
    h = 1e-4
    start = {**rest, "theta": 1e-3} if mode == "rocking" else {**rest, "y": rest["y"] + 1e-4}
    run = run_bar(bar, h, 400, state0=start)
    g = run["gaps"]
    signal = (g[:, 1] - g[:, 0]) / 2 if mode == "rocking" else (g[:, 0] + g[:, 1]) / 2
    w = bar.frozen_modes().frequencies[1 if mode == "rocking" else 0]
    measured = crossing_frequency(run["time"], signal)
    assert measured == pytest.approx(numerical_frequency("central_difference", w, h), rel=2e-4)
    assert measured == pytest.approx(w, rel=5e-3)


def test_critical_step_separates_bounded_from_growing(bar):
    with jax.enable_x64(True):
        rest = {k: float(v) for k, v in bar.equilibrium().items()}
    hc = critical_step("central_difference", bar.jacobian(), bar.mass_matrix(), bar.stiffness)
    below = run_bar(bar, 0.98 * hc, 60, state0={**rest, "theta": 1e-6})
    above = run_bar(bar, 1.02 * hc, 60, state0={**rest, "theta": 1e-6})
    rock = lambda r: np.abs(r["gaps"][:, 1] - r["gaps"][:, 0]).max()
    assert rock(below) < 1e-6
    assert rock(above) > 1e-3


def test_a_third_support_is_redundant():
    bar3 = PlanarBarNode(supports=(-0.1, 0.0, 0.1), stiffness=(1e5, 2e5, 1e5))
    assert bar3.frozen_modes().redundant == 1


@pytest.mark.parametrize("kw,argument", [
    ({"supports": (0.1,)}, "supports"),
    ({"stiffness": -1.0}, "stiffness"),
    ({"stiffness": (1.0, 2.0, 3.0)}, "stiffness"),
    ({"damping": -0.1}, "damping"),
    ({"mass": 0.0}, "mass"),
    ({"theta": float("nan")}, "theta"),
])
def test_bad_construction_names_the_argument(kw, argument):
    with pytest.raises(ValidationError, match=f"{argument} = "):
        PlanarBarNode(**kw)


def test_run_bar_refuses_bad_steps(bar):
    with pytest.raises(ValidationError, match="dt = "):
        run_bar(bar, 0.0, 10)
    with pytest.raises(ValidationError, match="method = "):
        run_bar(bar, 1e-4, 10, method="rk4")
