"""RigidInertialNode: the implicit velocity solve, exact free spin, loads, the Requires row, documents, bad input."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from maddening.core import Node
from mime.errors import ValidationError
from mime.geometry import Capsule, Cylinder, Hull, Sphere, rotation
from mime.interactions import Contact
from mime._simulate import run_body
from mime.dynamics import RigidState
from mime.nodes import ConstantLoad, PropulsionForce, RigidInertialNode, RotatingFieldTorque, SumLoad
from mime.nodes.rigid import free_solve


def _body(**kw):
    base = dict(mass=2.0, inertia=(1.0, 2.0, 3.0))
    base.update(kw)
    return RigidInertialNode(Sphere(0.1), **base)


def test_is_a_maddening_node_that_meets_the_projection_rungs_requires_row():
    b = _body()
    assert isinstance(b, Node)
    assert Contact.declared_rung("projection").requires[0].unmet(b) == []
    assert RigidInertialNode.projects_confinement is True and "body.confinement" in RigidInertialNode.accepts


def test_velocity_solve_is_backward_euler_in_the_drag():
    b = _body(force=(1.0, 0.0, -2.0), translational_drag=0.5, rotational_drag=0.25, velocity=(1.0, 2.0, 3.0), angular_velocity=(0.0, 0.0, 1.0))
    dt = 0.1
    with jax.enable_x64(True):
        s = RigidState.from_mapping(b.initial_state())
        out = free_solve(b.step_inputs(), s, 0.0, dt)
        v = np.asarray(out.velocity)
        w = np.asarray(out.angular_velocity)
    # m (v' - v) = dt (F - c v')
    assert np.allclose(2.0 * (v - [1, 2, 3]), dt * (np.array([1.0, 0.0, -2.0]) - 0.5 * v), atol=1e-14)
    assert np.allclose(np.array([1, 2, 3.0]) * (w - [0, 0, 1]), dt * (-0.25 * w), atol=1e-14)


def test_a_symmetric_body_spinning_about_its_axis_keeps_its_spin_to_the_last_bit():
    b = RigidInertialNode(Cylinder(0.1, 0.5), mass=1.0, inertia=(2.0, 2.0, 1.0), angular_velocity=(1e-3, -2e-3, 7.3))
    run = run_body(b.step_inputs(), b.start, 1e-2, 200)
    assert np.all(run.states.angular_velocity[:, 2] == 7.3)


def test_update_is_one_step_of_the_run():
    b = _body(velocity=(0.1, 0.0, 0.0), angular_velocity=(0.0, 1.0, 0.0), torque=(0.0, 0.0, 0.5))
    s = run_body(b.step_inputs(), b.start, 1e-3, 1).states.to_mapping()
    with jax.enable_x64(True):
        st = {k: jnp.asarray(v, dtype=jnp.float64) for k, v in b.initial_state().items()}
        new = b.update(st, {"time": 0.0}, 1e-3)
        d = b.derivatives(st, None)
    for k in s:
        assert np.array_equal(np.asarray(new[k]), s[k][0])
    # first order: (update - state) / dt approaches the derivatives
    assert np.allclose((np.asarray(new["velocity"]) - np.asarray(st["velocity"])) / 1e-3, np.asarray(d["velocity"]), atol=1e-9)


def test_rotating_field_torque_is_moment_cross_field():
    load = RotatingFieldTorque(moment=(1.0, 0.0, 0.0), field=2.0, frequency=0.25, axis=(0.0, 0.0, 1.0))
    with jax.enable_x64(True):
        st = RigidState.at_rest(jnp.zeros(3))
        tau = np.asarray(load(1.0, st))  # a quarter turn: B along e2
        B = np.asarray(load.field_at(1.0))
    assert np.allclose(tau, np.cross([1.0, 0, 0], B), atol=1e-15)
    assert np.linalg.norm(B) == pytest.approx(2.0)


def test_propulsion_thrust_follows_the_spin():
    load = SumLoad(ConstantLoad((0.0, 0.0, -1.0)), PropulsionForce(0.5))
    with jax.enable_x64(True):
        st = RigidState(jnp.zeros(3), jnp.array([1.0, 0.0, 0.0, 0.0]), jnp.zeros(3), jnp.array([0.0, 0.0, 4.0]))
        assert np.allclose(np.asarray(load(0.0, st)), [0.0, 0.0, 1.0])


@pytest.mark.parametrize("terms", [
    ("constant", "propulsion"), ("constant", "field"), ("field", "propulsion"), ("constant", "field", "propulsion"),
])
def test_the_steps_form_of_a_sum_of_loads_is_the_sum(terms):
    """``LoadTerms.of`` (what the compiled step reads) gives a sum of loads its own value, every term in,
    to the last bit: a weight, a rotating field's torque and a thrust, two or three of them at once."""
    from mime.nodes.loads import LoadTerms

    made = {"constant": ConstantLoad((0.3, -0.2, -1.0)),
            "field": RotatingFieldTorque(moment=(1.0, 0.5, 0.0), field=2.0, frequency=0.25, axis=(0.0, 0.0, 1.0)),
            "propulsion": PropulsionForce(0.5)}
    load = made[terms[0]]
    for name in terms[1:]:
        load = SumLoad(load, made[name])
    form = LoadTerms.of(load)
    assert isinstance(form, LoadTerms)
    with jax.enable_x64(True):
        q = jnp.array([0.9, 0.1, -0.3, 0.2]) / jnp.linalg.norm(jnp.array([0.9, 0.1, -0.3, 0.2]))
        st = RigidState(jnp.zeros(3), q, jnp.zeros(3), jnp.array([0.7, -1.1, 4.0]))
        each = sum(np.asarray(made[name](1.3, st)) for name in terms)
        assert np.array_equal(np.asarray(form(1.3, st)), np.asarray(load(1.3, st)))
        assert np.allclose(np.asarray(form(1.3, st)), each, rtol=1e-15, atol=1e-15)


def test_the_free_solve_takes_the_euler_equations_with_the_torque_in_the_body_frame():
    """One free step against the backward-Euler formula written another way: ``w + dt (R^T tau - w x I w)
    / I`` with the gyroscopic term as a cross product (the code writes Euler's components) and the world
    torque taken to the body by the transposed rotation (``R(q)^T``: ``R(q)`` itself turns the body into
    the world). Distinct moments, a spin about no principal axis and a tilted body, so that every
    component and every sign shows."""
    from mime.nodes.rigid import free_solve

    I = np.array([1.0, 2.5, 4.0])
    tau_world = np.array([0.3, -0.7, 1.1])
    body = _body(inertia=tuple(I), torque=ConstantLoad(tuple(tau_world)))
    with jax.enable_x64(True):
        q = jnp.array([0.8, 0.2, -0.5, 0.3]) / jnp.linalg.norm(jnp.array([0.8, 0.2, -0.5, 0.3]))
        w = np.array([1.5, -2.0, 3.0])
        st = RigidState(jnp.zeros(3), q, jnp.zeros(3), jnp.asarray(w))
        dt = 1e-3
        new = np.asarray(free_solve(body.step_inputs(), st, jnp.asarray(0.0), jnp.asarray(dt)).angular_velocity)
        R = np.asarray(rotation.matrix(q))
    expected = w + dt * (R.T @ tau_world - np.cross(w, I * w)) / I
    np.testing.assert_allclose(new, expected, rtol=1e-14, atol=1e-14)


def test_derivatives_are_newton_and_euler_with_drag_and_the_quaternion_turned_by_the_body_spin():
    """The continuous right-hand side a generic integrator steps (``integrate_node``): ``v' = (F - c_t v) / m``,
    ``I w' = R^T tau - w x I w - c_r w`` and ``q' = q (0, w) / 2`` (the spin in the body frame, so the
    quaternion's rate is the limit of ``(q exp(w dt / 2) - q) / dt``, taken here by a central difference of
    the turn itself). A tilted body with distinct moments, so that each term and each frame shows."""
    I, m, ct, cr = np.array([1.0, 2.5, 4.0]), 2.0, 0.5, 0.25
    force, tau_world = np.array([1.0, 0.0, -2.0]), np.array([0.3, -0.7, 1.1])
    body = _body(inertia=tuple(I), mass=m, translational_drag=ct, rotational_drag=cr, force=tuple(force),
                 torque=ConstantLoad(tuple(tau_world)))
    with jax.enable_x64(True):
        q = jnp.array([0.8, 0.2, -0.5, 0.3]) / jnp.linalg.norm(jnp.array([0.8, 0.2, -0.5, 0.3]))
        v, w = np.array([1.0, 2.0, 3.0]), np.array([1.5, -2.0, 3.0])
        state = RigidState(jnp.zeros(3), q, jnp.asarray(v), jnp.asarray(w))
        rates = {k: np.asarray(r) for k, r in body.derivatives(state.to_mapping(), None).items()}
        R = np.asarray(rotation.matrix(q))
        h = 1e-6
        turned = [np.asarray(rotation.compose(q, rotation.exp_body(jnp.asarray(w) * s))) for s in (h, -h)]
    np.testing.assert_allclose(rates["position"], v, rtol=0, atol=0)
    np.testing.assert_allclose(rates["velocity"], (force - ct * v) / m, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(rates["angular_velocity"], (R.T @ tau_world - np.cross(w, I * w) - cr * w) / I,
                               rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(rates["orientation"], (turned[0] - turned[1]) / (2 * h), rtol=0, atol=1e-9)


def test_a_load_is_a_pytree_whose_numbers_are_traced():
    """Loads of one class share a compiled step: their numbers are leaves, their class the structure."""
    a, b = ConstantLoad((0.0, 0.0, -1.0)), ConstantLoad((1.0, 2.0, 3.0))
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    field = RotatingFieldTorque((1e-6, 0.0, 0.0), 5e-3, 5.0)
    assert len(jax.tree_util.tree_leaves(field)) == 7  # moment, field, frequency, axis, omega, e1, e2


def test_document_round_trip_and_unsavable_callables():
    b = RigidInertialNode(
        Hull([Capsule(0.1, 0.3)]), mass=1.5, inertia=(1.0, 1.0, 0.5), position=(1.0, 2.0, 3.0),
        force=ConstantLoad((0.0, 0.0, -1.0)), torque=RotatingFieldTorque((1.0, 0.0, 0.0), 1e-3, 5.0), name="umr",
    )
    again = RigidInertialNode.from_document(b.to_document(), b.to_arrays())
    assert again.to_document() == b.to_document()
    odd = _body(force=lambda t, s: jnp.zeros(3))
    with pytest.raises(ValidationError, match="cannot be saved"):
        odd.to_document()


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"mass": 0.0}, "mass = 0.0"),
        ({"inertia": (1.0, -1.0, 1.0)}, "inertia"),
        ({"orientation": (1.0, 1.0, 0.0, 0.0)}, "orientation"),
        ({"force": "up"}, "force = 'up'"),
        ({"position": (0.0, 0.0)}, "position"),
    ],
)
def test_bad_input(kw, match):
    with pytest.raises(ValidationError, match=match):
        _body(**kw)


def test_an_orientation_near_unit_length_is_made_unit_and_a_unit_one_is_kept_bit_for_bit():
    """A quaternion within the accepted tolerance of unit length (a rounding of a saved value, say) is
    divided by its length, so the body starts on a true rotation; one that is a unit quaternion to the
    last bits is kept exactly as given."""
    near = _body(orientation=(1.0 + 1e-7, 0.0, 0.0, 0.0)).start.orientation
    assert abs(float(np.linalg.norm(near)) - 1.0) <= 1e-15
    one_ulp_long = 1.0 + 2.0**-52  # dividing by its length would give 1.0
    kept = _body(orientation=(one_ulp_long, 0.0, 0.0, 0.0)).start.orientation
    assert kept.tolist() == [one_ulp_long, 0.0, 0.0, 0.0]


def test_building_changes_no_body():
    """The contact's plan is the built experiment's; the body is never attached to, and offers no way to be."""
    from mime import Experiment, mm
    from mime.scene import Floor

    b = _body(position=(0.0, 0.0, 0.5))
    before = b.to_document()
    e = Experiment()
    e.attach(Contact.Projection(margin=mm(0.1)), body=b, surface=Floor().surface)
    built = e.build()
    assert b.to_document() == before and not hasattr(b, "confinement")
    assert not any(hasattr(b, name) for name in ("attach_confinement", "detach_confinement", "attach_wrench"))
    assert built.step_inputs(b).hold is built.confinement(b).hold


@pytest.mark.parametrize("argument", ["position", "velocity", "angular_velocity", "inertia"])
@pytest.mark.parametrize("value", ["abc", [0.0, 0.0, 1j], ["0", "0", "0"], [True, False, True]])
def test_vectors_are_never_parsed_from_text_or_complex(argument, value):
    """F-MI-2 (fuzz): 'abc' raised a bare ValueError, a complex entry a bare TypeError; ['0', '0', '0'] was accepted."""
    with pytest.raises(ValidationError, match=rf"RigidInertialNode: {argument} = .* is not allowed; expected 3 finite numbers"):
        _body(**{argument: value})


@pytest.mark.parametrize("value", ["abc", [0.0, 0.0, 1j], ["0", "0", "0"]])
def test_constant_load_vector_is_never_parsed_from_text_or_complex(value):
    """F-MI-2 (fuzz), ConstantLoad(vector); a force given as such a vector is refused naming ``force``."""
    with pytest.raises(ValidationError, match=r"ConstantLoad: vector = .* expected three finite numbers"):
        ConstantLoad(value)
    with pytest.raises(ValidationError, match=r"force = "):
        _body(force=value)
    assert ConstantLoad(np.array([0, 0, -1])).vector.tolist() == [0.0, 0.0, -1.0]


@pytest.mark.parametrize("argument", ["translational_drag", "rotational_drag"])
@pytest.mark.parametrize("value", [None, "0.1", [1.0, 2.0], object()])
def test_drag_that_is_not_a_number_is_a_validation_error(argument, value):
    """F-MI-3 (fuzz): float(drag) ran before any check, so these raised a bare TypeError or ValueError."""
    with pytest.raises(ValidationError, match=rf"RigidInertialNode: {argument} = .* is not allowed; expected a finite drag"):
        _body(**{argument: value})


@pytest.mark.parametrize("argument", ["translational_drag", "rotational_drag"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0, np.float32("inf")])
def test_drag_out_of_range_is_mimes_validation_error(argument, value):
    """F-MI-5 (fuzz): nan or -1.0 raised maddening.ValidationError (from the Node base), not mime's."""
    with pytest.raises(ValidationError, match=rf"RigidInertialNode: {argument} = .* expected a finite drag coefficient >= 0"):
        _body(**{argument: value})
    assert _body(**{argument: np.float64(0.5)}).params[argument] == 0.5


def test_an_injected_param_refused_by_the_node_base_is_mimes_validation_error():
    """F-MI-5: the base's parameter checks (now also on injected values, F-MD-3) surface as mime's error."""
    b = _body()
    with pytest.raises(ValidationError, match=r"RigidInertialNode: mass = -1.0 is not allowed"):
        b.update(b.initial_state(), None, 1e-3, params={"mass": -1.0})
    with pytest.raises(ValidationError, match="inertia"):
        b.update(b.initial_state(), None, 1e-3, params={"inertia": (1.0, 1.0)})


def _update_refusals():
    b = _body()
    s = b.initial_state()
    cases = [(dt, lambda dt=dt: b.update(s, None, dt), "dt") for dt in
             (0.0, -1e-3, float("nan"), float("inf"), "1e-3", None, True, 1j, [1e-3], np.zeros(2))]
    bad_states = (None, [1.0, 2.0], {k: v for k, v in s.items() if k != "position"}, {**s, "extra": jnp.zeros(3)})
    cases += [(st_, lambda st_=st_: b.update(st_, None, 1e-3), "state") for st_ in bad_states]
    bad_entries = (jnp.array([np.nan, 0.0, 0.0]), jnp.zeros(2), "abc", None, np.array([1, 2, 3]), [0.0, 0.0, 1j])
    cases += [(e, lambda e=e: b.update({**s, "position": e}, None, 1e-3), "state['position']") for e in bad_entries]
    bad_inputs = ([1.0], "time", {"wind": 1.0})
    cases += [(bi, lambda bi=bi: b.update(s, bi, 1e-3), "boundary_inputs") for bi in bad_inputs]
    bad_values = ({"time": float("nan")}, {"time": "abc"}, {"time": [0.0, 1.0]}, {"force": (0.0, 0.0)},
                  {"torque": (0.0, float("inf"), 0.0)}, {"force": None})
    cases += [(bi, lambda bi=bi: b.update(s, bi, 1e-3), f"boundary_inputs[{next(iter(bi))!r}]") for bi in bad_values]
    return cases


@pytest.mark.parametrize("value,call,argument", _update_refusals(), ids=lambda v: repr(v)[:40])
def test_update_refuses_bad_dt_state_and_boundary_inputs_with_mimes_error(value, call, argument):
    """update raised maddening.ValidationError (from the Node base) for a bad dt, state or boundary input,
    which a mime user catching mime.ValidationError missed while the two were unrelated; a wrong-shaped or
    text state entry was a bare TypeError or AttributeError, and a NaN state entry or boundary input was
    silently stepped. mime's error is now maddening's, so the base's refusal reaches a mime user as is."""
    import maddening

    assert ValidationError is maddening.ValidationError
    with pytest.raises(ValidationError) as caught:
        call()
    message = str(caught.value)
    assert message.startswith("RigidInertialNode") and f"{argument} = " in message and "is not allowed; expected" in message


def test_update_refusals_keep_the_node_bases_message():
    from maddening.core import check_timestep

    import maddening

    b = _body()
    with pytest.raises(maddening.ValidationError) as base:
        check_timestep(-1.0, where="RigidInertialNode.update")
    with pytest.raises(ValidationError) as mine:
        b.update(b.initial_state(), None, -1.0)
    assert str(mine.value) == str(base.value)
    with pytest.raises(ValidationError, match=r"RigidInertialNode: state = None is not allowed"):
        b.derivatives(None, None)
    with pytest.raises(ValidationError, match=r"RigidInertialNode: boundary_inputs = \['wind'\]"):
        b.derivatives(b.initial_state(), {"wind": 1.0})


def test_update_stays_traceable_under_jit_grad_vmap_and_scan():
    """The checks run on concrete values only: traced dt, state and boundary inputs pass."""
    b = _body(force=(0.0, 0.0, -1.0), translational_drag=0.5, velocity=(1.0, 0.0, 0.0))
    with jax.enable_x64(True):
        s = {k: jnp.asarray(v, dtype=jnp.float64) for k, v in b.initial_state().items()}
        plain = b.update(s, {"time": 0.0}, 1e-3)
        jitted = jax.jit(lambda st, t, dt: b.update(st, {"time": t}, dt))(s, 0.0, 1e-3)
        for k in plain:
            assert np.array_equal(np.asarray(plain[k]), np.asarray(jitted[k]))
        grad = jax.grad(lambda dt: b.update(s, None, dt)["position"][0])(1e-3)
        assert np.isfinite(float(grad)) and float(grad) > 0
        many = jax.vmap(lambda v: b.update({**s, "velocity": v}, {"force": jnp.zeros(3)}, 1e-3))(jnp.eye(3))
        assert many["position"].shape == (3, 3)

        def body(state, _):
            new = b.update(state, None, 1e-3)
            return new, new["position"]

        last, path = jax.lax.scan(body, s, None, length=5)
        assert path.shape == (5, 3) and np.all(np.isfinite(np.asarray(path)))
