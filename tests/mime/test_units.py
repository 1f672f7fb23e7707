"""Quantities: construction, SI conversion at the boundary, and refusals."""

import math

import numpy as np
import pytest

from mime import ValidationError
from mime.units import Length, Mass, Quantity, Time, as_si, kg, m, mm, ms, quantity, s, um, unit


def test_constructors_keep_the_written_value_and_unit():
    q = mm(0.1)
    assert (q.value, q.unit.symbol, q.dimension) == (0.1, "mm", Length)
    assert q.si(Length) == 0.1 * 1e-3
    assert um(250.0).si() == 250.0 * 1e-6
    assert s(2.0).dimension == Time and kg(3.0).dimension == Mass and ms(1.0).si() == 1e-3


@pytest.mark.parametrize("big, small", [
    ("m", "mm"), ("mm", "um"), ("um", "nm"), ("s", "ms"), ("kg", "g"), ("kN_per_m", "N_per_m"),
])
def test_each_prefix_is_a_thousandth_of_the_unit_above_it(big, small):
    """The SI prefixes, each a factor of a thousand: a thousand of the smaller unit is one of the larger,
    in the same dimension (every unit of the table is in one of these pairs, or is the dimensionless 1,
    or is N s/m)."""
    upper, lower = unit(big), unit(small)
    assert lower.dimension == upper.dimension
    assert quantity(1000.0, small).si(lower.dimension) == pytest.approx(quantity(1.0, big).si(upper.dimension), rel=1e-15)


def test_the_base_units_are_si_themselves():
    for symbol in ("m", "s", "kg", "1", "N_per_m", "N_s_per_m"):
        assert quantity(2.5, symbol).si() == 2.5, symbol


def test_every_unit_of_the_table_is_checked_above():
    from mime.units import UNITS

    assert set(UNITS) == {"m", "mm", "um", "nm", "s", "ms", "kg", "g", "1", "N_per_m", "kN_per_m", "N_s_per_m"}


def test_document_form_round_trips_exactly():
    for q in (mm(0.1), m(1e-7), um(3.0), quantity(0.30000000000000004, "mm")):
        doc = q.to_document()
        assert Quantity.from_document(doc) == q
        assert doc == {"unit": q.unit.symbol, "value": q.value}


def test_numpy_scalars_are_accepted_as_floats():
    assert mm(np.float64(0.5)).value == 0.5


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_values_are_refused(bad):
    with pytest.raises(ValidationError, match="finite"):
        mm(bad)


@pytest.mark.parametrize("bad", ["0.1", None, True, [1.0]])
def test_non_numbers_are_refused(bad):
    with pytest.raises(ValidationError, match="real number"):
        mm(bad)


def test_wrong_dimension_names_argument_and_both_dimensions():
    with pytest.raises(ValidationError) as err:
        s(1.0).si(Length, argument="margin")
    msg = str(err.value)
    assert "margin = s(1.0)" in msg and "length (m)" in msg and "time (s)" in msg


def test_bare_number_at_the_boundary_is_refused():
    with pytest.raises(ValidationError, match=r"margin = 0.1 is not allowed; expected a Quantity of dimension length"):
        as_si(0.1, Length, argument="margin")


def test_unknown_unit_lists_known_units():
    with pytest.raises(ValidationError, match="furlong.*expected one of.*mm"):
        unit("furlong")


@pytest.mark.parametrize("doc", [{"value": 1.0}, {"unit": "mm", "value": "1"}, 3.0, {"unit": "mm", "value": 1, "x": 2}])
def test_malformed_quantity_documents_are_refused(doc):
    with pytest.raises(ValidationError):
        Quantity.from_document(doc)
