"""Fixed surfaces a body is held against, each facing the region it bounds.

A surface gives, at a world point ``x`` (m), its signed distance ``phi(x)`` (m,
positive on the free side, the side it faces) and its outward normal ``n(x)``
(a unit vector pointing into the free side), both traceable by JAX:

- ``Plane`` through ``point`` facing ``normal``: ``phi = (x - p) . n``;
- ``Floor`` at ``height``: its ``surface`` is the plane facing up (``+z``);
- ``Tube`` of ``radius`` about an axis: its ``inner_surface`` faces the
  lumen, ``phi = radius - rho`` where ``rho`` is the distance from the axis, and
  ``n = -e_rho`` points back towards the axis.

A compiled step reads a surface through its *shape* (``surface.shape()``): a pytree of the
surface's numbers, traced (:class:`PlaneShape`, :class:`TubeWallShape`), whose class alone keys
the compilation, so that every plane shares one compiled program and every tube another. The
surface's own ``distance_and_normal`` is its shape's, the same arithmetic.

>>> import jax.numpy as jnp
>>> tube = Tube(radius=1.0)
>>> d, n = tube.inner_surface.distance_and_normal(jnp.array([0.0, 0.25, 0.0]))
>>> float(d), [float(c) + 0.0 for c in n]
(0.75, [0.0, -1.0, 0.0])
"""

from __future__ import annotations

from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np

from mime._numerics import is_zero_length
from mime._pytree import pytree, static
from mime.errors import Direction, Number, Vector
from mime.document_kinds import document_kind

__all__ = ["Surface", "Plane", "Floor", "Tube", "InnerSurface", "PlaneShape", "TubeWallShape", "OpaqueShape",
           "shape_of"]

Array = Any


@pytree
class PlaneShape:
    """A plane's numbers as a pytree (traced): ``phi = (x - point) . normal``.

    Attributes:
        point: ``(3,)`` m, a point of the plane.
        normal: ``(3,)`` its unit normal, pointing into the free side.
    """

    point: Array
    normal: Array

    flat: ClassVar[bool] = True
    metric: ClassVar[bool] = True
    """Whether ``phi`` is a distance, changing between two points by no more than they lie apart (``|n| = 1``)."""

    def distance_and_normal(self, x: Any) -> tuple[Any, Any]:
        """``(phi, n)`` at world points ``x`` ``(..., 3)``: ``phi`` ``(...)`` m, ``n`` ``(..., 3)``."""
        x = jnp.asarray(x)
        n = jnp.asarray(self.normal, dtype=x.dtype)
        d = jnp.sum((x - jnp.asarray(self.point, dtype=x.dtype)) * n, axis=-1)
        return d, jnp.broadcast_to(n, x.shape)


@pytree
class TubeWallShape:
    """A tube's inner wall as a pytree (traced): ``phi = radius - rho``, ``n = -e_rho``.

    Attributes:
        radius: ``()`` m.
        axis: ``(3,)`` the axis's unit direction.
        centre: ``(3,)`` m, a point of the axis.
        perpendicular: ``(3,)`` a unit vector across the axis, the normal taken on the axis itself.
    """

    radius: Array
    axis: Array
    centre: Array
    perpendicular: Array

    flat: ClassVar[bool] = False
    metric: ClassVar[bool] = True
    """Whether ``phi`` is a distance (``rho``, the distance from the axis, changes by no more than the point moves)."""

    def distance_and_normal(self, x: Any) -> tuple[Any, Any]:
        """``(phi, n)`` at world points ``x`` ``(..., 3)``: ``phi`` ``(...)`` m, ``n`` ``(..., 3)``."""
        x = jnp.asarray(x)
        a = jnp.asarray(self.axis, dtype=x.dtype)
        c = jnp.asarray(self.centre, dtype=x.dtype)
        r = x - c
        radial = r - jnp.sum(r * a, axis=-1, keepdims=True) * a
        # on the axis every direction is as near; take one perpendicular to it (guarded, no NaN). The
        # guard is on the largest component, not on the squared length, which is subnormal for an
        # offset below 1e-154 m and flushed to zero on a GPU: it decides alike on every backend.
        on_axis = is_zero_length(radial, keepdims=True)
        perp = jnp.asarray(self.perpendicular, dtype=x.dtype)
        safe = jnp.where(on_axis, perp, radial)
        rho2 = jnp.sum(safe * safe, axis=-1, keepdims=True)
        rho = jnp.where(on_axis, 0.0, jnp.sqrt(rho2))
        e = safe / jnp.sqrt(rho2)
        return jnp.asarray(self.radius, dtype=x.dtype) - rho[..., 0], -e


@pytree
class OpaqueShape:
    """A surface with no shape of its own (one written outside ``mime.scene``), kept whole: the
    surface itself keys the compilation (it must be hashable)."""

    surface: Any = static()

    @property
    def flat(self) -> bool:
        return bool(getattr(self.surface, "flat", False))

    metric: ClassVar[bool] = False
    """Whether ``phi`` is known to be a distance, which a surface written outside ``mime.scene`` does not
    promise (a hold never takes such a body to be clear, ``mime.interactions._hold.clear``)."""

    def distance_and_normal(self, x: Any) -> tuple[Any, Any]:
        return self.surface.distance_and_normal(x)


def shape_of(surface: Any) -> Any:
    """The pytree a compiled step reads ``surface`` through: its ``shape()``, or the surface kept whole."""
    shape = getattr(surface, "shape", None)
    return shape() if callable(shape) else OpaqueShape(surface)


_POINT = Vector("three finite numbers (m)", n=3)
"""The declared check of a point of a surface (a plane's point, a tube's centre)."""
_DIRECTION = Direction("a nonzero direction of three finite numbers")
"""The declared check of a direction (a plane's normal, a tube's axis), returned as the unit vector along it."""
_LENGTH = Number("a positive length in metres", above=0.0)
"""The declared check of a tube's radius and length."""
_HEIGHT = Number("a finite height (m)")
"""The declared check of a floor's height."""


def _vector(argument: str, value: Any, *, where: str, unit: bool = False) -> tuple[float, float, float]:
    """``value`` as three floats (``unit``: the unit vector along it), by the declared rule; text, bools and
    complex numbers are never read as numbers."""
    return (_DIRECTION if unit else _POINT).check(value, argument, where=where)


class Surface:
    """A fixed surface: ``distance_and_normal(x) -> (phi, n)``, traceable, ``x`` of shape ``(..., 3)``."""

    def distance_and_normal(self, x: Any) -> tuple[Any, Any]:  # pragma: no cover - overridden
        raise NotImplementedError

    def distance(self, x: Any) -> Any:
        """The signed distance (m, positive on the free side)."""
        return self.distance_and_normal(x)[0]

    def normal(self, x: Any) -> Any:
        """The outward unit normal, pointing into the free side."""
        return self.distance_and_normal(x)[1]

    flat: bool = False
    """Whether the outward normal is the same everywhere (a plane)."""

    def _key(self) -> tuple:  # pragma: no cover - overridden
        return (id(self),)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._key() == self._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__,) + self._key())


@document_kind("plane")
class Plane(Surface):
    """The plane through ``point`` (m) facing ``normal``; its free side is where the normal points."""

    def __init__(self, point: Any = (0.0, 0.0, 0.0), normal: Any = (0.0, 0.0, 1.0)) -> None:
        self.point = _vector("point", point, where="Plane")
        self.normal_vector = _vector("normal", normal, where="Plane", unit=True)

    flat = True

    def _key(self) -> tuple:
        return (self.point, self.normal_vector)

    def shape(self) -> PlaneShape:
        """The plane's numbers as a pytree (float64 NumPy arrays)."""
        return PlaneShape(np.array(self.point), np.array(self.normal_vector))

    def distance_and_normal(self, x: Any) -> tuple[Any, Any]:
        return self.shape().distance_and_normal(x)

    def to_document(self) -> dict[str, Any]:
        return {"normal": list(self.normal_vector), "point": list(self.point)}

    @classmethod
    def from_document(cls, doc: dict[str, Any], arrays: dict[str, Any]) -> "Plane":
        return cls(doc["point"], doc["normal"])

    def __repr__(self) -> str:
        return f"Plane(point={self.point}, normal={self.normal_vector})"


class _OwnedPlane(Plane):
    def __init__(self, owner: Any, attribute: str, point: Any, normal: Any) -> None:
        super().__init__(point, normal)
        self._owner, self._attribute = owner, attribute

    def document_owner(self) -> tuple[Any, str]:
        return self._owner, self._attribute


@document_kind("floor")
class Floor:
    """A floor at ``height`` m; its ``surface`` faces up (``+z``), the free side above it."""

    def __init__(self, height: float = 0.0, *, name: str | None = None) -> None:
        self.height = _HEIGHT.check(height, "height", where="Floor")
        self.name = name
        self.surface = _OwnedPlane(self, "surface", (0.0, 0.0, self.height), (0.0, 0.0, 1.0))

    def to_document(self) -> dict[str, Any]:
        return {"height": self.height}

    @classmethod
    def from_document(cls, doc: dict[str, Any], arrays: dict[str, Any]) -> "Floor":
        return cls(doc["height"])

    def __repr__(self) -> str:
        return f"Floor(height={self.height!r})"


class InnerSurface(Surface):
    """A tube's inner wall, facing the lumen (its free side is inside the tube)."""

    def __init__(self, tube: "Tube") -> None:
        self.tube = tube

    def document_owner(self) -> tuple[Any, str]:
        return self.tube, "inner_surface"

    def _key(self) -> tuple:
        t = self.tube
        return (t.radius, t.axis, t.centre)

    def shape(self) -> TubeWallShape:
        """The wall's numbers as a pytree (float64 NumPy arrays)."""
        t = self.tube
        return TubeWallShape(np.float64(t.radius), np.array(t.axis), np.array(t.centre), np.array(t.perpendicular))

    def distance_and_normal(self, x: Any) -> tuple[Any, Any]:
        return self.shape().distance_and_normal(x)

    def __repr__(self) -> str:
        return f"{self.tube!r}.inner_surface"


@document_kind("tube")
class Tube:
    """A straight tube of ``radius`` m about the line through ``centre`` along ``axis``.

    ``inner_surface`` faces the lumen. ``length`` (m) is descriptive (the wall is held as unbounded).
    """

    def __init__(
        self,
        radius: float,
        *,
        axis: Any = (1.0, 0.0, 0.0),
        centre: Any = (0.0, 0.0, 0.0),
        length: float | None = None,
        name: str | None = None,
    ) -> None:
        self.radius = _LENGTH.check(radius, "radius", where="Tube")
        self.axis = _vector("axis", axis, where="Tube", unit=True)
        self.centre = _vector("centre", centre, where="Tube")
        self.length = None if length is None else _LENGTH.check(length, "length", where="Tube")
        self.name = name
        a = np.asarray(self.axis)
        trial = np.eye(3)[int(np.argmin(np.abs(a)))]
        p = trial - (trial @ a) * a
        self.perpendicular = tuple(float(c) for c in p / np.linalg.norm(p))
        self.inner_surface = InnerSurface(self)

    def to_document(self) -> dict[str, Any]:
        return {"axis": list(self.axis), "centre": list(self.centre), "length": self.length, "radius": self.radius}

    @classmethod
    def from_document(cls, doc: dict[str, Any], arrays: dict[str, Any]) -> "Tube":
        return cls(doc["radius"], axis=doc["axis"], centre=doc["centre"], length=doc["length"])

    def __repr__(self) -> str:
        return f"Tube(radius={self.radius!r})"
