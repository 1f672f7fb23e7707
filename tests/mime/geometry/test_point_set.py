"""PointSet: a hull of given points (a bar's supports)."""

import numpy as np
import pytest

from mime import ValidationError
from mime.geometry import Hull, PointSet


def test_samples_are_the_points_at_every_spacing_and_the_shortfall_is_zero():
    ps = PointSet([(-0.1, 0.0, 0.0), (0.1, 0.0, 0.05)])
    for spacing in (1e-4, 0.05, 10.0):
        pts, normals = ps.sample(spacing)
        np.testing.assert_array_equal(pts, [[-0.1, 0.0, 0.0], [0.1, 0.0, 0.05]])
        np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0)
        assert ps.shortfall(spacing) == 0.0
    assert ps.size == pytest.approx(2 * np.hypot(0.1, 0.05))
    assert ps.radial_extent == pytest.approx(0.1) and ps.wall_maxima == 2 and not ps.has_support


def test_a_hull_of_points_saves_and_loads():
    hull = Hull([PointSet([(-0.1, 0.0, 0.0), (0.1, 0.0, 0.0)])])
    loaded = Hull.from_document(hull.to_document(), hull.to_arrays())
    assert loaded.to_document() == hull.to_document() and loaded.parts[0].geometry == hull.parts[0].geometry


@pytest.mark.parametrize("points", [
    [], [(0.0, 0.0)], [("0", "0", "0")], [(0.0, 0.0, np.nan)], [(0.0, 0.0, 0.0)], [(1j, 0.0, 0.0)], None, "abc",
])
def test_bad_points_are_refused_naming_the_argument(points):
    with pytest.raises(ValidationError, match=r"PointSet: points = .* is not allowed; expected finite body-frame points"):
        PointSet(points)
