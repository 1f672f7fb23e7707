"""The base of every hull kind, and the samplers the kinds share.

A kind lives in its own frame (its *part frame*): its axis, where it has one,
is the frame's ``z`` axis and its centre the frame's origin. Lengths are in
metres. A kind states

- ``size``: the diameter of the smallest ball about its origin holding it, m;
- ``radial_extent``: how far it reaches from its own axis, m;
- ``has_support``: whether it answers the support query;
- ``sample(spacing)``: points of its surface (and their outward normals) no more
  than about ``spacing`` apart on every patch;
- ``shortfall(spacing)``: a bound on how far any point of the surface lies from
  the nearest of those samples, so how far the body can reach past them.

The support query ``support(direction)`` gives the point of the kind farthest
along ``direction`` (body frame, any length): ``argmax_{x in hull} x . d``.

A compiled contact step reads a kind's support through its *numbers*: ``support_params()``
(a float64 vector of ``SUPPORT_WIDTH``) and ``support_steps`` (the bound on an iterative
search), both traced, and the class's ``support_from(params, direction, hint, steps)``. Kinds
of one class then share one compiled step whatever their sizes; ``support_near`` is
``support_from`` with the kind's own numbers, the same arithmetic.
"""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numpy as np

from mime.errors import Direction, invalid, is_traced, real_array

__all__ = ["Geometry", "positive_length", "fibonacci_sphere", "ring_disc", "SUPPORT_WIDTH"]

SUPPORT_WIDTH = 8
"""The length of every kind's ``support_params()`` vector (the widest kind's count, zeros after a kind's own)."""


def positive_length(argument: str, value: Any, *, where: str) -> float:
    """``value`` as a float when it is a finite positive length in metres; else ``ValidationError``.

    The length must be a real number (an int, a float, a NumPy real scalar): text is
    never parsed (``"1.0"`` and ``b"1"`` are refused), nor is a bool, a complex
    number or an array of more than one number accepted.

    >>> positive_length("radius", "1.0", where="Sphere")
    Traceback (most recent call last):
    ...
    maddening.ValidationError: Sphere: radius = '1.0' is not allowed; expected a positive length in metres
    """
    allowed = "a positive length in metres"
    v = float(real_array(value, argument, allowed, shape=(), where=where))
    if not math.isfinite(v) or v <= 0.0:
        raise invalid(argument, value, f"{allowed}", where=f"{where}")
    return v


def check_spacing(spacing: Any, *, where: str) -> float:
    """A sampling spacing: a positive length in metres."""
    return positive_length("spacing", spacing, where=where)


def _checks_spacing(method: Any) -> Any:
    """A kind's ``method(spacing)`` (``sample``, ``shortfall``) that first checks ``spacing``
    (:func:`check_spacing`), naming the kind and the method."""

    @functools.wraps(method)
    def checked(self: Any, spacing: Any) -> Any:
        check_spacing(spacing, where=f"{type(self).__name__}.{method.__name__}")
        return method(self, spacing)

    return checked


DIRECTION = Direction("three finite real numbers, not all zero")
"""The declared check of a support query's concrete ``direction``."""


def _checks_direction(support: Any) -> Any:
    """A kind's ``support(direction)`` that first checks a concrete ``direction`` (:data:`DIRECTION`)."""

    @functools.wraps(support)
    def checked(self: Any, direction: Any) -> Any:
        if not is_traced(direction):
            DIRECTION.check(direction, "direction", where=f"{type(self).__name__}.support")
        return support(self, direction)

    return checked


def fibonacci_sphere(n: int) -> np.ndarray:
    """``n`` nearly evenly spread unit vectors (a Fibonacci lattice), shape ``(n, 3)``."""
    n = max(int(n), 1)
    i = np.arange(n, dtype=np.float64) + 0.5
    z = 1.0 - 2.0 * i / n
    rho = np.sqrt(np.maximum(0.0, 1.0 - z * z))
    phi = i * math.pi * (3.0 - math.sqrt(5.0))
    return np.stack([rho * np.cos(phi), rho * np.sin(phi), z], axis=1)


def padded(*numbers: float) -> np.ndarray:
    """``numbers`` as a float64 vector of ``SUPPORT_WIDTH``, zeros after them."""
    out = np.zeros(SUPPORT_WIDTH)
    out[: len(numbers)] = numbers
    return out


def ring_disc(radius: float, spacing: float) -> np.ndarray:
    """Points of a disc of ``radius`` in the plane ``z = 0`` on rings about ``spacing`` apart.

    The rim ring itself is left out (a kind's side surface carries it).
    """
    n_r = max(1, math.ceil(radius / spacing))
    pts = [np.zeros((1, 2))]
    for j in range(1, n_r):
        r = radius * j / n_r
        n_t = max(3, math.ceil(2 * math.pi * r / spacing))
        t = 2 * math.pi * np.arange(n_t) / n_t
        pts.append(np.stack([r * np.cos(t), r * np.sin(t)], axis=1))
    return np.concatenate(pts, axis=0)


class Geometry:
    """Base of the hull kinds (see the module's docstring for what each states).

    A kind's own ``sample(spacing)``, ``shortfall(spacing)`` and ``support(direction)`` are given
    checked arguments: each is wrapped where the class is made. A spacing of zero, negative, not
    finite or not a number is refused naming the kind and the method (``Sphere.sample: spacing =
    0.0 is not allowed; ...``), and so is a concrete direction that is not three finite real numbers,
    not all zero (a traced one passes unchecked, as the kind's support is traced inside a step).
    The wrapped method gets the argument as given.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, wrap in (("sample", _checks_spacing), ("shortfall", _checks_spacing), ("support", _checks_direction)):
            own = cls.__dict__.get(name)
            if own is not None and not hasattr(own, "__wrapped__"):
                setattr(cls, name, wrap(own))

    kind: ClassVar[str] = "geometry"
    has_support: ClassVar[bool] = False
    wall_maxima: ClassVar[int] = 1
    """How many local deepest points a flat wall can hold on the kind at once (an upper count)."""
    axisymmetric: ClassVar[bool] = False
    """Whether the hull is a body of revolution about its own ``z`` axis, so the normal at every support point meets the axis."""
    centred_point: ClassVar[bool] = False
    """Whether the hull is a ball about its origin (every surface normal passes through the centre)."""
    hint_free: ClassVar[bool] = False
    """Whether ``support_near`` ignores its hint, the support being one point for a direction. Every
    start along one direction reaches the same point, so a hold need search it once."""
    closed_form: ClassVar[bool] = False
    """Whether ``support_from`` is a closed form, so that every search converges (a Newton search, the
    screw's, may not: its group then holds a sample)."""

    @property
    def size(self) -> float:  # pragma: no cover - every kind overrides
        raise NotImplementedError

    @property
    def radial_extent(self) -> float:  # pragma: no cover - every kind overrides
        raise NotImplementedError

    def support(self, direction: Any) -> Any:
        """The part-frame point of the kind farthest along ``direction``.

        Kinds with no support query (the box, the mesh) refuse it.
        """
        name = type(self).__name__
        raise invalid("direction", "...", f"a kind with a support query: a {name.lower()} has none (it is held at its "
                      f"samples)", where=f"{name}.support")

    def support_near(self, direction: Any, hint: Any) -> tuple[Any, Any]:
        """``(point, converged)``: the body's own deepest point along ``direction`` near ``hint``.

        For a closed form the hint only breaks ties (a cylinder lying along a wall
        is deepest along a whole line; the point nearest the hint is kept).
        """
        if not self.has_support:
            name = type(self).__name__
            raise invalid("direction", "...", f"a kind with a support query: a {name.lower()} has none",
                          where=f"{name}.support_near")
        return type(self).support_from(self.support_params(), direction, hint, self.support_steps)

    def support_params(self) -> np.ndarray:
        """The numbers the support query reads, float64 ``(SUPPORT_WIDTH,)`` (zeros after the kind's own)."""
        return np.zeros(SUPPORT_WIDTH)

    support_steps: int = 0
    """The bound on the support search's iterations (a screw's Newton steps; 0 for a closed form)."""

    @staticmethod
    def support_from(params: Any, direction: Any, hint: Any, steps: Any) -> tuple[Any, Any]:
        """``support_near`` of the kind whose numbers are ``params`` (traceable in every argument)."""
        raise invalid("params", "...", "the numbers of a kind with a support query (this kind has none)",
                      where="Geometry.support_from")

    def sample(self, spacing: float) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
        """``(points, normals)``, each ``(n, 3)``, no more than about ``spacing`` apart."""
        raise NotImplementedError

    def shortfall(self, spacing: float) -> float:
        """How far a surface point can lie from its nearest sample at ``spacing`` (an upper bound), m."""
        return float(check_spacing(spacing, where=f"{type(self).__name__}.shortfall"))

    # ---- documents ----------------------------------------------------------------
    def to_document(self) -> dict[str, Any]:  # pragma: no cover - every kind overrides
        raise NotImplementedError

    def to_arrays(self) -> dict[str, Any]:
        """Large arrays of the kind (none for the closed forms)."""
        return {}

    @classmethod
    def from_document(cls, doc: dict[str, Any], arrays: dict[str, Any]) -> "Geometry":
        return cls(**doc)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_document() == self.to_document()

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(sorted(self.to_document().items()))))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.to_document().items())
        return f"{type(self).__name__}({args})"
