"""The typed data one step of a held rigid body passes along (JAX pytrees).

- :class:`FreeSolve`: the free body's implicit velocity solve
  (``mime.nodes.rigid.free_solve``), which the hold starts from;
- :class:`FirstPass`: what the hold's first pass found at the step's start
  (``mime.interactions._projection.first_pass``);
- :class:`ContactReport`: what a step reports about the contact, per step of a
  run (:data:`FLAGS` and the contact's measures).

Each is a frozen dataclass registered as a pytree, so it passes through ``jit``,
``vmap`` and ``lax.scan`` (a scan stacks each field over the steps). A field reads
as an attribute, and also by its name (``report["touching"]``), as the
string-keyed dicts these replace were read.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

__all__ = ["FLAGS", "REPORT_KEYS", "FreeSolve", "FirstPass", "ContactReport"]



class _ByName:
    """Read a field by its name, as the dict this type replaced was read."""

    def __getitem__(self, name: str) -> Any:
        if name not in self.__dataclass_fields__:  # type: ignore[attr-defined]
            raise KeyError(name)
        return getattr(self, name)

    def keys(self) -> tuple[str, ...]:
        return tuple(f.name for f in fields(self))  # type: ignore[arg-type]

    def items(self) -> tuple[tuple[str, Any], ...]:
        return tuple((name, getattr(self, name)) for name in self.keys())

    def as_dict(self) -> dict[str, Any]:
        """The fields as ``{name: value}``, in declaration order."""
        return {name: getattr(self, name) for name in self.keys()}


def _pytree(cls: type) -> type:
    return jax.tree_util.register_dataclass(cls, data_fields=[f.name for f in fields(cls)], meta_fields=[])


@_pytree
@dataclass(frozen=True)
class FreeSolve(_ByName):
    """The free body's velocities after one implicit (backward Euler) solve, and the masses it used.

    ``velocity`` (m/s, world) and ``angular_velocity`` (rad/s, body frame) are the
    solve's result; ``mass_eff = m + dt c_t`` (kg) and ``inertia_eff = I + dt c_r``
    (kg m^2, three principal moments) are the drag-augmented mass and inertia the
    hold's first pass uses; ``mass`` and ``inertia`` are the body's own, which the
    projection after the step uses.
    """

    velocity: Any
    angular_velocity: Any
    mass_eff: Any
    inertia_eff: Any
    mass: Any
    inertia: Any


class FirstPass(NamedTuple):
    """The first pass at the step's start: the held points, their forces and speeds.

    ``held`` the points one per group (``_projection.Held``); ``impulse`` the force
    ``lambda_i >= 0`` at each (N s); ``speed`` each point's outward speed after the
    solve and ``target`` the least it may be (m/s); ``free_speed`` the speed before
    the solve; ``residual`` the solve's residual after each sweep (m/s).
    """

    held: Any
    impulse: Any
    speed: Any
    target: Any
    free_speed: Any
    residual: Any


@_pytree
@dataclass(frozen=True)
class ContactReport(_ByName):
    """What one step reports about the contact (a run stacks each field over its steps).

    Flags: ``touching`` (some force or projection acted), ``unconverged`` (the solve
    left more than ``CONVERGED`` of the free step's speed unmet), ``held_by_samples``
    (a point held at a sample took a force), ``support_short`` (a group whose search
    did not converge held a sample within the samples' shortfall). Measures:
    ``contact_residual`` (m/s), ``contact_impulse`` (N s, summed), ``contact_push``
    (kg m, summed), ``contact_point`` (the deepest first-pass point, body frame, m)
    and ``contact_gap`` (its gap to the shrunk surface at the step's start, m;
    ``inf`` with no confinement).
    """

    touching: Any
    unconverged: Any
    held_by_samples: Any
    support_short: Any
    contact_residual: Any
    contact_impulse: Any
    contact_push: Any
    contact_point: Any
    contact_gap: Any

    @classmethod
    def free(cls, x: Any) -> "ContactReport":
        """The report of a step with no confinement, in the dtype of the position ``x``."""
        f = jnp.array(False)
        z = jnp.zeros((), x.dtype)
        return cls(f, f, f, f, z, z, z, jnp.zeros(3, x.dtype), jnp.array(jnp.inf, x.dtype))


REPORT_KEYS = tuple(f.name for f in fields(ContactReport))
"""The report's fields: the flags, then the contact's measures."""
FLAGS = REPORT_KEYS[:4]
"""The contact flags a run records per step: ``touching``, ``unconverged``, ``held_by_samples``, ``support_short``."""
