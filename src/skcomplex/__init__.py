"""skcomplex: a small simulation library whose crossings are located, not caught late.

``Simulation(system, dt).check().prepare().run(until=...).trajectory_`` runs a
``System`` of ``PointElement`` s and interactions with fixed steps; every
``CrossingInteraction`` (a ``ReflectionInteraction`` off a wall, say) is located
inside the step by a bracketed, Newton-polished root finder and applied at
its exact time. The stepping is pure JAX: jit, vmap and grad work through it.
Bad input raises ``skcomplex.exceptions.ValidationError``.
"""

from skcomplex.core import (
    ContinuousSpace,
    CrossingInteraction,
    FiniteSet,
    Interaction,
    ParameterSpec,
    PointElement,
    RealSet,
    RoleSpec,
    System,
    describe_parameters,
)
from skcomplex.engine import Event, Simulation, Trajectory, locate_crossing
from skcomplex.exceptions import EventLimitError, RestingContactError, ValidationError
from skcomplex.models.physics.common.mechanics import ReflectionInteraction, reflect

__all__ = [
    "ContinuousSpace",
    "CrossingInteraction",
    "Event",
    "EventLimitError",
    "FiniteSet",
    "Interaction",
    "ParameterSpec",
    "PointElement",
    "RealSet",
    "ReflectionInteraction",
    "RestingContactError",
    "RoleSpec",
    "Simulation",
    "System",
    "Trajectory",
    "ValidationError",
    "describe_parameters",
    "locate_crossing",
    "reflect",
]
