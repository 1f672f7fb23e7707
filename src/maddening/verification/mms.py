"""The method of manufactured solutions for nodes (Roache 2002).

Pick an exact solution ``y*(t)``, work out the source that makes it solve the
node's equations, inject that source through the node's parameters at every
step, and measure how far the discrete solution ends from ``y*(T)``. The error
falls as ``dt^p`` for a scheme of order ``p``.

A ``ManufacturedSolution`` supplies the exact state and the injected parameters
as JAX-traceable functions of time. ``mms_error`` runs one rung; ``mms_ladder``
runs several and returns the observed orders. Every rung of a ladder runs in one
compiled program (the rungs side by side under ``vmap``, each ``lax.scan`` as
long as the longest rung, the shorter ones holding their final state), so a
ladder costs one compilation, not one per rung.

Where in each step the injected parameters are sampled is part of the scheme
under test: sampled at the step's start (``sample=0``) a time-varying source is
itself a first-order approximation, which caps every scheme at order one; sampled
at its middle (``sample=0.5``) it is second order, and the scheme's own order shows.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp

from maddening.core.node import Node
from maddening.errors import finite_number, invalid, whole_number
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
    """``sqrt(sum_f |y_f - y*_f|^2) / sqrt(sum_f |y*_f|^2)`` over every field ``f`` together.

    Raises ``maddening.ValidationError`` for a ``state`` without one of ``exact``'s fields, and for a concrete
    ``exact`` state of zero norm, against which no error is relative.
    """
    if not isinstance(exact, Mapping) or not exact:
        raise invalid("exact", exact, "a non-empty mapping of the exact state's fields", where="relative_l2")
    missing = sorted(set(exact) - set(state)) if isinstance(state, Mapping) else None
    if missing is None or missing:
        raise invalid("state", sorted(state) if isinstance(state, Mapping) else state,
                      f"a mapping with every field of exact ({sorted(exact)})", where="relative_l2")
    num = sum(jnp.sum((jnp.asarray(state[k]) - jnp.asarray(exact[k])) ** 2) for k in exact)
    den = sum(jnp.sum(jnp.asarray(exact[k]) ** 2) for k in exact)
    if not isinstance(den, jax.core.Tracer) and not float(den) > 0:
        raise invalid("exact", "<a state of norm 0>", "an exact state of norm > 0 (the error is relative to it)",
                      where="relative_l2")
    return jnp.sqrt(num / den)


def _update_stepper(node: Node, state: Mapping[str, Any], inputs: Any, dt: Any, params: Mapping[str, Any]) -> dict:
    return node.update(state, inputs, dt, params)


def _errors(node: Node, solution: ManufacturedSolution, t_final: float, steps: Sequence[int], *,
            stepper: Stepper | None, boundary_inputs: Mapping[str, Any] | None,
            error: Callable[[Mapping[str, Any], Mapping[str, Any]], Any], sample: float, where: str) -> list[float]:
    """The error at ``t_final`` of every rung, in one compiled program (see the module docstring)."""
    finite_number(t_final, "t_final", "a finite time > 0 (s)", where=where, above=0, kind=numbers.Real)
    for n in steps:
        # bool is an int in Python: True must not count as one step (or a final time of 1 s).
        whole_number(n, "steps", "a whole number (int) >= 1", where=where, kind=numbers.Integral)
    sample = finite_number(sample, "sample", "a fraction of the step in [0, 1]", where=where, at_least=0,
                           kind=numbers.Real)
    if sample > 1:
        raise invalid("sample", sample, "a fraction of the step in [0, 1]", where=where)
    step = stepper or _update_stepper
    counts = [int(n) for n in steps]
    start = {k: jnp.asarray(v) for k, v in solution.state(0.0).items()}
    dtype = jnp.result_type(*start.values())
    end = solution.state(jnp.asarray(t_final, dtype=dtype))

    def rung(dt, count):
        def body(state, n):
            new = step(node, state, boundary_inputs, dt, solution.params((n + sample) * dt))
            live = n < count  # a shorter rung has ended: it holds its final state
            return {k: jnp.where(live, new[k], state[k]) for k in state}, None

        final, _ = jax.lax.scan(body, start, jnp.arange(max(counts)))
        return error(final, end)

    dts = jnp.asarray([t_final / n for n in counts], dtype=dtype)
    return [float(e) for e in jax.jit(jax.vmap(rung))(dts, jnp.asarray(counts))]


def mms_error(
    node: Node,
    solution: ManufacturedSolution,
    t_final: float,
    steps: int,
    *,
    stepper: Stepper | None = None,
    boundary_inputs: Mapping[str, Any] | None = None,
    error: Callable[[Mapping[str, Any], Mapping[str, Any]], Any] = relative_l2,
    sample: float = 0.0,
) -> float:
    """The error at ``t_final`` after ``steps`` equal steps from the exact initial state.

    The parameters of step ``n`` are ``solution.params((n + sample) dt)``: sampled at
    the step's start by default. The state's dtype is the one ``solution.state(0.0)``
    produces (float64 inside ``jax.enable_x64``).

    Args:
        node: The node under test.
        solution: The manufactured solution.
        t_final: The final time, s (a finite real number > 0; not a bool).
        steps: The number of steps (a whole number >= 1; not a bool).
        stepper: ``(node, state, boundary_inputs, dt, params) -> state``; default
            ``node.update``. Pass an integrator to verify it instead.
        boundary_inputs: The boundary inputs of every step.
        error: The error norm ``(state, exact) -> scalar``.
        sample: Where in each step the parameters are sampled, as a fraction of
            the step in ``[0, 1]`` (0: its start, 0.5: its middle).

    Raises:
        maddening.ValidationError: ``steps``, ``t_final`` or ``sample`` not allowed, naming it.
    """
    return _errors(node, solution, t_final, [steps], stepper=stepper, boundary_inputs=boundary_inputs,
                   error=error, sample=sample, where="mms_error")[0]


def mms_ladder(
    node: Node,
    solution: ManufacturedSolution,
    t_final: float,
    steps: Sequence[int],
    *,
    stepper: Stepper | None = None,
    boundary_inputs: Mapping[str, Any] | None = None,
    error: Callable[[Mapping[str, Any], Mapping[str, Any]], Any] = relative_l2,
    sample: float = 0.0,
) -> OrderLadder:
    """``mms_error`` for every step count, in one compiled program, and the observed orders.

    The arguments are those of :func:`mms_error`, with ``steps`` a sequence of step
    counts (at least two, distinct).
    """
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence) or len(steps) < 2:
        raise invalid("steps", steps, "a sequence of at least two step counts", where="mms_ladder")
    errors = _errors(node, solution, t_final, steps, stepper=stepper, boundary_inputs=boundary_inputs,
                     error=error, sample=sample, where="mms_ladder")
    return observed_orders([t_final / n for n in steps], errors, steps)
