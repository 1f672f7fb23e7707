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


def real_array(value: Any, argument: str, allowed: str, *, shape: tuple[int, ...] | None = None,
               where: str = "") -> Any:
    """``value`` as a float64 NumPy array when it holds only finite real numbers; else ``ValidationError``.

    Text is never parsed as a number (``"1.0"``, ``b"1"``, ``["0", "0", "0"]`` are
    refused), and neither a complex number, a bool, ``None`` nor an object NumPy
    cannot read as real numbers is accepted. With ``shape``, the array must have
    exactly that shape (``()`` for a scalar). The message names ``argument``, the
    value given and ``allowed``.

    >>> real_array([1, 2.5, 0.0], "position", "three finite numbers", shape=(3,)).tolist()
    [1.0, 2.5, 0.0]
    >>> real_array(["0", "0", "0"], "position", "three finite numbers", shape=(3,))
    Traceback (most recent call last):
    ...
    mime.errors.ValidationError: position = ['0', '0', '0'] is not allowed; expected three finite numbers
    """
    import numbers

    import numpy as np

    def refuse() -> ValidationError:
        return invalid(argument, value, allowed, where=where)

    if value is None or isinstance(value, (bool, np.bool_, str, bytes, complex)):
        raise refuse()
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - anything NumPy cannot read is not a number
        raise refuse() from None
    if array.dtype.kind == "O":  # a ragged or mixed sequence: each entry must itself be a real number
        items = array.ravel().tolist()
        if not all(isinstance(c, numbers.Real) and not isinstance(c, (bool, np.bool_)) for c in items):
            raise refuse()
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            raise refuse() from None
    if array.dtype.kind not in "iuf":
        raise refuse()
    if shape is not None and array.shape != tuple(shape):
        raise refuse()
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        raise refuse()
    return array
