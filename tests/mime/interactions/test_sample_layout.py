"""A hold's samples: where they are laid out, and that the chunked scan reads every one of them.

``mime.interactions._build.build_confinement`` pads each group's samples to one row count
(``SAMPLE_CAPACITY``, a whole number of ``SAMPLE_CHUNK`` chunks; more rows, a power of two of
chunks, only for a hull whose largest group needs them), and ``HullHold._scan`` reads the filled
chunks one at a time. Whatever the chunk, the scan must find what one ``argmin`` over all of a
group's samples finds: a chunk skipped, read at the wrong rows, or a padding row taken for a
sample all fail here. The hulls range from a sparse sampling (one chunk a group, as the batched
benches use) to one that needs more rows than the capacity.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mime import demos, sweep
from mime.geometry import Box, Capsule, Hull, Part, Sphere, rotation
from mime.interactions._hold import GROUPS, SAMPLE_CAPACITY, SAMPLE_CHUNK


def _hold(hull, spacing: float | None = None):
    """The hold of ``hull`` on the demos' floor at the seed's margin, sampled at ``spacing`` m (else the rule's)."""
    body = demos.make_body(hull, mass=1e-6)
    return demos.confinement(demos.attach(body, demos.FLOOR.surface, spacing=spacing)).hold


HOLDS = {
    # name: (the hold, its chunks: "one", "some" within the capacity, or "past" it)
    # one chunk a group: the sampling of the batched benches
    "capsule, sparse": (lambda: _hold(Capsule(radius=2.5e-4, length=1e-3), 1e-4), "one"),
    "capsule, fine": (lambda: _hold(Capsule(radius=2.5e-4, length=1e-3), 3e-5), "some"),
    "screw": (lambda: _hold(sweep.sweep_kinds()["screw"]), "some"),
    "mesh": (lambda: _hold(sweep.sweep_kinds()["mesh"]), "some"),  # up to 510 samples a group
    # a box held at its samples beside a ball searched: chunks holding samples of both sorts
    "box and ball": (lambda: _hold(Hull([Part(Box(1e-3, 6e-4, 4e-4)), Part(Sphere(2.5e-4), (6e-4, 0.0, 0.0))]), 5e-5),
                     "some"),
    # more samples a group than the capacity holds: the rows grow to a power of two of chunks
    "sphere, finest": (lambda: _hold(Sphere(4e-4), 1.6e-5), "past"),
}


@pytest.fixture(scope="module", params=sorted(HOLDS))
def hold(request):
    make, case = HOLDS[request.param]
    with jax.enable_x64(True):
        h = make()
    chunks = int(h.chunks)
    # each hull is the case it stands for
    assert case == ("one" if chunks == 1 else "some" if chunks * SAMPLE_CHUNK <= SAMPLE_CAPACITY else "past")
    return h


def test_each_groups_samples_fill_its_first_rows_in_whole_chunks(hold):
    valid = np.asarray(hold.valid)
    sizes = valid.sum(axis=1)
    rows = valid.shape[1]
    chunks = int(hold.chunks)
    assert rows % SAMPLE_CHUNK == 0 and rows >= chunks * SAMPLE_CHUNK
    assert chunks == -(-sizes.max() // SAMPLE_CHUNK)  # the fewest chunks that hold the largest group
    if chunks * SAMPLE_CHUNK <= SAMPLE_CAPACITY:
        assert rows == SAMPLE_CAPACITY  # one size for every hull that fits, so they share a program
    else:
        assert rows == SAMPLE_CHUNK * 2 ** int(np.ceil(np.log2(chunks)))
    for g in range(GROUPS):
        assert valid[g, :sizes[g]].all() and not valid[g, sizes[g]:].any()


def _plain_nearest(hold, x, q):
    """Each group's gaps and least gap over its valid samples of one sort (searched, held at the samples),
    from all samples at once (no chunks)."""
    R = rotation.matrix(q)
    phi, _ = hold.surface.distance_and_normal(x + hold.samples @ R.T)
    out = []
    for sort in (hold.supported, ~hold.supported):
        gap = jnp.where(hold.valid & sort, phi - hold.margin, jnp.inf)
        out.append((gap, jnp.min(gap, axis=1)))
    return out


@jax.jit
def _both(hold, x, q):
    scan = hold._scan(x, rotation.matrix(q))
    return scan, _plain_nearest(hold, x, q)


@settings(max_examples=10, deadline=None)
@given(q=st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).filter(lambda v: sum(c * c for c in v) > 0.1),
       height=st.floats(-2e-4, 2e-3))
def test_the_chunked_scan_finds_each_groups_nearest_sample(hold, q, height):
    with jax.enable_x64(True):
        qv = jnp.asarray(np.asarray(q) / np.linalg.norm(q))
        scan, plain = _both(hold, jnp.asarray([1e-4, -2e-4, height]), qv)
    valid, supported = np.asarray(hold.valid), np.asarray(hold.supported)
    # the gaps' rounding: a few units in the last place of the largest coordinate the poses reach
    scale = 8 * np.finfo(float).eps * (np.hypot(2e-4, height) + float(hold.extent))
    for (gap, least), i, scanned, sort in zip(plain, (scan.i_sup, scan.i_ns), (scan.gap_sup, scan.gap_ns),
                                              (supported, ~supported)):
        gap, least, i = np.asarray(gap), np.asarray(least), np.asarray(i)
        has = np.isfinite(least)
        assert np.array_equal(has, (valid & sort).any(axis=1))  # a group with samples of this sort
        # the chosen sample is a real one of its group and sort, and as near as the nearest of all (to
        # rounding: the scan and the plain product are compiled apart); a group with none finds none
        np.testing.assert_allclose(gap[np.arange(GROUPS), i][has], least[has], rtol=0, atol=scale)
        np.testing.assert_allclose(np.asarray(scanned)[has], least[has], rtol=0, atol=scale)
        assert np.all(np.isinf(np.asarray(scanned)[~has]))


def test_only_a_hull_searched_in_closed_form_takes_the_gaps_along_the_normal():
    """On a flat surface the scan takes a sample's gap as ``phi(x) + s . R^T n`` only where every part is
    searched in closed form (the gap picks a search's start, and every search converges); a hull with a
    part held at its samples, or a screw whose Newton search may fail and hold its start, keeps the gaps
    at the points, whose rounding decides which of a face's tied samples is held (MIME-ANO-140)."""
    with jax.enable_x64(True):
        closed = {name: bool(make().all_closed_form) for name, (make, _) in HOLDS.items()}
        box = bool(_hold(Box(6e-4, 4e-4, 3e-4)).all_closed_form)
        others = {k: bool(_hold(g).all_closed_form) for k, g in sweep.sweep_kinds().items() if k != "no hull"}
    assert closed == {"capsule, sparse": True, "capsule, fine": True, "screw": False, "mesh": False,
                      "box and ball": False, "sphere, finest": True}
    assert not box
    assert others == {"sphere": True, "ellipsoid": True, "cylinder": True, "capsule": True, "screw": False,
                      "box": False, "mesh": False}
