"""Second-order and implicit one-step schemes: central differences, backward Euler, trapezoidal.

Importing this module registers three more names in
``maddening.core.simulation.integrators.METHODS``. Write ``f`` for the node's
right-hand side (``node.derivatives``), ``y`` for the whole state, ``h`` for the
step and, for each declared pair, ``x`` for the position and ``v`` for its rate
(``StateField(..., rate_of=...)``):

- ``"central_difference"`` (Störmer–Verlet, leapfrog, in velocity form)::

      v_half = v_n + (h/2) a(x_n, v_n)
      x_{n+1} = x_n + h v_half
      v_{n+1} = v_half + (h/2) a(x_{n+1}, v_half)

  With ``a = -w^2 x`` this is the recurrence ``x_{n+1} - 2 x_n + x_{n-1} = -h^2 w^2 x_n``.
  Fields outside any pair advance by forward Euler.
- ``"backward_euler"``: ``y_{n+1} = y_n + h f(y_{n+1})``.
- ``"trapezoidal"``: ``y_{n+1} = y_n + (h/2) (f(y_n) + f(y_{n+1}))``.

The implicit equations are solved by Newton's method on the flattened state,
its Jacobian from ``jax.jacfwd``. The first iterate starts from ``y_n``; for a
right-hand side that is linear in the state (affine, with the boundary inputs
held over the step) that first iterate is already the exact solution, and the
further ``NEWTON_STEPS - 1`` iterates only polish rounding. A fixed count keeps
the step traceable under ``jit``, ``grad``, ``vmap`` and ``lax.scan``.

>>> import jax
>>> from maddening.analysis import OscillatorNode
>>> from maddening.core.simulation.integrators import integrate_node
>>> with jax.enable_x64(True):
...     node = OscillatorNode(omega=1.0)
...     out = integrate_node(node, {"position": 1.0, "velocity": 0.0}, None, 1.0, method="backward_euler")
>>> [round(float(out["position"]), 12), round(float(out["velocity"]), 12)]
[0.5, -0.5]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree

from maddening.core.node import Node, as_state_dtype
from maddening.core.simulation._methods import register_method
from maddening.errors import ValidationError

__all__ = ["NEWTON_STEPS", "backward_euler", "central_difference", "trapezoidal"]

NEWTON_STEPS = 4
"""Newton iterations per implicit step (the first is exact for a linear right-hand side)."""


def _pairs_or_raise(node: Node, method: str) -> tuple[tuple[str, str], ...]:
    pairs = node.second_order_pairs()
    if not pairs:
        raise ValidationError(
            f"integrate_node: method = {method!r} is not allowed for {type(node).__name__}; "
            "expected a node whose state declares a rate field (StateField(..., rate_of=...))"
        )
    return pairs


def _step(value: Any, rate: Any, dt: Any) -> Any:
    return (jnp.asarray(value) + as_state_dtype(dt, value) * as_state_dtype(rate, value)).astype(
        jnp.result_type(value)
    )


@register_method("central_difference")
def central_difference(node: Node, state: Mapping[str, Any], boundary_inputs: Mapping[str, Any] | None,
                       dt: Any, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Störmer–Verlet (velocity form): half kick, drift with the half-step rate, half kick."""
    pairs = _pairs_or_raise(node, "central_difference")
    positions = {p for p, _ in pairs}
    rates = {r for _, r in pairs}
    half = 0.5 * dt
    first = node.derivatives(state, boundary_inputs, params)
    mid = {r: _step(state[r], first[r], half) for r in rates}
    drift = node.derivatives({**state, **mid}, boundary_inputs, params)
    new = {p: _step(state[p], drift[p], dt) for p in positions}
    others = {n: _step(state[n], first[n], dt) for n in state if n not in positions and n not in rates}
    second = node.derivatives({**state, **others, **mid, **new}, boundary_inputs, params)
    new.update({r: _step(mid[r], second[r], half) for r in rates})
    new.update(others)
    return {name: new[name] for name in state}


def _implicit(node: Node, state: Mapping[str, Any], boundary_inputs: Mapping[str, Any] | None,
              dt: Any, params: Mapping[str, Any] | None, theta: float) -> dict[str, Any]:
    """Solve ``y1 = y0 + h ((1 - theta) f(y0) + theta f(y1))`` by Newton from ``y0``."""
    state = dict(state)
    y0, unravel = ravel_pytree(state)
    h = jnp.asarray(dt, dtype=y0.dtype)

    def rhs(y: Any) -> Any:
        return ravel_pytree(node.derivatives(unravel(y), boundary_inputs, params))[0].astype(y0.dtype)

    explicit = y0 + h * (1.0 - theta) * rhs(y0) if theta != 1.0 else y0

    def residual(y: Any) -> Any:
        return y - explicit - h * theta * rhs(y)

    def newton(y: Any, _: Any) -> tuple[Any, None]:
        jac = jax.jacfwd(residual)(y)
        return y - jnp.linalg.solve(jac, residual(y)), None

    y1, _ = jax.lax.scan(newton, y0, None, length=NEWTON_STEPS)
    out = unravel(y1)
    return {name: jnp.asarray(out[name]).astype(jnp.result_type(state[name])) for name in state}


@register_method("backward_euler")
def backward_euler(node: Node, state: Mapping[str, Any], boundary_inputs: Mapping[str, Any] | None,
                   dt: Any, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Backward Euler: ``y_{n+1} = y_n + h f(y_{n+1})``, solved by Newton."""
    return _implicit(node, state, boundary_inputs, dt, params, theta=1.0)


@register_method("trapezoidal")
def trapezoidal(node: Node, state: Mapping[str, Any], boundary_inputs: Mapping[str, Any] | None,
                dt: Any, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Trapezoidal rule: ``y_{n+1} = y_n + (h/2)(f(y_n) + f(y_{n+1}))``, solved by Newton."""
    return _implicit(node, state, boundary_inputs, dt, params, theta=0.5)
