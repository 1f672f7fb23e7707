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

Before either pass, the broad phase (:func:`clear`) asks whether any point of the hull can reach
the margin in this step at all; where none can, the step is the free step and no point is chosen
(:func:`held_or_free`).

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

import functools
from typing import Any, Callable, NamedTuple, Protocol

import jax
import jax.numpy as jnp
import numpy as np

from mime._pytree import pytree, static
from mime._three import matmul3, matmul3t
from mime.dynamics import ContactReport, FreeFlight, FreeSolve, RigidState
from mime.geometry import Capsule, Cylinder, Ellipsoid, Screw, Sphere, rotation
from mime.geometry.rotation import advance_pose
from mime.interactions._solve import gram, solve

__all__ = [
    "GROUPS", "SWEEPS", "PROJECTION_SWEEPS", "PROJECTION_ITERATIONS", "REFINE", "CONTACT_ULPS", "CONVERGED",
    "CLEAR_FACTOR", "CLEAR_SLACK", "Held", "FirstPass", "HullHold", "PointChoice", "SecondPass", "first_pass",
    "first_pass_at", "two_passes", "contact_band", "clear", "held_or_free",
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

    @classmethod
    def zeros(cls, k: int, dtype: Any) -> "Held":
        """``k`` points, every field zero (a placeholder of the right shapes)."""
        v, s, no = jnp.zeros((k, 3), dtype), jnp.zeros(k, dtype), jnp.zeros(k, bool)
        return cls(v, v, s, v, v, jnp.zeros(k, jnp.int32), no, no, no)


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
    re-linearisation, and once for each re-linearisation left when they stop); ``settled`` (traced
    bool) says that refining them again at a pose where they were refined leaves them as they are
    (those last refinements are then not made); ``size`` the rows' count; ``first_rows(v)`` spreads a
    first-pass ``(k,)`` vector over them; ``by_samples``, ``short`` the rows' flags.
    """

    rows: Callable[[Array, Array, Array], tuple[Array, Array, Array]]
    points: Array
    refine: Callable[[Array, Array, Array], Array]
    settled: Array
    size: int
    first_rows: Callable[[Array], Array]
    by_samples: Array
    short: Array


class PointChoice(Protocol):
    """A hold whose points :func:`two_passes` holds: ``choose`` them at a pose, pair them for the second pass."""

    margin: Array
    extent: Array
    shortfall: Array
    sweeps: Array
    projection_sweeps: Array
    rows: int

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
    return first_pass_at(hold, hold.choose(state.position, state.orientation), free, dt)


def first_pass_at(hold: PointChoice, A: Held, free: FreeSolve, dt: Array) -> FirstPass:
    """The first pass holding the points ``A`` chosen at the step's start."""
    K = gram(A.normal, A.lever, 1.0 / free.mass_eff, 1.0 / free.inertia_eff)
    u_free = matmul3(A.normal, free.velocity) + matmul3(A.lever, free.angular_velocity)
    target = -jnp.maximum(A.gap, 0.0) / dt
    active = jnp.isfinite(A.gap)
    lam, u, last = solve(jnp.any(active & (u_free < target)), K, u_free, target, active, hold.sweeps)
    return FirstPass(A, lam, u, target, u_free, last)


class _Projected(NamedTuple):
    """The projection's carry: the iterations done, the pose so far, the summed multipliers
    (kg m), whether any iteration moved the pose and whether the last did, and the second pass's
    points searched again as it turns."""

    iteration: Array
    position: Array
    orientation: Array
    push: Array
    projected: Array
    moved: Array
    points: Array


class _Chosen(NamedTuple):
    """The carry of :func:`two_passes`' two choices: the pose to choose at, what the first pass left
    (its :class:`FirstPass`, the velocities, the residual and the flag), and the second pass's points."""

    position: Array
    orientation: Array
    first: FirstPass
    velocity: Array
    angular_velocity: Array
    residual: Array
    unconverged: Array
    again: Held


def two_passes(hold: PointChoice, state: RigidState, free: FreeSolve, dt: Array) -> tuple[RigidState, ContactReport]:
    """One held step from the free solve: the first pass, the pose advanced, the second pass and the rule.

    The points are chosen twice, at the step's start and at the pose the first pass leaves, by one
    choice in a loop of two turns (the first pass and the advance of the pose between them), so that
    the compiled step holds the choice's code once.
    """
    x, q = state.position, state.orientation
    v_free, w_free = free.velocity, free.angular_velocity
    inv_me, inv_Ie = 1.0 / free.mass_eff, 1.0 / free.inertia_eff

    def first_then_advance(A: Held, c: _Chosen) -> _Chosen:
        first = first_pass_at(hold, A, free, dt)
        lam, target, u_free = first.impulse, first.target, first.free_speed
        active = jnp.isfinite(A.gap)
        touch1 = jnp.any(lam > 0)
        v1 = jnp.where(touch1, v_free + (A.normal.T @ lam) * inv_me, v_free)
        w1 = jnp.where(touch1, w_free + (A.lever.T @ lam) * inv_Ie, w_free)
        residual = jnp.where(touch1, first.residual, jnp.zeros_like(first.residual))
        unmet_free = jnp.max(jnp.where(active, jnp.maximum(target - u_free, 0.0), 0.0))
        unconverged = touch1 & (residual > CONVERGED * unmet_free)
        x1, q1 = advance_pose(x, q, v1, w1, dt)
        return _Chosen(x1, q1, first, v1, w1, residual, unconverged, c.again)

    def choose(k: Array, c: _Chosen) -> _Chosen:
        held = hold.choose(c.position, c.orientation)
        return jax.lax.cond(k == 0, first_then_advance, lambda held, c: c._replace(again=held), held, c)

    none = Held.zeros(hold.rows, x.dtype)
    nothing = jnp.zeros(hold.rows, x.dtype)
    zero = jnp.zeros((), x.dtype)
    start = _Chosen(x, q, FirstPass(none, nothing, nothing, nothing, nothing, zero), v_free, w_free, zero,
                    jnp.array(False), none)
    chosen = jax.lax.fori_loop(0, 2, choose, start)
    first, x1, q1, v1, w1 = chosen.first, chosen.position, chosen.orientation, chosen.velocity, chosen.angular_velocity
    A, lam = first.held, first.impulse
    active = jnp.isfinite(A.gap)
    touch1 = jnp.any(lam > 0)
    residual, unconverged = chosen.residual, chosen.unconverged

    # second pass: the points chosen again at the pose the first pass left, held beside the first's
    second = hold.second_pass(A, chosen.again)
    inv_m, inv_I = 1.0 / free.mass, 1.0 / free.inertia

    def more(carry: _Projected) -> Array:
        # an iteration after one that moved nothing finds the pose as it was: it only searches the second
        # pass's points again there (the searches it would have made), unless those are settled
        return (carry.iteration < PROJECTION_ITERATIONS) & ((carry.iteration == 0) | carry.moved | ~second.settled)

    def project(carry: _Projected) -> _Projected:
        k, xx, qq, mu_sum, any_projected, moved, pB = carry
        # the second pass's support points follow the body's own deepest point as the projection turns it
        pB = second.refine(xx, qq, pB)

        def relinearise() -> tuple[Array, Array, Array, Array, Array]:
            n2, g2, l2 = second.rows(xx, qq, pB)
            past = jnp.any(g2 < -contact_band(xx, hold.extent, hold.margin))
            K2 = gram(n2, l2, inv_m, inv_I)
            mu, _, _ = solve(past, K2, g2, jnp.zeros_like(g2), jnp.isfinite(g2), hold.projection_sweeps)
            go = past & jnp.any(mu > 0)
            xp = xx + (n2.T @ mu) * inv_m
            qp = rotation.normalise(rotation.compose(qq, rotation.exp_body((l2.T @ mu) * inv_I)))
            return jnp.where(go, xp, xx), jnp.where(go, qp, qq), mu_sum + jnp.where(go, mu, 0.0), any_projected | go, go

        def stopped() -> tuple[Array, Array, Array, Array, Array]:
            return xx, qq, mu_sum, any_projected, jnp.array(False)

        # the re-linearisations stop after an iteration that moved nothing
        xx, qq, mu_sum, any_projected, go = jax.lax.cond((k == 0) | moved, relinearise, stopped)
        return _Projected(k + 1, xx, qq, mu_sum, any_projected, go, pB)

    # the re-linearisations and the searches the stopped ones would have made run in one loop, so that the
    # compiled step holds the second pass's search (the support query's code) once
    start = _Projected(jnp.zeros((), jnp.int32), x1, q1, jnp.zeros(second.size, x.dtype), jnp.array(False),
                       jnp.array(False), second.points)
    _, x2, q2, mu, projected, _, pB = jax.lax.while_loop(more, project, start)
    n2, g2, l2 = second.rows(x2, q2, pB)
    K2 = gram(n2, l2, inv_m, inv_I)
    # the rule at the projected points: the velocity into the surface is removed
    pushed = projected & (mu > 0)
    u2 = matmul3(n2, v1) + matmul3(l2, w1)
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
# the broad phase: a body that cannot reach the margin this step
# ---------------------------------------------------------------------------------------
CLEAR_FACTOR = 2.0
"""How many times its farthest travel in the step a body's bounding ball must lie beyond the margin for
:func:`clear` to skip the hold: once covers the first pass's prediction and the pose the step reaches,
and the second once covers the rounding of the speeds the bound is computed from."""
CLEAR_SLACK = 1e-9
"""The share of ``|x| + extent + margin`` that :func:`clear` adds to the reach besides the contact band.

It covers what rounds beyond a few units in the last place: an orientation given within 1e-12 of unit
length (the step's first rotation scales the hull by up to 2e-12) and a plane whose stored point lies far
from the body (up to about a million times farther than the body's own scale)."""


def clear(hold: PointChoice, state: RigidState, free: FreeSolve, dt: Array) -> Array:
    """Whether no point of the hull can take a force or be projected in this step (the broad phase), ``()`` bool.

    Every point of the hull lies within ``extent`` of the body's centre ``x``, and on a surface whose
    ``phi`` is a distance (``surface.metric``: it changes by no more than the point moves) each
    point's gap is at least the centre's room

        ``room = phi(x) - extent - margin - band - CLEAR_SLACK (|x| + extent + margin)``

    (``band`` the contact band, :func:`contact_band`). Over the step a point moves by at most
    ``dt (|v| + extent |w|)`` under the free twist ``(v, w)``. Where

        ``room > shortfall + CLEAR_FACTOR dt (|v| + extent |w|)``

    every held point starts the step farther from the margin than it can travel: the first pass
    needs no force (each point's free speed leaves it short of the margin), the pose the step
    reaches leaves every point beyond the margin (the second pass projects nothing), and no short
    group lies within the samples' ``shortfall``. The two passes would return the free body's step,
    to the last bit; :func:`held_or_free` then takes the free step and chooses no point. A surface
    whose ``phi`` is not known to be a distance (one written outside ``mime.scene``) is never clear.
    """
    if not getattr(hold.surface, "metric", False):
        return jnp.array(False)
    x = state.position
    phi, _ = hold.surface.distance_and_normal(x)
    scale = jnp.sqrt(jnp.sum(x * x)) + hold.extent + hold.margin
    room = phi - hold.extent - hold.margin - contact_band(x, hold.extent, hold.margin) - CLEAR_SLACK * scale
    speed = jnp.sqrt(jnp.sum(free.velocity**2)) + hold.extent * jnp.sqrt(jnp.sum(free.angular_velocity**2))
    return room > hold.shortfall + CLEAR_FACTOR * dt * speed


@jax.custom_batching.custom_vmap
def _any_in_batch(flag: Array) -> Array:
    """``flag`` itself for one body; under ``vmap``, whether it holds for any body of the batch (unbatched).

    So a branch on it stays a branch under ``vmap``: the batch takes it as a whole. (A ``vmap`` of a
    ``lax.cond`` on a batched predicate runs both branches, and batches every operand, the hold's
    too, so that each branch of the hold's own, on the kind or the search once, would run for every
    body.)
    """
    return flag


@_any_in_batch.def_vmap
def _any_in_batch_batch(axis_size: int, in_batched: list[bool], flag: Array) -> tuple[Array, bool]:
    return (jnp.any(flag, axis=0) if in_batched[0] else flag), False


def held_or_free(hold: PointChoice, state: RigidState, free: FreeSolve,
                 dt: Array) -> tuple[RigidState, ContactReport]:
    """One step: the free step where the body is :func:`clear` of the margin, else :func:`two_passes`.

    The state is the two passes' to the last bit either way; only the report differs, a clear
    step's being a free flight's (nothing chosen: ``contact_gap`` ``inf``, ``contact_point`` zero).
    The branch is taken for a ``vmap``'s batch as a whole: the free step alone where every body is
    clear, else the two passes for all and each clear body's free step selected (``_any_in_batch``).
    """
    is_clear = clear(hold, state, free, dt)
    free_step = FreeFlight().step(state, free, dt)  # a clear body's step, in either branch

    def passes() -> tuple[RigidState, ContactReport]:
        held = two_passes(hold, state, free, dt)
        return jax.tree_util.tree_map(lambda f, h: jnp.where(is_clear, f, h), free_step, held)

    return jax.lax.cond(_any_in_batch(~is_clear), passes, lambda: free_step)


# ---------------------------------------------------------------------------------------
# the hull's points
# ---------------------------------------------------------------------------------------
SUPPORT_KINDS: tuple = (None, Sphere, Ellipsoid, Cylinder, Capsule, Screw)
"""The kinds a compiled hold dispatches by a traced index (``HullHold.kind``): ``None`` for a hull held
at its samples, then each kind with a support query, those whose support ignores its start first. A
hull whose parts are all of one of these kinds shares one compiled step with every other such hull
against a surface of the same class; any other hull keys its own (``HullHold.kinds``)."""
ONCE_KINDS: tuple = tuple(k for k in SUPPORT_KINDS[1:] if k.hint_free)
"""The kinds whose every search along one direction lands on one point (``HullHold.search_once``)."""
assert SUPPORT_KINDS[1:1 + len(ONCE_KINDS)] == ONCE_KINDS
SAMPLE_CHUNK = 48
"""Samples per group that one pass of ``HullHold.choose``'s loops reads at a time. A group's rows past its
last sample are read too, up to the end of its last chunk: the chunk is sized for the sparse samplings that
batched runs use (20 to 45 samples a group, one chunk), where a chunk of 64 was about half padding. A finely
sampled hull reads more, smaller chunks; that was measured no slower (one capsule of 361 samples a group:
83 us a step with chunks of 48, 95 with chunks of 64)."""
SAMPLE_CAPACITY = 576
"""Rows per group of a hold's sample arrays (more only for a hull whose largest group has more samples):
one size, so that hulls of any sampling share a compiled step; the loops read only the filled chunks."""
assert SAMPLE_CAPACITY % SAMPLE_CHUNK == 0  # the rows are whole chunks


def _part_support(kind: Any, params: Array, steps: Array, offset: Array, turn: Array, d: Array,
                  hint: Array) -> tuple[Array, Array]:
    """``(point, converged)`` of one part of ``kind`` (its class, ``None`` for a kind held at its samples),
    placed at ``offset`` turned by ``turn`` in the body's frame: the search along the body-frame ``d``
    from ``hint``."""
    dp = matmul3(d, turn)  # turn^T d, as d's row times turn: the same products and sums
    hp = matmul3(hint - offset, turn)
    if kind is not None:
        pp, ok = kind.support_from(params, dp, hp, steps)
    else:
        pp, ok = hp, jnp.array(False)
    return offset + matmul3(turn, pp), ok


_SUPPORT_BRANCHES = tuple(functools.partial(_part_support, kind) for kind in SUPPORT_KINDS)
"""``_part_support`` of each kind of ``SUPPORT_KINDS``, made once: ``lax.switch`` traces a branch once per
function and operand types (JAX keeps the trace, keyed by the function object), so every support
query of a hold of one kind of the table (``kinds`` ``None``), and of every such hold of a process, reuses
the six branches' traces; a hold with its kinds static closes its branches over its own parts and traces
them at each query. Branches made anew at each call (a lambda per kind) were traced again at each:
tracing the impact capsule's chunk took 0.70 s with them and 0.61 s without."""
_ONCE_BRANCHES = tuple(functools.partial(_part_support, kind) for kind in ONCE_KINDS)
"""``_part_support`` of each kind of ``ONCE_KINDS``, made once (see ``_SUPPORT_BRANCHES``)."""


def _row_least(a: Array) -> Array:
    """Each row's least value, ``a`` ``(..., m)`` -> ``(...)``: ``jnp.min(a, axis=-1)``, by halves.

    The columns are halved again and again, each half's elementwise least taken against the other's
    (an odd column left over is carried to the next round): ``log2(m)`` elementwise ``minimum`` operations.
    A least value is exact whatever the order it is taken in, and a NaN wins every comparison as it
    wins ``min``, so this is ``jnp.min`` to the bit (a signed zero aside, which compares equal). XLA's
    CPU backend runs a reduction along a row as one chain of comparisons, each waiting for the last;
    the halves' comparisons are independent (a batch of 1,000 bodies' ``(GROUPS, SAMPLE_CHUNK)`` gaps:
    about half the time).
    """
    while a.shape[-1] > 1:
        half = a.shape[-1] // 2
        least = jnp.minimum(a[..., :half], a[..., half:2 * half])
        a = jnp.concatenate([least, a[..., 2 * half:]], axis=-1) if a.shape[-1] % 2 else least
    return a[..., 0]


def _first_least(g: Array) -> Array:
    """Each row's first column holding its least value, ``(GROUPS,)``: ``jnp.argmin(g, axis=1)``, to the index.

    Taken as a least value and then the first column that equals it (a NaN counting as least, as
    ``argmin`` counts it), two plain reductions (:func:`_row_least`): XLA's CPU backend runs an
    arg-reduction, which reduces (value, index) pairs, several times slower on a batch of groups.
    """
    least = _row_least(g)[:, None]
    columns = jnp.arange(g.shape[1], dtype=jnp.int32)
    hit = (g == least) | jnp.isnan(g)
    return _row_least(jnp.where(hit, columns, g.shape[1] - 1))


def _nearer(g: Array, c: Array, best: Array, index: Array) -> tuple[Array, Array]:
    """``(best, index)`` after chunk ``c``'s gaps ``g`` ``(GROUPS, SAMPLE_CHUNK)``: each group's least gap
    so far and its sample's index, taken from the chunk where its least is smaller (the first of
    equals, as one ``argmin`` over every chunk would take)."""
    j = _first_least(g)
    gj = g[jnp.arange(GROUPS), j]
    better = gj < best
    return jnp.where(better, gj, best), jnp.where(better, (c * SAMPLE_CHUNK + j).astype(jnp.int32), index)


def _rows(c: Array, ndim: int) -> tuple[Array, ...]:
    """The start index of chunk ``c`` of a ``(GROUPS, G, ...)`` array of ``ndim`` axes."""
    zero = jnp.zeros((), jnp.int32)
    return (zero, jnp.asarray(c * SAMPLE_CHUNK, jnp.int32)) + (zero,) * (ndim - 2)


class _Scan(NamedTuple):
    """One pass over a hold's samples at a pose (per group): the nearest sample of a kind held at its
    samples and the nearest of a kind with a support query (each its gap and index)."""

    gap_ns: Array
    i_ns: Array
    gap_sup: Array
    i_sup: Array


class _Choice(NamedTuple):
    """What a choice picks, per group (the :class:`Held` fields but the rows, taken from these)."""

    point: Array
    mask: Array
    part: Array
    supported: Array
    by_samples: Array
    short: Array


class _Rounds(NamedTuple):
    """The starts' rounds' carry (per group): the samples still available as starts, the last start
    taken, the deepest converged search so far (its gap, point and part), and whether the first
    round had a start."""

    avail: Array
    last: Array
    best_gap: Array
    best_point: Array
    best_part: Array
    has_start: Array


@pytree
class HullHold:
    """``Contact`` 0.4.0's hold of a body by points of its hull (see the module's docstring).

    Built by ``mime.interactions._build.build_confinement``; the body's step takes it
    as ``StepInputs.hold``. Arrays (traced):

    Attributes:
        margin: ``()`` m, how far each hull point is held from the surface.
        extent: ``()`` m, the body's extent about its centre (the contact band's scale).
        shortfall: ``()`` m, how far the hull's samples may fall short of its surface.
        samples: ``(GROUPS, G, 3)`` m, body frame: each group's samples, padded to ``G`` rows, a whole
            number of ``SAMPLE_CHUNK`` chunks (``SAMPLE_CAPACITY``; a power of two of chunks for a hull
            whose largest group outgrows it).
        valid: ``(GROUPS, G)`` bool, a real sample rather than padding.
        supported: ``(GROUPS, G)`` bool, the sample's part answers the support query.
        part: ``(GROUPS, G)`` int, the hull part the sample lies on.
        chunks: ``()`` int, how many chunks of ``SAMPLE_CHUNK`` rows hold every group's samples.
        starts: ``(GROUPS,)`` int, each group's count of search starts.
        exclusion: ``(GROUPS,)`` m, how far apart a group's starts lie.
        most_starts: ``()`` int, the most starts of any group (at least 1).
        surface: the surface's shape (``mime.scene.PlaneShape``, ``mime.scene.TubeWallShape``): its
            numbers traced, its class a key of the compilation.
        kind: ``()`` int, the parts' kind as its place in ``SUPPORT_KINDS`` (0, held at its samples).
        search_once: ``()`` bool, every group's search reaches one and the same point (one part of a
            kind whose support ignores its start, every group with a start, a flat surface): it is
            searched once and the samples are not scanned (the same point, to the last bit).
        part_params: ``(P, SUPPORT_WIDTH)`` each part's ``support_params()`` (m).
        part_steps: ``(P,)`` int, each part's ``support_steps``.
        part_offset: ``(P, 3)`` m, each part's position in the body's frame.
        part_turn: ``(P, 3, 3)`` each part's rotation into the body's frame.
        lever_masks: ``(P, 3)`` what multiplies the lever of a point held at each part's support (0 where
            the lever's component is zero exactly: about a body of revolution's own axis, and every
            component for a ball about the centre).
        sweeps, projection_sweeps: ``()`` int, the most sweeps of the velocity solve and of the projection.

    Static (a key of the compilation): ``kinds``, ``None`` where every part is of one kind of
    ``SUPPORT_KINDS`` (the kind is then the traced ``kind``), else each part's kind class (``None`` for
    a kind held at its samples). Every number is traced, so every hull of the known kinds shares one
    compiled step per surface class and count of parts, whatever its kind, size and sampling.
    """

    margin: Array
    extent: Array
    shortfall: Array
    samples: Array
    valid: Array
    supported: Array
    part: Array
    chunks: Array
    starts: Array
    exclusion: Array
    most_starts: Array
    surface: Any
    kind: Array
    search_once: Array
    part_params: Array
    part_steps: Array
    part_offset: Array
    part_turn: Array
    lever_masks: Array
    sweeps: Array
    projection_sweeps: Array
    kinds: tuple | None = static(default=None)

    reads_orientation = True
    """The hold reads the body's orientation."""
    rows = GROUPS
    """The points each choice holds, one per group."""

    @property
    def any_support(self) -> Array:
        """Whether some part answers the support query (traced)."""
        if self.kinds is None:
            return self.kind != 0
        return jnp.asarray(any(k is not None for k in self.kinds))

    @property
    def all_closed_form(self) -> Array:
        """Whether every part answers the support query in closed form, so that every search converges and no
        point is ever held at a sample (traced)."""
        if self.kinds is None:
            return jnp.asarray([k is not None and k.closed_form for k in SUPPORT_KINDS])[self.kind]
        return jnp.asarray(all(k is not None and k.closed_form for k in self.kinds))

    def step(self, state: RigidState, free: FreeSolve, dt: Array) -> tuple[RigidState, ContactReport]:
        """One held step: :func:`two_passes`, or the free step where the body is :func:`clear` (:func:`held_or_free`)."""
        return held_or_free(self, state, free, dt)

    # -- choosing ----------------------------------------------------------------------
    def support(self, part: Array, d: Array, hint: Array) -> tuple[Array, Array]:
        """``(point, converged)``: the search on ``part`` along the body-frame ``d`` from ``hint``."""
        def on(kind: Any) -> Callable[[Array, Array, Array, Array, Array, Array], tuple[Array, Array]]:
            return lambda *args: _part_support(kind, *args)

        if self.kinds is None:  # one kind of the table, by its traced index
            j = part
            args = (self.part_params[j], self.part_steps[j], self.part_offset[j], self.part_turn[j], d, hint)
            return jax.lax.switch(self.kind, _SUPPORT_BRANCHES, *args)

        def at(j: int) -> Callable[[Array, Array], tuple[Array, Array]]:
            return lambda d, hint: on(self.kinds[j])(self.part_params[j], self.part_steps[j], self.part_offset[j],
                                                      self.part_turn[j], d, hint)

        fs = [at(j) for j in range(len(self.kinds))]
        if len(fs) == 1:
            return fs[0](d, hint)
        return jax.lax.switch(part, fs, d, hint)

    def support_once(self, d: Array) -> Array:
        """The one point every search along the body-frame ``d`` reaches (``search_once``): part 0's support."""
        hint = jnp.zeros(3, d.dtype)
        if self.kinds is not None:
            return self.support(jnp.zeros((), jnp.int32), d, hint)[0]
        args = (self.part_params[0], self.part_steps[0], self.part_offset[0], self.part_turn[0], d, hint)
        index = jnp.clip(self.kind - 1, 0, len(ONCE_KINDS) - 1)
        return jax.lax.switch(index, _ONCE_BRANCHES, *args)[0]

    def rows_at(self, x: Array, q: Array, point: Array, masks: Array) -> tuple[Array, Array, Array]:
        """``(normal, gap, lever)`` of body-frame points at the pose ``(x, q)``; ``masks`` ``(k, 3)`` multiply the lever."""
        R = rotation.matrix(q)
        # these two stay dots: written out with mime._three.matmul3, XLA fuses them with their
        # neighbours into multiply-adds, and the box's held states change in their last bits
        X = x + point @ R.T
        phi, n = self.surface.distance_and_normal(X)
        lever = jnp.cross(point, n @ R) * masks
        return n, phi - self.margin, lever

    def _search_from(self, x: Array, R: Array, start: Array, part: Array) -> tuple[Array, Array]:
        """``(point, converged)``: the search on ``part`` from the body-frame ``start`` along the inward normal
        of the surface at that point, at the pose ``(x, R)`` (a choice's start, a held point refined)."""
        _, n = self.surface.distance_and_normal(x + matmul3(R, start))
        # the direction stays R.T @ n: written n @ R (no transposed copy), XLA fuses it otherwise and the
        # 24-sided mesh spun on the floor (MIME-ANO-131) keeps its spin to another last bit
        return self.support(part, -matmul3(R.T, n), start)

    def _chunk(self, a: Array, c: Array) -> Array:
        """Rows ``c * SAMPLE_CHUNK ...`` of a ``(GROUPS, G, ...)`` array."""
        return jax.lax.dynamic_slice(a, _rows(c, a.ndim), (GROUPS, SAMPLE_CHUNK) + a.shape[2:])

    def _chunk_gaps(self, x: Array, R: Array, c: Array) -> Array:
        """``(GROUPS, SAMPLE_CHUNK)`` m: the gaps of chunk ``c``'s samples at the pose ``(x, R)``.

        Computed where it is read (the scan, each later start's round) rather than kept for every
        sample; the optimisation barrier compiles it alike at both, so they agree to the last bit.
        """
        S = self._chunk(self.samples, c)

        def at_points() -> Array:
            phi, _ = self.surface.distance_and_normal(x + matmul3t(S, R))
            return phi - self.margin

        def along_normal() -> Array:  # a flat surface: phi(x + R s) = phi(x) + s . R^T n
            phi0, n = self.surface.distance_and_normal(x)
            return matmul3(S, matmul3(R.T, n)) + (phi0 - self.margin)

        if not self.surface.flat:
            return jax.lax.optimization_barrier(at_points())
        # the along-normal form is a third of the arithmetic, but it rounds otherwise: it is taken only
        # where every part is searched in closed form, so that a sample's gap picks a search's start and
        # the sample is never held. A hull held at its samples holds the nearest, and a group whose
        # Newton search fails (the screw's) holds its nearest start; among samples tied on a face the
        # rounding picks which one (MIME-ANO-140's kicks follow it): those keep the gaps at the points
        return jax.lax.optimization_barrier(jax.lax.cond(self.all_closed_form, along_normal, at_points))

    def _scan(self, x: Array, R: Array) -> _Scan:
        """Each group's nearest sample of either sort at the pose (one pass over the filled chunks)."""
        inf = jnp.array(jnp.inf, dtype=x.dtype)

        def nearest(gap: Array, mask: Array, c: Array, best: Array, index: Array) -> tuple[Array, Array]:
            def search() -> tuple[Array, Array]:
                return _nearer(jnp.where(mask, gap, inf), c, best, index)

            # a chunk with no sample of this sort (every sample of a box, none of a capsule, is searched)
            # would find only inf, which is never nearer: it is not searched (the hold's masks are
            # shared by a batch's starts, so this stays a branch under vmap)
            return jax.lax.cond(jnp.any(mask), search, lambda: (best, index))

        def chunk(c: Array, carry: _Scan) -> _Scan:
            valid, sup = self._chunk(self.valid, c), self._chunk(self.supported, c)
            gap = self._chunk_gaps(x, R, c)
            gap_ns, i_ns = nearest(gap, valid & ~sup, c, carry.gap_ns, carry.i_ns)
            gap_sup, i_sup = nearest(gap, valid & sup, c, carry.gap_sup, carry.i_sup)
            return _Scan(gap_ns, i_ns, gap_sup, i_sup)

        none = jnp.full(GROUPS, inf)
        first = jnp.zeros(GROUPS, jnp.int32)
        return jax.lax.fori_loop(0, self.chunks, chunk, _Scan(none, first, none, first))

    def _next_start(self, x: Array, R: Array, avail: Array, last: Array) -> tuple[Array, Array, Array]:
        """``(avail, i, gap)``: the samples still available at the pose ``(x, R)`` once those near the
        ``last`` start are taken away, and each group's nearest of them (its index and gap; ``inf``
        where none is left)."""
        inf = jnp.array(jnp.inf, dtype=x.dtype)

        def chunk(c: Array, carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
            avail, best, index = carry
            S = self._chunk(self.samples, c)
            far = jnp.sum((S - last[:, None, :]) ** 2, axis=-1) > self.exclusion[:, None] ** 2
            a = self._chunk(avail, c) & far
            best, index = _nearer(jnp.where(a, self._chunk_gaps(x, R, c), inf), c, best, index)
            return jax.lax.dynamic_update_slice(avail, a, _rows(c, 2)), best, index

        start = (avail, jnp.full(GROUPS, inf), jnp.zeros(GROUPS, jnp.int32))
        avail, gap, i = jax.lax.fori_loop(0, self.chunks, chunk, start)
        return avail, i, gap

    def choose(self, x: Array, q: Array) -> Held:
        """Each group's held point at the pose ``(x, q)`` (see the module's docstring)."""
        # the rows of the chosen points are taken after the branch, once in the compiled step, and
        # only the choice passes out of it
        c = jax.lax.cond(self.search_once, self._choose_once, self._choose_scan, x, q)
        n, g, lever = self.rows_at(x, q, c.point, c.mask)
        return Held(c.point, n, g, lever, c.mask, c.part, c.supported, c.by_samples, c.short)

    def _choose_scan(self, x: Array, q: Array) -> _Choice:
        S, part = self.samples, self.part
        R = rotation.matrix(q)
        scan = self._scan(x, R)
        inf = jnp.array(jnp.inf, dtype=x.dtype)
        groups = jnp.arange(GROUPS)
        masks = jnp.asarray(self.lever_masks, dtype=x.dtype)
        surface = self.surface

        # kinds held at their samples: the group's nearest sample of them
        gap_ns, i_ns = scan.gap_ns, scan.i_ns
        p_ns = S[groups, i_ns]

        def search(hint: Array, p: Array) -> tuple[Array, Array]:
            if surface.flat:
                return self._search_from(x, R, hint, p)
            # against a curved wall, searched again along the normal where the first search landed: a loop
            # of two turns, so that the program holds one copy of the support switch, not two
            return jax.lax.fori_loop(0, 2, lambda _, c: self._search_from(x, R, c[0], p), (hint, jnp.array(False)))

        # starts, one round each: the nearest sample, then each next nearest lying apart from those
        # taken; the search from each, the deepest converged point kept (the first of equals). The
        # first round's start is the scan's nearest supported sample.
        def round_(k: Array, r: _Rounds) -> _Rounds:
            avail, i, gap_i = jax.lax.cond(k == 0, lambda: (r.avail, scan.i_sup, scan.gap_sup),
                                           lambda: self._next_start(x, R, r.avail, r.last))
            ok = jnp.isfinite(gap_i) & (k < self.starts)
            hint = S[groups, i]
            p = part[groups, i]
            pt, conv = jax.vmap(search)(hint, p)
            phi_c, _ = surface.distance_and_normal(x + matmul3t(pt, R))
            gap_c = jnp.where(ok & conv, phi_c - self.margin, inf)
            better = gap_c < r.best_gap
            return _Rounds(avail, hint, jnp.where(better, gap_c, r.best_gap),
                           jnp.where(better[:, None], pt, r.best_point), jnp.where(better, p, r.best_part),
                           jnp.where(k == 0, ok, r.has_start))

        zero_part = jnp.zeros(GROUPS, part.dtype)
        first = _Rounds(self.valid & self.supported, jnp.zeros((GROUPS, 3), x.dtype), jnp.full(GROUPS, inf),
                        jnp.zeros((GROUPS, 3), x.dtype), zero_part, jnp.zeros(GROUPS, bool))
        r = jax.lax.fori_loop(0, self.most_starts, round_, first)
        i0 = scan.i_sup
        hint0, part0, has_start = S[groups, i0], part[groups, i0], r.has_start
        best_gap = r.best_gap
        found = jnp.isfinite(best_gap)
        p_sup = jnp.where(found[:, None], r.best_point, hint0)
        part_sup = jnp.where(found, r.best_part, part0)
        short = has_start & ~found
        mask_sup = jnp.where(found[:, None], masks[part_sup], 1.0)
        # where a start was had and no search converged, the start's own gap: the scan's nearest supported
        gap_sup = jnp.where(found, best_gap, jnp.where(has_start, scan.gap_sup, inf))

        # the nearer of the two sorts (a kind held at its samples, a kind searched); on a tie the searched
        # point, a point of the body itself, is held rather than a sample (no held_by_samples for it)
        use_ns = gap_ns < gap_sup
        point = jnp.where(use_ns[:, None], p_ns, p_sup)
        mask = jnp.where(use_ns[:, None], 1.0, mask_sup)
        held_part = jnp.where(use_ns, part[groups, i_ns], part_sup)
        short = short & ~use_ns
        supported_pt = found & ~use_ns
        return _Choice(point, mask, held_part, supported_pt, use_ns, short)

    def _choose_once(self, x: Array, q: Array) -> _Choice:
        """:meth:`choose` where every group's search reaches one point (``search_once``): the flat
        surface's normal is the same at every start and the support ignores the start, so the
        point is searched once, at the part's origin, and held by every group."""
        pt = self._support_toward_surface(x, rotation.matrix(q))
        masks = jnp.asarray(self.lever_masks, dtype=x.dtype)
        point = jnp.broadcast_to(pt, (GROUPS, 3))
        mask = jnp.broadcast_to(masks[0], (GROUPS, 3))
        yes, no = jnp.ones(GROUPS, bool), jnp.zeros(GROUPS, bool)
        return _Choice(point, mask, jnp.zeros(GROUPS, self.part.dtype), yes, no, no)

    def _support_toward_surface(self, x: Array, R: Array) -> Array:
        """The hull's support point (body frame, m, ``(3,)``) along the surface's inward normal at the
        centre ``x``, seen from the body turned by ``R``: where every group's search lands when
        ``search_once`` holds (one normal for the whole surface, a support that ignores its start)."""
        _, n0 = self.surface.distance_and_normal(x)
        return self.support_once(-matmul3(R.T, n0))

    def refine(self, x: Array, q: Array, held: Held, points: Array, iterations: int) -> Array:
        """The held support points searched again at the pose ``(x, q)``, each from itself (samples stay).

        Against a curved wall the deepest point is where the support along the wall's
        normal at that very point lands on it: a fixed point, reached here by
        ``iterations`` repeats (on a flat wall one search at the pose is exact).
        """
        R = rotation.matrix(q)

        def once(points: Array) -> Array:  # every point's search lands on the one support point (see choose)
            return jnp.broadcast_to(self._support_toward_surface(x, R), points.shape)

        def one(p: Array, part: Array, ok: Array) -> Array:
            new, conv = self._search_from(x, R, p, part)
            return jnp.where(ok & conv, new, p)

        def again(_: Array, pts: Array) -> Array:
            return jax.vmap(one)(pts, held.part, held.supported)

        def searched(points: Array) -> Array:
            return jax.lax.cond(self.search_once, once, lambda p: jax.lax.fori_loop(0, iterations, again, p), points)

        # a hull held at its samples only keeps its points
        return jax.lax.cond(self.any_support, searched, lambda p: p, points)

    def second_pass(self, first: Held, again: Held) -> SecondPass:
        """The second pass holds the first pass's points beside its own (``2 GROUPS`` rows)."""
        masks = jnp.concatenate([first.mask, again.mask])
        iterations = 1 if self.surface.flat else REFINE

        def rows(x: Array, q: Array, points: Array) -> tuple[Array, Array, Array]:
            return self.rows_at(x, q, jnp.concatenate([first.point, points]), masks)

        return SecondPass(
            rows=rows,
            points=again.point,
            refine=lambda x, q, points: self.refine(x, q, again, points, iterations),
            # a search that ignores where it starts lands, again, where it did; samples stay
            settled=self.search_once | ~self.any_support,
            size=2 * GROUPS,
            first_rows=lambda v: jnp.concatenate([v, jnp.zeros(again.gap.shape, bool)]),
            by_samples=jnp.concatenate([first.by_samples, again.by_samples]),
            short=jnp.concatenate([first.short, again.short]),
        )
