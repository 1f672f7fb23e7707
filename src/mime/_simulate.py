"""Run a built experiment: each rigid body's steps under one jitted ``lax.scan``, in float64.

``simulate(built, dt, steps)`` returns a ``mime.experiment.RunRecord``: per
step the times (the end of each step, s), the states (``position``,
``orientation``, ``velocity``, ``angular_velocity``; keys prefixed with the
body's name and a dot when the experiment has several bodies), the contact
flags (``touching``, ``unconverged``, ``held_by_samples``, ``support_short``)
and the state's ``contact_residual``. The arrays are NumPy float64.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import numpy as np

from mime.errors import ValidationError
from mime.nodes.rigid import FLAGS, RigidInertialNode, run_scan

__all__ = ["simulate", "run_body"]

_EXTRA = ("contact_impulse", "contact_push", "contact_point", "contact_gap")


def run_body(body: RigidInertialNode, dt: float, steps: int, state0: dict[str, Any] | None = None) -> tuple[dict, dict]:
    """Run one body (with its attached confinement, if any): ``(states, reports)`` as NumPy arrays."""
    if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not math.isfinite(dt) or dt <= 0:
        raise ValidationError(f"simulate: dt = {dt!r} is not allowed; expected a finite time step > 0 (s)")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValidationError(f"simulate: steps = {steps!r} is not allowed; expected a whole number of at least 1")
    with jax.enable_x64(True):
        spec, arrays = body._confinement_parts()
        state = body.initial_state() if state0 is None else {k: jax.numpy.asarray(v) for k, v in state0.items()}
        states, reports = run_scan(body._static(), spec, body._params(), arrays, state, float(dt), steps)
        states = {k: np.asarray(v) for k, v in states.items()}
        reports = {k: np.asarray(v) for k, v in reports.items()}
    return states, reports


def simulate(built: Any, dt: float, steps: int) -> Any:
    """Run every rigid body of a built experiment for ``steps`` steps of ``dt`` seconds."""
    from mime.experiment import RunRecord

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
