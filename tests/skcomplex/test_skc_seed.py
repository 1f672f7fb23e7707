"""The seed's example and the boundary convention it relies on."""

import numpy as np
import pytest

from skcomplex import ContinuousSpace, PointElement, ReflectionInteraction, Simulation, System


def seed_simulation(dt=0.5):
    wall = ReflectionInteraction('wall', target='ball', guard=lambda s: s.target.x[0] - 1, direction=1)
    ball = PointElement('ball', x=[0.0, 0.0], x_d1=[1.0, 1.0])
    system = System(elements=[ball], interactions=[wall], space=ContinuousSpace(n_dim=2))
    return Simulation(system, dt=dt).check().prepare().run(until=2.0)


def test_seed_example_verbatim():
    from skcomplex.core.elements import PointElement
    from skcomplex.core.spaces import ContinuousSpace
    from skcomplex.core.system import System
    from skcomplex.engine.runtime import Simulation
    from skcomplex.models.physics.common.mechanics import ReflectionInteraction
    wall = ReflectionInteraction('wall', target='ball', guard=lambda s: s.target.x[0] - 1, direction=1)
    ball = PointElement('ball', x=[0.0, 0.0], x_d1=[1.0, 1.0])
    system = System(elements=[ball], interactions=[wall], space=ContinuousSpace(n_dim=2))
    trajectory = Simulation(system, dt=0.5).check().prepare().run(until=2.0).trajectory_
    assert trajectory.values('ball.x')[-1].tolist() == [0.0, 2.0]


def test_crossing_on_a_step_boundary_belongs_to_the_step_that_ends_there():
    trajectory = seed_simulation().trajectory_
    # one event, at t = 1.0 exactly, the end of the second step
    assert [e.time for e in trajectory.events] == [1.0]
    k = int(np.nonzero(trajectory.times == 1.0)[0][0])
    # the output state at t = 1.0 is already reflected: on the wall, moving away
    assert trajectory.values('ball.x')[k].tolist() == [1.0, 1.0]
    assert trajectory.values('ball.x_d1')[k].tolist() == [-1.0, 1.0]
    # the step before it ends short of the wall with the old velocity
    assert trajectory.values('ball.x_d1')[k - 1].tolist() == [1.0, 1.0]


def test_a_point_starting_on_the_wall_and_moving_away_does_not_retrigger():
    wall = ReflectionInteraction('wall', target='ball', guard=lambda s: s.target.x[0] - 1, direction=0)
    ball = PointElement('ball', x=[1.0, 0.0], x_d1=[-1.0, 0.5])
    sim = Simulation(System([ball], [wall], ContinuousSpace(2)), dt=0.25).run(until=1.0)
    assert sim.trajectory_.events == []
    assert sim.trajectory_.values('ball.x')[-1].tolist() == [0.0, 0.5]


@pytest.mark.parametrize("dt", [0.5, 0.25, 1.0 / 3.0])
def test_seed_result_does_not_depend_on_dt(dt):
    final = seed_simulation(dt).trajectory_.values('ball.x')[-1]
    np.testing.assert_allclose(final, [0.0, 2.0], rtol=0, atol=1e-14)


@pytest.mark.parametrize("until, dt, steps", [(0.3, 0.1, 3), (0.7, 0.1, 7), (4.9, 0.7, 7), (2.3, 0.01, 230)])
def test_a_run_whose_length_is_a_whole_number_of_steps_in_decimals_takes_that_many(until, dt, steps):
    """``until / dt`` of two decimals lands an ulp either side of a whole number (4.9 / 0.7 is
    7.000000000000001): the run still takes that many steps, the last ending at ``until``, and no
    step of zero length is added after it."""
    system = System([PointElement("ball", x=0.0, x_d1=0.5)], [], ContinuousSpace(1))
    trajectory = Simulation(system, dt=dt).run(until=until).trajectory_
    times = np.asarray(trajectory.times)
    assert len(times) == steps + 1 and times[-1] == until
    assert np.all(np.diff(times) > 0.5 * dt)
