"""Interactions: the base class and the crossing interaction the event engine locates.

The ``__init__`` signature of an interaction is its declaration (see
:mod:`skcomplex.core.specs`). Every subclass's constructor is checked against
its own annotated signature before it runs, so a subclass only writes the
signature and the assignments; the checks that need the system (does the target
exist, does the guard evaluate) run in ``Simulation.check()`` through
:meth:`Interaction.check`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Annotated, Any, ClassVar, Protocol

import jax.numpy as jnp
import numpy as np

from skcomplex.core.sets import FiniteSet
from skcomplex.core.specs import ParameterSpec, RoleSpec, declared_parameters, validate_arguments
from skcomplex.exceptions import ValidationError


class SystemView(Protocol):
    """What an interaction's ``check`` reads of a ``skcomplex.core.system.System``.

    A protocol, so this module does not import ``system`` (which imports this one).
    """

    elements: Sequence[Any]

    def element(self, label: str) -> Any: ...


__all__ = ["CrossingInteraction", "Interaction", "SystemView"]

States = Mapping[str, Any]


class Interaction:
    """Base of all interactions: a label and a declared signature.

    Subclasses declare their parameters in the annotated signature of
    ``__init__``; the base validates every call against it (roles are labels,
    parameters lie in their domains, functions are callable) and then calls the
    subclass's ``_validate()`` for checks that relate several arguments.

    Args:
        label: The label of the interaction.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_skcomplex_checked", False):
            return
        signature = inspect.signature(init)

        @functools.wraps(init)
        def checked_init(self: Interaction, *args: Any, **kw: Any) -> None:
            outermost = type(self) is cls
            if outermost:
                try:
                    bound = signature.bind(self, *args, **kw)
                except TypeError as exc:
                    raise ValidationError(f"{cls.__name__}: {exc}") from None
                bound.apply_defaults()
                arguments = dict(bound.arguments)
                arguments.pop(next(iter(signature.parameters)))
                validate_arguments(cls, arguments)
            init(self, *args, **kw)
            if outermost:
                self._validate()

        checked_init._skcomplex_checked = True  # type: ignore[attr-defined]
        cls.__init__ = checked_init  # type: ignore[method-assign]

    def __init__(self, label: str) -> None:
        if not isinstance(label, str) or not label:
            raise ValidationError(f"{type(self).__name__}: label must be a non-empty str, got {label!r}")
        self.label = label

    def _validate(self) -> None:
        """Checks that relate several constructor arguments; none by default."""

    def roles(self) -> dict[str, str]:
        """The element label of each role, ``{role: label}``, read from the declaration."""
        return {
            p.name: getattr(self, p.name)
            for p in declared_parameters(type(self))
            if isinstance(p.spec, RoleSpec)
        }

    def parameters(self) -> dict[str, float]:
        """The numeric (traced) parameters, ``{name: value}``, read from the declaration."""
        return {
            p.name: float(getattr(self, p.name))
            for p in declared_parameters(type(self))
            if isinstance(p.spec, ParameterSpec) and not p.spec.static
        }

    def check(self, system: SystemView) -> None:
        """Check the interaction against a system; raises ``ValidationError``."""
        for role, label in self.roles().items():
            known = [e.label for e in system.elements]
            if label not in known:
                raise ValidationError(
                    f"{type(self).__name__} {self.label!r}: {role} {label!r} is not an element of the "
                    f"system; known elements: {known}"
                )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label!r})"


class CrossingInteraction(Interaction):
    """An interaction that acts when a guard function crosses zero.

    The guard ``g`` is a function of a namespace: ``s.target.x`` is the target's
    state ``x`` (at the time the engine asks). The engine follows ``g`` along the
    exact path of each step and locates where it crosses zero in ``direction``,
    with SciPy's and SUNDIALS' convention: ``+1`` counts only crossings from
    negative to positive, ``-1`` only from positive to negative, ``0`` both. At a
    located crossing where :meth:`active` holds, :meth:`act` maps the target's
    states to new ones; this base class does nothing there (a pure event
    marker), subclasses such as ``ReflectionInteraction`` change velocities.

    Args:
        label: The label of the interaction.
        target (str): The label of the element whose states the guard reads.
        guard: The function ``guard(namespace)``, zero on the surface.
        direction (int): 1 for crossings from negative to positive, -1 for the
            opposite, and 0 for both.
    """

    holds: ClassVar[bool] = False
    """Whether the surface keeps the point on its from side where it acts (a wall). Only a surface that
    holds can have a point pressed into it (``info['pressed']`` of the step); a pure event marker is
    crossed on purpose."""

    def __init__(
        self,
        label: str,
        *,
        target: Annotated[str, RoleSpec()],
        guard: Callable[[SimpleNamespace], object],
        direction: Annotated[int, ParameterSpec(domain=FiniteSet(-1, 0, 1), static=True)] = 0,
    ) -> None:
        super().__init__(label)
        self.target = target
        self.guard = guard
        self.direction = direction

    # --- what the engine calls (pure JAX functions of the target's states) ---

    @staticmethod
    def namespace(states: States) -> SimpleNamespace:
        """The namespace a guard sees: ``s.target.<state>``."""
        return SimpleNamespace(target=SimpleNamespace(**states))

    def guard_value(self, states: States) -> jnp.ndarray:
        """The guard at ``states`` as a scalar array."""
        return jnp.reshape(jnp.asarray(self.guard(self.namespace(states))), ())

    def active(self, states: States) -> jnp.ndarray:
        """Whether the surface acts at ``states`` (always, in this base class)."""
        return jnp.asarray(True)

    def act(self, states: States, params: Mapping[str, Any]) -> dict[str, Any]:
        """The target's states just after the crossing (unchanged in this base class)."""
        return dict(states)

    def check(self, system: SystemView) -> None:
        """Check the target exists and the guard gives one finite number at the initial state."""
        super().check(system)
        states = {k: jnp.asarray(v) for k, v in system.element(self.target).states.items()}
        self._check_function("guard", self.guard, states, boolean=False)

    def _check_function(self, name: str, function: Callable, states: States, *, boolean: bool) -> None:
        owner = f"{type(self).__name__} {self.label!r}"
        try:
            value = np.asarray(function(self.namespace(states)))
        except AttributeError as exc:
            raise ValidationError(
                f"{owner}: {name} reads a state the target {self.target!r} does not have ({exc}); "
                f"its states are {sorted(states)}"
            ) from None
        except Exception as exc:  # the user's function failed on the initial state
            raise ValidationError(
                f"{owner}: {name} failed on the initial state of {self.target!r}: "
                f"{type(exc).__name__}: {exc}"
            ) from None
        if value.size != 1:
            raise ValidationError(
                f"{owner}: {name} must return one {'condition' if boolean else 'number'}, "
                f"got shape {value.shape}"
            )
        if value.dtype.kind not in "biuf":
            raise ValidationError(
                f"{owner}: {name} must return a real {'condition' if boolean else 'number'}, "
                f"got {value.item()!r}"
            )
        if not boolean and not np.isfinite(value.astype(float)).all():
            raise ValidationError(f"{owner}: {name} must be finite at the initial state, got {value.item()!r}")
