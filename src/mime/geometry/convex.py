"""The convex kinds with a closed-form support query: sphere, ellipsoid, cylinder, capsule.

Each is centred on its part frame's origin; the cylinder's and the capsule's
axis is ``z``. For a unit direction ``d``:

- sphere of radius ``r``: ``s(d) = r d``;
- ellipsoid of semi-axes ``A = diag(a, b, c)``: ``s(d) = A^2 d / sqrt(d^T A^2 d)``;
- cylinder of radius ``r`` and length ``L``: ``s(d) = (r d_xy / |d_xy|, sign(d_z) L / 2)``;
- capsule (a segment of length ``L`` swept by a ball of radius ``r``):
  ``s(d) = (0, 0, sign(d_z) L / 2) + r d``.

A cylinder or a capsule has two local deepest places against a flat wall, one
at each end (a cylinder lying along a wall is deepest along a whole line, which
its two ends bound). ``support_near(d, hint)`` gives the deepest point of the
end the hint lies on (the end ``d`` points to where the hint is at the middle),
and, where a cylinder's flat end faces the wall square, the rim point towards
the hint; so each group of the hull holds its own end of a line or a face.

>>> import jax.numpy as jnp
>>> Sphere(2.0).support(jnp.array([0.0, 0.0, -3.0])).tolist()
[0.0, 0.0, -2.0]
>>> [round(float(c), 6) for c in Cylinder(radius=1.0, length=4.0).support(jnp.array([1.0, 0.0, 1.0]))]
[1.0, 0.0, 2.0]
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np

from mime._numerics import is_zero_length
from mime.geometry._base import Geometry, fibonacci_sphere, padded, positive_length, ring_disc

__all__ = ["Sphere", "Ellipsoid", "Cylinder", "Capsule", "unit", "TIE"]

TIE = 4.0
"""Ties of the support are judged within ``TIE`` units of the dtype's resolution of the kind's size."""


def unit(d: Any) -> Any:
    """``d / |d|``, with the zero vector sent to ``-z`` (a guarded norm, no NaN in value or gradient).

    A vector too short to square safely counts as zero on every backend (``mime._numerics``).
    """
    ok = ~is_zero_length(d, keepdims=True)
    safe = jnp.where(ok, d, jnp.array([0.0, 0.0, -1.0], dtype=d.dtype))
    return safe / jnp.sqrt(jnp.sum(safe * safe, axis=-1, keepdims=True))


def _tie(size: float, dtype: Any) -> Any:
    return TIE * jnp.finfo(dtype).eps * size


def _axial(dz: Any, half: float, hint_z: Any) -> Any:
    """The end a local support lies on: the hint's end, or the one ``dz`` points to for a hint at the middle."""
    side = jnp.where(hint_z != 0, hint_z, dz)
    return jnp.where(side > 0, half, -half)


def _global_axial(dz: Any, half: float) -> Any:
    return jnp.where(dz > 0, half, -half)


def _radial(dxy: Any, radius: float, hint_xy: Any, tie: Any) -> Any:
    """The rim point of a disc of ``radius`` along ``dxy``, or towards the hint where ``dxy`` vanishes (a tie)."""
    rho2 = jnp.sum(dxy * dxy)
    tied = jnp.sqrt(rho2) * radius <= tie
    towards = jnp.where(is_zero_length(hint_xy), jnp.array([1.0, 0.0], dtype=dxy.dtype), hint_xy)
    safe = jnp.where(tied, towards, dxy)
    return radius * safe / jnp.sqrt(jnp.sum(safe * safe))


class Sphere(Geometry):
    """A ball of ``radius`` m about its origin."""

    kind: ClassVar[str] = "sphere"
    has_support: ClassVar[bool] = True
    closed_form: ClassVar[bool] = True
    wall_maxima: ClassVar[int] = 1
    axisymmetric: ClassVar[bool] = True
    centred_point: ClassVar[bool] = True
    hint_free: ClassVar[bool] = True

    def __init__(self, radius: float) -> None:
        self.radius = positive_length("radius", radius, where="Sphere")

    @property
    def size(self) -> float:
        return 2.0 * self.radius

    @property
    def radial_extent(self) -> float:
        return self.radius

    def support(self, direction: Any) -> Any:
        return self.radius * unit(jnp.asarray(direction))

    def support_params(self) -> np.ndarray:
        """``(radius,)``."""
        return padded(self.radius)

    @staticmethod
    def support_from(params: Any, direction: Any, hint: Any, steps: Any) -> tuple[Any, Any]:
        d = unit(jnp.asarray(direction))
        p = jnp.asarray(params, dtype=d.dtype)
        return p[0] * d, jnp.array(True)

    def sample(self, spacing: float) -> tuple[np.ndarray, np.ndarray]:
        n = math.ceil(4 * math.pi * self.radius**2 / spacing**2)
        u = fibonacci_sphere(max(n, 8))
        return self.radius * u, u

    def to_document(self) -> dict[str, Any]:
        return {"radius": self.radius}


class Ellipsoid(Geometry):
    """An ellipsoid of semi-axes ``a``, ``b``, ``c`` m along its frame's ``x``, ``y``, ``z``."""

    kind: ClassVar[str] = "ellipsoid"
    has_support: ClassVar[bool] = True
    closed_form: ClassVar[bool] = True
    wall_maxima: ClassVar[int] = 1
    hint_free: ClassVar[bool] = True

    def __init__(self, a: float, b: float, c: float) -> None:
        self.a = positive_length("a", a, where="Ellipsoid")
        self.b = positive_length("b", b, where="Ellipsoid")
        self.c = positive_length("c", c, where="Ellipsoid")

    @property
    def axisymmetric(self) -> bool:  # type: ignore[override]
        return self.a == self.b

    @property
    def size(self) -> float:
        return 2.0 * max(self.a, self.b, self.c)

    @property
    def radial_extent(self) -> float:
        return max(self.a, self.b)

    def support(self, direction: Any) -> Any:
        # the step's own form (support_from on support_params): one formula for both
        d = unit(jnp.asarray(direction))
        return self.support_from(self.support_params(), d, jnp.zeros_like(d), 0)[0]

    def support_params(self) -> np.ndarray:
        """``(a^2, b^2, c^2)``."""
        return padded(self.a**2, self.b**2, self.c**2)

    @staticmethod
    def support_from(params: Any, direction: Any, hint: Any, steps: Any) -> tuple[Any, Any]:
        d = unit(jnp.asarray(direction))
        a2 = jnp.asarray(params, dtype=d.dtype)[:3]
        return a2 * d / jnp.sqrt(jnp.sum(a2 * d * d, axis=-1, keepdims=True)), jnp.array(True)

    def sample(self, spacing: float) -> tuple[np.ndarray, np.ndarray]:
        n = math.ceil(4 * math.pi * max(self.a, self.b, self.c) ** 2 / spacing**2)
        u = fibonacci_sphere(max(n, 8))
        axes = np.array([self.a, self.b, self.c])
        nrm = u / axes
        return u * axes, nrm / np.linalg.norm(nrm, axis=1, keepdims=True)

    def to_document(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "c": self.c}


def _side(radius: float, length: float, spacing: float) -> tuple[np.ndarray, np.ndarray]:
    n_t = max(6, math.ceil(2 * math.pi * radius / spacing))
    n_z = max(2, math.ceil(length / spacing) + 1)
    t = 2 * math.pi * np.arange(n_t) / n_t
    z = np.linspace(-length / 2, length / 2, n_z)
    T, Z = np.meshgrid(t, z, indexing="ij")
    nrm = np.stack([np.cos(T), np.sin(T), np.zeros_like(T)], axis=-1).reshape(-1, 3)
    pts = np.stack([radius * np.cos(T), radius * np.sin(T), Z], axis=-1).reshape(-1, 3)
    return pts, nrm


class Cylinder(Geometry):
    """A solid circular cylinder of ``radius`` and ``length`` m, its axis along ``z``."""

    kind: ClassVar[str] = "cylinder"
    has_support: ClassVar[bool] = True
    closed_form: ClassVar[bool] = True
    wall_maxima: ClassVar[int] = 2
    axisymmetric: ClassVar[bool] = True

    def __init__(self, radius: float, length: float) -> None:
        self.radius = positive_length("radius", radius, where="Cylinder")
        self.length = positive_length("length", length, where="Cylinder")

    @property
    def size(self) -> float:
        return 2.0 * math.hypot(self.radius, self.length / 2)

    @property
    def radial_extent(self) -> float:
        return self.radius

    def support_params(self) -> np.ndarray:
        """``(radius, length / 2, size)``."""
        return padded(self.radius, self.length / 2, self.size)

    @staticmethod
    def support_from(params: Any, direction: Any, hint: Any, steps: Any) -> tuple[Any, Any]:
        d = unit(jnp.asarray(direction))
        hint = jnp.asarray(hint, dtype=d.dtype)
        radius, half, size = jnp.asarray(params, dtype=d.dtype)[:3]
        tie = _tie(size, d.dtype)
        xy = _radial(d[:2], radius, hint[:2], tie)
        z = _axial(d[2], half, hint[2])
        return jnp.concatenate([xy, z[None]]), jnp.array(True)

    def support(self, direction: Any) -> Any:
        d = unit(jnp.asarray(direction))
        xy = _radial(d[:2], self.radius, jnp.zeros(2, d.dtype), _tie(self.size, d.dtype))
        return jnp.concatenate([xy, _global_axial(d[2], self.length / 2)[None]])

    def sample(self, spacing: float) -> tuple[np.ndarray, np.ndarray]:
        pts, nrm = _side(self.radius, self.length, spacing)
        disc = ring_disc(self.radius, spacing)
        caps, cap_n = [], []
        for s in (-1.0, 1.0):
            caps.append(np.column_stack([disc, np.full(len(disc), s * self.length / 2)]))
            cap_n.append(np.tile([0.0, 0.0, s], (len(disc), 1)))
        return np.concatenate([pts] + caps), np.concatenate([nrm] + cap_n)

    def to_document(self) -> dict[str, Any]:
        return {"length": self.length, "radius": self.radius}


class Capsule(Geometry):
    """A segment of ``length`` m along ``z`` swept by a ball of ``radius`` m (total length ``length + 2 radius``)."""

    kind: ClassVar[str] = "capsule"
    has_support: ClassVar[bool] = True
    closed_form: ClassVar[bool] = True
    wall_maxima: ClassVar[int] = 2
    axisymmetric: ClassVar[bool] = True

    def __init__(self, radius: float, length: float) -> None:
        self.radius = positive_length("radius", radius, where="Capsule")
        self.length = positive_length("length", length, where="Capsule")

    @property
    def size(self) -> float:
        return self.length + 2.0 * self.radius

    @property
    def radial_extent(self) -> float:
        return self.radius

    def support_params(self) -> np.ndarray:
        """``(radius, length / 2)``."""
        return padded(self.radius, self.length / 2)

    @staticmethod
    def support_from(params: Any, direction: Any, hint: Any, steps: Any) -> tuple[Any, Any]:
        d = unit(jnp.asarray(direction))
        hint = jnp.asarray(hint, dtype=d.dtype)
        radius, half = jnp.asarray(params, dtype=d.dtype)[:2]
        z = _axial(d[2], half, hint[2])
        return jnp.array([0.0, 0.0, 1.0], dtype=d.dtype) * z + radius * d, jnp.array(True)

    def support(self, direction: Any) -> Any:
        d = unit(jnp.asarray(direction))
        return jnp.array([0.0, 0.0, 1.0], dtype=d.dtype) * _global_axial(d[2], self.length / 2) + self.radius * d

    def sample(self, spacing: float) -> tuple[np.ndarray, np.ndarray]:
        pts, nrm = _side(self.radius, self.length, spacing)
        u = fibonacci_sphere(max(8, math.ceil(4 * math.pi * self.radius**2 / spacing**2)))
        caps, cap_n = [], []
        for s in (-1.0, 1.0):
            half = u[u[:, 2] * s > 0]
            caps.append(self.radius * half + np.array([0.0, 0.0, s * self.length / 2]))
            cap_n.append(half)
        return np.concatenate([pts] + caps), np.concatenate([nrm] + cap_n)

    def to_document(self) -> dict[str, Any]:
        return {"length": self.length, "radius": self.radius}
