"""Products over an axis of three (a point, a normal, a lever, a rotation), written out.

``a @ b`` with a contracted axis of length 3 compiles, on XLA's CPU backend, to a dot: a kernel
of its own, which writes its result for the next kernel to read. Under ``vmap`` over a batch of
bodies the dot's result is often laid out otherwise than its reader wants, and a transpose or a
copy follows. Written out as three products and two sums, the same arithmetic is a loop XLA
fuses with what reads it.

:func:`matmul3` sums the terms in the order XLA's CPU dot accumulates a contraction of three
(``t_2 + (t_1 + t_0)``). In float64, MIME's precision for verification, it then gives the dot's
bits for the Delassus matrix, the sample turns and a matrix times a vector, one body or a batch
(``tests/mime/interactions/test_gram.py``). In MIME's step programs, the book's 276 claimed
values and the bench scenes' states were unchanged to the bit when these products were written
out. That is a measurement of this XLA, not a guarantee:
- in float32 the two differ in the last bits;
- where XLA fuses a written-out product with the arithmetic around it, it may round otherwise.
  A part's support compiled alone differs from the plain products' in its last bit, and in the
  step, ``HullHold.rows_at`` keeps two dots because written out they changed the box's bits.

>>> import jax.numpy as jnp
>>> R = jnp.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # a quarter turn about z
>>> matmul3(R, jnp.array([1.0, 0.0, 0.0])).tolist()
[0.0, 1.0, 0.0]
>>> matmul3(jnp.array([[1.0, 2.0, 3.0]]), R.T).tolist()  # points as rows, turned by R
[[-2.0, 1.0, 3.0]]
"""

from __future__ import annotations

from typing import Any

from mime.errors import invalid

__all__ = ["matmul3", "matmul3t"]

Array = Any


def matmul3(a: Array, b: Array) -> Array:
    """``a @ b`` where ``a`` is ``(..., 3)`` and ``b`` is ``(3,)`` or ``(3, m)``: ``(...)`` or ``(..., m)``.

    The terms ``t_k = a[..., k] b[k]`` are summed as ``t_2 + (t_1 + t_0)``, the order of XLA's
    CPU dot (in float64 the dot's bits, except where XLA fuses it otherwise: see the module).
    """
    if a.ndim < 1 or a.shape[-1] != 3:
        raise invalid("a.shape", a.shape, "(..., 3): the contracted axis is of three", where="matmul3")
    if b.ndim not in (1, 2) or b.shape[0] != 3:
        raise invalid("b.shape", b.shape, "(3,) or (3, m): the contracted axis is of three", where="matmul3")
    if b.ndim == 1:
        t = [a[..., k] * b[k] for k in range(3)]
    else:
        t = [a[..., k:k + 1] * b[k] for k in range(3)]
    return t[2] + (t[1] + t[0])


def matmul3t(a: Array, b: Array) -> Array:
    """``a @ b.T`` where ``a`` is ``(..., 3)`` and ``b`` is ``(m, 3)``: ``(..., m)``, without the transpose.

    The terms ``t_k = a[..., k] b[:, k]`` (the columns of ``b``) in :func:`matmul3`'s order, so that
    ``matmul3t(a, b)`` is ``matmul3(a, b.T)`` to the bit. XLA's CPU backend copies a transpose into a
    buffer of its own (a kernel, in a step that runs several hundred); read by columns, the product is
    one loop with its reader.

    >>> import jax.numpy as jnp
    >>> R = jnp.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # a quarter turn about z
    >>> matmul3t(jnp.array([[1.0, 2.0, 3.0]]), R).tolist()  # points as rows, turned by R
    [[-2.0, 1.0, 3.0]]
    """
    if a.ndim < 1 or a.shape[-1] != 3:
        raise invalid("a.shape", a.shape, "(..., 3): the contracted axis is of three", where="matmul3t")
    if b.ndim != 2 or b.shape[1] != 3:
        raise invalid("b.shape", b.shape, "(m, 3): the contracted axis is of three", where="matmul3t")
    t = [a[..., k:k + 1] * b[:, k] for k in range(3)]
    return t[2] + (t[1] + t[0])
