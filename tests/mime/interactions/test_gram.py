"""The Delassus matrix is ``J M^-1 J^T`` to the bit, however it is written.

``mime.interactions._solve.gram`` writes its two products of three out (``mime._three.matmul3``)
in the order XLA's CPU dot sums them, so that XLA fuses them with what reads them. Its values must stay
those of the plain matrix products the book's claims were first measured with: one system, a
batch under ``vmap``, and the row counts the hold uses. A reordered sum (say, the first two
products added last) moves about a third of the entries in their last bit and fails here; a
wrong product (a lever without its inverse moment, a normal paired with a lever) fails by far
more.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mime.interactions._solve import gram


def _plain(n, lever, inv_m, inv_I):
    return (n @ n.T) * inv_m + (lever * inv_I) @ lever.T


def _rows(seed: int, batch: int, k: int):
    rng = np.random.default_rng(seed)
    n = rng.normal(size=(batch, k, 3))
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    lever = rng.normal(size=(batch, k, 3)) * 3e-4  # m: a hull a fraction of a millimetre across
    inv_m = 1.0 / rng.uniform(1e-7, 1e-5, size=batch)  # 1/kg
    inv_I = 1.0 / rng.uniform(1e-15, 1e-12, size=(batch, 3))  # 1/(kg m^2)
    return n, lever, inv_m, inv_I


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.sampled_from([8, 16, 24]))
def test_one_system_is_the_plain_product_to_the_bit(seed, k):
    with jax.enable_x64(True):
        n, lever, inv_m, inv_I = (jnp.asarray(a[0]) for a in _rows(seed, 1, k))
        got = np.asarray(jax.jit(gram)(n, lever, inv_m, inv_I))
        want = np.asarray(jax.jit(_plain)(n, lever, inv_m, inv_I))
    assert got.shape == (k, k)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("k", [8, 16])
def test_a_batch_is_the_plain_product_to_the_bit(k):
    with jax.enable_x64(True):
        args = tuple(jnp.asarray(a) for a in _rows(7, 500, k))
        got = np.asarray(jax.jit(jax.vmap(gram))(*args))
        want = np.asarray(jax.jit(jax.vmap(_plain))(*args))
    assert got.shape == (500, k, k)
    np.testing.assert_array_equal(got, want)


def test_it_is_symmetric_and_its_diagonal_is_the_effective_inverse_mass():
    """``K_ii = 1/m + sum_c lever_ic^2 / I_c`` (a closed form, apart from the products)."""
    with jax.enable_x64(True):
        n, lever, inv_m, inv_I = (np.asarray(a[0]) for a in _rows(3, 1, 8))
        K = np.asarray(gram(jnp.asarray(n), jnp.asarray(lever), jnp.asarray(inv_m), jnp.asarray(inv_I)))
    np.testing.assert_allclose(K, K.T, rtol=1e-14)
    np.testing.assert_allclose(np.diag(K), inv_m + np.sum(lever**2 * inv_I, axis=1), rtol=1e-13)


@pytest.mark.parametrize("batch", [None, 300])
def test_the_samples_are_turned_as_the_plain_product_turns_them(batch):
    """The hold's sample gaps turn each body-frame sample by ``R`` with ``matmul3``, written out for
    XLA to fuse: to the bit ``samples @ R.T``, one body or a batch."""
    from mime.geometry import rotation
    from mime._three import matmul3

    rng = np.random.default_rng(11)
    with jax.enable_x64(True):
        samples = jnp.asarray(rng.normal(size=(8, 64, 3)) * 3e-4)
        q = rng.normal(size=(batch or 1, 4))
        R = jax.vmap(rotation.matrix)(jnp.asarray(q / np.linalg.norm(q, axis=1, keepdims=True)))
        if batch is None:
            got, want = jax.jit(lambda S, R: matmul3(S, R.T))(samples, R[0]), jax.jit(lambda S, R: S @ R.T)(samples, R[0])
        else:
            got = jax.jit(jax.vmap(lambda S, R: matmul3(S, R.T), (None, 0)))(samples, R)
            want = jax.jit(jax.vmap(lambda S, R: S @ R.T, (None, 0)))(samples, R)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_matmul3_refuses_an_axis_other_than_three():
    from mime._three import matmul3
    from mime.errors import ValidationError

    with pytest.raises(ValidationError, match=r"matmul3: a.shape = \(4, 2\) is not allowed; expected \(\.\.\., 3\)"):
        matmul3(jnp.zeros((4, 2)), jnp.zeros(3))
    with pytest.raises(ValidationError, match=r"matmul3: b.shape = \(2, 3\) is not allowed; expected \(3,\) or \(3, m\)"):
        matmul3(jnp.zeros((4, 3)), jnp.zeros((2, 3)))
