"""Guards that hold on every backend, whether or not it flushes subnormal numbers to zero.

A GPU flushes subnormal results to zero (flush-to-zero); a CPU keeps them. A guard written as
"the squared length is zero" then decides differently on the two: a vector ``1e-160`` long has
a subnormal square, which the CPU keeps (the vector is normalised) and a GPU may flush (the
vector is taken as zero), or flush in one kernel and not in the next. The guards here compare
the vector's largest component with :func:`zero_length`, the length below which its square may
be subnormal: a vector longer than it has a normal square on every backend, and one shorter is
treated as zero on every backend.

>>> import jax.numpy as jnp
>>> bool(is_zero_length(jnp.array([0.0, 1e-20, 0.0]))), bool(is_zero_length(jnp.array([0.0, 1e-18, 0.0])))
(True, False)
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

__all__ = ["zero_length", "is_zero_length"]


def zero_length(dtype: Any) -> Any:
    """``sqrt(tiny)`` of ``dtype``: a length whose square is the smallest normal number."""
    return jnp.sqrt(jnp.asarray(jnp.finfo(dtype).tiny, dtype))


def is_zero_length(v: Any, axis: int = -1, keepdims: bool = False) -> Any:
    """Whether the vectors along ``axis`` are too short to square safely: every component at most
    :func:`zero_length` in magnitude (the same answer on every backend)."""
    v = jnp.asarray(v)
    return jnp.max(jnp.abs(v), axis=axis, keepdims=keepdims) <= zero_length(v.dtype)
