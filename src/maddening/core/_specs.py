"""Field specifications: the state, parameters and boundary inputs a node declares."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from maddening.errors import concrete_number, invalid

__all__ = ["BoundaryInputField", "ParamField", "StateField"]


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
        import jax
        import numpy as np

        if isinstance(value, jax.core.Tracer):
            return
        allowed = f"a finite real array of shape {self.shape}"
        try:
            array = np.asarray(value)
        except Exception:  # noqa: BLE001
            raise invalid(self.name, value, allowed, where=where) from None
        if array.shape != self.shape or array.dtype.kind not in "iuf" or not np.all(np.isfinite(array)):
            raise invalid(self.name, value, allowed, where=where)


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
