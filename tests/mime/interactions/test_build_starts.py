"""How many searches each group of a hull starts from (``hold.starts``), as the build counts them.

A group starts one search from each separate place of its samples that a wall could touch first,
counted from the samples' neighbour graph (pairs within two spacings), and never more than the
hull's own count of places (``wall_maxima``). A smooth convex hull has one in every group. The
spinning screw of the chapter is pinned as a regression: its count per group, recorded when the
count was written, moves if the graph or the cap does.
"""

from __future__ import annotations

import numpy as np
import pytest

from mime import demos
from mime.geometry import Capsule, Cylinder, Ellipsoid, Sphere


def _starts(hull) -> list[int]:
    body = demos.make_body(hull, mass=1e-6, position=(0.0, 0.0, 5e-3))
    return np.asarray(demos.confinement(demos.attach(body, demos.FLOOR.surface)).hold.starts).tolist()


@pytest.mark.parametrize("hull", [Sphere(3e-4), Ellipsoid(5e-4, 3e-4, 2e-4), Capsule(radius=2.5e-4, length=1e-3),
                                  Cylinder(radius=3e-4, length=8e-4)], ids=lambda h: type(h).__name__)
def test_a_smooth_convex_hull_starts_one_search_a_group(hull):
    assert _starts(hull) == [1] * 8


def test_the_spinning_screws_starts_per_group():
    screw = demos.SPIN_SCREW
    starts = _starts(screw)
    assert starts == [2, 2, 2, 3, 2, 3, 2, 3]  # recorded at commit 163f29a (regression)
    assert max(starts) <= screw.wall_maxima
