"""Reflection of a moving point off a wall g(x) = 0."""

from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Annotated, Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from skcomplex.core.interactions import CrossingInteraction
from skcomplex.core.sets import RealSet
from skcomplex.core.specs import ParameterSpec, RoleSpec
from skcomplex.exceptions import ValidationError

__all__ = ["ReflectionInteraction", "reflect"]


def reflect(velocity: jnp.ndarray, normal: jnp.ndarray, restitution: Any) -> jnp.ndarray:
    """The velocity after a reflection: ``v - (1 + e) (v . n) n / |n|**2``.

    The component of ``v`` along ``n`` is reversed and scaled by ``e``; the
    tangential component is kept.

    >>> reflect(jnp.array([1.0, -2.0]), jnp.array([0.0, 3.0]), 0.5).tolist()
    [1.0, 1.0]
    """
    _check_reflect(velocity, normal, restitution)
    return velocity - (1.0 + restitution) * jnp.dot(velocity, normal) / jnp.dot(normal, normal) * normal


def _check_reflect(velocity: Any, normal: Any, restitution: Any) -> None:
    """Refuse a concrete normal that is zero or not finite, a shape other than the velocity's, or a concrete
    restitution outside [0, 1], naming it (traced values pass unchecked, as inside a step)."""
    where = "reflect"
    if not isinstance(normal, jax.core.Tracer):
        n = np.asarray(normal)
        if n.dtype.kind not in "iuf" or n.shape != np.shape(velocity) or not np.all(np.isfinite(n)) or not np.any(n):
            raise ValidationError(f"{where}: normal must be a nonzero finite vector of the velocity's shape "
                                  f"{np.shape(velocity)}, got {normal!r}")
    if not isinstance(restitution, jax.core.Tracer):
        e = np.asarray(restitution)
        if e.dtype.kind not in "iuf" or e.shape != () or not 0.0 <= float(e) <= 1.0:
            raise ValidationError(f"{where}: restitution must be a number in [0, 1], got {restitution!r}")


class ReflectionInteraction(CrossingInteraction):
    """Reflection of a moving point off a wall ``g(x) = 0``, with a coefficient of restitution ``e``.

    When the guard ``g`` crosses zero (in ``direction``), the velocity ``v``
    of the point is replaced by ``v - (1 + e) (v . n) n / |n|**2``, where
    ``n = grad g`` is the gradient of the guard with respect to the position,
    taken by ``jax.grad`` at the crossing point. The normal part of the velocity
    changes sign and is scaled by ``e``; the tangential part is unchanged, so
    ``e = 1`` is an elastic, mirror-like bounce and ``e = 0`` removes the normal
    velocity. Positions and velocities are named states, scalars or vectors;
    their components pair up in order (``positions=('x', 'y')`` with
    ``velocities=('x_d1', 'y_d1')``, or a vector ``x`` with ``x_d1``). With a
    ``region``, only the part of the surface where ``region(namespace)`` holds
    at the crossing point is a wall: elsewhere the point goes through.

    Args:
        label: The label of the interaction.
        target (str): The label of the element that bounces.
        guard: The wall's function ``guard(namespace)`` of the position, zero on
            the wall (``s.target.x`` is the target's state ``x``).
        positions: The names of the target's states that make up the position.
        velocities: The names of the states that make up the velocity, the
            first derivatives of the positions, in the same order.
        direction: 1 for crossings from negative to positive, -1 for the
            opposite, and 0 for both.
        restitution (float): The coefficient of restitution, the ratio of the normal
            speed after the reflection to the normal speed before it.
        region: The function ``region(namespace)`` that holds on the part of
            the surface that reflects, or None for a wall on the whole surface.

    Raises:
        skcomplex.exceptions.ValidationError: positions and velocities have different numbers of
            names, a function is not callable, restitution is outside [0, 1],
            or direction is not -1, 0 or 1 (at construction); the target or a
            state name is unknown, or a position and its velocity differ in
            shape (in ``Simulation.check()``).

    Examples:
        >>> from skcomplex.core.elements import PointElement
        >>> from skcomplex.core.spaces import ContinuousSpace
        >>> from skcomplex.core.system import System
        >>> from skcomplex.engine.runtime import Simulation
        >>> from skcomplex.models.physics.common.mechanics import ReflectionInteraction
        >>> wall = ReflectionInteraction('wall', target='ball', guard=lambda s: s.target.x[0] - 1, direction=1)
        >>> ball = PointElement('ball', x=[0.0, 0.0], x_d1=[1.0, 1.0])
        >>> system = System(elements=[ball], interactions=[wall], space=ContinuousSpace(n_dim=2))
        >>> trajectory = Simulation(system, dt=0.5).check().prepare().run(until=2.0).trajectory_
        >>> trajectory.values('ball.x')[-1].tolist()
        [0.0, 2.0]
    """

    holds: ClassVar[bool] = True  # the wall keeps the point on its from side where it acts (see CrossingInteraction)

    def __init__(
        self,
        label: str,
        *,
        target: Annotated[str, RoleSpec()],
        guard: Callable[[SimpleNamespace], object],
        positions: Sequence[str] = ('x',),
        velocities: Sequence[str] = ('x_d1',),
        direction: int = 0,
        restitution: Annotated[float, ParameterSpec(domain=RealSet.closed(0, 1))] = 1.0,
        region: Callable[[SimpleNamespace], object] | None = None,
    ) -> None:
        super().__init__(label, target=target, guard=guard, direction=direction)
        self.positions = positions
        self.velocities = velocities
        self.restitution = restitution
        self.region = region

    def _validate(self) -> None:
        owner = f"ReflectionInteraction {self.label!r}"
        for name in ("positions", "velocities"):
            names = getattr(self, name)
            if isinstance(names, str) or not isinstance(names, Sequence) or not names or not all(
                isinstance(n, str) and n for n in names
            ):
                raise ValidationError(
                    f"{owner}: {name} must be a non-empty sequence of state names, got {names!r}"
                )
        if len(self.positions) != len(self.velocities):
            raise ValidationError(
                f"{owner}: positions and velocities must have the same number of names, got "
                f"positions={tuple(self.positions)!r} ({len(self.positions)}) and "
                f"velocities={tuple(self.velocities)!r} ({len(self.velocities)})"
            )
        self.positions = tuple(self.positions)
        self.velocities = tuple(self.velocities)

    # --- engine hooks ---

    def check(self, system: Any) -> None:
        """Check target, state names, shapes, and that guard and region evaluate."""
        owner = f"ReflectionInteraction {self.label!r}"
        super().check(system)
        states = system.element(self.target).states
        for kind in ("positions", "velocities"):
            for name in getattr(self, kind):
                if name not in states:
                    raise ValidationError(
                        f"{owner}: {kind} names the state {name!r}, which the target {self.target!r} "
                        f"does not have; its states are {sorted(states)}"
                    )
        for p, v in zip(self.positions, self.velocities):
            if np.shape(states[p]) != np.shape(states[v]):
                raise ValidationError(
                    f"{owner}: velocities state {v!r} must have the shape of position {p!r}, "
                    f"{np.shape(states[p])}, got {np.shape(states[v])}"
                )
        if self.region is not None:
            self._check_function(
                "region", self.region, {k: jnp.asarray(a) for k, a in states.items()}, boolean=True
            )

    def active(self, states: Mapping[str, Any]) -> jnp.ndarray:
        """Whether the wall reflects at ``states``: ``region(namespace)``, or always without a region."""
        if self.region is None:
            return jnp.asarray(True)
        return jnp.reshape(jnp.asarray(self.region(self.namespace(states)), dtype=bool), ())

    def normal(self, states: Mapping[str, Any]) -> jnp.ndarray:
        """The gradient of the guard with respect to the position, flattened in pairing order."""
        position = _flatten(states, self.positions)

        def guard_of_position(p: jnp.ndarray) -> jnp.ndarray:
            return self.guard_value({**states, **_unflatten(p, states, self.positions)})

        return jax.grad(guard_of_position)(position)

    def act(self, states: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
        """Reflect the velocity off the wall's normal with ``params['restitution']``."""
        velocity = _flatten(states, self.velocities)
        new = reflect(velocity, self.normal(states), params["restitution"])
        return {**states, **_unflatten(new, states, self.velocities)}


def _flatten(states: Mapping[str, Any], names: Sequence[str]) -> jnp.ndarray:
    return jnp.concatenate([jnp.ravel(states[n]) for n in names])


def _unflatten(flat: jnp.ndarray, states: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    out, start = {}, 0
    for n in names:
        shape = jnp.shape(states[n])
        size = int(np.prod(shape)) if shape else 1
        out[n] = jnp.reshape(flat[start:start + size], shape)
        start += size
    return out
