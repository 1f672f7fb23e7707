"""The core of skcomplex: elements, spaces, systems, interactions and their declarations."""

from skcomplex.core.elements import PointElement
from skcomplex.core.interactions import CrossingInteraction, Interaction
from skcomplex.core.sets import FiniteSet, RealSet
from skcomplex.core.spaces import ContinuousSpace
from skcomplex.core.specs import (
    DeclaredParameter,
    ParameterSpec,
    RoleSpec,
    declared_parameters,
    describe_parameters,
    validate_arguments,
)
from skcomplex.core.system import System

__all__ = [
    "ContinuousSpace",
    "CrossingInteraction",
    "DeclaredParameter",
    "FiniteSet",
    "Interaction",
    "ParameterSpec",
    "PointElement",
    "RealSet",
    "RoleSpec",
    "System",
    "declared_parameters",
    "describe_parameters",
    "validate_arguments",
]
