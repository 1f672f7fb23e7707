"""The contact's velocity rule, as the seed states it: inelastic and frictionless.

A sphere arrives on the floor moving down and sideways. Once the contact holds it, its
velocity into the floor is gone (inelastic: no rebound, no residual approach) and its velocity
along the floor is what it was (frictionless: no tangential impulse), under 0.4.0 and 0.1.0.
"""

import numpy as np
import pytest

from mime import demos
from mime.geometry import Sphere

SLIDE, FALL = 1e-3, -0.05  # m/s along the floor and into it


@pytest.mark.parametrize("version", ["0.4.0", "0.1.0"])
def test_a_sphere_landing_keeps_its_slide_and_loses_its_fall(version):
    body = demos.make_body(Sphere(4e-4), mass=1e-6, position=(0.0, 0.0, 4e-4 + 1e-4 + 2e-5),
                           velocity=(SLIDE, 0.0, FALL))
    run = demos.run(demos.attach(body, demos.FLOOR.surface, version=version), 5)
    touching = np.asarray(run.report.touching)
    assert touching.sum() >= 2, "the sphere must reach the floor early in the run"
    # the step that reaches the margin may close the gap, no more (the rule's target is -gap/dt);
    # every later held step starts on the margin
    v = np.asarray(run.states.velocity)[touching][1:]
    # inelastic: the normal velocity after a held step is zero (rounding of a 0.05 m/s cancellation)
    np.testing.assert_allclose(v[:, 2], 0.0, atol=1e-12)
    # frictionless: the tangential velocity is untouched (a sphere takes no torque, no drag here)
    np.testing.assert_allclose(v[:, 0], SLIDE, rtol=1e-12)
    np.testing.assert_allclose(v[:, 1], 0.0, atol=1e-15)
