"""central_difference, backward_euler, trapezoidal: step maps, Newton solves, order, tracing."""

from __future__ import annotations

from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import maddening
from maddening.analysis import OscillatorNode, step_matrix
from maddening.core import DiscretizationOrder, Node, NodeMeta, Stability, StateField
from maddening.core.simulation.integrators import METHODS, integrate_node

NEW = ("central_difference", "backward_euler", "trapezoidal")


def closed_form(method: str, omega: float, h: float) -> np.ndarray:
    """The textbook one-step maps of x'' + omega^2 x = 0 on (x, v)."""
    z2 = (h * omega) ** 2
    L = np.array([[0.0, 1.0], [-(omega**2), 0.0]])
    I = np.eye(2)
    if method == "central_difference":
        return np.array([[1 - z2 / 2, h], [-(omega**2) * h * (1 - z2 / 4), 1 - z2 / 2]])
    if method == "backward_euler":
        return np.linalg.inv(I - h * L)
    if method == "trapezoidal":
        return np.linalg.solve(I - 0.5 * h * L, I + 0.5 * h * L)
    raise AssertionError(method)


def test_registered():
    assert set(NEW) <= set(METHODS)


@settings(max_examples=25, deadline=None)
@given(z=st.floats(0.01, 5.0), omega=st.floats(0.5, 2000.0))
def test_step_maps_match_closed_forms(z, omega):
    h = z / omega
    for method in NEW:
        np.testing.assert_allclose(step_matrix(method, omega, h), closed_form(method, omega, h), rtol=1e-10, atol=1e-10 * omega)


@settings(max_examples=25, deadline=None)
@given(z=st.floats(0.01, 1.99))
def test_eigenvalues_match_standard_forms(z):
    cd = np.sort_complex(np.linalg.eigvals(step_matrix("central_difference", 1.0, z)))
    roots = np.sort_complex(np.roots([1.0, -(2 - z * z), 1.0]))
    np.testing.assert_allclose(cd, roots, atol=1e-9)
    be = np.sort_complex(np.linalg.eigvals(step_matrix("backward_euler", 1.0, z)))
    np.testing.assert_allclose(be, np.sort_complex(np.array([1 / (1 - 1j * z), 1 / (1 + 1j * z)])), atol=1e-12)
    tr = np.sort_complex(np.linalg.eigvals(step_matrix("trapezoidal", 1.0, z)))
    want = np.array([(1 + 0.5j * z) / (1 - 0.5j * z), (1 - 0.5j * z) / (1 + 0.5j * z)])
    np.testing.assert_allclose(tr, np.sort_complex(want), atol=1e-12)


class Cubic(Node):
    """x' = v, v' = -x^3: a nonlinear right-hand side for the Newton solve."""

    meta: ClassVar[NodeMeta] = NodeMeta("TEST-CUBIC", "0", Stability.EXPERIMENTAL, "any", DiscretizationOrder())
    state_fields: ClassVar = (StateField("position"), StateField("velocity", rate_of="position"))

    def derivatives(self, state, boundary_inputs, params=None):
        return {"position": state["velocity"], "velocity": -state["position"] ** 3}


class Decay(Node):
    """y' = -y: a first-order node with no rate field."""

    meta: ClassVar[NodeMeta] = NodeMeta("TEST-DECAY", "0", Stability.EXPERIMENTAL, "any", DiscretizationOrder())
    state_fields: ClassVar = (StateField("y"),)

    def derivatives(self, state, boundary_inputs, params=None):
        return {"y": -state["y"]}


@pytest.mark.parametrize("method,theta", [("backward_euler", 1.0), ("trapezoidal", 0.5)])
def test_newton_solves_a_nonlinear_step(method, theta):
    with jax.enable_x64(True):
        node, h = Cubic(), 0.3
        y0 = {"position": jnp.asarray(1.2), "velocity": jnp.asarray(-0.4)}
        y1 = integrate_node(node, y0, None, h, method=method)
        f0, f1 = node.derivatives(y0, None), node.derivatives(y1, None)
        for name in y0:
            residual = y1[name] - y0[name] - h * ((1 - theta) * f0[name] + theta * f1[name])
            assert abs(float(residual)) < 1e-13


def test_implicit_methods_step_first_order_nodes_and_central_difference_refuses_them():
    with jax.enable_x64(True):
        out = integrate_node(Decay(), {"y": jnp.asarray(1.0)}, None, 0.5, method="backward_euler")
        assert float(out["y"]) == pytest.approx(1 / 1.5, rel=1e-14)
        out = integrate_node(Decay(), {"y": jnp.asarray(1.0)}, None, 0.5, method="trapezoidal")
        assert float(out["y"]) == pytest.approx(0.75 / 1.25, rel=1e-14)
        with pytest.raises(maddening.ValidationError, match="central_difference"):
            integrate_node(Decay(), {"y": jnp.asarray(1.0)}, None, 0.5, method="central_difference")


@pytest.mark.parametrize("method,order", [("central_difference", 2), ("backward_euler", 1), ("trapezoidal", 2)])
def test_observed_order_on_the_oscillator(method, order):
    with jax.enable_x64(True):
        node = OscillatorNode(omega=1.0, method=method)

        def error(steps):
            h = 1.0 / steps

            def body(s, _):
                return integrate_node(node, s, None, h, method=method), None

            s, _ = jax.lax.scan(body, node.initial_state(), None, length=steps)
            return abs(float(s["position"]) - np.cos(1.0))

        observed = np.log2(error(64) / error(128))
        assert observed == pytest.approx(order, abs=0.1)


@pytest.mark.parametrize("method", NEW)
def test_traceable_under_jit_grad_vmap(method):
    with jax.enable_x64(True):
        node = OscillatorNode(omega=3.0)

        def x1(omega, x0):
            s = {"position": x0, "velocity": jnp.zeros_like(x0)}
            return integrate_node(node, s, None, 0.1, method=method, params={"omega": omega})["position"]

        direct = x1(3.0, jnp.asarray(1.0))
        assert float(jax.jit(x1)(3.0, jnp.asarray(1.0))) == pytest.approx(float(direct), rel=1e-14)
        batch = jax.vmap(x1, in_axes=(None, 0))(3.0, jnp.array([1.0, 2.0]))
        np.testing.assert_allclose(np.asarray(batch), [float(direct), 2 * float(direct)], rtol=1e-13)
        slope = jax.grad(x1)(3.0, jnp.asarray(1.0))
        fd = (x1(3.0 + 1e-6, jnp.asarray(1.0)) - x1(3.0 - 1e-6, jnp.asarray(1.0))) / 2e-6
        assert float(slope) == pytest.approx(float(fd), rel=1e-6)


def test_dtype_of_the_state_is_kept():
    node = OscillatorNode(omega=2.0)
    s = {"position": jnp.asarray(1.0, jnp.float32), "velocity": jnp.asarray(0.0, jnp.float32)}
    for method in NEW:
        out = integrate_node(node, s, None, 0.01, method=method)
        assert {str(v.dtype) for v in out.values()} == {"float32"}
