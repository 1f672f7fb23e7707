"""Field specifications: the state, parameters and boundary inputs a node declares."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from maddening.errors import concrete_number, invalid

__all__ = ["BoundaryInputField", "ParamField", "StateField", "check_concrete_array"]


def check_concrete_array(
    value: Any, argument: str, shape: tuple[int, ...], *, where: str = "", floating: bool = False
) -> None:
    """Raise ``ValidationError`` unless a concrete ``value`` is a finite real array of ``shape``.

    A traced value (under ``jit``/``grad``/``vmap``/``lax.scan``) passes unchecked
    and untouched: the check costs nothing inside a compiled step. A concrete value
    must have exactly the declared shape, a real numeric dtype (integer or float;
    not bool, complex or text; with ``floating``, a float) and only finite entries.

    >>> check_concrete_array(float("nan"), "boundary_inputs['table_position']", (), where="BallNode")
    Traceback (most recent call last):
    ...
    maddening.ValidationError: BallNode: boundary_inputs['table_position'] = nan is not allowed; expected a finite real number
    """
    import jax
    import numpy as np

    if isinstance(value, jax.core.Tracer):
        return
    kind = "floating-point" if floating else "real"
    allowed = f"a finite {kind} number" if shape == () else f"a finite {kind} array of shape {shape}"
    kinds = "f" if floating else "iuf"
    if value is None or isinstance(value, (bool, np.bool_, str, bytes, complex)):
        raise invalid(argument, value, allowed, where=where)
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - anything numpy cannot read is not a number
        raise invalid(argument, value, allowed, where=where) from None
    if array.shape != tuple(shape) or array.dtype.kind not in kinds or not np.all(np.isfinite(array)):
        raise invalid(argument, value, allowed, where=where)


@dataclass(frozen=True)
class StateField:
    """One entry of a node's state dictionary.

    Attributes:
        name: The key in the state dictionary.
        shape: The array shape, ``()`` for a scalar.
        units: SI units, such as ``m`` or ``m/s``.
        description: What the field is.
        rate_of: For a rate field, the name of the field it is the time derivative
            of (``velocity`` has ``rate_of="position"``). This declares the
            second-order structure that symplectic and central-difference
            integrators split a state by.
    """

    name: str
    shape: tuple[int, ...] = ()
    units: str = ""
    description: str = ""
    rate_of: str | None = None

    def check(self, value: Any, *, where: str = "") -> None:
        """Raise ``ValidationError`` unless a concrete ``value`` of this field is finite, floating and of ``shape``.

        A state is stepped in its own dtype, so an integer entry (which would
        truncate every step) is refused too. Traced values pass unchecked. The
        message names the entry as ``state['<name>']``.
        """
        check_concrete_array(value, f"state[{self.name!r}]", self.shape, where=where, floating=True)


@dataclass(frozen=True)
class ParamField:
    """One entry of a node's ``params`` dictionary.

    Attributes:
        name: The parameter's key.
        default: Its default value.
        units: SI units (``""`` for a dimensionless number).
        description: What it means.
        shape: The array shape, ``()`` for a scalar.
        low: Smallest allowed value (inclusive), or ``None`` for no bound.
        high: Largest allowed value (inclusive), or ``None`` for no bound.
    """

    name: str
    default: Any
    units: str = ""
    description: str = ""
    shape: tuple[int, ...] = ()
    low: float | None = None
    high: float | None = None

    @property
    def allowed(self) -> str:
        """The allowed values, in words."""
        if self.low is None and self.high is None:
            return "a finite number"
        if self.high is None:
            return f"a finite number >= {self.low:g}"
        if self.low is None:
            return f"a finite number <= {self.high:g}"
        return f"a number in [{self.low:g}, {self.high:g}]"

    def check(self, value: Any, *, where: str = "") -> None:
        """Raise ``ValidationError`` if a concrete scalar ``value`` is not allowed.

        Traced values (under ``jit``/``grad``) pass unchecked; a declared array
        parameter is checked for its shape and finiteness; anything that is not a
        real number (text, ``None``, a complex number, a mapping) is refused.

        >>> ParamField("elasticity", 0.8, low=0.0).check(-0.5)
        Traceback (most recent call last):
        ...
        maddening.ValidationError: elasticity = -0.5 is not allowed; expected a finite number >= 0
        """
        if self.shape != ():
            self._check_array(value, where=where)
            return
        number = concrete_number(value, self.name, self.allowed, where=where)
        if number is None:
            return
        bad = (
            not math.isfinite(number)
            or (self.low is not None and number < self.low)
            or (self.high is not None and number > self.high)
        )
        if bad:
            raise invalid(self.name, value, self.allowed, where=where)

    def _check_array(self, value: Any, *, where: str) -> None:
        check_concrete_array(value, self.name, self.shape, where=where)


@dataclass(frozen=True)
class BoundaryInputField:
    """One input a node accepts from outside at every step.

    Attributes:
        name: The key in the ``boundary_inputs`` dictionary.
        shape: The array shape, ``()`` for a scalar.
        units: SI units.
        description: What it is and what happens without it.
        required: Whether every step must supply it.
    """

    name: str
    shape: tuple[int, ...] = ()
    units: str = ""
    description: str = ""
    required: bool = False

    def check(self, value: Any, *, where: str = "") -> None:
        """Raise ``ValidationError`` unless a concrete ``value`` of this input is finite, real and of ``shape``.

        Traced values pass unchecked. The message names the entry as ``boundary_inputs['<name>']``.
        """
        check_concrete_array(value, f"boundary_inputs[{self.name!r}]", self.shape, where=where)
