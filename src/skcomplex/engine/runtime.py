"""``Simulation``: check, prepare and run a system, in a scikit-learn style.

Ordering rule: each stage runs the stages it needs. ``prepare()`` calls
``check()`` when the simulation was not checked, and ``run()`` calls
``prepare()`` when it was not prepared, so ``Simulation(system, dt).run(until)``
works; calling the stages explicitly (``.check().prepare().run(...)``) only
makes each failure surface at its own stage. Each stage returns ``self``.

Dtype: the simulation computes in float64. ``prepare()`` and ``run()`` enter
``jax.enable_x64(True)`` for their own work and leave the caller's setting
as it was. The pure functions exposed after ``prepare()`` (``step_``,
``final_state``) are traced in the caller's context: call them inside
``with jax.enable_x64(True):`` to keep float64 (outside it, JAX computes in
float32).
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from skcomplex.core.interactions import CrossingInteraction
from skcomplex.core.system import System
from skcomplex._constraints import Boolean, InstanceOf, Interval, IsNone, Satisfies, validate_params
from skcomplex.engine._programs import program_key, shared_loop
from skcomplex.engine._sharding import MESH_TEXT, is_mesh, sharded_batched_step
from skcomplex.engine._stepper import StepOptions, build_batched_step, build_step
from skcomplex.engine.events import DEFAULT_ITERATIONS, DEFAULT_SUBDIVISIONS
from skcomplex.engine.trajectory import Event, Trajectory
from skcomplex.exceptions import EventLimitError, RestingContactError, ValidationError

__all__ = ["Simulation"]

CHUNK = 128  # steps per compiled call of the run loop; shorter runs are padded with dt = 0


class Simulation:
    """Simulate a system with fixed steps, locating every crossing inside each step.

    Within a step, the engine follows each element's exact polynomial path,
    locates the earliest crossing of any ``CrossingInteraction`` (see
    :mod:`skcomplex.engine.events`), advances every element to it, applies the
    interaction (interactions hit in the same instant act in order, a holding
    wall only while the point still moves into it: a vertex),
    and goes on with the rest of the step, up to ``max_events`` crossings per
    step. A step that needs more raises ``EventLimitError``.

    Boundary convention: a step covers the half-open interval ``(t, t + dt]``.
    A crossing exactly at ``t + dt`` belongs to the step that ends there and is
    applied at its end; the next step starts on the wall, and a point on a wall
    is never reflected again at the instant it starts there. The initial state
    at ``t = 0`` is treated as such a start.

    Compilation: ``run()`` shares its compiled loop with every simulation whose step
    traces alike: the same options, element labels, state names and shapes, and
    interactions built with the same arguments apart from their traced parameters,
    the same guard function included (by identity). A ladder of ``dt`` or of
    restitutions over one guard compiles once. As under ``jax.jit``, a guard is
    traced once, so it must be a pure function of the states it is given.

    Args:
        system: The system to simulate.
        dt: The step, a finite number > 0.
        max_events: The most crossings located in one step (an int >= 1).
        subdivisions: The number of samples per step used to bracket a crossing.
        iterations: The number of safeguarded Newton iterations per crossing.

    Attributes:
        checked_: True after ``check()``.
        step_: After ``prepare()``: the pure, jitted, differentiable step
            ``step(state, params, dt) -> (state, info)``.
        initial_state_: After ``prepare()``: the state at ``t = 0``, a pytree.
        params_: After ``prepare()``: ``{interaction_label: {name: value}}``,
            the traced parameters (restitution, ...), a pytree.
        trajectory_: After ``run()``: the ``Trajectory``.
        error_: After ``run(..., throw=False)``: the error that ended the run early, or None.

    >>> from skcomplex.core import ContinuousSpace, PointElement, System
    >>> ball = PointElement('ball', x=0.0, x_d1=1.0)
    >>> sim = Simulation(System([ball], [], ContinuousSpace(1)), dt=0.25).run(until=1.0)
    >>> sim.trajectory_.times.tolist(), sim.trajectory_.values('ball.x')[-1].item()
    ([0.0, 0.25, 0.5, 0.75, 1.0], 1.0)
    """

    #: What each constructor argument accepts, checked by ``validate_params`` on every call and
    #: rendered as the book's table of Simulation's parameters (``describe_parameters(Simulation)``).
    _parameter_constraints: dict = {
        "system": [InstanceOf(System)],
        "dt": [Interval(float, 0, None, closed="neither")],
        "max_events": [Interval(int, 1, None, closed="left")],
        "subdivisions": [Interval(int, 1, None, closed="left")],
        "iterations": [Interval(int, 1, None, closed="left")],
    }

    @validate_params(_parameter_constraints)
    def __init__(
        self,
        system: System,
        dt: float,
        *,
        max_events: int = 16,
        subdivisions: int = DEFAULT_SUBDIVISIONS,
        iterations: int = DEFAULT_ITERATIONS,
    ) -> None:
        self.system = system
        self.dt = float(dt)
        self.max_events = max_events
        self.subdivisions = subdivisions
        self.iterations = iterations
        self.checked_ = False

    # ------------------------------------------------------------------ stages

    def check(self) -> Simulation:
        """Check the system: dimensions against the space, and every interaction against the elements.

        Raises:
            skcomplex.exceptions.ValidationError: naming the argument, the value and what is allowed.
        """
        n_dim = self.system.space.n_dim
        for element in self.system.elements:
            for name, value in element.states.items():
                if value.ndim == 1 and value.shape[0] != n_dim:
                    raise ValidationError(
                        f"PointElement {element.label!r}: state {name} must be a scalar or have "
                        f"n_dim={n_dim} components (the space's), got {value.shape[0]}"
                    )
        with jax.enable_x64(True):
            for interaction in self.system.interactions:
                interaction.check(self.system)
        self.checked_ = True
        return self

    def prepare(self) -> Simulation:
        """Build the state and parameter pytrees and the jitted step (checks first if needed)."""
        if not self.checked_:
            self.check()
        crossings = [i for i in self.system.interactions if isinstance(i, CrossingInteraction)]
        with jax.enable_x64(True):
            self.initial_state_ = {
                "t": jnp.asarray(0.0, dtype=jnp.float64),
                "elements": {
                    e.label: {n: jnp.asarray(v, dtype=jnp.float64) for n, v in e.states.items()}
                    for e in self.system.elements
                },
                "on_wall": jnp.zeros((len(crossings),), dtype=bool),
                "scale": jnp.zeros((len(crossings),), dtype=jnp.float64),
            }
            self.params_ = {
                i.label: {n: jnp.asarray(v, dtype=jnp.float64) for n, v in i.parameters().items()}
                for i in self.system.interactions
            }
        self.crossing_labels_ = tuple(i.label for i in crossings)
        self.step_ = jax.jit(self.step_function(differentiable=True))
        # the run loop is shared with every simulation whose step traces alike (engine._programs)
        options = StepOptions(self.max_events, self.subdivisions, self.iterations, False, True)
        self._chunk = shared_loop(program_key(self.system, options),
                                  lambda: jax.jit(self._make_chunk(build_step(self.system, options))))
        return self

    @validate_params({"until": [Interval(float, 0, None, closed="left")], "throw": [Boolean()]})
    def run(self, until: float, *, throw: bool = True) -> Simulation:
        """Simulate from ``t = 0`` to ``until`` (prepares first if needed); sets ``trajectory_`` and ``error_``.

        With ``throw=False`` a run that cannot go on honestly (either error below) is not raised but kept,
        as Diffrax's ``throw=False`` keeps a failed solve: ``error_`` holds the exception, and
        ``trajectory_`` holds the run up to the start of the failing step, its later states NaN and its
        later events dropped, so that whatever is measured from them fails loudly. ``error_`` is None
        for a run that finished.

        Raises:
            skcomplex.exceptions.ValidationError: ``until`` is negative or not finite.
            skcomplex.exceptions.EventLimitError: a step needed more than ``max_events`` crossings.
            skcomplex.exceptions.RestingContactError: a point on a wall moved into it with no crossing left to
                locate: sliding along it with no normal speed (restitution 0, or a start at rest on it) it was
                pressed in, or a reflection turned it in, or it started on the wall moving in; a reflection holds
                no resting contact, so it would have passed through. Of the two errors, the one of the earlier
                step is raised.
        """
        if not hasattr(self, "step_"):
            self.prepare()
        for stale in ("trajectory_", "error_"):  # a run that raises leaves neither of an earlier run behind
            self.__dict__.pop(stale, None)
        n = max(0, math.ceil(until / self.dt - 1e-9))
        ends = np.arange(1, n + 1) * self.dt  # every end but the last lies at least 1e-9 dt before ``until``
        ends[-1:] = until  # n dt may round an ulp short of ``until`` (7 * 0.7 < 4.9), or pass it: the last ends there
        starts = np.concatenate([[0.0], ends[:-1]]) if n else np.zeros(0)
        dts = ends - starts
        with jax.enable_x64(True):
            state = self.initial_state_
            outputs, logs, overflow = [], [], []
            for first in range(0, n, CHUNK):
                size = min(CHUNK, n - first)
                t_chunk = np.zeros(CHUNK)
                dt_chunk = np.zeros(CHUNK)
                t_chunk[:size] = starts[first:first + size]
                dt_chunk[:size] = dts[first:first + size]
                state, (elements, info) = self._chunk(state, self.params_, t_chunk, dt_chunk)
                elements, info = jax.device_get((elements, info))
                outputs.append(jax.tree_util.tree_map(lambda a, s=size: a[:s], elements))
                logs.append(jax.tree_util.tree_map(lambda a, s=size: a[:s], info))
                state = {**state, "t": jnp.asarray(ends[first + size - 1])}
        times = np.concatenate([[0.0], ends])
        values = {}
        for e in self.system.elements:
            for name, start in e.states.items():
                series = [np.asarray(start)[None]] + [o[e.label][name] for o in outputs]
                values[f"{e.label}.{name}"] = np.concatenate(series, axis=0)
        events, error, failed = [], None, None
        for chunk_start, log in zip(range(0, n, CHUNK), logs):
            overflow = np.nonzero(log["overflow"])[0]
            pressed = np.nonzero(np.any(log["pressed"], axis=-1))[0]
            if pressed.size and (not overflow.size or pressed[0] <= overflow[0]):  # the earlier failure is named
                failed = chunk_start + int(pressed[0])
                wall = self.crossing_labels_[int(np.argmax(log["pressed"][pressed[0]]))]
                error = RestingContactError(
                    f"in the step from t={starts[failed]:.6g} to t={ends[failed]:.6g} the point moves into wall "
                    f"{wall!r} from on it, where no crossing is left to locate: sliding along it with no normal "
                    "speed (restitution 0, or a start at rest on it), it was pressed in, or a reflection turned it "
                    "in, or it started on the wall moving in. A reflection holds no resting contact, so the point "
                    "would pass through the wall. Model the contact with a force, or end the run before it",
                    wall=wall, start=float(starts[failed]), end=float(ends[failed]))
            elif overflow.size:
                failed = chunk_start + int(overflow[0])
                error = EventLimitError(
                    f"the step from t={starts[failed]:.6g} to t={ends[failed]:.6g} needs more than max_events="
                    f"{self.max_events} crossings; pass a larger max_events or a smaller dt"
                )
            if error is not None:
                if throw:
                    raise error
                events.extend(e for e in self._events(log) if e.time <= starts[failed])
                for series in values.values():  # the states from the failing step's end on are not known
                    series[failed + 1:] = np.nan
                break
            events.extend(self._events(log))
        kept = slice(None) if failed is None else slice(0, failed + 1)
        for path, series in values.items():
            if not np.all(np.isfinite(series[kept])):
                raise ValidationError(f"Simulation.run: state {path} became non-finite; check the guard and dt")
        self.error_ = error
        self.trajectory_ = Trajectory(times, values, events)
        return self

    # ------------------------------------------------------------ pure functions

    @validate_params({
        "differentiable": [Boolean()],
        "record": [Boolean()],
        "batched": [Boolean()],
        "capacity": [IsNone(), Interval(int, 1, None, closed="left")],
        "mesh": [IsNone(), Satisfies(is_mesh, MESH_TEXT)],
    })
    def step_function(self, *, differentiable: bool = True, record: bool = False, batched: bool = False,
                      capacity: int | None = None, mesh: Any = None):
        """The pure step ``step(state, params, dt) -> (state, info)``, not jitted.

        With ``differentiable=True`` the event loop has a fixed trip count
        (``max_events + 1`` iterations, idle ones skipped by ``lax.cond``), so
        reverse-mode ``jax.grad`` works; with ``False`` it is a ``lax.while_loop``
        that stops as soon as the step is done (forward mode and ``vmap`` only),
        which is what ``run()`` uses. Both give the same values.
        With ``record=True``, ``info['log']`` records each event of the step.

        With ``batched=True`` (which needs ``differentiable=False``) the step
        takes a batch of points: every leaf of ``state`` has a leading axis of
        the same length ``n``, ``dt`` is a scalar or has shape ``(n,)``, and
        ``params`` is shared. Its results are bitwise those of
        ``jax.vmap(step_function(differentiable=False, record=record))``, but
        faster when only a few points have crossings in a step: ``vmap`` of the
        per-point loop runs every event pass on the whole batch for as many
        passes as the busiest point needs, while the batched step runs the
        first pass on the whole batch and the later ones only on the points that
        still have time left in the step, gathered into a buffer of
        ``capacity`` points (default: ``ceil(n / 32)``; more busy points than
        that take several rounds of the buffer).

        With ``mesh`` (a ``jax.sharding.Mesh``, which needs ``batched=True``) the
        batch axis is split over the mesh's devices: each device runs the
        batched step on its share, compacting its own busy points (``capacity``
        is then per device, default ``ceil(n / devices / 32)``), and the results
        are bitwise those without a mesh. A batch that does not divide by the
        device count is padded with its last point and unpadded at every call,
        so a rollout under ``lax.scan`` is cheapest with a batch that divides by
        the device count (it needs no padding). Across hosts the call is the same:
        ``jax.distributed.initialize()`` in every process, a mesh over
        ``jax.devices()``, and the states as global ``jax.Array`` s.

        Raises:
            skcomplex.exceptions.ValidationError: ``batched=True`` with
                ``differentiable=True``, a ``capacity`` that is not an int >= 1
                (or one given without ``batched=True``), or a ``mesh`` that is
                not a ``jax.sharding.Mesh`` (or one given without ``batched=True``).
        """
        if capacity is not None and not batched:
            raise ValidationError(
                f"Simulation.step_function: capacity={capacity!r} is the buffer of the batched step; "
                "pass batched=True with it")
        if batched and differentiable:
            raise ValidationError(
                "Simulation.step_function: batched=True needs differentiable=False (the batched step is a "
                "while-loop; for reverse-mode gradients, jax.vmap the differentiable step), got differentiable=True")
        if mesh is not None and not batched:
            raise ValidationError(
                f"Simulation.step_function: mesh={mesh!r} splits the batch axis of the batched step; "
                "pass batched=True with it")
        options = StepOptions(self.max_events, self.subdivisions, self.iterations, differentiable, record, capacity)
        if batched:
            step = build_batched_step(self.system, options)
            return step if mesh is None else sharded_batched_step(step, mesh)
        return build_step(self.system, options)

    @validate_params({"steps": [Interval(int, 0, None, closed="left")]})
    def final_state(self, params: Any = None, state: Any = None, *, steps: int) -> Any:
        """The state after ``steps`` steps of ``dt`` from ``state`` (default: the initial state).

        A pure function of ``params`` and ``state``, so ``jax.grad`` of any
        function of the result works through the events. Call it inside
        ``with jax.enable_x64(True):`` for float64. Unlike ``run()``, it raises
        nothing: a step that overflows ``max_events`` or leaves a point pressed
        into a wall (``info['overflow']``, ``info['pressed']`` of the step) is not
        reported here; use ``run()``, or scan ``step_function()`` and read its infos.
        """
        if not hasattr(self, "step_"):
            self.prepare()
        params = self.params_ if params is None else params
        state = self.initial_state_ if state is None else state
        for name, given, own in (("params", params, "params_"), ("state", state, "initial_state_")):
            if jax.tree_util.tree_structure(given) != jax.tree_util.tree_structure(getattr(self, own)):
                shown = repr(given) if not isinstance(given, dict) else f"<a dict of keys {sorted(given)}>"
                raise ValidationError(f"Simulation.final_state: {name} must be shaped as the simulation's {own} "
                                      f"(the same keys, one array each), got {shown}")
        step = self.step_function(differentiable=True)
        dt = self.dt

        def body(s: Any, _: Any) -> tuple[Any, None]:
            new, _info = step(s, params, dt)
            return new, None

        final, _ = lax.scan(body, state, None, length=steps)
        return final

    # ------------------------------------------------------------------ private

    @staticmethod
    def _make_chunk(step):
        def chunk(state, params, t_starts, dts):
            def body(s, xs):
                t0, dt = xs
                new, info = step({**s, "t": t0}, params, dt)
                return new, (new["elements"], info)

            return lax.scan(body, state, (t_starts, dts))

        return chunk

    def _events(self, log: dict) -> list[Event]:
        labels = self.crossing_labels_
        found = []
        for k in range(log["events"].shape[0]):
            for slot in range(min(int(log["events"][k]), self.max_events + 1)):
                rec = log["log"]
                hits = tuple(l for l, h in zip(labels, rec["hits"][k, slot]) if h)
                acted = tuple(l for l, a in zip(labels, rec["acted"][k, slot]) if a)
                states = {
                    f"{e}.{n}": np.asarray(v[k, slot])
                    for e, named in rec["elements"].items()
                    for n, v in named.items()
                }
                found.append(Event(float(rec["time"][k, slot]), hits, acted, states))
        return found
