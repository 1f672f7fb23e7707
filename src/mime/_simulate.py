"""Run a built experiment: each rigid body's steps under one jitted ``lax.scan``, in float64.

``simulate(built, dt, steps)`` returns a :class:`RunRecord`: per step the times
(the end of each step, s), the states (``position``, ``orientation``, ``velocity``,
``angular_velocity``; keys prefixed with the body's name and a dot when the
experiment has several bodies), the contact flags (``touching``, ``unconverged``,
``held_by_samples``, ``support_short``) and the state's ``contact_residual``. The
arrays are NumPy float64.

``run_body(inputs, state0, dt, steps)`` runs one body from its
:class:`~mime.nodes.rigid.StepInputs` (what the built experiment gives its step)
and returns a :class:`BodyRun`: its states and reports, typed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from maddening.core import check_timestep
from mime.dynamics import FLAGS, REPORT_FIELDS, ContactReport, RigidState
from mime.errors import Whole, invalid, is_traced, refuse_traced
from mime.nodes.rigid import ONE_KERNEL_CHECK, RigidInertialNode, StepInputs, run_on_host
from mime.registry import SettingsRecord

__all__ = ["RunRecord", "BodyRun", "simulate", "run_body", "STEPS"]

_EXTRA = tuple(k for k in REPORT_FIELDS if k not in FLAGS and k != "contact_residual")
"""The report's measures a run record keeps among its states (its flags and residual have fields of their own)."""
STEPS = Whole("a whole number of at least 1")
"""The declared check of a run's count of steps."""


@dataclass(frozen=True)
class RunRecord:
    """The record of a run: the settings' provenance, and per step the times, states and flags.

    ``states`` maps a state's name to its array over the steps; ``flags`` maps a flag
    (``touching``, ``unconverged``, ``held_by_samples``, ``support_short``) to its boolean
    array; ``contact_residual`` is the contact solve's residual per step. ``one_kernel`` says
    whether the run asked for each chunk of steps as one kernel (``mime.nodes.rigid.run_scan``;
    only XLA's CPU backend acts on it), whose rounding may differ in the last bits from the default
    program's.
    """

    settings_record: SettingsRecord
    times: Any
    states: dict[str, Any] = field(default_factory=dict)
    flags: dict[str, Any] = field(default_factory=dict)
    contact_residual: Any = None
    one_kernel: bool = False


@dataclass(frozen=True)
class BodyRun:
    """One body's run: ``states`` (a :class:`~mime.dynamics.RigidState`) and ``report`` (a
    :class:`~mime.dynamics.ContactReport`), each field a NumPy array with a leading axis over
    the steps (the state after each step; the report of each step)."""

    states: RigidState
    report: ContactReport


def check_run(dt: Any, steps: Any, *, where: str) -> tuple[float, int]:
    """``(dt, steps)`` when ``dt`` is a finite time step > 0 (s) and ``steps`` a whole number >= 1."""
    check_timestep(dt, where=where)
    if is_traced(dt):
        raise invalid("dt", dt, "a concrete time step > 0 (s); a run's steps are counted before it is traced",
                      where=where)
    return float(dt), STEPS.check(steps, "steps", where=where)


def run_body(inputs: StepInputs, state0: RigidState | Any, dt: float, steps: int, *,
             one_kernel: bool = False) -> BodyRun:
    """Run one body from ``state0`` for ``steps`` steps of ``dt`` s with its step's ``inputs``, in float64
    (``one_kernel``: each chunk of steps as one kernel of XLA's CPU backend, ``mime.nodes.rigid.run_scan``)."""
    dt, steps = check_run(dt, steps, where="run_body")
    one_kernel = ONE_KERNEL_CHECK.check(one_kernel, "one_kernel", where="run_body")
    refuse_traced({"inputs": inputs, "state0": state0}, "concrete arrays: a run keeps its steps as NumPy arrays "
                  "(mime.nodes.rigid.run_scan joins a caller's trace)", where="run_body")
    with jax.enable_x64(True):
        start = state0 if isinstance(state0, RigidState) else RigidState.from_mapping(state0)
        start = jax.tree_util.tree_map(lambda a: np.asarray(a, dtype=np.float64), start)
        # the inputs go to the compiled chunks as they are: the call converts their NumPy leaves to the arrays
        # jnp.asarray would make (the same dtypes and weak types), at a fraction of a converting call's cost
        states, reports = run_on_host(inputs, start, dt, steps, one_kernel=one_kernel)
    return BodyRun(states, reports)


def simulate(built: Any, dt: float, steps: int, *, one_kernel: bool = False) -> RunRecord:
    """Run every rigid body of a built experiment for ``steps`` steps of ``dt`` seconds (``one_kernel``: as
    :func:`run_body`)."""
    dt, steps = check_run(dt, steps, where="simulate")
    one_kernel = ONE_KERNEL_CHECK.check(one_kernel, "one_kernel", where="simulate")
    bodies = [(k, t) for k, t in built.things.items() if isinstance(t, RigidInertialNode)]
    if not bodies:
        raise invalid("experiment", list(built.things), "at least one RigidInertialNode to run", where="simulate")
    states, flags, residual = {}, {}, {}
    for key, body in bodies:
        run = run_body(built.step_inputs(body), body.start, dt, steps, one_kernel=one_kernel)
        prefix = "" if len(bodies) == 1 else f"{key}."
        for name in RigidState.FIELDS:
            states[prefix + name] = getattr(run.states, name)
        for name in _EXTRA:
            states[prefix + name] = getattr(run.report, name)
        for name in FLAGS:
            flags[prefix + name] = getattr(run.report, name)
        residual[key] = run.report.contact_residual
    contact_residual = residual[bodies[0][0]] if len(bodies) == 1 else residual
    times = dt * np.arange(1, steps + 1, dtype=np.float64)
    return RunRecord(
        settings_record=built.settings_record, times=times, states=states, flags=flags, contact_residual=contact_residual,
        one_kernel=one_kernel,
    )
