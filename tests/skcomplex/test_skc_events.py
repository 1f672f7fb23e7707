"""Located event times against analytic ones; several crossings per step; the event bound."""

import functools
import math

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skc_scenarios import box_walls, plane_guard, simulate
from skcomplex import CrossingInteraction, EventLimitError, ReflectionInteraction, RestingContactError


def _line_walls():
    """Walls at x = 1 ("right") and x = 0 ("left") of a one-dimensional ball, each reflecting it back inside."""
    return [
        ReflectionInteraction("right", target="ball", guard=lambda s: s.target.x - 1.0, direction=1),
        ReflectionInteraction("left", target="ball", guard=lambda s: -s.target.x, direction=1),
    ]


@pytest.mark.parametrize("dt", [0.3, 0.07, 0.011])
def test_plane_wall_event_time_is_analytic_off_the_step_grid(dt):
    # n . x = 1 with n = (3, 4)/5, from x0 = (0.1, -0.2) at v = (0.7, 0.4): t* = (1 - n.x0) / (n.v)
    n = np.array([3.0, 4.0]) / 5.0
    x0, v0 = np.array([0.1, -0.2]), np.array([0.7, 0.4])
    exact = (1 - n @ x0) / (n @ v0)
    assert not math.isclose(exact / dt, round(exact / dt))  # not on a step boundary
    wall = ReflectionInteraction("wall", target="ball", guard=plane_guard(n, 1.0), direction=1)
    trajectory = simulate([wall], dt, 2.0, x=x0, x_d1=v0).trajectory_
    assert len(trajectory.events) == 1
    assert abs(trajectory.events[0].time - exact) <= 1e-12 * exact


@pytest.mark.parametrize("dt", [0.1, 0.013])
def test_circular_wall_hit_from_inside_under_constant_acceleration(dt):
    # |x|^2 = R^2 with x(t) = x0 + v0 t + a t^2 / 2, a vertical drop: x0 = (0, 0.5), v0 = 0, a = (0, -g)
    # reaches y = -R at t* = sqrt(2 (0.5 + R) / g)
    R, g = 1.0, 9.81
    wall = ReflectionInteraction("bowl", target="ball", guard=lambda s: s.target.x @ s.target.x - R**2, direction=1)
    trajectory = simulate([wall], dt, 0.6, x=[0.0, 0.5], x_d1=[0.0, 0.0], x_d2=[0.0, -g]).trajectory_
    exact = math.sqrt(2 * (0.5 + R) / g)
    assert abs(trajectory.events[0].time - exact) <= 1e-12 * exact
    # straight down onto the bottom of the bowl: the velocity is reversed exactly
    after = trajectory.events[0].states["ball.x_d1"]
    np.testing.assert_allclose(after, [0.0, g * exact], rtol=1e-12, atol=1e-12)


def test_two_walls_many_crossings_in_one_large_step_match_the_bounce_sequence():
    # walls at x = 0 and x = 1, speed 3.7, e = 1, one step of 2.0: the bounces are at
    # t_k = (1 - x0) / v + k / v, k = 0, 1, ...
    x0, v, dt = 0.25, 3.7, 2.0
    walls = _line_walls()
    trajectory = simulate(walls, dt, dt, x=x0, x_d1=v).trajectory_
    expected = [(1 - x0) / v + k / v for k in range(8) if (1 - x0) / v + k / v <= dt]
    assert len(expected) == 7
    np.testing.assert_allclose(trajectory.event_times(), expected, rtol=1e-12, atol=0)
    assert [e.interactions for e in trajectory.events] == [("right",), ("left",)] * 3 + [("right",)]
    # the final position unfolds the path: x0 + v dt reflected into [0, 1]
    unfolded = (x0 + v * dt) % 2.0
    assert abs(trajectory.values("ball.x")[-1] - (2.0 - unfolded if unfolded > 1 else unfolded)) < 1e-12


def test_a_corner_hit_reflects_off_both_walls_at_once():
    walls = box_walls()
    trajectory = simulate(walls, 0.3, 1.0, x=[0.5, 0.5], x_d1=[1.0, 1.0]).trajectory_
    assert trajectory.events[0].interactions == ("right", "top")
    assert abs(trajectory.events[0].time - 0.5) < 1e-12
    np.testing.assert_allclose(trajectory.values("ball.x")[-1], [0.5, 0.5], atol=1e-12)


@settings(max_examples=12, deadline=None)  # each shot builds and compiles a simulation of its own
@given(st.floats(0.05, 0.95), st.floats(0.05, 0.95), st.floats(0.5, 3.0))
def test_a_shot_at_a_corner_reflects_off_both_walls_at_once_from_any_start(x, y, speed):
    """Aimed at the corner (1, 1) from anywhere in the square, the two walls' crossings are located
    separately and may differ in their last bits. They are one event (a crossing within ``TIE`` of
    the earliest, or a holding wall within ``TIE`` of zero): taken one at a time, the ball would
    start the second search already past the other wall and leave the square through it."""
    x0 = np.array([x, y])
    v = (1.0 - x0) / np.linalg.norm(1.0 - x0) * speed
    reach = np.linalg.norm(1.0 - x0) / speed
    trajectory = simulate(box_walls(), 0.37, 0.37 * math.ceil((reach + 0.05) / 0.37), x=x0, x_d1=v).trajectory_
    assert trajectory.events[0].interactions == ("right", "top")
    np.testing.assert_allclose(trajectory.events[0].states["ball.x_d1"], -v, rtol=1e-12, atol=1e-12)
    path = np.asarray(trajectory.values("ball.x"))
    assert path.min() >= -1e-12 and path.max() <= 1.0 + 1e-12


_ONE_LEVEL = [CrossingInteraction("m1", target="ball", guard=lambda s: s.target.x - 0.3, direction=1),
              CrossingInteraction("m2", target="ball", guard=lambda s: 10.0 * s.target.x - 3.0, direction=1),
              CrossingInteraction("m3", target="ball", guard=lambda s: (s.target.x - 0.3) / 7.0, direction=1)]
"""Three event markers on one level, x = 0.3, each guard written its own way: their crossings are located
separately, and rounding can part the three times in their last bits."""


@pytest.mark.parametrize("x0, v", [(-0.8198004841004578, 2.8613535072705583), (-0.8324478784410441, 1.3884050634072491),
                                   (-0.39351128196045615, 2.9479904394633443)])
def test_markers_crossed_at_one_instant_are_one_event(x0, v):
    """Crossings within ``TIE`` of the earliest are one event, markers' as walls': each of these starts (drawn at
    random) has its three crossing times part in their last bits, and taken at exactly the earliest time alone the
    markers were logged as two or three events, or one of them not at all (the step's passes start the next search
    at the first marker's time, a rounding past another's level). A wall's second crossing is caught as well by
    the test for a holding wall within ``TIE`` of zero; a marker has only this one. The crossing is at
    ``(0.3 - x0) / v`` exactly."""
    trajectory = simulate(_ONE_LEVEL, 0.37, 0.37 * math.ceil(((0.3 - x0) / v + 0.05) / 0.37), x=x0, x_d1=v).trajectory_
    assert [e.interactions for e in trajectory.events] == [("m1", "m2", "m3")]
    assert abs(trajectory.events[0].time - (0.3 - x0) / v) <= 1e-12 * (0.3 - x0) / v
    # the one event is each marker's crossing: asked by any of them, the trajectory gives its time
    for label in ("m1", "m2", "m3"):
        assert trajectory.event_times(label).tolist() == [trajectory.events[0].time]


def test_exceeding_the_event_bound_is_an_error():
    walls = _line_walls()
    from skcomplex import ContinuousSpace, PointElement, Simulation, System
    system = System([PointElement("ball", x=0.5, x_d1=50.0)], walls, ContinuousSpace(1))
    with pytest.raises(EventLimitError, match=r"max_events=4.*larger max_events or a smaller dt"):
        Simulation(system, dt=0.5, max_events=4).run(until=1.0)


def test_a_step_with_exactly_max_events_crossings_completes():
    """The bound is on more than ``max_events`` crossings: the seven bounces of one step of 2.0 s between
    walls 1 apart at 3.7 per s complete under ``max_events=7``, and are refused under 6."""
    from skcomplex import ContinuousSpace, PointElement, Simulation, System

    walls = _line_walls()
    system = System([PointElement("ball", x=0.25, x_d1=3.7)], walls, ContinuousSpace(1))
    trajectory = Simulation(system, dt=2.0, max_events=7).run(until=2.0).trajectory_
    assert len(trajectory.events) == 7
    with pytest.raises(EventLimitError, match=r"max_events=6"):
        Simulation(system, dt=2.0, max_events=6).run(until=2.0)


def test_a_crossing_at_the_very_end_of_the_step_still_counts_against_the_bound():
    """At 3.375 per s from 0.25 the seventh bounce lands exactly at the step's end, 6.75 / 3.375 = 2.0 s,
    so no time is left after it: the step ends on its own, and only the count says that it took one
    crossing more than ``max_events=6`` allows."""
    from skcomplex import ContinuousSpace, PointElement, Simulation, System

    walls = _line_walls()
    system = System([PointElement("ball", x=0.25, x_d1=3.375)], walls, ContinuousSpace(1))
    trajectory = Simulation(system, dt=2.0, max_events=7).run(until=2.0).trajectory_
    assert len(trajectory.events) == 7 and trajectory.events[-1].time == 2.0
    with pytest.raises(EventLimitError, match=r"max_events=6"):
        Simulation(system, dt=2.0, max_events=6).run(until=2.0)


def test_a_chain_advances_by_its_taylor_polynomial():
    """Between events a chain of derivatives moves by its exact polynomial, each term over its factorial:
    a constant jerk j from (x, v, a) gives x + v t + a t^2/2 + j t^3/6."""
    import jax
    import jax.numpy as jnp

    from skcomplex.engine._stepper import advance_states, chains_of

    states = {"x": 1.0, "x_d1": 2.0, "x_d2": 3.0, "x_d3": 4.0}  # one element's states
    t = 0.5
    with jax.enable_x64(True):
        out = advance_states({k: jnp.asarray(v) for k, v in states.items()}, chains_of(states), jnp.asarray(t))
    assert float(out["x"]) == pytest.approx(1 + 2 * t + 3 * t**2 / 2 + 4 * t**3 / 6, rel=1e-15)
    assert float(out["x_d1"]) == pytest.approx(2 + 3 * t + 4 * t**2 / 2, rel=1e-15)
    assert float(out["x_d2"]) == pytest.approx(3 + 4 * t, rel=1e-15)
    assert float(out["x_d3"]) == 4.0


def test_a_wall_crossed_later_in_the_step_waits_for_its_own_crossing():
    """In one step of 1.9 the ball hits right (t = 0.5), top (t = 1) and left (t = 1.5) of the unit box; the
    top wall, found from the first search on, must not act before the ball reaches it."""
    trajectory = simulate(box_walls(), 1.9, 1.9, x=[0.5, 0.5], x_d1=[1.0, 0.5]).trajectory_
    assert [e.interactions for e in trajectory.events] == [("right",), ("top",), ("left",)]
    # exact path: straight lines between the walls; 1e-12 is the finder's promised EVENT_TIME_RTOL
    np.testing.assert_allclose(trajectory.event_times(), [0.5, 1.0, 1.5], rtol=1e-12, atol=0)
    np.testing.assert_allclose(trajectory.events[0].states["ball.x_d1"], [-1.0, 0.5], atol=1e-12)
    np.testing.assert_allclose(trajectory.events[1].states["ball.x"], [0.5, 1.0], atol=1e-12)
    np.testing.assert_allclose(trajectory.values("ball.x")[-1], [0.4, 0.55], atol=1e-12)


@functools.lru_cache(maxsize=None)
def sloped_floor(slope: float, side: float):
    """The guard side * (slope x - y): the floor y = slope x, with the point on the side where it is negative.
    One function object per (slope, side), so the runs that share it share a compiled run loop (skcomplex keys
    its loops by the guard's identity; restitution and dt are arguments of the loop)."""
    return lambda s: side * (slope * s.target.x[0] - s.target.x[1])


@pytest.mark.parametrize("direction", [1, 0, -1])
@pytest.mark.parametrize("slope", [0.0, 0.7])
def test_a_point_stopped_on_a_floor_that_it_is_pressed_into_stays_on_it_or_the_run_says_why(slope, direction):
    """SKC-ANO-001, resolved: dropped from 1 m under 1 m/s^2 onto a floor with restitution 0, on a level
    floor and on a slope's plane, for each direction of crossing: the point must stay on the floor (to
    rounding), or the run must stop with an error naming the wall. It lands at t = sqrt(2) s (x = 0 on
    every floor), and nothing can hold it there, so the run stops in the step that holds the landing."""
    side = 1.0 if direction >= 0 else -1.0  # the guard's sign puts the point on the from side
    floor = ReflectionInteraction("floor", target="ball", guard=sloped_floor(slope, side), direction=direction,
                                  restitution=0.0)
    with pytest.raises(RestingContactError, match="wall 'floor'") as stopped:
        simulate([floor], 0.1, 3.0, x=[0.0, 1.0], x_d1=[0.0, 0.0], x_d2=[0.0, -1.0])
    assert stopped.value.wall == "floor"
    assert stopped.value.start <= math.sqrt(2.0) <= stopped.value.end


@pytest.mark.parametrize("dt", [0.1, 1e-3, 1e-6])
@pytest.mark.parametrize("direction", [1, 0, -1])
def test_a_point_sliding_along_a_slope_it_is_not_pressed_into_slides_on(direction, dt):
    """Restitution 0 on the slope y = 0.7 x, the acceleration along it: the point lands (its normal speed is
    1 m/s, its distance d0) at t = d0 and then slides, its distance along the slope s0 + 0.3 t + t^2 / 4 throughout
    (a reflection with e = 0 only removes the normal part). It is never reported as pressed, for each direction
    of crossing and at steps down to 1e-6 s, where the slope's tilt gives the guard's rate rounding to compare."""
    k = 0.7
    along, normal = np.array([1.0, k]) / math.hypot(1.0, k), np.array([-k, 1.0]) / math.hypot(1.0, k)
    side = 1.0 if direction >= 0 else -1.0
    floor = ReflectionInteraction("floor", target="ball", guard=sloped_floor(k, side), direction=direction,
                                  restitution=0.0)
    start = np.array([0.0, 1e-4])
    d0, s0 = float(normal @ start), float(along @ start)
    until = d0 + 200 * dt
    trajectory = simulate([floor], dt, until, x=start, x_d1=0.3 * along - normal, x_d2=0.5 * along).trajectory_
    assert [e.interactions for e in trajectory.events] == [("floor",)]
    np.testing.assert_allclose(trajectory.values("ball.x")[-1], (s0 + 0.3 * until + until**2 / 4) * along,
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("direction", [1, 0, -1])
def test_a_point_pulled_off_a_floor_after_landing_is_not_pressed(direction):
    """Thrown down at 1 m/s from 0.1 m with an acceleration of 1 m/s^2 upward, onto a floor with restitution 0:
    it lands at t = 1 - sqrt(0.8) s, is held with no normal speed, and the acceleration lifts it off again:
    y = (t - t_land)^2 / 2 afterwards."""
    side = 1.0 if direction >= 0 else -1.0
    floor = ReflectionInteraction("floor", target="ball", guard=sloped_floor(0.0, side), direction=direction,
                                  restitution=0.0)
    trajectory = simulate([floor], 0.1, 2.0, x=[0.0, 0.1], x_d1=[0.0, -1.0], x_d2=[0.0, 1.0]).trajectory_
    landing = 1.0 - math.sqrt(0.8)
    np.testing.assert_allclose(trajectory.event_times(), [landing], rtol=1e-12)
    np.testing.assert_allclose(trajectory.values("ball.x")[-1, 1], (2.0 - landing) ** 2 / 2, rtol=1e-12)


@pytest.mark.parametrize("direction", [1, -1])
@pytest.mark.parametrize("restitution", [0.0, 0.5])
def test_a_point_started_at_rest_on_a_floor_it_is_pressed_into_stops_the_run(direction, restitution):
    """Started on the floor y = 0 at rest, 1 m/s^2 pressing it in: no crossing is left to find, whatever the
    restitution, so the first step must stop naming the floor (a two-sided wall: below)."""
    side = 1.0 if direction >= 0 else -1.0
    floor = ReflectionInteraction("floor", target="ball", guard=sloped_floor(0.0, side), direction=direction,
                                  restitution=restitution)
    with pytest.raises(RestingContactError, match="wall 'floor'") as stopped:
        simulate([floor], 0.1, 1.0, x=[0.0, 0.0], x_d1=[0.0, 0.0], x_d2=[0.0, -1.0])
    assert (stopped.value.start, stopped.value.end) == (0.0, 0.1)


CORNER_FLOOR = ReflectionInteraction("floor", target="ball", guard=lambda s: -s.target.x[1], direction=1,
                                    restitution=0.0)
CORNER_RAMP = ReflectionInteraction("ramp", target="ball", guard=lambda s: s.target.x[0] + s.target.x[1] - 1.0,
                                    direction=1, restitution=1.0)


def test_a_point_turned_into_the_floor_it_slides_on_stops_the_run_in_the_step_of_the_turn():
    """SKC-ANO-003, resolved. Thrown from (0.05, 0.1) at (1, -1) m/s with no acceleration, the point lands on the
    floor y = 0 at t = 0.1 s (restitution 0) and slides right at 1 m/s into the ramp x + y = 1, which it meets at
    x = 1, t = 0.95 s; the ramp (restitution 1) turns it straight down into the floor it slides on. Nothing is
    left to locate there, so the run must stop naming the floor, in the step that holds t = 0.95 s."""
    with pytest.raises(RestingContactError, match="wall 'floor'") as stopped:
        simulate([CORNER_FLOOR, CORNER_RAMP], 0.1, 2.0, x=[0.05, 0.1], x_d1=[1.0, -1.0], x_d2=[0.0, 0.0])
    assert stopped.value.wall == "floor"
    assert stopped.value.start <= 0.95 <= stopped.value.end
    assert stopped.value.end - stopped.value.start == pytest.approx(0.1)


def test_a_point_turned_off_the_floor_at_a_corner_runs_on():
    """The control of the corner: a ramp turning the sliding point up and back (x - y = 1 from the right side,
    restitution 1: (1, 0) becomes (0, 1)) sends it away from the floor, which is no defect. It leaves at
    t = 0.95 s and rises at 1 m/s: at t = 2 s it is at (1, 1.05)."""
    ramp = ReflectionInteraction("ramp", target="ball", guard=lambda s: s.target.x[0] - s.target.x[1] - 1.0,
                                 direction=1, restitution=1.0)
    trajectory = simulate([CORNER_FLOOR, ramp], 0.1, 2.0, x=[0.05, 0.1], x_d1=[1.0, -1.0],
                          x_d2=[0.0, 0.0]).trajectory_
    np.testing.assert_allclose(trajectory.event_times(), [0.1, 0.95], rtol=1e-12)
    np.testing.assert_allclose(trajectory.values("ball.x")[-1], [1.0, 1.05], rtol=1e-12)


def test_a_point_started_at_rest_on_a_two_sided_wall_it_is_pressed_into_stops_the_run():
    """SKC-ANO-003, resolved. A two-sided wall (direction 0) that was never hit has no side of an impact; a point
    started at rest on it is pressed into the side its acceleration moves it to, so the first step must stop."""
    two_sided = ReflectionInteraction("floor", target="ball", guard=lambda s: -s.target.x[1], direction=0,
                                      restitution=0.0)
    with pytest.raises(RestingContactError, match="wall 'floor'") as stopped:
        simulate([two_sided], 0.1, 1.0, x=[0.0, 0.0], x_d1=[0.0, 0.0], x_d2=[0.0, -1.0])
    assert (stopped.value.start, stopped.value.end) == (0.0, 0.1)


def test_a_point_at_rest_on_a_pure_event_marker_crosses_it():
    """A ``CrossingInteraction`` itself only marks crossings (it ``holds`` nothing): a point started at rest on
    it and accelerated at 1 m/s^2 goes through, y = -t^2 / 2, and no run stops for it."""
    marker = CrossingInteraction("marker", target="ball", guard=lambda s: -s.target.x[1], direction=1)
    trajectory = simulate([marker], 0.1, 1.0, x=[0.0, 0.0], x_d1=[0.0, 0.0], x_d2=[0.0, -1.0]).trajectory_
    np.testing.assert_allclose(trajectory.values("ball.x")[-1], [0.0, -0.5], rtol=1e-12)


def test_a_point_through_a_hole_in_the_floor_and_one_sliding_off_its_edge_go_on():
    """Where a wall's ``region`` does not hold, there is no wall, and nothing there can be pressed. The floor
    y = 0 reflects only for x < 0.5 (restitution 0). A point falling through it at x = 0.6 crosses at t = 0.05 s
    and goes on at 1 m/s. A point that lands at x = 0.1 and slides right meets, past x = 0.5, a guard whose
    surface rises into its path, 4 (x - 0.5)^2 = y, where that floor does not act: it slides on along y = 0."""
    hole = ReflectionInteraction("floor", target="ball", guard=lambda s: -s.target.x[1], direction=1,
                                 restitution=0.0, region=lambda s: s.target.x[0] < 0.5)
    trajectory = simulate([hole], 0.1, 1.0, x=[0.6, 0.05], x_d1=[0.0, -1.0], x_d2=[0.0, 0.0]).trajectory_
    np.testing.assert_allclose(trajectory.values("ball.x")[-1], [0.6, -0.95], rtol=1e-12)
    edge = ReflectionInteraction("floor", target="ball",
                                 guard=lambda s: 4.0 * jnp.maximum(s.target.x[0] - 0.5, 0.0) ** 2 - s.target.x[1],
                                 direction=1, restitution=0.0, region=lambda s: s.target.x[0] < 0.5)
    trajectory = simulate([edge], 0.1, 1.0, x=[0.05, 0.05], x_d1=[1.0, -1.0], x_d2=[0.0, 0.0]).trajectory_
    np.testing.assert_allclose(trajectory.event_times(), [0.05], rtol=1e-12)
    np.testing.assert_allclose(trajectory.values("ball.x")[-1], [1.05, 0.0], rtol=1e-12, atol=1e-15)


def test_a_point_started_on_the_floor_and_slid_into_the_corner_stops_the_run():
    """The corner of the test above, from a start on the floor (at rest across it, sliding right at 1 m/s) rather
    than a landing: the slide is watched from the first pass, so the turn at x = 1, t = 0.95 s stops the run."""
    with pytest.raises(RestingContactError, match="wall 'floor'") as stopped:
        simulate([CORNER_FLOOR, CORNER_RAMP], 0.1, 2.0, x=[0.05, 0.0], x_d1=[1.0, 0.0], x_d2=[0.0, 0.0])
    assert stopped.value.start <= 0.95 <= stopped.value.end


def test_a_step_that_both_presses_the_point_in_and_runs_out_of_events_names_the_pressing():
    """Landing at 1 m/s on a floor with restitution 0, under gravity, and sliding on at 2 m/s into a wall at x = 1,
    all in one step of 0.5 s, with ``max_events=1``: the step is pressed into the floor and needs a second crossing.
    The run names the pressing (``RestingContactError``), the failure a larger ``max_events`` would not cure; with
    two or more events allowed it is the only one."""
    from skcomplex import ContinuousSpace, PointElement, Simulation, System

    walls = [ReflectionInteraction("floor", target="ball", guard=plane_guard([0.0, -1.0], 0.0), direction=1,
                                   restitution=0.0),
             ReflectionInteraction("right", target="ball", guard=plane_guard([1.0, 0.0], 1.0), direction=1)]
    for max_events in (1, 2):
        ball = PointElement("ball", x=[0.5, 0.01], x_d1=[2.0, -1.0], x_d2=[0.0, -9.81])
        with pytest.raises(RestingContactError, match="t=0 to t=0.5 the point moves into wall 'floor'"):
            Simulation(System([ball], walls, ContinuousSpace(2)), dt=0.5, max_events=max_events).run(until=0.5)


def test_a_point_started_at_rest_across_a_wall_is_on_it_after_the_step():
    """Started on the slope y = 0.7 x at rest across it, moving along it at (1, 0.7) m/s: the step's state says the
    point sits on the floor (``on_wall``), so that later passes watch the slide even where rounding leaves the guard a
    hair off zero along it."""
    import jax

    from skcomplex import ContinuousSpace, PointElement, Simulation, System

    floor = ReflectionInteraction("floor", target="ball", guard=sloped_floor(0.7, 1.0), direction=1, restitution=0.0)
    ball = PointElement("ball", x=[0.0, 0.0], x_d1=[1.0, 0.7], x_d2=[0.0, 0.0])
    simulation = Simulation(System([ball], [floor], ContinuousSpace(2)), dt=0.1).prepare()
    with jax.enable_x64(True):
        state, info = jax.jit(simulation.step_function(differentiable=False))(
            simulation.initial_state_, simulation.params_, 0.1)
    assert bool(state["on_wall"][0]) and not bool(info["pressed"][0])
    np.testing.assert_allclose(state["elements"]["ball"]["x"], [0.1, 0.07], rtol=1e-12)


def test_a_point_started_on_a_wall_moving_into_it_stops_the_run():
    """Started exactly on the floor y = 0 moving down at 1 m/s: the crossing at the start is not located, and nothing
    else would be, so the first step must stop, whatever the restitution."""
    floor = ReflectionInteraction("floor", target="ball", guard=lambda s: -s.target.x[1], direction=1,
                                  restitution=1.0)
    with pytest.raises(RestingContactError, match="wall 'floor'") as stopped:
        simulate([floor], 0.1, 1.0, x=[0.0, 0.0], x_d1=[0.0, -1.0], x_d2=[0.0, 0.0])
    assert (stopped.value.start, stopped.value.end) == (0.0, 0.1)


@pytest.mark.parametrize("dt", [0.5, 0.4, 0.125, 0.1])
def test_an_apex_exactly_on_a_ceiling_is_a_touch_not_a_pass(dt):
    """Thrown up at 1 m/s under 1 m/s^2 from y = 0, the point's apex is exactly the ceiling y = 0.5 (restitution 1),
    at t = 1 s. Rounding may leave its velocity there pointing away already; a reflection then would turn it into
    the ceiling. The touch changes nothing: y(2) = 0 (to the located tangency's own precision, sqrt of rounding)."""
    ceiling = ReflectionInteraction("ceiling", target="ball", guard=lambda s: s.target.x[1] - 0.5, direction=1,
                                    restitution=1.0)
    trajectory = simulate([ceiling], dt, 2.0, x=[0.0, 0.0], x_d1=[0.0, 1.0], x_d2=[0.0, -1.0]).trajectory_
    assert np.all(trajectory.values("ball.x")[:, 1] <= 0.5 + 1e-15)
    np.testing.assert_allclose(trajectory.values("ball.x")[-1], [0.0, 0.0], atol=3e-8)


def test_a_departure_grazing_a_wall_finds_no_return_in_the_rounding():
    """An elastic box under gravity, the ball thrown so that its apex lands exactly on the lid, then falls back:
    after the grazing hit the search from the wall once found a "return" a few 1e-10 s later, in the rounding of
    (g(tau) - g(0)) / tau while the point moved away, and reflected the point back into the lid. At t = 1.5 s the
    ball is at (0.875, 0.75), the closed form, for every step."""
    for dt in (0.25, 0.125, 0.1, 0.05):
        trajectory = simulate(box_walls(1.0), dt, 1.5, x=[0.5, 0.0], x_d1=[0.25, 2.0], x_d2=[0.0, -2.0]).trajectory_
        np.testing.assert_allclose(trajectory.values("ball.x")[-1], [0.875, 0.75], rtol=1e-7)


def test_a_ledge_holds_what_lies_on_it_and_lets_go_past_its_edge():
    """The floor y = 0 reflects only for x < 0.5 (restitution 0). A point sliding right along it at 1 m/s under
    1 m/s^2 downward is pressed into it from the start, before the edge: the first step stops, for a step that ends
    past the edge too. One landing on it at x = 0.4 stops in the landing's step. One started in the hole (x = 0.55)
    sliding left falls through the hole and passes under the ledge: no wall is crossed there, and the run goes on."""
    ledge = ReflectionInteraction("floor", target="ball", guard=lambda s: -s.target.x[1], direction=1,
                                  restitution=0.0, region=lambda s: s.target.x[0] < 0.5)
    for dt in (0.1, 0.01):
        with pytest.raises(RestingContactError, match="wall 'floor'") as stopped:
            simulate([ledge], dt, 0.1, x=[0.45, 0.0], x_d1=[1.0, 0.0], x_d2=[0.0, -1.0])
        assert stopped.value.start == 0.0
    with pytest.raises(RestingContactError, match="wall 'floor'") as stopped:
        simulate([ledge], 0.1, 0.3, x=[0.35, 0.005], x_d1=[1.0, 0.0], x_d2=[0.0, -1.0])
    assert stopped.value.start <= 0.1 <= stopped.value.end
    trajectory = simulate([ledge], 0.1, 0.1, x=[0.55, 0.0], x_d1=[-1.0, 0.0], x_d2=[0.0, -1.0]).trajectory_
    np.testing.assert_allclose(trajectory.values("ball.x")[-1], [0.45, -0.005], rtol=1e-12)


def v_walls(slope: float, restitution: float = 1.0, order: tuple[str, ...] = ("left", "right")) -> list:
    """The two arms of the V y = slope |x| as walls, in ``order``."""
    arms = {"left": ReflectionInteraction("left", target="ball", guard=lambda s: -slope * s.target.x[0] - s.target.x[1],
                                          direction=1, restitution=restitution),
            "right": ReflectionInteraction("right", target="ball", guard=lambda s: slope * s.target.x[0] - s.target.x[1],
                                           direction=1, restitution=restitution)}
    return [arms[name] for name in order]


@pytest.mark.parametrize("order, leaving", [(("left", "right"), [0.8, 0.6]), (("right", "left"), [-0.8, 0.6])])
def test_an_elastic_drop_onto_the_vertex_of_a_v_leaves_off_the_first_wall_and_stays_above_both(order, leaving):
    """SKC-ANO-004. Dropped at 1 m/s straight onto the vertex of the V y = |x| / 2 (restitution 1), the point hits
    both walls at once. The first wall in the system's order reflects it, to (0.8, 0.6) m/s off the left arm: that
    already moves it away from the other arm (at -0.2 m/s of its guard), which then does not act. It stays above both
    walls at every step, with its speed kept. Reflected off both, as it was, it was turned into the second arm."""
    trajectory = simulate(v_walls(0.5, order=order), 0.1, 1.0, x=[0.0, 0.5], x_d1=[0.0, -1.0], x_d2=[0.0, 0.0]).trajectory_
    x, v = trajectory.values("ball.x"), trajectory.values("ball.x_d1")
    assert np.all(x[:, 1] >= 0.5 * np.abs(x[:, 0]) - 1e-12)
    np.testing.assert_allclose(v[-1], leaving, rtol=1e-14)
    np.testing.assert_allclose(trajectory.event_times(), [0.5], rtol=1e-14)


def test_an_inelastic_drop_onto_a_wide_vertex_is_reflected_once():
    """Onto the vertex of y = |x| / 4 with restitution 0.5, the left arm's reflection alone gives (1.5 s / (1 + s^2),
    -1 + 1.5 / (1 + s^2)) with s = 1/4, that is (6/17, 7/17) m/s, moving away from the right arm: that arm does not act. (Reflected
    there as well and then back, the speed away from it would be scaled by 0.25, not kept.)"""
    trajectory = simulate(v_walls(0.25, 0.5), 0.1, 1.0, x=[0.0, 0.5], x_d1=[0.0, -1.0], x_d2=[0.0, 0.0]).trajectory_
    np.testing.assert_allclose(trajectory.values("ball.x_d1")[-1], [6.0 / 17.0, 7.0 / 17.0], rtol=1e-14)


@pytest.mark.parametrize("restitution", [1.0, 0.5])
def test_a_drop_into_a_narrow_v_is_turned_until_it_leaves_both_walls(restitution):
    """Into the V y = 3 |x| (an opening of 37 degrees) the first reflection turns the point into the other arm, and
    that one's back into the first: the walls act again, in the same instant, until the point moves away from both
    (elastic, five reflections here: left three times, right twice, in three sweeps). It leaves upwards at -0.07584 m/s across and 0.99712 up (restitution 1: the speed is
    kept), and stays above both walls."""
    trajectory = simulate(v_walls(3.0, restitution), 0.1, 1.0, x=[0.0, 0.5], x_d1=[0.0, -1.0],
                          x_d2=[0.0, 0.0]).trajectory_
    x, v = trajectory.values("ball.x"), trajectory.values("ball.x_d1")
    assert np.all(x[:, 1] >= 3.0 * np.abs(x[:, 0]) - 1e-12)
    assert v[-1, 1] > 3.0 * abs(v[-1, 0])  # moving away from both arms
    if restitution == 1.0:
        np.testing.assert_allclose(v[-1], [-0.07584, 0.99712], rtol=1e-13)


def test_a_vertex_that_needs_more_turns_than_the_sweeps_stops_the_run_naming_a_wall():
    """Into the V y = 5 |x| (23 degrees) the point would need more reflections in one instant than the step takes
    (1 + VERTEX_SWEEPS per wall): it is left moving into a wall, and the run stops in a step that reaches the drop's
    time, naming the wall, rather than let it through."""
    with pytest.raises(RestingContactError, match="wall '(left|right)'") as stopped:
        simulate(v_walls(5.0), 0.1, 1.0, x=[0.0, 0.5], x_d1=[0.0, -1.0], x_d2=[0.0, 0.0])
    assert stopped.value.start <= 0.5 <= stopped.value.end


@pytest.mark.parametrize("slope", [1.7, 3.0])
@pytest.mark.parametrize("across", [0.3, 0.0, -0.2])
def test_a_vertex_reached_on_a_step_end_is_a_vertex_too(slope, across):
    """Aimed at the vertex of y = slope |x| so that it arrives at t = 0.5 s, a step's end (dt = 0.1 s): the second
    arm's crossing then falls a rounding past the step, and was hit first thing in the next step, alone, turning the
    point into the first arm unwatched, so it went through it. A wall within TIE of the event is hit with it: both
    arms are hit at 0.5 s, and the point stays above both (to rounding) with its speed kept."""
    trajectory = simulate(v_walls(slope), 0.1, 0.8, x=[-0.5 * across, 1.5], x_d1=[across, -3.0],
                          x_d2=[0.0, 0.0]).trajectory_
    x, v = trajectory.values("ball.x"), trajectory.values("ball.x_d1")
    assert np.all(x[:, 1] >= slope * np.abs(x[:, 0]) - 1e-15)
    assert [(round(e.time, 12), e.interactions) for e in trajectory.events] == [(0.5, ("left", "right"))]
    np.testing.assert_allclose(np.hypot(*v[-1]), np.hypot(across, 3.0), rtol=1e-14)


@pytest.mark.parametrize("slope, restitution", [(0.5, 0.5), (0.5, 0.0), (3.0, 1.0), (3.0, 0.5)])
def test_a_vertex_of_two_walls_whose_regions_end_there_holds_the_point(slope, restitution):
    """A corner built from two half-lines: the arms of y = slope |x|, each with a region (x <= 0, x >= 0) that ends at
    the vertex. At the hit, rounding put x at -3.6e-18, outside the right arm's region, so that arm did not act and
    the point went through it. A hit wall's region is read just past the hit too: both arms act at the first event,
    and the point stays above both."""
    left, right = v_walls(slope, restitution)
    left = ReflectionInteraction("left", target="ball", guard=left.guard, direction=1, restitution=restitution,
                                 region=lambda s: s.target.x[0] <= 0)
    right = ReflectionInteraction("right", target="ball", guard=right.guard, direction=1, restitution=restitution,
                                  region=lambda s: s.target.x[0] >= 0)
    trajectory = simulate([left, right], 0.1, 0.3, x=[-0.035, 0.25], x_d1=[0.7, -5.0], x_d2=[0.0, 0.0]).trajectory_
    x = trajectory.values("ball.x")
    assert np.all(x[:, 1] >= slope * np.abs(x[:, 0]) - 1e-15)
    assert trajectory.events[0].interactions == ("left", "right") and trajectory.events[0].acted == ("left", "right")


def test_the_vertex_sweeps_are_the_same_batched_vmapped_and_differentiable():
    """A batch of drops into the V y = 3 |x|, one onto its vertex (five reflections, in three sweeps, in one instant) and two onto its
    arms: the batched step (which sweeps again only while a point of the batch is at a vertex) equals the vmapped
    per-point step bit for bit, and the differentiable step (a fixed number of sweeps) gives the same states to 1e-14."""
    import jax

    from skcomplex import ContinuousSpace, PointElement, Simulation, System

    simulation = Simulation(System([PointElement("ball", x=[0.0, 0.5], x_d1=[0.0, -1.0])], v_walls(3.0),
                                   ContinuousSpace(2)), dt=0.1).prepare()
    with jax.enable_x64(True):
        state = {"t": jnp.zeros(3), "on_wall": jnp.zeros((3, 2), bool), "scale": jnp.zeros((3, 2)),
                 "elements": {"ball": {"x": jnp.asarray([[0.0, 0.5], [0.1, 0.5], [-0.05, 0.5]]),
                                       "x_d1": jnp.asarray([[0.0, -5.0], [0.0, -5.0], [0.0, -5.0]])}}}
        batched = jax.jit(simulation.step_function(differentiable=False, batched=True))
        per_point = jax.jit(jax.vmap(simulation.step_function(differentiable=False), in_axes=(0, None, None)))
        traced = jax.jit(jax.vmap(simulation.step_function(differentiable=True), in_axes=(0, None, None)))
        runs = [step(state, simulation.params_, 0.1) for step in (batched, per_point, traced)]
    (first, info), (second, _), (third, _) = runs
    for a, b in zip(jax.tree_util.tree_leaves(first), jax.tree_util.tree_leaves(second)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    for a, b in zip(jax.tree_util.tree_leaves(first["elements"]), jax.tree_util.tree_leaves(third["elements"])):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-14, atol=1e-15)
    x, v = np.asarray(first["elements"]["ball"]["x"]), np.asarray(first["elements"]["ball"]["x_d1"])
    assert np.all(x[:, 1] >= 3.0 * np.abs(x[:, 0]) - 1e-12) and not np.any(np.asarray(info["pressed"]))
    assert v[0, 1] > 3.0 * abs(v[0, 0])  # the one dropped onto the vertex leaves both arms


def test_a_run_that_cannot_go_on_keeps_what_it_has_without_throw():
    """``run(until, throw=False)``, as Diffrax's ``throw=False``: the corner's run keeps its error in ``error_``
    (the one ``throw=True`` raises, naming the floor and the step from 0.9 to 1.0 s), its states up to that step's
    start, NaN from its end on, and the landing at 0.1 s but not the turn inside the failing step. A drop that
    bounces ever faster keeps its EventLimitError so; a run that finishes has ``error_`` None."""
    from skcomplex import ContinuousSpace, PointElement, Simulation, System

    ball = PointElement("ball", x=[0.05, 0.1], x_d1=[1.0, -1.0], x_d2=[0.0, 0.0])
    kept = Simulation(System([ball], [CORNER_FLOOR, CORNER_RAMP], ContinuousSpace(2)), dt=0.1).run(2.0, throw=False)
    assert isinstance(kept.error_, RestingContactError) and kept.error_.wall == "floor"
    assert (kept.error_.start, kept.error_.end) == (0.9, 1.0)
    x = kept.trajectory_.values("ball.x")
    np.testing.assert_allclose(x[9], [0.95, 0.0], rtol=1e-12)
    assert np.all(np.isnan(x[10:])) and np.all(np.isfinite(x[:10]))
    np.testing.assert_allclose(kept.trajectory_.event_times(), [0.1], rtol=1e-12)
    tiny = ReflectionInteraction("floor", target="ball", guard=lambda s: -s.target.x[1], direction=1,
                                 restitution=1e-3)
    drop = PointElement("ball", x=[0.0, 1.0], x_d1=[0.0, 0.0], x_d2=[0.0, -1.0])
    bounced = Simulation(System([drop], [tiny], ContinuousSpace(2)), dt=0.1).run(3.0, throw=False)
    assert isinstance(bounced.error_, EventLimitError)
    free = Simulation(System([drop], [tiny], ContinuousSpace(2)), dt=0.1).run(1.0, throw=False)
    assert free.error_ is None and np.all(np.isfinite(free.trajectory_.values("ball.x")))
    with pytest.raises(EventLimitError):  # a run that raises leaves nothing of the earlier run behind
        free.run(3.0)
    assert not hasattr(free, "trajectory_") and not hasattr(free, "error_")


def test_a_touch_at_a_sample_time_does_not_hide_a_later_crossing_in_the_step():
    """The path y = x - x^2/2 (from the origin at (1, 1) m/s under 1 m/s^2 down) has its apex (1, 0.5) at t = 1 s,
    tangent there to the ceiling y = 0.5 - 2 (x - 1)^3 (restitution 1), which then comes down and meets the path
    at t = 1.25 s. With dt = 0.8 the step from 0.8 s samples the tangency exactly; the crossing after it must
    still be found: the point never ends above the ceiling, and bounces at 1.25 s."""
    ceiling = ReflectionInteraction("ceiling", target="ball",
                                    guard=lambda s: s.target.x[1] - (0.5 - 2.0 * (s.target.x[0] - 1.0) ** 3),
                                    direction=1, restitution=1.0)
    for dt in (0.8, 0.5):
        trajectory = simulate([ceiling], dt, 1.6, x=[0.0, 0.0], x_d1=[1.0, 1.0], x_d2=[0.0, -1.0]).trajectory_
        x = trajectory.values("ball.x")
        assert np.all(x[:, 1] - (0.5 - 2.0 * (x[:, 0] - 1.0) ** 3) <= 1e-12)
        assert 1.25 in np.round(trajectory.event_times(), 6)


@pytest.mark.parametrize("floor, entries", [
    (lambda x: x**3 - x, "x^3 - x: roots -1 (in), 0 (out, on a sample), 1 (in); the next sample is past the wall"),
    (lambda x: x * (x + 1) * (x - 2), "x (x + 1) (x - 2): roots -1 (in), 0 (out, on a sample), 2 (in); the next "
                                      "sample is back on the point's side"),
], ids=["next-sample-past", "next-sample-back"])
def test_an_exit_root_on_a_sample_time_does_not_hide_the_entry_before_it(floor, entries):
    """SKC-ANO-005. Moving at 12 m/s along y = 0 from x = -1.5 over a wavy floor (restitution 1, dt = 1 s, samples
    every 1/8 s), the point meets the floor at x = -1 (t = 1/24 s) going in; the floor's exit root x = 0 falls exactly
    on a sample time (t = 1/8 s). The bracket from the step's start ends on that exit: the entry inside it is found,
    first, at 1/24 s, and the point never ends below the floor. With the next sample back on the point's side the
    zero sample once counted as a touch and the point crossed the hump between -1 and 0 unseen."""
    wall = ReflectionInteraction("floor", target="ball", guard=lambda s: floor(s.target.x[0]) - s.target.x[1],
                                 direction=1, restitution=1.0)
    trajectory = simulate([wall], 1.0, 2.0, x=[-1.5, 0.0], x_d1=[12.0, 0.0], x_d2=[0.0, 0.0]).trajectory_
    x = trajectory.values("ball.x")
    assert np.all(floor(x[:, 0]) - x[:, 1] <= 1e-9), entries
    np.testing.assert_allclose(trajectory.event_times()[0], 1.0 / 24.0, rtol=1e-12)


def test_a_zero_sample_is_an_entry_a_touch_or_an_exit_by_its_rate():
    """``locate_crossing`` on paths sampled exactly on a root (span 1, samples every 1/8): an entry on the sample
    (f = tau - 1/8) is found there; a tangency on it (f = -(tau - 1/8)^2) is none; an exit on it (f = (tau - 1/16)
    (1/8 - tau), in at 1/16) gives the entry before it, whether the next sample is back on the point's side or, past a
    second entry at 0.2, beyond the wall again. An entry on a sample is one even where the guard leaves before the next
    sample, and a sub-interval that starts on a tangency is searched for the entry in it."""
    import jax
    import jax.numpy as jnp

    from skcomplex.engine.events import locate_crossing

    def first(path):
        with jax.enable_x64(True):
            found, tau, _, _ = locate_crossing(path, jnp.asarray(1.0), direction=1, on_wall=jnp.asarray(False))
        return bool(found), float(tau)

    assert first(lambda t: t - 0.125) == (True, 0.125)
    assert first(lambda t: -((t - 0.125) ** 2))[0] is False
    found, tau = first(lambda t: (t - 0.0625) * (0.125 - t))
    assert found and tau == pytest.approx(0.0625, rel=1e-14)
    found, tau = first(lambda t: (t - 0.0625) * (t - 0.125) * (t - 0.2))  # in again at 0.2: the next sample is past
    assert found and tau == pytest.approx(0.0625, rel=1e-14)
    # a tangency on the sample tilted by 1e-20 (as rounding tilts one): its slope there, -3.75e-21, is far below
    # EXIT_RTOL of the span's rate, so it is a touch, and the entry at 0.5 is found
    found, tau = first(lambda t: (t - 0.125) * (t - 0.125 + 1e-20) * (t - 0.5))
    assert found and tau == pytest.approx(0.5, rel=1e-14)
    # an entry exactly on a sample whose exit comes before the next sample (once taken for a touch)
    found, tau = first(lambda t: (t - 0.25) * (0.3 - t))
    assert (found, tau) == (True, 0.25)
    # a tangency on a sample, then an entry at 0.3 in the next sub-interval: polished from that sub-interval's middle
    found, tau = first(lambda t: -((t - 0.25) ** 2) * (0.3 - t))
    assert found and tau == pytest.approx(0.3, rel=1e-14)


@pytest.mark.xfail(strict=True, reason=(
    "SKC-ANO-006, found 2026-12-07: a sample exactly on zero is read by the guard's rate at the first one only, and "
    "one with no rate there is taken for a touch from the point's side, so an exit through a triple root, a tangency "
    "from the wall's far side, or an exit on a sample after a tangency on an earlier one hides the entry before it"))
@pytest.mark.parametrize("path, entry", [
    (lambda t: (t - 0.2) * (0.25 - t) ** 3, 0.2),
    (lambda t: (t - 0.05) * (t - 0.125) ** 2 * (0.2 - t), 0.05),
    (lambda t: -((t - 0.125) ** 2) * (t - 0.6) * (t - 0.625), 0.6),
], ids=["triple-exit", "far-side-tangency", "exit-after-a-tangency"])
def test_a_zero_sample_after_the_first_or_with_no_rate_does_not_hide_the_entry_before_it(path, entry):
    """``locate_crossing`` (span 1, samples every 1/8): the path enters at ``entry`` and reaches zero again exactly on
    a sample from past the wall, with no rate there, or after an earlier tangency on a sample; the entry must be
    found."""
    import jax
    import jax.numpy as jnp

    from skcomplex.engine.events import locate_crossing

    with jax.enable_x64(True):
        found, tau, _, _ = locate_crossing(path, jnp.asarray(1.0), direction=1, on_wall=jnp.asarray(False))
    assert bool(found) and float(tau) == pytest.approx(entry, rel=1e-12)


def test_the_step_reports_each_pressed_point_of_a_batch_by_its_wall():
    """``info['pressed']`` of the batched step (and of the per-point step, which it equals bit for bit) flags the
    point pressed into the floor and not the one sliding along it."""
    import jax
    import jax.numpy as jnp

    from skcomplex import ContinuousSpace, PointElement, Simulation, System

    floor = ReflectionInteraction("floor", target="ball", guard=lambda s: -s.target.x[1], direction=1, restitution=0.0)
    ball = PointElement("ball", x=[0.0, 1.0], x_d1=[0.0, 0.0], x_d2=[0.0, -1.0])
    simulation = Simulation(System([ball], [floor], ContinuousSpace(2)), dt=0.1).prepare()
    with jax.enable_x64(True):
        state = {"t": jnp.zeros(2), "on_wall": jnp.zeros((2, 1), bool), "scale": jnp.zeros((2, 1)),
                 "elements": {"ball": {"x": jnp.asarray([[0.0, 0.05], [0.0, 0.05]]),
                                       "x_d1": jnp.asarray([[0.0, -1.0], [1.0, -1.0]]),
                                       "x_d2": jnp.asarray([[0.0, -1.0], [0.5, 0.0]])}}}
        batched = jax.jit(simulation.step_function(differentiable=False, batched=True))
        per_point = jax.jit(jax.vmap(simulation.step_function(differentiable=False), in_axes=(0, None, None)))
        (_, info), (_, alone) = batched(state, simulation.params_, 0.1), per_point(state, simulation.params_, 0.1)
    np.testing.assert_array_equal(info["pressed"], [[True], [False]])
    np.testing.assert_array_equal(alone["pressed"], info["pressed"])


def test_a_slow_departure_is_judged_against_its_own_walls_impact():
    """The slide floor of each wall is a share of that wall's own last impact speed. Here the left wall is hit at
    100 m/s, then the floor at about 1.5 m/s with restitution 1e-9: the point leaves the floor at 1.5e-9 m/s, above
    the floor's own slide floor (1e-10 of 1.5 m/s) and below the left wall's (1e-10 of 100 m/s). Judged as a
    departure it bounces ever lower until a step holds more crossings than max_events; judged against the left
    wall's impact it would be taken as sliding and stopped as pressed into the floor."""
    left = ReflectionInteraction("left", target="ball", guard=lambda s: -s.target.x[0], direction=1, restitution=1.0)
    floor = ReflectionInteraction("floor", target="ball", guard=lambda s: -s.target.x[1], direction=1,
                                  restitution=1e-9)
    with pytest.raises(EventLimitError):
        simulate([left, floor], 0.25, 1.0, x=[0.5, 0.5], x_d1=[-100.0, -1.0], x_d2=[0.0, -1.0])


@pytest.mark.parametrize("restitution", [1e-6, 1e-9])
def test_a_bounce_too_short_to_leave_the_walls_rounding_does_not_fall_through(restitution):
    """SKC-ANO-002, resolved: dropped onto a floor with a tiny restitution, the point bounces ever lower (bounce k
    lasts 2 e^k v / a), so a step holds more crossings than max_events and the run must stop saying so. A bounce
    left the point a hair below the floor (rounding), and the return search, polished towards g = 0 rather than
    to the start's own level, put the return at the start: the reflection turned the departing point back
    down, and it fell through."""
    floor = ReflectionInteraction("floor", target="ball", guard=sloped_floor(0.0, 1.0), direction=1,
                                  restitution=restitution)
    with pytest.raises(EventLimitError):
        simulate([floor], 0.25, 1.0, x=[0.0, 0.5], x_d1=[0.0, -1.0], x_d2=[0.0, -1.0])
