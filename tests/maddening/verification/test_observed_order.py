"""Observed order from an error ladder."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import maddening
from maddening.verification import observed_orders


@given(
    p=st.floats(0.5, 4.0),
    c=st.floats(1e-3, 1e3),
    ratio=st.floats(1.5, 4.0),
)
def test_recovers_the_order_of_a_power_law(p, c, ratio):
    dts = [0.1 / ratio**k for k in range(4)]
    ladder = observed_orders(dts, [c * dt**p for dt in dts])
    assert all(math.isclose(q, p, rel_tol=1e-9) for q in ladder.pairwise)
    assert math.isclose(ladder.finest, p, rel_tol=1e-9)


def test_rungs_table():
    ladder = observed_orders([0.2, 0.1], [4.0, 1.0], steps=[5, 10])
    rows = ladder.rungs()
    assert [r.steps for r in rows] == [5, 10]
    assert rows[0].order is None and rows[1].order == pytest.approx(2.0)


@pytest.mark.parametrize(
    "dts, errors, match",
    [([0.1], [1.0], "errors"), ([0.1, 0.05], [1.0, 0.0], "errors"), ([0.1, 0.1], [1.0, 0.5], "distinct")],
)
def test_bad_ladders_raise(dts, errors, match):
    with pytest.raises(maddening.ValidationError, match=match):
        observed_orders(dts, errors)
