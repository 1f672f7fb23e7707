"""The method of manufactured solutions for nodes (Roache 2002).

Pick an exact solution ``y*(t)``, work out the source that makes it solve the
node's equations, inject that source through the node's parameters at every
step, and measure how far the discrete solution ends from ``y*(T)``. The error
falls as ``dt^p`` for a scheme of order ``p``.

A ``ManufacturedSolution`` supplies the exact state and the injected parameters
as JAX-traceable functions of time. ``mms_error`` runs one rung with
``lax.scan``; ``mms_ladder`` runs several and returns the observed orders.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp

from maddening.core.node import Node
from maddening.errors import finite_number, whole_number
from maddening.verification.order import OrderLadder, observed_orders

__all__ = ["ManufacturedSolution", "Stepper", "mms_error", "mms_ladder", "relative_l2"]

Stepper = Callable[[Node, Mapping[str, Any], Mapping[str, Any] | None, Any, Mapping[str, Any]], dict]


@dataclass(frozen=True)
class ManufacturedSolution:
    """An exact solution and the source that produces it.

    Attributes:
        name: What the solution is, for tables.
        state: ``t -> {field: y*(t)}``, the exact state (traceable).
        params: ``t -> {param: value}``, the parameters to inject at time ``t``.
    """

    name: str
    state: Callable[[Any], dict[str, Any]]
    params: Callable[[Any], dict[str, Any]]


def relative_l2(state: Mapping[str, Any], exact: Mapping[str, Any]) -> Any:
    """``sqrt(sum_f |y_f - y*_f|^2) / sqrt(sum_f |y*_f|^2)`` over every field ``f`` together."""
    num = sum(jnp.sum((jnp.asarray(state[k]) - jnp.asarray(exact[k])) ** 2) for k in exact)
    den = sum(jnp.sum(jnp.asarray(exact[k]) ** 2) for k in exact)
    return jnp.sqrt(num / den)


def _update_stepper(node: Node, state: Mapping[str, Any], inputs: Any, dt: Any, params: Mapping[str, Any]) -> dict:
    return node.update(state, inputs, dt, params)


def mms_error(
    node: Node,
    solution: ManufacturedSolution,
    t_final: float,
    steps: int,
    *,
    stepper: Stepper | None = None,
    boundary_inputs: Mapping[str, Any] | None = None,
    error: Callable[[Mapping[str, Any], Mapping[str, Any]], Any] = relative_l2,
) -> float:
    """The error at ``t_final`` after ``steps`` equal steps from the exact initial state.

    The parameters are sampled at the start of each step. The state's dtype is
    the one ``solution.state(0.0)`` produces (float64 inside ``jax.enable_x64``).

    Args:
        node: The node under test.
        solution: The manufactured solution.
        t_final: The final time, s (a finite real number > 0; not a bool).
        steps: The number of steps (a whole number >= 1; not a bool).
        stepper: ``(node, state, boundary_inputs, dt, params) -> state``; default
            ``node.update``. Pass an integrator to verify it instead.
        boundary_inputs: The boundary inputs of every step.
        error: The error norm ``(state, exact) -> scalar``.

    Raises:
        maddening.ValidationError: ``steps`` or ``t_final`` not allowed, naming it.
    """
    # bool is an int in Python: True must not count as one step (or a final time of 1 s).
    whole_number(steps, "steps", "a whole number (int) >= 1", where="mms_error", kind=numbers.Integral)
    finite_number(t_final, "t_final", "a finite time > 0 (s)", where="mms_error", above=0, kind=numbers.Real)
    steps = int(steps)
    step = stepper or _update_stepper
    dt = t_final / steps
    start = {k: jnp.asarray(v) for k, v in solution.state(0.0).items()}
    times = jnp.arange(steps, dtype=jnp.result_type(*start.values())) * dt

    def body(state, t):
        return step(node, state, boundary_inputs, dt, solution.params(t)), None

    final, _ = jax.lax.scan(body, start, times)
    return float(error(final, solution.state(jnp.asarray(t_final, dtype=times.dtype))))


def mms_ladder(
    node: Node,
    solution: ManufacturedSolution,
    t_final: float,
    steps: Sequence[int],
    **options: Any,
) -> OrderLadder:
    """Run ``mms_error`` for every step count and return the observed orders."""
    errors = [mms_error(node, solution, t_final, int(n), **options) for n in steps]
    return observed_orders([t_final / n for n in steps], errors, steps)
