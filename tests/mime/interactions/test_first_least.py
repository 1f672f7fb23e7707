"""The hold's nearest sample is ``argmin``'s, to the index, by two plain reductions.

``mime.interactions._hold._first_least`` picks each group's first column holding the least
gap. It must pick what ``jnp.argmin`` picks whatever the row holds: ties, both signs of zero
(equal, so the first of them), infinities (a row of padding), NaN (least, as ``argmin`` takes
it). The rows are drawn from a few values so that ties are common.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings, strategies as st

from mime.interactions._hold import _first_least

VALUES = [0.0, -0.0, 1e-300, -1e-300, 2.5e-4, -3.0e-5, np.inf, -np.inf, np.nan]

_least = jax.jit(_first_least)


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
