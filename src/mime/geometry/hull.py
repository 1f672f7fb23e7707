"""A body's hull: one or more parts, each a kind placed in the body's frame; or none, and an extent.

``Part(geometry, position, orientation)`` puts a kind's frame at ``position``
(m, body frame) turned by the unit quaternion ``orientation``. A ``Hull`` with
no parts declares ``extent`` (m) and is held as a ball of that radius about
the body's centre.

>>> from mime.geometry import Capsule, Sphere
>>> Hull([Part(Capsule(radius=0.5, length=2.0))]).size
3.0
>>> h = Hull(extent=0.25)
>>> h.has_hull, h.extent
(False, 0.25)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from mime.errors import ValidationError, real_array, invalid
from mime.geometry._base import Geometry, check_spacing, positive_length
from mime.geometry import rotation

__all__ = ["Part", "Hull", "as_hull"]


@dataclass(frozen=True, eq=False)
class Part:
    """A kind placed in the body's frame."""

    geometry: Geometry
    position: tuple[float, float, float] = (0.0, 0.0, 0.0)
    orientation: tuple[float, float, float, float] = rotation.IDENTITY

    def __post_init__(self) -> None:
        if not isinstance(self.geometry, Geometry):
            raise invalid("geometry", self.geometry, "a mime.geometry kind", where="Part")
        # never parsed from text, nor read from a complex number, a bool or None (mime.errors.real_array)
        p = real_array(self.position, "position", "three finite lengths in metres", shape=(3,), where="Part")
        q = real_array(self.orientation, "orientation", "a unit quaternion (w, x, y, z)", shape=(4,), where="Part")
        if abs(np.linalg.norm(q) - 1.0) > 1e-6:
            raise invalid("orientation", self.orientation, "a unit quaternion (w, x, y, z)", where="Part")
        if abs(np.linalg.norm(q) - 1.0) > 1e-12:  # keep a unit quaternion as given, bit for bit
            q = q / np.linalg.norm(q)
        object.__setattr__(self, "position", tuple(float(c) for c in p))
        object.__setattr__(self, "orientation", tuple(float(c) for c in q))

    @property
    def at_origin(self) -> bool:
        """The part's frame is the body's (no offset, no turn)."""
        return self.position == (0.0, 0.0, 0.0) and self.orientation == rotation.IDENTITY

    def matrix(self) -> np.ndarray:
        return rotation.matrix(np.asarray(self.orientation))

    def sample(self, spacing: float) -> tuple[np.ndarray, np.ndarray]:
        """The kind's samples, in the body's frame."""
        pts, nrm = self.geometry.sample(spacing)
        R = self.matrix()
        return pts @ R.T + np.asarray(self.position), nrm @ R.T


class Hull:
    """A body's hull: ``parts`` (one or more ``Part`` or bare kinds), or none and an ``extent``."""

    def __init__(self, parts: Sequence[Part | Geometry] = (), *, extent: float | None = None) -> None:
        if isinstance(parts, (str, bytes, Geometry, Part)) or not isinstance(parts, Sequence):
            raise invalid("parts", parts, "a sequence of Part or mime.geometry kinds (a list, a tuple)", where="Hull")
        made = []
        for i, p in enumerate(parts):
            if isinstance(p, Geometry):
                p = Part(p)
            if not isinstance(p, Part):
                raise invalid(f"parts[{i}]", p, "a Part or a mime.geometry kind", where="Hull")
            made.append(p)
        self.parts: tuple[Part, ...] = tuple(made)
        if self.parts:
            if extent is not None:
                raise invalid("extent", extent, "None for a hull with parts, which states its own size", where="Hull")
            self._extent = None
        else:
            if extent is None:
                raise invalid("extent", None, "its extent in metres, for a hull with no parts", where="Hull")
            self._extent = positive_length("extent", extent, where="Hull")

    @property
    def has_hull(self) -> bool:
        """Whether the body has parts (a hull-less body is held as a ball of its extent)."""
        return bool(self.parts)

    @property
    def size(self) -> float | None:
        """The diameter of the smallest ball about the body's centre that holds every part, m (``None`` without parts)."""
        if not self.parts:
            return None
        return 2.0 * max(float(np.linalg.norm(p.position)) + p.geometry.size / 2 for p in self.parts)

    @property
    def extent(self) -> float:
        """Return how far the body reaches from its centre, in metres (the declared extent, or half the size)."""
        return self._extent if self._extent is not None else self.size / 2  # type: ignore[operator]

    @property
    def radial_extent(self) -> float:
        """How far the body reaches from its own axis (body ``z``), m.

        Exact for one part at the body's origin; a bound (offset plus half the part's size) otherwise.
        """
        if not self.parts:
            return self.extent
        if len(self.parts) == 1 and self.parts[0].at_origin:
            return self.parts[0].geometry.radial_extent
        return max(math.hypot(p.position[0], p.position[1]) + p.geometry.size / 2 for p in self.parts)

    def sample(self, spacing: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(points, normals, part_index)`` of every part, in the body's frame."""
        spacing = check_spacing(spacing, where="Hull.sample")
        if not self.parts:
            raise invalid("hull", self, "a hull with parts: one with none is held as a ball of its extent, and has "
                          "no samples", where="Hull.sample")
        out_p, out_n, out_i = [], [], []
        for i, part in enumerate(self.parts):
            p, n = part.sample(spacing)
            out_p.append(p)
            out_n.append(n)
            out_i.append(np.full(len(p), i))
        return np.concatenate(out_p), np.concatenate(out_n), np.concatenate(out_i)

    def to_document(self) -> dict[str, Any]:
        if not self.parts:
            return {"extent": self._extent, "parts": []}
        return {
            "parts": [
                {
                    "document": p.geometry.to_document(),
                    "kind": p.geometry.kind,
                    "orientation": list(p.orientation),
                    "position": list(p.position),
                }
                for p in self.parts
            ]
        }

    def to_arrays(self) -> dict[str, Any]:
        out = {}
        for i, p in enumerate(self.parts):
            for name, a in p.geometry.to_arrays().items():
                out[f"part{i}.{name}"] = a
        return out

    @classmethod
    def from_document(cls, doc: dict[str, Any], arrays: dict[str, Any]) -> "Hull":
        from mime.geometry import KIND_CLASSES

        if not doc["parts"]:
            return cls(extent=doc["extent"])
        parts = []
        for i, item in enumerate(doc["parts"]):
            kind = item["kind"]
            if kind not in KIND_CLASSES:
                raise invalid(f"hull.parts[{i}].kind", kind, f"one of {', '.join(sorted(KIND_CLASSES))}")
            mine = {k.split(".", 1)[1]: v for k, v in arrays.items() if k.startswith(f"part{i}.")}
            geom = KIND_CLASSES[kind].from_document(item["document"], mine)
            parts.append(Part(geom, tuple(item["position"]), tuple(item["orientation"])))
        return cls(parts)

    def __repr__(self) -> str:
        if not self.parts:
            return f"Hull(extent={self._extent!r})"
        return f"Hull({list(p.geometry for p in self.parts)!r})"


def as_hull(hull: Any) -> Hull:
    """A ``Hull`` from a Hull, a kind, a Part or a sequence of them."""
    if isinstance(hull, Hull):
        return hull
    if isinstance(hull, (Geometry, Part)):
        return Hull([hull])
    if isinstance(hull, (list, tuple)):
        return Hull(hull)
    raise invalid("hull", hull, "a mime.geometry kind, a Part, a list of them, or a Hull")
