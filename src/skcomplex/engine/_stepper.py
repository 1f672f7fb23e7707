"""The pure step: advance a system by one step, locating and applying every crossing."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax import lax

from skcomplex.core.elements import derivative_of
from skcomplex.core.interactions import CrossingInteraction
from skcomplex.core.system import System
from skcomplex.engine.events import locate_crossing
from skcomplex.exceptions import ValidationError

State = dict[str, Any]
TIE = 1e-12  # crossings within TIE * (rest of the step) of the earliest are simultaneous (a corner);
# a rest of the step shorter than TIE * dt is advanced without a search.
SLIDE = 1e-10  # on a wall, a departure speed at or below SLIDE * the impact speed is sliding (e <= SLIDE); a
# point sliding there whose speed into the wall grows past it is pressed into the wall (RestingContactError)

#: Sweeps over the holding walls hit in the same instant (a vertex) after the first, each wall acting again where the
#: point moves into it again: a vertex whose walls would turn the point more than ``1 + VERTEX_SWEEPS`` times on any
#: one wall leaves it moving into one, and the run stops there (``RestingContactError``).
VERTEX_SWEEPS = 2


@dataclass(frozen=True)
class StepOptions:
    """Static options of the compiled step."""

    max_events: int
    subdivisions: int
    iterations: int
    differentiable: bool
    record: bool
    capacity: int | None = None  # only for ``build_batched_step``: the compaction buffer (None: automatic)


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


class StepParts(NamedTuple):
    """The pieces of the step of one point, shared by the per-point and the batched step.

    ``start(state, dt)`` builds the loop carry, ``busy(carry)`` tells whether the
    point has time left in the step (and event slots to use), ``iteration(carry,
    params)`` is one event pass (locate the earliest crossing in the rest of the
    step, advance to it, act), ``finish(carry)`` returns ``(state, info)``.
    """

    start: Callable[..., dict]
    busy: Callable[[dict], Any]
    iteration: Callable[[dict, dict], dict]
    finish: Callable[[dict], tuple[State, dict[str, Any]]]


def build_parts(system: System, options: StepOptions) -> StepParts:
    """The per-point pieces of the step for ``system`` (see ``build_step`` for the state)."""
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
                search_path=search, slide_floor=SLIDE * jnp.abs(scale[k]),
                subdivisions=options.subdivisions, iterations=options.iterations,
            )
            founds.append(found)
            taus.append(tau)
            impacts.append(impact)
            slides.append(sliding)
        return jnp.stack(founds), jnp.stack(taus), jnp.stack(impacts), jnp.stack(slides)

    samples = options.subdivisions

    def walls_at(elements: dict, at: Any) -> tuple[Any, Any, Any]:
        # every wall's guard g, its rate dg/dtau and whether the wall acts there (its region), along the exact
        # path from ``elements`` at the search's sample times tau_i = at i / subdivisions, i = 0 .. subdivisions
        # (no gradient): arrays of shape (subdivisions + 1, n_crossings). Computed apart from the step's own
        # path (behind an optimization barrier), so that XLA fuses the step's arithmetic as it would without
        # them: the step's results keep every bit.
        frozen, at = lax.optimization_barrier((lax.stop_gradient(elements), lax.stop_gradient(at)))
        taus = at * jnp.linspace(0.0, 1.0, samples + 1, dtype=at.dtype)
        values, rates, acting = [], [], []
        for interaction in crossings:
            label, chain = interaction.target, chains[interaction.target]

            def guard(tau, i=interaction, s=frozen[label], c=chain):
                return i.guard_value(advance_states(s, c, tau))

            value, rate = jax.vmap(lambda tau, g=guard: jax.jvp(g, (tau,), (jnp.ones_like(tau),)))(taus)
            values.append(value)
            rates.append(rate)
            acting.append(jax.vmap(lambda tau, i=interaction, s=frozen[label], c=chain:
                                   i.active(advance_states(s, c, tau)))(taus))
        return jnp.stack(values, axis=-1), jnp.stack(rates, axis=-1), jnp.stack(acting, axis=-1)

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
        if crossings:
            # each wall's guard, rate and region along the advance (its last sample the end, before this pass's
            # reflections), and the side a hit crosses into: the wall's direction, or for direction 0 the way
            # the guard moves there
            values, rates, acting = walls_at(elements, advance)
            rate = rates[-1]
            directions = jnp.asarray([float(i.direction) for i in crossings], dtype=scale.dtype)
            undirected = directions == 0
            holds = jnp.asarray([i.holds for i in crossings])
            into = jnp.where(undirected, jnp.sign(rate), directions)
            # A holding wall not hit whose guard is within TIE * (rest of the step) * (its rate into the wall) of
            # zero, on either side (the point reaches it within TIE of this event), is hit in the same instant. At a
            # vertex reached on a step's end the second wall's crossing can fall a rounding past the step, and it
            # would otherwise be hit alone first thing in the next step, turning the point into the first wall
            # unwatched.
            reach = rate * into
            near = holds & ~hits & any_found & (reach > 0) & (
                jnp.abs(values[-1] * into) <= TIE * lax.stop_gradient(remaining) * reach)
            hits = hits | near
            impacts = jnp.where(near, reach, impacts)
            # Where a hit wall acts is read at the hit and just past it (TIE of the rest of the step later, on the
            # path without this pass's reflections): at a vertex of two walls whose regions end there, rounding can
            # put the hit a hair outside one region, and that wall acts where the point would go on into it.
            later = {label: advance_states(lax.stop_gradient(s), chains[label],
                                           lax.stop_gradient(advance + TIE * remaining))
                     for label, s in elements.items()}
        # The hit walls act in the system's order. A wall that holds the point acts only while the point still
        # moves into it (faster than the slide floor of its own impact), once another holding wall has acted in
        # this pass: at a vertex (two walls hit at once, at other than a right angle) the first reflection can
        # already send the point away from the second wall, and reflecting it there as well would turn it into
        # that wall (SKC-ANO-004). Then up to VERTEX_SWEEPS more sweeps over the holding walls hit, each acting
        # where the point moves into it again, as it can in a narrow vertex; one still moved into after them
        # stops the run at the next pass (the pressed check's `turned`). The first holding wall to act does so
        # regardless of its rate, so that a single hit keeps every bit.
        def moving_in(k: int, states: dict) -> Any:
            interaction, label = crossings[k], crossings[k].target
            frozen = lax.stop_gradient(states[label])
            _, rate_k = jax.jvp(lambda tau: interaction.guard_value(advance_states(frozen, chains[label], tau)),
                                (jnp.zeros_like(advance),), (jnp.ones_like(advance),))
            return rate_k * into[k] > SLIDE * lax.stop_gradient(impacts[k])

        def sweep(states: dict, acted: tuple, held: Any, first: Any) -> tuple[dict, tuple, Any, Any]:
            # one sweep over the hit walls: (states, acted so far, whether a holding wall acted yet, any act in it)
            states, acted, any_acts = dict(states), list(acted), jnp.asarray(False)
            for k, interaction in enumerate(crossings):
                label = interaction.target
                before = states[label]
                acts = hits[k] & (interaction.active(before) | interaction.active(later[label]))
                if interaction.holds:
                    acts = acts & ((first & ~held) | moving_in(k, states))
                    held = held | acts
                else:  # an event marker acts once, in the first sweep
                    acts = acts & first
                after = interaction.act(before, params.get(interaction.label, {}))
                states[label] = {n: jnp.where(acts, after[n], before[n]) for n in before}
                acted[k] = acted[k] | acts
                any_acts = any_acts | acts
            return states, tuple(acted), held, any_acts

        acted = (jnp.asarray(False),) * len(crossings)
        if int(sum(i.holds for i in crossings)) > 1:
            # another sweep only after a sweep that acted with two holding walls hit (a vertex): a point hit on
            # one wall, the common case, takes one sweep, so a batch (vmap) takes more only while one of its
            # points is at a vertex. The differentiable step takes them all (a fixed count, for reverse mode).
            vertex = jnp.sum(hits & holds) > 1

            def again(c: tuple) -> tuple:
                states, acted, held, s, _ = c
                states, acted, held, any_acts = sweep(states, acted, held, s == 0)
                return states, acted, held, s + 1, vertex & any_acts

            def more(c: tuple) -> Any:
                return (c[3] == 0) | (c[4] & (c[3] < 1 + VERTEX_SWEEPS))

            start = (moved, acted, jnp.asarray(False), jnp.asarray(0, jnp.int32), jnp.asarray(True))
            if options.differentiable:
                moved, acted, *_ = lax.fori_loop(0, 1 + VERTEX_SWEEPS, lambda _, c: again(c), start)
            else:
                moved, acted, *_ = lax.while_loop(more, again, start)
        else:
            moved, acted, _, _ = sweep(moved, acted, jnp.asarray(False), jnp.asarray(True))
        acted = jnp.stack(list(acted)) if crossings else hits
        tiny = advance <= TIE * carry["dt"]
        new = dict(carry)
        new["elements"] = moved
        # on a wall after this pass: hit, sliding along it (a start exactly on it at rest included), or kept
        # through a pass too short to leave it
        new["on_wall"] = hits | sliding | (on_wall & tiny & ~any_found)
        if crossings:
            # the last impact's guard rate, its sign the side crossed into (its size sets the slide floor)
            new["scale"] = jnp.where(hits, into * impacts, scale)
            # Pressed: a point on a wall that holds it, moving into the wall faster than the slide floor where
            # the wall acts, with no crossing left to locate. A reflection holds no resting contact: the search
            # takes a point on a wall as leaving it, and would let it through, so the step reports it instead.
            # Two ways in:
            # - sliding along the wall (on it with no normal speed: left there by a restitution at or below
            #   SLIDE, or started there at rest), pressed in during the pass by its acceleration or the wall's
            #   curve: judged at the first sample time where the point moves in, where the wall must act (past
            #   the edge of a region, or through a hole, the point is free to go);
            # - on the wall at the start of the pass (after a hit or a slide, or exactly on it), moving in:
            #   another wall's reflection in the previous pass turned it (a corner), or it started so.
            # Into the wall is the wall's direction; for direction 0, the side its last impact crossed into, or
            # for a wall never hit (a start at rest on it) the side the point moves to.
            floor = SLIDE * jnp.abs(scale)
            side = jnp.where(undirected, jnp.where(scale == 0, jnp.sign(rate), jnp.sign(scale)), directions)
            inward = rates[1:] * side > floor
            first = jnp.argmax(inward, axis=0)
            acting_first = jnp.take_along_axis(acting[1:], first[None], axis=0)[0]
            pressed = sliding & ~hits & jnp.any(inward, axis=0) & acting_first
            on_start = on_wall | (values[0] == 0)
            turned = on_start & acting[0] & (rates[0] * jnp.where(undirected, jnp.sign(scale), directions) > floor)
            new["pressed"] = carry["pressed"] | (holds & (pressed | turned))
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

    def start(state: State, dt: Any) -> dict:
        carry = {
            "t": jnp.asarray(state["t"], dtype=dt.dtype),
            "dt": dt,
            "elements": state["elements"],
            "on_wall": jnp.asarray(state["on_wall"], dtype=bool),
            "scale": jnp.asarray(state["scale"], dtype=dt.dtype),
            "pressed": jnp.zeros(jnp.shape(state["on_wall"]), dtype=bool),
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
        return carry

    def busy(c: dict) -> Any:
        return (c["remaining"] > 0) & (c["iteration"] < slots)

    def finish(carry: dict) -> tuple[State, dict[str, Any]]:
        out = {"t": carry["t"] + carry["dt"], "elements": carry["elements"], "on_wall": carry["on_wall"],
               "scale": carry["scale"]}
        info = {
            "events": carry["events"],
            "overflow": (carry["remaining"] > 0) | (carry["events"] > options.max_events),
            "pressed": carry["pressed"],
        }
        if options.record:
            info["log"] = carry["log"]
        return out, info

    return StepParts(start, busy, iteration, finish)


def build_step(system: System, options: StepOptions) -> Callable[..., tuple[State, dict[str, Any]]]:
    """Build the pure step ``step(state, params, dt) -> (state, info)`` for ``system``.

    ``state`` is ``{'t': time, 'elements': {label: {name: array}}, 'on_wall':
    bool[n_crossings], 'scale': float[n_crossings]}`` (``on_wall`` flags the
    walls the point sits on after an event, ``scale`` keeps each wall's last
    impact rate ``dg/dt``: its size is the reference for telling a slide from a
    departure, its sign the side the point crossed into); ``params`` is
    ``{interaction_label: {name: value}}``.
    ``info`` holds ``events`` (the number of crossings located in the step),
    ``overflow`` (the step could not be finished within ``max_events``),
    ``pressed`` (bool[n_crossings]: a wall that ``holds`` which the point sat on
    while it moved into the wall where the wall acts, with no crossing left to
    locate, so that it would pass through: sliding along it with no normal speed
    (reflected there by a restitution at or below ``SLIDE``, or started there at
    rest) when its acceleration or the wall's curve pressed it in, or turned into
    it by another wall's reflection, or left moving into one at a vertex too narrow for
    ``VERTEX_SWEEPS``; a reflection holds no resting contact) and, when
    recording, ``log`` (time, hits, acted and post-event states of each event
    slot).
    """
    parts = build_parts(system, options)

    def step(state: State, params: dict, dt: Any) -> tuple[State, dict[str, Any]]:
        dt = jnp.asarray(dt, dtype=jnp.result_type(float))
        carry = parts.start(state, dt)
        if options.differentiable:
            def body(_: int, c: dict) -> dict:
                return lax.cond(parts.busy(c), lambda c: parts.iteration(c, params), lambda c: c, c)

            carry = lax.fori_loop(0, options.max_events + 1, body, carry)
        else:
            carry = lax.while_loop(parts.busy, lambda c: parts.iteration(c, params), carry)
        return parts.finish(carry)

    return step


def default_capacity(n_points: int) -> int:
    """The compaction buffer of ``build_batched_step`` for a batch of ``n_points``: 1/32 of it, at least 1."""
    return max(1, -(-n_points // 32))


def build_batched_step(system: System, options: StepOptions) -> Callable[..., tuple[State, dict[str, Any]]]:
    """Build ``step(states, params, dt) -> (states, info)`` for a batch of points, with compaction.

    ``states`` (and the returned ``states`` and ``info``) are the per-point pytrees of
    :func:`build_step` with a leading batch axis of length ``n`` on every leaf; ``dt``
    is a scalar or one step per point (shape ``(n,)``); ``params`` is shared.

    The result is bitwise that of ``jax.vmap(build_step(system, options))`` (with the
    while-loop, non-differentiable step): each point goes through the same event
    passes, each pass being the same per-point function. Only the scheduling differs.
    ``vmap`` of the per-point ``lax.while_loop`` runs every pass on the whole batch
    (each point then keeps or drops the result) for as many passes as the busiest
    point needs; here the first pass runs on the whole batch and every later one only
    on the points that still have time left in the step, gathered (``jnp.nonzero``
    with a fixed ``size``) into a buffer of ``options.capacity`` points and scattered
    back. When more points are busy than the buffer holds, the pass takes several
    rounds of the buffer. The loop is a ``lax.while_loop``: forward mode and ``jit``,
    no reverse-mode gradient (use ``vmap`` of the differentiable step for that).
    """
    if options.differentiable:
        raise ValidationError("build_batched_step: the batched step needs differentiable=False, got True")
    parts = build_parts(system, options)

    def batched_step(states: State, params: dict, dt: Any) -> tuple[State, dict[str, Any]]:
        sizes = {jnp.shape(leaf)[0] if jnp.ndim(leaf) else None for leaf in jax.tree_util.tree_leaves(states)}
        if len(sizes) != 1 or None in sizes:
            raise ValidationError(
                f"the batched step needs one leading batch axis on every state leaf, got lengths {sizes}")
        (n,) = sizes
        dt = jnp.asarray(dt, dtype=jnp.result_type(float))
        if dt.ndim > 1 or (dt.ndim == 1 and dt.shape[0] != n):
            raise ValidationError(f"the batched step needs dt to be a scalar or of shape ({n},), got shape {dt.shape}")
        dt = jnp.broadcast_to(dt, (n,))
        passes = jax.vmap(parts.iteration, in_axes=(0, None))
        carry = jax.vmap(parts.start)(states, dt)
        # the first pass, on every point, as vmap of the while-loop does it
        live = jax.vmap(parts.busy)(carry)
        first = passes(carry, params)
        carry = jax.tree_util.tree_map(
            lambda new, old: jnp.where(live.reshape((n,) + (1,) * (jnp.ndim(old) - 1)), new, old), first, carry)
        if n > 0:
            size = default_capacity(n) if options.capacity is None else min(options.capacity, n)

            def more(c: dict) -> Any:
                return jnp.any(jax.vmap(parts.busy)(c))

            def compacted(c: dict) -> dict:
                # the first `size` busy points, by index; the unused slots point past the end
                (index,) = jnp.nonzero(jax.vmap(parts.busy)(c), size=size, fill_value=n)
                buffer = jax.tree_util.tree_map(lambda a: jnp.take(a, index, axis=0, mode="clip"), c)
                done = passes(buffer, params)
                return jax.tree_util.tree_map(lambda a, b: a.at[index].set(b, mode="drop"), c, done)

            carry = lax.while_loop(more, compacted, carry)
        return jax.vmap(parts.finish)(carry)

    return batched_step
