"""The two checks skcomplex's constructors and runs share: a real number and a count.

Each raises :class:`skcomplex.exceptions.ValidationError` with the library's
message, ``"<where>: <name> must be <allowed>, got <value!r>"``, so the argument,
the value and what is allowed are always named. skcomplex stands alone: these
are its own, not maddening's.

>>> whole_number(0, "n_dim", "an int >= 1", where="ContinuousSpace")
Traceback (most recent call last):
...
skcomplex.exceptions.ValidationError: ContinuousSpace: n_dim must be an int >= 1, got 0
"""

from __future__ import annotations

import math
from typing import Any

from skcomplex.exceptions import ValidationError


def _refuse(value: Any, name: str, allowed: str, where: str) -> ValidationError:
    return ValidationError(f"{where}: {name} must be {allowed}, got {value!r}")


def finite_number(value: Any, name: str, allowed: str, *, where: str, above: float | None = None,
                  at_least: float | None = None) -> float:
    """``value`` as a float when it is a finite ``int`` or ``float`` within the bound; else ``ValidationError``.

    A bool is not a number here. ``above`` refuses ``value <= above``,
    ``at_least`` refuses ``value < at_least``.

    >>> finite_number(0.25, "dt", "a finite number > 0", where="Simulation", above=0.0)
    0.25
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _refuse(value, name, allowed, where)
    if (above is not None and value <= above) or (at_least is not None and value < at_least):
        raise _refuse(value, name, allowed, where)
    return float(value)


def whole_number(value: Any, name: str, allowed: str, *, where: str, at_least: int = 1) -> int:
    """``value`` when it is an ``int`` (never a bool) of at least ``at_least``; else ``ValidationError``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < at_least:
        raise _refuse(value, name, allowed, where)
    return value
