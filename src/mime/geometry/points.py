"""``PointSet``: a hull that is a few given points, such as a bar's supports.

A penalty contact acts at the hull's samples; a body modelled by where it rests
(a bar on two feet, a tripod) is best described by those points alone. A point
set samples to exactly its points at every spacing, so its shortfall is zero,
and it has no support query (a contact holds it at its points).

>>> feet = PointSet([(-0.1, 0.0, 0.0), (0.1, 0.0, 0.0)])
>>> pts, normals = feet.sample(0.05)
>>> pts.tolist(), feet.size, feet.shortfall(0.05)
([[-0.1, 0.0, 0.0], [0.1, 0.0, 0.0]], 0.2, 0.0)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mime.errors import ValidationError, real_array, invalid
from mime.geometry._base import Geometry

__all__ = ["PointSet"]


class PointSet(Geometry):
    """A hull of ``points`` (part frame, m, shape ``(n, 3)``, at least one, not all at the origin).

    The outward normal given with each sample points from the origin to it (used
    only where a surface has no normal of its own to offer).
    """

    kind: ClassVar[str] = "points"
    has_support: ClassVar[bool] = False

    def __init__(self, points: Any) -> None:
        allowed = "finite body-frame points of shape (n, 3) with n >= 1, in metres, not all at the origin"
        pts = np.array(real_array(points, "points", allowed, where="PointSet"), dtype=np.float64)
        if pts.ndim != 2 or pts.shape[1] != 3 or pts.shape[0] < 1 or not np.all(np.isfinite(pts)):
            raise invalid("points", points, f"{allowed}", where="PointSet")
        if not np.any(pts):
            raise invalid("points", points, f"{allowed}", where="PointSet")
        pts.setflags(write=False)
        self.points = pts

    @property
    def wall_maxima(self) -> int:  # type: ignore[override]
        """Every point can touch a flat wall at once."""
        return int(self.points.shape[0])

    @property
    def size(self) -> float:
        return 2.0 * float(np.max(np.linalg.norm(self.points, axis=1)))

    @property
    def radial_extent(self) -> float:
        return float(np.max(np.hypot(self.points[:, 0], self.points[:, 1])))

    def sample(self, spacing: float) -> tuple[np.ndarray, np.ndarray]:
        norms = np.linalg.norm(self.points, axis=1, keepdims=True)
        up = np.broadcast_to(np.array([0.0, 0.0, 1.0]), self.points.shape)
        normals = np.where(norms > 0, self.points / np.where(norms > 0, norms, 1.0), up)
        return self.points.copy(), normals

    def shortfall(self, spacing: float) -> float:
        """Zero: the hull is its points, and every one is a sample."""
        return 0.0

    def to_document(self) -> dict[str, Any]:
        return {"points": self.points.tolist()}

    def __repr__(self) -> str:
        return f"PointSet({self.points.tolist()!r})"
