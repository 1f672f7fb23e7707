"""Declared constraints on parameters, checked by one function, after scikit-learn's idea.

A class declares what its constructor accepts as one table,
``_parameter_constraints = {name: [constraint, ...]}``, and decorates its
``__init__`` with :func:`validate_params`; a method declares its own table in
the decorator. A value is allowed when *any* constraint of its list accepts
it, so ``[IsNone(), Interval(int, 1, None, closed="left")]`` reads "None or an
int >= 1". The one check, :func:`check_params`, raises
:class:`skcomplex.exceptions.ValidationError` with the library's message,
``"<where>: <name> must be <allowed>, got <value!r>"``, where ``<allowed>`` is
the constraints' own descriptions joined by " or ". The same descriptions fill
the parameter table of the book (``skcomplex.describe_parameters``), so what
is checked and what is documented cannot drift apart.

Checks that relate several parameters (``batched=True`` needs
``differentiable=False``) stay in the method that needs them, after the table.

>>> table = {"dt": [Interval(float, 0, None, closed="neither")]}
>>> check_params("Simulation", table, {"dt": 0.5})
>>> check_params("Simulation", table, {"dt": 0.0})
Traceback (most recent call last):
...
skcomplex.exceptions.ValidationError: Simulation: dt must be a finite number > 0, got 0.0
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from skcomplex.exceptions import ValidationError

__all__ = [
    "Boolean",
    "Constraint",
    "InstanceOf",
    "Interval",
    "IsNone",
    "Satisfies",
    "SequenceOf",
    "allowed_text",
    "check_params",
    "constraints_of",
    "validate_params",
]


class Constraint(Protocol):
    """What a constraint is: a test of one value, and its description in words (``str``)."""

    def accepts(self, value: Any) -> bool: ...


def _number(value: Any) -> bool:
    """A Python ``int`` or ``float`` (NumPy's float64 is one), never a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value: int | float) -> bool:
    """Finite as a float: an int too large for a float (``10**400``) is not."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


@dataclass(frozen=True)
class Interval:
    """A finite number (``kind=float``) or an int (``kind=int``) between two bounds.

    ``low`` and ``high`` are the bounds, ``None`` for none; ``closed`` says
    which bounds are allowed themselves: ``"left"``, ``"right"``, ``"both"`` or
    ``"neither"``. ``float`` accepts a Python ``int`` or ``float`` that is
    finite; ``int`` accepts a Python ``int``. Neither accepts a bool.

    >>> step = Interval(float, 0, None, closed="neither")
    >>> str(step), step.accepts(0.1), step.accepts(0), step.accepts(math.inf), step.accepts(True)
    ('a finite number > 0', True, False, False, False)
    >>> str(Interval(int, 1, None, closed="left")), str(Interval(float, 0, 1, closed="both"))
    ('an int >= 1', 'a finite number in [0, 1]')
    """

    kind: type
    low: float | None
    high: float | None
    closed: Literal["left", "right", "both", "neither"] = "both"

    def __post_init__(self) -> None:
        if self.kind not in (int, float):
            raise ValueError(f"Interval: kind must be int or float, got {self.kind!r}")
        if self.closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"Interval: closed must be 'left', 'right', 'both' or 'neither', got {self.closed!r}")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"Interval: low must be <= high, got low={self.low!r}, high={self.high!r}")

    def accepts(self, value: Any) -> bool:
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                return False
        elif not _number(value) or not _finite(value):
            return False
        if self.low is not None:
            if value < self.low or (value == self.low and self.closed not in ("left", "both")):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and self.closed not in ("right", "both")):
                return False
        return True

    def __str__(self) -> str:
        noun = "an int" if self.kind is int else "a finite number"
        low_in, high_in = self.closed in ("left", "both"), self.closed in ("right", "both")
        if self.low is not None and self.high is not None:
            return f"{noun} in {'[' if low_in else '('}{self.low}, {self.high}{']' if high_in else ')'}"
        if self.low is not None:
            return f"{noun} {'>=' if low_in else '>'} {self.low}"
        if self.high is not None:
            return f"{noun} {'<=' if high_in else '<'} {self.high}"
        return noun


@dataclass(frozen=True)
class IsNone:
    """``None`` itself, for an optional parameter.

    >>> str(IsNone()), IsNone().accepts(None), IsNone().accepts(0)
    ('None', True, False)
    """

    def accepts(self, value: Any) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"


@dataclass(frozen=True)
class Boolean:
    """``True`` or ``False`` (a bool, not a number that is 0 or 1).

    >>> str(Boolean()), Boolean().accepts(False), Boolean().accepts(1)
    ('a bool', True, False)
    """

    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool)

    def __str__(self) -> str:
        return "a bool"


@dataclass(frozen=True)
class InstanceOf:
    """An instance of ``cls``, described by the class's name.

    >>> str(InstanceOf(float)), InstanceOf(float).accepts(1.0), InstanceOf(float).accepts("1.0")
    ('a float', True, False)
    """

    cls: type

    def accepts(self, value: Any) -> bool:
        return isinstance(value, self.cls)

    def __str__(self) -> str:
        return f"a {self.cls.__name__}"


@dataclass(frozen=True)
class SequenceOf:
    """A sequence (a list, a tuple; not a str) whose every item is an instance of ``cls``.

    >>> items = SequenceOf(int)
    >>> str(items), items.accepts([1, 2]), items.accepts(()), items.accepts([1, "2"]), items.accepts("12")
    ('a sequence of int instances', True, True, False, False)
    """

    cls: type

    def accepts(self, value: Any) -> bool:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            return False
        return all(isinstance(item, self.cls) for item in value)

    def __str__(self) -> str:
        return f"a sequence of {self.cls.__name__} instances"


@dataclass(frozen=True)
class Satisfies:
    """A value for which ``test(value)`` holds; ``text`` says what that is, in words.

    For what no other constraint states (a label that is an identifier, a mesh
    with a named axis). ``test`` must return a bool and not raise for any value.

    >>> label = Satisfies(lambda v: isinstance(v, str) and v.isidentifier(), "a non-empty identifier")
    >>> str(label), label.accepts("ball"), label.accepts("1ball")
    ('a non-empty identifier', True, False)
    """

    test: Callable[[Any], bool]
    text: str

    def accepts(self, value: Any) -> bool:
        return bool(self.test(value))

    def __str__(self) -> str:
        return self.text


def allowed_text(constraints: Sequence[Constraint]) -> str:
    """What a list of constraints allows, in words: their descriptions joined by " or ".

    >>> allowed_text([IsNone(), Interval(int, 1, None, closed="left")])
    'None or an int >= 1'
    """
    return " or ".join(str(c) for c in constraints)


def check_params(where: str, table: Mapping[str, Sequence[Constraint]], values: Mapping[str, Any]) -> None:
    """Check each value against its row of ``table``; the first refused one raises.

    ``values`` maps parameter names to values; names without a row are not
    checked. A value passes when any constraint of its row accepts it.

    Raises:
        skcomplex.exceptions.ValidationError: ``"<where>: <name> must be <allowed>, got <value!r>"``.
    """
    __tracebackhide__ = True  # IPython and pytest show the caller's line, not this machinery
    for name, value in values.items():
        constraints = table.get(name)
        if constraints is not None and not any(c.accepts(value) for c in constraints):
            raise ValidationError(f"{where}: {name} must be {allowed_text(constraints)}, got {value!r}")


def validate_params(table: Mapping[str, Sequence[Constraint]]) -> Callable[[Callable], Callable]:
    """Decorate a function or method so that every call checks its arguments against ``table`` first.

    The arguments are bound to the signature (defaults included) and passed to
    :func:`check_params`. The error names the owner as the reader calls it:
    ``"Simulation"`` for ``Simulation.__init__``, ``"Simulation.run"`` for a
    method. The table stays readable on the result as ``parameter_constraints``.
    """

    def decorate(function: Callable) -> Callable:
        signature = inspect.signature(function)
        owner, _, name = function.__qualname__.rpartition(".")
        where = owner if name == "__init__" else function.__qualname__

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:  # a call that does not fit the signature: Python's own message says why
                return function(*args, **kwargs)
            bound.apply_defaults()
            check_params(where, table, bound.arguments)
            return function(*args, **kwargs)

        checked.parameter_constraints = table  # type: ignore[attr-defined]
        return checked

    return decorate


def constraints_of(obj: Any) -> Mapping[str, Sequence[Constraint]] | None:
    """The constraints table a class declares for its constructor, or a decorated function's; else None."""
    if isinstance(obj, type):
        return obj.__dict__.get("_parameter_constraints")
    return getattr(obj, "parameter_constraints", None)
