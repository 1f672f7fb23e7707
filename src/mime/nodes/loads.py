"""Applied loads on a rigid body: a force (N) or a torque (N m), world frame, as a law of time and state.

A load has one form: a :class:`Load`, a pytree whose numbers are its leaves
(traced by the compiled step, so every load of one class shares a compilation)
and whose law is its ``__call__(t, state)`` with ``t`` in s and ``state`` a
:class:`~mime.dynamics.RigidState`. A body given ``None`` takes :class:`NoLoad`,
three numbers a :class:`ConstantLoad`, a callable ``(t, state) -> vector`` a
:class:`FunctionLoad` (:func:`as_load`).

>>> import jax.numpy as jnp
>>> from mime.dynamics import RigidState
>>> load = SumLoad(ConstantLoad((0.0, 0.0, -1.0)), PropulsionForce(0.5))
>>> state = RigidState(jnp.zeros(3), jnp.array([1.0, 0, 0, 0]), jnp.zeros(3), jnp.array([0.0, 0.0, 4.0]))
>>> load(0.0, state).tolist()
[0.0, 0.0, 1.0]
"""

from __future__ import annotations

import math
from dataclasses import field as dc_field
from typing import Any, Callable, ClassVar

import jax.numpy as jnp
import numpy as np

from mime._pytree import pytree, static
from mime.dynamics import RigidState
from mime.errors import Direction, Number, OneOf, Rule, Vector, invalid
from mime.geometry import rotation

__all__ = [
    "Load", "NoLoad", "ConstantLoad", "RotatingFieldTorque", "PropulsionForce", "SumLoad", "FunctionLoad",
    "LoadTerms", "as_load", "load_from_document",
]

Array = Any


class Load:
    """The base of the loads: an applied force (N) or torque (N m), world frame, as ``load(t, state)``.

    ``t`` is the time (s) and ``state`` a :class:`~mime.dynamics.RigidState`; the
    result is a ``(3,)`` array in the position's dtype. Two loads are equal when
    they save alike (``to_document``).
    """

    kind: ClassVar[str] = "load"

    def __call__(self, t: Array, state: RigidState) -> Array:  # pragma: no cover - every load overrides
        raise NotImplementedError

    def to_document(self) -> dict[str, Any] | None:  # pragma: no cover - every load overrides
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_document() == self.to_document()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(self.to_document())))


def _in(value: Any, state: RigidState) -> Array:
    return jnp.asarray(value, dtype=state.position.dtype)


@pytree
class NoLoad(Load):
    """No load: the zero vector (saved as ``None``)."""

    kind: ClassVar[str] = "none"

    def __call__(self, t: Array, state: RigidState) -> Array:
        return jnp.zeros(3, state.position.dtype)

    def to_document(self) -> None:
        return None


@pytree
class ConstantLoad(Load):
    """A constant world vector (a weight, a steady push): ``vector``, ``(3,)``, N or N m."""

    vector: Array

    kind: ClassVar[str] = "constant"
    RULES: ClassVar[dict[str, Rule]] = {"vector": Vector("three finite numbers", n=3)}

    def __post_init__(self) -> None:
        v = self.RULES["vector"].check(self.vector, "vector", where="ConstantLoad")
        object.__setattr__(self, "vector", np.asarray(v, dtype=np.float64))

    def __call__(self, t: Array, state: RigidState) -> Array:
        return _in(self.vector, state)

    def to_document(self) -> dict[str, Any]:
        return {"kind": self.kind, "vector": [float(c) for c in self.vector]}


@pytree
class RotatingFieldTorque(Load):
    """The torque of a uniform field rotating about ``axis`` on a body's magnetic moment.

    ``tau = (R(q) m) x B(t)``, with ``B(t) = B (cos(2 pi f t) e1 + sin(2 pi f t) e2)``
    and ``e1, e2`` perpendicular to ``axis`` (world, ``e1 x e2 = axis``).

    Attributes:
        moment: ``(3,)`` A m^2, body frame.
        field: ``()`` T, the field's magnitude ``B``.
        frequency: ``()`` Hz, ``f``.
        axis: ``(3,)`` the unit axis the field turns about, world frame.
        omega: ``()`` rad/s, ``2 pi f`` (derived).
        e1, e2: ``(3,)`` the field's directions at ``t = 0`` and a quarter turn later (derived).
    """

    moment: Array
    field: Array
    frequency: Array
    axis: Array = (1.0, 0.0, 0.0)
    omega: Array = dc_field(init=False, default=None)
    e1: Array = dc_field(init=False, default=None)
    e2: Array = dc_field(init=False, default=None)

    kind: ClassVar[str] = "rotating_field"
    RULES: ClassVar[dict[str, Rule]] = {
        "moment": Vector("three finite numbers (A m^2)", n=3),
        "field": Number("a finite number"),
        "frequency": Number("a finite number"),
        "axis": Direction("a nonzero direction"),
    }

    def __post_init__(self) -> None:
        where = "RotatingFieldTorque"
        m = self.RULES["moment"].check(self.moment, "moment", where=where)
        a = np.asarray(self.RULES["axis"].check(self.axis, "axis", where=where))
        b = self.RULES["field"].check(self.field, "field", where=where)
        f = self.RULES["frequency"].check(self.frequency, "frequency", where=where)
        trial = np.eye(3)[int(np.argmin(np.abs(a)))]
        e1 = trial - (trial @ a) * a
        e1 /= np.linalg.norm(e1)
        for name, value in (("moment", np.asarray(m)), ("field", np.float64(b)), ("frequency", np.float64(f)),
                            ("axis", a), ("omega", np.float64(2 * math.pi * f)), ("e1", e1), ("e2", np.cross(a, e1))):
            object.__setattr__(self, name, value)

    def field_at(self, t: Array) -> Array:
        """``B(t)``, T, world frame."""
        ph = self.omega * t
        return self.field * (jnp.cos(ph) * self.e1 + jnp.sin(ph) * self.e2)

    def __call__(self, t: Array, state: RigidState) -> Array:
        m_world = rotation.rotate(state.orientation, _in(self.moment, state))
        dtype = state.position.dtype
        ph = _in(self.omega, state) * t
        B = _in(self.field, state) * (jnp.cos(ph) * _in(self.e1, state) + jnp.sin(ph) * _in(self.e2, state))
        return jnp.cross(m_world, B).astype(dtype)

    def to_document(self) -> dict[str, Any]:
        return {"axis": [float(c) for c in self.axis], "field": float(self.field), "frequency": float(self.frequency),
                "kind": self.kind, "moment": [float(c) for c in self.moment]}


@pytree
class PropulsionForce(Load):
    """A helical body's thrust along its own axis, in proportion to its spin about it.

    ``F = coupling * w_3 * R(q) e_3`` (N), with ``w_3`` the body-frame angular velocity
    about the body's ``z`` axis (rad/s) and ``coupling`` (``()``, N s/rad) the coupling
    of rotation to translation in a helical body's drag, the rest of it held linear.
    """

    coupling: Array

    kind: ClassVar[str] = "propulsion"
    RULES: ClassVar[dict[str, Rule]] = {"coupling": Number("a finite number (N s/rad)")}

    def __post_init__(self) -> None:
        c = self.RULES["coupling"].check(self.coupling, "coupling", where="PropulsionForce")
        object.__setattr__(self, "coupling", np.float64(c))

    def __call__(self, t: Array, state: RigidState) -> Array:
        q = state.orientation
        axis = rotation.rotate(q, jnp.array([0.0, 0.0, 1.0], dtype=q.dtype))
        return _in(self.coupling, state) * state.angular_velocity[2] * axis

    def to_document(self) -> dict[str, Any]:
        return {"coupling": float(self.coupling), "kind": self.kind}


@pytree
class SumLoad(Load):
    """The sum of two loads (a weight and a thrust, say): ``first(t, state) + second(t, state)``."""

    first: Load
    second: Load

    kind: ClassVar[str] = "sum"

    def __post_init__(self) -> None:
        for name in ("first", "second"):
            value = getattr(self, name)
            if not isinstance(value, Load):
                raise invalid(name, value, "a mime.nodes load (ConstantLoad, RotatingFieldTorque, ...)", where="SumLoad")

    def __call__(self, t: Array, state: RigidState) -> Array:
        return self.first(t, state) + self.second(t, state)

    def to_document(self) -> dict[str, Any]:
        return {"first": self.first.to_document(), "kind": self.kind, "second": self.second.to_document()}


@pytree
class FunctionLoad(Load):
    """A law given as a function ``function(t, state) -> (3,)``, which keys the compilation (it cannot be saved)."""

    function: Callable[[Array, RigidState], Array] = static()

    kind: ClassVar[str] = "function"

    def __call__(self, t: Array, state: RigidState) -> Array:
        return _in(self.function(t, state), state)

    def to_document(self) -> dict[str, Any]:
        raise invalid("load", self.function, "a mime.nodes load with a document (ConstantLoad, RotatingFieldTorque, "
                      "PropulsionForce, SumLoad, or a constant vector); a function cannot be saved", where="save")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.function is self.function  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(("function", id(self.function)))


@pytree
class LoadTerms(Load):
    """A load as the compiled step reads it: a constant, a rotating field's torque and a propulsion,
    each present or not (traced flags), summed in that order (``(constant + field) + propulsion``).

    Every load built of at most one of each, summed in that order (``NoLoad``, a ``ConstantLoad``, a
    ``RotatingFieldTorque``, a ``PropulsionForce``, a ``SumLoad`` of them), has this one form
    (:meth:`of`), so that bodies with different loads share one compiled step; its value is the
    load's own, term by term the same arithmetic.

    Attributes:
        present: ``(3,)`` bool, which of the three terms the load has.
        constant: a :class:`ConstantLoad` (zero where absent).
        field: a :class:`RotatingFieldTorque` (of zero field where absent).
        propulsion: a :class:`PropulsionForce` (of zero coupling where absent).
    """

    present: Array
    constant: ConstantLoad
    field: RotatingFieldTorque
    propulsion: PropulsionForce

    kind: ClassVar[str] = "terms"
    ORDER: ClassVar[tuple[type, ...]] = (ConstantLoad, RotatingFieldTorque, PropulsionForce)

    @classmethod
    def of(cls, load: Load) -> Load:
        """``load`` in this form where it has one, else ``load`` itself."""
        terms = _terms(load)
        if terms is None or [type(t) for t in terms] != sorted((type(t) for t in terms), key=cls.ORDER.index) \
                or len({type(t) for t in terms}) != len(terms) or not _left_nested(load):
            return load
        by_kind = {type(t): t for t in terms}
        return cls(
            np.array([k in by_kind for k in cls.ORDER]),
            by_kind.get(ConstantLoad, ConstantLoad((0.0, 0.0, 0.0))),
            by_kind.get(RotatingFieldTorque, RotatingFieldTorque((0.0, 0.0, 0.0), 0.0, 0.0)),
            by_kind.get(PropulsionForce, PropulsionForce(0.0)),
        )

    def __call__(self, t: Array, state: RigidState) -> Array:
        out = jnp.zeros(3, state.position.dtype)
        started = jnp.array(False)
        for term, present in zip((self.constant, self.field, self.propulsion), self.present):
            value = term(t, state)
            out = jnp.where(present, jnp.where(started, out + value, value), out)
            started = started | present
        return out

    def to_document(self) -> dict[str, Any] | None:
        terms = [t for t, p in zip((self.constant, self.field, self.propulsion), np.asarray(self.present)) if p]
        if not terms:
            return None
        load = terms[0]
        for t in terms[1:]:
            load = SumLoad(load, t)
        return load.to_document()


def _terms(load: Load) -> list[Load] | None:
    """The leaves of a sum of loads, left to right (``None`` where one is not a constant, a rotating
    field or a propulsion); ``NoLoad`` has none."""
    if isinstance(load, NoLoad):
        return []
    if isinstance(load, (ConstantLoad, RotatingFieldTorque, PropulsionForce)):
        return [load]
    if isinstance(load, SumLoad):
        a, b = _terms(load.first), _terms(load.second)
        return None if a is None or b is None or not a or not b else a + b
    return None


def _left_nested(load: Load) -> bool:
    """Whether a sum adds its terms left to right (``(a + b) + c``, the order :class:`LoadTerms` sums in)."""
    if isinstance(load, SumLoad):
        return not isinstance(load.second, SumLoad) and _left_nested(load.first)
    return True


_ALLOWED = "None, three numbers, a mime.nodes.Load, or a callable (t, state) -> vector"


def as_load(value: Any, argument: str, *, where: str = "") -> Load:
    """The one form of a load: ``None`` is :class:`NoLoad`, a ``Load`` itself, a callable a
    :class:`FunctionLoad`, three numbers a :class:`ConstantLoad`; anything else is refused."""
    if value is None:
        return NoLoad()
    if isinstance(value, Load):
        return value
    if callable(value):
        return FunctionLoad(value)
    try:
        return ConstantLoad(value)
    except ValueError:
        raise invalid(argument, value, _ALLOWED, where=where) from None


_KINDS: dict[str, type] = {c.kind: c for c in (ConstantLoad, RotatingFieldTorque, PropulsionForce, SumLoad)}
_DOCUMENT_KIND = OneOf("one of " + ", ".join(repr(k) for k in _KINDS), choices=tuple(_KINDS))


def load_from_document(doc: Any) -> Load:
    """A load from its saved document (``None`` is :class:`NoLoad`)."""
    if doc is None:
        return NoLoad()
    kind = _DOCUMENT_KIND.check(doc.get("kind") if isinstance(doc, dict) else doc, "load kind")
    if kind == "constant":
        return ConstantLoad(doc["vector"])
    if kind == "rotating_field":
        return RotatingFieldTorque(doc["moment"], doc["field"], doc["frequency"], doc["axis"])
    if kind == "propulsion":
        return PropulsionForce(doc["coupling"])
    return SumLoad(load_from_document(doc["first"]), load_from_document(doc["second"]))

