"""maddening.analysis.stability: limits, amplification and frequency measured from the integrators."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import maddening
from maddening.analysis import amplification, numerical_frequency, spectral_radius, stability_limit, step_matrix


def test_limits():
    assert stability_limit("central_difference") == pytest.approx(2.0, abs=1e-8)
    assert stability_limit("euler") == 0.0
    assert stability_limit("backward_euler") == math.inf
    assert stability_limit("trapezoidal") == math.inf


@settings(max_examples=20, deadline=None)
@given(z=st.floats(0.01, 50.0))
def test_magnitudes_match_closed_forms(z):
    assert spectral_radius("euler", z) == pytest.approx(math.sqrt(1 + z * z), rel=1e-12)
    assert spectral_radius("backward_euler", z) == pytest.approx(1 / math.sqrt(1 + z * z), rel=1e-12)
    assert spectral_radius("trapezoidal", z) == pytest.approx(1.0, abs=1e-12)


@settings(max_examples=20, deadline=None)
@given(z=st.floats(0.01, 1.99), omega=st.floats(1.0, 1e4))
def test_numerical_frequencies_match_closed_forms(z, omega):
    h = z / omega
    assert numerical_frequency("central_difference", omega, h) == pytest.approx(2 * math.asin(z / 2) / h, rel=1e-9)
    assert numerical_frequency("trapezoidal", omega, h) == pytest.approx(2 * math.atan(z / 2) / h, rel=1e-9)
    assert numerical_frequency("backward_euler", omega, h) == pytest.approx(math.atan(z) / h, rel=1e-9)


def test_seed_example_numbers():
    assert numerical_frequency("central_difference", 1000.0, 1e-3) == pytest.approx(1047.2, abs=0.05)
    assert numerical_frequency("trapezoidal", 1000.0, 1e-3) == pytest.approx(927.3, abs=0.05)
    assert 1 - spectral_radius("backward_euler", 1.0) == pytest.approx(0.293, abs=5e-4)


def test_repeated_root_at_the_edge():
    eig = amplification("central_difference", 2.0).eigenvalues
    np.testing.assert_allclose(eig, [-1.0, -1.0], atol=1e-7)
    assert spectral_radius("central_difference", 2.01) > 1.05


def test_array_z_shape():
    a = amplification("trapezoidal", np.array([0.5, 1.0, 2.0]))
    assert a.eigenvalues.shape == (3, 2) and a.magnitudes.shape == (3, 2)


@pytest.mark.parametrize("call", [
    lambda: stability_limit("rk4"),
    lambda: step_matrix("euler", -1.0, 0.1),
    lambda: step_matrix("euler", 1.0, float("nan")),
    lambda: amplification("euler", 0.0),
    lambda: step_matrix("euler", "1", 0.1),
])
def test_bad_input_raises_the_package_error(call):
    with pytest.raises(maddening.ValidationError):
        call()


def test_one_compiled_program_serves_every_size_up_to_a_batch():
    from maddening.analysis import stability

    stability._batched_step_matrices.cache_clear()
    try:
        single = step_matrix("trapezoidal", 3.0, 0.1)
        grid = amplification("trapezoidal", np.linspace(0.05, 2.0, 150))
        stability_limit("trapezoidal")  # the 257-point search
        program = stability._batched_step_matrices("trapezoidal")
        assert program._cache_size() == 1
        # padding never changes a value: the grid's point at z = 0.3 is the single step's (omega h = 0.3)
        assert np.array_equal(step_matrix("trapezoidal", 1.0, 0.3), stability._matrices("trapezoidal", np.ones(1), np.array([0.3]))[0])
        assert single.shape == (2, 2) and grid.magnitudes.shape == (150, 2)
    finally:
        stability._batched_step_matrices.cache_clear()


def test_an_empty_z_gives_an_empty_answer():
    assert amplification("central_difference", np.array([])).magnitudes.shape == (0, 2)


@pytest.mark.parametrize("zeta", [0.0, 0.2, 0.7])
def test_the_damped_oscillator_follows_its_closed_form(zeta):
    """``x'' + 2 zeta omega x' + omega^2 x = 0`` from ``x = 1, v = 0``: ``x(t) = e^{-zeta omega t}
    (cos omega_d t + zeta omega / omega_d sin omega_d t)``, ``omega_d = omega sqrt(1 - zeta^2)``. The
    trapezoidal rule at ``omega h = 2e-3`` over ``omega t = 6`` keeps it to its phase error,
    ``omega t (omega h)^2 / 12 = 2e-6`` (1.6e-6 measured undamped; twice the estimate allowed); a damping
    term off by a factor of two moves it by ``e^{-0.6}`` or more."""
    from maddening.analysis import oscillator_series

    omega, h, steps = 2.0, 1e-3, 3000
    run = oscillator_series("trapezoidal", omega, h, steps, zeta=zeta)
    t = run["time"]
    wd = omega * math.sqrt(1 - zeta**2)
    exact = np.exp(-zeta * omega * t) * (np.cos(wd * t) + zeta * omega / wd * np.sin(wd * t))
    assert np.max(np.abs(run["position"] - exact)) < 4e-6


@pytest.mark.parametrize("method", ["symplectic_euler", "central_difference", "backward_euler"])
def test_an_oscillating_pair_of_factors_lists_its_positive_phase_first(method):
    """Below the limit every method here turns the oscillator by a complex-conjugate pair of factors; the first
    has the positive imaginary part, so ``angle(eigenvalues[..., 0])`` is the phase per step, ``+h omega_h``."""
    z = np.array([0.1, 0.5, 1.0, 1.5])
    eigenvalues = amplification(method, z).eigenvalues
    assert np.all(eigenvalues[:, 0].imag > 0) and np.all(eigenvalues[:, 1] == np.conj(eigenvalues[:, 0]))
