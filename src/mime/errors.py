"""The errors mime raises for bad input.

``ValidationError`` is mime's one documented error for a value that is not
allowed: its message names the argument, the value given and what is allowed.
``DocumentError`` is the kind raised while reading a saved experiment: its
message also says which file and which key or entry was at fault.

>>> from mime.errors import ValidationError, DocumentError
>>> issubclass(DocumentError, ValidationError), issubclass(ValidationError, ValueError)
(True, True)
"""

from __future__ import annotations

from typing import Any

__all__ = ["ValidationError", "DocumentError", "invalid"]


class ValidationError(ValueError):
    """A value given to mime is not allowed (names argument, value and what is allowed)."""


class DocumentError(ValidationError):
    """A saved experiment's document is malformed or names something unknown.

    The message names the file, the key or entry at fault, and what was expected.
    """


def invalid(argument: str, value: Any, allowed: str, *, where: str = "") -> ValidationError:
    """Build the house message ``"<where>: <argument> = <value!r> is not allowed; <allowed>"``.

    >>> str(invalid("margin", -1.0, "a positive length"))
    'margin = -1.0 is not allowed; expected a positive length'
    """
    prefix = f"{where}: " if where else ""
    return ValidationError(f"{prefix}{argument} = {value!r} is not allowed; expected {allowed}")
