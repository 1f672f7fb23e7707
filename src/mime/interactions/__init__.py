"""MIME's interactions: ``Contact`` (current) and the versions kept beside it (``KEPT``).

A script that writes ``Contact`` gets the current version; a saved document
that names a kept version loads that version's class from the registry.

A contact's plan builds typed data the body's step takes as an input: the
projection rung a :class:`~mime.interactions.confinement.Confinement` (its ``hold``, a
:class:`~mime.interactions._hold.HullHold` or a :class:`~mime.interactions._centre.CentreHold`, is
``StepInputs.hold``), the penalty rung a :class:`~mime.interactions._penalty.PenaltyPlan` (among
``StepInputs.wrenches``). The numerics are private
modules, one idea each: ``_build`` (sampling, groups, starts), ``_solve`` (the
Delassus matrix, projected Gauss-Seidel, its residual), ``_hold`` (choosing the
points, the two passes, the rule), ``_centre`` (0.1.0's centre hold) and
``_penalty`` (the springs). The counts and constants a reader may quote are
re-exported here, with the penalty rung's force law (``normal_force``,
``penalty_wrench``).

>>> [c.version for c in KEPT]
['0.1.0']
"""

from mime.interactions._build import SPACING_FLOOR, default_spacing
from mime.interactions._hold import (
    CONTACT_ULPS,
    CONVERGED,
    GROUPS,
    PROJECTION_SWEEPS,
    SWEEPS,
    FirstPass,
    Held,
    HullHold,
)
from mime.interactions._centre import CentreHold
from mime.interactions._penalty import PenaltyPlan, normal_force, penalty_wrench
from mime.interactions.confinement import BuildReport, Confinement
from mime.interactions.contact import Contact
from mime.interactions._previous import CentreContact

KEPT: tuple[type, ...] = (CentreContact,)
"""Earlier versions kept registered, so documents that name them load."""

__all__ = [
    "Contact", "CentreContact", "KEPT",
    "SWEEPS", "PROJECTION_SWEEPS", "GROUPS", "CONTACT_ULPS", "CONVERGED", "SPACING_FLOOR", "default_spacing",
    "Confinement", "BuildReport", "HullHold", "CentreHold", "Held", "FirstPass", "PenaltyPlan",
    "normal_force", "penalty_wrench",
]
