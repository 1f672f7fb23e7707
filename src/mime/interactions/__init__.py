"""MIME's interactions: ``Contact`` (current) and the versions kept beside it (``KEPT``).

A script that writes ``Contact`` gets the current version; a saved document
that names a kept version loads that version's class from the registry.

The projection rung's numerics (``mime.interactions._projection``) are private;
the counts and constants a reader may quote are re-exported here, with the typed
data one step passes (:mod:`mime.interactions.step`) and the penalty rung's force law
(``normal_force``, ``penalty_wrench``).

>>> [c.version for c in KEPT]
['0.1.0']
"""

from mime.interactions._projection import (
    CONTACT_ULPS,
    CONVERGED,
    GROUPS,
    PROJECTION_SWEEPS,
    SPACING_FLOOR,
    SWEEPS,
    Confinement,
    ConfinementArrays,
    default_spacing,
)
from mime.interactions.contact import Contact
from mime.interactions._previous import CentreContact
from mime.interactions._penalty import normal_force, penalty_wrench
from mime.interactions.step import FLAGS, ContactReport, FirstPass, FreeSolve

KEPT: tuple[type, ...] = (CentreContact,)
"""Earlier versions kept registered, so documents that name them load."""

__all__ = [
    "Contact", "CentreContact", "KEPT",
    "SWEEPS", "PROJECTION_SWEEPS", "GROUPS", "CONTACT_ULPS", "CONVERGED", "SPACING_FLOOR", "default_spacing",
    "Confinement", "ConfinementArrays", "ContactReport", "FreeSolve", "FirstPass", "FLAGS",
    "normal_force", "penalty_wrench",
]
