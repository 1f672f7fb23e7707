"""Gluing measured values into a page's prose, as plain Python numbers."""

from __future__ import annotations

import math
import numbers
from typing import Any

from specbook._mode import note_passed_over, record_mode

__all__ = ["as_float", "glue", "glue_raw"]


def as_float(value: Any, *, name: str = "value") -> float:
    """Convert a scalar (Python, NumPy or JAX, any float or int dtype) to a Python float.

    myst-nb formats a glued value with the format spec written in the prose
    (``{glue:text}`key:.4f```), which needs a plain ``float``: the repr of a NumPy or
    JAX scalar breaks it.

    >>> import numpy as np
    >>> as_float(np.float32(0.5)), as_float(3)
    (0.5, 3.0)
    >>> as_float([1.0, 2.0])
    Traceback (most recent call last):
    ...
    TypeError: value must be a scalar, got an array of shape (2,)
    """
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, numbers.Real):
        return float(value)
    shape = getattr(value, "shape", None)
    if shape is not None:
        if tuple(shape) != ():
            raise TypeError(f"{name} must be a scalar, got an array of shape {tuple(shape)}")
        return float(value.item() if hasattr(value, "item") else value)
    if isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a scalar, got an array of shape ({len(value)},)")
    try:
        return float(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real scalar, got {type(value).__name__}: {value!r}") from exc


def glue_raw(key: str, value: Any) -> None:
    """Glue ``value`` under ``key`` without displaying it (no-op outside a kernel)."""
    try:
        from myst_nb import glue as _myst_glue
    except ImportError:  # pragma: no cover - the book extras are not installed
        return
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return
    if get_ipython() is None:
        return  # plain Python (unit tests, scripts): nothing to glue into
    _myst_glue(key, value, display=False)


def glue(key: str, value: Any) -> None:
    """Glue a measured value that is not itself a claim.

    Numbers are converted with :func:`as_float`; strings, figures and other
    objects are glued as they are. It returns nothing, so a cell that ends with
    a glue shows no stray output.

    >>> glue("steps", 100)
    """
    if not isinstance(key, str) or not key.isidentifier():
        raise ValueError(f"key must be an identifier-like string, got {key!r}")
    if isinstance(value, str) or not _is_scalar(value):
        glue_raw(key, value)
        return None
    number = as_float(value, name=key)
    if math.isnan(number):
        message = f"glue {key!r}: the value is NaN; a page never shows a NaN"
        if not record_mode():
            raise ValueError(message)
        note_passed_over(message)  # under a fault: the claims after it still count (specbook._mode)
    glue_raw(key, number)
    return None


def _is_scalar(value: Any) -> bool:
    if isinstance(value, numbers.Number):
        return True
    shape = getattr(value, "shape", None)
    return shape is not None and tuple(shape) == () and hasattr(value, "dtype")
