"""The hull kinds' lengths: a real number in metres, never parsed from text (fuzz finding F-MI-4)."""

import numpy as np
import pytest

from mime.errors import ValidationError
from mime.geometry import Box, Capsule, Cylinder, Ellipsoid, Hull, Screw, Sphere


@pytest.mark.parametrize("radius", ["1.0", b"1", 1j, True, None, [1.0], np.array(["1.0"])])
def test_sphere_radius_is_never_parsed_from_text(radius):
    """F-MI-4 (fuzz): Sphere(radius='1.0') and Sphere(b'1') were accepted, the radius parsed from text."""
    with pytest.raises(ValidationError, match=r"Sphere: radius = .* is not allowed; expected a positive length in metres"):
        Sphere(radius)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Ellipsoid(1.0, "2", 1.0), r"Ellipsoid: b = '2'"),
        (lambda: Cylinder(b"1", 2.0), r"Cylinder: radius = b'1'"),
        (lambda: Capsule(1.0, "2.0"), r"Capsule: length = '2.0'"),
        (lambda: Box("1", 1.0, 1.0), r"Box: x = '1'"),
        (lambda: Screw("1.0", 0.1, 0.5, 2.0), r"core_radius = '1.0'"),
        (lambda: Hull(extent="1e-3"), r"Hull: extent = '1e-3'"),
    ],
)
def test_every_kind_refuses_a_length_given_as_text(make, match):
    """The other kinds share the check (``positive_length``), so they refuse text the same way."""
    with pytest.raises(ValidationError, match=match):
        make()


def test_real_numbers_of_any_numeric_type_are_still_lengths():
    assert Sphere(np.float32(0.5)).radius == 0.5
    assert Sphere(np.array(2.0)).radius == 2.0
    assert Sphere(3).radius == 3.0
