"""Locating a crossing of a guard along one step's exact path.

The search is pure JAX (jit, vmap, grad). Along the path ``tau -> g(tau)`` on
``[0, span]``:

1. *Side.* The crossing counted is from the "from" side: negative for
   ``direction=+1``, positive for ``-1``, and for ``0`` the side the point is on
   at ``tau = 0``. Write ``f = c g`` with ``c = +-1`` so that the from side is
   ``f < 0``.
2. *On the wall.* A point that starts *on* the wall (``g == 0`` exactly, or
   flagged ``on_wall`` because it was just reflected there) is not a crossing
   at ``tau = 0``: steps are half-open intervals ``(t, t + dt]``, and a crossing
   exactly at ``t + dt`` belongs to the step that ends there. For such a start
   the trivial root at 0 is divided out: the search runs on
   ``h(tau) = (f(tau) - f(0)) / tau``, whose value at 0 is ``f'(0)``. A point
   moving away (``f'(0) < 0``) that comes back, even within the first
   sub-interval, is found; one moving away for good never triggers again. With
   ``direction=0`` the from side is the one it moves into.
3. *Bracket.* The searched function is sampled at ``subdivisions + 1``
   equally spaced times. A bracket is a pair of neighbouring samples from one
   on the point's side to one past the wall (``h_(j-1) < 0 < h_j``, or a zero
   sample read as below); the first is polished. The first sample exactly on
   zero after the start
   is read by the guard's rate there, into the wall: moving in faster than
   ``EXIT_RTOL`` of the span's typical rate, it is an entry on the sample, and
   ends a bracket; moving out as fast, an exit: the point was past the wall
   just before, so it ends a bracket whose entry lies inside (SKC-ANO-005),
   and starts the next one; otherwise a touch (a tangency, or one that
   rounding tilts a hair), which starts a bracket but ends none. A later zero
   sample ends a bracket unless the next sample is back below zero (a touch),
   and so does the span's final sample (``tau = span``) when it is exactly on
   zero, whatever its rate. A bracket
   that ends on an exit or starts on a zero sample is polished from its
   middle, since its secant point would be that sample itself. The
   bracket's root, once polished, is a crossing only where the guard moves
   into the wall (``f' > 0``): a tangency, or a return
   found in the rounding just after a grazing departure, is none, and the
   rest of the span is then not searched in this pass. A tangency inside a
   sub-interval that also holds an entry hides that entry only if the polish
   ends exactly on the tangency. More often the polish settles a hair before
   it, where the guard still moves in, and reports a crossing there at an
   impact speed of about ``1e-8`` of the guard's rate; the next pass then
   finds the entry (random trials of a tangency followed by an entry in the
   same sub-interval found every entry). Three shapes of a zero sample are still
   misread: an exit through a root of odd multiplicity three or more, a
   tangency from the wall's far side (both with no rate there), and an exit on
   a later zero sample than the first; the entry before each is missed
   (SKC-ANO-006).
4. *Polish.* Starting from the secant (regula falsi) point of the bracket
   (or from its middle, item 3),
   ``iterations`` safeguarded Newton steps shrink the bracket (a Newton step
   that would leave it is replaced by bisection). ``f'`` comes from
   ``jax.jvp`` of the path. A smooth simple root converges quadratically, most
   often to the float64 resolution of ``tau`` well before the last iteration.
   Where the guard turns within the bracket (two roots close together, a
   maximum between them), Newton's steps leave the bracket and bisections
   replace them, and ``iterations`` may end short of the root: two of about
   68,000 crossings of random cubic guards did, by 5.1e-9 and 1.5e-7 of ``tau``.
   So after them, Newton's own correction ``|f / f'|`` at ``tau`` is looked
   at: a crossing it would move by more than ``SETTLED_RTOL`` of ``tau``
   (more than the last, traced Newton step of item 5 can take below
   ``EVENT_TIME_RTOL``) is *settled*, iterated further (at most ``settle``
   more times) until the correction is no larger than that. A crossing
   already settled is never moved, so its ``tau`` keeps every bit; a batch
   (``vmap``) iterates further only while one of its crossings is unsettled.
5. *Gradient.* The search runs on values with no gradient; one last Newton step
   on the traced path, ``tau* - f(tau*) / f'(tau*)`` (from a start on the wall,
   ``f(tau*) - f(0)``, with ``f(0)`` held constant: the return is to the start's
   own level, which rounding can leave a hair past the wall), carries the implicit
   derivative ``d tau* / d p = -(df/dp) / f'`` to the caller, so ``jax.grad``
   through an event is exact for a transversal crossing.

A crossing that enters and leaves the far side between two samples (a graze
shorter than ``span / subdivisions``) is not seen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from skcomplex.exceptions import ValidationError

__all__ = ["DEFAULT_ITERATIONS", "DEFAULT_SUBDIVISIONS", "EVENT_TIME_RTOL", "EXIT_RTOL", "SETTLED_RTOL", "SETTLE_ITERATIONS",
           "locate_crossing"]

#: Samples per step used to bracket a crossing.
DEFAULT_SUBDIVISIONS = 8
#: Safeguarded Newton iterations per located crossing.
DEFAULT_ITERATIONS = 6
#: The relative accuracy of located event times that the finder promises in float64.
EVENT_TIME_RTOL = 1e-12
#: Newton's correction ``|f / f'|`` at the end of the iterations, as a share of ``tau``, above which a crossing
#: is settled. The last, traced Newton step squares a correction: one below ``1e-8 tau`` is left below
#: ``EVENT_TIME_RTOL`` of ``tau`` for a guard whose curvature ratio ``|f'' / 2 f'| tau`` is below ``1e4``.
SETTLED_RTOL = 1e-8
#: The first sample exactly on zero after a span's start, where the guard moves into (out of) the wall faster than this
#: share of the span's typical
#: rate ``max |g_j - g_(j-1)| / (span / subdivisions)`` (over the guard's samples ``g_j``) is an entry (an exit, with an
#: entry just before it); a slower one, a tangency or rounding around one, is a touch.
EXIT_RTOL = 1e-8
#: The most further iterations for a crossing still unsettled after ``iterations`` (its *settling*). Bisection
#: alone takes a bracket of ``span / DEFAULT_SUBDIVISIONS`` to ``2**-48`` of it, below ``EVENT_TIME_RTOL``
#: of any crossing past the first thousandth of the span.
SETTLE_ITERATIONS = 48


def _check_locate(path: Any, span: Any, direction: Any, subdivisions: Any, iterations: Any, settle: Any) -> None:
    """Refuse what ``locate_crossing`` cannot search with, naming it (a traced ``span`` passes unchecked)."""
    where = "locate_crossing"
    if not callable(path):
        raise ValidationError(f"{where}: path must be a callable of the time tau, got {path!r}")
    if isinstance(direction, bool) or direction not in (-1, 0, 1):
        raise ValidationError(f"{where}: direction must be -1, 0 or 1, got {direction!r}")
    for name, value, least in (("subdivisions", subdivisions, 1), ("iterations", iterations, 0), ("settle", settle, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValidationError(f"{where}: {name} must be an int >= {least}, got {value!r}")
    if not isinstance(span, jax.core.Tracer):
        try:
            length = float(jnp.asarray(span))
        except (TypeError, ValueError):
            raise ValidationError(f"{where}: span must be a finite number >= 0, got {span!r}") from None
        if not (length >= 0.0 and length < float("inf")):
            raise ValidationError(f"{where}: span must be a finite number >= 0, got {span!r}")


def locate_crossing(
    path: Callable[[jnp.ndarray], jnp.ndarray],
    span: jnp.ndarray,
    *,
    direction: int,
    on_wall: jnp.ndarray,
    search_path: Callable[[jnp.ndarray], jnp.ndarray] | None = None,
    slide_floor: jnp.ndarray | float = 0.0,
    subdivisions: int = DEFAULT_SUBDIVISIONS,
    iterations: int = DEFAULT_ITERATIONS,
    settle: int = SETTLE_ITERATIONS,
) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    """Find the earliest crossing of ``path(tau)`` through zero on ``(0, span]``.

    Args:
        path: The guard along the step, a pure function of the time ``tau``
            since the start of the (rest of the) step.
        span: The length of the interval searched (>= 0).
        direction: +1, -1 or 0, as in ``CrossingInteraction``.
        on_wall: Whether the point starts on this wall (just reflected off it).
        search_path: The same path with its inputs' gradients stopped, used for
            the search; ``path`` itself is used for the last, traced Newton step.
        slide_floor: On the wall, a departure speed ``|f'(0)|`` at or below
            this is sliding along the wall (``e = 0``), not a departure: no
            crossing is searched (rounding noise would fake some).
        subdivisions: The number of sub-intervals sampled for a bracket.
        iterations: The number of safeguarded Newton iterations.
        settle: The most further iterations for a crossing whose Newton
            correction is still larger than ``SETTLED_RTOL`` of ``tau``.

    Returns:
        ``(found, tau, impact, sliding)``: whether a crossing was found (a
        polished root where the guard does not move into the wall, ``f' <= 0``,
        is none, and then no later one is looked for in this span), its
        time (``span`` when none was found), the speed ``|f'|`` of the guard
        at the crossing, and whether the point slides along the wall.

    >>> import jax, jax.numpy as jnp
    >>> with jax.enable_x64(True):
    ...     found, tau, _, _ = locate_crossing(lambda t: 1.0 + 2.0 * t - t**2, jnp.asarray(4.0),
    ...                                  direction=-1, on_wall=jnp.asarray(False))
    ...     print(bool(found), abs(float(tau) - (1 + 2**0.5)) < 1e-14)
    True True
    """
    _check_locate(path, span, direction, subdivisions, iterations, settle)
    search = path if search_path is None else search_path
    span_s = lax.stop_gradient(span)
    taus = span_s * jnp.linspace(0.0, 1.0, subdivisions + 1, dtype=span_s.dtype)
    gs = jax.vmap(search)(taus)
    g0, slope0 = jax.jvp(search, (taus[0],), (jnp.ones_like(taus[0]),))
    on_wall = jnp.asarray(on_wall) | (g0 == 0)
    if direction == 0:
        # the from side: where the point is, or, on the wall, where it moves to
        moving = jnp.where(slope0 != 0, jnp.sign(slope0), jnp.sign(gs[1] - g0))
        side = jnp.where(on_wall, moving, jnp.sign(g0))
        sign = -side
    else:
        sign = jnp.asarray(float(direction), dtype=gs.dtype)
    offset = jnp.where(on_wall, sign * g0, 0.0)

    def searched(tau: jnp.ndarray) -> jnp.ndarray:
        # f = sign * g, so that the from side is f < 0. On the wall, the start is a
        # trivial root: search (f - f(0)) / tau instead, whose value at 0 is f'(0).
        f = sign * search(tau) - offset
        safe = jnp.where(tau > 0, tau, 1.0)
        return jnp.where(on_wall, jnp.where(tau > 0, f / safe, sign * slope0), f)

    # the samples of the searched function, from the guard samples already taken
    safe_taus = jnp.where(taus > 0, taus, 1.0)
    deflated = jnp.where(taus > 0, (sign * gs - offset) / safe_taus, sign * slope0)
    hs = jnp.where(on_wall, deflated, sign * gs)
    sliding = on_wall & (jnp.abs(slope0) <= slide_floor)
    # The first sample exactly on zero after the start is read by the guard's rate there, into the wall (it has the
    # sign of h': on the wall, h' = f' / tau where h = 0): moving in faster than EXIT_RTOL of the span's typical
    # rate, it is an entry on the sample; moving out as fast, an exit (the point was past the wall just before, so
    # the sub-interval ending there holds an entry, and after it the point is back on the from side); otherwise a
    # touch (a tangency, or one that rounding tilts a hair), which the point stays on the from side of. A later zero
    # sample counts as past the wall unless the next sample is back below zero (a touch). One rate is read, not one
    # per sample: a rate at every sample would add a derivative to every sample of every pass of every point, for a
    # case that needs roots on two sample times in one span.
    index = jnp.arange(subdivisions + 1)
    zero = hs == 0
    z = jnp.argmax(zero & (index > 0))  # 0 where no sample after the start is on zero
    _, rate_z = jax.jvp(search, (taus[z],), (jnp.ones_like(span_s),))
    typical = jnp.max(jnp.abs(gs[1:] - gs[:-1])) * subdivisions / jnp.where(span_s > 0, span_s, 1.0)
    read = (index == z) & (z > 0) & zero
    entry_on = read & (sign * rate_z > EXIT_RTOL * typical)
    exit_on = read & (sign * rate_z < -EXIT_RTOL * typical)
    later_zero = zero & ~read & (index > 0)
    next_below = jnp.concatenate([hs[1:] < 0, jnp.zeros((1,), dtype=bool)])
    from_side = (hs < 0) | (read & ~entry_on)  # a bracket's start: on the point's side, or on the wall not entering
    past = (hs > 0) | entry_on | exit_on | (later_zero & ~next_below)  # a bracket's end: past the wall, or on it
    # the span's last sample on zero ends a bracket whatever its rate: a tangency on the step's end is then polished
    # and kept where rounding leaves the guard moving in (a touch with an impact speed of rounding's size, after
    # which the next step starts on the wall as after any hit), rather than handed to the next step as a start on
    # the wall with no normal speed, which would be taken for a slide
    past = past.at[-1].set(hs[-1] >= 0)
    brackets = from_side[:-1] & past[1:]
    found = jnp.any(brackets) & (span_s > 0) & ~sliding
    j = jnp.argmax(brackets)
    a, b = taus[j], taus[j + 1]
    fa, fb = hs[j], hs[j + 1]
    denominator = jnp.where(found, fb - fa, 1.0)
    tau0 = jnp.where(found, a + (b - a) * (-fa / denominator), span_s)
    # The secant point of a bracket that ends on an exit is the exit itself, and of one that starts on a zero
    # sample (a touch or an exit) the start itself; Newton's steps would stay there. Those brackets are polished
    # from their middle: each iterate moves lo (f < 0) or hi (f >= 0) inward, and a Newton step outside [lo, hi]
    # becomes a bisection, so the polish returns to the zero sample only by landing on it exactly.
    tau0 = jnp.where(found & ((fa == 0) | exit_on[j + 1]), 0.5 * (a + b), tau0)
    tau0 = jnp.clip(tau0, a, b)

    def iterate(carry: tuple) -> tuple[tuple, jnp.ndarray]:
        # one safeguarded Newton iteration, and Newton's own correction |f / f'| at the tau it started from
        lo, hi, tau = carry
        value, slope = jax.jvp(searched, (tau,), (jnp.ones_like(tau),))
        lo = jnp.where(value < 0, tau, lo)
        hi = jnp.where(value >= 0, tau, hi)
        safe = jnp.where(slope != 0, slope, 1.0)
        newton = value / safe
        step = tau - newton
        inside = (slope != 0) & (step >= lo) & (step <= hi)
        correction = jnp.where(slope != 0, jnp.abs(newton), jnp.where(value != 0, jnp.inf, 0.0))
        return (lo, hi, jnp.where(inside, step, 0.5 * (lo + hi))), correction

    def unsettled(tau: jnp.ndarray, correction: jnp.ndarray) -> jnp.ndarray:
        # a found crossing whose Newton correction the last, traced step could not make small enough
        return found & (correction > SETTLED_RTOL * jnp.abs(tau))

    # The iterations and the settling are one loop, so that the program holds the guard's code once: the
    # first ``iterations`` turns always step; a later turn steps only the crossings it finds unsettled, and
    # the loop ends after a turn that stepped none (or after ``settle`` such turns).
    def more(state: tuple) -> jnp.ndarray:
        k, _, stepped = state
        return (k < iterations) | (jnp.any(stepped) & (k < iterations + settle))

    def turn(state: tuple) -> tuple:
        k, carry, _ = state
        proposed, correction = iterate(carry)
        go = (k < iterations) | unsettled(carry[2], correction)
        return k + 1, tuple(jnp.where(go, p, c) for p, c in zip(proposed, carry)), go & (k >= iterations - 1)

    start = (jnp.zeros((), jnp.int32), (a, b, tau0), jnp.ones_like(found))
    _, carry, _ = lax.while_loop(more, turn, start)
    tau = carry[2]
    tau = lax.stop_gradient(jnp.where(found, tau, span_s))

    # One traced Newton step: the value barely moves, the gradient is the implicit one. From a start on the
    # wall the root is the return to the start's own level (f = f(0), which rounding can leave a hair past
    # the wall), as the search found it: polishing towards f = 0 instead would pull a short return back
    # to the start, where the guard has the wrong side's sign.
    # The offset is a constant of that step: the derivative stays -(df/dp) / f', whatever path it came from.
    level = lax.stop_gradient(offset)
    value, slope = jax.jvp(lambda t: sign * path(t) - level, (tau,), (jnp.ones_like(tau),))
    # A crossing moves into the wall: f' > 0 there. A root where the point does not is no crossing: at a
    # tangency (an apex exactly on the wall) rounding may already point the velocity away, and just after a
    # grazing departure the deflated search from the wall can find a "return" in the rounding; reflecting
    # there would turn the point back into the wall.
    found = found & (lax.stop_gradient(slope) > 0)
    usable = found & (slope != 0) & jnp.isfinite(slope)
    correction = jnp.where(usable, value / jnp.where(usable, slope, 1.0), 0.0)
    polished = tau - correction
    polished = jnp.where(polished > span, span, jnp.where(polished < 0, 0.0, polished))
    impact = lax.stop_gradient(jnp.where(found, jnp.abs(slope), 0.0))
    return found, jnp.where(found, polished, span), impact, sliding
