"""Bad input to the penalty rung's public entry points: a clear ValidationError naming the argument."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mime import Contact, ValidationError, mm
from mime.geometry import PointSet
from mime.interactions._penalty import plan_penalty
from mime.nodes import RigidInertialNode
from mime.nodes.planar_bar import PlanarBarNode
from mime.penalty_bar import bar_experiment
from mime.scene import Floor
from mime.units import N_per_m, N_s_per_m, kg, s

NOT_A_QUANTITY = st.one_of(st.floats(allow_nan=True), st.integers(), st.text(max_size=3), st.just(b"1"),
                           st.just(1j), st.just(True), st.lists(st.floats(), max_size=2))
WRONG_DIMENSION = st.sampled_from([mm(1.0), s(1.0), kg(1.0)])


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(["stiffness", "damping"]), value=st.one_of(NOT_A_QUANTITY, WRONG_DIMENSION))
def test_spring_settings_that_are_not_their_quantity_are_refused(name, value):
    kwargs = {"margin": mm(0.1), "stiffness": N_per_m(1e5), name: value}
    with pytest.raises(ValidationError, match=f"{name} = "):
        Contact.Penalty(**kwargs)


@settings(max_examples=40, deadline=None)
@given(k=st.floats(max_value=0.0, allow_nan=False, allow_infinity=False),
       c=st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False))
def test_out_of_domain_springs_are_refused(k, c):
    with pytest.raises(ValidationError, match="stiffness = "):
        Contact.Penalty(margin=mm(0.1), stiffness=N_per_m(k))
    with pytest.raises(ValidationError, match="damping = "):
        Contact.Penalty(margin=mm(0.1), stiffness=N_per_m(1e5), damping=N_s_per_m(c))


@settings(max_examples=40, deadline=None)
@given(value=st.one_of(st.floats(allow_nan=True), st.text(max_size=3), st.just(None), st.just(True), st.just(1j),
                       st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=4)))
def test_plan_penalty_refuses_bad_numbers(value):
    body = RigidInertialNode(PointSet([(0.1, 0.0, 0.0)]), mass=1.0, inertia=(1.0, 1.0, 1.0))
    good = isinstance(value, float) and math.isfinite(value) and value > 0
    for name in ("stiffness", "damping", "margin"):
        kwargs = {"stiffness": 1e5, "points": [[0.1, 0.0, 0.0]], name: value}
        if good or (name != "stiffness" and isinstance(value, float) and value == 0.0):
            plan_penalty(body=body, surface=Floor().surface, **kwargs)  # a valid value plans
            continue
        with pytest.raises(ValidationError, match=f"{name} = "):
            plan_penalty(body=body, surface=Floor().surface, **kwargs)


@settings(max_examples=40, deadline=None)
@given(points=st.one_of(
    st.lists(st.lists(st.floats(), min_size=0, max_size=4), max_size=3),
    st.text(max_size=4),
    st.just(np.zeros((2, 3))),
    st.just([[complex(1, 1), 0.0, 0.0]]),
))
def test_point_sets_refuse_what_is_not_finite_points(points):
    try:
        array = np.asarray(points, dtype=np.float64)
        valid = array.ndim == 2 and array.shape[1:] == (3,) and array.shape[0] >= 1 and np.all(np.isfinite(array)) and np.any(array)
    except (TypeError, ValueError):
        valid = False
    if isinstance(points, str):
        valid = False
    if valid:
        assert PointSet(points).points.shape == array.shape
    else:
        with pytest.raises(ValidationError, match="points = "):
            PointSet(points)


@pytest.mark.parametrize("margin", [s(1.0), 1e-6, "1 um", kg(1.0)])
def test_bar_experiment_refuses_a_margin_that_is_not_a_length(margin):
    with pytest.raises(ValidationError, match="margin = "):
        bar_experiment(PlanarBarNode(), margin=margin)
