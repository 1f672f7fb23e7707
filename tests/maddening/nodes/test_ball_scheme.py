"""The per-step scheme's references (ball_evidence.scheme_steps, scheme_drop) against BallNode, and the drop programs.

The book's ball-evidence page holds BallNode's default route to the seed's scheme stepped again in
NumPy and to its closed form; these tests hold the same for drops the page does not run.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import maddening
from maddening.nodes import ball_evidence as ev


@settings(max_examples=8, deadline=None)
@given(height=st.floats(0.2, 2.0), elasticity=st.floats(0.0, 1.0), dt=st.sampled_from([1e-3, 3e-3, 1e-2, 5e-2]))
def test_update_is_the_seeds_scheme_step_for_step(height, elasticity, dt):
    cases = [ev.DropCase(height=height, elasticity=elasticity, t_final=round(2.0 / dt) * dt, dt=dt)]
    ours = ev.sweep_trajectories(cases)[0]
    reference = ev.scheme_steps(cases)[0]
    assert np.max(np.abs(ours["x"] - reference["x"])) <= 1e-11
    assert np.max(np.abs(ours["v"] - reference["v"])) <= 1e-11


@settings(max_examples=8, deadline=None)
@given(height=st.floats(0.2, 2.0), elasticity=st.floats(0.2, 1.0), dt=st.sampled_from([1e-3, 3e-3, 1e-2]))
def test_the_closed_form_is_the_scheme(height, elasticity, dt):
    """scheme_drop's contact step, lateness, penetration and apex, read off the NumPy run."""
    case = ev.DropCase(height=height, elasticity=elasticity, t_final=round(2.0 / dt) * dt, dt=dt)
    closed = ev.scheme_drop(case)
    run = ev.scheme_steps([case])[0]
    n = closed["contact_step"]
    assert run["x"][n - 1] > 0 and run["x"][n] == 0.0 and run["v"][n] > 0  # seen at the end of step n*
    assert closed["late"] == pytest.approx(n * dt - math.sqrt(2 * height / case.gravity))
    assert 0 < closed["below"] <= case.gravity * n * dt * dt  # within one step of travel at impact
    bounces = np.nonzero((run["v"][:-1] < 0) & (run["v"][1:] >= 0))[0]
    end = bounces[1] + 1 if len(bounces) > 1 else len(run["x"])
    assert closed["apex"] == pytest.approx(run["x"][n:end].max(), abs=1e-12)


def test_many_drops_equal_one_at_a_time():
    """Blocks of DROP_BLOCK, the last one padded, give each drop what a call of its own gives."""
    cases = [ev.SEED_DROP.with_(dt=1e-3 / 2**k) for k in range(ev.DROP_BLOCK + 1)]
    many = ev.drop_gradients_many(cases)
    assert many[0] == ev.drop_gradients(cases[0])
    assert many[-1] == ev.drop_gradients(cases[-1])
    assert [m["x"] for m in many] == pytest.approx([ev.scheme_drop(c)["x"] for c in cases], abs=1e-11)


@pytest.mark.parametrize("cases, match", [
    ([], "cases = \\[\\] is not allowed"),
    (ev.SEED_DROP, "cases = DropCase"),
    ([ev.SEED_DROP.with_(t_final=4.0, dt=1e-4)], "a drop of 1 to STEP_CAPACITY = 32768 steps"),
])
def test_bad_drops_are_refused_by_name(cases, match):
    with pytest.raises(maddening.ValidationError, match=match):
        ev.drop_gradients_many(cases)
