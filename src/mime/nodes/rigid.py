"""``RigidInertialNode``: a rigid body with mass, inertia, applied loads and linear drag.

State: ``position`` ``x`` (m, world), ``orientation`` ``q`` (unit quaternion, body
to world), ``velocity`` ``v`` (m/s, world) and ``angular_velocity`` ``w`` (rad/s,
body frame, whose axes are the principal axes of the inertia ``I = diag(I1, I2, I3)``).

One step of ``dt`` solves the velocities by backward Euler in the drag, with the
applied force ``F``, the applied torque ``tau`` (given in the world, taken to the
body as ``R^T tau``) and the gyroscopic torque in Euler's form explicit::

    v' = v + dt (F - c_t v) / (m + dt c_t)
    w'_1 = w_1 + dt (tau_1 + (I2 - I3) w_2 w_3 - c_r w_1) / (I1 + dt c_r)     (and cyclically)

(each the exact solution of ``m (v' - v) = dt (F - c_t v')``), then advances the
pose with the new twist: ``x' = x + dt v'``, ``q' = q exp(w' dt / 2)``. Written this
way, a body with no load keeps its twist to the last bit, and a symmetric body
spinning about its axis takes no gyroscopic torque about it, exactly.

A confinement attached by a contact (``attach_confinement``) is held inside this
update: its rows enter the velocity solve with the drag-augmented mass and
inertia, and the pose is projected back after it
(``mime.interactions._projection``).
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable, ClassVar, Mapping, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from maddening.core import (
    BoundaryInputField,
    ChangelogEntry,
    DiscretizationOrder,
    Node,
    NodeMeta,
    ParamField,
    Reference,
    Stability,
    StateField,
    check_timestep,
)
from mime.document_kinds import document_kind
from mime.errors import ValidationError, finite_number, real_array
from mime.geometry import Hull, as_hull, rotation
from mime.geometry.rotation import advance_pose
from mime.interactions._projection import ConfinementArrays, held_step
from mime.interactions.step import FLAGS, REPORT_KEYS, ContactReport, FreeSolve

__all__ = [
    "RigidInertialNode", "Load", "ConstantLoad", "RotatingFieldTorque", "PropulsionForce", "SumLoad",
    "as_load", "REPORT_KEYS", "FLAGS", "StepInputs", "free_solve", "step", "run_scan",
]


# ---------------------------------------------------------------------------------------
# loads
# ---------------------------------------------------------------------------------------
class Load:
    """An applied force (N) or torque (N m), in the world frame, as a function of time and state.

    A load's numbers are ``parameters()`` (traced by the compiled step, so loads of
    one class share a compilation); ``evaluate(parameters, t, state)`` is its law.
    """

    def parameters(self) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    @staticmethod
    def evaluate(p: Mapping[str, Any], t: Any, state: Mapping[str, Any]) -> Any:  # pragma: no cover
        raise NotImplementedError

    def __call__(self, t: Any, state: Mapping[str, Any]) -> Any:
        dtype = state["position"].dtype
        return self.evaluate({k: jnp.asarray(v, dtype=dtype) for k, v in self.parameters().items()}, t, state)

    def to_document(self) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_document() == self.to_document()

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(self.to_document())))


class ConstantLoad(Load):
    """A constant world vector (a weight, a steady push)."""

    def __init__(self, vector: Any) -> None:
        v = real_array(vector, "vector", "three finite numbers", shape=(3,), where="ConstantLoad")
        self.vector = tuple(float(c) for c in v)

    def parameters(self) -> dict[str, Any]:
        return {"vector": np.asarray(self.vector)}

    @staticmethod
    def evaluate(p: Mapping[str, Any], t: Any, state: Mapping[str, Any]) -> Any:
        return p["vector"]

    def to_document(self) -> dict[str, Any]:
        return {"kind": "constant", "vector": list(self.vector)}


class RotatingFieldTorque(Load):
    """The torque of a uniform field rotating about ``axis`` on a body's magnetic moment.

    ``tau = (R(q) m) x B(t)``, with ``B(t) = B (cos(2 pi f t) e1 + sin(2 pi f t) e2)``,
    ``e1, e2`` perpendicular to ``axis`` (world, ``e1 x e2 = axis``); ``moment`` in
    A m^2 (body frame), ``field`` ``B`` in T, ``frequency`` ``f`` in Hz.
    """

    def __init__(self, moment: Any, field: float, frequency: float, axis: Any = (1.0, 0.0, 0.0)) -> None:
        m = real_array(moment, "moment", "three finite numbers (A m^2)", shape=(3,), where="RotatingFieldTorque")
        a = real_array(axis, "axis", "a nonzero direction", shape=(3,), where="RotatingFieldTorque")
        if np.linalg.norm(a) == 0:
            raise ValidationError(f"RotatingFieldTorque: axis = {axis!r} is not allowed; expected a nonzero direction")
        for name, value in (("field", field), ("frequency", frequency)):
            finite_number(value, name, "a finite number", where="RotatingFieldTorque")
        a = a / np.linalg.norm(a)
        trial = np.eye(3)[int(np.argmin(np.abs(a)))]
        e1 = trial - (trial @ a) * a
        e1 /= np.linalg.norm(e1)
        self.moment = tuple(float(c) for c in m)
        self.field = float(field)
        self.frequency = float(frequency)
        self.axis = tuple(float(c) for c in a)
        self._e1 = e1
        self._e2 = np.cross(a, e1)

    def parameters(self) -> dict[str, Any]:
        return {
            "moment": np.asarray(self.moment),
            "field": np.asarray(self.field),
            "omega": np.asarray(2 * math.pi * self.frequency),
            "e1": self._e1,
            "e2": self._e2,
        }

    @staticmethod
    def field_of(p: Mapping[str, Any], t: Any) -> Any:
        """``B(t)``, T."""
        ph = p["omega"] * t
        return p["field"] * (jnp.cos(ph) * p["e1"] + jnp.sin(ph) * p["e2"])

    @staticmethod
    def evaluate(p: Mapping[str, Any], t: Any, state: Mapping[str, Any]) -> Any:
        m_world = rotation.rotate(state["orientation"], p["moment"])
        return jnp.cross(m_world, RotatingFieldTorque.field_of(p, t))

    def to_document(self) -> dict[str, Any]:
        return {"axis": list(self.axis), "field": self.field, "frequency": self.frequency, "kind": "rotating_field", "moment": list(self.moment)}


class PropulsionForce(Load):
    """A helical body's thrust along its own axis, in proportion to its spin about it.

    ``F = coupling * w_3 * R(q) e_3`` (N), with ``w_3`` the body-frame angular velocity
    about the body's ``z`` axis (rad/s) and ``coupling`` in N s/rad: the coupling of
    rotation to translation in a helical body's drag, the rest of that drag held linear.
    """

    def __init__(self, coupling: float) -> None:
        self.coupling = finite_number(coupling, "coupling", "a finite number (N s/rad)", where="PropulsionForce")

    def parameters(self) -> dict[str, Any]:
        return {"coupling": np.asarray(self.coupling)}

    @staticmethod
    def evaluate(p: Mapping[str, Any], t: Any, state: Mapping[str, Any]) -> Any:
        q = state["orientation"]
        axis = rotation.rotate(q, jnp.array([0.0, 0.0, 1.0], dtype=q.dtype))
        return p["coupling"] * state["angular_velocity"][2] * axis

    def to_document(self) -> dict[str, Any]:
        return {"coupling": self.coupling, "kind": "propulsion"}


class SumLoad(Load):
    """The sum of two loads (a weight and a thrust, say)."""

    def __init__(self, first: Load, second: Load) -> None:
        if not (isinstance(first, Load) and isinstance(second, Load)):
            raise ValidationError(f"SumLoad: ({first!r}, {second!r}) is not allowed; expected two mime.nodes loads")
        self.first, self.second = first, second

    def parameters(self) -> dict[str, Any]:
        return {"first": self.first.parameters(), "second": self.second.parameters()}

    def __call__(self, t: Any, state: Mapping[str, Any]) -> Any:
        return self.first(t, state) + self.second(t, state)

    def to_document(self) -> dict[str, Any]:
        return {"first": self.first.to_document(), "kind": "sum", "second": self.second.to_document()}


def as_load(value: Any, argument: str) -> Load | Callable | None:
    """``None``, a ``Load``, a callable ``(t, state) -> vector``, or a constant 3-vector."""
    if value is None or isinstance(value, Load):
        return value
    if callable(value):
        return value
    try:
        return ConstantLoad(value)
    except ValidationError:
        raise ValidationError(
            f"RigidInertialNode: {argument} = {value!r} is not allowed; expected None, three numbers, a mime.nodes.Load, "
            f"or a callable (t, state) -> vector"
        ) from None


def _load_from_document(doc: Any) -> Load | None:
    if doc is None:
        return None
    if doc["kind"] == "constant":
        return ConstantLoad(doc["vector"])
    if doc["kind"] == "rotating_field":
        return RotatingFieldTorque(doc["moment"], doc["field"], doc["frequency"], doc["axis"])
    if doc["kind"] == "propulsion":
        return PropulsionForce(doc["coupling"])
    if doc["kind"] == "sum":
        return SumLoad(_load_from_document(doc["first"]), _load_from_document(doc["second"]))
    raise ValidationError(
        f"load kind = {doc['kind']!r} is not allowed; expected 'constant', 'rotating_field', 'propulsion' or 'sum'"
    )


# ---------------------------------------------------------------------------------------
# the node
# ---------------------------------------------------------------------------------------
class StepInputs(NamedTuple):
    """What the compiled step needs from a body, as ``RigidInertialNode.step_inputs()`` gives it.

    ``static`` (hashable: each load's class, then the wrench sources) and ``spec``
    (the confinement's static part, ``None`` for a free body) key the compilation;
    ``params`` (the node's parameters and its loads' numbers) and ``arrays`` (the
    confinement's :class:`~mime.interactions._projection.ConfinementArrays`, ``None`` for a free
    body) are traced.
    """

    static: tuple
    spec: Any
    params: dict[str, Any]
    arrays: ConfinementArrays | None


def _vec(value: Any, n: int, argument: str) -> tuple[float, ...]:
    """``n`` finite real numbers (never parsed from text, never complex), or mime's ``ValidationError``."""
    v = real_array(value, argument, f"{n} finite numbers", shape=(n,), where="RigidInertialNode")
    return tuple(float(c) for c in v)


def _drag(value: Any, argument: str, units: str) -> float:
    """A linear drag coefficient: one finite real number >= 0, or mime's ``ValidationError`` naming it."""
    allowed = f"a finite drag coefficient >= 0 ({units})"
    c = float(real_array(value, argument, allowed, shape=(), where="RigidInertialNode"))
    if c < 0:
        raise ValidationError(f"RigidInertialNode: {argument} = {value!r} is not allowed; expected {allowed}")
    return c


@document_kind("rigid_inertial_node")
class RigidInertialNode(Node):
    """A rigid body: pose and twist, mass and principal inertia, applied loads, linear drag."""

    meta: ClassVar[NodeMeta] = NodeMeta(
        algorithm_id="MIME-NODE-010",
        version="0.4.0",
        stability=Stability.EXPERIMENTAL,
        discretization=(
            "backward Euler in the velocities (drag implicit; applied loads and the gyroscopic torque explicit), "
            "then the pose advanced with the new twist; a confinement held inside the velocity solve and the pose "
            "projected back after it"
        ),
        order=DiscretizationOrder(spatial=None, temporal=1.0),
        assumptions=(
            "A rigid body whose body frame is its principal frame, its centre of mass at the frame's origin.",
            "Drag is linear and uncoupled: a force -c_t v and a torque -c_r w.",
            "Applied loads act at the centre of mass (forces) and about it (torques).",
        ),
        references=(Reference("StewartTrinkle1996", "the velocity-level, inelastic hold of a contact inside the step"),),
        changelog=(ChangelogEntry("0.4.0", "2026-12-02", "holds a confinement inside its own update"),),
    )
    state_fields: ClassVar[tuple[StateField, ...]] = (
        StateField("position", (3,), "m", "the centre of mass, world frame"),
        StateField("orientation", (4,), "", "unit quaternion (w, x, y, z), body to world"),
        StateField("velocity", (3,), "m/s", "the centre's velocity, world frame", rate_of="position"),
        StateField("angular_velocity", (3,), "rad/s", "the angular velocity, body frame"),
    )
    param_fields: ClassVar[tuple[ParamField, ...]] = (
        ParamField("mass", 1.0, "kg", "the body's mass", low=0.0),
        ParamField("inertia", (1.0, 1.0, 1.0), "kg m^2", "principal moments of inertia", shape=(3,)),
        ParamField("translational_drag", 0.0, "N s/m", "linear drag on the velocity", low=0.0),
        ParamField("rotational_drag", 0.0, "N m s", "linear drag on the angular velocity", low=0.0),
    )
    boundary_input_fields: ClassVar[tuple[BoundaryInputField, ...]] = (
        BoundaryInputField("time", (), "s", "the time at the step's start (0 without it); time-varying loads read it"),
        BoundaryInputField("force", (3,), "N", "a further force, world frame"),
        BoundaryInputField("torque", (3,), "N m", "a further torque, world frame"),
    )

    projects_confinement: ClassVar[bool] = True
    """The dynamics holds a confinement in its own update (the projection rung's Requires row)."""
    accepts: ClassVar[tuple[str, ...]] = ("body.confinement", "body.applied_wrench")
    """Which inputs this dynamics takes, a contact's confinement (the projection rung) and loads
    added to its applied wrench (the penalty rung)."""

    def __init__(
        self,
        hull: Any,
        *,
        mass: float,
        inertia: Any,
        position: Any = (0.0, 0.0, 0.0),
        orientation: Any = rotation.IDENTITY,
        velocity: Any = (0.0, 0.0, 0.0),
        angular_velocity: Any = (0.0, 0.0, 0.0),
        force: Any = None,
        torque: Any = None,
        translational_drag: float = 0.0,
        rotational_drag: float = 0.0,
        name: str = "body",
    ) -> None:
        finite_number(mass, "mass", "a positive mass in kg", where="RigidInertialNode", above=0)
        inertia_t = _vec(inertia, 3, "inertia")
        if min(inertia_t) <= 0:
            raise ValidationError(f"RigidInertialNode: inertia = {inertia!r} is not allowed; expected three positive moments (kg m^2)")
        super().__init__(
            mass=float(mass), inertia=inertia_t,
            translational_drag=_drag(translational_drag, "translational_drag", "N s/m"),
            rotational_drag=_drag(rotational_drag, "rotational_drag", "N m s"),
        )
        self.hull: Hull = as_hull(hull)
        self.name = name
        q = np.asarray(_vec(orientation, 4, "orientation"))
        if abs(np.linalg.norm(q) - 1.0) > 1e-6:
            raise ValidationError(f"RigidInertialNode: orientation = {orientation!r} is not allowed; expected a unit quaternion (w, x, y, z)")
        if abs(np.linalg.norm(q) - 1.0) > 1e-12:  # keep a unit quaternion as given, bit for bit
            q = q / np.linalg.norm(q)
        self.start = {
            "position": _vec(position, 3, "position"),
            "orientation": tuple(float(c) for c in q),
            "velocity": _vec(velocity, 3, "velocity"),
            "angular_velocity": _vec(angular_velocity, 3, "angular_velocity"),
        }
        self.force = as_load(force, "force")
        self.torque = as_load(torque, "torque")
        self.confinement: Any = None
        self.wrenches: tuple[Any, ...] = ()
        """Loads a contact delivers into the applied wrench (the penalty rung's springs); not saved."""

    # -- what the contact reads ---------------------------------------------------------
    @property
    def has_hull(self) -> bool:
        return self.hull.has_hull

    @property
    def size(self) -> float | None:
        """The hull's size in metres (``None`` for a body with no hull)."""
        return self.hull.size

    @property
    def extent(self) -> float:
        return self.hull.extent

    def attach_confinement(self, confinement: Any) -> None:
        """Hold ``confinement`` (from a contact's plan) inside this node's update.

        Building the experiment again hands over a fresh one, which replaces it; the
        experiment itself refuses a second contact on one body.
        """
        if not (hasattr(confinement, "spec") and hasattr(confinement, "jax_arrays")):
            raise ValidationError(
                f"RigidInertialNode {self.name!r}: confinement = {confinement!r} is not allowed; expected what "
                f"Contact.plan builds (mime.interactions.Confinement)"
            )
        self.confinement = confinement

    def detach_confinement(self) -> None:
        """Drop the held confinement (the body is free again)."""
        self.confinement = None

    def attach_wrench(self, source: Any) -> None:
        """Add ``source.wrench(t, state) -> (F, tau)`` (N, N m; world frame, about the centre) to the applied loads.

        This is the ``body.applied_wrench`` input a penalty contact delivers into. The
        source must be hashable (it is part of the compiled step's static key).
        """
        if not callable(getattr(source, "wrench", None)):
            raise ValidationError(
                f"RigidInertialNode {self.name!r}: source = {source!r} is not allowed; expected a load source "
                f"with wrench(t, state) -> (force, torque), such as a penalty contact's plan"
            )
        if any(w is source for w in self.wrenches):
            raise ValidationError(f"RigidInertialNode {self.name!r}: source = {source!r} is already attached")
        self.wrenches = self.wrenches + (source,)

    def detach_wrench(self, source: Any) -> None:
        """Remove a source :meth:`attach_wrench` added (no-op if it is not attached)."""
        self.wrenches = tuple(w for w in self.wrenches if w is not source)

    # -- maddening's node interface ------------------------------------------------------
    def initial_state(self) -> dict[str, Any]:
        return {k: jnp.asarray(v) for k, v in self.start.items()}

    def step_inputs(self, params: Mapping[str, Any] | None = None) -> StepInputs:
        """What the compiled step (``mime.nodes.rigid.step``, ``mime.nodes.rigid.run_scan``) needs from this body.

        Call it inside ``jax.enable_x64(True)`` for float64 arrays. ``params`` are
        injected over the node's own, as in :meth:`update`.
        """
        if self.confinement is None:
            spec, arrays = None, None
        else:
            spec, arrays = self.confinement.spec, self.confinement.jax_arrays()
        return StepInputs(self._static(), spec, self._params(params), arrays)

    def _static(self) -> tuple:
        """What the compiled step depends on: each load's class (or the callable itself), then the wrench sources."""
        return tuple(_load_key(load) for load in (self.force, self.torque)) + self.wrenches

    def _params(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        p = {k: jnp.asarray(v) for k, v in self.resolve_params(params).items()}
        for name, load in (("force", self.force), ("torque", self.torque)):
            if isinstance(load, Load):
                p[f"{name}_load"] = jax.tree_util.tree_map(jnp.asarray, load.parameters())
        return p

    def update(
        self,
        state: Mapping[str, Any],
        boundary_inputs: Mapping[str, Any] | None,
        dt: float,
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """One step of ``dt`` s (holding the attached confinement, if any).

        A concrete ``dt`` that is not a finite number > 0, a ``state`` without exactly the
        node's fields or with an entry that is not a finite float array of its shape, or a
        ``boundary_inputs`` naming an unknown input or holding a value that is not a finite
        real array of its shape, raises ``ValidationError`` naming it. Traced values
        (under ``jit``, ``grad``, ``vmap``, ``lax.scan``) pass unchecked.
        """
        check_timestep(dt, where="RigidInertialNode.update")
        self.check_state(state, values=True)
        bi = self.check_boundary_inputs(boundary_inputs, values=True)
        static, spec, p, arrays = self.step_inputs(params)
        new, _ = step(static, spec, p, arrays, dict(state), bi, dt)
        return new

    def derivatives(
        self,
        state: Mapping[str, Any],
        boundary_inputs: Mapping[str, Any] | None,
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The free body's right-hand side (no confinement): ``x' = v``, ``q' = q (0, w) / 2``, Newton and Euler."""
        self.check_state(state)
        bi = self.check_boundary_inputs(boundary_inputs)
        p = self._params(params)
        t = bi.get("time", 0.0)
        F, tau_b = _loads(self._static(), p, state, t, bi)
        w = state["angular_velocity"]
        I = p["inertia"]
        gyro = _gyro(I, w)
        qdot = 0.5 * rotation.compose(state["orientation"], jnp.concatenate([jnp.zeros(1, w.dtype), w]))
        return {
            "position": state["velocity"],
            "orientation": qdot,
            "velocity": (F - p["translational_drag"] * state["velocity"]) / p["mass"],
            "angular_velocity": (tau_b + gyro - p["rotational_drag"] * w) / I,
        }

    # -- documents --------------------------------------------------------------------------
    def to_document(self) -> dict[str, Any]:
        for name, load in (("force", self.force), ("torque", self.torque)):
            if load is not None and not isinstance(load, Load):
                raise ValidationError(
                    f"RigidInertialNode {self.name!r}: {name} = {load!r} cannot be saved; expected a mime.nodes.Load "
                    f"(ConstantLoad, RotatingFieldTorque) or a constant vector"
                )
        return {
            "force": None if self.force is None else self.force.to_document(),
            "hull": self.hull.to_document(),
            "inertia": list(self.params["inertia"]),
            "mass": self.params["mass"],
            "name": self.name,
            "rotational_drag": self.params["rotational_drag"],
            "start": {k: list(v) for k, v in self.start.items()},
            "torque": None if self.torque is None else self.torque.to_document(),
            "translational_drag": self.params["translational_drag"],
        }

    def to_arrays(self) -> dict[str, Any]:
        return self.hull.to_arrays()

    @classmethod
    def from_document(cls, doc: dict[str, Any], arrays: dict[str, Any]) -> "RigidInertialNode":
        return cls(
            Hull.from_document(doc["hull"], arrays),
            mass=doc["mass"],
            inertia=doc["inertia"],
            force=_load_from_document(doc["force"]),
            torque=_load_from_document(doc["torque"]),
            translational_drag=doc["translational_drag"],
            rotational_drag=doc["rotational_drag"],
            name=doc["name"],
            **doc["start"],
        )

    def __repr__(self) -> str:
        return f"RigidInertialNode({self.name!r}, {self.hull!r}, mass={self.params['mass']!r})"


# ---------------------------------------------------------------------------------------
# the step (pure; the node's static loads and the confinement's spec are static)
# ---------------------------------------------------------------------------------------
def _gyro(I: Any, w: Any) -> Any:
    """``-(w x I w)`` in Euler's form: ``((I2 - I3) w2 w3, (I3 - I1) w3 w1, (I1 - I2) w1 w2)``."""
    return jnp.stack([(I[1] - I[2]) * w[1] * w[2], (I[2] - I[0]) * w[2] * w[0], (I[0] - I[1]) * w[0] * w[1]])


def _load_key(load: Any) -> Any:
    if load is None:
        return None
    if isinstance(load, SumLoad):
        return ("sum", _load_key(load.first), _load_key(load.second))
    return type(load) if isinstance(load, Load) else load


def _evaluate(key: Any, p: Any, state: Mapping[str, Any], t: Any) -> Any:
    if isinstance(key, tuple):
        return _evaluate(key[1], p["first"], state, t) + _evaluate(key[2], p["second"], state, t)
    return key.evaluate(p, t, state)


def _load(kind: Any, p: Mapping[str, Any], name: str, state: Mapping[str, Any], t: Any) -> Any:
    x = state["position"]
    if kind is None:
        return jnp.zeros(3, x.dtype)
    if isinstance(kind, tuple) or (isinstance(kind, type) and issubclass(kind, Load)):
        return jnp.asarray(_evaluate(kind, p[f"{name}_load"], state, t), dtype=x.dtype)
    return jnp.asarray(kind(t, state), dtype=x.dtype)


def _loads(static: tuple, p: Mapping[str, Any], state: Mapping[str, Any], t: Any, bi: Mapping[str, Any]) -> tuple[Any, Any]:
    x = state["position"]
    F = _load(static[0], p, "force", state, t)
    tau = _load(static[1], p, "torque", state, t)
    for source in static[2:]:  # contact loads delivered into the applied wrench (world frame)
        F_c, tau_c = source.wrench(t, state)
        F = F + jnp.asarray(F_c, dtype=x.dtype)
        tau = tau + jnp.asarray(tau_c, dtype=x.dtype)
    if "force" in bi:
        F = F + jnp.asarray(bi["force"], dtype=x.dtype)
    if "torque" in bi:
        tau = tau + jnp.asarray(bi["torque"], dtype=x.dtype)
    return F, tau @ rotation.matrix(state["orientation"])


def free_solve(static: tuple, params: Mapping[str, Any], state: Mapping[str, Any], bi: Mapping[str, Any], dt: Any) -> FreeSolve:
    """The free body's implicit velocity solve (see the module's docstring), as a :class:`FreeSolve`."""
    t = bi.get("time", 0.0)
    F, tau_b = _loads(static, params, state, t, bi)
    m, I = params["mass"], params["inertia"]
    ct, cr = params["translational_drag"], params["rotational_drag"]
    v, w = state["velocity"], state["angular_velocity"]
    m_eff = m + dt * ct
    I_eff = I + dt * cr
    return FreeSolve(
        velocity=v + dt * (F - ct * v) / m_eff,
        angular_velocity=w + dt * (tau_b + _gyro(I, w) - cr * w) / I_eff,
        mass_eff=m_eff,
        inertia_eff=I_eff,
        mass=m,
        inertia=I,
    )


def step(static: tuple, spec: Any, params: Mapping[str, Any], arrays: ConfinementArrays | None, state: Mapping[str, Any], bi: Mapping[str, Any], dt: Any):
    """One step: the free solve, then (with a confinement's ``spec``) the held step.

    Returns ``(state, report)``, the report a :class:`~mime.interactions.step.ContactReport`.
    """
    free = free_solve(static, params, state, bi, dt)
    if spec is None:
        x, q = advance_pose(state["position"], state["orientation"], free.velocity, free.angular_velocity, dt)
        new = {"position": x, "orientation": q, "velocity": free.velocity, "angular_velocity": free.angular_velocity}
        return new, ContactReport.free(state["position"])
    return held_step(spec, arrays, state, free, dt)


@partial(jax.jit, static_argnames=("static", "spec"))
def step_jit(static: tuple, spec: Any, params: Mapping[str, Any], arrays: ConfinementArrays | None, state: Mapping[str, Any], t: Any, dt: Any):
    """``step`` jitted, at time ``t`` (the Python-loop baseline of the bench)."""
    return step(static, spec, params, arrays, state, {"time": t}, dt)


@partial(jax.jit, static_argnames=("static", "spec", "steps"))
def run_scan(static: tuple, spec: Any, params: Mapping[str, Any], arrays: ConfinementArrays | None, state0: Mapping[str, Any], dt: Any, steps: int):
    """``steps`` steps of ``dt`` under one ``lax.scan``: the states after each step and the reports."""

    def body(state, k):
        t = k * dt
        new, report = step(static, spec, params, arrays, state, {"time": t}, dt)
        return new, (new, report)

    _, (states, reports) = jax.lax.scan(body, state0, jnp.arange(steps, dtype=dt.dtype if hasattr(dt, "dtype") else None))
    return states, reports
