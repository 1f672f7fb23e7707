"""Mesh(vertices, faces) and Part(position, orientation): real numbers only, never parsed from text.

Both converted with ``np.asarray(..., dtype=float64)``, which parsed ``'1.0'`` (and
``['0', '0', '0']``) as numbers, read ``True`` as 1.0, and raised a bare ``ValueError``
for ``'abc'`` and a bare ``TypeError`` for a complex entry. They now go through
``mime.errors.real_array``: mime's ``ValidationError``, naming the argument and the value.
"""

import numpy as np
import pytest

from mime.errors import ValidationError
from mime.geometry import Capsule, Hull, Mesh, Part, Sphere, rotation
from mime.geometry.sampled import cylinder_mesh

PRISM = cylinder_mesh(1.0, 2.0, 6)
V, F = PRISM.vertices, PRISM.faces
TETRA_V = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
TETRA_F = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]


@pytest.mark.parametrize("vertices", [
    "abc", "1.0", b"1", None, True, 1j, {"a": 1.0},
    [["0", "0", "0"], ["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]],   # was parsed and accepted
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1j]],    # was a bare TypeError
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], ["0", "0", "abc"]],  # was a bare ValueError
    [[True, False, False], [False, True, False], [False, False, True], [False, False, False]],
    V.astype(complex), V.astype(str), V > 0,
    np.where(V == V.max(), np.nan, V), np.where(V == V.max(), np.inf, V),
    [[0.0, 0.0, 0.0], [1.0, 1.0]],  # ragged
])
def test_mesh_vertices_must_be_finite_real_numbers(vertices):
    with pytest.raises(ValidationError, match=r"(?s)Mesh: vertices = .* is not allowed; expected finite real numbers"):
        Mesh(vertices, F if isinstance(vertices, np.ndarray) else TETRA_F)


@pytest.mark.parametrize("vertices", [V[:, :2], V[:3], V.ravel(), np.zeros((4, 3, 1))])
def test_mesh_vertices_of_the_wrong_shape_are_refused_with_their_shape(vertices):
    with pytest.raises(ValidationError, match=r"(?s)Mesh: vertices = .* is not allowed; expected .*\(V, 3\).* \(given: shape .*\)"):
        Mesh(vertices, F)


@pytest.mark.parametrize("faces", [
    "abc", None, True, 1j, {"a": 1}, F.astype(float), F.astype(str), F > 0, F.astype(complex),
    [["0", "2", "1"], ["0", "1", "3"], ["0", "3", "2"], ["1", "2", "3"]],
    [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2]],  # ragged: was a bare ValueError from NumPy
])
def test_mesh_faces_must_be_whole_number_indices(faces):
    with pytest.raises(ValidationError, match=r"(?s)Mesh: faces = .* is not allowed; expected whole-number vertex indices"):
        Mesh(V if isinstance(faces, np.ndarray) else TETRA_V, faces)


@pytest.mark.parametrize("faces, match", [
    (F[:, :2], r"(?s)faces = .* \(given: shape \(24, 2\)\)"), (F[:3], r"(?s)faces = .* \(given: shape \(3, 3\)\)"),
    (F + 100, r"faces = '<indices 100\.\.113>' is not allowed; expected indices 0\.\.13"),
    (F - 100, r"faces = '<indices -100\.\.-87>' is not allowed; expected indices 0\.\.13"),
])
def test_mesh_faces_of_the_wrong_shape_or_range_are_refused(faces, match):
    with pytest.raises(ValidationError, match=match):
        Mesh(V, faces)


def test_a_mesh_of_real_numbers_of_any_numeric_type_is_unchanged():
    expect = Mesh(TETRA_V, TETRA_F)
    for vertices in (np.array(TETRA_V, dtype=np.int64), np.array(TETRA_V, dtype=np.float32), tuple(map(tuple, TETRA_V))):
        for faces in (np.array(TETRA_F, dtype=np.uint16), np.array(TETRA_F, dtype=np.int32), TETRA_F):
            m = Mesh(vertices, faces)
            assert m == expect and m.vertices.dtype == np.float64 and m.faces.dtype == np.int64
    assert Mesh(V.tolist(), F.tolist()) == PRISM
    # a mesh wound inward is still turned round
    assert Mesh(TETRA_V, np.array(TETRA_F)[:, ::-1]) == expect


@pytest.mark.parametrize("position", [
    "abc", "1.0", b"1", None, True, 1j, ["0", "0", "0"], (True, False, True), (1j, 0.0, 0.0),
    (0.0, 0.0), (np.nan, 0.0, 0.0), (0.0, np.inf, 0.0), np.zeros((3, 1)), {"x": 0.0},
])
def test_part_position_must_be_three_finite_real_numbers(position):
    with pytest.raises(ValidationError, match=r"(?s)Part: position = .* is not allowed; expected three finite lengths in metres"):
        Part(Sphere(0.5), position)


@pytest.mark.parametrize("orientation", [
    "abcd", "1.0", None, True, 1j, ["1", "0", "0", "0"], (True, False, False, False), (1j, 0.0, 0.0, 0.0),
    (1.0, 0.0, 0.0), (1.0, 1.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0), (np.nan, 0.0, 0.0, 0.0),
])
def test_part_orientation_must_be_a_unit_quaternion_of_real_numbers(orientation):
    with pytest.raises(ValidationError, match=r"(?s)Part: orientation = .* is not allowed; expected a unit quaternion \(w, x, y, z\)"):
        Part(Sphere(0.5), (0.0, 0.0, 0.0), orientation)


def test_a_part_of_real_numbers_of_any_numeric_type_is_unchanged():
    p = Part(Capsule(0.5, 2.0), np.array([1, 2, 3]), np.array([1, 0, 0, 0], dtype=np.int8))
    assert p.position == (1.0, 2.0, 3.0) and p.orientation == rotation.IDENTITY
    assert all(type(c) is float for c in p.position + p.orientation)
    q = (np.cos(0.3), 0.0, np.sin(0.3), 0.0)
    assert Part(Sphere(0.5), (0, 0, 0), q).orientation == tuple(float(c) for c in q)  # kept bit for bit
    assert Part(Sphere(0.5), orientation=np.float32([1, 0, 0, 0])).at_origin


@pytest.mark.parametrize("off", [1e-11, -3e-9, 1e-7, -9e-7])
def test_an_orientation_a_little_off_unit_length_is_taken_as_its_unit_quaternion(off):
    """Within 1e-6 of unit length an orientation is accepted (a quaternion written to a few digits) and
    stored divided by its length, so that every rotation the part makes keeps lengths."""
    given = (1.0 + off) * np.array([np.cos(0.3), 0.0, np.sin(0.3), 0.0])
    stored = np.array(Part(Sphere(0.5), orientation=tuple(given)).orientation)
    ulp = np.spacing(1.0)  # the division and the norm each round by up to an ulp
    assert abs(np.linalg.norm(stored) - 1.0) <= 2 * ulp
    np.testing.assert_allclose(stored, given / np.linalg.norm(given), rtol=0, atol=ulp)


def test_a_saved_hull_with_a_text_position_is_refused_naming_it():
    doc = Hull([Part(Sphere(0.5), (1.0, 0.0, 0.0))]).to_document()
    doc["parts"][0]["position"] = ["1", "0", "0"]
    with pytest.raises(ValidationError, match=r"(?s)Part: position = \('1', '0', '0'\)"):
        Hull.from_document(doc, {})


@pytest.mark.parametrize("faces, bad", [
    ([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 1, 3]], 3),      # a repeated vertex
    ([[0, 2, 1], [0, 1, 3], [0, 3, 2], [0, 1, 4]], 3),      # three collinear vertices
    ([[0, 0, 0], [0, 1, 3], [0, 3, 2], [1, 2, 3]], 0),      # one vertex three times
])
def test_a_face_of_no_area_is_refused_naming_it(faces, bad):
    """A face with no area has no normal; it used to be accepted and sampled with NaN normals."""
    vertices = TETRA_V + [[2.0, 0.0, 0.0]]   # vertex 4 lies on the line through 0 and 1
    with pytest.raises(ValidationError, match=rf"Mesh: faces\[{bad}\] = \[.*\] is not allowed; expected faces of non-zero area .*no area"):
        Mesh(vertices, faces)


def test_every_sampled_normal_of_a_valid_mesh_is_a_finite_unit_vector():
    points, normals = Mesh(TETRA_V, TETRA_F).sample(0.2)
    assert np.all(np.isfinite(points)) and np.all(np.isfinite(normals))
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, rtol=1e-12)
