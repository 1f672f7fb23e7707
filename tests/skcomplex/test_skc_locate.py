"""``skcomplex.engine.events.locate_crossing`` from a start on the wall.

A point that starts on the wall leaves it, and may come back within the first of the step's
sub-intervals; the search divides the trivial root at the start out, so it still finds the return.
Both signs of the counted crossing are checked: for ``direction=+1`` the point leaves into the
negative side and comes back up through the wall, for ``direction=-1`` the mirror image.

And the settling: a crossing that the fixed Newton iterations leave short of ``EVENT_TIME_RTOL``
(where the guard turns inside the bracket) is iterated until it meets it, and no other moves.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from skcomplex.engine.events import DEFAULT_SUBDIVISIONS, EVENT_TIME_RTOL, SETTLE_ITERATIONS, locate_crossing

RETURN = 0.1  # the path g(t) = -/+ t (RETURN - t) is back on the wall at t = RETURN
SPAN = 4.0


@pytest.mark.parametrize("direction", [1, -1])
def test_a_return_to_the_wall_within_the_first_sub_interval_is_found(direction):
    assert RETURN < SPAN / DEFAULT_SUBDIVISIONS  # inside the first sub-interval

    def path(t):
        return -direction * t * (RETURN - t)  # leaves to the from side, then crosses back

    with jax.enable_x64(True):
        found, tau, _, _ = locate_crossing(path, jnp.asarray(SPAN), direction=direction, on_wall=jnp.asarray(True))
    assert bool(found)
    assert float(tau) == pytest.approx(RETURN, rel=1e-12)


@pytest.mark.parametrize("direction", [1, -1])
def test_a_point_leaving_the_wall_for_good_never_triggers(direction):
    with jax.enable_x64(True):
        found, _, _, _ = locate_crossing(lambda t: -direction * t, jnp.asarray(SPAN), direction=direction,
                                         on_wall=jnp.asarray(True))
    assert not bool(found)


# ---------------------------------------------------------------------------------------
# settling: a crossing the fixed iterations leave short of the promised accuracy
# ---------------------------------------------------------------------------------------
SHORT_CUBIC = (-0.12102044475390361, 1.9924157388705934, -7.7725377748266276, -3.278009689965373)
"""``c0 + c1 t + c2 t^2 + c3 t^3``, drawn from ``U(-1, -0.01) x U(-3, 3) x U(-20, 20) x U(-60, 60)`` (seed 0,
the 48,053rd): its up-crossing at 0.1118 lies 0.015 before a down-crossing at 0.1265, and the guard turns
between them, inside the bracket ``(0, 1/8]``. Newton's steps leave the bracket there, and the six
iterations ended 7.5e-11 short in ``g``, and the located time was 5.1e-9 of ``tau`` off, against a promise of 1e-12."""


def _cubic_roots(c: np.ndarray) -> np.ndarray:
    """The real roots of each row's cubic ``c0 + c1 t + c2 t^2 + c3 t^3``, from its companion matrix, ``(n, 3)``
    (NaN for a complex root)."""
    companion = np.zeros((len(c), 3, 3))
    companion[:, 1, 0] = companion[:, 2, 1] = 1.0
    companion[:, :, 2] = -c[:, :3] / c[:, 3:]
    roots = np.linalg.eigvals(companion)
    return np.where(np.abs(roots.imag) < 1e-9, roots.real, np.nan)


def _locate(c, settle=SETTLE_ITERATIONS, scale=1.0):
    """The first up-crossing of the cubic ``c`` in ``(0, 1]``, on a time axis stretched by ``scale`` (the guard
    ``c(t / scale)`` on ``(0, scale]``: its crossings at ``scale`` times the cubic's roots)."""
    def guard(t):
        u = t / scale
        return c[0] + c[1] * u + c[2] * u**2 + c[3] * u**3

    return locate_crossing(guard, jnp.asarray(scale), direction=1, on_wall=jnp.asarray(False), settle=settle)


def _polished_root(c: np.ndarray, near: np.ndarray) -> np.ndarray:
    """The cubic's root nearest ``near``, from the companion matrix and two Newton steps in float64."""
    roots = _cubic_roots(c)
    r = roots[np.arange(len(c)), np.nanargmin(np.abs(roots - near[:, None]), axis=1)]
    for _ in range(2):
        g = c[:, 0] + r * (c[:, 1] + r * (c[:, 2] + r * c[:, 3]))
        r = r - g / (c[:, 1] + r * (2 * c[:, 2] + r * 3 * c[:, 3]))
    return r


@pytest.mark.parametrize("scale", [1.0, 1e-3, 1e-6])
def test_a_crossing_left_short_by_the_iterations_is_settled_to_the_promised_accuracy(scale):
    """``SHORT_CUBIC``'s crossing, on its own time axis and on one a thousand and a million times shorter: the
    promise (``EVENT_TIME_RTOL``) and the test for settling (``SETTLED_RTOL``) are relative to the crossing's time,
    so a short step's crossing is settled as a long one's is. An absolute test of 1e-8 s would pass the first
    and leave the others 5.1e-9 of ``tau`` off (the iterations' own shortfall)."""
    with jax.enable_x64(True):
        c = jnp.asarray(SHORT_CUBIC)
        found, tau, _, _ = jax.jit(lambda c, s: _locate(c, scale=s))(c, scale)
        _, short, _, _ = jax.jit(lambda c, s: _locate(c, settle=0, scale=s))(c, scale)
    root = scale * _polished_root(np.asarray([SHORT_CUBIC]), np.asarray([float(tau) / scale]))[0]
    assert bool(found)
    assert abs(float(short) - root) > 1e3 * EVENT_TIME_RTOL * root  # without settling: short of the promise
    assert abs(float(tau) - root) <= EVENT_TIME_RTOL * root


def test_random_cubic_crossings_keep_the_promised_accuracy_and_settled_ones_keep_their_bits():
    """20,000 cubic guards (the draw of ``SHORT_CUBIC``): every located up-crossing is within
    ``EVENT_TIME_RTOL`` of the root, and settling moves only the rare crossing it settles."""
    rng = np.random.default_rng(0)
    n = 20_000
    c = np.column_stack([-rng.uniform(0.01, 1, n), rng.uniform(-3, 3, n), rng.uniform(-20, 20, n),
                         rng.uniform(-60, 60, n)])
    c[0] = SHORT_CUBIC
    with jax.enable_x64(True):
        found, tau, _, _ = (np.asarray(a) for a in jax.jit(jax.vmap(_locate))(jnp.asarray(c)))
        _, plain, _, _ = (np.asarray(a) for a in jax.jit(jax.vmap(lambda c: _locate(c, settle=0)))(jnp.asarray(c)))
    root = _polished_root(c[found], tau[found])
    assert found.sum() > n // 3
    assert np.all(np.abs(tau[found] - root) <= EVENT_TIME_RTOL * root)
    moved = np.nonzero(tau != plain)[0]
    assert 0 in moved and len(moved) <= n // 2000  # SHORT_CUBIC, and few others


def test_a_short_return_from_a_start_a_hair_past_the_wall_is_found_where_it_returns():
    """From a start on the wall that rounding left 1.9e-17 past it, departing at 1.4e-9 under an acceleration of 1
    back towards it: the path never reaches g = 0 again, and the return to the start's level is at tau = 2 v
    (the closed form of (f(tau) - f(0)) / tau = -v + tau / 2). It must be found there, not at the start."""
    y0, v = -1.90819582e-17, 1.41421364e-09
    with jax.enable_x64(True):
        found, tau, _, _ = locate_crossing(lambda t: -(y0 + v * t - 0.5 * t * t), jnp.asarray(0.0858), direction=1,
                                           on_wall=jnp.asarray(True), slide_floor=1e-10 * 1.4142)
    assert bool(found)
    np.testing.assert_allclose(float(tau), 2 * v, rtol=1e-12)


@pytest.mark.parametrize("frozen_search", [False, True])
def test_the_gradient_of_a_return_from_the_wall_is_the_implicit_one(frozen_search):
    """From a start on the wall, the path f(t) = -(p + t - t^2/2) at p = 0 returns to its start's level at t = 2.
    The documented derivative is the implicit one of the traced path: df/dp = -1 and f'(2) = 1, so
    d tau / dp = -(df/dp) / f' = 1, with or without a frozen search path (the start's level is a constant of the
    last step, never differentiated)."""
    def tau_of(p):
        path = lambda t: -(p + t - 0.5 * t * t)
        search = (lambda t: -(jax.lax.stop_gradient(p) + t - 0.5 * t * t)) if frozen_search else None
        return locate_crossing(path, jnp.asarray(3.0), direction=1, on_wall=jnp.asarray(True), search_path=search)[1]

    with jax.enable_x64(True):
        value, slope = jax.value_and_grad(tau_of)(0.0)
    np.testing.assert_allclose(float(value), 2.0, rtol=1e-12)
    np.testing.assert_allclose(float(slope), 1.0, rtol=1e-12)
