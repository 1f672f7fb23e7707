"""Sets of allowed values: the domains of declared parameters."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["FiniteSet", "RealSet"]


@dataclass(frozen=True)
class RealSet:
    """An interval of the real line, closed or open at either end.

    Build one with :meth:`closed`, :meth:`open`, :meth:`closed_open`,
    :meth:`open_closed`, :meth:`at_least`, :meth:`greater_than` or :meth:`reals`.
    Infinite ends are always open.

    >>> unit = RealSet.closed(0, 1)
    >>> str(unit), 0.0 in unit, 1.0 in unit, 1.5 in unit
    ('[0, 1]', True, True, False)
    >>> str(RealSet.greater_than(0)), 0.0 in RealSet.greater_than(0)
    ('(0, inf)', False)
    >>> RealSet.closed(0, 1)
    closed(0, 1)
    """

    low: float
    high: float
    low_closed: bool = True
    high_closed: bool = True

    def __post_init__(self) -> None:
        if math.isnan(self.low) or math.isnan(self.high) or self.low > self.high:
            raise ValueError(f"an interval needs low <= high, got low={self.low!r}, high={self.high!r}")

    @classmethod
    def closed(cls, low: float, high: float) -> RealSet:
        """The interval ``[low, high]``."""
        return cls(low, high, True, True)

    @classmethod
    def open(cls, low: float, high: float) -> RealSet:
        """The interval ``(low, high)``."""
        return cls(low, high, False, False)

    @classmethod
    def closed_open(cls, low: float, high: float) -> RealSet:
        """The interval ``[low, high)``."""
        return cls(low, high, True, False)

    @classmethod
    def open_closed(cls, low: float, high: float) -> RealSet:
        """The interval ``(low, high]``."""
        return cls(low, high, False, True)

    @classmethod
    def at_least(cls, low: float) -> RealSet:
        """The interval ``[low, inf)``."""
        return cls(low, math.inf, True, False)

    @classmethod
    def greater_than(cls, low: float) -> RealSet:
        """The interval ``(low, inf)``."""
        return cls(low, math.inf, False, False)

    @classmethod
    def reals(cls) -> RealSet:
        """The whole real line ``(-inf, inf)``."""
        return cls(-math.inf, math.inf, False, False)

    def __contains__(self, value: Any) -> bool:
        try:
            x = float(value)
        except (TypeError, ValueError):
            return False
        if math.isnan(x):
            return False
        above = x >= self.low if (self.low_closed and math.isfinite(self.low)) else x > self.low
        below = x <= self.high if (self.high_closed and math.isfinite(self.high)) else x < self.high
        return above and below

    def __repr__(self) -> str:
        low, high = _num(self.low), _num(self.high)
        if math.isinf(self.high) and math.isinf(self.low):
            return "reals()"
        if math.isinf(self.high):
            return f"{'at_least' if self.low_closed else 'greater_than'}({low})"
        kind = {(True, True): "closed", (False, False): "open", (True, False): "closed_open",
                (False, True): "open_closed"}[(self.low_closed, self.high_closed)]
        return f"{kind}({low}, {high})"

    def __str__(self) -> str:
        left = "[" if self.low_closed and math.isfinite(self.low) else "("
        right = "]" if self.high_closed and math.isfinite(self.high) else ")"
        return f"{left}{_num(self.low)}, {_num(self.high)}{right}"


@dataclass(frozen=True)
class FiniteSet:
    """A finite set of allowed values, such as the crossing directions.

    >>> directions = FiniteSet(-1, 0, 1)
    >>> str(directions), 1 in directions, 2 in directions, True in directions
    ('{-1, 0, 1}', True, False, False)
    """

    values: tuple

    def __init__(self, *values: Any) -> None:
        object.__setattr__(self, "values", tuple(values))

    def __contains__(self, value: Any) -> bool:
        if isinstance(value, bool):  # a flag is not a number here
            return False
        try:
            return value in self.values
        except TypeError:
            return False

    def __repr__(self) -> str:
        return "FiniteSet(" + ", ".join(repr(v) for v in self.values) + ")"

    def __str__(self) -> str:
        return "{" + ", ".join(_num(v) for v in self.values) + "}"


def _num(x: Any) -> str:
    if isinstance(x, float):
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        if x.is_integer():
            return str(int(x))
    return str(x)
