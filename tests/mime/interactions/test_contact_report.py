"""A step's report names the held point that started it deepest, and that point's gap.

``ContactReport.contact_point`` (body frame) and ``contact_gap`` describe one point: the first pass's
held point with the least gap at the step's start. Read back at the start's pose, the point lies
``contact_gap`` past the margin. A capsule tilted on the floor, and a box turned about two axes,
hold points at different depths, so a report that took another of them would not match.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mime import demos
from mime.dynamics import RigidState
from mime.geometry import Box, Capsule, rotation
from mime.nodes import ConstantLoad, rigid

TILTED = {
    # the capsule's lower end on the margin, its other end well above it
    "capsule": (Capsule(radius=2.5e-4, length=1e-3), (0.0, 0.0, 5.6e-4), (np.cos(0.3), 0.0, np.sin(0.3), 0.0)),
    # a box on one corner, that corner just inside the margin
    "box": (Box(4e-4, 3e-4, 2e-4), None, (0.5, 1.0, 1.0, 0.0)),
}


def _on_its_lowest_corner(box: Box, turn: tuple[float, ...]) -> tuple[float, float, float]:
    """The centre that puts the box's lowest corner 1e-7 m above the floor (full sizes ``x, y, z``)."""
    q = np.asarray(turn) / np.linalg.norm(turn)
    R = np.asarray(rotation.matrix(jnp.asarray(q)))
    corners = np.array([[sx * box.x, sy * box.y, sz * box.z] for sx in (-0.5, 0.5) for sy in (-0.5, 0.5)
                        for sz in (-0.5, 0.5)])
    return (0.0, 0.0, float(-(corners @ R.T)[:, 2].min() + 1e-7))


@pytest.mark.parametrize("kind", sorted(TILTED))
def test_the_reported_point_is_the_deepest_held_one_at_the_start(kind):
    hull, position, turn = TILTED[kind]
    with jax.enable_x64(True):
        turn = tuple(np.asarray(turn) / np.linalg.norm(turn))
        position = position or _on_its_lowest_corner(hull, turn)
        body = demos.make_body(hull, mass=1e-6, force=ConstantLoad((0.0, 0.0, -1e-5)),
                               position=position, orientation=turn, velocity=(0.0, 0.0, -1e-3))
        experiment = demos.attach(body, demos.FLOOR.surface)
        inputs = jax.tree_util.tree_map(jnp.asarray, experiment.build().step_inputs(body))
        start = jax.tree_util.tree_map(jnp.asarray, body.start)
        _, report = rigid.run_scan(inputs, start, jnp.asarray(1e-4), 1)
        point, gap = np.asarray(report.contact_point[0]), float(report.contact_gap[0])
        R = np.asarray(rotation.matrix(start.orientation))
    assert bool(report.touching[0]), "the scene must touch at its first step"
    height = float((np.asarray(start.position) + R @ point)[2])  # the floor is z = 0, its normal +z
    margin = float(inputs.hold.margin)
    assert height - margin == pytest.approx(gap, abs=1e-15)
