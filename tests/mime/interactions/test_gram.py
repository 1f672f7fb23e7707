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


@pytest.mark.parametrize("batch", [None, 300])
def test_matmul3t_is_matmul3_of_the_transpose_to_the_bit(batch):
    """``matmul3t(S, R)`` reads ``R``'s columns where ``matmul3(S, R.T)`` reads a transposed copy: the
    same products summed in the same order, so the same bits, one body or a batch; summed in
    another order, entries move in their last bit."""
    from mime._three import matmul3, matmul3t
    from mime.geometry import rotation

    rng = np.random.default_rng(13)
    with jax.enable_x64(True):
        samples = jnp.asarray(rng.normal(size=(8, 48, 3)) * 3e-4)
        q = rng.normal(size=(batch or 1, 4))
        R = jax.vmap(rotation.matrix)(jnp.asarray(q / np.linalg.norm(q, axis=1, keepdims=True)))
        f, g = (lambda S, R: matmul3t(S, R)), (lambda S, R: matmul3(S, R.T))
        if batch is None:
            got, want = jax.jit(f)(samples, R[0]), jax.jit(g)(samples, R[0])
        else:
            got, want = (jax.jit(jax.vmap(h, (None, 0)))(samples, R) for h in (f, g))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_matmul3t_refuses_an_axis_other_than_three():
    from mime._three import matmul3t
    from mime.errors import ValidationError

    with pytest.raises(ValidationError, match=r"matmul3t: a.shape = \(4, 2\) is not allowed; expected \(\.\.\., 3\)"):
        matmul3t(jnp.zeros((4, 2)), jnp.zeros((3, 3)))
    with pytest.raises(ValidationError, match=r"matmul3t: b.shape = \(3,\) is not allowed; expected \(m, 3\)"):
        matmul3t(jnp.zeros((4, 3)), jnp.zeros(3))


def test_a_parts_support_takes_no_transpose():
    """``_part_support`` turns the direction and the start into the part's frame as rows times the
    turn (``d @ turn``, which is ``turn.T @ d``), so its traced program holds no transpose: under ``vmap`` over a
    hold's groups each transposed ``(8, 3, 3)`` turn was a copy of its own, one per kind and call,
    48 copies in a step's compiled program."""
    from mime.geometry import Capsule
    from mime.interactions._hold import _part_support

    with jax.enable_x64(True):
        args = (jnp.zeros(8), jnp.zeros((), jnp.int32), jnp.zeros(3), jnp.eye(3), jnp.ones(3), jnp.zeros(3))
        jaxpr = jax.make_jaxpr(jax.vmap(lambda *a: _part_support(Capsule, *a), (None, None, None, 0, None, 0)))(
            *args[:3], jnp.stack([jnp.eye(3)] * 8), args[4], jnp.zeros((8, 3)))
    names = {e.primitive.name for e in jaxpr.jaxpr.eqns}
    assert "transpose" not in names, names


def test_matmul3_refuses_an_axis_other_than_three():
    from mime._three import matmul3
    from mime.errors import ValidationError

    with pytest.raises(ValidationError, match=r"matmul3: a.shape = \(4, 2\) is not allowed; expected \(\.\.\., 3\)"):
        matmul3(jnp.zeros((4, 2)), jnp.zeros(3))
    with pytest.raises(ValidationError, match=r"matmul3: b.shape = \(2, 3\) is not allowed; expected \(3,\) or \(3, m\)"):
        matmul3(jnp.zeros((4, 3)), jnp.zeros((2, 3)))


@pytest.mark.parametrize("batch", [None, 200])
def test_a_matrix_times_a_vector_is_the_plain_product_to_the_bit(batch):
    """``matmul3(a, v)`` for a ``(3,)`` vector (the rows' speeds ``n @ v``, the turns ``R.T @ d``)."""
    from mime._three import matmul3

    rng = np.random.default_rng(5)
    with jax.enable_x64(True):
        a = jnp.asarray(rng.normal(size=(batch or 1, 16, 3)))
        R = jnp.asarray(rng.normal(size=(batch or 1, 3, 3)))
        v = jnp.asarray(rng.normal(size=(batch or 1, 3)) * 1e-2)
        for A in (a, R, jnp.swapaxes(R, 1, 2)):
            f = jax.jit(lambda A, v: matmul3(A, v))
            g = jax.jit(lambda A, v: A @ v)
            if batch is None:
                got, want = f(A[0], v[0]), g(A[0], v[0])
            else:
                got, want = jax.jit(jax.vmap(f))(A, v), jax.jit(jax.vmap(g))(A, v)
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def _plain_part_support(params, steps, offset, turn, d, hint):
    from mime.geometry import Capsule

    pp, ok = Capsule.support_from(params, turn.T @ d, turn.T @ (hint - offset), steps)
    return offset + turn @ pp, ok


def test_a_parts_support_is_turned_into_and_out_of_its_frame_as_the_plain_products_turn_it():
    """``_part_support`` takes the body-frame direction and start into a part's frame (``turn.T``) and
    its support point back out (``turn``), as the plain products do, for a turned, offset capsule.

    To rounding, not to the bit: compiled alone, XLA fuses the written-out turn with the support's
    arithmetic and the point differs from the plain products' in its last bit (in the book's step
    programs the bits came out equal). A turn the wrong way moves the point by its whole size."""
    from mime.geometry import Capsule, rotation
    from mime.interactions._hold import _part_support

    rng = np.random.default_rng(9)
    capsule = Capsule(radius=2.5e-4, length=1e-3)
    with jax.enable_x64(True):
        params, steps = jnp.asarray(capsule.support_params()), jnp.asarray(8)
        for _ in range(5):
            q = rng.normal(size=4)
            turn = rotation.matrix(jnp.asarray(q / np.linalg.norm(q)))
            offset, d, hint = (jnp.asarray(rng.normal(size=3) * s) for s in (3e-4, 1.0, 3e-4))
            got, ok = jax.jit(lambda *a: _part_support(Capsule, *a))(params, steps, offset, turn, d, hint)
            want, ok_plain = jax.jit(_plain_part_support)(params, steps, offset, turn, d, hint)
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=4 * np.finfo(float).eps, atol=0)
            assert bool(ok) == bool(ok_plain)
