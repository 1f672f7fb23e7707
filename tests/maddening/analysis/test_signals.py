"""Reading event times, frequencies and growth off sampled series (``maddening.analysis.signals``)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import maddening
from maddening.analysis.signals import crossing_frequency, growth_per_step, zero_crossings

T = np.arange(5.0)
ON_ZERO = np.array([-1.0, 0.0, 1.0, 0.0, -1.0])
"""A series that reaches zero exactly on a sample, rising at t = 1 and falling at t = 3."""


@pytest.mark.parametrize("direction, times", [(1, [1.0]), (-1, [3.0]), (0, [1.0, 3.0])])
def test_a_zero_on_a_sample_is_one_crossing_at_that_sample(direction, times):
    """A sign change through an exact zero is counted once, at the sample on zero: by the interval that ends
    there, not again by the one that starts there."""
    assert zero_crossings(T, ON_ZERO, direction=direction).tolist() == times


@settings(max_examples=50, deadline=None)
@given(st.floats(-0.9, 0.9), st.floats(0.1, 10.0))
def test_a_line_crosses_where_it_is_zero(level, slope):
    """Linear interpolation is exact on a line: ``slope (t - 2 - level)`` on the samples 0..4 crosses at ``2 + level``."""
    rising = slope * (T - 2.0 - level)
    (up,) = zero_crossings(T, rising, direction=1)
    (down,) = zero_crossings(T, -rising, direction=-1)
    assert up == pytest.approx(2.0 + level, rel=1e-13, abs=1e-13)
    assert down == pytest.approx(2.0 + level, rel=1e-13, abs=1e-13)
    assert zero_crossings(T, rising, direction=-1).size == 0


@pytest.mark.parametrize("ratio", [0.5, 0.999, 1.0, 1.7])
def test_growth_per_step_of_a_geometric_series_is_its_ratio(ratio):
    assert growth_per_step(3.0 * ratio ** np.arange(40)) == pytest.approx(ratio, rel=1e-13)


def test_crossing_frequency_counts_periods_between_its_first_and_last_rising_crossing():
    """Five whole periods of ``cos`` at 2 rad/s, sampled finely: the frequency to the interpolation's error."""
    t = np.linspace(0.0, 5 * math.pi, 20001)
    assert crossing_frequency(t, np.cos(2.0 * t) + 0.3) == pytest.approx(2.0, rel=1e-7)


@pytest.mark.parametrize("call, named", [
    (lambda: zero_crossings(T, ON_ZERO, direction=2), "direction"),
    (lambda: crossing_frequency(T, ON_ZERO), "x"),
    (lambda: growth_per_step([1.0, 0.0]), "amplitude"),
    (lambda: growth_per_step([1.0]), "amplitude"),
])
def test_bad_input_raises_naming_the_argument(call, named):
    with pytest.raises(maddening.ValidationError, match=named):
        call()
