"""The annotated signature is the declaration: validation and the parameter table read it."""

import inspect
import re

import pytest

from skcomplex import FiniteSet, RealSet, ReflectionInteraction, describe_parameters
from skcomplex.core import ParameterSpec, RoleSpec


def test_signature_is_the_seed_signature():
    text = re.sub(r"\b(typing|types|collections\.abc)\.", "", str(inspect.signature(ReflectionInteraction)))
    assert text == (
        "(label: str, *, target: Annotated[str, RoleSpec()], guard: Callable[[SimpleNamespace], object], "
        "positions: Sequence[str] = ('x',), velocities: Sequence[str] = ('x_d1',), direction: int = 0, "
        "restitution: Annotated[float, ParameterSpec(domain=closed(0, 1))] = 1.0, "
        "region: Callable[[SimpleNamespace], object] | None = None) -> None"
    )


def test_parameter_table_rows_come_from_the_signature():
    rows = {p.name: p for p in describe_parameters(ReflectionInteraction)}
    assert list(rows) == ["label", "target", "guard", "positions", "velocities", "direction", "restitution",
                          "region"]
    assert isinstance(rows["target"].spec, RoleSpec) and rows["target"].required
    assert rows["restitution"].domain_text == "[0, 1]" and rows["restitution"].default == 1.0
    # direction is declared once, on CrossingInteraction, and inherited
    assert rows["direction"].domain_text == "{-1, 0, 1}"
    assert rows["region"].domain_text == "callable or None"
    assert all(p.description for p in rows.values())


def test_a_parameters_description_is_its_whole_docstring_entry():
    """An ``Args:`` entry that runs over several lines is read whole, its lines joined (the page's table shows it),
    and the type written beside a name (``restitution (float):``) is not part of the description."""
    rows = {p.name: p.description for p in describe_parameters(ReflectionInteraction)}
    assert rows["restitution"] == ("The coefficient of restitution, the ratio of the normal speed after the "
                                   "reflection to the normal speed before it.")
    assert rows["region"] == ("The function ``region(namespace)`` that holds on the part of the surface that "
                              "reflects, or None for a wall on the whole surface.")
    assert rows["target"] == "The label of the element that bounces."


def test_parameters_feed_the_traced_tree():
    wall = ReflectionInteraction("wall", target="ball", guard=lambda s: s.target.x, restitution=0.3)
    assert wall.parameters() == {"restitution": 0.3}
    assert wall.roles() == {"target": "ball"}


@pytest.mark.parametrize(
    "interval, inside, outside, text",
    [
        (RealSet.closed(0, 1), [0, 1, 0.5], [-1e-9, 1.1], "[0, 1]"),
        (RealSet.open(0, 1), [0.5], [0, 1], "(0, 1)"),
        (RealSet.closed_open(0, 1), [0], [1], "[0, 1)"),
        (RealSet.open_closed(0, 1), [1], [0], "(0, 1]"),
        (RealSet.at_least(2), [2, 1e300], [1.9], "[2, inf)"),
        (RealSet.reals(), [-1e300, 0], [float("nan"), float("inf")], "(-inf, inf)"),
    ],
)
def test_real_sets(interval, inside, outside, text):
    assert all(x in interval for x in inside)
    assert not any(x in interval for x in outside)
    assert str(interval) == text


def test_finite_set_rejects_flags_and_strangers():
    directions = FiniteSet(-1, 0, 1)
    assert 0 in directions and True not in directions and "1" not in directions and 3 not in directions
    with pytest.raises(ValueError):
        RealSet(1.0, 0.0)
    assert repr(ParameterSpec(domain=directions)) == "ParameterSpec(domain=FiniteSet(-1, 0, 1))"
