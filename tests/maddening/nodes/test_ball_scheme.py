"""BallNode's default route against the seed's scheme (stepped in NumPy and solved by hand), and the drop programs.

The book's ball-evidence page holds BallNode's default route to the seed's scheme stepped again in
NumPy and to its closed form, both written on the page; these tests hold the same, with their own
references below, for drops the page does not run.
"""

import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import maddening
from maddening.errors import invalid
from maddening.nodes import ball_evidence as ev
from maddening.nodes.ball_evidence import SEED_DROP, DropCase

def scheme_drop(case: DropCase = SEED_DROP) -> dict[str, float]:
    """The per-step scheme's drop in closed form: the seed's difference equations solved by hand.

    From rest, ``n*`` is the first step with ``h - |g| dt^2 n (n + 1) / 2 < 0`` (the
    step at whose end the contact is seen). With ``j = N - n*`` steps after it
    (``N = T / dt``) and the branch of every step held as taken::

        x(T)    = x_t + |g| dt^2 (j e n* - j (j + 1) / 2)
        dx/dh   = 0
        dx/d|g| = (x(T) - x_t) / |g|
        dx/de   = |g| dt^2 j n*

    Also returned: ``contact_step`` ``n*``, ``late`` (``n* dt - t_c``, how late the contact
    is seen), ``below`` (how far below the table the free step that saw it ended,
    ``|g| dt^2 n* (n* + 1) / 2 - h``), and ``apex`` (the highest grid position of the
    rebound above the table, at ``j = floor(e n*)``). It assumes an impact faster than
    ``BallNode.CONTACT_SPEED_THRESHOLD`` and no second contact before ``T``.
    """
    h, g, e, dt = case.height, case.gravity, case.elasticity, case.dt
    n = math.ceil(math.sqrt(2.0 * h / (g * dt * dt)))  # a first guess, then the exact first step below
    while n > 1 and h - g * dt * dt * (n - 1) * n / 2.0 < 0:
        n -= 1
    while not h - g * dt * dt * n * (n + 1) / 2.0 < 0:
        n += 1
    j = case.steps - n
    up = math.floor(e * n)
    rise = g * dt * dt * (j * e * n - j * (j + 1) / 2.0)
    return {
        "x": case.table + rise,
        "dxdh": 0.0,
        "dxdg": rise / g,
        "dxde": g * dt * dt * j * n,
        "contact_step": n,
        "late": n * dt - case.contact_time,
        "below": g * dt * dt * n * (n + 1) / 2.0 - h,
        "apex": g * dt * dt * (up * e * n - up * (up + 1) / 2.0),
    }


_SEED_THRESHOLD = 1e-4
"""The seed's contact-speed threshold in m/s, kept here for ``scheme_steps``. An impact at or below it stops the ball."""


def scheme_steps(cases: Sequence[DropCase], threshold: float = _SEED_THRESHOLD) -> list[dict[str, np.ndarray]]:
    """The seed's per-step scheme stepped again in NumPy, independently of ``BallNode``: ``t``, ``x`` and ``v`` of each drop.

    Each step is, as the seed writes it::

        v' = v + g dt,   x' = x + dt v',   then if x' < x_t:  x' = x_t,
        v' = 0 if |v'| <= threshold else -e v'

    with ``g = -|g|``, from rest at ``x_t + h``. The drops run side by side, each for its
    own number of steps. A reference for ``BallNode.update``'s default route: it shares no
    code with it (not even the threshold, which is the seed's figure). ``closest`` is how near
    to the table the free step came, over every step of the drop, m.
    """
    if isinstance(cases, DropCase) or not cases or not all(isinstance(c, DropCase) for c in cases):
        raise invalid("cases", cases, "a non-empty sequence of DropCase", where="scheme_steps")
    g = -np.array([c.gravity for c in cases])
    e = np.array([c.elasticity for c in cases])
    dt = np.array([c.dt for c in cases])
    table = np.array([c.table for c in cases])
    steps = np.array([c.steps for c in cases])
    x = table + np.array([c.height for c in cases])
    v = np.zeros_like(x)
    xs, vs = [x], [v]
    closest = np.full_like(x, np.inf)
    for n in range(int(steps.max())):
        v_new = v + g * dt
        x_new = x + dt * v_new
        hit = x_new < table
        closest = np.where(n < steps, np.minimum(closest, np.abs(x_new - table)), closest)
        bounced = np.where(np.abs(v_new) <= threshold, 0.0, -e * v_new)
        live = n < steps
        x = np.where(live, np.where(hit, table, x_new), x)
        v = np.where(live, np.where(hit, bounced, v_new), v)
        xs.append(x)
        vs.append(v)
    xs, vs = np.array(xs), np.array(vs)
    return [{"t": np.arange(c.steps + 1) * c.dt, "x": xs[: c.steps + 1, i], "v": vs[: c.steps + 1, i],
             "closest": float(closest[i])}
            for i, c in enumerate(cases)]



@settings(max_examples=8, deadline=None)
@given(height=st.floats(0.2, 2.0), elasticity=st.floats(0.0, 1.0), dt=st.sampled_from([1e-3, 3e-3, 1e-2, 5e-2]))
@example(height=0.7, elasticity=0.8, dt=1e-2)
def test_update_is_the_seeds_scheme_step_for_step(height, elasticity, dt):
    cases = [ev.DropCase(height=height, elasticity=elasticity, t_final=round(2.0 / dt) * dt, dt=dt)]
    reference = scheme_steps(cases)[0]
    # A free step that ends on the table to within rounding takes either branch on its last bit
    # (XLA contracts x + dt*v into one FMA, NumPy rounds twice), and the drops part there: a tie of
    # the scheme, not a difference of the code. A perfectly elastic drop makes one on every return.
    assume(reference["closest"] > 1e-12)
    ours = ev.sweep_trajectories(cases)[0]
    assert np.max(np.abs(ours["x"] - reference["x"])) <= 1e-11
    assert np.max(np.abs(ours["v"] - reference["v"])) <= 1e-11


@settings(max_examples=8, deadline=None)
@given(height=st.floats(0.2, 2.0), elasticity=st.floats(0.2, 1.0), dt=st.sampled_from([1e-3, 3e-3, 1e-2]))
def test_the_closed_form_is_the_scheme(height, elasticity, dt):
    """scheme_drop's contact step, lateness, penetration and apex, read off the NumPy run."""
    case = ev.DropCase(height=height, elasticity=elasticity, t_final=round(2.0 / dt) * dt, dt=dt)
    closed = scheme_drop(case)
    run = scheme_steps([case])[0]
    n = closed["contact_step"]
    assert run["x"][n - 1] > 0 and run["x"][n] == 0.0 and run["v"][n] > 0  # seen at the end of step n*
    assert closed["late"] == pytest.approx(n * dt - math.sqrt(2 * height / case.gravity))
    assert 0 < closed["below"] <= case.gravity * n * dt * dt  # within one step of travel at impact
    bounces = np.nonzero((run["v"][:-1] < 0) & (run["v"][1:] >= 0))[0]
    end = bounces[1] + 1 if len(bounces) > 1 else len(run["x"])
    assert closed["apex"] == pytest.approx(run["x"][n:end].max(), abs=1e-12)


def test_many_drops_equal_one_at_a_time():
    """Blocks of DROP_BLOCK, the last one padded, give each drop what a call of its own gives."""
    cases = [ev.SEED_DROP.with_(dt=1e-3 / 2**k) for k in range(ev.DROP_BLOCK + 1)]
    many = ev.drop_gradients_many(cases)
    assert many[0] == ev.drop_gradients(cases[0])
    assert many[-1] == ev.drop_gradients(cases[-1])
    assert [m["x"] for m in many] == pytest.approx([scheme_drop(c)["x"] for c in cases], abs=1e-11)


@pytest.mark.parametrize("cases, match", [
    ([], "cases = \\[\\] is not allowed"),
    (ev.SEED_DROP, "cases = DropCase"),
    ([ev.SEED_DROP.with_(t_final=4.0, dt=1e-4)], "a drop of 1 to STEP_CAPACITY = 32768 steps"),
])
def test_bad_drops_are_refused_by_name(cases, match):
    with pytest.raises(maddening.ValidationError, match=match):
        ev.drop_gradients_many(cases)


def test_a_drop_of_exactly_step_capacity_steps_is_run_and_one_more_is_refused():
    """The scan holds ``STEP_CAPACITY`` steps: a drop of that many runs whole (the seed's drop on a finer
    step, its end the seed's own to the step's order), one of a step more is refused by name."""
    full = SEED_DROP.with_(dt=SEED_DROP.t_final / ev.STEP_CAPACITY)
    assert full.steps == ev.STEP_CAPACITY
    assert ev.drop_gradients(full)["x"] == pytest.approx(ev.exact_drop(full)["x"], abs=1e-3)
    over = SEED_DROP.with_(dt=SEED_DROP.t_final / (ev.STEP_CAPACITY + 1))
    with pytest.raises(maddening.ValidationError, match="a drop of 1 to STEP_CAPACITY = 32768 steps"):
        ev.drop_gradients(over)


def test_a_drop_is_observed_only_between_its_bounce_and_its_next_landing():
    """The rebound leaves at ``e |v_c|`` and lands again ``2 e t_c`` later, so the closed form of one bounce
    holds for ``t_c < T < t_c (1 + 2 e)``: a ``T`` in the second half of the rebound is accepted, one past
    the landing refused by name."""
    tc, e = SEED_DROP.contact_time, SEED_DROP.elasticity
    late = SEED_DROP.with_(t_final=tc * (1 + 1.9 * e))
    assert ev.exact_drop(late)["x"] > 0  # still in the air
    with pytest.raises(maddening.ValidationError, match=r"exact_drop: .* after its one bounce and before the next landing"):
        ev.exact_drop(SEED_DROP.with_(t_final=tc * (1 + 2.01 * e)))


def test_the_sweeps_sampling_bound_is_how_far_a_grid_can_miss_an_apex():
    """A parabola of curvature ``|g|`` sampled every ``dt`` misses its apex by at most ``|g| dt^2 / 8`` (the
    apex half way between two samples): the row states that over the height, and the grid of the located
    drop's rebound never misses by more."""
    g, dt, height = 9.81, 1e-2, 1.0
    (row,) = [r for r in ev.bounce_sweep((1.0,), (dt,), height=height, gravity=-g) if r.route == "located"]
    assert row.sampling_bound == pytest.approx(g * dt * dt / 8 / height, rel=1e-15)
    t = np.arange(0.0, 1.0, dt)
    apex_between_samples = -g * (t - 0.5 + dt / 2) ** 2 / 2  # apex at 0, half a step from the nearest sample
    assert -apex_between_samples.max() == pytest.approx(row.sampling_bound * height, rel=1e-9)
    # e = 1 and the bounce located: the rebound reaches the release height, and its grid maximum lies within the bound
    assert 1.0 - row.sampling_bound <= row.bounce_ratio <= 1.0 + 1e-12


def test_the_sweeps_energy_rise_on_falling_steps_is_read_from_the_steps_that_start_falling():
    """``rise_falling``: the largest one-step rise of the scheme's conserved energy, over the steps whose
    velocity at their start is downward (or zero), relative to the start's energy; recomputed here from the
    drop's own trajectory."""
    g, dt = 9.81, 1e-2
    (row,) = [r for r in ev.bounce_sweep((0.5,), (dt,), gravity=-g) if r.route == "per-step"]
    run = ev.drop_sensitivities(ev.sweep_cases((0.5,), (dt,), gravity=-g)[0])
    x, v = np.asarray(run["x"]), np.asarray(run["v"])
    energy = 0.5 * v * v + g * x - 0.5 * g * dt * v  # v^2/2 - g x + g dt v / 2 with g = -9.81
    rises = [(energy[i + 1] - energy[i]) / energy[0] for i in range(len(x) - 1) if v[i] <= 0]
    assert row.rise_falling == max(max(rises), 0.0)
    everywhere = max(max((energy[i + 1] - energy[i]) / energy[0] for i in range(len(x) - 1)), 0.0)
    assert row.rise_any == everywhere and row.rise_any > row.rise_falling  # the rise comes on a step that starts rising
