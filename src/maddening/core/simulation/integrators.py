"""Generic one-step integrators that advance a node from its ``derivatives()``.

``integrate_node`` looks the scheme up by name in ``METHODS``; a scheme is a
function ``(node, state, boundary_inputs, dt, params) -> new_state`` registered
with ``register_method``. Every scheme is a pure JAX function of the state, so it
traces under ``jit``, ``grad``, ``vmap`` and ``lax.scan``.

Two schemes live here:

- ``"euler"`` (forward Euler): ``y_{n+1} = y_n + dt * f(y_n)`` for every field.
- ``"symplectic_euler"`` (semi-implicit Euler): the rate fields advance first,
  ``v_{n+1} = v_n + dt * f_v(x_n, v_n)``, then the fields they are rates of advance
  with the new rates, ``x_{n+1} = x_n + dt * f_x(x_n, v_{n+1})``. The pairs come
  from ``StateField.rate_of``. Fields outside any pair advance by forward Euler.

Each new field is returned in the dtype of the field it replaces.

>>> import jax.numpy as jnp
>>> from maddening.nodes import BallNode
>>> ball = BallNode(initial_position=1.0)
>>> out = integrate_node(ball, ball.initial_state(), {}, 0.1, method="euler")
>>> [round(float(out["position"]), 6), round(float(out["velocity"]), 6)]
[1.0, -0.981]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax.numpy as jnp

from maddening.core.node import Node, as_state_dtype, check_timestep
from maddening.core.simulation._methods import METHODS, Method, register_method
from maddening.errors import ValidationError, invalid

__all__ = ["METHODS", "Method", "integrate_node", "register_method"]


def integrate_node(
    node: Node,
    state: Mapping[str, Any],
    boundary_inputs: Mapping[str, Any] | None,
    dt: Any,
    method: str = "euler",
    params: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Advance ``state`` by one step of ``dt`` seconds from ``node.derivatives()``.

    Args:
        node: The node whose right-hand side is integrated.
        state: Its current state, one entry per declared state field.
        boundary_inputs: The node's boundary inputs for this step (``None`` for none).
        dt: The time step in seconds (a concrete value must be finite and > 0).
        method: A name in ``METHODS``.
        params: Parameters injected over ``node.params`` for this step.

    Returns:
        The new state, each field in the dtype of the old one.

    Raises:
        maddening.ValidationError: An unknown ``method``, a bad ``dt``, a state whose fields are
            not the node's or whose concrete values its fields do not allow, or a concrete boundary
            input or injected parameter the node does not allow.
    """
    if not isinstance(method, str) or method not in METHODS:
        raise invalid("method", method, f"one of {sorted(METHODS)}", where="integrate_node")
    if not isinstance(node, Node):
        raise invalid("node", node, "a maddening.core.Node", where="integrate_node")
    node.check_state(state, values=True)
    node.check_boundary_inputs(boundary_inputs, values=True)
    node.resolve_params(params)  # a concrete injected value its ParamField does not allow is refused
    check_timestep(dt, where="integrate_node")
    return METHODS[method](node, state, boundary_inputs, dt, params)


def _advance(value: Any, rate: Any, dt: Any) -> Any:
    return (jnp.asarray(value) + as_state_dtype(dt, value) * as_state_dtype(rate, value)).astype(
        jnp.result_type(value)
    )


@register_method("euler")
def forward_euler(node: Node, state: Mapping[str, Any], boundary_inputs: Mapping[str, Any] | None,
                  dt: Any, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Forward Euler: every field advances with the right-hand side at the old state."""
    rates = node.derivatives(state, boundary_inputs, params)
    return {name: _advance(state[name], rates[name], dt) for name in state}


@register_method("symplectic_euler")
def symplectic_euler(node: Node, state: Mapping[str, Any], boundary_inputs: Mapping[str, Any] | None,
                     dt: Any, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Semi-implicit Euler: rates first, then the fields they are rates of, with the new rates."""
    pairs = node.second_order_pairs()
    if not pairs:
        raise ValidationError(
            f"integrate_node: method = 'symplectic_euler' is not allowed for {type(node).__name__}; "
            "expected a node whose state declares a rate field (StateField(..., rate_of=...))"
        )
    positions = {p for p, _ in pairs}
    first = node.derivatives(state, boundary_inputs, params)
    new = {name: _advance(state[name], first[name], dt) for name in state if name not in positions}
    second = node.derivatives({**state, **new}, boundary_inputs, params)
    for name in positions:
        new[name] = _advance(state[name], second[name], dt)
    return {name: new[name] for name in state}


from maddening.core.simulation import _second_order_schemes  # noqa: E402,F401  (registers more methods)
