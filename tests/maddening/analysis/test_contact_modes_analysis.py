"""maddening.analysis.contact_modes against direct eigen-solutions and an impulse through the dynamics."""

from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import maddening
from maddening.analysis import coupled_modes, critical_step, delassus, effective_mass, reduced_mass
from maddening.analysis.contact_modes import REDUNDANT_RTOL
from maddening.core import BoundaryInputField, DiscretizationOrder, Node, NodeMeta, Stability, StateField
from maddening.core.simulation.integrators import integrate_node

BAR_J = np.array([[1.0, -0.1], [1.0, 0.1]])
BAR_M = np.diag([2.0, 0.005])


def spd(draw_matrix, n):
    B = draw_matrix.reshape(n, n)
    return B @ B.T + n * np.eye(n)


def _direct(J, M, k):
    """Direct eigen-solutions, independent of coupled_modes' route through the symmetric S.

    ``coordinates``: the generalized symmetric-definite problem ``J^T K J q = w^2 M q`` of
    ``M q'' + J^T K J q = 0`` (scipy); ``gaps``: the eigenvalues of the unsymmetric ``A K``.
    """
    coordinates = scipy.linalg.eigh(J.T @ np.diag(k) @ J, M, eigvals_only=True)
    AK = J @ np.linalg.solve(M, J.T) @ np.diag(k)
    return coordinates, np.sort(np.linalg.eigvals(AK).real), AK


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 4), gaps=st.integers(1, 5),
    scales=st.tuples(*(st.integers(-30, 30),) * 3),
    data=st.data(),
)
def test_coupled_modes_against_direct_eigen_solutions(n, gaps, scales, data):
    """Every eigenvalue, the redundant count and each mode shape, against direct eigen-solutions.

    J's entries may be as small as float64 allows (hypothesis found ``J = [[4.2e-124]]``, a gap
    that moves, however little: one mode, not a redundant gap), and J, M, K are each scaled by
    10^-30..10^30 (other units): every tolerance is relative to the largest eigenvalue, the
    scale of the problem, never absolute.
    """
    B = data.draw(arrays(np.float64, (n, n), elements=st.floats(-1, 1)))
    J = data.draw(arrays(np.float64, (gaps, n), elements=st.floats(-1, 1)))
    k = data.draw(arrays(np.float64, (gaps,), elements=st.floats(0.1, 10)))
    # J is all zeros, or its largest entry is >= 1e-60: with the scales, A and S stay in float64's
    # normal range (test_out_of_range_is_refused covers the rest)
    assume(np.abs(J).max() == 0 or np.abs(J).max() >= 1e-60)
    sv = np.linalg.svd(J, compute_uv=False)
    # a rank that is not a matter of rounding, judged relative to J's own scale
    assume(np.all((sv <= 1e-12 * sv.max()) | (sv >= 1e-2 * sv.max())))
    rank = int(np.sum(sv > 1e-12 * sv.max()))
    e_J, e_M, e_K = scales
    J, M, k = J * 10.0**e_J, (B @ B.T + np.eye(n)) * 10.0**e_M, k * 10.0**e_K

    modes = coupled_modes(J, M, k)
    coordinates, gap_values, AK = _direct(J, M, k)
    scale = max(gap_values.max(), 0.0)  # the largest squared frequency (0 only for J = 0)
    assert modes.redundant == gaps - rank
    assert modes.frequencies.size == rank
    assert np.sum(coordinates > 1e-10 * scale) == rank if scale > 0 else rank == 0
    # all gap eigenvalues (zeros included), and the oscillating ones against the coordinate problem
    np.testing.assert_allclose(modes.squared, gap_values, rtol=0, atol=1e-11 * scale)
    np.testing.assert_allclose(modes.frequencies**2, np.sort(coordinates)[n - rank:], rtol=0, atol=1e-11 * scale)
    assert np.all(modes.squared[: modes.redundant] == 0.0)
    assert np.all(modes.frequencies**2 > REDUNDANT_RTOL * scale)
    # each reported gap shape (largest entry +1) is an eigenvector of A K with its own frequency squared
    for w, xi in zip(modes.frequencies, modes.gap_shapes.T):
        assert np.abs(xi).max() == pytest.approx(1.0, rel=1e-15)
        np.testing.assert_allclose(AK @ xi, w**2 * xi, rtol=0, atol=1e-10 * scale)


def test_a_gap_that_moves_however_little_is_a_mode_not_redundant():
    """The example hypothesis shrank to: one gap, J = 4.17e-124, was counted redundant by the test's
    absolute singular-value threshold; coupled_modes' relative test is right (one mode, w = J sqrt(k/m))."""
    J = np.array([[4.17497662e-124]])
    modes = coupled_modes(J, [[1.0]], [1.0])
    assert modes.redundant == 0
    assert modes.frequencies == pytest.approx([4.17497662e-124], rel=1e-14)
    assert critical_step("central_difference", J, [[1.0]], [1.0]) == pytest.approx(2 / 4.17497662e-124, rel=1e-14)


@pytest.mark.parametrize("factor", [2.0**-300, 1e-100, 1e-30, 1.0, 1e30, 1e100])
def test_the_redundant_count_does_not_depend_on_units(factor):
    J3 = np.array([[1.0, -0.1], [1.0, 0.0], [1.0, 0.1]])
    base = coupled_modes(J3, BAR_M, [1e5, 2e5, 1e5])
    scaled = coupled_modes(J3 * factor, BAR_M, [1e5, 2e5, 1e5])
    assert (scaled.redundant, base.redundant) == (1, 1)
    np.testing.assert_allclose(scaled.frequencies, base.frequencies * factor, rtol=1e-12)
    for a, b in zip(scaled.gap_shapes.T, base.gap_shapes.T):  # entries +1 and -1 tie for largest: up to sign
        assert np.allclose(a, b, atol=1e-12) or np.allclose(a, -b, atol=1e-12)


@pytest.mark.parametrize("J,M,K,argument", [
    ([[1e-170]], [[1.0]], [1.0], "J"),          # A underflows to 0: it read as a redundant gap, critical_step inf
    ([[1e-160]], [[1.0]], [1.0], "J"),          # A is subnormal: its frequency came back 6e-6 off
    ([[1e200]], [[1.0]], [1.0], "J"),           # A overflows: it read as a redundant gap, critical_step inf
    ([[1.0]], [[1e-310]], [1.0], "J"),          # M^-1 overflows
    ([[1e10]], [[1.0]], [1e300], "K"),          # S overflows
    ([[1e-100]], [[1.0]], [1e-200], "K"),       # S underflows
])
def test_out_of_range_is_refused(J, M, K, argument):
    with pytest.raises(maddening.ValidationError, match=rf"{argument} = .*within float64's range"):
        coupled_modes(J, M, K)
    with pytest.raises(maddening.ValidationError, match=rf"{argument} = "):
        critical_step("central_difference", J, M, K)


def test_a_jacobian_of_zeros_is_all_redundant():
    modes = coupled_modes(np.zeros((2, 3)), np.eye(3), [1.0, 2.0])
    assert modes.redundant == 2 and modes.frequencies.size == 0 and np.all(modes.squared == 0)
    assert critical_step("central_difference", np.zeros((2, 3)), np.eye(3), [1.0, 2.0]) == np.inf


@pytest.mark.parametrize("rtol", [-1e-10, 1.0, float("nan"), float("inf"), "1e-10", None, True, [1e-10]])
def test_bad_rtol_is_refused(rtol):
    with pytest.raises(maddening.ValidationError, match="rtol = "):
        coupled_modes(BAR_J, BAR_M, [1e5, 1e5], rtol=rtol)


def test_rtol_sets_the_redundant_threshold():
    J = np.array([[1.0, 0.0], [0.0, 1e-6]])  # eigenvalues 1 and 1e-12 of S (M = I, K = 1)
    assert coupled_modes(J, np.eye(2), [1.0, 1.0]).redundant == 1
    assert coupled_modes(J, np.eye(2), [1.0, 1.0], rtol=1e-14).redundant == 0


def test_seed_bar():
    modes = coupled_modes(BAR_J, BAR_M, [1e5, 1e5])
    np.testing.assert_allclose(modes.delassus, [[2.5, -1.5], [-1.5, 2.5]], atol=1e-12)
    np.testing.assert_allclose(modes.frequencies, [np.sqrt(1e5), np.sqrt(4e5)], rtol=1e-12)
    np.testing.assert_allclose(np.abs(modes.gap_shapes), 1.0, atol=1e-12)
    assert critical_step("central_difference", BAR_J, BAR_M, [1e5, 1e5]) == pytest.approx(2 / np.sqrt(4e5), rel=1e-8)
    assert critical_step("trapezoidal", BAR_J, BAR_M, [1e5, 1e5]) == np.inf


def test_third_support_is_redundant():
    J = np.array([[1.0, -0.1], [1.0, 0.0], [1.0, 0.1]])
    modes = coupled_modes(J, BAR_M, [1e5, 2e5, 1e5])
    assert modes.redundant == 1 and modes.frequencies.size == 2


class FreeBody(Node):
    """M v' = F: generalized coordinates q (2), velocities v, a generalized force input."""

    meta: ClassVar = NodeMeta("TEST-FREE", "0", Stability.EXPERIMENTAL, "any", DiscretizationOrder())
    state_fields: ClassVar = (StateField("q", (2,)), StateField("v", (2,), rate_of="q"))
    boundary_input_fields: ClassVar = (BoundaryInputField("force", (2,)),)

    def __init__(self, M):
        self.M = jnp.asarray(M)
        super().__init__()

    def derivatives(self, state, boundary_inputs, params=None):
        return {"q": state["v"], "v": jnp.linalg.solve(self.M, boundary_inputs["force"])}


@settings(max_examples=20, deadline=None)
@given(m=st.floats(0.1, 10), inertia=st.floats(1e-3, 1.0), r=st.floats(-0.5, 0.5), P=st.floats(0.01, 5))
def test_effective_mass_is_the_impulse_response(m, inertia, r, P):
    with jax.enable_x64(True):
        M = np.diag([m, inertia])
        J = np.array([1.0, r])
        node = FreeBody(M)
        dt = 1e-3
        s0 = {"q": jnp.zeros(2), "v": jnp.zeros(2)}
        s1 = integrate_node(node, s0, {"force": jnp.asarray(J * P / dt)}, dt, method="symplectic_euler")
        gap_rate = float(J @ np.asarray(s1["v"]))
    assert gap_rate == pytest.approx(P / effective_mass(J, M), rel=1e-12)


def test_effective_mass_seed_and_reduced_mass():
    assert effective_mass([1.0, 0.1], np.diag([2.0, 0.02])) == pytest.approx(1.0)
    assert effective_mass([1.0, 0.0], np.diag([2.0, 0.02])) == pytest.approx(2.0)
    assert reduced_mass(2.0, 2.0) == pytest.approx(1.0)
    assert reduced_mass(2.0) == 2.0
    # the gap between two particles: J = [-1, 1] on (x1, x2)
    assert effective_mass([-1.0, 1.0], np.diag([2.0, 3.0])) == pytest.approx(reduced_mass(2.0, 3.0))


@pytest.mark.parametrize("call,argument", [
    (lambda: delassus(BAR_J, np.diag([2.0, -1.0])), "M"),
    (lambda: delassus(BAR_J, np.ones((3, 3))), "M"),
    (lambda: coupled_modes(BAR_J, BAR_M, [1e5, -1.0]), "K"),
    (lambda: coupled_modes(BAR_J, BAR_M, [[1.0, 1.0], [0.0, 1.0]]), "K"),
    (lambda: effective_mass(BAR_J, BAR_M), "J"),
    (lambda: effective_mass([0.0, 0.0], BAR_M), "J"),
    (lambda: reduced_mass(-1.0, 2.0), "m1"),
    (lambda: delassus("J", BAR_M), "J"),
])
def test_bad_input_names_the_argument(call, argument):
    with pytest.raises(maddening.ValidationError, match=f"{argument} = "):
        call()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_the_delassus_matrix_is_symmetric_to_the_bit(gaps, extra, seed):
    """``J M^-1 J^T`` is symmetric; computed through a solve, its two triangles round apart (193 of 200 random
    draws of up to six coordinates), so the function returns it symmetric to the bit, as the symmetric eigensolver
    and a reader expect."""
    rng = np.random.default_rng(seed)
    n = gaps + extra
    B = rng.normal(size=(n, n))
    A = delassus(rng.normal(size=(gaps, n)), B @ B.T + 0.1 * np.eye(n))
    assert np.array_equal(A, A.T)
