"""The penalty rung of ``Contact``: a spring at every hull point past the surface.

A point at signed distance ``phi`` from the surface (m, positive on the free side)
overlaps it by ``delta = max(0, -phi)``. While it overlaps, it takes a force along
the surface's outward normal ``n``::

    f = max(0, k delta - c dphi/dt)      (N; k in N/m, c in N s/m)

zero otherwise: a linear spring on the overlap with an optional dashpot, which
may push but never pull (the force is clipped at zero as the point leaves). The
forces are summed into the body's applied wrench about its centre ``x_c``::

    F = sum_i f_i n_i,      tau = sum_i (p_i - x_c) x f_i n_i

Every function here is pure JAX (traceable under ``jit``, ``grad``, ``vmap``).
The frozen-mode analysis of these springs is ``maddening.analysis.contact_modes``.

>>> import jax.numpy as jnp
>>> from mime.scene import Plane
>>> points = jnp.array([[-0.1, 0.0, -1e-4], [0.1, 0.0, 1e-4]])
>>> F, tau = penalty_wrench(points, jnp.zeros((2, 3)), jnp.zeros(3), Plane(), 1e5)
>>> [round(float(c), 9) for c in F], [round(float(c), 9) for c in tau]
([0.0, 0.0, 10.0], [0.0, 1.0, 0.0])
"""

from __future__ import annotations

from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np

from mime._pytree import pytree, static
from mime.dynamics import RigidState
from mime.errors import Number, invalid

Array = Any

__all__ = [
    "PenaltyPlan",
    "normal_force",
    "penalty_forces",
    "penalty_wrench",
    "plan_penalty",
]


def normal_force(gap: Any, gap_rate: Any, stiffness: Any, damping: Any = 0.0) -> Any:
    """The normal force (N) of a penalty spring on a gap ``gap`` (m) closing at ``-gap_rate`` (m/s).

    ``f = max(0, k max(0, -gap) - c gap_rate)`` where ``gap < 0``, and 0 elsewhere.

    >>> float(normal_force(-2e-4, 0.0, 1e5)), float(normal_force(1e-4, -1.0, 1e5, 10.0))
    (20.0, 0.0)
    """
    gap = jnp.asarray(gap)
    overlap = jnp.maximum(-gap, 0.0)
    spring = stiffness * overlap - damping * gap_rate
    return jnp.where(gap < 0, jnp.maximum(spring, 0.0), 0.0)


def penalty_forces(points: Any, velocities: Any, surface: Any, stiffness: Any, damping: Any = 0.0) -> tuple[Any, Any, Any]:
    """Per point: ``(forces (n, 3) N, normal forces (n,) N, gaps (n,) m)``.

    Args:
        points: World positions of the hull points, ``(n, 3)``, m.
        velocities: Their world velocities, ``(n, 3)``, m/s.
        surface: Anything with ``distance_and_normal(x) -> (phi, n)`` (a ``mime.scene`` surface).
        stiffness: ``k``, N/m (a number, or one per point).
        damping: ``c``, N s/m (a number, or one per point).
    """
    phi, normal = surface.distance_and_normal(points)
    phi = jnp.reshape(phi, points.shape[:-1])
    normal = jnp.broadcast_to(normal, points.shape)
    rate = jnp.sum(velocities * normal, axis=-1)
    f = normal_force(phi, rate, stiffness, damping)
    return f[..., None] * normal, f, phi


def penalty_wrench(points: Any, velocities: Any, center: Any, surface: Any, stiffness: Any,
                   damping: Any = 0.0) -> tuple[Any, Any]:
    """The penalty forces summed into a wrench about ``center``: ``(F (3,) N, tau (3,) N m)``, world frame."""
    forces, _, _ = penalty_forces(points, velocities, surface, stiffness, damping)
    arms = points - center
    return jnp.sum(forces, axis=0), jnp.sum(jnp.cross(arms, forces), axis=0)


_STIFFNESS = Number("a stiffness > 0 (N/m)", above=0)
_DAMPING = Number("a damping >= 0 (N s/m)", at_least=0)
_MARGIN = Number("a margin >= 0 (m)", at_least=0)
_SPACING = Number("a spacing > 0 (m) when no points are given", above=0)
_POINTS = "finite body-frame points of shape (n, 3), m"
_SURFACE = "a mime.scene surface"


@pytree
class PenaltyPlan:
    """What the penalty rung gives a rigid body's step: its hull points and the springs on them.

    The built experiment delivers it into the body's applied loads
    (``StepInputs.wrenches``, the ``body.applied_wrench`` input); :meth:`wrench` gives
    the springs' force and torque on the body (world frame, about its centre). The
    springs engage where a point comes closer to the surface than ``margin``: the
    gap a spring reads is the point's signed distance minus the margin.

    Attributes:
        points: ``(n, 3)`` m, body frame, one spring at each.
        stiffness: ``()`` N/m, ``k`` per point.
        damping: ``()`` N s/m, ``c`` per point.
        margin: ``()`` m, where the springs engage.
        surface: the surface (static: it keys the compilation).
    """

    points: Array
    stiffness: Array
    damping: Array
    margin: Array
    surface: Any = static()

    feeds: ClassVar[str] = "body.applied_wrench"
    """The body's input this plan feeds (the penalty rung's Requires row)."""

    def _world(self, state: RigidState) -> tuple[Array, Array]:
        from mime.geometry import rotation

        R = rotation.matrix(state.orientation)
        arms = jnp.asarray(self.points, dtype=state.position.dtype) @ R.T
        w_world = R @ state.angular_velocity
        return state.position + arms, state.velocity + jnp.cross(w_world, arms)

    def _gap_surface(self) -> Any:
        return _Inset(self.surface, self.margin)

    def forces(self, state: RigidState) -> tuple[Array, Array]:
        """Per point at ``state``: ``(normal forces (n,) N, gaps past the margin (n,) m)``."""
        p, v = self._world(state)
        _, f, gap = penalty_forces(p, v, self._gap_surface(), self.stiffness, self.damping)
        return f, gap

    def wrench(self, t: Array, state: RigidState) -> tuple[Array, Array]:
        """``(F, tau)`` on the body at ``state``, world frame, about its centre (N, N m)."""
        p, v = self._world(state)
        return penalty_wrench(p, v, state.position, self._gap_surface(), self.stiffness, self.damping)


class _Inset:
    """``surface`` moved ``margin`` m towards its free side (the distance minus the margin); traceable.

    (``phi - 0.0`` is ``phi`` to the bit, so a zero margin changes nothing.)
    """

    def __init__(self, surface: Any, margin: Any) -> None:
        self.surface, self.margin = surface, margin

    def distance_and_normal(self, x: Any) -> tuple[Any, Any]:
        phi, n = self.surface.distance_and_normal(x)
        return phi - self.margin, n


def plan_penalty(*, body: Any, surface: Any, stiffness: float, damping: float = 0.0,
                 points: Any = None, spacing: float | None = None, margin: float = 0.0) -> PenaltyPlan:
    """Plan the penalty rung for a rigid body against a fixed surface (SI floats).

    Args:
        body: A ``mime.nodes.RigidInertialNode`` (its hull is sampled unless ``points`` is given).
        surface: A ``mime.scene`` surface.
        stiffness: ``k`` per point, N/m (> 0).
        damping: ``c`` per point, N s/m (>= 0).
        points: Body-frame contact points, ``(n, 3)`` m; by default the hull's samples. Points
            that coincide (a box's edges and corners are samples of several faces) take one
            spring between them; the others keep the order they are given in.
        spacing: Sampling spacing of the hull, m (needed without ``points``).
        margin: Where the springs engage: a point closer than this to the surface (m, >= 0).
    """
    where = "plan_penalty"
    k = _STIFFNESS.check(stiffness, "stiffness", where=where)
    c = _DAMPING.check(damping, "damping", where=where)
    margin_m = _MARGIN.check(margin, "margin", where=where)
    if not callable(getattr(surface, "distance_and_normal", None)):
        raise invalid("surface", surface, _SURFACE, where=where)
    if points is None:
        spacing = _SPACING.check(spacing, "spacing", where=where)
        points = body.hull.sample(float(spacing))[0]
    pts = np.asarray(points, dtype=np.float64) if _is_real(points) else None
    if pts is None or pts.ndim != 2 or pts.shape[1] != 3 or pts.shape[0] == 0 or not np.all(np.isfinite(pts)):
        raise invalid("points", points, _POINTS, where=where)
    # one spring per place: a box's edges and corners are samples of several faces
    _, first = np.unique(pts, axis=0, return_index=True)
    pts = pts[np.sort(first)]
    return PenaltyPlan(points=pts, stiffness=np.float64(k), damping=np.float64(c), margin=np.float64(margin_m),
                       surface=surface)


def _is_real(points: Any) -> bool:
    try:
        return np.asarray(points).dtype.kind in "iuf"
    except (TypeError, ValueError):
        return False
