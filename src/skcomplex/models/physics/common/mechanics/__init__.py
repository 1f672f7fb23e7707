"""Mechanics realizations shared by the physics packages: reflections off walls."""

from skcomplex.models.physics.common.mechanics._reflection import ReflectionInteraction, reflect

__all__ = ["ReflectionInteraction", "reflect"]
