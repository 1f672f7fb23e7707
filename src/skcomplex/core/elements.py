"""Elements: the things that move."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from skcomplex._constraints import Satisfies, validate_params
from skcomplex.exceptions import ValidationError

__all__ = ["PointElement", "derivative_of"]

_DERIVATIVE = re.compile(r"^(?P<base>[A-Za-z_]\w*?)_d(?P<order>[1-9]\d*)$")


def derivative_of(name: str) -> tuple[str, int]:
    """Split a state name into its base and its derivative order.

    >>> derivative_of("x_d2"), derivative_of("x")
    (('x', 2), ('x', 0))
    """
    match = _DERIVATIVE.match(name)
    if match:
        return match.group("base"), int(match.group("order"))
    return name, 0


class PointElement:
    """A point whose states are named by the user.

    A state ``x`` may come with its derivatives ``x_d1``, ``x_d2``, ... The
    highest derivative given is constant, and between events each state follows
    the exact Taylor polynomial of its derivatives; with ``x``, ``x_d1`` and a
    constant ``x_d2`` (gravity, say) that is
    ``x(t + s) = x + x_d1 s + x_d2 s**2 / 2``. States are scalars or vectors and
    are stored as float64 NumPy arrays.

    Args:
        label: The label of the element, the first part of a path ``label.state``.
        **states: The initial value of each state.

    Raises:
        skcomplex.exceptions.ValidationError: The label is not a non-empty identifier, a state is not a
            finite real scalar or vector, a derivative misses its base state or a
            lower derivative, or a derivative's shape differs from its base.

    >>> ball = PointElement('ball', x=[0.0, 1.0], x_d1=[1.0, 0.0], x_d2=[0.0, -9.81])
    >>> sorted(ball.states), ball.states['x'].tolist()
    (['x', 'x_d1', 'x_d2'], [0.0, 1.0])
    >>> PointElement('ball', x=[0.0, float('nan')])
    Traceback (most recent call last):
    ...
    skcomplex.exceptions.ValidationError: PointElement 'ball': state x must be finite, got [0.0, nan]
    """

    #: The label is checked by the table; each state, a scalar or vector whose derivatives
    #: pair with it, is converted and checked below (it is not one argument but many).
    _parameter_constraints: dict = {
        "label": [Satisfies(lambda v: isinstance(v, str) and v.isidentifier(), "a non-empty identifier")],
    }

    @validate_params(_parameter_constraints)
    def __init__(self, label: str, **states: Any) -> None:
        if not states:
            raise ValidationError(f"PointElement {label!r}: states must name at least one state, got none")
        self.label = label
        self.states: dict[str, np.ndarray] = {}
        for name, value in states.items():
            allowed = f"PointElement {label!r}: state {name} must be a real scalar or vector, got {value!r}"
            try:
                raw = np.asarray(value)
            except (TypeError, ValueError):
                raise ValidationError(allowed) from None
            if raw.dtype.kind not in "biuf" or raw.dtype.kind == "b":  # no text, complex or objects
                if raw.dtype.kind != "O":
                    raise ValidationError(allowed)
                try:
                    raw = np.asarray(value, dtype=np.float64)
                except (TypeError, ValueError):
                    raise ValidationError(allowed) from None
            array = raw.astype(np.float64)
            if array.ndim > 1:
                raise ValidationError(
                    f"PointElement {label!r}: state {name} must be a scalar or a vector, got shape {array.shape}"
                )
            if not np.all(np.isfinite(array)):
                raise ValidationError(
                    f"PointElement {label!r}: state {name} must be finite, got {array.tolist()}"
                )
            self.states[name] = array
        for name, array in self.states.items():
            base, order = derivative_of(name)
            for lower in range(order):
                lower_name = base if lower == 0 else f"{base}_d{lower}"
                if lower_name not in self.states:
                    raise ValidationError(
                        f"PointElement {label!r}: state {name} is derivative {order} of {base}, "
                        f"so {lower_name} must be given too; got states {sorted(self.states)}"
                    )
            if order and array.shape != self.states[base].shape:
                raise ValidationError(
                    f"PointElement {label!r}: state {name} must have the shape of {base}, "
                    f"{self.states[base].shape}, got {array.shape}"
                )

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v.tolist()!r}" for k, v in self.states.items())
        return f"PointElement({self.label!r}, {inner})"
