"""The tolerance a stated reference figure carries: half a unit in its last printed digit."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maddening import ValidationError
from maddening.verification import get, half_unit_of_last_digit


@given(st.floats(min_value=1e-290, max_value=1e290) | st.floats(min_value=-1e290, max_value=-1e-290))
def test_half_unit_is_half_the_place_of_the_last_printed_digit(value):
    # Decimal reads the figure as printed, exponent or not: its exponent is the place of the last digit
    place = Decimal(repr(value)).as_tuple().exponent
    assert half_unit_of_last_digit(value) == pytest.approx(0.5 * 10.0**place, rel=1e-12)


@pytest.mark.parametrize("value, half", [(1.002, 5e-4), (3.0, 0.05), (12, 0.5), (1.5e-05, 5e-07), (2e20, 5e19),
                                         (-4.25e-08, 5e-11)])
def test_figures_with_and_without_an_exponent(value, half):
    assert half_unit_of_last_digit(value) == pytest.approx(half, rel=1e-12)


def test_a_small_figure_gets_a_tolerance_of_its_own_scale():
    # 1.5e-05 printed with an exponent: a tolerance of 0.5 would let any value in [-0.5, 0.5] match it
    figure = 1.5e-05
    half = half_unit_of_last_digit(figure)
    assert half < 1e-6
    assert float(f"{figure + 0.9 * half:.1e}") == figure
    assert float(f"{figure + 1.1 * half:.1e}") != figure


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, True, "1.0", None])
def test_a_value_with_no_last_digit_is_refused_by_name(bad):
    with pytest.raises(ValidationError, match=r"half_unit_of_last_digit: value = .* is not allowed; expected a finite"):
        half_unit_of_last_digit(bad)


def test_the_ball_pages_reference_tolerance_is_read_from_its_figure():
    bench = get("MADD-VER-010")
    assert bench.reference["observed_order_finest"] == 1.002
    assert bench.reference_tolerance("observed_order_finest") == pytest.approx(5e-4, rel=1e-12)


def test_relative_l2_is_the_whole_error_over_the_whole_exact_state():
    """``relative_l2`` takes every field together: ``|y - y*| / |y*|`` over all their components, the
    exact state's norm below (not the computed one's)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    from maddening.verification import relative_l2

    with jax.enable_x64(True):
        state = {"position": jnp.array([3.0, 0.0]), "velocity": jnp.array(1.0)}
        exact = {"position": jnp.array([4.0, 0.0]), "velocity": jnp.array(3.0)}
        # error (-1, 0, -2): |e| = sqrt(5); exact (4, 0, 3): |y*| = 5
        assert float(relative_l2(state, exact)) == pytest.approx(math.sqrt(5.0) / 5.0, rel=1e-15)
        rng = np.random.default_rng(2)
        y, y_star = rng.normal(size=7), rng.normal(size=7)
        split = {"a": jnp.asarray(y[:3]), "b": jnp.asarray(y[3:])}, {"a": jnp.asarray(y_star[:3]), "b": jnp.asarray(y_star[3:])}
        assert float(relative_l2(*split)) == pytest.approx(np.linalg.norm(y - y_star) / np.linalg.norm(y_star), rel=1e-14)
