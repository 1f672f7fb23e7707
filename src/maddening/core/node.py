"""The node base class: a unit of simulation that declares its state, parameters and inputs.

A node holds its parameters in ``params`` and its declarations at class level
(``meta``, ``state_fields``, ``param_fields``, ``boundary_input_fields``). It
advances with its own discrete step, ``update()``, and exposes its continuous
right-hand side, ``derivatives()``, for the generic integrators of
``maddening.core.simulation.integrators``.

Injected parameters follow one rule everywhere: ``{**self.params, **params}``;
a node adds an injected value to its state in the state's dtype (see
``as_state_dtype``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax.numpy as jnp

from maddening.core._meta import NodeMeta
from maddening.core._specs import BoundaryInputField, ParamField, StateField
from maddening.errors import concrete_number, invalid

__all__ = ["Node", "as_state_dtype", "check_timestep"]


def check_timestep(dt: Any, *, where: str = "") -> None:
    """Raise ``maddening.ValidationError`` unless a concrete ``dt`` is finite and > 0.

    Traced time steps (under ``jit``) pass unchecked.

    >>> check_timestep(0.0, where="BallNode.update")
    Traceback (most recent call last):
    ...
    maddening.ValidationError: BallNode.update: dt = 0.0 is not allowed; expected a finite time step > 0 (s)
    """
    allowed = "a finite time step > 0 (s)"
    concrete_number(dt, "dt", allowed, where=where, finite=True, above=0.0)


def as_state_dtype(value: Any, like: Any) -> Any:
    """Return ``value`` as an array in the dtype of the state entry ``like``.

    An injected parameter (a Python float, a float64 array, a tracer) must not
    change the precision of the state it is added to.

    >>> import jax.numpy as jnp
    >>> str(as_state_dtype(2.5, jnp.zeros((), jnp.float32)).dtype)
    'float32'
    """
    return jnp.asarray(value).astype(jnp.result_type(like))


class Node:
    """Base class of every node.

    Subclasses set the class attributes ``meta``, ``state_fields``,
    ``param_fields`` and ``boundary_input_fields`` and implement
    ``initial_state``, ``update`` and ``derivatives``.

    The constructor takes the parameters by keyword; unknown names and values
    outside a parameter's allowed range raise ``maddening.ValidationError``.
    Missing parameters take their declared defaults.
    """

    meta: ClassVar[NodeMeta]
    state_fields: ClassVar[tuple[StateField, ...]] = ()
    param_fields: ClassVar[tuple[ParamField, ...]] = ()
    boundary_input_fields: ClassVar[tuple[BoundaryInputField, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = {f.name for f in cls.state_fields}
        for f in cls.state_fields:
            if f.rate_of is not None and f.rate_of not in names:
                raise TypeError(
                    f"{cls.__name__}: state field {f.name!r} declares rate_of={f.rate_of!r}, "
                    f"which is not one of its state fields {sorted(names)}"
                )

    def __init__(self, **params: Any) -> None:
        self.params: dict[str, Any] = self.resolve_params(
            {p.name: p.default for p in self.param_fields} | params, check_values=True
        )

    # -- declarations -------------------------------------------------------------
    @classmethod
    def state_spec(cls) -> dict[str, StateField]:
        """The state fields, by name."""
        return {f.name: f for f in cls.state_fields}

    @classmethod
    def param_spec(cls) -> dict[str, ParamField]:
        """The parameter fields, by name."""
        return {f.name: f for f in cls.param_fields}

    @classmethod
    def boundary_input_spec(cls) -> dict[str, BoundaryInputField]:
        """The boundary inputs the node accepts, by name."""
        return {f.name: f for f in cls.boundary_input_fields}

    @classmethod
    def second_order_pairs(cls) -> tuple[tuple[str, str], ...]:
        """The ``(position, rate)`` pairs declared with ``StateField.rate_of``."""
        return tuple((f.rate_of, f.name) for f in cls.state_fields if f.rate_of is not None)

    # -- checks ---------------------------------------------------------------------
    def resolve_params(self, params: Mapping[str, Any] | None = None, *, check_values: bool = True) -> dict[str, Any]:
        """Merge injected parameters over the node's own: ``{**self.params, **params}``.

        Raises ``maddening.ValidationError`` for a name the node does not declare,
        and (unless ``check_values=False``) for a concrete injected value that its
        ``ParamField`` does not allow: outside the declared range, not finite, of
        the wrong shape, or not a real number (text, ``None``, complex). A traced
        value (under ``jit``, ``grad``, ``vmap`` or ``lax.scan``) passes untouched,
        so the check costs nothing inside a compiled step.

        >>> from maddening.nodes import BallNode
        >>> BallNode().resolve_params({"gravity": float("nan")})
        Traceback (most recent call last):
        ...
        maddening.ValidationError: BallNode: gravity = nan is not allowed; expected a finite number
        """
        spec = self.param_spec()
        where = type(self).__name__
        if params is not None and not isinstance(params, Mapping):
            raise invalid("params", params, "a mapping of parameter names to values, or None", where=where)
        params = {} if params is None else dict(params)
        for name, value in params.items():
            if name not in spec:
                raise invalid("params", {name: value}, f"parameters among {sorted(spec)}", where=where)
            if check_values:
                spec[name].check(value, where=where)
        base = getattr(self, "params", {})
        return {**base, **params}

    def check_state(self, state: Mapping[str, Any], *, values: bool = False) -> None:
        """Raise ``maddening.ValidationError`` unless ``state`` has exactly the declared fields.

        With ``values``, each concrete entry must also be a finite real array of its
        field's declared shape (``StateField.check``); traced entries pass untouched.
        """
        spec = self.state_spec()
        if not isinstance(state, Mapping) or set(state) != set(spec):
            shown = sorted(state) if isinstance(state, Mapping) else state
            raise invalid(
                "state", shown, f"a dict with the fields {sorted(spec)}",
                where=type(self).__name__,
            )
        if values:
            for name, field in spec.items():
                field.check(state[name], where=type(self).__name__)

    def check_boundary_inputs(self, boundary_inputs: Mapping[str, Any] | None, *, values: bool = False) -> dict[str, Any]:
        """Return ``boundary_inputs`` as a dict, checking its names against the spec.

        ``None`` means no inputs. An unknown name, or a missing required input,
        raises ``maddening.ValidationError``. With ``values``, each concrete input
        must also be a finite real array of its declared shape
        (``BoundaryInputField.check``); traced inputs pass untouched.
        """
        spec = self.boundary_input_spec()
        where = type(self).__name__
        if boundary_inputs is None:
            boundary_inputs = {}
        if not isinstance(boundary_inputs, Mapping):
            raise invalid("boundary_inputs", boundary_inputs, "a dict or None", where=where)
        unknown = sorted(set(boundary_inputs) - set(spec))
        if unknown:
            raise invalid("boundary_inputs", unknown, f"names among {sorted(spec)}", where=where)
        missing = sorted(n for n, f in spec.items() if f.required and n not in boundary_inputs)
        if missing:
            raise invalid("boundary_inputs", sorted(boundary_inputs), f"a dict that includes {missing}", where=where)
        if values:
            for name, value in boundary_inputs.items():
                spec[name].check(value, where=where)
        return dict(boundary_inputs)

    # -- behaviour ------------------------------------------------------------------
    def initial_state(self) -> dict[str, Any]:
        """The state at time zero."""
        raise NotImplementedError

    def update(
        self,
        state: Mapping[str, Any],
        boundary_inputs: Mapping[str, Any] | None,
        dt: float,
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Advance ``state`` by one step of ``dt`` seconds with the node's own scheme."""
        raise NotImplementedError

    def derivatives(
        self,
        state: Mapping[str, Any],
        boundary_inputs: Mapping[str, Any] | None,
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The continuous right-hand side: the time derivative of every state field."""
        raise NotImplementedError

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({inner})"
