"""The solve under ``vmap`` lays its batch out last, and gives each system what it gets alone.

``mime.interactions._solve.solve`` carries its own batching rule (``_solve_batch``): the rows of
every system lead and the batch runs along the last axis, so that a Gauss-Seidel row reads
contiguous memory, and only the systems that need a sweep are swept, a tile at a time. Each system must still sweep as often as it would alone (none where not
needed, none after its fixed point, none past its own count) and end with the same forces,
speeds and residual, whatever is batched and under whatever transformation. They are compared
to rounding (``RTOL``), not to the bit: XLA may fuse a batched program's products and sums
otherwise than a single system's (``run_batch`` says as much), while a sweep too many or too
few, or a row read from the wrong place, moves them by far more. The systems are not
symmetric, so that a row read from ``K`` where its column belongs shows; the book's batched
runs, whose ``K`` is symmetric, are held to the bit by their claims.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mime.interactions import _solve

BATCH = 4


def _systems(seed: int, k: int, batch: int = BATCH) -> dict[str, np.ndarray]:
    """``batch`` systems of ``k`` rows: coupled, not symmetric, some rows inactive, some systems not needing a sweep."""
    rng = np.random.default_rng(seed)
    J = rng.normal(size=(batch, k, 6))
    K = np.einsum("bic,bjc->bij", J, J) / 6 + 0.2 * np.eye(k) + 0.05 * rng.normal(size=(batch, k, k))
    K[:, np.arange(k), np.arange(k)] = np.abs(K[:, np.arange(k), np.arange(k)]) + 0.1
    return {
        "needed": rng.random(batch) < 0.8,
        "K": K,
        "u0": rng.normal(size=(batch, k)) - 0.5,
        "target": rng.normal(size=(batch, k)) * 0.3,
        "active": rng.random((batch, k)) < 0.85,
        "sweeps": rng.integers(1, 30, size=batch),
    }


RTOL = 1e-12
"""A few hundred units in the last place of the forces and speeds (each O(1) here): the rounding of
a sweep's few dozen operations, taken in another fused order, over up to 30 sweeps."""


def _close(alone: object, together: object) -> None:
    for x, y in zip(jax.tree_util.tree_leaves(alone), jax.tree_util.tree_leaves(together), strict=True):
        np.testing.assert_allclose(np.asarray(y), np.asarray(x), rtol=RTOL, atol=RTOL)


_ORDER = ("needed", "K", "u0", "target", "active", "sweeps")
_batched = jax.jit(jax.vmap(_solve.solve))
_one = jax.jit(_solve.solve)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.sampled_from([1, 3, 8, 16]))
def test_a_batch_is_each_system_alone(seed, k):
    """Every system of a batch, each with its own count of sweeps, ends as it ends solved alone."""
    with jax.enable_x64(True):
        s = _systems(seed, k)
        together = _batched(*(jnp.asarray(s[name]) for name in _ORDER))
        for b in range(BATCH):
            alone = _one(*(jnp.asarray(s[name][b]) for name in _ORDER))
            _close(alone, tuple(x[b] for x in together))


@pytest.mark.parametrize("shared", ["K", "u0", "needed", "sweeps"])
def test_an_argument_the_batch_shares_is_each_systems_own(shared):
    """With one argument shared by the batch (not batched), each system still ends as it does alone."""
    with jax.enable_x64(True):
        s = _systems(7, 8)
        axes = tuple(None if name == shared else 0 for name in _ORDER)
        args = tuple(jnp.asarray(s[name][0] if name == shared else s[name]) for name in _ORDER)
        together = jax.vmap(_solve.solve, in_axes=axes)(*args)
        for b in range(BATCH):
            alone = _solve.solve(*(a if ax is None else a[b] for a, ax in zip(args, axes)))
            _close(alone, tuple(x[b] for x in together))


def test_derivatives_and_nested_batches_give_each_system_its_own():
    """Forward-mode derivatives, batched inside and outside, and a batch of batches give each system
    its own values and derivatives. JAX calls the batching rule with nothing batched inside a
    derivative, and the rule's own code is batched again by an outer ``vmap``."""
    with jax.enable_x64(True):
        s = _systems(11, 3)
        K, target, active = (jnp.asarray(s[name][0]) for name in ("K", "target", "active"))
        U = jnp.asarray(s["u0"])

        def f(u0):
            return _solve.solve(jnp.array(True), K, u0, target, active, 24)

        ones = jnp.ones(U.shape[1])
        inside = jax.vmap(lambda u: jax.jvp(f, (u,), (ones,)))(U)
        outside = jax.jvp(jax.vmap(f), (U,), (jnp.ones_like(U),))
        nested = jax.vmap(jax.vmap(f))(jnp.stack([U, U[::-1]]))
        for b in range(BATCH):
            alone = jax.jvp(f, (U[b],), (ones,))
            _close(alone, jax.tree_util.tree_map(lambda x: x[b], inside))
            _close(alone, jax.tree_util.tree_map(lambda x: x[b], outside))
            _close(alone[0], tuple(x[0, b] for x in nested))
            _close(alone[0], tuple(x[1, BATCH - 1 - b] for x in nested))


def test_a_batch_of_derivatives_in_one_argument_is_each_systems_own():
    """``vmap`` over systems of a derivative in ``u0`` alone, every argument batched (``needed``,
    ``active`` and ``sweeps`` never differentiated): each system's values and derivatives are its own.
    Differentiated through the batching rule, the derivative took a second batch axis."""
    with jax.enable_x64(True):
        s = _systems(13, 5)
        args = [jnp.asarray(s[name]) for name in _ORDER]
        args.append(jnp.asarray(np.random.default_rng(1).normal(size=s["u0"].shape)))

        def one(needed, K, u0, target, active, sweeps, du):
            return jax.jvp(lambda u: _solve.solve(needed, K, u, target, active, sweeps), (u0,), (du,))

        together = jax.vmap(one)(*args)
        for b in range(BATCH):
            _close(one(*(a[b] for a in args)), jax.tree_util.tree_map(lambda x: x[b], together))


# A batch of more than one tile sweeps only the systems that need it, SOLVE_TILE at a time
# (``_solve_last``). Whichever systems need a sweep, and however many (none, fewer than a tile, a
# tile and one, every one), the values must be those of the whole batch swept at once
# (``_sweeps_last``), to the bit: each system's arithmetic never reads another's.
TILE = _solve.SOLVE_TILE
LARGE = 2 * TILE + 44  # the last tile's start is held within the batch
_by_tiles = jax.jit(_solve._solve_last)
_whole = jax.jit(_solve._sweeps_last)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.sampled_from([3, 16]),  # each row count is a program to compile
       count=st.sampled_from([0, 1, TILE - 1, TILE, TILE + 1, 2 * TILE + 1, LARGE]))
def test_a_batch_swept_by_tiles_is_the_whole_batch_swept_to_the_bit(seed, k, count):
    with jax.enable_x64(True):
        s = _systems(seed, k, LARGE)
        needed = np.zeros(LARGE, bool)
        needed[np.random.default_rng(seed).permutation(LARGE)[:count]] = True
        s["needed"] = needed
        args = tuple(jnp.asarray(s[name]) for name in _ORDER)
        tiled, whole = _by_tiles(*args), _whole(*args)
    for x, y in zip(tiled, whole, strict=True):
        np.testing.assert_array_equal(np.asarray(x).view(np.uint64), np.asarray(y).view(np.uint64))
    lam, u, last = (np.asarray(x) for x in tiled)
    # a system that needs no sweep is returned untouched: +0.0 forces, its own speeds, a zero residual
    assert np.all(lam[~needed].view(np.uint64) == 0) and np.array_equal(u[~needed], s["u0"][~needed])
    assert np.all(last[~needed] == 0.0)


def test_a_large_batch_under_vmap_is_each_system_alone():
    """Through ``vmap`` of :func:`solve` (its batching rule), a batch of more than two tiles gives each
    system what it gets alone."""
    with jax.enable_x64(True):
        s = _systems(17, 8, LARGE)
        together = _batched(*(jnp.asarray(s[name]) for name in _ORDER))
        for b in range(0, LARGE, 7):
            alone = _one(*(jnp.asarray(s[name][b]) for name in _ORDER))
            _close(alone, tuple(x[b] for x in together))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=300))
def test_the_needing_systems_come_first_as_a_stable_sort_puts_them(flags):
    """The tiles' order is counted, not sorted (``_needing_first``): it must be ``argsort(~needed, stable=True)``."""
    needed = jnp.asarray(flags)
    order = jax.jit(_solve._needing_first)(needed)
    assert order.dtype == jnp.int32
    assert np.array_equal(np.asarray(order), np.argsort(~np.asarray(flags), kind="stable"))
