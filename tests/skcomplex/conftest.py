"""skcomplex tests run in float64, inside the JAX context manager (never the global flag)."""

import jax
import pytest


@pytest.fixture(autouse=True)
def float64():
    with jax.enable_x64(True):
        yield
