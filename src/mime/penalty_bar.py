"""The planar bar of :mod:`mime.nodes.planar_bar` built as a MIME experiment, on ``Contact``'s penalty rung.

:func:`bar_experiment` builds a ``RigidInertialNode`` whose hull is the bar's support
points (a ``PointSet``) and attaches ``Contact.Penalty`` to it against a floor, so the
contact entry's penalty rung (not the planar node's own springs) carries the bar;
:func:`experiment_gaps` reads the supports' heights back from a run's record. It sits
above :mod:`mime.experiment` in the package's layers, as a scenario does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from mime.errors import ValidationError, invalid
from mime.experiment import Experiment
from mime.geometry import PointSet
from mime.interactions.contact import Contact
from mime.nodes.planar_bar import PlanarBarNode
from mime.nodes.rigid import RigidInertialNode
from mime.scene import Floor
from mime.units import Length, N_per_m, N_s_per_m, as_si, um

__all__ = ["bar_experiment", "experiment_gaps"]


def bar_experiment(bar: PlanarBarNode, *, margin: Any = None, state0: Mapping[str, Any] | None = None) -> tuple[Any, Any]:
    """``bar`` as a MIME experiment: ``(experiment, body)``, the body held by ``Contact.Penalty``.

    The body is a ``mime.nodes.RigidInertialNode`` whose hull is the supports
    (a ``PointSet`` at ``(r_i, 0, 0)``), with the bar's mass, its inertia about
    every axis, and its weight and preload as a constant force. The bar's
    ``theta`` (raising ``+r``) is a turn about ``-y``. The contact is
    ``Contact.Penalty(margin=margin, stiffness=k, damping=c)`` against a floor
    lowered by the margin, so a spring engages where the support's height above
    ``z = 0`` turns negative, as the bar's own gaps do. All supports must share one
    stiffness and one damping (the entry takes one of each).

    ``state0`` (the bar's state fields, m, rad, m/s, rad/s) overrides the bar's start.
    """
    for name in ("stiffness", "damping"):
        values = getattr(bar, name)
        if len(set(values)) != 1:
            raise invalid(f"bar.{name}", values, f"one value shared by every support (Contact takes one {name})", where="bar_experiment")
    margin = um(1.0) if margin is None else margin
    start = dict(bar.start)
    if state0 is not None:
        start.update({k: float(v) for k, v in state0.items()})
    half = 0.5 * start["theta"]
    p = bar.params
    body = RigidInertialNode(
        PointSet([(r, 0.0, 0.0) for r in bar.supports]),
        mass=float(p["mass"]),
        inertia=(float(p["inertia"]),) * 3,
        position=(0.0, 0.0, start["y"]),
        orientation=(math.cos(half), 0.0, -math.sin(half), 0.0),
        velocity=(0.0, 0.0, start["y_rate"]),
        angular_velocity=(0.0, -start["theta_rate"], 0.0),
        force=(0.0, 0.0, float(p["mass"]) * float(p["gravity"]) - float(p["preload"])),
        name="bar",
    )
    floor = Floor(-as_si(margin, Length, argument="margin"), name="floor")
    experiment = Experiment()
    experiment.attach(
        Contact.Penalty(margin=margin, stiffness=N_per_m(bar.stiffness[0]), damping=N_s_per_m(bar.damping[0])),
        body=body,
        surface=floor.surface,
    )
    return experiment, body


def experiment_gaps(record: Any, bar: PlanarBarNode) -> np.ndarray:
    """The supports' heights above ``z = 0`` over a run of :func:`bar_experiment`, ``(steps, n)`` m.

    A support at body-frame ``(r_i, 0, 0)`` is at world height ``z + R[2, 0] r_i``,
    with ``R`` the body's rotation (``R[2, 0] = 2 (q_x q_z - q_w q_y)``).
    """
    q = np.asarray(record.states["orientation"])
    z = np.asarray(record.states["position"])[:, 2]
    r20 = 2.0 * (q[:, 1] * q[:, 3] - q[:, 0] * q[:, 2])
    return z[:, None] + r20[:, None] * np.asarray(bar.supports)[None, :]
