"""The centre hold: ``contact`` 0.1.0's, which 0.4.0 keeps for a body with no hull.

The body's centre is held at an ``extent`` from the surface, plus the margin: one
row, at the centre, with no lever, so the orientation is never read. 0.1.0 takes
the body's extent about its own axis (``Hull.radial_extent``), so a body turned
across a narrow tube passes through the wall by as much as it reaches past that
extent; 0.4.0 holds a body with no hull as a ball of its declared extent about its
centre (``Hull.extent``). The two passes and the rule are the hull hold's
(``mime.interactions._hold.two_passes``), on that one row.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from mime._pytree import pytree
from mime.dynamics import ContactReport, FreeSolve, RigidState
from mime.interactions._hold import PROJECTION_SWEEPS, SWEEPS, Held, SecondPass, two_passes
from mime.interactions.confinement import BuildReport, Confinement, checked_hull
from mime.scene import shape_of

__all__ = ["CentreHold", "build_centre_confinement", "centre_hold"]

Array = Any


@pytree
class CentreHold:
    """The centre held at ``extent + margin`` from the surface (see the module's docstring).

    Attributes:
        margin: ``()`` m, the contact's margin.
        extent: ``()`` m, how far the held ball reaches from the centre.
        shortfall: ``()`` m, zero (no samples).

        surface: the surface's shape (``mime.scene.PlaneShape``, ``mime.scene.TubeWallShape``): its
            numbers traced, its class a key of the compilation.
        sweeps, projection_sweeps: ``()`` int, the most sweeps of the velocity solve and of the projection.
    """

    margin: Array
    extent: Array
    shortfall: Array
    surface: Any
    sweeps: Array
    projection_sweeps: Array

    reads_orientation = False
    """The hold never reads the body's orientation."""
    rows = 1
    """The points each choice holds (one, the centre)."""

    def step(self, state: RigidState, free: FreeSolve, dt: Array) -> tuple[RigidState, ContactReport]:
        """One held step (``two_passes``) on the centre's row."""
        return two_passes(self, state, free, dt)

    def choose(self, x: Array, q: Array) -> Held:
        """The centre's row at the position ``x`` (``q`` is not read)."""
        phi, n = self.surface.distance_and_normal(x)
        zero = jnp.zeros((1, 3), dtype=x.dtype)
        gap = phi - self.extent - self.margin
        no = jnp.array([False])
        return Held(zero, n[None], gap[None], zero, zero, jnp.zeros(1, jnp.int32), no, no, no)

    def second_pass(self, first: Held, again: Held) -> SecondPass:
        """The second pass holds the centre's row where the pose has gone (one row)."""

        def rows(x: Array, q: Array, points: Array) -> tuple[Array, Array, Array]:
            h = self.choose(x, q)
            return h.normal, h.gap, h.lever

        return SecondPass(rows=rows, points=again.point, refine=lambda x, q, points: points,
                          settled=jnp.array(True), size=1,
                          first_rows=lambda v: v, by_samples=again.by_samples, short=again.short)


def centre_hold(*, margin: float, extent: float, surface: Any, sweeps: int = SWEEPS,
                projection_sweeps: int = PROJECTION_SWEEPS) -> CentreHold:
    """A :class:`CentreHold` of the given margin and extent (m)."""
    return CentreHold(np.float64(margin), np.float64(extent), np.float64(0.0), shape_of(surface), np.int32(sweeps),
                      np.int32(projection_sweeps))


def build_centre_confinement(*, margin: float, rule: str, body: Any, surface: Any) -> Confinement:
    """``contact`` 0.1.0: hold the centre at the body's extent about its own axis, plus the margin."""
    hull = checked_hull(rule, body, surface, "CentreContact 0.1.0")
    report = BuildReport("centre", None, 0, (), (), 0.0, False)
    hold = centre_hold(margin=margin, extent=hull.radial_extent, surface=surface)
    return Confinement(version="0.1.0", rule=rule, surface=surface, spacing=None, hold=hold, report=report)
