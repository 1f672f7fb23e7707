"""The reflection law: restitution, tangential velocity, speed conservation, direction, region."""

import numpy as np
import pytest

from skc_scenarios import box_walls, plane_guard, simulate
from skcomplex import ReflectionInteraction, reflect


def test_speed_is_conserved_to_1e_14_over_many_reflections_at_e_1():
    # a circle (curved wall) and no acceleration: about 50 reflections
    wall = ReflectionInteraction("ring", target="ball", guard=lambda s: s.target.x @ s.target.x - 1.0, direction=1)
    v0 = np.array([9.3, -4.4])
    trajectory = simulate([wall], 0.05, 10.0, x=[0.1, 0.2], x_d1=v0).trajectory_
    assert len(trajectory.events) > 40
    speeds = np.linalg.norm(trajectory.values("ball.x_d1"), axis=1)
    assert np.max(np.abs(speeds - np.linalg.norm(v0))) <= 1e-14 * np.linalg.norm(v0)


@pytest.mark.parametrize("restitution", [0.0, 0.35, 1.0])
def test_normal_velocity_is_scaled_by_minus_e_and_tangential_is_kept(restitution):
    n = np.array([1.0, 2.0]) / np.sqrt(5.0)
    wall = ReflectionInteraction("wall", target="ball", guard=plane_guard(n, 1.0), direction=1,
                                 restitution=restitution)
    v0 = np.array([0.8, 0.9])
    trajectory = simulate([wall], 0.1, 2.0, x=[0.0, 0.0], x_d1=v0).trajectory_
    after = trajectory.events[0].states["ball.x_d1"]
    tangent = np.array([-n[1], n[0]])
    assert abs(after @ n - (-restitution) * (v0 @ n)) < 1e-14
    assert abs(after @ tangent - v0 @ tangent) < 1e-14


def test_reflect_with_an_unnormalized_normal():
    out = np.asarray(reflect(np.array([3.0, -4.0]), np.array([0.0, -10.0]), 0.5))
    np.testing.assert_allclose(out, [3.0, 2.0], rtol=0, atol=1e-15)


def _line(direction, x0, v0):
    wall = ReflectionInteraction("wall", target="ball", guard=lambda s: s.target.x - 1.0, direction=direction)
    return simulate([wall], 0.1, 1.0, x=x0, x_d1=v0).trajectory_


def test_direction_plus_one_reflects_only_negative_to_positive():
    assert len(_line(1, 0.5, 1.0).events) == 1       # from x < 1 up through x = 1: reflected
    assert len(_line(1, 1.5, -1.0).events) == 0      # from x > 1 down: passes
    assert _line(1, 1.5, -1.0).values("ball.x")[-1] == pytest.approx(0.5)


def test_direction_minus_one_reflects_only_positive_to_negative():
    assert len(_line(-1, 0.5, 1.0).events) == 0
    assert _line(-1, 0.5, 1.0).values("ball.x")[-1] == pytest.approx(1.5)
    trajectory = _line(-1, 1.5, -1.0)
    assert len(trajectory.events) == 1
    assert trajectory.values("ball.x")[-1] == pytest.approx(1.5)


def test_direction_zero_reflects_both_ways():
    for x0, v0 in ((0.5, 1.0), (1.5, -1.0)):
        trajectory = _line(0, x0, v0)
        assert len(trajectory.events) == 1
        assert trajectory.values("ball.x")[-1] == pytest.approx(x0)


def test_region_lets_the_point_cross_where_it_is_false():
    # the wall x = 1 only reflects for y > 0
    def make():
        return ReflectionInteraction("wall", target="ball", guard=lambda s: s.target.x[0] - 1.0, direction=1,
                                     region=lambda s: s.target.x[1] > 0)
    hole = simulate([make()], 0.1, 1.0, x=[0.5, -0.5], x_d1=[1.0, 0.0]).trajectory_
    assert hole.events[0].interactions == ("wall",) and hole.events[0].acted == ()
    assert hole.values("ball.x")[-1].tolist() == pytest.approx([1.5, -0.5])
    wall = simulate([make()], 0.1, 1.0, x=[0.5, 0.5], x_d1=[1.0, 0.0]).trajectory_
    assert wall.events[0].acted == ("wall",)
    assert wall.values("ball.x")[-1].tolist() == pytest.approx([0.5, 0.5])


def test_box_keeps_the_point_inside():
    trajectory = simulate(box_walls(0.9), 0.05, 5.0, x=[0.3, 0.6], x_d1=[2.1, -1.7]).trajectory_
    x = trajectory.values("ball.x")
    assert np.all(x >= -1e-12) and np.all(x <= 1 + 1e-12)
    assert len(trajectory.events) > 10


def test_event_times_of_a_wall_include_the_crossings_its_region_let_through():
    # the wall x = 1 only reflects for y > 0; at y = -0.5 the ball crosses it at t = 0.5 and goes on
    hole = ReflectionInteraction("wall", target="ball", guard=lambda s: s.target.x[0] - 1.0, direction=1,
                                 region=lambda s: s.target.x[1] > 0)
    trajectory = simulate([hole], 0.1, 1.0, x=[0.5, -0.5], x_d1=[1.0, 0.0]).trajectory_
    # 1e-12: the finder's promised EVENT_TIME_RTOL
    np.testing.assert_allclose(trajectory.event_times("wall"), [0.5], rtol=1e-12, atol=0)
    np.testing.assert_allclose(trajectory.event_times(), [0.5], rtol=1e-12, atol=0)
