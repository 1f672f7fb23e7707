"""``solid_inertia``, the moments every scene's bodies get, against MuJoCo's own inertia of the same solid.

MIME and MuJoCo each compute a uniform solid's inertia from its shape, independently: MuJoCo from a
geom's type and sizes when a body states no inertia of its own. Where MIME takes a kind as another
solid (the capsule, the screw and the mesh as cylinders, a hull without parts as a ball), MuJoCo is
given that solid, written here from the rule ``solid_inertia`` states. The whole tensor is compared, so
that MuJoCo may order its principal axes as it likes.
"""

from __future__ import annotations

import mujoco
import numpy as np
from hypothesis import given, settings, strategies as st

from mime.geometry import Box, Capsule, Cylinder, Ellipsoid, Hull, Mesh, Part, Screw, Sphere
from mime.geometry.sampled import cylinder_mesh
from mime.geometry._inertia import solid_inertia

MASS = 2.5
"""kg, every body's mass here."""
RTOL = 1e-12
"""Both sides are a few products and sums of float64 lengths: they agree to a few units in the last place."""

lengths = st.floats(0.01, 2.0)


def mujoco_tensor(geom: str) -> np.ndarray:
    """The ``(3, 3)`` inertia tensor (kg m^2) MuJoCo computes for one body holding only ``geom``, of ``MASS``."""
    xml = (f'<mujoco><worldbody><body><freejoint/><geom {geom} mass="{MASS!r}"/></body></worldbody></mujoco>')
    model = mujoco.MjModel.from_xml_string(xml)
    R = np.empty(9)
    mujoco.mju_quat2Mat(R, model.body_iquat[1])
    R = R.reshape(3, 3)
    return R @ np.diag(model.body_inertia[1]) @ R.T


def assert_same_solid(geometry, geom: str) -> None:
    ours = np.diag(solid_inertia(geometry, MASS))
    theirs = mujoco_tensor(geom)
    scale = np.max(np.abs(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=RTOL * scale)


@settings(max_examples=25, deadline=None)
@given(lengths, lengths, lengths)
def test_a_box_has_mujocos_moments(x, y, z):
    assert_same_solid(Box(x, y, z), f'type="box" size="{x / 2!r} {y / 2!r} {z / 2!r}"')


@settings(max_examples=25, deadline=None)
@given(lengths, lengths, lengths)
def test_an_ellipsoid_has_mujocos_moments(a, b, c):
    assert_same_solid(Ellipsoid(a, b, c), f'type="ellipsoid" size="{a!r} {b!r} {c!r}"')


@settings(max_examples=15, deadline=None)
@given(lengths, lengths)
def test_a_sphere_a_cylinder_and_a_ball_of_a_hulls_extent_have_mujocos_moments(r, length):
    assert_same_solid(Sphere(r), f'type="sphere" size="{r!r}"')
    assert_same_solid(Cylinder(radius=r, length=length), f'type="cylinder" size="{r!r} {length / 2!r}"')
    assert_same_solid(Hull(extent=r), f'type="sphere" size="{r!r}"')


@settings(max_examples=15, deadline=None)
@given(lengths, lengths)
def test_a_capsule_is_taken_as_a_cylinder_of_its_whole_length(r, length):
    """The capsule's two caps are counted as a cylinder's length ``length + 2 r`` (not MuJoCo's exact capsule)."""
    cylinder = f'type="cylinder" size="{r!r} {length / 2 + r!r}"'
    assert_same_solid(Capsule(radius=r, length=length), cylinder)
    assert_same_solid(Hull([Part(Capsule(radius=r, length=length), position=(0.1, 0.0, 0.0))]), cylinder)


def test_a_screw_is_taken_as_a_cylinder_of_its_mean_radius():
    screw = Screw(core_radius=0.2, thread_depth=0.05, pitch=0.1, length=0.9)
    assert_same_solid(screw, f'type="cylinder" size="{0.2 + 0.05 / 2!r} {0.9 / 2!r}"')


@settings(max_examples=15, deadline=None)
@given(st.floats(0.5, 2.0), st.floats(0.5, 2.0), st.floats(0.5, 2.0), st.integers(3, 9))
def test_a_mesh_is_taken_as_the_cylinder_about_z_around_its_bounding_box(sx, sy, sz, facets):
    """Radius half the larger of the box's x and y sides, length its z side (a turned mesh: its own cylinder)."""
    base = cylinder_mesh(0.3, 0.8, facets)
    mesh = Mesh(base.vertices * np.array([sx, sy, sz]), base.faces)
    side = [float(s) for s in mesh.vertices.max(axis=0) - mesh.vertices.min(axis=0)]
    assert_same_solid(mesh, f'type="cylinder" size="{max(side[0], side[1]) / 2!r} {side[2] / 2!r}"')
