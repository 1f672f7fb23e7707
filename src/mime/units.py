"""Quantities: a number written in a unit of a known dimension.

Entries take their dimensional settings as :class:`Quantity` values, written
with constructors such as :func:`mm` (``mm(0.1)`` is a tenth of a millimetre).
A quantity keeps the number and the unit it was written in, so a saved
document shows it as written; :meth:`Quantity.si` gives the SI float the
physics uses, ``value * unit.scale``.

``Length`` is a :class:`Dimension`; it doubles as the annotation of a
setting's dimension, as in ``Annotated[Quantity, Length]``.

>>> q = mm(0.1)
>>> q.unit.symbol, q.value, round(q.si(Length), 12)
('mm', 0.1, 0.0001)
>>> m(2.0).si()
2.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mime.errors import ValidationError, invalid

__all__ = [
    "Dimension",
    "Unit",
    "Quantity",
    "Length",
    "Time",
    "Mass",
    "Dimensionless",
    "Stiffness",
    "Damping",
    "UNITS",
    "unit",
    "quantity",
    "m",
    "mm",
    "um",
    "nm",
    "s",
    "ms",
    "kg",
    "g",
    "N_per_m",
    "kN_per_m",
    "N_s_per_m",
    "as_si",
]


@dataclass(frozen=True)
class Dimension:
    """A physical dimension, with its name, its SI unit's symbol and its label.

    ``label`` is the name the dimension goes by as an annotation (``Length``).
    """

    name: str
    si_symbol: str
    label: str

    def __str__(self) -> str:  # "length (m)"
        return f"{self.name} ({self.si_symbol})" if self.si_symbol else self.name

    def __repr__(self) -> str:
        return self.label


Length = Dimension("length", "m", "Length")
Time = Dimension("time", "s", "Time")
Mass = Dimension("mass", "kg", "Mass")
Dimensionless = Dimension("dimensionless", "", "Dimensionless")
Stiffness = Dimension("stiffness", "N/m", "Stiffness")
"""A spring's force per unit compression, N/m, such as a penalty contact's."""
Damping = Dimension("damping", "N s/m", "Damping")
"""A dashpot's force per unit speed, N s/m."""


@dataclass(frozen=True)
class Unit:
    """A unit: its symbol, its dimension, and its size in SI units (``scale``)."""

    symbol: str
    dimension: Dimension
    scale: float


UNITS: dict[str, Unit] = {
    u.symbol: u
    for u in (
        Unit("m", Length, 1.0),
        Unit("mm", Length, 1e-3),
        Unit("um", Length, 1e-6),
        Unit("nm", Length, 1e-9),
        Unit("s", Time, 1.0),
        Unit("ms", Time, 1e-3),
        Unit("kg", Mass, 1.0),
        Unit("g", Mass, 1e-3),
        Unit("1", Dimensionless, 1.0),
        Unit("N_per_m", Stiffness, 1.0),
        Unit("kN_per_m", Stiffness, 1e3),
        Unit("N_s_per_m", Damping, 1.0),
    )
}


def unit(symbol: str) -> Unit:
    """The unit named ``symbol``; a ``ValidationError`` lists the known ones otherwise."""
    try:
        return UNITS[symbol]
    except (KeyError, TypeError):
        raise invalid("unit", symbol, f"one of {', '.join(sorted(UNITS))}") from None


@dataclass(frozen=True)
class Quantity:
    """A finite real ``value`` written in ``unit``; its SI value is ``value * unit.scale``."""

    value: float
    unit: Unit

    def __post_init__(self) -> None:
        v = self.value
        is_bool = isinstance(v, bool) or type(v).__name__ == "bool_"
        if is_bool or isinstance(v, (str, bytes)) or not hasattr(v, "__float__") or isinstance(v, complex):
            raise invalid("value", self.value, "a real number")
        try:
            v = float(v)  # NumPy / JAX scalars
        except (TypeError, ValueError):
            raise invalid("value", self.value, "a real number") from None
        if not math.isfinite(v):
            raise invalid("value", v, "a finite number")
        object.__setattr__(self, "value", v)
        if not isinstance(self.unit, Unit):
            raise invalid("unit", self.unit, "a mime.units.Unit")

    @property
    def dimension(self) -> Dimension:
        """The quantity's dimension (its unit's)."""
        return self.unit.dimension

    def si(self, dimension: Dimension | None = None, *, argument: str = "quantity") -> float:
        """The SI float ``value * scale``; if ``dimension`` is given, refuse any other.

        A quantity whose SI value would overflow to infinity, or underflow to zero from a
        value that is not zero, is refused: the checks made on the value as written
        (a positive length, say) must hold of the number the physics receives.

        >>> mm(3.0).si(Time, argument="margin")
        Traceback (most recent call last):
        ...
        maddening.ValidationError: margin = mm(3.0) is not allowed; expected a quantity of dimension time (s), not length (m)
        >>> nm(5e-324).si(Length, argument="margin")
        Traceback (most recent call last):
        ...
        maddening.ValidationError: margin = nm(5e-324) is not allowed; expected a quantity whose SI value is finite, and zero only if the value is (it is 0.0 in SI units)
        """
        if dimension is not None and self.unit.dimension != dimension:
            raise invalid(argument, self, f"a quantity of dimension {dimension}, not {self.unit.dimension}")
        value = self.value * self.unit.scale
        if not math.isfinite(value) or (value == 0.0) != (self.value == 0.0):
            raise invalid(argument, self, f"a quantity whose SI value is finite, and zero only if the value is (it is {value!r} in SI units)")
        return value

    def to_document(self) -> dict[str, Any]:
        """The quantity as written: ``{"unit": symbol, "value": value}``."""
        return {"unit": self.unit.symbol, "value": self.value}

    @classmethod
    def from_document(cls, doc: Any) -> "Quantity":
        """Rebuild from :meth:`to_document`'s form; a ``ValidationError`` otherwise."""
        if not isinstance(doc, dict) or set(doc) != {"unit", "value"}:
            raise invalid("quantity", doc, "an object with keys 'unit' and 'value'")
        if isinstance(doc["value"], bool) or not isinstance(doc["value"], (int, float)):
            raise invalid("value", doc['value'], "a number")
        return cls(float(doc["value"]), unit(doc["unit"]))

    def __repr__(self) -> str:
        return f"{self.unit.symbol}({self.value!r})"

    def __str__(self) -> str:
        return f"{self.value:g} {self.unit.symbol}"

    def __mul__(self, factor: float) -> "Quantity":
        return Quantity(self.value * float(factor), self.unit)

    __rmul__ = __mul__

    def __neg__(self) -> "Quantity":
        return Quantity(-self.value, self.unit)


def quantity(value: float, symbol: str) -> Quantity:
    """``value`` written in the unit named ``symbol``: ``quantity(0.1, "mm") == mm(0.1)``."""
    return Quantity(value, unit(symbol))


def _constructor(symbol: str):
    u = UNITS[symbol]

    def make(value: float) -> Quantity:
        return Quantity(value, u)

    make.__name__ = make.__qualname__ = symbol
    make.__doc__ = (
        f"A {u.dimension.name} of ``value`` {symbol} "
        f"(SI value ``value * {u.scale!r}`` {u.dimension.si_symbol or '(dimensionless)'})."
    )
    return make


m = _constructor("m")
mm = _constructor("mm")
um = _constructor("um")
nm = _constructor("nm")
s = _constructor("s")
ms = _constructor("ms")
kg = _constructor("kg")
g = _constructor("g")
N_per_m = _constructor("N_per_m")
kN_per_m = _constructor("kN_per_m")
N_s_per_m = _constructor("N_s_per_m")


def as_si(value: Any, dimension: Dimension, *, argument: str) -> float:
    """The SI float of ``value``, which must be a ``Quantity`` of ``dimension``.

    A bare number is refused: the unit it was meant in is unknown.

    >>> as_si(mm(0.5), Length, argument="margin")
    0.0005
    >>> as_si(0.5, Length, argument="margin")
    Traceback (most recent call last):
    ...
    maddening.ValidationError: margin = 0.5 is not allowed; expected a Quantity of dimension length (m), such as mm(0.1)
    """
    if not isinstance(value, Quantity):
        raise invalid(argument, value, f"a Quantity of dimension {dimension}, such as mm(0.1)")
    return value.si(dimension, argument=argument)
