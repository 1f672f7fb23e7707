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

from typing import Any

__all__ = ["ValidationError", "invalid"]


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


def concrete_number(value: Any, argument: str, allowed: str, *, where: str = "") -> float | None:
    """Return a concrete real scalar as a float, ``None`` for a traced value, or raise.

    A value under ``jit``/``grad``/``vmap`` (a tracer) is returned as ``None``: it
    cannot be inspected, and the caller leaves it unchecked. Anything that is not a
    real number (``None``, text, a complex number, a mapping, an array that is not a
    scalar, a bool) raises ``maddening.ValidationError`` naming ``argument``.

    >>> concrete_number(0.5, "dt", "a time step > 0")
    0.5
    >>> concrete_number("0.5", "dt", "a time step > 0")
    Traceback (most recent call last):
    ...
    maddening.ValidationError: dt = '0.5' is not allowed; expected a time step > 0
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
    return float(array)
