"""maddening.analysis.contact_modes against direct eigen-solutions and an impulse through the dynamics."""

from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import maddening
from maddening.analysis import coupled_modes, critical_step, delassus, effective_mass, reduced_mass
from maddening.core import BoundaryInputField, DiscretizationOrder, Node, NodeMeta, Stability, StateField
from maddening.core.simulation.integrators import integrate_node

BAR_J = np.array([[1.0, -0.1], [1.0, 0.1]])
BAR_M = np.diag([2.0, 0.005])


def spd(draw_matrix, n):
    B = draw_matrix.reshape(n, n)
    return B @ B.T + n * np.eye(n)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 4), gaps=st.integers(1, 5),
    data=st.data(),
)
def test_coupled_modes_against_direct_eigen_solutions(n, gaps, data):
    B = data.draw(arrays(np.float64, (n, n), elements=st.floats(-1, 1)))
    J = data.draw(arrays(np.float64, (gaps, n), elements=st.floats(-1, 1)))
    k = data.draw(arrays(np.float64, (gaps,), elements=st.floats(0.1, 10)))
    M = B @ B.T + np.eye(n)
    sv = np.linalg.svd(J, compute_uv=False)
    assume(np.all((sv < 1e-12) | (sv > 1e-2)))  # a rank that is not a matter of rounding
    modes = coupled_modes(J, M, k)
    AK = J @ np.linalg.solve(M, J.T) @ np.diag(k)
    direct = np.sort(np.linalg.eigvals(AK).real)
    np.testing.assert_allclose(modes.squared, direct, atol=1e-9 * max(1.0, direct.max()))
    rank = int(np.sum(sv > 1e-2))
    assert modes.redundant == gaps - rank
    assert modes.frequencies.size == rank
    # each reported gap shape is an eigenvector of A K with its own frequency squared
    for w, xi in zip(modes.frequencies, modes.gap_shapes.T):
        np.testing.assert_allclose(AK @ xi, w**2 * xi, atol=1e-8 * max(1.0, w**2) * np.abs(xi).max())


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
