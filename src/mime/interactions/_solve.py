"""The contact's solve: the Delassus matrix, projected Gauss-Seidel and its residual.

For held points ``i`` with rows ``J_i = (n_i, l_i)`` (world normal, body-frame lever)
and a body of inverse mass ``1/m`` and inverse principal moments ``1/I``, the
Delassus matrix ``K = J M^-1 J^T`` couples the rows (:func:`gram`). The solve finds
forces ``lambda >= 0`` such that ``u = u0 + K lambda >= target``, complementary
(``lambda_i (u_i - target_i) = 0``), by projected Gauss-Seidel over the rows for a
fixed count of sweeps (:func:`pgs`); its residual after a sweep is
``max_i |min(lambda_i K_ii, u_i - target_i)|`` over the active rows, zero exactly
at a solution.

:func:`solve` is the form the step uses. It runs no sweep where ``needed`` is false
(no active row starts below its target: every sweep would leave ``lambda = +0.0``
and ``u = u0``), and it stops as soon as a sweep changes nothing (the sweeps after
a fixed point repeat it exactly). Both shortcuts give the fixed count's result to
the last bit; under ``vmap`` the sweeps run while any member of the batch still
needs one, so a batch that does not touch does no sweep at all.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["gram", "pgs", "solve", "residual"]

Array = Any


def gram(n: Array, lever: Array, inv_m: Array, inv_I: Array) -> Array:
    """The rows' coupling ``K = J M^-1 J^T`` (the Delassus matrix), ``J_i = (n_i, lever_i)``.

    ``n`` ``(k, 3)`` the world normals and ``lever`` ``(k, 3)`` the body-frame levers;
    ``inv_m`` is 1/mass (1/kg) and ``inv_I`` ``(3,)`` the inverse principal moments
    (1/(kg m^2)). ``K_ij`` is the speed row ``i`` gains per unit impulse at row ``j``
    (m/s per N s, 1/kg).
    """
    return (n @ n.T) * inv_m + (lever * inv_I) @ lever.T


def residual(lam: Array, u: Array, diag: Array, target: Array, active: Array) -> Array:
    """``max_i |min(lambda_i K_ii, u_i - target_i)|`` over the active rows, in the units of ``u``."""
    r = jnp.minimum(lam * diag, u - target)
    return jnp.max(jnp.where(active, jnp.abs(r), 0.0))


def _sweep(KT: Array, target: Array, active: Array, lam: Array, u: Array) -> tuple[Array, Array]:
    """One Gauss-Seidel sweep over the rows, each clamped at zero; ``KT`` is the Delassus matrix
    transposed, so that the column a row's force moves the speeds by is one of its rows (read
    contiguously, once per row of every sweep)."""
    diag = jnp.diagonal(KT)

    def row(i: Array, carry: tuple[Array, Array]) -> tuple[Array, Array]:
        lam, u = carry
        new = jnp.maximum(0.0, lam[i] + (target[i] - u[i]) / diag[i])
        new = jnp.where(active[i], new, 0.0)
        step = new - lam[i]
        return lam.at[i].set(new), u + KT[i] * step

    # a rolled loop over the rows: unrolling them was measured no faster to run and slower to compile
    return jax.lax.fori_loop(0, KT.shape[0], row, (lam, u))


def pgs(K: Array, u0: Array, target: Array, active: Array, sweeps: int) -> tuple[Array, Array, Array]:
    """Projected Gauss-Seidel for ``lambda >= 0``, ``u = u0 + K lambda >= target``, complementary.

    ``K`` ``(k, k)``, ``u0``, ``target`` ``(k,)`` (m/s, or m for the projection), ``active``
    ``(k,)`` bool. Returns ``(lambda, u, residual_per_sweep)``, the last ``(sweeps,)``: each
    sweep's residual (:func:`residual`). Every one of the ``sweeps`` runs.
    """
    diag = jnp.diagonal(K)
    KT = K.T

    def sweep(s: Array, carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        lam, u, hist = carry
        lam, u = _sweep(KT, target, active, lam, u)
        return lam, u, hist.at[s].set(residual(lam, u, diag, target, active))

    lam0 = jnp.zeros_like(u0)
    hist0 = jnp.zeros(sweeps, dtype=u0.dtype)
    return jax.lax.fori_loop(0, sweeps, sweep, (lam0, u0, hist0))


def _differ(a: Array, b: Array) -> Array:
    """Whether two float arrays differ in any bit (``-0.0`` differs from ``+0.0``; a NaN equals itself)."""
    bits = jnp.uint64 if a.dtype == jnp.float64 else jnp.uint32
    return jnp.any(jax.lax.bitcast_convert_type(a, bits) != jax.lax.bitcast_convert_type(b, bits))


def solve(needed: Array, K: Array, u0: Array, target: Array, active: Array,
          sweeps: int) -> tuple[Array, Array, Array]:
    """:func:`pgs`'s ``(lambda, u, last residual)``, with no sweep where not ``needed`` and none after a fixed point.

    Where ``needed`` is false it returns ``(+0.0, u0, 0.0)``. Otherwise it sweeps until a
    sweep leaves ``lambda`` and ``u`` as they were, bit for bit (every later sweep would
    too, and would report the same residual), or until ``sweeps`` have run.
    """
    diag = jnp.diagonal(K)
    KT = K.T

    def more(carry: tuple[Array, Array, Array, Array, Array]) -> Array:
        s, _, _, _, moved = carry
        return moved & (s < sweeps)

    def sweep(carry: tuple[Array, Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array, Array]:
        s, lam, u, _, _ = carry
        new_lam, new_u = _sweep(KT, target, active, lam, u)
        moved = _differ(new_lam, lam) | _differ(new_u, u)
        return s + 1, new_lam, new_u, residual(new_lam, new_u, diag, target, active), moved

    zero = jnp.zeros((), u0.dtype)
    start = (jnp.zeros((), jnp.int32), jnp.zeros_like(u0), u0, zero, jnp.asarray(needed))
    _, lam, u, last, _ = jax.lax.while_loop(more, sweep, start)
    return lam, u, last
