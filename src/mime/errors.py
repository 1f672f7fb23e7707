"""The errors mime raises for bad input, and the few checks every constructor uses.

``ValidationError`` is maddening's: mime builds on maddening, so one error covers
a bad value given to either (a refusal from ``maddening.core.Node``'s checks, met
through a mime body, is caught by ``except mime.ValidationError``). Its message
names the argument, the value given and what is allowed. ``DocumentError`` is the
kind raised while reading a saved experiment: its message also says which file
and which key or entry was at fault.

The checks, each raising the house message through :func:`invalid`:

- :func:`finite_number`: a real Python number (never a bool, text or complex),
  finite, optionally above a bound (maddening's, shared by both packages);
- :func:`whole_number`: an ``int`` (never a bool) of at least a bound (maddening's);
- :func:`real_array`: finite real numbers of a given shape;
- :func:`callable_value`: something that can be called.

A positive length is :func:`mime.geometry.positive_length` (a real array of
shape ``()``, so NumPy scalars pass).

>>> from mime.errors import ValidationError, DocumentError
>>> import maddening
>>> ValidationError is maddening.ValidationError, issubclass(DocumentError, ValidationError)
(True, True)
"""

from __future__ import annotations

from typing import Any

from maddening.errors import ValidationError, finite_number, invalid, whole_number

__all__ = ["ValidationError", "DocumentError", "invalid", "finite_number", "whole_number", "real_array",
           "callable_value"]


class DocumentError(ValidationError):
    """A saved experiment's document is malformed or names something unknown.

    The message names the file, the key or entry at fault, and what was expected.
    """


def callable_value(value: Any, argument: str, allowed: str, *, where: str = "") -> Any:
    """``value`` when it can be called; else ``ValidationError``."""
    if not callable(value):
        raise invalid(argument, value, allowed, where=where)
    return value


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
    maddening.ValidationError: position = ['0', '0', '0'] is not allowed; expected three finite numbers
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
