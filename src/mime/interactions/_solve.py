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
needs one, so a batch that does not touch does no sweep at all. Under ``vmap`` the solve
also lays the batch out last (its batching rule, ``_solve_batch``), so that each row
of a sweep reads and writes contiguous memory across the batch, and it sweeps only the
systems that need it: those are gathered, ``SOLVE_TILE`` at a time, and each tile sweeps
until its own systems stop (a batch whose contact needs a solve in a few bodies pays for
those, not for every body).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from mime._three import matmul3

__all__ = ["gram", "pgs", "solve", "residual"]

Array = Any


def gram(n: Array, lever: Array, inv_m: Array, inv_I: Array) -> Array:
    """The rows' coupling ``K = J M^-1 J^T`` (the Delassus matrix), ``J_i = (n_i, lever_i)``.

    ``n`` ``(k, 3)`` the world normals and ``lever`` ``(k, 3)`` the body-frame levers;
    ``inv_m`` is 1/mass (1/kg) and ``inv_I`` ``(3,)`` the inverse principal moments
    (1/(kg m^2)). ``K_ij`` is the speed row ``i`` gains per unit impulse at row ``j``
    (m/s per N s, 1/kg).
    """
    return matmul3(n, n.T) * inv_m + matmul3(lever * inv_I, lever.T)


def residual(lam: Array, u: Array, diag: Array, target: Array, active: Array) -> Array:
    """``max_i |min(lambda_i K_ii, u_i - target_i)|`` over the active rows (the leading axis), in the units of ``u``."""
    r = jnp.minimum(lam * diag, u - target)
    return jnp.max(jnp.where(active, jnp.abs(r), 0.0), axis=0)


def _sweep(KT: Array, diag: Array, target: Array, active: Array, lam: Array, u: Array) -> tuple[Array, Array]:
    """One Gauss-Seidel sweep over the rows, each clamped at zero. The rows lead every argument:
    ``KT[i]`` is the column of ``K`` that row ``i``'s force moves the speeds by (``K.T`` for one
    system, read contiguously once per row of every sweep), and ``diag``, ``target``, ``active``,
    ``lam`` and ``u`` are ``(k,)``, or ``(k, B)`` with ``KT`` ``(k, k, B)`` for ``B`` systems at once."""
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
        lam, u = _sweep(KT, diag, target, active, lam, u)
        return lam, u, hist.at[s].set(residual(lam, u, diag, target, active))

    lam0 = jnp.zeros_like(u0)
    hist0 = jnp.zeros(sweeps, dtype=u0.dtype)
    return jax.lax.fori_loop(0, sweeps, sweep, (lam0, u0, hist0))


def _differ(a: Array, b: Array) -> Array:
    """Whether two float arrays differ in any bit along the leading axis (``-0.0`` differs from ``+0.0``; a NaN
    equals itself)."""
    bits = jnp.uint64 if a.dtype == jnp.float64 else jnp.uint32
    return jnp.any(jax.lax.bitcast_convert_type(a, bits) != jax.lax.bitcast_convert_type(b, bits), axis=0)


def solve(needed: Array, K: Array, u0: Array, target: Array, active: Array,
          sweeps: int) -> tuple[Array, Array, Array]:
    """:func:`pgs`'s ``(lambda, u, last residual)``, with no sweep where not ``needed`` and none after a fixed point.

    Where ``needed`` is false it returns ``(+0.0, u0, 0.0)``. Otherwise it sweeps until a
    sweep leaves ``lambda`` and ``u`` as they were, bit for bit (every later sweep would
    too, and would report the same residual), or until ``sweeps`` have run.

    Under ``vmap`` the batch is laid out last (``_solve_batch``): each system's arithmetic is its
    own solve's, in the same order.
    """
    return _solve(jnp.asarray(needed), K, u0, target, active, jnp.asarray(sweeps))


def _solve_one(needed: Array, K: Array, u0: Array, target: Array, active: Array,
               sweeps: Array) -> tuple[Array, Array, Array]:
    """:func:`solve` for one system."""
    diag = jnp.diagonal(K)
    KT = K.T

    def more(carry: tuple[Array, Array, Array, Array, Array]) -> Array:
        s, _, _, _, moved = carry
        return moved & (s < sweeps)

    def sweep(carry: tuple[Array, Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array, Array]:
        s, lam, u, _, _ = carry
        new_lam, new_u = _sweep(KT, diag, target, active, lam, u)
        moved = _differ(new_lam, lam) | _differ(new_u, u)
        return s + 1, new_lam, new_u, residual(new_lam, new_u, diag, target, active), moved

    zero = jnp.zeros((), u0.dtype)
    start = (jnp.zeros((), jnp.int32), jnp.zeros_like(u0), u0, zero, needed)
    _, lam, u, last, _ = jax.lax.while_loop(more, sweep, start)
    return lam, u, last


_solve_laid_out = jax.custom_batching.custom_vmap(_solve_one)
"""``_solve_one``, laid out for the batch under ``vmap`` (``_solve_batch``)."""


@jax.custom_jvp
def _solve(needed: Array, K: Array, u0: Array, target: Array, active: Array,
           sweeps: Array) -> tuple[Array, Array, Array]:
    """``_solve_one``'s values, batched by ``_solve_batch``; derivatives by ``_solve_derivatives``."""
    return _solve_laid_out(needed, K, u0, target, active, sweeps)


def _solve_derivatives(primals: tuple[Array, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    """Forward-mode derivatives through the one system's loop (``_solve_one``), in the arguments given a
    tangent only; under ``vmap`` they take ``vmap``'s own batching, batch first.

    A ``custom_vmap`` alone is differentiated by JAX 0.10 with its batching rule applied to the
    arguments with a batched tangent and a second ``vmap`` over the rest, which crosses two batch
    axes when some batched argument is not differentiated (always so for ``needed``, ``active`` and
    ``sweeps``): the derivative came out with an extra axis, or wrong.
    """
    live = [not isinstance(t, jax.custom_derivatives.SymbolicZero) for t in tangents]

    def of_live(*xs: Array) -> tuple[Array, Array, Array]:
        given = iter(xs)
        return _solve_one(*(next(given) if is_live else p for p, is_live in zip(primals, live)))

    return jax.jvp(of_live, tuple(p for p, is_live in zip(primals, live) if is_live),
                   tuple(t for t, is_live in zip(tangents, live) if is_live))


_solve.defjvp(_solve_derivatives, symbolic_zeros=True)


@_solve_laid_out.def_vmap
def _solve_batch(axis_size: int, in_batched: list[bool], *args: Array
                 ) -> tuple[tuple[Array, Array, Array], tuple[bool, bool, bool]]:
    """:func:`solve` under ``vmap``: every argument given the batch's leading axis, then ``_solve_last``
    (with no argument batched, as JAX may ask inside a derivative, the one system's solve, unbatched)."""
    if not any(in_batched):
        return _solve_one(*args), (False, False, False)

    def batched(a: Array, is_batched: bool) -> Array:
        return a if is_batched else jnp.broadcast_to(a, (axis_size,) + a.shape)

    return _solve_last(*(batched(a, b) for a, b in zip(args, in_batched))), (True, True, True)


SOLVE_TILE = 64
"""Systems a batched solve sweeps together (``_solve_last``): the batch's systems that need a sweep are
gathered into tiles of this many, and the tiles alone are swept. Tiles of 64 and 128 ran 1,000 batched
boxes alike (about 7.8 us per body-step against 12.5 for the whole batch swept at once); 64 gathers a
few needing bodies into less work."""


def _solve_last(needed: Array, K: Array, u0: Array, target: Array, active: Array,
                sweeps: Array) -> tuple[Array, Array, Array]:
    """:func:`solve` for ``B`` systems at once (``K`` ``(B, k, k)``, the vectors ``(B, k)``, ``needed``
    and ``sweeps`` ``(B,)``), sweeping only the systems that need it.

    A system that needs no sweep returns ``(+0.0, u0, 0.0)``, as :func:`solve` does. The others are
    put first (the order of a stable ``argsort``, counted by ``_needing_first``) and swept
    ``SOLVE_TILE`` at a time by ``_sweeps_last``; each tile runs until its own systems stop, and its results are written back
    to their places. The last tile's start is held within the batch, so it may sweep again a few
    systems of the tile before or systems that need no sweep: each gets what it gets in any
    company (its arithmetic never reads another system's), so writing it twice writes the same
    values. The values are those of one ``_sweeps_last`` over the whole batch, to the bit
    (``tests/mime/interactions/test_solve_batch.py``); a batch of one tile or less is swept whole.
    """
    batch = needed.shape[0]
    if batch <= SOLVE_TILE:
        return _sweeps_last(needed, K, u0, target, active, sweeps)
    order = _needing_first(needed)
    tiles = (jnp.sum(needed, dtype=jnp.int32) + SOLVE_TILE - 1) // SOLVE_TILE

    def tile(t: Array, carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        lam, u, last = carry
        i = jax.lax.dynamic_slice(order, (t * SOLVE_TILE,), (SOLVE_TILE,))
        lam_i, u_i, last_i = _sweeps_last(needed[i], K[i], u0[i], target[i], active[i], sweeps[i])
        return lam.at[i].set(lam_i), u.at[i].set(u_i), last.at[i].set(last_i)

    unswept = (jnp.zeros_like(u0), u0, jnp.zeros(needed.shape, u0.dtype))
    return jax.lax.fori_loop(0, tiles, tile, unswept)


def _needing_first(needed: Array) -> Array:
    """The systems' indices, those that need a sweep first, each part in its own order, ``(B,)`` int32:
    ``jnp.argsort(~needed, stable=True)``, to the index.

    Each system's place is counted, not sorted: a needing system goes to the count of needing ones
    before it, any other after every needing one, at the count of others before it. XLA's CPU sort of
    1,000 flags took about 70 us, the most of a batched solve that no system needs; the counts and one
    scatter take a few.
    """
    needing = needed.astype(jnp.int32)
    index = jnp.arange(needed.shape[0], dtype=jnp.int32)
    before_needing = jnp.cumsum(needing) - needing
    before_other = index - before_needing  # the systems before this one, less those that need a sweep
    place = jnp.where(needed, before_needing, jnp.sum(needing) + before_other)
    return jnp.zeros_like(index).at[place].set(index, unique_indices=True)


def _sweeps_last(needed: Array, K: Array, u0: Array, target: Array, active: Array,
                 sweeps: Array) -> tuple[Array, Array, Array]:
    """The sweeps of ``B`` systems at once (the arguments as :func:`_solve_last` takes them), the batch
    laid out last.

    Laid out as ``vmap`` lays a batch out (first), each Gauss-Seidel row would read its
    speed, force and column of ``K`` at a stride across the batch. Here the rows lead (``K``'s
    columns as ``(k, k, B)``, the vectors as ``(k, B)``), so that a row reads and writes
    contiguous runs of ``B``. The loop runs while any system still sweeps; a system whose
    sweeps have ended keeps its values, as ``vmap`` of ``_solve_one``'s loop keeps them. Each
    row's arithmetic is ``_sweep``'s for every layout, in the same order, so each system gets
    what it gets alone (to the bit in every case measured; XLA keeps the right to fuse a
    batched program's products and sums otherwise, and the tests hold it to rounding).
    """
    KT = jnp.transpose(K, (2, 1, 0))  # KT[i, j, b] = K[b, j, i]: the column of K that row i moves u by
    diag = jnp.diagonal(K, axis1=1, axis2=2).T
    t, a, u0_t = target.T, active.T, u0.T

    def going(carry: tuple[Array, Array, Array, Array, Array]) -> Array:
        s, _, _, _, moved = carry
        return moved & (s < sweeps)

    def sweep(carry: tuple[Array, Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array, Array]:
        s, lam, u, last, moved = carry
        go = going(carry)
        new_lam, new_u = _sweep(KT, diag, t, a, lam, u)
        changed = _differ(new_lam, lam) | _differ(new_u, u)
        r = residual(new_lam, new_u, diag, t, a)
        return (jnp.where(go, s + 1, s), jnp.where(go, new_lam, lam), jnp.where(go, new_u, u),
                jnp.where(go, r, last), jnp.where(go, changed, moved))

    start = (jnp.zeros(needed.shape, jnp.int32), jnp.zeros_like(u0_t), u0_t, jnp.zeros(needed.shape, u0.dtype),
             needed)
    _, lam, u, last, _ = jax.lax.while_loop(lambda c: jnp.any(going(c)), sweep, start)
    return lam.T, u.T, last
