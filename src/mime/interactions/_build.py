"""The build of ``Contact`` 0.4.0's projection rung: sampling, groups, starts.

Built once per plan (``build_confinement``):

1. the hull is sampled at ``spacing`` (body frame) and its samples are split into
   ``GROUPS`` groups, the octants about their mean;
2. each group gets as many search starts as its shape can hold local deepest
   points against a flat wall: for a set of ``PROBES`` directions, the samples that
   are deepest among their neighbours are joined into connected places, and the
   most places any probe finds in the group is its count of starts (at most
   ``MAX_STARTS``);
3. the groups are padded to ``SAMPLE_CAPACITY`` rows (more only for a hull that needs
   them), so hulls of any kind and sampling share a compiled step.

The result is a :class:`~mime.interactions.confinement.Confinement` whose hold is a
:class:`~mime.interactions._hold.HullHold`. A body with no hull is held as a ball of
its declared extent about its centre (``mime.interactions._centre.CentreHold``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mime.errors import Number, Whole, invalid
from mime.geometry import Part
from mime.interactions._centre import centre_hold
from mime.interactions._hold import (
    GROUPS, PROJECTION_SWEEPS, SAMPLE_CAPACITY, SAMPLE_CHUNK, SUPPORT_KINDS, SWEEPS, HullHold,
)
from mime.interactions.confinement import BuildReport, Confinement, checked_hull
from mime.scene import shape_of

__all__ = ["MAX_STARTS", "PROBES", "SPACING_FLOOR", "default_spacing", "build_confinement"]

MAX_STARTS = 8
"""The most search starts a group takes."""
PROBES = 48
"""Probe directions used at build to count a group's local deepest places against a flat wall."""
SPACING_FLOOR = 0.02
"""The finest default spacing, as a fraction of the hull's size."""

_SWEEPS = Whole("a whole number of at least 1")
_SPACING = Number("a positive length in metres", above=0)


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
    hull = checked_hull(rule, body, surface, where)
    margin = float(margin)
    for name, value in (("sweeps", sweeps), ("projection_sweeps", projection_sweeps)):
        _SWEEPS.check(value, name, where=where)
    if not hull.has_hull:
        report = BuildReport("centre", None, 0, (), (), 0.0, False)
        hold = centre_hold(margin=margin, extent=hull.extent, surface=surface, sweeps=sweeps,
                           projection_sweeps=projection_sweeps)
        return Confinement(version="0.4.0", rule=rule, surface=surface, spacing=None, hold=hold, report=report)
    size = float(hull.size)
    if spacing is None:
        spacing = default_spacing(margin, size)
    spacing = _SPACING.check(spacing, "spacing", where=where)
    sampled_parts = [p for p in hull.parts if not p.geometry.has_support]
    shortfall_samples = max((p.geometry.shortfall(spacing) for p in sampled_parts), default=0.0)
    if shortfall_samples > margin:
        kinds = ", ".join(sorted({type(p.geometry).__name__ for p in sampled_parts}))
        raise invalid("spacing", spacing,
                      f"a spacing (m) whose samples' shortfall is at most the margin {margin!r} m for a hull held at "
                      f"its samples ({kinds}); at this spacing the shortfall is {shortfall_samples:.6g} m",
                      where=where)
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

    # one size of sample arrays (SAMPLE_CAPACITY rows a group, more only for a hull that needs them), so that
    # hulls share a compiled step whatever their sampling; the step reads the filled chunks alone
    chunks = max(1, math.ceil(int(sizes.max()) / SAMPLE_CHUNK))
    G = (SAMPLE_CAPACITY if chunks * SAMPLE_CHUNK <= SAMPLE_CAPACITY
         else SAMPLE_CHUNK << math.ceil(math.log2(chunks)))
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
    shape = shape_of(surface)
    kinds = tuple(type(p.geometry) if p.geometry.has_support else None for p in hull.parts)
    uniform = len(set(kinds)) == 1 and kinds[0] in SUPPORT_KINDS
    hold = HullHold(
        margin=np.float64(margin),
        extent=np.float64(hull.extent),
        shortfall=np.float64(max(shortfall_support, shortfall_samples)),
        samples=samples,
        valid=valid,
        supported=sup,
        part=part,
        starts=starts.astype(np.int32),
        exclusion=np.full(GROUPS, exclusion),
        most_starts=np.int32(max(1, starts.max())),
        surface=shape,
        part_params=np.stack([p.geometry.support_params() for p in hull.parts]),
        part_steps=np.array([p.geometry.support_steps for p in hull.parts], dtype=np.int32),
        part_offset=np.array([p.position for p in hull.parts], dtype=np.float64),
        part_turn=np.stack([np.asarray(p.matrix(), dtype=np.float64) for p in hull.parts]),
        lever_masks=np.array([_lever_mask(p) for p in hull.parts], dtype=np.float64),
        sweeps=np.int32(sweeps),
        projection_sweeps=np.int32(projection_sweeps),
        kind=np.int32(SUPPORT_KINDS.index(kinds[0]) if uniform else 0),
        search_once=np.bool_(len(hull.parts) == 1 and hull.parts[0].geometry.hint_free and shape.flat
                             and supported.all() and (starts >= 1).all()),
        chunks=np.int32(chunks),
        kinds=None if uniform else kinds,
    )
    report = BuildReport(
        "hull", spacing, int(len(pts)), tuple(int(s) for s in sizes), tuple(int(s) for s in starts),
        float(shortfall_samples if sampled_parts else shortfall_support), bool(sampled_parts),
    )
    return Confinement(version="0.4.0", rule=rule, surface=surface, spacing=spacing, hold=hold, report=report)


