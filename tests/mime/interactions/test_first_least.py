"""The hold's nearest sample is ``argmin``'s, to the index, by two plain reductions.

``mime.interactions._hold._first_least`` picks each group's first column holding the least
gap. It must pick what ``jnp.argmin`` picks whatever the row holds: ties, both signs of zero
(equal, so the first of them), infinities (a row of padding), NaN (least, as ``argmin`` takes
it). The rows are drawn from a few values so that ties are common. Its reductions take a row's
least value by halves (``_row_least``), which must be ``min``'s value for rows of any width, odd
ones too, under a plain ``jax.jit`` and under MIME's compiler options.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings, strategies as st

from mime._compile import jit
from mime.interactions._hold import GROUPS, SAMPLE_CHUNK, _first_least, _nearer, _row_least

VALUES = [0.0, -0.0, 1e-300, -1e-300, 2.5e-4, -3.0e-5, np.inf, -np.inf, np.nan]

_least = jax.jit(_first_least)
_least_mime = jit(_first_least)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(VALUES), min_size=7, max_size=7), min_size=1, max_size=8))
def test_first_least_is_argmin(rows):
    with jax.enable_x64(True):
        g = jnp.asarray(np.array(rows, dtype=np.float64))
        assert np.array_equal(np.asarray(_least(g)), np.asarray(jnp.argmin(g, axis=1)))


def test_the_first_of_equal_zeros_and_of_a_row_of_padding():
    with jax.enable_x64(True):
        g = jnp.asarray([[1.0, 0.0, -0.0, 0.0], [np.inf] * 4, [1.0, np.nan, -1.0, np.nan]])
        assert np.asarray(_least(g)).tolist() == [1, 0, 1]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(VALUES), min_size=1, max_size=SAMPLE_CHUNK + 3), st.integers(1, 3))
def test_a_rows_least_by_halves_is_its_min(row, copies):
    with jax.enable_x64(True):
        g = np.array([row] * copies, dtype=np.float64)
        want = np.min(g, axis=1)  # NumPy's min: NaN where the row holds one
        for compile_ in (jax.jit, jit):
            got = np.asarray(compile_(_row_least)(jnp.asarray(g)))
            assert np.array_equal(got, want, equal_nan=True), (compile_, got, want)
        ints = np.arange(len(row), dtype=np.int32)[::-1] * np.isfinite(np.asarray(row))
        assert np.array_equal(np.asarray(jit(_row_least)(jnp.asarray(ints[None]))), [ints.min()])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(VALUES), min_size=SAMPLE_CHUNK, max_size=SAMPLE_CHUNK),
                min_size=1, max_size=8))
def test_first_least_is_argmin_under_mimes_options_at_the_holds_width(rows):
    with jax.enable_x64(True):
        g = np.array(rows, dtype=np.float64)
        assert np.array_equal(np.asarray(_least_mime(jnp.asarray(g))), np.argmin(g, axis=1))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 19), st.integers(0, 7), st.integers(0, SAMPLE_CHUNK - 1)),
                min_size=1, max_size=6))
def test_first_least_in_a_callers_batched_program_takes_nan_as_argmin_does(nans):
    """A caller who traces the hold into a ``jax.jit(jax.vmap(...))`` of their own compiles it under
    XLA's default options, where a row's ``min`` handed to YNNPACK drops a NaN (jaxlib 0.10.2;
    ``tests/mime/test_compile.py`` pins it). The halves take no ``min``, so the index is still
    ``argmin``'s: the NaN's."""
    with jax.enable_x64(True):
        g = np.linspace(-1.0, 1.0, 20 * 8 * SAMPLE_CHUNK).reshape(20, 8, SAMPLE_CHUNK)[:, :, ::-1].copy()
        for batch, group, column in nans:
            g[batch, group, column] = np.nan
        got = np.asarray(jax.jit(jax.vmap(_first_least))(jnp.asarray(g)))
        assert np.array_equal(got, np.argmin(g, axis=2))


def test_first_least_has_no_chained_reduction():
    """XLA's CPU backend runs a row's ``min`` as one chain of dependent comparisons, several times
    slower on a batch's gaps than the halves' independent ones: the choice's scan holds none."""
    with jax.enable_x64(True):
        jaxpr = jax.make_jaxpr(_first_least)(jnp.zeros((8, SAMPLE_CHUNK)))
    names = {eqn.primitive.name for eqn in jaxpr.jaxpr.eqns}
    assert not names & {"reduce_min", "argmin"}, names


FINITE = [0.0, -0.0, 1e-300, -3.0e-5, 2.5e-4, np.inf]  # a hold's gaps: finite, or inf for padding


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 3).flatmap(lambda chunks: st.lists(
    st.lists(st.sampled_from(FINITE), min_size=chunks * SAMPLE_CHUNK, max_size=chunks * SAMPLE_CHUNK),
    min_size=GROUPS, max_size=GROUPS)))
def test_the_nearest_sample_over_chunks_is_argmin_over_all_of_them(rows):
    """The choice scans a group's samples a chunk at a time, keeping the least gap so far
    (``_nearer``): a later chunk's equal gap must not displace an earlier one, so the index is the
    first of equals over the whole row, as one ``argmin`` takes it. Drawn from six values, rows tie
    within and across chunks."""
    with jax.enable_x64(True):
        g = np.array(rows, dtype=np.float64)
        best, index = jnp.full(GROUPS, jnp.inf), jnp.zeros(GROUPS, jnp.int32)
        for c in range(g.shape[1] // SAMPLE_CHUNK):
            best, index = _nearer(jnp.asarray(g[:, c * SAMPLE_CHUNK:(c + 1) * SAMPLE_CHUNK]), jnp.asarray(c),
                                  best, index)
        assert np.array_equal(np.asarray(index), np.argmin(g, axis=1))
        assert np.array_equal(np.asarray(best), np.min(g, axis=1))
