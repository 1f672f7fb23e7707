"""The error maddening raises for input it does not allow.

``ValidationError`` is the package's one documented error for a bad argument:
its message names the argument, the value that was given and what is allowed.
It subclasses ``ValueError``, so generic handlers keep working.

>>> from maddening.errors import ValidationError, invalid
>>> issubclass(ValidationError, ValueError)
True
>>> str(invalid("dt", -0.1, "a finite time step > 0 (s)"))
'dt = -0.1 is not allowed; expected a finite time step > 0 (s)'
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["ValidationError", "invalid", "concrete_number", "finite_number", "whole_number"]


class ValidationError(ValueError):
    """An argument given to maddening is not allowed.

    The message names the argument, the value given and what is allowed.
    """


ValidationError.__module__ = "maddening"


def invalid(argument: str, value: Any, allowed: str, *, where: str = "") -> ValidationError:
    """Build the house error: ``"<where>: <argument> = <value!r> is not allowed; expected <allowed>"``.

    Args:
        argument: The name of the argument at fault.
        value: The value that was given.
        allowed: What the argument accepts, in words.
        where: Optional prefix naming the callable or object being configured.
    """
    prefix = f"{where}: " if where else ""
    return ValidationError(f"{prefix}{argument} = {value!r} is not allowed; expected {allowed}")


def concrete_number(value: Any, argument: str, allowed: str, *, where: str = "", finite: bool = False,
                    above: float | None = None, at_least: float | None = None) -> float | None:
    """Return a concrete real scalar as a float, ``None`` for a traced value, or raise.

    A value under ``jit``/``grad``/``vmap`` (a tracer) is returned as ``None``: it
    cannot be inspected, and the caller leaves it unchecked. Anything that is not a
    real number (``None``, text, a complex number, a mapping, an array that is not a
    scalar, a bool) raises ``maddening.ValidationError`` naming ``argument``. A
    NumPy or JAX scalar of shape ``()`` counts as a number.

    On a concrete number, ``finite=True`` refuses NaN and the infinities, ``above``
    refuses ``number <= above`` and ``at_least`` refuses ``number < at_least``
    (NaN fails either bound).

    >>> concrete_number(0.5, "dt", "a time step > 0")
    0.5
    >>> concrete_number("0.5", "dt", "a time step > 0")
    Traceback (most recent call last):
    ...
    maddening.ValidationError: dt = '0.5' is not allowed; expected a time step > 0
    >>> concrete_number(0.0, "dt", "a finite time step > 0", finite=True, above=0.0)
    Traceback (most recent call last):
    ...
    maddening.ValidationError: dt = 0.0 is not allowed; expected a finite time step > 0
    """
    import jax
    import numpy as np

    if isinstance(value, jax.core.Tracer):
        return None
    if isinstance(value, (bool, np.bool_, str, bytes, complex)) or value is None:
        raise invalid(argument, value, allowed, where=where)
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - anything numpy cannot read is not a number
        raise invalid(argument, value, allowed, where=where) from None
    if array.shape != () or array.dtype.kind not in "iuf":
        raise invalid(argument, value, allowed, where=where)
    number = float(array)
    if ((finite and not math.isfinite(number)) or (above is not None and not number > above)
            or (at_least is not None and not number >= at_least)):
        raise invalid(argument, value, allowed, where=where)
    return number


def finite_number(value: Any, argument: str, allowed: str, *, where: str = "", above: float | None = None,
                  at_least: float | None = None, kind: type | tuple[type, ...] = (int, float),
                  infinite: bool = False) -> float:
    """``value`` as a float when it is a real number of ``kind`` (within the bounds); else ``ValidationError``.

    ``kind`` is ``(int, float)`` by default (a NumPy ``float64`` passes, being a
    ``float``); pass ``numbers.Real`` to take every real scalar type. A bool (Python
    or NumPy), text, a complex number and NaN are always refused; the infinities
    too unless ``infinite=True`` (a wall's infinite mass). ``above`` refuses
    ``value <= above``, ``at_least`` refuses ``value < at_least``.

    >>> finite_number(2, "mass", "a mass > 0 (kg)", above=0.0)
    2.0
    >>> finite_number(True, "mass", "a mass > 0 (kg)", where="reduced_mass")
    Traceback (most recent call last):
    ...
    maddening.ValidationError: reduced_mass: mass = True is not allowed; expected a mass > 0 (kg)
    """
    import numpy as np

    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, kind) or math.isnan(value)
            or (not infinite and math.isinf(value))):
        raise invalid(argument, value, allowed, where=where)
    if (above is not None and value <= above) or (at_least is not None and value < at_least):
        raise invalid(argument, value, allowed, where=where)
    return float(value)


def whole_number(value: Any, argument: str, allowed: str, *, where: str = "", at_least: int = 1,
                 kind: type | tuple[type, ...] = int) -> Any:
    """``value`` when it is an integer of ``kind`` and at least ``at_least``; else ``ValidationError``.

    ``kind`` is ``int`` by default; pass ``numbers.Integral`` to take NumPy
    integers too. A bool (Python or NumPy) is never a count. The value is returned
    unchanged.

    >>> whole_number(3, "steps", "a whole number >= 1")
    3
    >>> whole_number(2.0, "steps", "a whole number >= 1", where="oscillator_series")
    Traceback (most recent call last):
    ...
    maddening.ValidationError: oscillator_series: steps = 2.0 is not allowed; expected a whole number >= 1
    """
    import numpy as np

    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kind) or value < at_least:
        raise invalid(argument, value, allowed, where=where)
    return value
