"""One step of a rigid body, as typed data: its state, its free solve, its hold and its report.

A body's step (``mime.nodes.rigid.step``) solves the free velocities first
(:class:`FreeSolve`), then hands them to its *hold*: whatever keeps the body where
a contact allows it to be. A hold is any pytree with a method

``step(state, free, dt) -> (RigidState, ContactReport)``

(:class:`Hold`). A body that nothing holds takes :class:`FreeFlight`, which only
advances the pose. A contact's plan builds its own hold
(``mime.interactions.HullHold``, ``mime.interactions.CentreHold``); the built
experiment gives it to the body's step as an input, so the body's code never
names a contact, and a further contact entry needs no change to it.

Every class here is a frozen dataclass registered as a JAX pytree
(``mime._pytree``): it passes through ``jit``, ``vmap`` and ``lax.scan``, and a
scan stacks each field over the steps (a leading axis).

>>> import jax.numpy as jnp
>>> s = RigidState.at_rest(jnp.zeros(3))
>>> s.orientation.tolist(), RigidState.FIELDS[1]
([1.0, 0.0, 0.0, 0.0], 'orientation')
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Protocol

import jax.numpy as jnp

from mime._pytree import pytree
from mime.geometry.rotation import advance_pose

__all__ = [
    "RigidState",
    "FreeSolve",
    "ContactReport",
    "FLAGS",
    "REPORT_FIELDS",
    "Hold",
    "FreeFlight",
]

Array = Any
"""A JAX or NumPy array (the shapes and units are in each field's description)."""


@pytree
class RigidState:
    """A rigid body's state.

    Attributes:
        position: ``(3,)`` m, the centre of mass, world frame.
        orientation: ``(4,)`` unit quaternion ``(w, x, y, z)``, body to world.
        velocity: ``(3,)`` m/s, the centre's velocity, world frame.
        angular_velocity: ``(3,)`` rad/s, body frame (the principal axes).

    A run's states carry a leading axis over the steps; a batch's, over the starts.
    """

    position: Array
    orientation: Array
    velocity: Array
    angular_velocity: Array

    FIELDS: ClassVar[tuple[str, ...]] = ("position", "orientation", "velocity", "angular_velocity")
    """The fields' names, in order (maddening's node interface keys a state by them)."""

    @classmethod
    def from_mapping(cls, state: Mapping[str, Any], dtype: Any = None) -> "RigidState":
        """The state of maddening's node interface (``{field: array}``) as a ``RigidState``."""
        return cls(*(jnp.asarray(state[name], dtype=dtype) for name in cls.FIELDS))

    def to_mapping(self) -> dict[str, Array]:
        """``{field: array}``, the form maddening's node interface (``update``, ``derivatives``) takes."""
        return {name: getattr(self, name) for name in self.FIELDS}

    @classmethod
    def at_rest(cls, position: Array) -> "RigidState":
        """A body at ``position`` (m), unturned and still."""
        x = jnp.asarray(position)
        return cls(x, jnp.array([1.0, 0.0, 0.0, 0.0], x.dtype), jnp.zeros(3, x.dtype), jnp.zeros(3, x.dtype))


@pytree
class FreeSolve:
    """The free body's velocities after one implicit (backward Euler) solve, and the masses it used.

    Attributes:
        velocity: ``(3,)`` m/s, world frame, the solve's result.
        angular_velocity: ``(3,)`` rad/s, body frame.
        mass_eff: ``()`` kg, ``m + dt c_t``: the drag-augmented mass a hold's velocity solve uses.
        inertia_eff: ``(3,)`` kg m^2, ``I + dt c_r`` (principal moments).
        mass: ``()`` kg, the body's own mass (the projection after the step uses it).
        inertia: ``(3,)`` kg m^2, the body's own principal moments.
    """

    velocity: Array
    angular_velocity: Array
    mass_eff: Array
    inertia_eff: Array
    mass: Array
    inertia: Array


@pytree
class ContactReport:
    """What one step reports about the contact (a run stacks each field over its steps).

    Flags (``()`` bool): ``touching`` (some force or projection acted), ``unconverged``
    (the solve left more than ``Contact.CONVERGED`` of the free step's speed unmet),
    ``held_by_samples`` (a point held at a sample took a force), ``support_short`` (a
    group whose search did not converge held a sample within the samples' shortfall).

    Measures: ``contact_residual`` (``()`` m/s, the velocity solve's residual),
    ``contact_impulse`` (``()`` N s, summed over the held points), ``contact_push``
    (``()`` kg m, the projection's multipliers summed), ``contact_point`` (``(3,)`` m,
    body frame: the first pass's deepest held point) and ``contact_gap`` (``()`` m, its
    gap to the surface shrunk by the margin at the step's start; ``inf`` when nothing
    holds the body, and at a step the hold's broad phase found clear of the margin, where no
    point is chosen: ``mime.interactions._hold.clear``; ``contact_point`` is then zero).
    """

    touching: Array
    unconverged: Array
    held_by_samples: Array
    support_short: Array
    contact_residual: Array
    contact_impulse: Array
    contact_push: Array
    contact_point: Array
    contact_gap: Array

    @classmethod
    def free(cls, x: Array) -> "ContactReport":
        """The report of a step that nothing holds, in the dtype of the position ``x``."""
        f = jnp.array(False)
        z = jnp.zeros((), x.dtype)
        return cls(f, f, f, f, z, z, z, jnp.zeros(3, x.dtype), jnp.array(jnp.inf, x.dtype))


REPORT_FIELDS: tuple[str, ...] = (
    "touching", "unconverged", "held_by_samples", "support_short",
    "contact_residual", "contact_impulse", "contact_push", "contact_point", "contact_gap",
)
"""The report's fields, the flags and then the contact's measures."""
FLAGS: tuple[str, ...] = REPORT_FIELDS[:4]
"""The contact flags a run records per step (``touching``, ``unconverged``, ``held_by_samples``, ``support_short``)."""


class Hold(Protocol):
    """What a body's step takes from a contact: a pytree that finishes the step from the free solve.

    ``step(state, free, dt)`` returns the state after the step and its
    :class:`ContactReport`. Its arrays are traced; its static fields key the compilation.
    """

    def step(self, state: RigidState, free: FreeSolve, dt: Array) -> tuple[RigidState, ContactReport]: ...


@pytree
class FreeFlight:
    """The hold of a body no contact holds: the pose advances with the free twist.

    ``x' = x + dt v'`` and ``q' = q exp(w' dt / 2)`` (``mime.geometry.rotation.advance_pose``).
    """

    def step(self, state: RigidState, free: FreeSolve, dt: Array) -> tuple[RigidState, ContactReport]:
        x, q = advance_pose(state.position, state.orientation, free.velocity, free.angular_velocity, dt)
        return RigidState(x, q, free.velocity, free.angular_velocity), ContactReport.free(state.position)
