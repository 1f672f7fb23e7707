"""``skcomplex.engine.events.locate_crossing`` from a start on the wall.

A point that starts on the wall leaves it, and may come back within the first of the step's
sub-intervals; the search divides the trivial root at the start out, so it still finds the return.
Both signs of the counted crossing are checked: for ``direction=+1`` the point leaves into the
negative side and comes back up through the wall, for ``direction=-1`` the mirror image.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from skcomplex.engine.events import DEFAULT_SUBDIVISIONS, locate_crossing

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
