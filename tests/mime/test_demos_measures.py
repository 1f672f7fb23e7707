"""The demos' measures, which the contact's pages claim with, against closed forms of their own."""

import math

import numpy as np
import pytest

from mime import demos
from mime.geometry import Box, Hull


def test_hull_gaps_of_a_box_over_the_floor_are_its_height_less_its_half_depth_and_the_margin():
    """A box's samples include its bottom face, so its least gap over the floor is exact: the centre's height
    ``h`` less half the box's depth and the margin (level, at three heights)."""
    box = Hull([Box(6e-4, 4e-4, 3e-4)])
    heights = np.array([1e-3, 4e-4, 2.5e-4])
    positions = np.column_stack([np.zeros(3), np.full(3, 2e-4), heights])
    level = np.tile([1.0, 0.0, 0.0, 0.0], (3, 1))
    gaps = demos.hull_gaps(box, demos.FLOOR.surface, positions, level, demos.MARGIN / 4)
    np.testing.assert_allclose(gaps, heights - 1.5e-4 - demos.MARGIN, rtol=0, atol=1e-18)


@pytest.mark.parametrize("turn_deg, expected_deg", [(90.0, 0.0), (-90.0, 0.0), (0.0, 90.0), (45.0, 45.0),
                                                    (135.0, 45.0)])
def test_axis_angle_is_the_angle_between_the_body_axis_and_the_tube_axis_as_lines(turn_deg, expected_deg):
    """A body turned about ``y`` by ``a`` has its ``z`` axis at ``(sin a, 0, cos a)``: a line, so pointing along
    ``-x`` is as aligned with the tube (``x``) as pointing along ``+x``; the angle lies in ``[0, 90]`` degrees."""
    half = math.radians(turn_deg) / 2
    q = np.array([[math.cos(half), 0.0, math.sin(half), 0.0]])
    assert math.degrees(float(demos.axis_angle(q)[0])) == pytest.approx(expected_deg, abs=1e-12)
