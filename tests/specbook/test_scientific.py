"""``specbook.scientific`` writes a number in powers of ten that reads back as the number, rounded."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies as st

from specbook import scientific

_FROM_SUPERSCRIPTS = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def _read(text: str) -> float:
    """The number a reader reads from ``scientific``'s text."""
    sign = -1.0 if text.startswith("−") else 1.0
    text = text.lstrip("−")
    mantissa, _, power = text.rpartition("\u00a0×\u00a0") if "×" in text else ("1", "", text)
    assert power.startswith("10"), text
    return sign * float(mantissa) * 10.0 ** int(power[2:].translate(_FROM_SUPERSCRIPTS))


@given(st.floats(allow_nan=False, allow_infinity=False).filter(lambda v: v != 0.0 and 1e-300 < abs(v) < 1e300),
       st.integers(1, 6))
def test_it_reads_back_as_the_value_to_its_digits(value, digits):
    text = scientific(value, digits)
    assert " " not in text and "e" not in text  # unbroken, no e-notation
    assert math.isclose(_read(text), float(f"{value:.{digits - 1}e}"), rel_tol=1e-12)


def test_a_mantissa_of_one_is_left_out_and_zero_is_zero():
    assert scientific(1e-12, digits=1) == "10⁻¹²"
    assert scientific(-1e3, digits=1) == "−10³"
    assert scientific(1e-12) == "1.0\u00a0×\u00a010⁻¹²"
    assert scientific(0.0) == scientific(-0.0) == "0"


@pytest.mark.parametrize("digits", [0, -1, 1.5, True, "2"])
def test_it_refuses_digits_that_are_not_a_count(digits):
    with pytest.raises(ValueError, match=r"digits = .* is not allowed; expected a whole number of at least 1"):
        scientific(1.0, digits)
