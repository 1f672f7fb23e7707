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
