"""``RigidInertialNode``: a rigid body with mass, inertia, applied loads and linear drag.

State (:class:`~mime.dynamics.RigidState`): ``position`` ``x`` (m, world),
``orientation`` ``q`` (unit quaternion, body to world), ``velocity`` ``v`` (m/s,
world) and ``angular_velocity`` ``w`` (rad/s, body frame, whose axes are the
principal axes of the inertia ``I = diag(I1, I2, I3)``).

One step of ``dt`` (:func:`step`) solves the velocities by backward Euler in the
drag, with the applied force ``F``, the applied torque ``tau`` (given in the
world, taken to the body as ``R^T tau``) and the gyroscopic torque in Euler's
form explicit (:func:`free_solve`)::

    v' = v + dt (F - c_t v) / (m + dt c_t)
    w'_1 = w_1 + dt (tau_1 + (I2 - I3) w_2 w_3 - c_r w_1) / (I1 + dt c_r)     (and cyclically)

(each the exact solution of ``m (v' - v) = dt (F - c_t v')``), then hands the
free velocities to its *hold* (:class:`~mime.dynamics.Hold`), which finishes the
step. A free body's hold (:class:`~mime.dynamics.FreeFlight`) advances the pose
with the new twist: ``x' = x + dt v'``, ``q' = q exp(w' dt / 2)``. Written this way,
a body with no load keeps its twist to the last bit, and a symmetric body spinning
about its axis takes no gyroscopic torque about it, exactly.

What the step reads besides the state is one typed input, :class:`StepInputs`:
the parameters, the loads, the wrench sources a contact delivers into the applied
loads (the penalty rung's springs) and the hold a contact's plan built (the
projection rung's confinement). A built experiment makes it
(``mime.experiment.BuiltExperiment.step_inputs``); the node itself is never
changed by building, and this module names no contact.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

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
from mime._compile import jit
from mime._compile import one_kernel as _as_one_kernel
from mime._pytree import pytree
from mime.document_kinds import document_kind
from mime.dynamics import FLAGS, REPORT_FIELDS, ContactReport, FreeFlight, FreeSolve, Hold, RigidState
from mime.errors import (UNIT_TOLERANCE, Number, OneOf, Rule, UnitQuaternion, Vector, Whole, any_traced, check_arguments, invalid,
                         is_traced, refuse_traced)
from mime.geometry import Hull, as_hull, rotation
from mime.nodes.loads import (
    ConstantLoad,
    FunctionLoad,
    Load,
    LoadTerms,
    NoLoad,
    PropulsionForce,
    RotatingFieldTorque,
    SumLoad,
    as_load,
    load_from_document,
)

__all__ = [
    "RigidInertialNode", "Load", "NoLoad", "ConstantLoad", "RotatingFieldTorque", "PropulsionForce", "SumLoad",
    "FunctionLoad", "as_load", "REPORT_FIELDS", "FLAGS", "RigidParams", "StepInputs", "free_solve", "step",
    "step_jit", "run_scan", "run_on_host", "scan_chunk", "CHUNK", "ONE_KERNEL_CHECK", "run_batch", "check_states",
]

Array = Any


@pytree
class RigidParams:
    """A rigid body's parameters, as the compiled step reads them (traced).

    Attributes:
        mass: ``()`` kg.
        inertia: ``(3,)`` kg m^2, the principal moments.
        translational_drag: ``()`` N s/m, ``c_t`` of the drag force ``-c_t v``.
        rotational_drag: ``()`` N m s, ``c_r`` of the drag torque ``-c_r w``.
    """

    mass: Array
    inertia: Array
    translational_drag: Array
    rotational_drag: Array

    @classmethod
    def from_mapping(cls, params: Mapping[str, Any]) -> "RigidParams":
        """From a node's ``params`` (``{name: value}``, maddening's form): float64 NumPy arrays, or
        the values themselves where they are traced."""
        return cls(*(_number(params[name]) for name in ("mass", "inertia", "translational_drag", "rotational_drag")))


def _number(value: Any) -> Array:
    return value if is_traced(value) else np.asarray(value, dtype=np.float64)


@pytree
class StepInputs:
    """Everything one step of a rigid body reads besides its state (a pytree).

    Attributes:
        params: the body's :class:`RigidParams`.
        force: the applied force, a :class:`~mime.nodes.loads.Load` (N, world frame), in the form
            :class:`~mime.nodes.loads.LoadTerms` where it has one (so that bodies share a compiled step).
        torque: the applied torque, a :class:`~mime.nodes.loads.Load` (N m, world frame), alike.
        wrenches: sources a contact delivers into the applied loads (the penalty rung's
            springs), each with ``wrench(t, state) -> (F, tau)``, world frame, about the centre.
        hold: what finishes the step from the free solve (:class:`~mime.dynamics.Hold`):
            :class:`~mime.dynamics.FreeFlight` for a free body, or a contact's hold.

    The loads', the wrenches' and the hold's arrays are traced; their classes and
    static fields key the compilation, so bodies that differ only in numbers share it.
    """

    params: RigidParams
    force: Load
    torque: Load
    wrenches: tuple[Any, ...]
    hold: Hold


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
        ParamField("mass", 1.0, "kg", "the body's mass"),
        ParamField("inertia", (1.0, 1.0, 1.0), "kg m^2", "principal moments of inertia", shape=(3,)),
        ParamField("translational_drag", 0.0, "N s/m", "linear drag on the velocity"),
        ParamField("rotational_drag", 0.0, "N m s", "linear drag on the angular velocity"),
    )
    boundary_input_fields: ClassVar[tuple[BoundaryInputField, ...]] = (
        BoundaryInputField("time", (), "s", "the time at the step's start (0 without it); time-varying loads read it"),
        BoundaryInputField("force", (3,), "N", "a further force, world frame"),
        BoundaryInputField("torque", (3,), "N m", "a further torque, world frame"),
    )

    RULES: ClassVar[dict[str, Rule]] = {
        "mass": Number("a positive mass in kg", above=0),
        "inertia": Vector("3 finite numbers, each > 0 (the principal moments, kg m^2)", n=3, positive=True),
        "translational_drag": Number("a finite drag coefficient >= 0 (N s/m)", at_least=0),
        "rotational_drag": Number("a finite drag coefficient >= 0 (N m s)", at_least=0),
        "position": Vector("3 finite numbers", n=3),
        "orientation": UnitQuaternion("a unit quaternion (w, x, y, z) of 4 finite numbers"),
        "velocity": Vector("3 finite numbers", n=3),
        "angular_velocity": Vector("3 finite numbers", n=3),
    }
    """What each argument accepts, declared once; the constructor and the injected parameters are checked by it."""

    projects_confinement: ClassVar[bool] = True
    """The dynamics holds a confinement in its own step (the projection rung's Requires row)."""
    accepts: ClassVar[tuple[str, ...]] = ("body.confinement", "body.applied_wrench")
    """Which inputs this dynamics takes, a contact's confinement (its hold, ``StepInputs.hold``, the
    projection rung) and loads added to its applied wrench (``StepInputs.wrenches``, the penalty rung)."""

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
        super().__init__(mass=mass, inertia=inertia, translational_drag=translational_drag,
                         rotational_drag=rotational_drag)
        self.hull: Hull = as_hull(hull)
        self.name = name
        where = type(self).__name__
        start = check_arguments(where, self.RULES, {"position": position, "orientation": orientation,
                                                     "velocity": velocity, "angular_velocity": angular_velocity})
        self.start = RigidState(*(np.asarray(start[k], dtype=np.float64) for k in RigidState.FIELDS))
        """The state at time zero (float64 NumPy arrays)."""
        self.force: Load = as_load(force, "force", where=where)
        self.torque: Load = as_load(torque, "torque", where=where)

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

    # -- maddening's node interface ------------------------------------------------------
    def resolve_params(self, params: Mapping[str, Any] | None = None, *, check_values: bool = True) -> dict[str, Any]:
        """The node's parameters with ``params`` injected over them, each checked by :attr:`RULES`
        (a traced value passes unchecked)."""
        merged = super().resolve_params(params, check_values=False)
        if check_values and params:
            merged.update(check_arguments(type(self).__name__, self.RULES, dict(params)))
        return merged

    def initial_state(self) -> dict[str, Any]:
        return {k: jnp.asarray(v) for k, v in self.start.to_mapping().items()}

    def step_inputs(self, *, hold: Hold | None = None, wrenches: tuple[Any, ...] = (),
                    params: Mapping[str, Any] | None = None) -> StepInputs:
        """What ``mime.nodes.rigid.step`` reads besides the state: this body's parameters and loads, with ``hold``
        (``None``: :class:`~mime.dynamics.FreeFlight`) and the ``wrenches`` a contact delivers.

        ``params`` are injected over the node's own, as in :meth:`update`. A built experiment
        calls this with what its contacts planned (``BuiltExperiment.step_inputs``).
        """
        if hold is not None and not callable(getattr(hold, "step", None)):
            raise invalid("hold", hold, "None or a hold: a pytree with step(state, free, dt) (mime.dynamics.Hold)",
                          where=f"{type(self).__name__}.step_inputs")
        if isinstance(wrenches, (str, bytes)) or not isinstance(wrenches, (tuple, list)) or not all(
                callable(getattr(w, "wrench", None)) for w in wrenches):
            raise invalid("wrenches", wrenches, "a tuple of wrench sources, each with wrench(t, state) (a "
                          "contact's penalty plan)", where=f"{type(self).__name__}.step_inputs")
        p = RigidParams.from_mapping(self.resolve_params(params))
        return StepInputs(p, LoadTerms.of(self.force), LoadTerms.of(self.torque), tuple(wrenches),
                          FreeFlight() if hold is None else hold)

    def update(
        self,
        state: Mapping[str, Any],
        boundary_inputs: Mapping[str, Any] | None,
        dt: float,
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """One step of ``dt`` s of the free body (a held body steps through ``mime.nodes.rigid.step`` with its hold).

        A concrete ``dt`` that is not a finite number > 0, a ``state`` without exactly the
        node's fields or with an entry that is not a finite float array of its shape, or a
        ``boundary_inputs`` naming an unknown input or holding a value that is not a finite
        real array of its shape, raises ``ValidationError`` naming it. Traced values
        (under ``jit``, ``grad``, ``vmap``, ``lax.scan``) pass unchecked.
        """
        check_timestep(dt, where="RigidInertialNode.update")
        self.check_state(state, values=True)
        bi = self.check_boundary_inputs(boundary_inputs, values=True)
        inputs = self.step_inputs(params=params)
        s = RigidState(*(state[name] for name in RigidState.FIELDS))
        free = free_solve(inputs, s, bi.get("time", 0.0), dt, force=bi.get("force"), torque=bi.get("torque"))
        new, _ = inputs.hold.step(s, free, dt)
        return new.to_mapping()

    def derivatives(
        self,
        state: Mapping[str, Any],
        boundary_inputs: Mapping[str, Any] | None,
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The free body's right-hand side: ``x' = v``, ``q' = q (0, w) / 2``, Newton and Euler."""
        self.check_state(state, values=True)  # concrete values only: a traced one passes
        bi = self.check_boundary_inputs(boundary_inputs, values=True)
        inputs = self.step_inputs(params=params)
        s = RigidState(*(state[name] for name in RigidState.FIELDS))
        p = inputs.params
        F, tau_b = applied_loads(inputs, s, bi.get("time", 0.0), bi.get("force"), bi.get("torque"))
        w = s.angular_velocity
        qdot = 0.5 * rotation.compose(s.orientation, jnp.concatenate([jnp.zeros(1, w.dtype), w]))
        return {
            "position": s.velocity,
            "orientation": qdot,
            "velocity": (F - p.translational_drag * s.velocity) / p.mass,
            "angular_velocity": (tau_b + _gyro(p.inertia, w) - p.rotational_drag * w) / p.inertia,
        }

    # -- documents --------------------------------------------------------------------------
    def to_document(self) -> dict[str, Any]:
        for name, load in (("force", self.force), ("torque", self.torque)):
            if isinstance(load, FunctionLoad):
                raise invalid(name, load.function, "a mime.nodes.Load that can be saved (ConstantLoad, "
                              "RotatingFieldTorque, PropulsionForce, SumLoad) or a constant vector: a function "
                              "cannot be saved", where=f"RigidInertialNode {self.name!r}")
        return {
            "force": self.force.to_document(),
            "hull": self.hull.to_document(),
            "inertia": list(self.params["inertia"]),
            "mass": self.params["mass"],
            "name": self.name,
            "rotational_drag": self.params["rotational_drag"],
            "start": {k: [float(c) for c in v] for k, v in self.start.to_mapping().items()},
            "torque": self.torque.to_document(),
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
            force=load_from_document(doc["force"]),
            torque=load_from_document(doc["torque"]),
            translational_drag=doc["translational_drag"],
            rotational_drag=doc["rotational_drag"],
            name=doc["name"],
            **doc["start"],
        )

    def __repr__(self) -> str:
        return f"RigidInertialNode({self.name!r}, {self.hull!r}, mass={self.params['mass']!r})"


document_kind("rigid_inertial_node")(RigidInertialNode)


# ---------------------------------------------------------------------------------------
# the step (pure)
# ---------------------------------------------------------------------------------------
def _gyro(I: Array, w: Array) -> Array:
    """``-(w x I w)`` in Euler's form: ``((I2 - I3) w2 w3, (I3 - I1) w3 w1, (I1 - I2) w1 w2)``."""
    return jnp.stack([(I[1] - I[2]) * w[1] * w[2], (I[2] - I[0]) * w[2] * w[0], (I[0] - I[1]) * w[0] * w[1]])


def applied_loads(inputs: StepInputs, state: RigidState, t: Array, force: Array | None = None,
                  torque: Array | None = None) -> tuple[Array, Array]:
    """``(F, tau_b)``: the applied force (N, world) and torque (N m, body frame) at ``state`` and ``t``.

    The loads, then the wrenches a contact delivers, then a further ``force`` and
    ``torque`` (world frame; maddening's boundary inputs), summed in that order.
    """
    x = state.position
    F = jnp.asarray(inputs.force(t, state), dtype=x.dtype)
    tau = jnp.asarray(inputs.torque(t, state), dtype=x.dtype)
    for source in inputs.wrenches:
        F_c, tau_c = source.wrench(t, state)
        F = F + jnp.asarray(F_c, dtype=x.dtype)
        tau = tau + jnp.asarray(tau_c, dtype=x.dtype)
    if force is not None:
        F = F + jnp.asarray(force, dtype=x.dtype)
    if torque is not None:
        tau = tau + jnp.asarray(torque, dtype=x.dtype)
    return F, tau @ rotation.matrix(state.orientation)


def free_solve(inputs: StepInputs, state: RigidState, t: Array, dt: Array, *, force: Array | None = None,
               torque: Array | None = None) -> FreeSolve:
    """The free body's implicit velocity solve (see the module's docstring), as a :class:`~mime.dynamics.FreeSolve`."""
    F, tau_b = applied_loads(inputs, state, t, force, torque)
    p = inputs.params
    m, I = p.mass, p.inertia
    ct, cr = p.translational_drag, p.rotational_drag
    v, w = state.velocity, state.angular_velocity
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


def step(inputs: StepInputs, state: RigidState, t: Array, dt: Array) -> tuple[RigidState, ContactReport]:
    """One step of ``dt`` s from time ``t``: the free solve, then the hold (``inputs.hold``).

    Returns the new :class:`~mime.dynamics.RigidState` and the step's
    :class:`~mime.dynamics.ContactReport`.

    The free solve is compiled apart from the hold (an optimisation barrier on its result), so that
    its arithmetic rounds alike whichever hold follows it (XLA's CPU backend fuses a product and a
    sum into one multiply-add where a fused kernel allows): a held body that takes no force steps
    as the free body does, to the last bit.
    """
    free = jax.lax.optimization_barrier(free_solve(inputs, state, t, dt))
    return inputs.hold.step(state, free, dt)


step_jit = jax.jit(step)
"""``step`` jitted (the Python-loop baseline of the bench): a plain ``jax.jit``, so that a caller may
call it inside a program of their own."""


CHUNK = 128
"""The steps of one compiled piece of :func:`run_scan`. A run of any length calls that one program
``ceil(steps / CHUNK)`` times, so that a count of steps never keys a compilation."""


def _scan_chunk(inputs: StepInputs, state: RigidState, dt: Array, first: Array,
               count: Array) -> tuple[RigidState, tuple[RigidState, ContactReport]]:
    """:data:`CHUNK` steps of ``dt`` s under one ``lax.scan``, the first of them step number ``first``
    (its time ``first * dt``), of which the first ``count`` run and the rest keep the state as it is
    (their reports a free step's). Returns the last state and, over the ``CHUNK`` steps, the states after each
    and the reports. Every argument is traced.

    Each step's state and report leave the scan packed (``_pack``: one vector per dtype) and
    are unpacked after it, the same numbers. A scan writes each per-step output by a write of its own:
    with the thirteen fields written one by one, a skipped step took 4.0 us and a free flight's step
    7.2 us on the development machine's CPU; packed, 2.3 and 3.9 us."""

    def body(state: RigidState, j: Array) -> tuple[RigidState, tuple[RigidState, ContactReport]]:
        k = first + j

        def run(s: RigidState) -> tuple[RigidState, ContactReport]:
            return step(inputs, s, k * dt, dt)

        def skip(s: RigidState) -> tuple[RigidState, ContactReport]:
            return s, ContactReport.free(s.position)

        new, report = jax.lax.cond(j < count, run, skip, state)
        shapes.append(jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), (new, report)))
        return new, _pack((new, report))

    shapes: list[Any] = []  # the per-step outputs' shapes, as the scan traces its body (once)
    last, packed = jax.lax.scan(body, state, jnp.arange(CHUNK, dtype=jnp.result_type(first)))
    return last, _unpack(packed, shapes[-1])


def _pack(tree: Any) -> dict[Any, Array]:
    """A pytree's leaves raveled into one vector per dtype (in the order of the leaves).

    A scan writes each of its per-step outputs into its own stacked buffer, one write per
    output and step; packed, a step's state and report take one write per dtype."""
    groups: dict[str, list[Array]] = {}
    for leaf in jax.tree_util.tree_leaves(tree):
        groups.setdefault(jnp.dtype(leaf.dtype).name, []).append(jnp.ravel(leaf))
    return {d: jnp.concatenate(v) for d, v in groups.items()}


def _unpack(packed: dict[Any, Array], like: Any) -> Any:
    """``_pack``'s vectors, stacked over a leading axis, back into the pytree ``like`` describes
    (its leaves' shapes and dtypes), each leaf with that leading axis."""
    leaves, tree = jax.tree_util.tree_flatten(like)
    at = {d: 0 for d in packed}
    out = []
    for leaf in leaves:
        d, size = jnp.dtype(leaf.dtype).name, int(np.prod(leaf.shape, dtype=int))
        flat = packed[d][:, at[d]:at[d] + size]
        at[d] += size
        out.append(flat.reshape(flat.shape[:1] + tuple(leaf.shape)))
    return jax.tree_util.tree_unflatten(tree, out)


scan_chunk = jax.jit(_scan_chunk)
_scan_chunk_program = jit(_scan_chunk)
""":func:`scan_chunk` compiled under MIME's options (``mime._compile``), for :func:`run_scan` at top level; a
caller's trace takes ``scan_chunk``, a plain ``jax.jit`` that may be staged into it."""
_scan_chunk_one_kernel_program = jit(_as_one_kernel(_scan_chunk))
""":func:`scan_chunk` as one kernel of XLA's CPU backend (``mime._compile.one_kernel``), compiled under MIME's
options, for :func:`run_scan` at top level with ``one_kernel``. Under XLA's default options a fusion handed
to YNNPACK cannot be emitted inside the one kernel, so a caller's trace never takes it."""


_STEPS = Whole("a whole number of steps, at least 0", at_least=0, integral=True)
_SCAN_STEPS = Whole("a whole number of steps, at least 1", at_least=1, integral=True)
_FIRST = Whole("a whole number, the step number of the start, at least 0", at_least=0, integral=True)
ONE_KERNEL_CHECK = OneOf("True or False (a Python bool)", choices=(True, False))
"""The declared check of a run's ``one_kernel`` (:func:`run_scan`)."""


def run_scan(inputs: StepInputs, state0: RigidState, dt: Array, steps: int, *,
             first: int = 0, one_kernel: bool = False) -> tuple[RigidState, ContactReport]:
    """``steps`` steps of ``dt`` s from ``state0``, taken as step number ``first`` (at time ``first * dt``,
    s): the states after each step and the reports, each field with a leading axis over the steps.

    The steps run as :func:`scan_chunk`'s one compiled program (a ``lax.scan`` whose carry is
    the state), called once per :data:`CHUNK` steps and compiled under MIME's options
    (``mime._compile``); ``steps`` and ``first`` are whole numbers (Python or NumPy integers), and
    no count keys a compilation. Traceable: under ``jit``, ``vmap`` or ``grad`` the chunks join the
    caller's trace (and its options).

    With ``one_kernel``, XLA's CPU backend runs each chunk as one kernel
    (``mime._compile.one_kernel``): about three times faster per step of one body (2.7 to 3.0 times
    on the peer scenes, ``bench/contact_peer.py``), about twice as long to compile, and rounded otherwise in the last bits than the default program (a separate program,
    compiled once). The book's bitwise statements are about the default. It is a program of MIME's
    own, so a caller's trace cannot take it.

    Raises:
        mime.errors.ValidationError: where ``steps`` is not a whole number of at least 1, ``first``
            not one of at least 0, ``one_kernel`` not a bool (or true in a caller's trace), a concrete
            ``dt`` not a finite time step > 0, or a concrete ``state0`` not finite or not of unit
            orientation (:func:`check_states`), naming the argument and the value.
    """
    steps = _SCAN_STEPS.check(steps, "steps", where="run_scan")
    first = _FIRST.check(first, "first", where="run_scan")
    one_kernel = ONE_KERNEL_CHECK.check(one_kernel, "one_kernel", where="run_scan")
    check_timestep(dt, where="run_scan")  # a traced dt passes, as a traced state does
    check_states(state0, argument="state0", where="run_scan")
    if not any_traced(inputs, state0, dt):  # a caller's trace cannot stage MIME's own programs
        return jax.tree_util.tree_map(jnp.asarray, _on_host(inputs, state0, dt, steps, first, one_kernel))
    if one_kernel:  # the caller's options may hand fusions to YNNPACK, which the one kernel cannot hold
        raise invalid("one_kernel", one_kernel, "False inside a caller's trace: one kernel is run_scan's own "
                      "program, compiled under MIME's options", where="run_scan")
    pieces = _chunks(scan_chunk, inputs, state0, dt, steps, first)
    return jax.tree_util.tree_map(lambda *parts: jnp.concatenate(
        [a[:n] for a, (_, n) in zip(parts, pieces)]), *(out for out, _ in pieces))


def check_states(states: RigidState, *, argument: str, where: str) -> None:
    """Refuse concrete states (one, or a batch along a leading axis) with a non-finite entry or an
    orientation whose length is not 1 within ``mime.errors.UNIT_TOLERANCE``, naming ``argument``
    (traced fields pass unchecked). A run from such a state returns NaN or a sheared body."""
    if any_traced(states):
        return
    fields = {k: np.asarray(getattr(states, k)) for k in RigidState.FIELDS}
    for name, value in fields.items():
        if not np.all(np.isfinite(value)):
            raise invalid(f"{argument}.{name}", f"<{value.shape} array with a non-finite entry>", "finite numbers",
                          where=where)
    length = np.linalg.norm(fields["orientation"], axis=-1)
    off = np.abs(length - 1.0) > UNIT_TOLERANCE
    if np.any(off):
        raise invalid(f"{argument}.orientation", f"<a quaternion of length {float(length[off].flat[0]):.6g}>",
                      f"unit quaternions (w, x, y, z), of length 1 within {UNIT_TOLERANCE:g}", where=where)


def run_on_host(inputs: StepInputs, state0: RigidState, dt: Any, steps: int, *,
                first: int = 0, one_kernel: bool = False) -> tuple[RigidState, ContactReport]:
    """:func:`run_scan` of concrete arguments, each field a NumPy array: what a run record keeps, with no
    trip back to JAX arrays (``mime._simulate.run_body`` runs a body so).

    Raises:
        mime.errors.ValidationError: as :func:`run_scan`, and where an argument is traced (a
            caller's trace takes :func:`run_scan`), naming the argument.
    """
    steps = _SCAN_STEPS.check(steps, "steps", where="run_on_host")
    first = _FIRST.check(first, "first", where="run_on_host")
    one_kernel = ONE_KERNEL_CHECK.check(one_kernel, "one_kernel", where="run_on_host")
    refuse_traced({"inputs": inputs, "state0": state0, "dt": dt}, "concrete values (in a caller's trace, run_scan)",
                  where="run_on_host")
    check_timestep(dt, where="run_on_host")
    check_states(state0, argument="state0", where="run_on_host")
    return _on_host(inputs, state0, dt, steps, first, one_kernel)


def _on_host(inputs: StepInputs, state0: RigidState, dt: Any, steps: int, first: int,
             one_kernel: bool) -> tuple[RigidState, ContactReport]:
    """:func:`run_on_host` of arguments already checked (:func:`run_scan` checks its own)."""
    program = _scan_chunk_one_kernel_program if one_kernel else _scan_chunk_program
    pieces = _chunks(program, inputs, state0, dt, steps, first)
    return jax.tree_util.tree_map(lambda *parts: np.concatenate(
        [np.asarray(a)[:n] for a, (_, n) in zip(parts, pieces)]), *(out for out, _ in pieces))


def _chunks(chunk: Any, inputs: StepInputs, state0: RigidState, dt: Any, steps: int,
            first: int) -> list[tuple[tuple[RigidState, ContactReport], int]]:
    """Each :data:`CHUNK` of the steps through ``chunk``, as ``(outputs, count of steps that ran)``."""
    dtype = jnp.result_type(dt)
    pieces = []
    state = state0
    for done in range(0, steps, CHUNK):
        count = min(CHUNK, steps - done)
        state, out = chunk(inputs, state, dt, np.asarray(first + done, dtype), np.asarray(count, np.int32))
        pieces.append((out, count))
    return pieces


def run_batch(inputs: StepInputs, states: RigidState, dt: Any, steps: Any) -> RigidState:
    """The states of a batch of bodies after ``steps`` steps of ``dt`` s: one body's ``inputs``, ``n`` starts.

    Each start takes the steps :func:`step` takes (the ``k``-th from time ``k * dt``); the batch runs
    as one compiled program, a ``vmap`` over the starts of the steps rolled by a loop, compiled under
    MIME's options (``mime._compile``). Only the final states are kept, as a batched roll-out's
    peers keep them (MuJoCo's ``rollout``, MJX under ``vmap``). XLA may round a batched program's
    arithmetic otherwise than a single body's, so a start ends where its own :func:`run_scan` ends
    to rounding; a motion that follows the last bits (MIME-ANO-140's spin kicks) may part from it.

    Args:
        inputs: One body's :class:`StepInputs` (``Experiment.build().step_inputs(body)``), shared
            by every start.
        states: The starts, a :class:`~mime.dynamics.RigidState` whose fields have a leading
            batch axis: ``position`` ``(n, 3)`` m, ``orientation`` ``(n, 4)``, ``velocity``
            ``(n, 3)`` m/s, ``angular_velocity`` ``(n, 3)`` rad/s (body frame).
        dt: The step, s (finite, > 0).
        steps: How many steps, a whole number >= 0 (a Python or NumPy integer, or traced); a traced
            count, so a count of steps keys no compilation.

    Returns:
        The :class:`~mime.dynamics.RigidState` after the last step, each field ``(n, ...)``.

    Raises:
        mime.errors.ValidationError: naming the argument, the value and what is allowed (for
            concrete arguments; traced ones pass unchecked).
    """
    where = "run_batch"
    allowed = "a RigidState whose fields are (n, 3), (n, 4), (n, 3), (n, 3) arrays for one n >= 1"
    if not isinstance(states, RigidState):
        raise invalid("states", type(states).__name__, allowed, where=where)
    shapes = tuple(tuple(np.shape(getattr(states, k))) for k in RigidState.FIELDS)
    n = shapes[0][0] if shapes[0] else 0
    if n < 1 or shapes != ((n, 3), (n, 4), (n, 3), (n, 3)):
        raise invalid("states", f"<a RigidState of shapes {list(shapes)}>", allowed, where=where)
    check_timestep(dt, where=where)
    check_states(states, argument="states", where=where)
    if not is_traced(steps):
        _STEPS.check(steps, "steps", where=where)
    if any_traced(inputs, states, dt, steps):
        return _batch(inputs, states, dt, steps)  # inside a caller's trace: it joins that program
    return _run_batch(inputs, states, dt, steps)


def _batch(inputs: StepInputs, states: RigidState, dt: Any, steps: Any) -> RigidState:
    def one(state: RigidState) -> RigidState:
        def advance(k: Array, s: RigidState) -> RigidState:
            return step(inputs, s, k.astype(jnp.result_type(dt)) * dt, dt)[0]

        return jax.lax.fori_loop(0, steps, advance, state)

    return jax.vmap(one)(states)


_run_batch = jit(_batch)
