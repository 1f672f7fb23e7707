"""The margin sweep compiles one program for every hull kind against one surface.

A sweep measures each step's gap without the contact's code (``mime.sweep._Measure``): in
closed form for the kinds that have one, as the largest ``p . d`` over points for a mesh, a
point set or a screw's dense sampling. Every kind's points are padded to one row count
(``MEASURE_CAPACITY``) and read by chunks up to their own count, so the sweeps of a sphere,
a box, a 64-vertex mesh and a screw of 16,384 samples are one compiled program, and their
measurements are the largest over exactly their own points.
"""

import jax
import numpy as np

from mime import sweep


def test_the_sweeps_of_every_hull_kind_share_one_compiled_program(monkeypatch):
    program, calls = sweep._sweep, []

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return program(*args, **kwargs)

    monkeypatch.setattr(sweep, "_sweep", spy)
    before = program._cache_size()
    for kind in ("sphere", "box", "mesh", "screw"):  # a batch of 5 starts keys no other test's program
        sweep.margin_sweep(kind, 5, seed=0, steps=2)
    assert program._cache_size() - before == 1
    # compiled under MIME's options (tests/mime/test_compile.py): no fusion handed to YNNPACK. The
    # program lowered and compiled again from the first call's arguments: JAX answers it with the
    # executable the sweeps ran
    args, kwargs = calls[0]
    with jax.enable_x64(True):
        assert "__ynn_fusion" not in program.lower(*args, **kwargs).compile().as_text()


def test_a_kind_measured_over_points_reads_exactly_its_own():
    mesh = sweep.sweep_kinds()["mesh"]
    kind, _, points, count = sweep._kind_numbers(mesh, 1e-5)
    assert points.shape == (sweep.MEASURE_CAPACITY, 3) and count == len(mesh.vertices)
    vertices = np.asarray(mesh.vertices, dtype=np.float64)
    rng = np.random.default_rng(1)
    with jax.enable_x64(True):
        for d in rng.normal(size=(20, 3)):
            d /= np.linalg.norm(d)
            depth = float(sweep._kind_depth(kind, np.zeros(3), points, count, d))
            # the same largest dot product, to its last bits or so (the order of a dot's three terms may differ)
            np.testing.assert_allclose(depth, np.max(vertices @ d), rtol=4 * np.finfo(float).eps, atol=0)
        # the rows past the last filled chunk are never read: far points planted there change nothing
        # (the filled chunks' own padding repeats the last point, so it never wins either)
        filled = -(-count // sweep.MEASURE_CHUNK) * sweep.MEASURE_CHUNK
        assert (points[count:filled] == points[count - 1]).all()
        planted = points.copy()
        planted[filled:] = 1.0
        assert float(sweep._kind_depth(kind, np.zeros(3), planted, count, np.array([1.0, 0.0, 0.0]))) == \
            float(np.max(vertices[:, 0]))


def test_a_sweep_hands_its_program_the_host_arrays_as_they_are(monkeypatch):
    """The body's step inputs and the gap measure go to the compiled sweep as NumPy: the program's call
    converts them. Converted one by one with ``jnp.asarray`` first, each leaf ran an eager program of
    its own (11 of them, lowered and compiled or looked up, in each process that swept)."""
    program, calls = sweep._sweep, []

    def spy(*args, **kwargs):
        calls.append(args)
        return program(*args, **kwargs)

    monkeypatch.setattr(sweep, "_sweep", spy)
    sweep.margin_sweep("sphere", 5, seed=0, steps=2)
    measure, inputs = calls[0][:2]
    leaves = jax.tree_util.tree_leaves((measure, inputs))
    assert leaves and not [type(leaf).__name__ for leaf in leaves if isinstance(leaf, jax.Array)]


def test_each_closed_form_depth_is_the_kinds_own_support_along_the_direction():
    """The sweep writes each closed kind's depth ``max_{p} p . d`` by a formula of its own; the hull's
    support mapping (``mime.geometry``, another implementation) gives the same reach ``support(d) . d``,
    in every direction (a cylinder's rim and end), to rounding; a box, which answers no support query,
    reaches its farthest corner. A formula true only where the sweep's bodies usually point (a cylinder
    on its side taken as a capsule) fails here."""
    import itertools

    from mime.geometry import Box, Capsule, Cylinder, Ellipsoid, Sphere

    def reach(geometry, dk):
        if isinstance(geometry, Box):
            half = np.array([geometry.x, geometry.y, geometry.z]) / 2
            return max(float((np.array(signs) * half) @ dk) for signs in itertools.product((-1, 1), repeat=3))
        return float(np.asarray(geometry.support(dk)) @ dk)

    rng = np.random.default_rng(5)
    d = rng.normal(size=(64, 3))
    d = np.concatenate([d / np.linalg.norm(d, axis=1, keepdims=True), np.eye(3), -np.eye(3)])
    with jax.enable_x64(True):
        for geometry in (Sphere(4e-4), Ellipsoid(5e-4, 3e-4, 2e-4), Cylinder(radius=3e-4, length=9e-4),
                         Capsule(radius=2e-4, length=8e-4), Box(6e-4, 4e-4, 3e-4)):
            kind, lengths, points, count = sweep._kind_numbers(geometry, 1e-4)
            depths = np.asarray(jax.vmap(lambda dk: sweep._kind_depth(kind, lengths, points, count, dk))(d))
            for dk, depth in zip(d, depths):
                assert abs(depth - reach(geometry, dk)) <= 1e-15, (type(geometry).__name__, dk, depth)
