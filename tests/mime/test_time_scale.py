"""A held run is the same run in another unit of time, to the bit.

Take a scene with its step ``dt`` divided by a power of two ``S`` and its speeds times ``S`` (its
accelerations times ``S**2``): every product of a speed and a step, every impulse per unit mass and
every comparison of speeds scales exactly, since a power of two only moves the exponent. So the poses
must be the same bits, the velocities and the contact residual exactly ``S`` times as large, and
every flag the same. A step's tests of speeds must be relative, as the contact page's equations say:
the ``unconverged`` flag compares the residual with ``CONVERGED`` times the step's unmet speed. An
absolute speed anywhere in the step (a residual tested against ``CONVERGED`` m/s, say) flags other
steps in the faster run.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mime import peer


def _run(scene):
    experiment, _ = peer.mime_experiment(scene)
    return experiment.run(dt=scene.dt, steps=scene.steps, profile="exploratory")


@pytest.mark.parametrize("name", ["incline box", "impact", "drop"])
@pytest.mark.parametrize("S", [1024.0, 1 / 64])
def test_a_run_in_another_unit_of_time_is_the_same_run(name, S):
    scene = peer.SCENES[name]
    scaled = dataclasses.replace(scene, dt=scene.dt / S, velocity=tuple(S * v for v in scene.velocity),
                                 angular_velocity=tuple(S * w for w in scene.angular_velocity),
                                 gravity=tuple(S * S * g for g in scene.gravity))
    a, b = _run(scene), _run(scaled)
    for field in ("position", "orientation"):
        assert np.array_equal(a.states[field], b.states[field]), field
    for field in ("velocity", "angular_velocity"):
        assert np.array_equal(S * np.asarray(a.states[field]), b.states[field]), field
    assert np.array_equal(S * np.asarray(a.contact_residual), b.contact_residual)
    for flag in a.flags:
        assert np.array_equal(a.flags[flag], b.flags[flag]), flag
    if name == "incline box":  # the scene whose sweeps stop short: the flag is exercised
        assert np.any(a.flags["unconverged"])
