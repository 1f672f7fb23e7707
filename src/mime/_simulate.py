"""Run a built experiment: each rigid body's steps under one jitted ``lax.scan``, in float64.

``simulate(built, dt, steps)`` returns a :class:`RunRecord`: per step the times
(the end of each step, s), the states (``position``, ``orientation``, ``velocity``,
``angular_velocity``; keys prefixed with the body's name and a dot when the
experiment has several bodies), the contact flags (``touching``, ``unconverged``,
``held_by_samples``, ``support_short``) and the state's ``contact_residual``. The
arrays are NumPy float64.

``run_body(body, dt, steps, state0)`` runs one body and returns its states and its
:class:`~mime.interactions.step.ContactReport` fields as ``{name: array}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from mime.errors import ValidationError, finite_number, whole_number
from mime.interactions.step import FLAGS, REPORT_KEYS
from mime.nodes.rigid import RigidInertialNode, run_scan
from mime.registry import SettingsRecord

__all__ = ["RunRecord", "simulate", "run_body"]

_EXTRA = tuple(k for k in REPORT_KEYS if k not in FLAGS and k != "contact_residual")
"""The report's measures a run record keeps among its states (its flags and residual have fields of their own)."""


@dataclass(frozen=True)
class RunRecord:
    """The record of a run: the settings' provenance, and per step the times, states and flags.

    ``states`` maps a state's name to its array over the steps; ``flags`` maps a flag
    (``touching``, ``unconverged``, ``held_by_samples``, ``support_short``) to its boolean
    array; ``contact_residual`` is the contact solve's residual per step.
    """

    settings_record: SettingsRecord
    times: Any
    states: dict[str, Any] = field(default_factory=dict)
    flags: dict[str, Any] = field(default_factory=dict)
    contact_residual: Any = None


def run_body(body: RigidInertialNode, dt: float, steps: int, state0: dict[str, Any] | None = None) -> tuple[dict, dict]:
    """Run one body (with its attached confinement, if any): ``(states, reports)`` as NumPy arrays."""
    finite_number(dt, "dt", "a finite time step > 0 (s)", where="simulate", above=0)
    whole_number(steps, "steps", "a whole number of at least 1", where="simulate")
    with jax.enable_x64(True):
        static, spec, params, arrays = body.step_inputs()
        state = body.initial_state() if state0 is None else {k: jax.numpy.asarray(v) for k, v in state0.items()}
        states, reports = run_scan(static, spec, params, arrays, state, float(dt), steps)
        states = {k: np.asarray(v) for k, v in states.items()}
        reports = {k: np.asarray(v) for k, v in reports.as_dict().items()}
    return states, reports


def simulate(built: Any, dt: float, steps: int) -> RunRecord:
    """Run every rigid body of a built experiment for ``steps`` steps of ``dt`` seconds."""
    bodies = [(k, t) for k, t in built.things.items() if isinstance(t, RigidInertialNode)]
    if not bodies:
        raise ValidationError("simulate: the experiment has no body to run; expected at least one RigidInertialNode")
    states, flags, residual = {}, {}, {}
    for key, body in bodies:
        s, r = run_body(body, dt, steps)
        prefix = "" if len(bodies) == 1 else f"{key}."
        for name, value in s.items():
            states[prefix + name] = value
        for name in _EXTRA:
            states[prefix + name] = r[name]
        for name in FLAGS:
            flags[prefix + name] = r[name]
        residual[key] = r["contact_residual"]
    contact_residual = residual[bodies[0][0]] if len(bodies) == 1 else residual
    times = dt * np.arange(1, steps + 1, dtype=np.float64)
    return RunRecord(
        settings_record=built.settings_record, times=times, states=states, flags=flags, contact_residual=contact_residual
    )
