"""The pure step: advance a system by one step, locating and applying every crossing."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from skcomplex.core.elements import derivative_of
from skcomplex.core.interactions import CrossingInteraction
from skcomplex.core.system import System
from skcomplex.engine.events import locate_crossing

State = dict[str, Any]
TIE = 1e-12  # crossings within TIE * (rest of the step) of the earliest are simultaneous (a corner);
# a rest of the step shorter than TIE * dt is advanced without a search.
SLIDE = 1e-10  # on a wall, a departure speed below SLIDE * the impact speed is sliding (e = 0)


@dataclass(frozen=True)
class StepOptions:
    """Static options of the compiled step."""

    max_events: int
    subdivisions: int
    iterations: int
    differentiable: bool
    record: bool


def chains_of(states: dict[str, Any]) -> list[list[str]]:
    """Group state names into derivative chains ``[x, x_d1, x_d2, ...]``, lowest first."""
    chains: dict[str, dict[int, str]] = {}
    for name in states:
        base, order = derivative_of(name)
        chains.setdefault(base, {})[order] = name
    return [[orders[k] for k in sorted(orders)] for orders in chains.values()]


def advance_states(states: dict[str, Any], chains: list[list[str]], tau: Any) -> dict[str, Any]:
    """The exact Taylor polynomial of each chain after a time ``tau``.

    The ``i``-th derivative becomes ``sum_j q_dj tau**(j - i) / (j - i)!``; the
    highest derivative is constant.
    """
    out = dict(states)
    for chain in chains:
        top = len(chain) - 1
        for i in range(top):
            value = states[chain[i]]
            power = jnp.ones_like(tau)
            for j in range(i + 1, top + 1):
                power = power * tau
                value = value + states[chain[j]] * (power / math.factorial(j - i))
            out[chain[i]] = value
    return out


def build_step(system: System, options: StepOptions) -> Callable[..., tuple[State, dict[str, Any]]]:
    """Build the pure step ``step(state, params, dt) -> (state, info)`` for ``system``.

    ``state`` is ``{'t': time, 'elements': {label: {name: array}}, 'on_wall':
    bool[n_crossings], 'scale': float[n_crossings]}`` (``on_wall`` flags the
    walls the point sits on after an event, ``scale`` keeps each wall's last
    impact speed, the reference for telling a slide from a departure); ``params`` is ``{interaction_label: {name: value}}``.
    ``info`` holds ``events`` (the number of crossings located in the step),
    ``overflow`` (the step could not be finished within ``max_events``) and,
    when recording, ``log`` (time, hits, acted and post-event states of each
    event slot).
    """
    crossings = [i for i in system.interactions if isinstance(i, CrossingInteraction)]
    chains = {e.label: chains_of(e.states) for e in system.elements}
    slots = options.max_events + 1

    def located(elements: dict, remaining: Any, on_wall: Any, scale: Any) -> tuple[Any, ...]:
        frozen = lax.stop_gradient(elements)
        founds, taus, impacts, slides = [], [], [], []
        for k, interaction in enumerate(crossings):
            label = interaction.target

            def path(tau, interaction=interaction, label=label, source=elements):
                return interaction.guard_value(advance_states(source[label], chains[label], tau))

            def search(tau, interaction=interaction, label=label):
                return interaction.guard_value(advance_states(frozen[label], chains[label], tau))

            found, tau, impact, sliding = locate_crossing(
                path, remaining, direction=interaction.direction, on_wall=on_wall[k],
                search_path=search, slide_floor=SLIDE * scale[k],
                subdivisions=options.subdivisions, iterations=options.iterations,
            )
            founds.append(found)
            taus.append(tau)
            impacts.append(impact)
            slides.append(sliding)
        return jnp.stack(founds), jnp.stack(taus), jnp.stack(impacts), jnp.stack(slides)

    def iteration(carry: dict, params: dict) -> dict:
        elements, remaining, on_wall = carry["elements"], carry["remaining"], carry["on_wall"]
        scale = carry["scale"]
        if not crossings:
            found = jnp.zeros((0,), dtype=bool)
            any_found = jnp.asarray(False)
            earliest = remaining
            hits = sliding = found
        else:
            found, taus, impacts, sliding = located(elements, remaining, on_wall, scale)
            found = found & (lax.stop_gradient(remaining) > TIE * carry["dt"])
            times = jnp.where(found, taus, jnp.inf)
            earliest = jnp.min(times)
            any_found = jnp.any(found)
            hits = found & (times - earliest <= TIE * lax.stop_gradient(remaining))
        advance = jnp.where(any_found, earliest, remaining)
        moved = {label: advance_states(s, chains[label], advance) for label, s in elements.items()}
        acted = []
        for k, interaction in enumerate(crossings):
            label = interaction.target
            before = moved[label]
            acts = hits[k] & interaction.active(before)
            after = interaction.act(before, params.get(interaction.label, {}))
            moved[label] = {n: jnp.where(acts, after[n], before[n]) for n in before}
            acted.append(acts)
        acted = jnp.stack(acted) if acted else hits
        tiny = advance <= TIE * carry["dt"]
        new = dict(carry)
        new["elements"] = moved
        new["on_wall"] = hits | (on_wall & (sliding | (tiny & ~any_found)))
        if crossings:
            new["scale"] = jnp.where(hits, impacts, scale)
        new["remaining"] = jnp.where(any_found, remaining - earliest, jnp.zeros_like(remaining))
        new["events"] = carry["events"] + any_found.astype(carry["events"].dtype)
        new["iteration"] = carry["iteration"] + 1
        if options.record:
            slot = jnp.minimum(carry["events"], slots - 1)
            log = carry["log"]
            time = carry["t"] + (carry["dt"] - remaining) + earliest

            def put(array, value):
                return array.at[slot].set(jnp.where(any_found, value, array[slot]))

            new["log"] = {
                "time": put(log["time"], time),
                "hits": put(log["hits"], hits),
                "acted": put(log["acted"], acted),
                "elements": jax.tree_util.tree_map(put, log["elements"], moved),
            }
        return new

    def step(state: State, params: dict, dt: Any) -> tuple[State, dict[str, Any]]:
        dt = jnp.asarray(dt, dtype=jnp.result_type(float))
        carry = {
            "t": jnp.asarray(state["t"], dtype=dt.dtype),
            "dt": dt,
            "elements": state["elements"],
            "on_wall": jnp.asarray(state["on_wall"], dtype=bool),
            "scale": jnp.asarray(state["scale"], dtype=dt.dtype),
            "remaining": dt,
            "events": jnp.asarray(0, dtype=jnp.int32),
            "iteration": jnp.asarray(0, dtype=jnp.int32),
        }
        if options.record:
            carry["log"] = {
                "time": jnp.full((slots,), jnp.nan, dtype=dt.dtype),
                "hits": jnp.zeros((slots, len(crossings)), dtype=bool),
                "acted": jnp.zeros((slots, len(crossings)), dtype=bool),
                "elements": jax.tree_util.tree_map(
                    lambda a: jnp.zeros((slots,) + jnp.shape(a), dtype=jnp.result_type(a)),
                    state["elements"],
                ),
            }

        def busy(c: dict) -> Any:
            return (c["remaining"] > 0) & (c["iteration"] < slots)

        if options.differentiable:
            def body(_: int, c: dict) -> dict:
                return lax.cond(busy(c), lambda c: iteration(c, params), lambda c: c, c)

            carry = lax.fori_loop(0, slots, body, carry)
        else:
            carry = lax.while_loop(busy, lambda c: iteration(c, params), carry)
        out = {"t": carry["t"] + dt, "elements": carry["elements"], "on_wall": carry["on_wall"],
               "scale": carry["scale"]}
        info = {
            "events": carry["events"],
            "overflow": (carry["remaining"] > 0) | (carry["events"] > options.max_events),
        }
        if options.record:
            info["log"] = carry["log"]
        return out, info

    return step
