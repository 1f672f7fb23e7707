"""The hold of ``Contact`` 0.4.0's projection rung: choose the points, the two passes, the rule.

A *hold* is what the contact's plan builds and the body's step takes as an input
(:class:`~mime.dynamics.Hold`): given the free velocity solve, it finishes the
step. :class:`HullHold` holds a body by points of its hull. With ``phi`` the
surface's signed distance, ``n`` its outward normal and ``gap = phi - margin``,
each step:

- *choosing* (:meth:`HullHold.choose`): each of the ``GROUPS`` groups' starts are its
  nearest sample and each next nearest lying apart from those taken. From each
  start whose kind answers the support query, the search runs (the direction
  ``-n`` at the start, and once more at the point found, for a curved wall); the
  group keeps the deepest point of a converged search, a point of the body. A
  group whose searches all fail, or whose kind has no support query, holds its
  nearest sample.
- *first pass* (:func:`first_pass`): at each held point ``i`` the row
  ``J_i = (n_i, p_i x R^T n_i)`` (world linear part, body angular part) must leave
  the point an outward speed ``J_i . (v, w) >= -max(gap_i, 0) / dt``; the force
  ``lambda_i >= 0`` is found by projected Gauss-Seidel over the rows
  (``mime.interactions._solve``) inside the body's implicit (backward Euler)
  velocity solve, so with the drag-augmented mass ``m + dt c_t`` and inertia
  ``I + dt c_r``. Inelastic and frictionless.
- *second pass* (:func:`two_passes`), after the pose advances: the points are
  chosen again at the pose the first pass left and held beside the first pass's
  points; where any ends past the margin (beyond the band of ``CONTACT_ULPS``
  units in the last place), the pose is moved back by projected Gauss-Seidel on
  the linearised gaps with the body's mass and inertia, multipliers
  ``mu_i >= 0`` (kg m), re-linearised up to ``PROJECTION_ITERATIONS`` times (stopping once an
  iteration moves nothing), and the velocity into the surface at each projected point is
  removed (the *rule*).

Where nothing takes a force the step is the free body's, to the last bit: each
correction is applied with a select, never by adding a zero (``-0.0 + 0.0`` is
``+0.0``).

A body of revolution held at its support takes no torque about its axis (the
normal at a support point meets the axis), and the lever's axial component is
set to zero exactly rather than left to rounding; a ball about the centre takes
no torque at all.

The two passes are written once (:func:`two_passes`) for any hold that chooses its
points as a :class:`PointChoice`; 0.1.0's centre hold
(``mime.interactions._centre.CentreHold``) is the other.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Protocol

import jax
import jax.numpy as jnp
import numpy as np

from mime._pytree import pytree, static
from mime.dynamics import ContactReport, FreeSolve, RigidState
from mime.geometry import rotation
from mime.geometry.rotation import advance_pose
from mime.interactions._solve import gram, solve

__all__ = [
    "GROUPS", "SWEEPS", "PROJECTION_SWEEPS", "PROJECTION_ITERATIONS", "REFINE", "CONTACT_ULPS", "CONVERGED",
    "Held", "FirstPass", "HullHold", "PointChoice", "SecondPass", "first_pass", "two_passes", "contact_band",
]

Array = Any

GROUPS = 8
"""How many groups the hull's samples are split into (octants about their mean); each step holds one point of each."""
SWEEPS = 24
"""The most projected Gauss-Seidel sweeps of the velocity solve per step (fewer once a sweep changes nothing)."""
PROJECTION_SWEEPS = 24
"""The most sweeps of the projection after the step, per re-linearisation."""
PROJECTION_ITERATIONS = 3
"""The most times the projection re-linearises the held points' gaps at the pose it reached (it stops once an
iteration moves nothing)."""
REFINE = 8
"""Against a curved wall, how many times each projection iteration searches the second pass's points again."""
CONTACT_ULPS = 16
"""Width of the contact band, in units in the last place of the position's magnitude."""
CONVERGED = 1e-6
"""Share of the free step's speed at the held points a step may leave unmet before it flags ``unconverged``."""


@pytree
class Held:
    """The points a pass holds, ``k`` of them (one per group for a hull).

    Attributes:
        point: ``(k, 3)`` m, body frame.
        normal: ``(k, 3)`` the surface's outward unit normal at each, world frame.
        gap: ``(k,)`` m, ``phi - margin`` (``inf`` for a group with no point).
        lever: ``(k, 3)`` m, body frame: ``p x R^T n``, masked where it is exactly zero.
        mask: ``(k, 3)`` the lever's mask (0 where the lever's component is zero exactly).
        part: ``(k,)`` int, the hull part each point lies on.
        supported: ``(k,)`` bool, a converged support point (it may be searched again).
        by_samples: ``(k,)`` bool, held at a sample of a kind with no support query.
        short: ``(k,)`` bool, a search that did not converge: held at the group's nearest sample.
    """

    point: Array
    normal: Array
    gap: Array
    lever: Array
    mask: Array
    part: Array
    supported: Array
    by_samples: Array
    short: Array


@pytree
class FirstPass:
    """The first pass at the step's start: the held points, their forces and speeds.

    Attributes:
        held: the points (:class:`Held`, ``k`` of them).
        impulse: ``(k,)`` N s, the force ``lambda_i >= 0`` at each.
        speed: ``(k,)`` m/s, each point's outward speed after the solve.
        target: ``(k,)`` m/s, the least it may be, ``-max(gap, 0) / dt``.
        free_speed: ``(k,)`` m/s, the speed before the solve.
        residual: ``()`` m/s, the solve's residual after its last sweep.
    """

    held: Held
    impulse: Array
    speed: Array
    target: Array
    free_speed: Array
    residual: Array


class SecondPass(NamedTuple):
    """How a hold's second pass holds its points (built while tracing; not a pytree).

    ``rows(x, q, points)`` gives ``(normal, gap, lever)`` of the second pass's rows at the pose;
    ``points`` are the second pass's own points to refine as the pose turns (``refine``, once per
    re-linearisation; ``refine_times(x, q, points, k)`` for ``k`` of them at one pose);
    ``size`` the rows' count; ``first_rows(v)`` spreads a first-pass ``(k,)`` vector over them;
    ``by_samples``, ``short`` the rows' flags.
    """

    rows: Callable[[Array, Array, Array], tuple[Array, Array, Array]]
    points: Array
    refine: Callable[[Array, Array, Array], Array]
    refine_times: Callable[[Array, Array, Array, Array], Array]
    size: int
    first_rows: Callable[[Array], Array]
    by_samples: Array
    short: Array


class PointChoice(Protocol):
    """A hold whose points :func:`two_passes` holds: ``choose`` them at a pose, pair them for the second pass."""

    margin: Array
    extent: Array
    shortfall: Array
    sweeps: int
    projection_sweeps: int

    def choose(self, x: Array, q: Array) -> Held: ...

    def second_pass(self, first: Held, again: Held) -> SecondPass: ...


def contact_band(x: Array, extent: Array, margin: Array) -> Array:
    """The contact band at position ``x``, m: a gap above ``-band`` counts as on the margin.

    ``CONTACT_ULPS`` units in the last place of the largest magnitude the step's
    positions reach, ``|x| + extent + margin``.
    """
    eps = jnp.finfo(x.dtype).eps
    return CONTACT_ULPS * eps * (jnp.sqrt(jnp.sum(x * x)) + extent + margin)


def first_pass(hold: PointChoice, state: RigidState, free: FreeSolve, dt: Array) -> FirstPass:
    """The first pass at the step's start (see the module's docstring)."""
    A = hold.choose(state.position, state.orientation)
    K = gram(A.normal, A.lever, 1.0 / free.mass_eff, 1.0 / free.inertia_eff)
    u_free = A.normal @ free.velocity + A.lever @ free.angular_velocity
    target = -jnp.maximum(A.gap, 0.0) / dt
    active = jnp.isfinite(A.gap)
    lam, u, last = solve(jnp.any(active & (u_free < target)), K, u_free, target, active, hold.sweeps)
    return FirstPass(A, lam, u, target, u_free, last)


class _Projected(NamedTuple):
    """The projection's carry: how many iterations ran, the pose so far, the summed multipliers
    (kg m), whether any iteration moved the pose and whether the last did, and the second pass's
    points searched again as it turns."""

    iteration: Array
    position: Array
    orientation: Array
    push: Array
    projected: Array
    moved: Array
    points: Array


def two_passes(hold: PointChoice, state: RigidState, free: FreeSolve, dt: Array) -> tuple[RigidState, ContactReport]:
    """One held step from the free solve: the first pass, the pose advanced, the second pass and the rule."""
    x, q = state.position, state.orientation
    v_free, w_free = free.velocity, free.angular_velocity
    first = first_pass(hold, state, free, dt)
    A, lam, target, u_free = first.held, first.impulse, first.target, first.free_speed
    active = jnp.isfinite(A.gap)
    touch1 = jnp.any(lam > 0)
    inv_me, inv_Ie = 1.0 / free.mass_eff, 1.0 / free.inertia_eff
    v1 = jnp.where(touch1, v_free + (A.normal.T @ lam) * inv_me, v_free)
    w1 = jnp.where(touch1, w_free + (A.lever.T @ lam) * inv_Ie, w_free)
    residual = jnp.where(touch1, first.residual, 0.0)
    unmet_free = jnp.max(jnp.where(active, jnp.maximum(target - u_free, 0.0), 0.0))
    unconverged = touch1 & (residual > CONVERGED * unmet_free)

    x1, q1 = advance_pose(x, q, v1, w1, dt)

    # second pass: choose again at the pose the first pass left, hold beside the first's points
    second = hold.second_pass(A, hold.choose(x1, q1))
    inv_m, inv_I = 1.0 / free.mass, 1.0 / free.inertia

    def more(carry: _Projected) -> Array:
        # an iteration that moved nothing leaves the pose as it was: the next would only search the
        # second pass's points again there (done below), so the re-linearisations stop
        return (carry.iteration < PROJECTION_ITERATIONS) & ((carry.iteration == 0) | carry.moved)

    def project(carry: _Projected) -> _Projected:
        k, xx, qq, mu_sum, any_projected, _, pB = carry
        # the second pass's support points follow the body's own deepest point as the projection turns it
        pB = second.refine(xx, qq, pB)
        n2, g2, l2 = second.rows(xx, qq, pB)
        past = jnp.any(g2 < -contact_band(xx, hold.extent, hold.margin))
        K2 = gram(n2, l2, inv_m, inv_I)
        mu, _, _ = solve(past, K2, g2, jnp.zeros_like(g2), jnp.isfinite(g2), hold.projection_sweeps)
        go = past & jnp.any(mu > 0)
        xp = xx + (n2.T @ mu) * inv_m
        qp = rotation.normalise(rotation.compose(qq, rotation.exp_body((l2.T @ mu) * inv_I)))
        return _Projected(k + 1, jnp.where(go, xp, xx), jnp.where(go, qp, qq), mu_sum + jnp.where(go, mu, 0.0),
                          any_projected | go, go, pB)

    start = _Projected(jnp.zeros((), jnp.int32), x1, q1, jnp.zeros(second.size, x.dtype), jnp.array(False),
                       jnp.array(False), second.points)
    ran, x2, q2, mu, projected, _, pB = jax.lax.while_loop(more, project, start)
    # the searches the stopped iterations would have made, at the pose they would have left as it was
    pB = second.refine_times(x2, q2, pB, PROJECTION_ITERATIONS - ran)
    n2, g2, l2 = second.rows(x2, q2, pB)
    K2 = gram(n2, l2, inv_m, inv_I)
    # the rule at the projected points: the velocity into the surface is removed
    pushed = projected & (mu > 0)
    u2 = n2 @ v1 + l2 @ w1
    lam2, _, _ = solve(jnp.any(pushed), K2, u2, jnp.zeros_like(u2), pushed, hold.sweeps)
    touch2 = jnp.any(lam2 > 0)
    v2 = jnp.where(touch2, v1 + (n2.T @ lam2) * inv_m, v1)
    w2 = jnp.where(touch2, w1 + (l2.T @ lam2) * inv_I, w1)

    touching = touch1 | touch2 | projected
    forced = second.first_rows(lam > 0) | (mu > 0) | (lam2 > 0)
    held_by_samples = jnp.any(second.by_samples & forced)
    support_short = jnp.any(second.short & (g2 < hold.shortfall))
    deepest = jnp.argmin(A.gap)
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
    return RigidState(x2, q2, v2, w2), report


# ---------------------------------------------------------------------------------------
# the hull's points
# ---------------------------------------------------------------------------------------
def _part_support(parts: tuple, j: int) -> Callable[[Array, Array], tuple[Array, Array]]:
    geom, pos, orient = parts[j]
    Rp = np.asarray(rotation.matrix(np.asarray(orient)))
    o = np.asarray(pos)

    def f(d: Array, hint: Array) -> tuple[Array, Array]:
        dp = jnp.asarray(Rp.T) @ d
        hp = jnp.asarray(Rp.T) @ (hint - jnp.asarray(o))
        if geom.has_support:
            pp, ok = geom.support_near(dp, hp)
        else:
            pp, ok = hp, jnp.array(False)
        return jnp.asarray(o) + jnp.asarray(Rp) @ pp, ok

    return f


@pytree
class HullHold:
    """``Contact`` 0.4.0's hold of a body by points of its hull (see the module's docstring).

    Built by ``mime.interactions._build.build_confinement``; the body's step takes it
    as ``StepInputs.hold``. Arrays (traced):

    Attributes:
        margin: ``()`` m, how far each hull point is held from the surface.
        extent: ``()`` m, the body's extent about its centre (the contact band's scale).
        shortfall: ``()`` m, how far the hull's samples may fall short of its surface.
        samples: ``(GROUPS, G, 3)`` m, body frame: each group's samples, padded to ``G`` rows.
        valid: ``(GROUPS, G)`` bool, a real sample rather than padding.
        supported: ``(GROUPS, G)`` bool, the sample's part answers the support query.
        part: ``(GROUPS, G)`` int, the hull part the sample lies on.
        starts: ``(GROUPS,)`` int, each group's count of search starts.
        exclusion: ``(GROUPS,)`` m, how far apart a group's starts lie.

    Static (they key the compilation): ``surface``; ``parts``, each ``(kind, position,
    orientation)``; ``lever_masks``, one ``(3,)`` per part; ``k_max``, the most starts of
    any group; ``sweeps`` and ``projection_sweeps``; ``any_support`` and ``any_samples``,
    whether some part answers the support query and whether some does not; ``one_search``,
    whether every group's search reaches one and the same point (one part whose support
    ignores its start, every group with a start, a flat surface), so that it is searched once
    and the samples are not scanned (the same point, to the last bit).
    """

    margin: Array
    extent: Array
    shortfall: Array
    samples: Array
    valid: Array
    supported: Array
    part: Array
    starts: Array
    exclusion: Array
    surface: Any = static()
    parts: tuple = static()
    lever_masks: tuple = static()
    k_max: int = static(default=1)
    sweeps: int = static(default=SWEEPS)
    projection_sweeps: int = static(default=PROJECTION_SWEEPS)
    any_support: bool = static(default=False)
    any_samples: bool = static(default=False)
    one_search: bool = static(default=False)

    reads_orientation = True
    """The hold reads the body's orientation."""

    def step(self, state: RigidState, free: FreeSolve, dt: Array) -> tuple[RigidState, ContactReport]:
        """One held step (:func:`two_passes`)."""
        return two_passes(self, state, free, dt)

    # -- choosing ----------------------------------------------------------------------
    def support(self, part: Array, d: Array, hint: Array) -> tuple[Array, Array]:
        """``(point, converged)``: the search on ``part`` along the body-frame ``d`` from ``hint``."""
        fs = [_part_support(self.parts, j) for j in range(len(self.parts))]
        if len(fs) == 1:
            return fs[0](d, hint)
        return jax.lax.switch(part, fs, d, hint)

    def rows_at(self, x: Array, q: Array, point: Array, masks: Array) -> tuple[Array, Array, Array]:
        """``(normal, gap, lever)`` of body-frame points at the pose ``(x, q)``; ``masks`` ``(k, 3)`` multiply the lever."""
        R = rotation.matrix(q)
        X = x + point @ R.T
        phi, n = self.surface.distance_and_normal(X)
        lever = jnp.cross(point, n @ R) * masks
        return n, phi - self.margin, lever

    def choose(self, x: Array, q: Array) -> Held:
        """Each group's held point at the pose ``(x, q)`` (see the module's docstring)."""
        if self.one_search:
            return self._choose_once(x, q)
        S, valid, sup, part = self.samples, self.valid, self.supported, self.part
        R = rotation.matrix(q)
        X = x + S @ R.T
        phi, _ = self.surface.distance_and_normal(X)
        gap = phi - self.margin
        inf = jnp.array(jnp.inf, dtype=gap.dtype)
        groups = jnp.arange(GROUPS)
        masks = jnp.asarray(np.array(self.lever_masks), dtype=x.dtype)

        # kinds held at their samples: the group's nearest sample of them
        g_ns = jnp.where(valid & ~sup, gap, inf)
        i_ns = jnp.argmin(g_ns, axis=1)
        gap_ns = g_ns[groups, i_ns]
        p_ns = S[groups, i_ns]

        if not self.any_support:
            ones = jnp.ones_like(p_ns)
            n, g, lever = self.rows_at(x, q, p_ns, ones)
            no = jnp.zeros(GROUPS, bool)
            return Held(p_ns, n, g, lever, ones, part[groups, i_ns], no, valid.any(axis=1), no)

        # starts: the nearest sample, then each next nearest apart from those taken
        avail = valid & sup
        idx, oks = [], []
        for k in range(self.k_max):
            gk = jnp.where(avail, gap, inf)
            i = jnp.argmin(gk, axis=1)
            ok = jnp.isfinite(gk[groups, i]) & (k < self.starts)
            s = S[groups, i]
            far = jnp.sum((S - s[:, None, :]) ** 2, axis=-1) > self.exclusion[:, None] ** 2
            avail = avail & far
            idx.append(i)
            oks.append(ok)
        idx_a = jnp.stack(idx, axis=1)  # (GROUPS, K)
        oks_a = jnp.stack(oks, axis=1)
        hints = S[groups[:, None], idx_a]  # (GROUPS, K, 3)
        parts = part[groups[:, None], idx_a]
        surface = self.surface

        def search(hint: Array, p: Array) -> tuple[Array, Array]:
            Xh = x + R @ hint
            _, n0 = surface.distance_and_normal(Xh)
            pt, ok = self.support(p, -(R.T @ n0), hint)
            if not surface.flat:
                _, n1 = surface.distance_and_normal(x + R @ pt)
                pt, ok = self.support(p, -(R.T @ n1), pt)
            return pt, ok

        pts, conv = jax.vmap(jax.vmap(search))(hints, parts)  # (GROUPS, K, 3), (GROUPS, K)
        phi_c, _ = surface.distance_and_normal(x + pts @ R.T)
        gap_c = jnp.where(oks_a & conv, phi_c - self.margin, inf)
        kbest = jnp.argmin(gap_c, axis=1)
        best_gap = gap_c[groups, kbest]
        found = jnp.isfinite(best_gap)
        p_sup = jnp.where(found[:, None], pts[groups, kbest], hints[:, 0])
        part_sup = jnp.where(found, parts[groups, kbest], parts[:, 0])
        has_start = oks_a[:, 0]
        short = has_start & ~found
        mask_sup = jnp.where(found[:, None], masks[part_sup], 1.0)
        gap_sup = jnp.where(found, best_gap, jnp.where(has_start, gap[groups, idx_a[:, 0]], inf))

        if self.any_samples:
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
        n, g, lever = self.rows_at(x, q, point, mask)
        return Held(point, n, g, lever, mask, held_part, supported_pt, by_samples, short)

    def _choose_once(self, x: Array, q: Array) -> Held:
        """:meth:`choose` where every group's search reaches one point (``one_search``): the flat
        surface's normal is the same at every start and the support ignores the start, so the
        point is searched once, at the part's origin, and held by every group."""
        R = rotation.matrix(q)
        _, n0 = self.surface.distance_and_normal(x)
        pt, _ = self.support(jnp.zeros((), jnp.int32), -(R.T @ n0), jnp.zeros(3, x.dtype))
        masks = jnp.asarray(np.array(self.lever_masks), dtype=x.dtype)
        point = jnp.broadcast_to(pt, (GROUPS, 3))
        mask = jnp.broadcast_to(masks[0], (GROUPS, 3))
        n, g, lever = self.rows_at(x, q, point, mask)
        yes, no = jnp.ones(GROUPS, bool), jnp.zeros(GROUPS, bool)
        return Held(point, n, g, lever, mask, jnp.zeros(GROUPS, self.part.dtype), yes, no, no)

    def refine(self, x: Array, q: Array, held: Held, points: Array, iterations: int) -> Array:
        """The held support points searched again at the pose ``(x, q)``, each from itself (samples stay).

        Against a curved wall the deepest point is where the support along the wall's
        normal at that very point lands on it: a fixed point, reached here by
        ``iterations`` repeats (on a flat wall one search at the pose is exact).
        """
        if not self.any_support:
            return points
        R = rotation.matrix(q)
        surface = self.surface
        if self.one_search:  # every point's search lands on the one support point (see choose)
            _, n0 = surface.distance_and_normal(x)
            pt, _ = self.support(jnp.zeros((), jnp.int32), -(R.T @ n0), jnp.zeros(3, x.dtype))
            return jnp.broadcast_to(pt, points.shape)

        def one(p: Array, part: Array, ok: Array) -> Array:
            _, n0 = surface.distance_and_normal(x + R @ p)
            new, conv = self.support(part, -(R.T @ n0), p)
            return jnp.where(ok & conv, new, p)

        def again(_: Array, pts: Array) -> Array:
            return jax.vmap(one)(pts, held.part, held.supported)

        return jax.lax.fori_loop(0, iterations, again, points)

    def second_pass(self, first: Held, again: Held) -> SecondPass:
        """The second pass holds the first pass's points beside its own (``2 GROUPS`` rows)."""
        masks = jnp.concatenate([first.mask, again.mask])
        iterations = 1 if self.surface.flat else REFINE

        def rows(x: Array, q: Array, points: Array) -> tuple[Array, Array, Array]:
            return self.rows_at(x, q, jnp.concatenate([first.point, points]), masks)

        def refine_times(x: Array, q: Array, points: Array, times: Array) -> Array:
            if self.one_search or not self.any_support:
                return points  # the search at a pose ignores where it starts: again, it lands where it did
            return self.refine(x, q, again, points, times * iterations)

        return SecondPass(
            rows=rows,
            points=again.point,
            refine=lambda x, q, points: self.refine(x, q, again, points, iterations),
            refine_times=refine_times,
            size=2 * GROUPS,
            first_rows=lambda v: jnp.concatenate([v, jnp.zeros(again.gap.shape, bool)]),
            by_samples=jnp.concatenate([first.by_samples, again.by_samples]),
            short=jnp.concatenate([first.short, again.short]),
        )
