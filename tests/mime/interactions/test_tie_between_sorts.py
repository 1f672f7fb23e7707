"""A tie between a part held at its samples and a part searched: the searched point is held.

A box (no support query: held at its samples) with a ball inside it whose lowest point lies on
the box's bottom face. Upright over the floor, the ball's support point and the box's bottom
samples have the same gap to the bit, in every lower group. The choice holds the ball's support
point there, a point of the body found exactly, and not a sample, so a body resting on that
face never raises ``held_by_samples``. (Taking the sample on a tie, ``<=`` for ``<`` in
``HullHold._choose_scan``, raises it on every step of the rest below.)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mime import demos
from mime.geometry import Box, Hull, Part, Sphere, rotation
from mime.nodes import ConstantLoad

RADIUS = 2.5e-4
"""m: the ball's radius, and half the box's height, so that the ball's lowest point is on the box's bottom face."""
SPACING = 5e-5
"""m: the samples' spacing (the box's bottom face sampled on a grid that holds its centre)."""


def _body(**kw):
    hull = Hull([Part(Box(1e-3, 6e-4, 2 * RADIUS)), Part(Sphere(RADIUS))])
    return demos.make_body(hull, mass=1e-6, **kw)


def test_the_searched_point_is_held_where_it_ties_with_the_samples():
    with jax.enable_x64(True):
        body = _body()
        hold = demos.confinement(demos.attach(body, demos.FLOOR.surface, spacing=SPACING)).hold
        lift = 1e-5
        x = jnp.asarray([0.0, 0.0, RADIUS + float(hold.margin) + lift])
        A = jax.jit(lambda h, x, q: h.choose(x, q))(hold, x, jnp.asarray(rotation.IDENTITY))
    # every group holds the ball's lowest point, at the lift (the box's bottom samples lie there too)
    np.testing.assert_array_equal(np.asarray(A.point), np.tile([0.0, 0.0, -RADIUS], (8, 1)))
    assert np.all(np.asarray(A.gap) == pytest.approx(lift, rel=1e-9))
    assert np.all(np.asarray(A.supported)) and not np.any(np.asarray(A.by_samples))


def test_a_body_resting_on_the_tied_face_is_never_held_by_samples():
    with jax.enable_x64(True):
        weight = ConstantLoad((0.0, 0.0, -9.81e-6))  # 1 mg under gravity, N
        body = _body(force=weight, position=(0.0, 0.0, RADIUS + demos.MARGIN))
        run = demos.run(demos.attach(body, demos.FLOOR.surface, spacing=SPACING), 20)
    assert np.all(run.report.touching), "the body rests on the floor, pressed by its weight, every step"
    assert not np.any(run.report.held_by_samples)
