"""Kinds with no support query, held at their samples: the box and the mesh.

Their points are samples on every face, no more than ``spacing`` apart along
each edge of a face's grid. Because the contact holds them at their samples,
the body can reach past the samples by up to their *shortfall*: the farthest
any point of the surface lies from its nearest sample. A box's face grid of
steps ``(dx, dy)`` has shortfall ``hypot(dx, dy) / 2``; a mesh's face on a grid of
steps ``(s1, s2)`` along two of its edges has shortfall at most ``(s1 + s2) / 2``.

>>> b = Box(2.0, 1.0, 1.0)
>>> pts, nrm = b.sample(0.5)
>>> len(pts) > 0, round(b.shortfall(0.5), 6)
(True, 0.353553)
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from mime.errors import ValidationError, Whole, invalid, real_array, whole_number
from mime.geometry._base import Geometry, positive_length

__all__ = ["Box", "Mesh", "cylinder_mesh"]


def _steps(edge: float, spacing: float) -> int:
    return max(1, math.ceil(edge / spacing - 1e-12))


class Box(Geometry):
    """A rectangular box of edge lengths ``x``, ``y``, ``z`` m, centred on its origin."""

    kind: ClassVar[str] = "box"
    has_support: ClassVar[bool] = False
    wall_maxima: ClassVar[int] = 4

    def __init__(self, x: float, y: float, z: float) -> None:
        self.x = positive_length("x", x, where="Box")
        self.y = positive_length("y", y, where="Box")
        self.z = positive_length("z", z, where="Box")

    @property
    def size(self) -> float:
        return math.sqrt(self.x**2 + self.y**2 + self.z**2)

    @property
    def radial_extent(self) -> float:
        return math.hypot(self.x / 2, self.y / 2)

    def sample(self, spacing: float) -> tuple[np.ndarray, np.ndarray]:
        e = np.array([self.x, self.y, self.z])
        pts, nrm = [], []
        for axis in range(3):
            u, v = [a for a in range(3) if a != axis]
            nu, nv = _steps(e[u], spacing), _steps(e[v], spacing)
            U, V = np.meshgrid(np.linspace(-e[u] / 2, e[u] / 2, nu + 1), np.linspace(-e[v] / 2, e[v] / 2, nv + 1), indexing="ij")
            for s in (-1.0, 1.0):
                p = np.zeros((U.size, 3))
                p[:, u], p[:, v], p[:, axis] = U.ravel(), V.ravel(), s * e[axis] / 2
                n = np.zeros_like(p)
                n[:, axis] = s
                pts.append(p)
                nrm.append(n)
        return np.concatenate(pts), np.concatenate(nrm)

    def shortfall(self, spacing: float) -> float:
        e = [self.x, self.y, self.z]
        out = 0.0
        for axis in range(3):
            u, v = [e[a] for a in range(3) if a != axis]
            out = max(out, 0.5 * math.hypot(u / _steps(u, spacing), v / _steps(v, spacing)))
        return out

    def to_document(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y, "z": self.z}


_VERTICES = "finite real numbers of shape (V, 3) with V >= 4, in metres"
_FACES = "whole-number vertex indices of shape (F, 3) with F >= 4"


def _vertices(vertices: Any) -> np.ndarray:
    """A mesh's vertices as a float64 ``(V, 3)`` array, ``V >= 4``; else mime's ``ValidationError`` naming them.

    Text is never parsed (``"1.0"`` is refused), nor is a complex number, a bool or ``None`` read as one.
    """
    v = real_array(vertices, "vertices", _VERTICES, where="Mesh")
    if v.ndim != 2 or v.shape[1] != 3 or len(v) < 4:
        raise invalid("vertices", v, f"{_VERTICES} (given: shape {v.shape})", where="Mesh")
    return v


def _faces(faces: Any) -> np.ndarray:
    """A mesh's faces as an integer ``(F, 3)`` array, ``F >= 4``; else mime's ``ValidationError`` naming them.

    Only integers are indices: text, bools, floats (even ``1.0``), complex numbers and ``None`` are refused.
    """
    def refuse() -> ValidationError:
        return invalid("faces", faces, _FACES, where="Mesh")

    if faces is None or isinstance(faces, (bool, np.bool_, str, bytes, complex)):
        raise refuse()
    try:
        f = np.asarray(faces)
    except Exception:  # noqa: BLE001 - anything NumPy cannot read (a ragged list) is not an index array
        raise refuse() from None
    if f.dtype.kind not in "iu":
        raise refuse()
    if f.ndim != 2 or f.shape[1] != 3 or len(f) < 4:
        raise invalid("faces", f, f"{_FACES} (given: shape {f.shape})", where="Mesh")
    return f


_WALL_MAXIMA = Whole("a whole number of at least 1 (the deepest points a wall can hold at once)", at_least=1,
                     integral=True)
"""The declared check of a mesh's ``wall_maxima``."""


class Mesh(Geometry):
    """A closed triangle mesh: ``vertices`` ``(V, 3)`` m in its frame and ``faces`` ``(F, 3)`` indices.

    Faces are oriented outward (a mesh wound the other way is turned round).
    """

    kind: ClassVar[str] = "mesh"
    has_support: ClassVar[bool] = False

    def __init__(self, vertices: Any, faces: Any, *, wall_maxima: int = 8) -> None:
        v = _vertices(vertices)
        f = _faces(faces)
        if f.min() < 0 or f.max() >= len(v):
            raise invalid("faces", f"<indices {int(f.min())}..{int(f.max())}>", f"indices 0..{len(v) - 1}", where="Mesh")
        a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
        # a face of no area has no normal: refuse it rather than sample NaN normals
        twice_area = np.linalg.norm(np.cross(b - a, c - a), axis=1)
        scale = float(np.max(np.abs(v))) if v.size else 0.0
        flat = np.flatnonzero(~(twice_area > 1e-12 * scale * scale))
        if flat.size:
            i = int(flat[0])
            raise invalid(f"faces[{i}]", f[i].tolist(), "faces of non-zero area (its vertices are collinear or repeated, "
                          "so the face has no area and no normal)", where="Mesh")
        volume = np.sum(np.einsum("ij,ij->i", a, np.cross(b, c))) / 6.0
        if volume < 0:
            f = f[:, ::-1].copy()
        self.vertices = v
        self.faces = f.astype(np.int64)
        self._wall_maxima = _WALL_MAXIMA.check(wall_maxima, "wall_maxima", where="Mesh")

    @property
    def wall_maxima(self) -> int:  # type: ignore[override]
        return self._wall_maxima

    @property
    def size(self) -> float:
        return 2.0 * float(np.max(np.linalg.norm(self.vertices, axis=1)))

    @property
    def radial_extent(self) -> float:
        return float(np.max(np.hypot(self.vertices[:, 0], self.vertices[:, 1])))

    def _cells(self, spacing: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        v, f = self.vertices, self.faces
        a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
        # start each face's grid at the vertex facing its longest edge (its two short edges carry the grid)
        la, lb, lc = (np.linalg.norm(c - b, axis=1), np.linalg.norm(a - c, axis=1), np.linalg.norm(b - a, axis=1))
        first = np.argmax(np.stack([la, lb, lc]), axis=0)
        tri = np.stack([a, b, c], axis=1)
        order = np.stack([first, (first + 1) % 3, (first + 2) % 3], axis=1)
        tri = np.take_along_axis(tri, order[:, :, None], axis=1)
        a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
        n1 = np.maximum(1, np.ceil(np.linalg.norm(b - a, axis=1) / spacing - 1e-12)).astype(int)
        n2 = np.maximum(1, np.ceil(np.linalg.norm(c - a, axis=1) / spacing - 1e-12)).astype(int)
        return a, b, c, n1, n2

    def sample(self, spacing: float) -> tuple[np.ndarray, np.ndarray]:
        """Each face on a grid along its two edges from its first vertex, steps at most ``spacing``,
        and its third edge at the same steps."""
        a, b, c, n1, n2 = self._cells(spacing)
        normals = np.cross(b - a, c - a)
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        pts, nrm = [], []
        for i in range(len(a)):
            ii, jj = np.meshgrid(np.arange(n1[i] + 1), np.arange(n2[i] + 1), indexing="ij")
            s, t = ii / n1[i], jj / n2[i]
            keep = s + t <= 1 + 1e-12
            s, t = s[keep], t[keep]
            k = max(1, math.ceil(np.linalg.norm(c[i] - b[i]) / spacing - 1e-12))
            e = np.arange(k + 1) / k
            s, t = np.concatenate([s, 1 - e]), np.concatenate([t, e])
            p = a[i] + s[:, None] * (b[i] - a[i]) + t[:, None] * (c[i] - a[i])
            pts.append(p)
            nrm.append(np.tile(normals[i], (len(p), 1)))
        return np.concatenate(pts), np.concatenate(nrm)

    def shortfall(self, spacing: float) -> float:
        """Half the sum of a face's two grid steps, the most over the faces (a point of a grid cell lies
        within that of one of its corners)."""
        a, b, c, n1, n2 = self._cells(spacing)
        s1 = np.linalg.norm(b - a, axis=1) / n1
        s2 = np.linalg.norm(c - a, axis=1) / n2
        return float(np.max(0.5 * (s1 + s2)))

    def to_document(self) -> dict[str, Any]:
        return {"faces": int(len(self.faces)), "vertices": int(len(self.vertices)), "wall_maxima": self._wall_maxima}

    def to_arrays(self) -> dict[str, Any]:
        return {"faces": self.faces, "vertices": self.vertices}

    @classmethod
    def from_document(cls, doc: dict[str, Any], arrays: dict[str, Any]) -> "Mesh":
        mesh = cls(arrays["vertices"], arrays["faces"], wall_maxima=doc.get("wall_maxima", 8))
        if len(mesh.vertices) != doc["vertices"] or len(mesh.faces) != doc["faces"]:
            counts = {"vertices": len(mesh.vertices), "faces": len(mesh.faces)}
            key = "vertices" if counts["vertices"] != doc["vertices"] else "faces"
            raise invalid(key, doc[key], f"the count of {key} its arrays hold, {counts[key]}", where="Mesh document")
        return mesh

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is Mesh
            and np.array_equal(other.vertices, self.vertices)
            and np.array_equal(other.faces, self.faces)
        )

    def __hash__(self) -> int:
        return hash((len(self.vertices), len(self.faces)))

    def __repr__(self) -> str:
        return f"Mesh({len(self.vertices)} vertices, {len(self.faces)} faces)"


def cylinder_mesh(radius: float, length: float, facets: int) -> Mesh:
    """A closed prism of ``facets`` sides whose vertices lie on a cylinder of ``radius`` and ``length`` (axis z).

    >>> cylinder_mesh(1.0, 2.0, 12).faces.shape
    (48, 3)
    """
    whole_number(facets, "facets", "a whole number of at least 3", where="cylinder_mesh", at_least=3)
    r = positive_length("radius", radius, where="cylinder_mesh")
    L = positive_length("length", length, where="cylinder_mesh")
    t = 2 * np.pi * np.arange(facets) / facets
    ring = np.stack([r * np.cos(t), r * np.sin(t)], 1)
    bottom = np.column_stack([ring, np.full(facets, -L / 2)])
    top = np.column_stack([ring, np.full(facets, L / 2)])
    verts = np.concatenate([bottom, top, [[0, 0, -L / 2], [0, 0, L / 2]]])
    cb, ct = 2 * facets, 2 * facets + 1
    faces = []
    for i in range(facets):
        j = (i + 1) % facets
        faces += [[i, j, facets + j], [i, facets + j, facets + i], [cb, j, i], [ct, facets + i, facets + j]]
    return Mesh(verts, np.array(faces), wall_maxima=4)
