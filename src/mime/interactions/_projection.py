"""The projection rung of ``Contact`` 0.4.0, and the centre hold of ``CentreContact`` 0.1.0.

A *confinement* is what the contact's plan builds and the body's dynamics
holds inside its own update. Built once (``build_confinement``):

1. the hull is sampled at ``spacing`` (body frame) and its samples are split into
   eight groups, the octants about their mean;
2. each group gets as many search starts as its shape can hold local deepest
   points against a flat wall: for a set of probe directions, the samples that
   are deepest among their neighbours are joined into connected places, and the
   most places any probe finds in the group is its count of starts.

Each step (``held_step``), with ``phi`` the surface's signed distance and
``n`` its outward normal, ``gap = phi - margin``:

- *choosing*: each group's starts are its nearest sample and each next nearest
  lying apart from those taken. From each start whose kind answers the support
  query, the search runs (the direction ``-n`` at the start, and once more at the
  point found, for a curved wall); the group keeps the deepest point of a
  converged search, a point of the body. A group whose searches all fail, or
  whose kind has no support query, holds its nearest sample.
- *first pass*: at each held point ``i`` the row ``J_i = (n_i, p_i x R^T n_i)``
  (world linear part, body angular part) must leave the point an outward speed
  ``J_i . (v, w) >= -max(gap_i, 0) / dt``; the force ``lambda_i >= 0`` is found by
  projected Gauss-Seidel over the rows for a fixed number of sweeps, inside the
  body's implicit (backward Euler) velocity solve, so with the drag-augmented
  mass ``m + dt c_t`` and inertia ``I + dt c_r``. Inelastic and frictionless.
- *second pass*, after the step: the points are chosen again at the pose the
  first pass left and held beside the first pass's points; where any ends past
  the margin (beyond the band of ``CONTACT_ULPS`` units in the last place), the
  pose is moved back by projected Gauss-Seidel on the linearised gaps with the
  body's mass and inertia, multipliers ``mu_i >= 0`` (kg m), and the velocity
  into the surface at each projected point is removed (the rule).

Where nothing takes a force the step is the free body's, to the last bit: each
correction is applied with a select, never by adding a zero (``-0.0 + 0.0`` is
``+0.0``).

A body of revolution held at its support takes no torque about its axis (the
normal at a support point meets the axis), and the lever's axial component is
set to zero exactly rather than left to rounding; a ball about the centre takes
no torque at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Mapping, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from mime.errors import ValidationError, finite_number, whole_number
from mime.geometry import Hull, Part, rotation
from mime.geometry.rotation import advance_pose
from mime.interactions.step import ContactReport, FirstPass, FreeSolve

__all__ = [
    "GROUPS",
    "SWEEPS",
    "PROJECTION_SWEEPS",
    "MAX_STARTS",
    "CONTACT_ULPS",
    "CONVERGED",
    "SPACING_FLOOR",
    "RULES",
    "default_spacing",
    "BuildReport",
    "ConfinementArrays",
    "Confinement",
    "build_confinement",
    "build_centre_confinement",
    "held_step",
    "first_pass",
    "choose_points",
    "refine_points",
    "pgs",
    "advance_pose",
    "rows_at",
    "gram",
    "contact_band",
]

GROUPS = 8
"""How many groups the hull's samples are split into (octants about their mean)."""
SWEEPS = 24
"""Projected Gauss-Seidel sweeps of the velocity solve, per step (a fixed count)."""
PROJECTION_SWEEPS = 24
"""Sweeps of the projection after the step (a fixed count)."""
PROJECTION_ITERATIONS = 3
"""How many times the projection re-linearises the held points' gaps at the pose it reached (a fixed count)."""
REFINE = 8
"""Against a curved wall, how many times each projection iteration searches the second pass's points again."""
MAX_STARTS = 8
"""The most search starts a group takes."""
PROBES = 48
"""Probe directions used at build to count a group's local deepest places against a flat wall."""
RULES = ("remove_outward",)
"""The rules a contact may take."""


CONTACT_ULPS = 16
"""Width of the contact band, in units in the last place of the position's magnitude."""
CONVERGED = 1e-6
"""Share of the free step's speed at the held points a step may leave unmet before it flags ``unconverged``."""
SPACING_FLOOR = 0.02
"""The finest default spacing, as a fraction of the hull's size."""


def default_spacing(margin: float, size: float) -> float:
    """The spacing rule, m: the ``margin``, but no finer than ``SPACING_FLOOR`` times the hull's ``size``.

    A body reaches past its sampled points by at most the distance from its farthest
    point to the nearest sample, so sampling at the margin keeps that overshoot
    within the margin's share; a margin too small to say how finely to sample falls
    back to the floor.

    >>> default_spacing(1e-4, 1e-3), default_spacing(1e-6, 1e-3)
    (0.0001, 2e-05)
    """
    return max(margin, SPACING_FLOOR * size)


# ---------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BuildReport:
    """What the build counted: samples, groups, starts and the samples' shortfall (the margin is the confinement's)."""

    mode: str
    spacing: float | None
    samples: int
    group_sizes: tuple[int, ...]
    starts: tuple[int, ...]
    shortfall: float
    held_by_samples: bool


@dataclass(frozen=True)
class _Spec:
    """The static (hashable) part of a confinement: what the compiled step depends on."""

    mode: str  # "hull" or "centre"
    surface: Any
    parts: tuple[tuple[Any, tuple[float, ...], tuple[float, ...]], ...] = ()
    lever_masks: tuple[tuple[float, float, float], ...] = ()
    k_max: int = 1
    sweeps: int = SWEEPS
    projection_sweeps: int = PROJECTION_SWEEPS
    any_support: bool = False
    any_samples: bool = False


@dataclass(frozen=True)
class ConfinementArrays:
    """The numbers of a built confinement that the compiled step reads (a JAX pytree).

    Every confinement has the scalars: ``margin``, how far each hull point is held from
    the surface (m; the one place the margin is stored); ``extent``, the body's extent
    about its centre (m), which the centre hold adds to the margin; and ``shortfall``,
    how far the hull's samples may fall short of its surface (m). A hull's confinement
    also has its samples split into ``GROUPS`` groups, each padded to ``G`` rows:
    ``samples`` (``(GROUPS, G, 3)``, body frame, m), ``valid`` (``(GROUPS, G)``, a
    real sample rather than padding), ``supported`` (``(GROUPS, G)``, the sample's
    part answers the support query), ``part`` (``(GROUPS, G)``, the index of the
    hull part it lies on), ``starts`` (``(GROUPS,)``, each group's count of search
    starts) and ``exclusion`` (``(GROUPS,)``, m, how far apart a group's starts
    lie). The centre hold leaves these ``None``.
    """

    margin: Any
    extent: Any
    shortfall: Any
    samples: Any = None
    valid: Any = None
    supported: Any = None
    part: Any = None
    starts: Any = None
    exclusion: Any = None


jax.tree_util.register_dataclass(
    ConfinementArrays, data_fields=[f.name for f in fields(ConfinementArrays)], meta_fields=[]
)


@dataclass(eq=False)
class Confinement:
    """A built confinement: its settings, its static spec, its arrays and the build report."""

    version: str
    spacing: float | None
    rule: str
    surface: Any
    spec: _Spec
    arrays: ConfinementArrays
    report: BuildReport | None = None

    @property
    def margin(self) -> float:
        """How far each hull point is held from the surface, m (read from ``arrays``, where it is kept)."""
        return float(self.arrays.margin)

    @property
    def reads_orientation(self) -> bool:
        """Whether the hold reads the body's orientation (0.1.0's centre hold never does)."""
        return self.spec.mode == "hull"

    def jax_arrays(self) -> ConfinementArrays:
        """The arrays as float64/int/bool JAX arrays (call inside ``jax.enable_x64``)."""
        return jax.tree_util.tree_map(jnp.asarray, self.arrays)


def _check_common(rule: Any, body: Any, surface: Any, where: str) -> Hull:
    """The rule, the surface and the body's hull. The margin is checked once, by the entry's
    ``margin`` setting (a positive length), before the plan converts it to metres."""
    if rule not in RULES:
        raise ValidationError(f"{where}: rule = {rule!r} is not allowed; expected one of {', '.join(RULES)}")
    if not callable(getattr(surface, "distance_and_normal", None)):
        raise ValidationError(
            f"{where}: surface = {surface!r} is not allowed; expected a mime.scene surface such as "
            f"tube.inner_surface or floor.surface"
        )
    hull = getattr(body, "hull", None)
    if not isinstance(hull, Hull):
        raise ValidationError(f"{where}: body = {body!r} is not allowed; expected a body with a mime.geometry.Hull (a RigidInertialNode)")
    return hull


def build_centre_confinement(*, margin: float, rule: str, body: Any, surface: Any) -> Confinement:
    """``contact`` 0.1.0: hold the centre at the body's extent about its own axis, plus the margin.

    The orientation is never read, so a body turned across a narrow tube passes
    through the wall by as much as it reaches past that extent.
    """
    where = "CentreContact 0.1.0"
    hull = _check_common(rule, body, surface, where)
    extent = hull.radial_extent
    spec = _Spec(mode="centre", surface=surface)
    report = BuildReport("centre", None, 0, (), (), 0.0, False)
    return Confinement(version="0.1.0", spacing=None, rule=rule, surface=surface, spec=spec,
                       arrays=_scalars(margin, extent, 0.0), report=report)


def _scalars(margin: float, extent: float, shortfall: float) -> ConfinementArrays:
    return ConfinementArrays(margin=np.float64(margin), extent=np.float64(extent), shortfall=np.float64(shortfall))


def _lever_mask(part: Part) -> tuple[float, float, float]:
    g = part.geometry
    if part.at_origin and g.centred_point:
        return (0.0, 0.0, 0.0)
    if part.at_origin and g.axisymmetric:
        return (1.0, 1.0, 0.0)
    return (1.0, 1.0, 1.0)


def _count_places(points: np.ndarray, in_group: np.ndarray, pairs: np.ndarray, size: float) -> tuple[np.ndarray, float]:
    """Per group: the most connected places of local deepest samples any probe direction finds.

    Also returns the smallest distance between two places of one group and probe.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = len(points)
    dirs = _fibonacci(PROBES)
    counts = np.zeros(GROUPS, dtype=int)
    tol = 1e-9 * size
    min_sep = np.inf
    i, j = pairs[:, 0], pairs[:, 1]
    for d in dirs:
        h = points @ d
        lower = np.zeros(n, dtype=bool)
        lower[i[h[i] < h[j] - tol]] = True
        lower[j[h[j] < h[i] - tol]] = True
        top = ~lower
        keep = top[i] & top[j]
        graph = coo_matrix((np.ones(keep.sum()), (i[keep], j[keep])), shape=(n, n))
        _, labels = connected_components(graph, directed=False)
        for g in range(GROUPS):
            sel = top & (in_group == g)
            comps = np.unique(labels[sel])
            counts[g] = max(counts[g], len(comps))
            if 1 < len(comps) <= MAX_STARTS:
                reps = np.array([points[sel & (labels == c)].mean(axis=0) for c in comps])
                dist = np.linalg.norm(reps[:, None] - reps[None], axis=-1)
                min_sep = min(min_sep, float(np.min(dist[np.triu_indices(len(reps), 1)])))
    return counts, min_sep


def _fibonacci(n: int) -> np.ndarray:
    from mime.geometry._base import fibonacci_sphere

    return fibonacci_sphere(n)


def build_confinement(
    *,
    margin: float,
    spacing: float | None,
    rule: str,
    body: Any,
    surface: Any,
    sweeps: int = SWEEPS,
    projection_sweeps: int = PROJECTION_SWEEPS,
) -> Confinement:
    """``contact`` 0.4.0's projection rung: sample the hull, group it, count each group's starts.

    ``margin`` and ``spacing`` are in metres; ``spacing=None`` takes the entry's
    rule (the margin, no finer than ``SPACING_FLOOR`` of the hull's size). A
    body with no parts is held as a ball of its declared extent about its
    centre. A kind held at its samples refuses a spacing whose shortfall passes
    the margin.
    """
    where = "Contact 0.4.0"
    hull = _check_common(rule, body, surface, where)
    margin = float(margin)
    for name, value in (("sweeps", sweeps), ("projection_sweeps", projection_sweeps)):
        whole_number(value, name, "a whole number of at least 1", where=where)
    if not hull.has_hull:
        spec = _Spec(mode="centre", surface=surface, sweeps=sweeps, projection_sweeps=projection_sweeps)
        report = BuildReport("centre", None, 0, (), (), 0.0, False)
        return Confinement(version="0.4.0", spacing=None, rule=rule, surface=surface, spec=spec,
                           arrays=_scalars(margin, hull.extent, 0.0), report=report)
    size = float(hull.size)
    if spacing is None:
        spacing = default_spacing(margin, size)
    spacing = finite_number(spacing, "spacing", "a positive length in metres", where=where, above=0)
    sampled_parts = [p for p in hull.parts if not p.geometry.has_support]
    shortfall_samples = max((p.geometry.shortfall(spacing) for p in sampled_parts), default=0.0)
    if shortfall_samples > margin:
        kinds = ", ".join(sorted({type(p.geometry).__name__ for p in sampled_parts}))
        raise ValidationError(
            f"{where}: spacing = {spacing!r} m is not allowed for a hull held at its samples ({kinds}): its "
            f"samples' shortfall {shortfall_samples:.6g} m passes the margin {margin!r} m; expected a spacing whose "
            f"shortfall is at most the margin"
        )
    shortfall_support = max((p.geometry.shortfall(spacing) for p in hull.parts if p.geometry.has_support), default=0.0)
    pts, _nrm, part_idx = hull.sample(spacing)
    supported = np.array([hull.parts[i].geometry.has_support for i in part_idx])
    centre = pts.mean(axis=0)
    rel = pts - centre
    octant = (rel[:, 0] >= 0).astype(int) + 2 * (rel[:, 1] >= 0) + 4 * (rel[:, 2] >= 0)

    from scipy.spatial import cKDTree

    tree = cKDTree(pts)
    pairs = tree.query_pairs(r=2.0 * spacing, output_type="ndarray")
    counts, min_sep = _count_places(pts[supported] if supported.all() else pts, octant, pairs, size) if supported.any() else (np.zeros(GROUPS, int), np.inf)
    walls = sum(p.geometry.wall_maxima for p in hull.parts if p.geometry.has_support)
    sizes = np.bincount(octant, minlength=GROUPS)
    sup_sizes = np.bincount(octant[supported], minlength=GROUPS)
    starts = np.where(sup_sizes > 0, np.clip(np.minimum(counts, walls), 1, MAX_STARTS), 0)
    exclusion = float(min(3.0 * spacing, 0.5 * min_sep)) if np.isfinite(min_sep) else 3.0 * spacing
    exclusion = max(exclusion, 1.5 * spacing)

    G = 1 << int(math.ceil(math.log2(max(int(sizes.max()), 1))))  # a power of two: hulls share compilations
    samples = np.zeros((GROUPS, G, 3))
    valid = np.zeros((GROUPS, G), dtype=bool)
    sup = np.zeros((GROUPS, G), dtype=bool)
    part = np.zeros((GROUPS, G), dtype=np.int32)
    for g in range(GROUPS):
        sel = np.nonzero(octant == g)[0]
        k = len(sel)
        if k == 0:  # an empty octant repeats a sample of the hull, never taken as valid
            samples[g, :] = pts[0]
            continue
        samples[g, :k] = pts[sel]
        samples[g, k:] = pts[sel[0]]
        valid[g, :k] = True
        sup[g, :k] = supported[sel]
        part[g, :k] = part_idx[sel]
        part[g, k:] = part_idx[sel[0]]
    k_max = int(max(1, starts.max()))
    spec = _Spec(
        mode="hull",
        surface=surface,
        parts=tuple((p.geometry, p.position, p.orientation) for p in hull.parts),
        lever_masks=tuple(_lever_mask(p) for p in hull.parts),
        k_max=k_max,
        sweeps=sweeps,
        projection_sweeps=projection_sweeps,
        any_support=bool(supported.any()),
        any_samples=bool((~supported).any()),
    )
    arrays = ConfinementArrays(
        margin=np.float64(margin),
        extent=np.float64(hull.extent),
        shortfall=np.float64(max(shortfall_support, shortfall_samples)),
        samples=samples,
        valid=valid,
        supported=sup,
        part=part,
        starts=starts.astype(np.int32),
        exclusion=np.full(GROUPS, exclusion),
    )
    report = BuildReport(
        "hull", spacing, int(len(pts)), tuple(int(s) for s in sizes), tuple(int(s) for s in starts),
        float(shortfall_samples if sampled_parts else shortfall_support), bool(sampled_parts),
    )
    return Confinement(version="0.4.0", spacing=spacing, rule=rule, surface=surface, spec=spec, arrays=arrays, report=report)


# ---------------------------------------------------------------------------------------
# the step
# ---------------------------------------------------------------------------------------
def pgs(K: Any, u0: Any, target: Any, active: Any, sweeps: int) -> tuple[Any, Any, Any]:
    """Projected Gauss-Seidel for ``lambda >= 0``, ``u = u0 + K lambda >= target``, complementary.

    Returns ``(lambda, u, residual_per_sweep)``; the residual after a sweep is
    ``max_i |min(lambda_i K_ii, u_i - target_i)|`` over the active rows (zero
    exactly at a solution), in the units of ``u``.
    """
    n = K.shape[0]
    diag = jnp.diagonal(K)

    def residual(lam, u):
        r = jnp.minimum(lam * diag, u - target)
        return jnp.max(jnp.where(active, jnp.abs(r), 0.0))

    def row(i, carry):
        lam, u = carry
        new = jnp.maximum(0.0, lam[i] + (target[i] - u[i]) / diag[i])
        new = jnp.where(active[i], new, 0.0)
        step = new - lam[i]
        return lam.at[i].set(new), u + K[:, i] * step

    def sweep(s, carry):
        lam, u, hist = carry
        # a rolled loop over the rows: unrolling them was measured slower, both to compile (5.8 s
        # against 4.1 s for the microrobot's scan) and to run (365 against 308 us a step)
        lam, u = jax.lax.fori_loop(0, n, row, (lam, u))
        return lam, u, hist.at[s].set(residual(lam, u))

    lam0 = jnp.zeros_like(u0)
    hist0 = jnp.zeros(sweeps, dtype=u0.dtype)
    return jax.lax.fori_loop(0, sweeps, sweep, (lam0, u0, hist0))


def pgs_if(needed: Any, K: Any, u0: Any, target: Any, active: Any, sweeps: int) -> tuple[Any, Any, Any]:
    """``pgs``, run only where ``needed``; otherwise ``(0, u0, 0)`` without a sweep.

    The caller passes ``needed`` false only where no active row starts below its target:
    every sweep would then leave ``lambda`` at ``+0.0`` and ``u`` at ``u0``, so the
    shortcut changes no bit of what the step uses, and saves the sweeps (most of a
    step's cost) on the steps that need none. Under ``vmap`` both branches run.
    """
    def skip(K, u0, target, active):
        return jnp.zeros_like(u0), u0, jnp.zeros(sweeps, dtype=u0.dtype)

    def run(K, u0, target, active):
        return pgs(K, u0, target, active, sweeps)

    return jax.lax.cond(needed, run, skip, K, u0, target, active)


def _part_support(spec: _Spec, j: int):
    geom, pos, orient = spec.parts[j]
    Rp = np.asarray(rotation.matrix(np.asarray(orient)))
    o = np.asarray(pos)

    def f(d, hint):
        dp = jnp.asarray(Rp.T) @ d
        hp = jnp.asarray(Rp.T) @ (hint - jnp.asarray(o))
        if geom.has_support:
            pp, ok = geom.support_near(dp, hp)
        else:
            pp, ok = hp, jnp.array(False)
        return jnp.asarray(o) + jnp.asarray(Rp) @ pp, ok

    return f


def _support(spec: _Spec, part: Any, d: Any, hint: Any) -> tuple[Any, Any]:
    fs = [_part_support(spec, j) for j in range(len(spec.parts))]
    if len(fs) == 1:
        return fs[0](d, hint)
    return jax.lax.switch(part, fs, d, hint)


@dataclass(frozen=True)
class Held:
    """The points a pass holds (one per group): body-frame point, world normal, gap, lever and flags."""

    point: Any  # (k, 3) body frame
    normal: Any  # (k, 3) world
    gap: Any  # (k,)  phi - margin, m
    lever: Any  # (k, 3) body frame: p x R^T n (masked where exact)
    mask: Any  # (k, 3) the lever's mask
    part: Any  # (k,) the part each point lies on
    supported: Any  # (k,) the point is a converged support point (it may be refined)
    by_samples: Any  # (k,) held at a sample of a kind with no support query
    short: Any  # (k,) a search that did not converge: held at the group's nearest sample


jax.tree_util.register_pytree_node(
    Held,
    lambda h: ((h.point, h.normal, h.gap, h.lever, h.mask, h.part, h.supported, h.by_samples, h.short), None),
    lambda _, c: Held(*c),
)


class Projected(NamedTuple):
    """The projection's state after the step, carried through its iterations.

    ``position`` (m) and ``orientation`` the pose so far; ``push`` the multipliers
    ``mu_i`` summed over the iterations (kg m); ``projected`` whether any iteration
    moved the pose; ``points`` the second pass's points, searched again as the pose turns.
    """

    position: Any
    orientation: Any
    push: Any
    projected: Any
    points: Any


def rows_at(spec: _Spec, arrays: ConfinementArrays, x: Any, q: Any, point: Any, masks: Any) -> tuple[Any, Any, Any]:
    """``(normal, gap, lever)`` of body-frame points at the pose ``(x, q)``; ``masks`` (k, 3) multiply the lever."""
    R = rotation.matrix(q)
    X = x + point @ R.T
    phi, n = spec.surface.distance_and_normal(X)
    lever = jnp.cross(point, n @ R) * masks
    return n, phi - arrays.margin, lever


def choose_points(spec: _Spec, arrays: ConfinementArrays, x: Any, q: Any) -> Held:
    """Each group's held point at the pose ``(x, q)`` (see the module's docstring)."""
    if spec.mode == "centre":
        phi, n = spec.surface.distance_and_normal(x)
        zero = jnp.zeros((1, 3), dtype=x.dtype)
        gap = phi - arrays.extent - arrays.margin
        no = jnp.array([False])
        return Held(zero, n[None], gap[None], zero, zero, jnp.zeros(1, jnp.int32), no, no, no)
    S, valid, sup, part = arrays.samples, arrays.valid, arrays.supported, arrays.part
    R = rotation.matrix(q)
    X = x + S @ R.T
    phi, _ = spec.surface.distance_and_normal(X)
    gap = phi - arrays.margin
    inf = jnp.array(jnp.inf, dtype=gap.dtype)
    groups = jnp.arange(GROUPS)
    masks = jnp.asarray(np.array(spec.lever_masks), dtype=x.dtype)

    # kinds held at their samples: the group's nearest sample of them
    g_ns = jnp.where(valid & ~sup, gap, inf)
    i_ns = jnp.argmin(g_ns, axis=1)
    gap_ns = g_ns[groups, i_ns]
    p_ns = S[groups, i_ns]

    if not spec.any_support:
        ones = jnp.ones_like(p_ns)
        n, g, lever = rows_at(spec, arrays, x, q, p_ns, ones)
        no = jnp.zeros(GROUPS, bool)
        return Held(p_ns, n, g, lever, ones, part[groups, i_ns], no, valid.any(axis=1), no)

    # starts: the nearest sample, then each next nearest apart from those taken
    avail = valid & sup
    idx, oks = [], []
    for k in range(spec.k_max):
        gk = jnp.where(avail, gap, inf)
        i = jnp.argmin(gk, axis=1)
        ok = jnp.isfinite(gk[groups, i]) & (k < arrays.starts)
        s = S[groups, i]
        far = jnp.sum((S - s[:, None, :]) ** 2, axis=-1) > arrays.exclusion[:, None] ** 2
        avail = avail & far
        idx.append(i)
        oks.append(ok)
    idx = jnp.stack(idx, axis=1)  # (8, K)
    oks = jnp.stack(oks, axis=1)
    hints = S[groups[:, None], idx]  # (8, K, 3)
    parts = part[groups[:, None], idx]

    def search(hint, p):
        Xh = x + R @ hint
        _, n0 = spec.surface.distance_and_normal(Xh)
        pt, ok = _support(spec, p, -(R.T @ n0), hint)
        if not spec.surface.flat:
            _, n1 = spec.surface.distance_and_normal(x + R @ pt)
            pt, ok = _support(spec, p, -(R.T @ n1), pt)
        return pt, ok

    pts, conv = jax.vmap(jax.vmap(search))(hints, parts)  # (8, K, 3), (8, K)
    phi_c, _ = spec.surface.distance_and_normal(x + pts @ R.T)
    gap_c = jnp.where(oks & conv, phi_c - arrays.margin, inf)
    kbest = jnp.argmin(gap_c, axis=1)
    best_gap = gap_c[groups, kbest]
    found = jnp.isfinite(best_gap)
    p_sup = jnp.where(found[:, None], pts[groups, kbest], hints[:, 0])
    part_sup = jnp.where(found, parts[groups, kbest], parts[:, 0])
    has_start = oks[:, 0]
    short = has_start & ~found
    mask_sup = jnp.where(found[:, None], masks[part_sup], 1.0)
    gap_sup = jnp.where(found, best_gap, jnp.where(has_start, gap[groups, idx[:, 0]], inf))

    if spec.any_samples:
        use_ns = gap_ns < gap_sup
        point = jnp.where(use_ns[:, None], p_ns, p_sup)
        mask = jnp.where(use_ns[:, None], 1.0, mask_sup)
        held_part = jnp.where(use_ns, part[groups, i_ns], part_sup)
        by_samples = use_ns
        short = short & ~use_ns
        supported_pt = found & ~use_ns
    else:
        point, mask, by_samples = p_sup, mask_sup, jnp.zeros(GROUPS, bool)
        held_part, supported_pt = part_sup, found
    n, g, lever = rows_at(spec, arrays, x, q, point, mask)
    return Held(point, n, g, lever, mask, held_part, supported_pt, by_samples, short)


def refine_points(spec: _Spec, x: Any, q: Any, held: Held, points: Any = None, iterations: int = 1) -> Any:
    """The held support points searched again at the pose ``(x, q)``, each from itself (samples stay).

    Against a curved wall the deepest point is where the support along the wall's
    normal at that very point lands on it: a fixed point, reached here by
    ``iterations`` repeats (on a flat wall one search at the pose is exact).
    """
    points = held.point if points is None else points
    if spec.mode != "hull" or not spec.any_support:
        return points
    R = rotation.matrix(q)

    def one(p, part, ok):
        _, n0 = spec.surface.distance_and_normal(x + R @ p)
        new, conv = _support(spec, part, -(R.T @ n0), p)
        return jnp.where(ok & conv, new, p)

    def again(_, pts):
        return jax.vmap(one)(pts, held.part, held.supported)

    return jax.lax.fori_loop(0, iterations, again, points)


def gram(n: Any, lever: Any, inv_m: Any, inv_I: Any) -> Any:
    """The rows' coupling ``K = J M^-1 J^T`` (the Delassus matrix), ``J_i = (n_i, lever_i)``.

    ``n`` (k, 3) the world normals and ``lever`` (k, 3) the body-frame levers; ``inv_m``
    is 1/mass (1/kg) and ``inv_I`` the three inverse principal moments (1/(kg m^2)).
    ``K_ij`` is the speed row ``i`` gains per unit impulse at row ``j`` (m/s per N s, 1/kg).
    """
    return (n @ n.T) * inv_m + (lever * inv_I) @ lever.T


def contact_band(arrays: ConfinementArrays, x: Any) -> Any:
    """The contact band at position ``x``, m: a gap above ``-band`` counts as on the margin.

    ``CONTACT_ULPS`` units in the last place of the largest magnitude the step's
    positions reach, ``|x| + extent + margin``.
    """
    eps = jnp.finfo(x.dtype).eps
    return CONTACT_ULPS * eps * (jnp.sqrt(jnp.sum(x * x)) + arrays.extent + arrays.margin)


def first_pass(spec: _Spec, arrays: ConfinementArrays, state: Mapping[str, Any], free: FreeSolve, dt: Any) -> FirstPass:
    """The first pass at the step's start (a :class:`~mime.interactions.step.FirstPass`).

    It unpacks as ``(held, lambda, u, target, u_free, residual_per_sweep)``: ``u`` is
    each held point's outward speed after the solve, ``target`` the least it may be.
    """
    x, q = state["position"], state["orientation"]
    A = choose_points(spec, arrays, x, q)
    K = gram(A.normal, A.lever, 1.0 / free.mass_eff, 1.0 / free.inertia_eff)
    u_free = A.normal @ free.velocity + A.lever @ free.angular_velocity
    target = -jnp.maximum(A.gap, 0.0) / dt
    active = jnp.isfinite(A.gap)
    lam, u, hist = pgs_if(jnp.any(active & (u_free < target)), K, u_free, target, active, spec.sweeps)
    return FirstPass(A, lam, u, target, u_free, hist)


def held_step(spec: _Spec, arrays: ConfinementArrays, state: Mapping[str, Any], free: FreeSolve, dt: Any):
    """One step of a body held by the confinement, from its free velocity solve.

    ``free`` is the free body's implicit solve (:class:`~mime.interactions.step.FreeSolve`).
    Returns ``(new_state, report)``, the report a :class:`~mime.interactions.step.ContactReport`.
    """
    x, q = state["position"], state["orientation"]
    v_free, w_free = free.velocity, free.angular_velocity
    A, lam, u, target, u_free, hist = first_pass(spec, arrays, state, free, dt)
    active = jnp.isfinite(A.gap)
    touch1 = jnp.any(lam > 0)
    inv_me, inv_Ie = 1.0 / free.mass_eff, 1.0 / free.inertia_eff
    v1 = jnp.where(touch1, v_free + (A.normal.T @ lam) * inv_me, v_free)
    w1 = jnp.where(touch1, w_free + (A.lever.T @ lam) * inv_Ie, w_free)
    residual = jnp.where(touch1, hist[-1], 0.0)
    unmet_free = jnp.max(jnp.where(active, jnp.maximum(target - u_free, 0.0), 0.0))
    unconverged = touch1 & (residual > CONVERGED * unmet_free)

    x1, q1 = advance_pose(x, q, v1, w1, dt)

    # second pass: choose again at the pose the first pass left, hold beside the first's points
    B = choose_points(spec, arrays, x1, q1)
    masksAB = jnp.concatenate([A.mask, B.mask]) if spec.mode == "hull" else B.mask
    inv_m, inv_I = 1.0 / free.mass, 1.0 / free.inertia

    def rows(xx, qq, pB):
        if spec.mode == "hull":
            return rows_at(spec, arrays, xx, qq, jnp.concatenate([A.point, pB]), masksAB)
        h = choose_points(spec, arrays, xx, qq)  # the centre's row: no orientation read
        return h.normal, h.gap, h.lever

    refine = 1 if spec.surface.flat else REFINE

    def project(_, carry: Projected) -> Projected:
        xx, qq, mu_sum, any_projected, pB = carry
        # the second pass's support points follow the body's own deepest point as the projection turns it
        pB = refine_points(spec, xx, qq, B, pB, refine)
        n2, g2, l2 = rows(xx, qq, pB)
        past = jnp.any(g2 < -contact_band(arrays, xx))
        K2 = gram(n2, l2, inv_m, inv_I)
        mu, _, _ = pgs_if(past, K2, g2, jnp.zeros_like(g2), jnp.isfinite(g2), spec.projection_sweeps)
        go = past & jnp.any(mu > 0)
        xp = xx + (n2.T @ mu) * inv_m
        qp = rotation.normalise(rotation.compose(qq, rotation.exp_body((l2.T @ mu) * inv_I)))
        return Projected(jnp.where(go, xp, xx), jnp.where(go, qp, qq), mu_sum + jnp.where(go, mu, 0.0), any_projected | go, pB)

    k2 = masksAB.shape[0]
    x2, q2, mu, projected, pB = jax.lax.fori_loop(
        0, PROJECTION_ITERATIONS, project, Projected(x1, q1, jnp.zeros(k2, x.dtype), jnp.array(False), B.point)
    )
    n2, g2, l2 = rows(x2, q2, pB)
    K2 = gram(n2, l2, inv_m, inv_I)
    # the rule at the projected points: the velocity into the surface is removed
    pushed = projected & (mu > 0)
    u2 = n2 @ v1 + l2 @ w1
    lam2, _, _ = pgs_if(jnp.any(pushed), K2, u2, jnp.zeros_like(u2), pushed, spec.sweeps)
    touch2 = jnp.any(lam2 > 0)
    v2 = jnp.where(touch2, v1 + (n2.T @ lam2) * inv_m, v1)
    w2 = jnp.where(touch2, w1 + (l2.T @ lam2) * inv_I, w1)

    touching = touch1 | touch2 | projected
    if spec.mode == "hull":
        forced = jnp.concatenate([lam > 0, jnp.zeros(B.gap.shape, bool)]) | (mu > 0) | (lam2 > 0)
        by_samples = jnp.concatenate([A.by_samples, B.by_samples])
        short_pts = jnp.concatenate([A.short, B.short])
    else:
        forced = (lam > 0) | (mu > 0) | (lam2 > 0)
        by_samples, short_pts = B.by_samples, B.short
    held_by_samples = jnp.any(by_samples & forced)
    support_short = jnp.any(short_pts & (g2 < arrays.shortfall))
    deepest = jnp.argmin(A.gap)
    new_state = {"position": x2, "orientation": q2, "velocity": v2, "angular_velocity": w2}
    report = ContactReport(
        touching=touching,
        unconverged=unconverged,
        held_by_samples=held_by_samples,
        support_short=support_short,
        contact_residual=residual,
        contact_impulse=jnp.sum(lam) + jnp.sum(lam2),
        contact_push=jnp.sum(mu) * projected,
        contact_point=A.point[deepest],
        contact_gap=jnp.min(jnp.where(active, A.gap, jnp.inf)),
    )
    return new_state, report
