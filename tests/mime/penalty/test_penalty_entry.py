"""The penalty rung as the contact entry builds it: settings, plan, delivery, the bar as an experiment."""

import jax
import numpy as np
import pytest

from mime._pytree import replace
from mime.dynamics import RigidState
from mime import Contact, Experiment, ValidationError, mm
from mime.geometry import Box, Hull, PointSet
from mime.interactions._penalty import PenaltyPlan
from mime.nodes import ConstantLoad, RigidInertialNode
from mime.nodes.planar_bar import PlanarBarNode
from mime.penalty_bar import bar_experiment, experiment_gaps
from mime.scene import Floor
from mime.units import N_per_m, N_s_per_m, kN_per_m, um

K = 1e5


def _feet(z=0.0, **kw):
    return RigidInertialNode(PointSet([(-0.1, 0.0, 0.0), (0.1, 0.0, 0.0)]), mass=2.0, inertia=(0.005,) * 3,
                             position=(0.0, 0.0, z), **kw)


def test_penalty_is_contact_with_the_penalty_rung_and_saves_identically():
    a = Contact.Penalty(margin=mm(0.1), stiffness=kN_per_m(100.0))
    b = Contact(rung="penalty", margin=mm(0.1), stiffness=kN_per_m(100.0))
    assert a == b and a.to_document() == b.to_document()
    assert a.to_document()["settings"] == {
        "margin": {"unit": "mm", "value": 0.1}, "rung": "penalty", "stiffness": {"unit": "kN_per_m", "value": 100.0},
    }
    with pytest.raises(ValidationError, match="sets rung='penalty' itself"):
        Contact.Penalty(margin=mm(0.1), stiffness=N_per_m(K), rung="projection")


def test_resolved_settings_of_each_rung():
    body, floor = _feet(), Floor()
    pen = Contact.Penalty(margin=mm(0.1), stiffness=N_per_m(K)).resolved(profile="exploratory", body=body, surface=floor.surface)
    assert pen["damping"] == N_s_per_m(0.0) and pen["stiffness"] == N_per_m(K)
    proj = Contact.Projection(margin=mm(0.1)).resolved(profile="exploratory", body=body, surface=floor.surface)
    assert proj["stiffness"] is None and proj["damping"] is None


def test_plan_builds_springs_in_si_and_the_margin_is_where_they_engage():
    body = _feet()
    plan = Contact.Penalty(margin=um(10.0), stiffness=kN_per_m(100.0), damping=N_s_per_m(3.0)).plan(
        body=body, surface=Floor().surface, profile="exploratory")
    assert isinstance(plan, PenaltyPlan)
    assert (plan.stiffness, plan.damping) == (1e5, 3.0) and plan.margin == pytest.approx(1e-5, rel=1e-15)
    np.testing.assert_array_equal(plan.points, [[-0.1, 0.0, 0.0], [0.1, 0.0, 0.0]])
    with jax.enable_x64(True):
        state = RigidState.from_mapping(body.initial_state())
        f, gap = plan.forces(state)  # resting on the floor: each foot 10 um inside the margin
        np.testing.assert_allclose(np.asarray(gap), [-1e-5, -1e-5], rtol=1e-12)
        np.testing.assert_allclose(np.asarray(f), [1.0, 1.0], rtol=1e-12)
        state = replace(state, position=jax.numpy.asarray([0.0, 0.0, 2e-5]))  # above the margin: no force
        np.testing.assert_array_equal(np.asarray(plan.forces(state)[0]), [0.0, 0.0])


def test_build_delivers_the_springs_into_the_applied_wrench_and_a_rebuild_plans_them_afresh():
    from mime.nodes.rigid import applied_loads

    body = _feet(z=-1e-4)
    e = Experiment()
    e.attach(Contact.Penalty(margin=um(1.0), stiffness=N_per_m(K)), body=body, surface=Floor().surface)
    built = e.build("exploratory")
    first = built.planned[0].planned
    assert built.step_inputs(body).wrenches == (first,) and built.confinement(body) is None
    second = e.build("exploratory")  # unchanged: the same build
    assert second.planned[0].planned is first
    e.add(Floor(1.0), name="elsewhere")  # a change: the next build plans again
    rebuilt = e.build("exploratory")
    assert rebuilt.planned[0].planned is not first and rebuilt.step_inputs(body).wrenches == (rebuilt.planned[0].planned,)
    with jax.enable_x64(True):
        F, _ = applied_loads(rebuilt.step_inputs(body), RigidState.from_mapping(body.initial_state()), 0.0)
    # two feet 101 um inside the margin: 2 k 1.01e-4 = 20.2 N up
    np.testing.assert_allclose(np.asarray(F), [0.0, 0.0, 20.2], rtol=1e-9)


def test_the_requires_row_refuses_a_body_that_takes_no_applied_wrench():
    class Confined:
        projects_confinement = True
        accepts = ("body.confinement",)
        size = 0.2

    with pytest.raises(ValidationError, match=r"rung = 'penalty' is not allowed; expected a rung the bound things support: it needs body: accepts `body.applied_wrench`, and body = Confined does not accept body.applied_wrench"):
        Experiment().attach(Contact.Penalty(margin=mm(0.1), stiffness=N_per_m(K)), body=Confined(), surface=Floor().surface)


def test_a_hull_less_body_is_refused_with_a_clear_error():
    body = RigidInertialNode(Hull(extent=0.01), mass=1.0, inertia=(1.0, 1.0, 1.0))
    with pytest.raises(ValidationError, match="body = 'RigidInertialNode' is not allowed; expected a body with a hull"):
        Contact.Penalty(margin=mm(0.1), stiffness=N_per_m(K)).plan(body=body, surface=Floor().surface, profile="exploratory")


def test_a_box_resting_on_its_samples_carries_its_weight():
    """Sampled at its corners only (spacing above every edge), a box's four bottom corners carry its weight."""
    body = RigidInertialNode(Box(0.2, 0.1, 0.02), mass=2.0, inertia=(0.002, 0.007, 0.008),
                             position=(0.0, 0.0, 0.01), force=ConstantLoad((0.0, 0.0, -19.62)))
    e = Experiment()
    e.attach(Contact.Penalty(margin=um(1.0), stiffness=N_per_m(K), damping=N_s_per_m(200.0), spacing=mm(500.0)),
             body=body, surface=Floor().surface)
    record = e.run(dt=1e-4, steps=3000)
    # at rest the four corners share 19.62 N: each sinks 19.62 / (4 k) past the margin
    expected = 0.01 + 1e-6 - 19.62 / (4 * K)
    assert record.states["position"][-1, 2] == pytest.approx(expected, abs=1e-8)


def test_save_and_load_reproduce_a_penalty_run_bit_for_bit(tmp_path):
    e = Experiment()
    e.attach(Contact.Penalty(margin=um(1.0), stiffness=N_per_m(K)), body=_feet(z=-1e-4, force=ConstantLoad((0.0, 0.0, -19.62))),
             surface=Floor().surface)
    a = e.run(dt=1e-4, steps=200)
    e.save(tmp_path / "bar")
    b = Experiment.load(tmp_path / "bar").run(dt=1e-4, steps=200)
    for name in ("position", "orientation", "velocity", "angular_velocity"):
        np.testing.assert_array_equal(a.states[name], b.states[name])


@pytest.fixture(scope="module")
def bar():
    return PlanarBarNode(supports=(-0.1, 0.1), stiffness=K, mass=2.0, inertia=0.005, preload=1000.0 - 19.62)


def test_the_planar_bar_as_an_experiment_rests_where_the_planar_node_does(bar):
    rest = {k: float(v) for k, v in bar.equilibrium().items()}
    e, body = bar_experiment(bar, state0=rest)
    record = e.run(dt=1e-4, steps=50)
    np.testing.assert_allclose(experiment_gaps(record, bar), rest["y"], rtol=1e-12)


def test_the_planar_bar_as_an_experiment_rocks_at_the_frozen_frequency(bar):
    from maddening.analysis.signals import crossing_frequency

    rest = {k: float(v) for k, v in bar.equilibrium().items()}
    _, w_rock = bar.frozen_modes().frequencies
    e, _ = bar_experiment(bar, state0={**rest, "theta": 2e-3})
    record = e.run(dt=5e-5, steps=1000)
    g = experiment_gaps(record, bar)
    assert crossing_frequency(record.times, (g[:, 1] - g[:, 0]) / 2) == pytest.approx(w_rock, rel=5e-3)


def test_bar_experiment_refuses_supports_of_unequal_stiffness():
    with pytest.raises(ValidationError, match=r"bar.stiffness = \(100000.0, 200000.0\) is not allowed"):
        bar_experiment(PlanarBarNode(supports=(-0.1, 0.1), stiffness=(1e5, 2e5)))
