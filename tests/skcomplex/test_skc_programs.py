"""The run loop is shared between simulations whose steps trace alike, and only between those."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from skcomplex import ContinuousSpace, PointElement, ReflectionInteraction, Simulation, System
from skcomplex.core.interactions import CrossingInteraction
from skcomplex.engine import _programs


def at_one(s):
    return s.target.x[0] - 1.0


def simulation(guard=at_one, dt=0.1, restitution=0.8, direction=1, x0=(0.0, 0.0), v0=(1.0, 0.0), label="wall"):
    wall = ReflectionInteraction(label, target="ball", guard=guard, direction=direction, restitution=restitution)
    ball = PointElement("ball", x=list(x0), x_d1=list(v0))
    return Simulation(System([ball], [wall], ContinuousSpace(2)), dt=dt).prepare()


def test_a_ladder_of_steps_and_restitutions_over_one_guard_shares_one_loop():
    first = simulation()
    assert simulation(dt=0.03)._chunk is first._chunk
    assert simulation(restitution=0.3, x0=(0.5, 1.0), v0=(2.0, -1.0))._chunk is first._chunk


@pytest.mark.parametrize("change", [
    {"guard": lambda s: s.target.x[0] - 1.0},  # an equal-looking guard is another function
    {"direction": 0},
    {"label": "other"},
])
def test_anything_the_step_reads_from_python_gives_a_loop_of_its_own(change):
    assert simulation(**change)._chunk is not simulation()._chunk


def test_another_state_shape_or_option_gives_a_loop_of_its_own():
    ball = PointElement("ball", x=[0.0, 0.0], x_d1=[1.0, 0.0], x_d2=[0.0, -1.0])
    wall = ReflectionInteraction("wall", target="ball", guard=at_one, direction=1, restitution=0.8)
    accelerated = Simulation(System([ball], [wall], ContinuousSpace(2)), dt=0.1).prepare()
    assert accelerated._chunk is not simulation()._chunk
    wall = ReflectionInteraction("wall", target="ball", guard=at_one, direction=1, restitution=0.8)
    ball = PointElement("ball", x=[0.0, 0.0], x_d1=[1.0, 0.0])
    fewer = Simulation(System([ball], [wall], ContinuousSpace(2)), dt=0.1, max_events=3).prepare()
    assert fewer._chunk is not simulation()._chunk


def test_a_changed_static_argument_of_the_same_interaction_is_a_new_program():
    first = simulation()
    wall = first.system.interactions[0]
    wall.direction = 0
    again = Simulation(first.system, dt=0.1).prepare()
    assert again._chunk is not first._chunk


def test_shared_and_fresh_loops_give_bitwise_the_same_run(monkeypatch):
    shared = simulation(dt=0.07, restitution=0.45).run(until=3.0).trajectory_
    simulation(dt=0.11).run(until=1.0)  # the loop is now in use by another rung
    monkeypatch.setattr(_programs, "program_key", lambda *_: None)  # every simulation jits its own
    fresh = simulation(dt=0.07, restitution=0.45).run(until=3.0).trajectory_
    np.testing.assert_array_equal(shared.values("ball.x"), fresh.values("ball.x"))
    np.testing.assert_array_equal(shared.values("ball.x_d1"), fresh.values("ball.x_d1"))
    assert [e.time for e in shared.events] == [e.time for e in fresh.events]


class Kept(CrossingInteraction):
    """A crossing that keeps an argument under another name: what the step reads of it is unknown."""

    def __init__(self, label, *, target, guard, offset: float = 0.0):
        super().__init__(label, target=target, guard=guard)
        self.shift = offset


def test_an_argument_kept_under_another_name_or_unhashable_shares_nothing():
    ball = PointElement("ball", x=[0.0, 0.0], x_d1=[1.0, 0.0])
    system = System([ball], [Kept("mark", target="ball", guard=at_one, offset=1.0)], ContinuousSpace(2))
    assert _programs.program_key(system, "options") is None
    a = Simulation(system, dt=0.1).prepare()
    b = Simulation(system, dt=0.1).prepare()
    assert a._chunk is not b._chunk
    assert a.run(until=2.0).trajectory_.events[0].time == pytest.approx(1.0, abs=1e-12)


def test_the_kept_loops_are_bounded(monkeypatch):
    monkeypatch.setattr(_programs, "_LOOPS", type(_programs._LOOPS)())
    monkeypatch.setattr(_programs, "KEPT", 3)
    built = [_programs.shared_loop(("key", k), lambda k=k: (lambda: k)) for k in range(5)]
    assert len(_programs._LOOPS) == 3
    assert _programs.shared_loop(("key", 4), lambda: None) is built[4]
    assert _programs.shared_loop(("key", 0), lambda: "rebuilt") == "rebuilt"


def test_the_loop_is_traced_once_for_a_ladder():
    traces = []

    def counted(s):
        if isinstance(s.target.x, jax.core.Tracer):  # check() also calls it, on the concrete start
            traces.append(1)
        return s.target.x[0] - 1.0

    with jax.enable_x64(False):  # the caller's setting is left alone by run()
        for dt in (0.1, 0.05, 0.025):
            simulation(guard=counted, dt=dt).run(until=1.5)
    once = len(traces)
    assert once > 0
    simulation(guard=counted, dt=0.0125).run(until=1.5)
    assert len(traces) == once  # the fourth rung traced nothing: its loop was compiled already


def test_guards_made_by_one_factory_are_different_programs_and_keep_their_own_walls():
    def wall_at(c):
        return lambda s: s.target.x[0] - c  # every guard here has the same name and code, another c

    near = simulation(guard=wall_at(1.0)).run(until=2.0).trajectory_
    far = simulation(guard=wall_at(1.5)).run(until=2.0).trajectory_
    # x = t from 0 at speed 1: the walls at x = 1 and x = 1.5 are hit at t = 1 and t = 1.5 (12 digits: the
    # finder's promised EVENT_TIME_RTOL)
    assert near.events[0].time == pytest.approx(1.0, abs=1e-12)
    assert far.events[0].time == pytest.approx(1.5, abs=1e-12)


class Window(ReflectionInteraction):
    """A wall that reflects only where the point's height lies in ``window``: an array argument, read from Python
    by the step (it is no traced parameter), so two windows are two programs even with one guard."""

    def __init__(self, label, *, target, guard, window, restitution=1.0):
        super().__init__(label, target=target, guard=guard, restitution=restitution)
        self.window = np.asarray(window, dtype=float)

    def active(self, states):
        y = self.namespace(states).target.x[1]
        return jnp.reshape((y >= self.window[0]) & (y <= self.window[1]), ())


def test_an_array_argument_of_other_values_is_another_program():
    """A key that took an array's shape and dtype but not its values would hand the second window the first's
    program: the point at height 0.5 would bounce off a wall whose window is [2, 3]."""

    def run(window):
        ball = PointElement("ball", x=[0.0, 0.5], x_d1=[1.0, 0.0])
        wall = Window("wall", target="ball", guard=at_one, window=window)
        return Simulation(System([ball], [wall], ContinuousSpace(2)), dt=0.1).prepare()

    inside, outside = run([0.0, 1.0]), run([2.0, 3.0])
    assert inside._chunk is not outside._chunk
    assert inside.run(until=2.0).trajectory_.values("ball.x")[-1][0] == pytest.approx(0.0, abs=1e-12)
    assert outside.run(until=2.0).trajectory_.values("ball.x")[-1][0] == pytest.approx(2.0, abs=1e-12)
