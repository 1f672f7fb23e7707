"""Unit quaternions ``q = (w, x, y, z)``: the rotation taking a body's frame to the world's.

``rotate(q, v) = R(q) v``; ``compose(a, b)`` is ``a`` then ``b`` about the body's own
axes (``R(compose(a, b)) = R(a) R(b)``); ``exp_body(w dt)`` is the turn of a body
with body-frame angular velocity ``w`` over ``dt``:
``q(t + dt) = compose(q, exp_body(w dt))``.

>>> import jax.numpy as jnp
>>> q = about_axis(jnp.array([0.0, 0.0, 1.0]), jnp.pi / 2)
>>> [round(float(c), 6) + 0.0 for c in rotate(q, jnp.array([1.0, 0.0, 0.0]))]
[0.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from mime.errors import Direction, invalid, is_traced

__all__ = ["matrix", "rotate", "compose", "exp_body", "about_axis", "normalise", "advance_pose", "IDENTITY"]

IDENTITY = (1.0, 0.0, 0.0, 0.0)


def matrix(q: Any) -> Any:
    """The rotation matrix ``R(q)`` of a unit quaternion (jnp or NumPy input gives the same kind)."""
    xp = np if isinstance(q, np.ndarray) else jnp
    if not is_traced(q) and np.shape(q)[:1] != (4,):
        raise invalid("q", f"<an array of shape {np.shape(q)}>", "quaternions (w, x, y, z) along a first axis of 4",
                      where="rotation.matrix")
    w, x, y, z = q[0], q[1], q[2], q[3]
    return xp.stack(
        [
            xp.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)]),
            xp.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)]),
            xp.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]),
        ]
    )


def rotate(q: Any, v: Any) -> Any:
    """``R(q) v``."""
    return matrix(q) @ v


def compose(a: Any, b: Any) -> Any:
    """The Hamilton product ``a b``."""
    aw, ax, ay, az = a[0], a[1], a[2], a[3]
    bw, bx, by, bz = b[0], b[1], b[2], b[3]
    return jnp.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ]
    )


def exp_body(rotation_vector: Any) -> Any:
    """The unit quaternion of a turn by the rotation vector ``phi`` (angle ``|phi|`` about ``phi``).

    Written with ``sinc`` so it is smooth (and exact: ``(1, 0, 0, 0)``) at ``phi = 0``.
    """
    angle2 = jnp.sum(rotation_vector * rotation_vector)
    small = angle2 < 1e-30
    angle = jnp.sqrt(jnp.where(small, 1.0, angle2))
    half = 0.5 * angle
    s = jnp.where(small, 0.5, jnp.sin(half) / jnp.where(small, 1.0, angle))
    c = jnp.where(small, 1.0, jnp.cos(half))
    return jnp.concatenate([c[None], s * rotation_vector])


def normalise(q: Any) -> Any:
    """``q / |q|``."""
    return q / jnp.sqrt(jnp.sum(q * q))


_AXIS = Direction("three finite numbers, not all zero")
"""The declared check of a concrete turn's axis."""


def about_axis(axis: Any, angle: Any) -> Any:
    """The quaternion of a turn by ``angle`` (rad) about ``axis`` (any length but zero; a concrete axis
    that is not three finite numbers, not all zero, is refused naming it)."""
    if not is_traced(axis):
        _AXIS.check(axis, "axis", where="about_axis")
    axis = jnp.asarray(axis, dtype=jnp.result_type(float))
    axis = axis / jnp.sqrt(jnp.sum(axis * axis))
    half = 0.5 * jnp.asarray(angle, dtype=axis.dtype)
    return jnp.concatenate([jnp.cos(half)[None], jnp.sin(half) * axis])


def advance_pose(x: Any, q: Any, v: Any, w: Any, dt: Any) -> tuple[Any, Any]:
    """A pose advanced with a twist held over ``dt``: ``x + dt v``, and ``q`` turned by the
    body-frame rotation vector ``w dt`` (``compose(q, exp_body(w dt))``, renormalised).

    ``x`` in m (world), ``v`` in m/s (world), ``w`` in rad/s (body frame), ``dt`` in s.

    The advance is compiled apart from what surrounds it (an optimisation barrier on its inputs and
    its result): XLA's CPU backend contracts a product and a sum into one fused multiply-add where a
    fused kernel allows, so the same arithmetic fused with different neighbours can round
    differently. Kept apart, it gives the same bits in every program: a free body's step and a
    held body's step that takes no force advance the pose alike, to the last bit.
    """
    x, q, v, w, dt = jax.lax.optimization_barrier((x, q, v, w, dt))
    return jax.lax.optimization_barrier((x + dt * v, normalise(compose(q, exp_body(w * dt)))))
