"""simulate: the record's fields and shapes, the seed's line end to end, bad input."""

import numpy as np
import pytest

from mime import Contact, Experiment, mm
from mime.errors import ValidationError
from mime.geometry import Sphere
from mime.nodes import RigidInertialNode
from mime.scene import Floor


def _experiment():
    floor = Floor()
    ball = RigidInertialNode(Sphere(1e-3), mass=1e-6, inertia=(4e-13,) * 3, position=(0.0, 0.0, 1.5e-3), force=(0.0, 0.0, -1e-5), name="ball")
    e = Experiment()
    e.attach(Contact.Projection(margin=mm(0.1)), body=ball, surface=floor.surface)
    return e


def test_record_carries_states_flags_and_residual_per_step():
    rec = _experiment().run(dt=1e-3, steps=80, profile="exploratory")
    assert rec.times.shape == (80,) and rec.times[-1] == pytest.approx(0.08)
    assert rec.states["position"].shape == (80, 3) and rec.states["orientation"].shape == (80, 4)
    assert set(rec.flags) == {"touching", "unconverged", "held_by_samples", "support_short"}
    assert all(f.dtype == bool and f.shape == (80,) for f in rec.flags.values())
    assert rec.contact_residual.shape == (80,)
    assert rec.flags["touching"].any()
    assert rec.states["position"][:, 2].min() >= 1e-3 + 1e-4 - 1e-15
    assert rec.settings_record.entries[0].version == "0.4.0"


def test_a_profile_that_refuses_the_numerical_default_fails_the_build():
    with pytest.raises(ValidationError, match="spacing"):
        _experiment().run(dt=1e-3, steps=5, profile="validated")


@pytest.mark.parametrize("dt, steps, match", [(0.0, 5, "dt = 0.0"), (1e-3, 0, "steps = 0")])
def test_bad_run_arguments(dt, steps, match):
    with pytest.raises(ValidationError, match=match):
        _experiment().run(dt=dt, steps=steps)
