"""Principal moments of inertia of a uniform solid shaped as a hull's kind: the one rule every
scene of the book gives its bodies (``mime.demos``, and both engines of ``mime.peer``)."""

from __future__ import annotations

from mime.errors import Number, invalid
from mime.geometry._base import Geometry
from mime.geometry.convex import Capsule, Cylinder, Ellipsoid, Sphere
from mime.geometry.hull import Hull
from mime.geometry.sampled import Box, Mesh
from mime.geometry.screw import Screw

__all__ = ["solid_inertia"]

_MASS = Number("a mass > 0 (kg)", above=0.0)
"""The declared check of a solid's mass."""


def solid_inertia(geometry: Geometry | Hull, mass: float) -> tuple[float, float, float]:
    """Principal moments (kg m^2) of a solid of ``mass`` shaped as the kind.

    Exact for the sphere, the ellipsoid, the cylinder and the box. Close, not exact, for the rest: the
    screw as a cylinder of its mean radius, the capsule as a cylinder of its whole length, the mesh as
    the cylinder about z around its bounding box (radius half the box's larger side across z, length its
    z side), and a hull without parts as a ball of its extent."""
    mass = _MASS.check(mass, "mass", where="solid_inertia")
    g = geometry.parts[0].geometry if isinstance(geometry, Hull) and geometry.parts else geometry
    if isinstance(g, Hull):  # no parts: a ball of the extent
        r = g.extent
        i = 0.4 * mass * r * r
        return (i, i, i)
    if isinstance(g, Sphere):
        i = 0.4 * mass * g.radius**2
        return (i, i, i)
    if isinstance(g, Ellipsoid):
        a, b, c = g.a, g.b, g.c
        return (mass * (b * b + c * c) / 5, mass * (a * a + c * c) / 5, mass * (a * a + b * b) / 5)
    if isinstance(g, (Cylinder, Capsule, Screw)):
        if isinstance(g, Screw):
            r, L = g.core_radius + g.thread_depth / 2, g.length
        elif isinstance(g, Capsule):
            r, L = g.radius, g.length + 2 * g.radius
        else:
            r, L = g.radius, g.length
        t = mass * (3 * r * r + L * L) / 12
        return (t, t, mass * r * r / 2)
    if isinstance(g, Box):
        x, y, z = g.x, g.y, g.z
        return (mass * (y * y + z * z) / 12, mass * (x * x + z * z) / 12, mass * (x * x + y * y) / 12)
    if isinstance(g, Mesh):
        ext = g.vertices.max(axis=0) - g.vertices.min(axis=0)
        x, y, z = ext
        r = max(x, y) / 2
        t = mass * (3 * r * r + z * z) / 12
        return (t, t, mass * r * r / 2)
    raise invalid("geometry", g, "a Hull or a kind of mime.geometry: Sphere, Ellipsoid, Cylinder, Capsule, Screw, "
                  "Box or Mesh", where="solid_inertia")
