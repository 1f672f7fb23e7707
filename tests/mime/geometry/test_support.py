"""Support queries against dense sampling; the screw's Newton search; sampling, shortfall and bad input."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.spatial import cKDTree

from mime.errors import ValidationError
from mime.geometry import Box, Capsule, Cylinder, Ellipsoid, Hull, Mesh, Part, Screw, Sphere, cylinder_mesh, rotation

CLOSED = [Sphere(1.0), Ellipsoid(1.0, 0.5, 2.0), Cylinder(0.5, 3.0), Capsule(0.5, 2.0)]
SCREW = Screw(core_radius=1.0, thread_depth=0.25, pitch=1.0, length=4.0)


def _directions(n=40, seed=0):
    d = np.random.default_rng(seed).normal(size=(n, 3))
    return d / np.linalg.norm(d, axis=1, keepdims=True)


@pytest.mark.parametrize("g", CLOSED + [SCREW], ids=lambda g: type(g).__name__)
def test_support_is_never_exceeded_by_dense_samples(g):
    pts, _ = g.sample(0.05 * g.size / 4)
    with jax.enable_x64(True):
        sup = np.asarray(jax.jit(jax.vmap(g.support))(jnp.asarray(_directions())))
    beyond = np.einsum("ij,kj->ik", _directions(), pts).max(axis=1) - np.einsum("ij,ij->i", _directions(), sup)
    assert beyond.max() <= 1e-12 * g.size
    # and the support is attained: a sample lies within the sampling's reach of it
    assert beyond.min() > -0.04 * g.size


def _on_surface(g, p):
    if isinstance(g, Sphere):
        return abs(np.linalg.norm(p) - g.radius)
    if isinstance(g, Ellipsoid):
        return abs(np.sum((p / np.array([g.a, g.b, g.c])) ** 2) - 1.0)
    if isinstance(g, Cylinder):
        return min(abs(np.hypot(p[0], p[1]) - g.radius), abs(abs(p[2]) - g.length / 2))
    if isinstance(g, Capsule):
        z = np.clip(p[2], -g.length / 2, g.length / 2)
        return abs(np.linalg.norm(p - np.array([0, 0, z])) - g.radius)
    if isinstance(g, Screw):
        th = math.atan2(p[1], p[0])
        r = g.core_radius + 0.5 * g.thread_depth * (1 + math.cos(g.k * p[2] - th))
        return abs(np.hypot(p[0], p[1]) - r)


@pytest.mark.parametrize("g", CLOSED + [SCREW], ids=lambda g: type(g).__name__)
def test_support_lies_on_the_surface(g):
    with jax.enable_x64(True):
        sup = np.asarray(jax.jit(jax.vmap(g.support))(jnp.asarray(_directions(10, seed=1))))
    for p in sup:
        assert _on_surface(g, p) < 1e-12


def test_sphere_and_capsule_supports_are_the_closed_forms():
    d = np.array([0.3, -0.4, 0.866])
    d /= np.linalg.norm(d)
    with jax.enable_x64(True):
        assert np.allclose(np.asarray(Sphere(2.0).support(jnp.asarray(d))), 2.0 * d, atol=1e-15)
        c = Capsule(0.5, 2.0)
        assert np.allclose(np.asarray(c.support(jnp.asarray(d))), np.array([0, 0, 1.0]) + 0.5 * d, atol=1e-15)
        e = Ellipsoid(1.0, 2.0, 3.0)
        a2 = np.array([1.0, 4.0, 9.0])
        assert np.allclose(np.asarray(e.support(jnp.asarray(d))), a2 * d / np.sqrt(a2 @ (d * d)), atol=1e-15)


def test_cylinder_and_capsule_hold_the_end_of_the_hint():
    """Lying along a wall (a tie along a line), each end's group holds its own end."""
    with jax.enable_x64(True):
        d = jnp.array([0.0, -1.0, 0.0])
        for g in (Cylinder(0.5, 3.0), Capsule(0.5, 3.0)):
            lo, _ = g.support_near(d, jnp.array([0.0, -0.5, -1.0]))
            hi, _ = g.support_near(d, jnp.array([0.0, -0.5, 1.0]))
            assert float(lo[2]) == -1.5 and float(hi[2]) == 1.5
            assert float(lo[1]) == -0.5 == float(hi[1]) if isinstance(g, Cylinder) else float(lo[1]) == -0.5


def test_screw_newton_search_converges_within_its_bound_and_flags_a_short_bound():
    with jax.enable_x64(True):
        d = jnp.array([0.0, -1.0, 0.05])
        p, ok = SCREW.support_near(d, jnp.array([0.1, -1.1, 0.3]))
        assert bool(ok)
        # a stationary point of g = R(theta, z) (d . e_r) + d_z z: the gradient vanishes there
        th, z = math.atan2(float(p[1]), float(p[0])), float(p[2])
        dn = np.asarray(d) / np.linalg.norm(np.asarray(d))
        g = lambda u: SCREW.radius_at(u[0], u[1]) * (dn[0] * jnp.cos(u[0]) + dn[1] * jnp.sin(u[0])) + dn[2] * u[1]
        grad = np.asarray(jax.grad(g)(jnp.array([th, z])))
        assert np.all(np.abs(grad) < 1e-9) or abs(abs(z) - SCREW.length / 2) < 1e-15
        short = Screw(1.0, 0.25, 1.0, 4.0, newton_steps=1)
        _, ok1 = short.support_near(d, jnp.array([0.6, -0.6, 0.3]))
        assert not bool(ok1)
    assert SCREW.tolerance() == pytest.approx(math.sqrt(np.finfo(np.float64).eps) * SCREW.size)


@pytest.mark.parametrize("g", [Box(2.0, 1.0, 0.5), cylinder_mesh(0.5, 2.0, 12)], ids=["box", "mesh"])
def test_kinds_with_no_support_query_refuse_it_and_keep_their_shortfall(g):
    assert not g.has_support
    with pytest.raises(ValidationError, match="expected a kind with a support query"):
        g.support(jnp.array([0.0, 0.0, 1.0]))
    h = 0.1
    pts, nrm = g.sample(h)
    assert np.allclose(np.linalg.norm(nrm, axis=1), 1.0)
    # random points of the surface lie within the stated shortfall of a sample
    rng = np.random.default_rng(3)
    if isinstance(g, Box):
        q = rng.uniform(-0.5, 0.5, size=(5000, 3)) * np.array([g.x, g.y, g.z])
        axis = rng.integers(0, 3, 5000)
        q[np.arange(5000), axis] = np.sign(rng.uniform(-1, 1, 5000)) * np.array([g.x, g.y, g.z])[axis] / 2
    else:
        v, f = g.vertices, g.faces
        u = rng.random((5000, 2))
        u = np.where(u.sum(1, keepdims=True) > 1, 1 - u, u)
        i = rng.integers(0, len(f), 5000)
        a, b, c = v[f[i, 0]], v[f[i, 1]], v[f[i, 2]]
        q = a + u[:, :1] * (b - a) + u[:, 1:] * (c - a)
    assert cKDTree(pts).query(q)[0].max() <= g.shortfall(h) + 1e-12


@pytest.mark.parametrize("g", [Cylinder(0.5, 1.0), Capsule(0.5, 1.0), Cylinder(0.5, 1.1)], ids=["cylinder", "capsule", "off"])
def test_a_round_sides_points_lie_within_the_shortfall_of_a_sample(g):
    """The side of a cylinder or a capsule, its length a whole number of spacings or not: random points of it
    lie within the stated shortfall of the nearest sample (a side sampled one ring short left a gap of two
    spacings along the axis when the length is two spacings, and points a spacing and more from any sample)."""
    h = 0.5
    pts = np.asarray(g.sample(h)[0])
    rng = np.random.default_rng(5)
    theta, z = rng.uniform(0.0, 2 * np.pi, 4000), rng.uniform(-g.length / 2, g.length / 2, 4000)
    side = np.stack([g.radius * np.cos(theta), g.radius * np.sin(theta), z], axis=1)
    assert cKDTree(pts).query(side)[0].max() <= g.shortfall(h) + 1e-12


@pytest.mark.parametrize("g", [Cylinder(0.5, 1.0), Cylinder(1.3, 0.4)], ids=["long", "flat"])
@pytest.mark.parametrize("h", [0.1, 0.07])
def test_a_cylinders_flat_ends_lie_within_the_shortfall_of_a_sample(g, h):
    """The two discs that end a cylinder, sampled as rings about their centre (``ring_disc``): random points
    of them, uniform over each disc, lie within the stated shortfall of the nearest sample (rings with half
    their points left arcs of about one spacing between samples, past the shortfall)."""
    pts = np.asarray(g.sample(h)[0])
    rng = np.random.default_rng(5)
    r, t = g.radius * np.sqrt(rng.uniform(0.0, 1.0, 4000)), rng.uniform(0.0, 2 * np.pi, 4000)
    z = np.where(rng.uniform(size=4000) < 0.5, -1.0, 1.0) * g.length / 2
    ends = np.stack([r * np.cos(t), r * np.sin(t), z], axis=1)
    assert cKDTree(pts).query(ends)[0].max() <= g.shortfall(h) + 1e-12


@pytest.mark.parametrize("g", CLOSED + [SCREW, Box(2.0, 1.0, 0.5)], ids=lambda g: type(g).__name__)
def test_samples_lie_about_a_spacing_apart_and_within_the_size(g):
    h = 0.1
    pts, _ = g.sample(h)
    nn = cKDTree(pts).query(pts, k=2)[0][:, 1]
    assert nn.max() <= 1.6 * h
    assert np.linalg.norm(pts, axis=1).max() <= g.size / 2 + 1e-12


def test_hull_parts_size_and_extent():
    h = Hull([Part(Sphere(1.0), position=(2.0, 0.0, 0.0)), Capsule(0.5, 1.0)])
    assert h.size == pytest.approx(6.0)
    assert h.has_hull and h.extent == pytest.approx(3.0)
    bare = Hull(extent=0.3)
    assert not bare.has_hull and bare.size is None and bare.radial_extent == 0.3
    pts, _, part = h.sample(0.2)
    assert set(np.unique(part)) == {0, 1}
    turned = Part(Cylinder(0.5, 2.0), orientation=tuple(float(c) for c in rotation.about_axis(jnp.array([0.0, 1.0, 0.0]), math.pi / 2)))
    p, _ = turned.sample(0.2)
    assert np.abs(p[:, 0]).max() == pytest.approx(1.0)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Sphere(-1.0), "radius = -1.0"),
        (lambda: Sphere(0.0), "radius = 0.0 is not allowed; expected a positive length"),
        (lambda: Box(1.0, 0.0, 1.0), "y = 0.0 is not allowed; expected a positive length"),
        (lambda: Sphere(1.0).sample(0.0), "Sphere.sample: spacing = 0.0 is not allowed; expected a positive length"),
        (lambda: Box(1.0, 1.0, 1.0).sample(-0.1), "Box.sample: spacing = -0.1 is not allowed"),
        (lambda: Screw(1.0, 0.1, 0.5, 2.0).sample(float("inf")), "Screw.sample: spacing = inf is not allowed"),
        (lambda: cylinder_mesh(1.0, 1.0, 6).sample("0.1"), "Mesh.sample: spacing = '0.1' is not allowed"),
        (lambda: Hull([Sphere(1.0)]).sample(0.0), "Hull.sample: spacing = 0.0 is not allowed"),
        (lambda: Cylinder(1.0, float("nan")), "length = nan"),
        (lambda: Screw(1.0, 0.1, 0.5, 2.0, newton_steps=0), "newton_steps = 0"),
        (lambda: Hull(), "extent = None"),
        (lambda: Hull([Sphere(1.0)], extent=1.0), "extent = 1.0"),
        (lambda: Part(Sphere(1.0), orientation=(2.0, 0, 0, 0)), "orientation"),
        (lambda: cylinder_mesh(1.0, 1.0, 2), "facets = 2"),
    ],
)
def test_bad_input_is_a_validation_error_naming_the_argument(make, match):
    with pytest.raises(ValidationError, match=match):
        make()


KINDS = [Sphere(1.0), Ellipsoid(1.0, 0.5, 0.3), Cylinder(0.5, 1.0), Capsule(0.5, 1.0), Box(1.0, 1.0, 1.0),
         Screw(1.0, 0.1, 0.5, 2.0), cylinder_mesh(1.0, 1.0, 6)]


@pytest.mark.parametrize("g", KINDS, ids=lambda g: type(g).__name__)
@pytest.mark.parametrize("method", ["sample", "shortfall"])
@pytest.mark.parametrize("spacing", [0.0, -1.0, float("nan"), float("inf"), "0.1", None, [0.1], True])
def test_every_kind_refuses_a_spacing_that_is_not_a_positive_length_naming_itself(g, method, spacing):
    with pytest.raises(ValidationError, match=rf"{type(g).__name__}\.{method}: spacing = .* is not allowed; "
                                              r"expected a positive length in metres"):
        getattr(g, method)(spacing)


@pytest.mark.parametrize("g", [k for k in KINDS if k.has_support], ids=lambda g: type(g).__name__)
@pytest.mark.parametrize("direction", [(0.0, 0.0, 0.0), (float("nan"), 0.0, 1.0), (1.0, 1.0), "up", None],
                         ids=["zero", "nan", "two numbers", "text", "none"])
def test_a_support_query_refuses_a_direction_that_is_not_one_naming_the_kind(g, direction):
    """A concrete direction is checked (a traced one, inside a step, is not: ``jax.jit`` of the query runs)."""
    with pytest.raises(ValidationError, match=rf"{type(g).__name__}\.support: direction = .* is not allowed; "
                                              r"expected three finite real numbers, not all zero"):
        g.support(direction)
    assert np.allclose(jax.jit(g.support)(jnp.array([0.0, 0.0, -2.0])), g.support((0.0, 0.0, -1.0)))


_PRISM = cylinder_mesh(4e-4, 8e-4, 12)
_TURN = (math.cos(0.4), 0.6 * math.sin(0.4), 0.0, 0.8 * math.sin(0.4))
"""A turn of 0.8 rad about (0.6, 0, 0.8): a part's samples and their normals are turned alike."""


@pytest.mark.parametrize("hull", [Sphere(1e-3), Ellipsoid(1e-3, 6e-4, 3e-4), Capsule(radius=3e-4, length=1e-3),
                                  Cylinder(radius=4e-4, length=8e-4), Box(1e-3, 6e-4, 4e-4), _PRISM,
                                  Mesh(_PRISM.vertices, _PRISM.faces[:, ::-1]),
                                  Hull([Part(Box(1e-3, 6e-4, 4e-4), position=(2e-4, -1e-4, 3e-4), orientation=_TURN)])],
                         ids=["Sphere", "Ellipsoid", "Capsule", "Cylinder", "Box", "Mesh", "Mesh wound inward",
                              "Box turned and moved in a hull"])
def test_each_sample_normal_is_the_outward_normal_of_a_supporting_plane(hull):
    """A convex hull lies wholly behind the tangent plane at each of its surface points: for every
    sample ``p`` with normal ``n``, no sample ``q`` has ``n . (q - p)`` above rounding. A normal that
    leans off the surface's (the ellipsoid's ``u * axes`` for ``u / axes``) has samples in front. A mesh
    is turned outward however its faces are wound (a convex prism, given both ways)."""
    points, normals = hull.sample(1.2e-4)[:2]
    points, normals = np.asarray(points), np.asarray(normals)
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, rtol=1e-12)
    ahead = np.max(normals @ points.T - np.sum(normals * points, axis=1)[:, None])
    assert ahead <= 1e-12 * np.max(np.abs(points)), ahead


def _screw_radius(screw, theta, z):
    """The screw's side radius, written here from its formula ``R = r + (h/2)(1 + cos(k z - theta))``, ``k = 2 pi / p``."""
    return screw.core_radius + 0.5 * screw.thread_depth * (1 + np.cos(2 * math.pi / screw.pitch * z - theta))


def _screw_side(screw, theta, z):
    """The screw's side surface at ``(theta, z)``."""
    r = _screw_radius(screw, theta, z)
    return np.stack([r * np.cos(theta), r * np.sin(theta), z], axis=-1)


def test_a_screws_sample_normals_point_out_of_its_solid():
    """A screw is not convex, so the supporting-plane test above does not hold for it; its normals are
    checked against its solid instead (``rho <= R(theta, z)``, ``|z| <= L/2``, written here from the
    surface's formula): a small step along each normal from a sample leaves the solid, and a step back
    enters it."""
    screw = Screw(2e-4, 8e-5, 3e-4, 1.2e-3)
    points, normals = (np.asarray(a) for a in screw.sample(4e-5)[:2])
    h = screw.thread_depth

    def inside(p):
        wall = _screw_radius(screw, np.arctan2(p[:, 1], p[:, 0]), p[:, 2])
        return (np.hypot(p[:, 0], p[:, 1]) < wall) & (np.abs(p[:, 2]) < screw.length / 2)

    side = np.abs(points[:, 2]) < screw.length / 2 - 1e-9  # the caps' rims are edges, their normals either way
    caps = ~side & (np.hypot(points[:, 0], points[:, 1]) < 0.5 * screw.core_radius)
    assert side.sum() > 1000 and caps.sum() > 10
    step = 1e-3 * h
    assert not inside(points[side] + step * normals[side]).any()
    assert inside(points[side] - step * normals[side]).all()
    np.testing.assert_array_equal(normals[caps][:, 2], np.sign(points[caps][:, 2]))


def test_a_screws_side_normals_are_perpendicular_to_the_surface():
    """Pointing out of the solid (above) leaves a normal free to lean along the thread's flank; here each
    side sample's normal is checked against the surface's two tangents, taken by central differences of
    the surface's formula, so that a normal tilted up or down the flank fails."""
    screw = Screw(2e-4, 8e-5, 3e-4, 1.2e-3)
    points, normals = (np.asarray(a) for a in screw.sample(4e-5)[:2])
    side = np.abs(points[:, 2]) < screw.length / 2 - 1e-9
    p, n = points[side], normals[side]
    theta, z = np.arctan2(p[:, 1], p[:, 0]), p[:, 2]
    eps_t, eps_z = 1e-6, 1e-6 * screw.pitch
    along_t = _screw_side(screw, theta + eps_t, z) - _screw_side(screw, theta - eps_t, z)
    along_z = _screw_side(screw, theta, z + eps_z) - _screw_side(screw, theta, z - eps_z)
    for tangent in (along_t, along_z):
        cosine = np.einsum("ij,ij->i", n, tangent) / np.linalg.norm(tangent, axis=1)
        assert np.abs(cosine).max() <= 1e-8


def test_a_screw_holds_no_more_local_deepest_points_than_it_declares():
    """``wall_maxima`` bounds how many local deepest points a flat wall can meet on the kind at once (the hold
    starts at most that many searches in a group). Counted here on a fine grid of the screw's side for 200
    directions, the local maxima of the reach ``p . d`` never outnumber it, and the most any direction reaches
    is one less (a crest at each end as well as those between)."""
    from scipy.ndimage import maximum_filter

    screw = Screw(1.0, 0.25, 1.0, 4.0)
    theta, z = np.meshgrid(np.linspace(0.0, 2 * math.pi, 720, endpoint=False),
                           np.linspace(-screw.length / 2, screw.length / 2, 801), indexing="ij")
    surface = _screw_side(screw, theta, z)
    rng = np.random.default_rng(0)
    counts = []
    for i in range(200):
        d = rng.normal(size=3)
        d[2] *= 0.05 if i % 2 else 1.0  # half of them nearly across the axis, where the crests compete
        reach = surface @ (d / np.linalg.norm(d))
        wrapped = np.concatenate([reach[-2:], reach, reach[:2]])  # theta is periodic
        peak = maximum_filter(wrapped, size=(5, 5), mode="nearest")[2:-2]
        counts.append(int((reach >= peak).sum()))
    assert max(counts) <= screw.wall_maxima
    assert max(counts) >= screw.wall_maxima - 1


def test_a_turned_meshs_radial_extent_is_its_farthest_vertex_from_the_axis():
    """``radial_extent``: the largest distance from the z axis, ``hypot(x, y)`` over the vertices, whichever
    way the mesh is turned about the axis (a prism turned by 10 degrees has no vertex on the x axis)."""
    prism = cylinder_mesh(4e-4, 8e-4, 5)
    c, s = math.cos(math.radians(10.0)), math.sin(math.radians(10.0))
    turned = Mesh(prism.vertices @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]).T, prism.faces)
    assert turned.radial_extent == pytest.approx(4e-4, rel=1e-14)
    assert Hull([turned]).radial_extent == pytest.approx(4e-4, rel=1e-14)


@pytest.mark.parametrize("g", CLOSED + [SCREW, Box(4.0, 3.0, 2.0), cylinder_mesh(1.0, 3.0, 7)],
                         ids=lambda g: type(g).__name__)
def test_each_kinds_radial_extent_is_as_far_as_its_surface_reaches_from_its_axis(g):
    """``radial_extent`` (which ``contact`` 0.1.0 holds the centre at) is the farthest any point of the kind
    lies from its own z axis: no sample lies beyond it, and the farthest sample falls short of it by no
    more than the sampling's shortfall (the farthest surface point lies that close to some sample). A box
    reaches the half diagonal of its cross-section, an ellipsoid its larger semi-axis across z."""
    spacing = g.size / 400
    points = np.asarray(g.sample(spacing)[0])
    reach = np.hypot(points[:, 0], points[:, 1]).max()
    assert reach <= g.radial_extent * (1 + 1e-12)
    assert g.radial_extent - reach <= g.shortfall(spacing)


def test_a_hulls_radial_extent_bounds_its_samples_and_grows_only_with_offsets_across_the_axis():
    """For parts moved off the body's origin ``radial_extent`` is a bound, each part's offset across the z
    axis plus half its size: every sample lies within it, a part moved along the axis keeps the part's own
    bound, and one moved across it adds exactly that offset."""
    ball, box = Sphere(2e-4), Box(4e-4, 2e-4, 2e-4)
    along = Hull([Part(ball, position=(0.0, 0.0, 5e-4)), Part(box, position=(0.0, 0.0, -3e-4))])
    across = Hull([Part(ball, position=(3e-4, 4e-4, 1e-4))])
    assert along.radial_extent == pytest.approx(box.size / 2, rel=1e-14)
    assert across.radial_extent == pytest.approx(5e-4 + 2e-4, rel=1e-14)
    for hull in (along, across):
        points = np.asarray(hull.sample(5e-5)[0])
        assert np.hypot(points[:, 0], points[:, 1]).max() <= hull.radial_extent * (1 + 1e-12)
