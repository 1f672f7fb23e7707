"""MADD-VER-010: the observed temporal order of BallNode by manufactured solution, and MADD-ANO-011.

The node has no force input, so the manufactured acceleration of
x*(t) = 0.4 sin(2.5 t) + t + 2 is injected as a time-varying ``gravity``, sampled
at the start of each step. The error is the relative L2 norm of position and
velocity together at T = 1 s; the ladder is 100/200/400/800 steps, in float64.
"""

import jax
import pytest

from maddening import anomalies, verification
from maddening.core.simulation.integrators import integrate_node
from maddening.nodes import BallNode
from maddening.nodes.ball_evidence import ball_order_ladder


@pytest.fixture(scope="module")
def ladder():
    return ball_order_ladder((100, 200, 400, 800))


def test_observed_order_matches_declared(ladder):
    bench = verification.get("MADD-VER-010")
    assert abs(ladder.finest - BallNode.meta.order.temporal) <= bench.tolerance
    assert all(abs(p - BallNode.meta.order.temporal) <= bench.tolerance for p in ladder.pairwise)


def test_observed_order_reproduces_the_recorded_figure(ladder):
    reference = verification.get("MADD-VER-010").reference["observed_order_finest"]
    assert round(ladder.finest, 3) == reference


def test_errors_fall_monotonically(ladder):
    assert all(a > b for a, b in zip(ladder.errors, ladder.errors[1:]))


def test_located_contact_keeps_the_declared_order():
    ladder = ball_order_ladder((100, 200, 400, 800), locate_contact=True)
    assert abs(ladder.finest - BallNode.meta.order.temporal) <= 0.02


@pytest.mark.xfail(strict=True, reason="MADD-ANO-011: update() is semi-implicit Euler, the metadata says forward Euler")
def test_update_agrees_with_integrate_node_euler():
    assert anomalies.get("MADD-ANO-011").status == "open"
    with jax.enable_x64(True):
        ball = BallNode(initial_position=1.0, initial_velocity=0.5)
        state = ball.initial_state()
        own = ball.update(state, {}, 1e-3)
        euler = integrate_node(ball, state, {}, 1e-3, method="euler")
        assert float(own["position"]) == float(euler["position"])
        assert float(own["velocity"]) == float(euler["velocity"])


@pytest.mark.parametrize(
    "t_final, steps, match",
    [
        (0.1, True, r"mms_error: steps = True is not allowed; expected a whole number \(int\) >= 1"),
        (True, 4, r"mms_error: t_final = True is not allowed; expected a finite time > 0"),
        (float("inf"), 4, r"mms_error: t_final = inf is not allowed; expected a finite time > 0"),
    ],
)
def test_mms_error_refuses_bools_and_an_infinite_final_time(t_final, steps, match):
    """F-MD-5 (fuzz): bools passed as ints, and t_final=inf was reported as a bad dt by the node."""
    import maddening

    solution = verification.ManufacturedSolution(
        "free fall", lambda t: {"position": 1.0 - 4.905 * t**2, "velocity": -9.81 * t}, lambda t: {})
    with pytest.raises(maddening.ValidationError, match=match):
        verification.mms_error(BallNode(initial_position=1.0), solution, t_final, steps)


def test_midpoint_sampling_shows_each_routes_own_order():
    """Sampled mid-step the source is second order: the located route's exact flight is then the
    midpoint rule (order 2), the per-step route stays first order."""
    located = ball_order_ladder((100, 200, 400, 800), locate_contact=True, sample=0.5)
    per_step = ball_order_ladder((100, 200, 400, 800), sample=0.5)
    assert abs(located.finest - 2.0) <= 1e-4
    assert abs(per_step.finest - 1.0) <= 0.02


def test_a_ladder_is_its_rungs():
    """mms_ladder runs its rungs in one program; each rung's error is what mms_error gives alone."""
    solution = verification.ManufacturedSolution(
        "free fall", lambda t: {"position": 1.0 - 4.905 * t**2, "velocity": -9.81 * t}, lambda t: {"gravity": -9.81})
    with jax.enable_x64(True):
        ladder = verification.mms_ladder(BallNode(), solution, 0.5, (10, 20, 40))
        alone = [verification.mms_error(BallNode(), solution, 0.5, n) for n in (10, 20, 40)]
    assert list(ladder.errors) == pytest.approx(alone, rel=1e-12)


@pytest.mark.parametrize("sample", [-0.1, 1.5, float("nan"), True, "0.5"])
def test_a_sample_outside_the_step_is_refused(sample):
    import maddening

    solution = verification.ManufacturedSolution(
        "free fall", lambda t: {"position": 1.0 - 4.905 * t**2, "velocity": -9.81 * t}, lambda t: {})
    with pytest.raises(maddening.ValidationError, match=r"mms_error: sample = .* is not allowed; expected a fraction"):
        verification.mms_error(BallNode(), solution, 0.1, 4, sample=sample)


def test_either_end_of_the_step_is_a_sample_and_just_past_it_is_not():
    """``sample`` is a fraction of the step in ``[0, 1]``, both ends included: 1 samples each step's end. With
    constant parameters every sample gives the same run; the float just past 1 is refused."""
    import math

    import maddening

    solution = verification.ManufacturedSolution(
        "free fall", lambda t: {"position": 1.0 - 4.905 * t**2, "velocity": -9.81 * t}, lambda t: {"gravity": -9.81})
    with jax.enable_x64(True):
        errors = [verification.mms_error(BallNode(), solution, 0.5, 10, sample=s) for s in (0.0, 0.5, 1.0)]
        assert errors[0] > 0 and errors[1] == errors[0] and errors[2] == errors[0]
        with pytest.raises(maddening.ValidationError, match=r"sample = 1\.0000000000000002 is not allowed"):
            verification.mms_error(BallNode(), solution, 0.5, 10, sample=math.nextafter(1.0, 2.0))
