"""Hull geometry: the kinds a body's hull is made of, and the hull itself.

- with a closed-form support query: ``Sphere``, ``Ellipsoid``,
  ``Cylinder``, ``Capsule``;
- with a support found by Newton's steps on its own surface: ``Screw``;
- with no support query, held at their samples: ``Box``, ``Mesh``, and
  ``PointSet`` (a few given points, such as a bar's supports);
- ``Part`` places a kind in a body's frame, ``Hull`` gathers parts
  (or none, and an extent).

Every kind samples its surface at a spacing, states its ``size`` and, for the
sampled ones, the ``shortfall`` of its samples.
"""

from mime.document_kinds import register_kind
from mime.geometry._base import Geometry, positive_length
from mime.geometry.convex import Capsule, Cylinder, Ellipsoid, Sphere
from mime.geometry.screw import Screw
from mime.geometry.sampled import Box, Mesh, cylinder_mesh
from mime.geometry.points import PointSet
from mime.geometry.hull import Hull, Part, as_hull
from mime.geometry import rotation
from mime.geometry._inertia import solid_inertia

KIND_CLASSES: dict[str, type] = {
    c.kind: c for c in (Sphere, Ellipsoid, Cylinder, Capsule, Screw, Box, Mesh, PointSet)
}
"""Each kind's class by its name (``"capsule"`` -> ``Capsule``)."""

for _name, _cls in (*KIND_CLASSES.items(), ("hull", Hull)):  # each kind can be saved in an experiment
    register_kind(_name, _cls)

__all__ = [
    "Geometry",
    "solid_inertia",
    "positive_length",
    "Sphere",
    "Ellipsoid",
    "Cylinder",
    "Capsule",
    "Screw",
    "Box",
    "Mesh",
    "PointSet",
    "cylinder_mesh",
    "Hull",
    "Part",
    "as_hull",
    "rotation",
    "KIND_CLASSES",
]
