"""The constraints tables: each constraint accepts what it describes and refuses the rest,
each table covers its constructor's (or method's) parameters, and the classes really check them."""

from __future__ import annotations

import inspect
import math

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skcomplex
from skcomplex import (
    ContinuousSpace,
    Interaction,
    PointElement,
    ReflectionInteraction,
    Simulation,
    System,
    ValidationError,
    describe_parameters,
)
from skcomplex._constraints import (
    Boolean,
    InstanceOf,
    Interval,
    IsNone,
    Satisfies,
    SequenceOf,
    allowed_text,
    check_params,
    constraints_of,
)
from skcomplex.core.sets import RealSet

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True)


def ball():
    return PointElement("ball", x=[0.0, 0.0], x_d1=[1.0, 0.0])


def wall():
    return ReflectionInteraction("wall", target="ball", guard=lambda s: s.target.x[0] - 1.0, direction=1)


def system():
    return System([ball()], [wall()], ContinuousSpace(2))


# Every class or method that declares a table, with a valid call to vary one argument of.
TABLED = {
    "Simulation": (Simulation, lambda **kw: Simulation(**{"system": system(), "dt": 0.1, **kw})),
    "Simulation.run": (Simulation.run, lambda **kw: Simulation(system(), dt=0.1).run(**{"until": 0.0, **kw})),
    "Simulation.step_function": (Simulation.step_function,
                                 lambda **kw: Simulation(system(), dt=0.1).step_function(
                                     **{"differentiable": False, "batched": True, **kw})),
    "ContinuousSpace": (ContinuousSpace, lambda **kw: ContinuousSpace(**{"n_dim": 2, **kw})),
    "System": (System, lambda **kw: System(**{"elements": [ball()], "interactions": [wall()],
                                              "space": ContinuousSpace(2), **kw})),
    "PointElement": (PointElement, lambda **kw: PointElement(**{"label": "ball", "x": 0.0, **kw})),
}

# Public classes that declare no constraints table, and why.
UNTABLED = {
    "Interaction", "CrossingInteraction", "ReflectionInteraction",  # the annotated signature is the declaration
    "Trajectory", "Event",  # built by Simulation.run, never by a user
    "RealSet", "FiniteSet", "ParameterSpec", "RoleSpec",  # the declaration vocabulary of interactions
    "ValidationError", "EventLimitError", "RestingContactError",  # errors
}


def _constraints():
    seen = []
    for _, (owner, _) in TABLED.items():
        for row in constraints_of(owner).values():
            seen.extend(c for c in row if c not in seen)
    return seen


# ------------------------------------------------------------------ values inside and outside

OPAQUE = st.sampled_from([None, "1", b"1", 1j, {"a": 1}, object(), np.zeros(2), [1.0], True, False])


def _interval_values(interval: Interval, inside: bool) -> st.SearchStrategy:
    low = -math.inf if interval.low is None else interval.low
    high = math.inf if interval.high is None else interval.high
    low_in = interval.closed in ("left", "both") and interval.low is not None
    high_in = interval.closed in ("right", "both") and interval.high is not None
    if inside:
        if interval.kind is int:
            return st.integers(min_value=None if interval.low is None else math.ceil(low) + (not low_in),
                               max_value=None if interval.high is None else math.floor(high) - (not high_in))
        return st.floats(min_value=low, max_value=high, exclude_min=not low_in, exclude_max=not high_in,
                         allow_nan=False, allow_infinity=False)
    outside = [OPAQUE, st.sampled_from([math.nan, math.inf, -math.inf])]
    if interval.low is not None:
        outside.append(st.floats(max_value=low, exclude_max=low_in, allow_nan=False, allow_infinity=False))
        outside.append(st.integers(max_value=math.ceil(low) - (1 if low_in or low != math.ceil(low) else 0)))
    if interval.high is not None:
        outside.append(st.floats(min_value=high, exclude_min=high_in, allow_nan=False, allow_infinity=False))
    if interval.kind is int:
        outside.append(st.floats(allow_nan=False, allow_infinity=False))  # a float is never an int here
    return st.one_of(outside)


def _mesh() -> jax.sharding.Mesh:
    return jax.make_mesh((1,), ("batch",))


def values(constraint, inside: bool) -> st.SearchStrategy:
    """Values ``constraint`` must accept (``inside``) or refuse; a new constraint type fails here until added."""
    if isinstance(constraint, Interval):
        return _interval_values(constraint, inside)
    if isinstance(constraint, IsNone):
        return st.none() if inside else OPAQUE.filter(lambda v: v is not None)
    if isinstance(constraint, Boolean):
        return st.booleans() if inside else st.one_of(st.integers(), st.floats(), st.sampled_from([None, "True"]))
    if isinstance(constraint, InstanceOf):
        good = {System: st.builds(system), ContinuousSpace: st.integers(1, 4).map(ContinuousSpace)}
        return good[constraint.cls] if inside else OPAQUE
    if isinstance(constraint, SequenceOf):
        item = {PointElement: st.builds(ball), Interaction: st.builds(wall)}[constraint.cls]
        if inside:
            return st.one_of(st.lists(item, max_size=3), st.lists(item, max_size=3).map(tuple))
        return st.one_of(OPAQUE.filter(lambda v: not isinstance(v, np.ndarray)),
                         st.lists(item, max_size=2).map(lambda xs: [*xs, object()]),
                         st.sampled_from(["ball", b"ab"]))
    if isinstance(constraint, Satisfies):
        if constraint.text == "a non-empty identifier":
            return (st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,8}\Z") if inside
                    else st.sampled_from(["", "1ball", "a b", "ball.x", None, 3, b"ball"]))
        if constraint.text.startswith("a jax.sharding.Mesh"):
            return st.builds(_mesh) if inside else st.sampled_from([4, "cpu", [0, 1], jax.devices()[0]])
    raise AssertionError(f"no test values for the constraint {constraint!r}")


@pytest.mark.parametrize("constraint", _constraints(), ids=str)
@PROPERTY
@given(data=st.data())
def test_every_declared_constraint_accepts_inside_and_refuses_outside(constraint, data):
    assert constraint.accepts(data.draw(values(constraint, inside=True), label="inside"))
    assert not constraint.accepts(data.draw(values(constraint, inside=False), label="outside"))


INTERVALS = st.builds(
    lambda kind, a, b, closed, drop: Interval(kind, None if drop == "low" else min(a, b),
                                              None if drop == "high" else max(a, b), closed),
    st.sampled_from([int, float]), st.integers(-5, 5), st.integers(-5, 5),
    st.sampled_from(["left", "right", "both", "neither"]), st.sampled_from([None, "low", "high"]))


@PROPERTY
@given(interval=INTERVALS, x=st.one_of(st.integers(-8, 8), st.floats(-8, 8), st.sampled_from([-0.0, 0.5])))
def test_interval_agrees_with_real_set(interval, x):
    """Membership of a number in an Interval is membership in the same RealSet (an independent implementation)."""
    low = -math.inf if interval.low is None else interval.low
    high = math.inf if interval.high is None else interval.high
    same = RealSet(low, high, interval.closed in ("left", "both"), interval.closed in ("right", "both"))
    expected = (x in same) and (isinstance(x, int) or interval.kind is float)
    assert interval.accepts(x) == expected


@PROPERTY
@given(interval=INTERVALS)
def test_interval_refuses_flags_and_non_finite_numbers(interval):
    for value in (True, False, math.nan, math.inf, -math.inf, "1", None):
        assert not interval.accepts(value)
    if interval.kind is float:  # too large for a float: refused, not an OverflowError
        assert not interval.accepts(10**400) and not interval.accepts(-(10**400))


def test_interval_text_states_the_bounds():
    assert str(Interval(float, 0, None, closed="neither")) == "a finite number > 0"
    assert str(Interval(float, 0, None, closed="left")) == "a finite number >= 0"
    assert str(Interval(int, 1, None, closed="left")) == "an int >= 1"
    assert str(Interval(float, None, 2, closed="right")) == "a finite number <= 2"
    assert str(Interval(float, 0, 1, closed="left")) == "a finite number in [0, 1)"
    assert str(Interval(int, None, None)) == "an int"
    for bad in ({"kind": complex, "low": 0, "high": 1}, {"kind": int, "low": 2, "high": 1},
                {"kind": int, "low": 0, "high": 1, "closed": "open"}):
        with pytest.raises(ValueError):
            Interval(**bad)


def test_a_row_allows_a_value_that_any_of_its_constraints_accepts():
    row = [IsNone(), Interval(int, 1, None, closed="left")]
    check_params("f", {"capacity": row}, {"capacity": None, "other": object()})
    check_params("f", {"capacity": row}, {"capacity": 3})
    with pytest.raises(ValidationError) as error:
        check_params("f", {"capacity": row}, {"capacity": 0})
    assert str(error.value) == "f: capacity must be None or an int >= 1, got 0"


# ------------------------------------------------------------------ the tables and the classes


def _parameters(owner) -> list[str]:
    signature = inspect.signature(owner)  # a class: its constructor without self
    names = [n for n, p in signature.parameters.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return names[1:] if not isinstance(owner, type) else names


@pytest.mark.parametrize("name", list(TABLED))
def test_each_table_covers_every_parameter(name):
    owner, _ = TABLED[name]
    table = constraints_of(owner)
    assert table is not None, f"{name} declares no constraints table"
    assert list(table) == _parameters(owner), f"{name}: the table's rows differ from the signature's parameters"
    assert all(table.values()), f"{name}: a row with no constraint allows nothing"


def test_every_public_class_has_a_table_or_a_reason():
    public = {n for n in skcomplex.__all__ if isinstance(getattr(skcomplex, n), type)}
    tabled = {n for n in TABLED if "." not in n}
    assert public == tabled | UNTABLED, f"classes neither tabled nor exempt: {sorted(public - tabled - UNTABLED)}"
    assert all(issubclass(getattr(skcomplex, n), Interaction) for n in ("CrossingInteraction", "ReflectionInteraction"))


@pytest.mark.parametrize("name", list(TABLED))
@settings(max_examples=15, deadline=None, derandomize=True)
@given(data=st.data())
def test_each_class_refuses_what_its_table_refuses(name, data):
    """The wiring: a value outside every constraint of its row, passed for real, raises the table's message."""
    owner, call = TABLED[name]
    table = constraints_of(owner)
    parameter = data.draw(st.sampled_from(sorted(table)), label="parameter")
    row = table[parameter]
    value = data.draw(st.one_of([values(c, inside=False) for c in row]), label="value")
    if any(c.accepts(value) for c in row):  # outside one constraint, inside another
        return
    with pytest.raises(ValidationError) as error:
        call(**{parameter: value})
    assert str(error.value) == f"{name}: {parameter} must be {allowed_text(row)}, got {value!r}"


def test_simulation_parameter_table_reads_the_declaration():
    rows = {p.name: p for p in describe_parameters(Simulation)}
    assert list(rows) == ["system", "dt", "max_events", "subdivisions", "iterations"]
    assert rows["dt"].domain_text == "a finite number > 0" and rows["dt"].required
    assert rows["max_events"].domain_text == "an int >= 1" and rows["max_events"].default == 16
    assert all(p.description for p in rows.values())


def test_a_call_that_does_not_fit_the_signature_keeps_pythons_error():
    with pytest.raises(TypeError, match=r"ContinuousSpace.__init__\(\) got an unexpected keyword argument 'foo'"):
        ContinuousSpace(2, foo=1)
    with pytest.raises(TypeError, match=r"missing 1 required positional argument: 'until'"):
        Simulation(system(), dt=0.1).run()
