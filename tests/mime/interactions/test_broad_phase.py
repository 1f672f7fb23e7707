"""The broad phase changes no state: a step it skips is the step the two passes would have taken.

``mime.interactions._hold.clear`` says a body cannot reach the margin in this step; the hold then
takes the free step and chooses no point (``held_or_free``). The claim behind it is exact: where
the body is clear, the two passes take no force, project nothing, raise no flag and return the
free step to the last bit. Each scenario is run twice through a freshly traced scan, once as
built and once with ``clear`` patched to say no body is ever clear (every step through the two
passes). The states must agree bit for bit at every step, the reports at every step the broad
phase did not skip, and a skipped step must report a free flight. Each scenario must have steps
of both kinds, or the comparison would prove nothing. Batched, each body must step as it steps
alone, whether the whole batch is clear or only some of it.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mime import demos
from mime.dynamics import REPORT_FIELDS, RigidState
from mime.geometry import Box, Capsule, Sphere
from mime.interactions import _hold
from mime.nodes import rigid
from mime.nodes.rigid import ConstantLoad
from mime.scene._surfaces import OpaqueShape

from _fresh_scan import inputs_and_start, run_fresh


def _never_clear(hold, state, free, dt):
    return jnp.array(False)


def _bits(a):
    return np.asarray(a).view(np.uint64 if np.asarray(a).dtype == np.float64 else np.uint8)


def _tumbling_ellipsoid():  # lifted by the floor as it turns, it floats out of the hold's reach
    body = demos.make_body(demos.ELLIPSOID, mass=1e-6, position=(0.0, 0.0, 3e-4 + demos.MARGIN),
                           angular_velocity=(0.0, 12.0, 0.0), force=ConstantLoad((0.0, 0.0, -1e-10)))
    return demos.attach(body, demos.FLOOR.surface)


def _box_dropped():  # falls from clear of the reach on to the floor, and stays
    body = demos.make_body(Box(6e-4, 4e-4, 3e-4), mass=1e-6, position=(0.0, 0.0, 1.2e-3),
                           velocity=(1e-3, 0.0, -0.05), angular_velocity=(4.0, -3.0, 2.0),
                           force=ConstantLoad((0.0, 0.0, -2e-5)))
    return demos.attach(body, demos.FLOOR.surface)


def _rod_spun_at_the_floor():
    """A capsule tilted 30 degrees from upright, its centre rising slowly, spun so fast (1000 rad/s about y) that its
    lower end swings down by more in one step than its gap: only the ``extent |w|`` term of the broad phase's
    reach keeps it from being clear, and the first pass holds that end. It rises out of reach later."""
    capsule = Capsule(radius=1e-4, length=1e-3)  # extent 6e-4 m, samples' shortfall 1e-4 m
    tilt = (np.cos(np.pi / 12), 0.0, np.sin(np.pi / 12), 0.0)  # 30 degrees about y
    # the centre's room past the margin exceeds the shortfall and twice a step of its own speed (1.2e-4 m);
    # the lower end, 2.1e-4 m from the margin, swings down 3e-4 m in a step
    room = 1.3e-4
    body = demos.make_body(capsule, mass=1e-6, position=(0.0, 0.0, 6e-4 + demos.MARGIN + room), orientation=tilt,
                           velocity=(0.0, 0.0, 0.01), angular_velocity=(0.0, -1000.0, 0.0))
    return demos.attach(body, demos.FLOOR.surface)


def test_a_skipped_step_is_the_two_passes_step_to_the_bit(monkeypatch):
    # three hulls (two searched in closed form, one held at its samples) through one program each way
    scenarios = (_tumbling_ellipsoid, _box_dropped, _rod_spun_at_the_floor)
    built = run_fresh(*(make() for make in scenarios), steps=200)
    monkeypatch.setattr(_hold, "clear", _never_clear)
    passes = run_fresh(*(make() for make in scenarios), steps=200)
    # the spun rod's first step is held (its end swings into the margin) and so never skipped
    assert passes[2][1].touching[0] and np.isfinite(built[2][1].contact_gap[0])
    for name, (states, reports), (states2, reports2) in zip(("ellipsoid", "box", "rod"), built, passes):
        skipped = np.isinf(reports.contact_gap) & np.isfinite(reports2.contact_gap)
        assert skipped.any() and (~skipped).any(), f"{name}: the scenario needs steps of both kinds"
        assert not reports2.touching[skipped].any()  # the two passes took no force where the broad phase skipped
        for field in RigidState.FIELDS:
            assert np.array_equal(_bits(getattr(states, field)), _bits(getattr(states2, field))), (name, field)
        for field in REPORT_FIELDS:
            a, b = np.asarray(getattr(reports, field)), np.asarray(getattr(reports2, field))
            assert np.array_equal(_bits(a[~skipped]), _bits(b[~skipped])), (name, field)
        # a skipped step reports a free flight: no point, an infinite gap, no force, no flag
        assert not np.any(reports.contact_point[skipped]) and np.all(reports.contact_impulse[skipped] == 0.0)
        assert not any(np.any(getattr(reports, f)[skipped]) for f in ("touching", "unconverged", "held_by_samples",
                                                                      "support_short"))


def _batch_starts():
    """Sixteen starts of the dropped box: some far above the floor (clear), some within its reach."""
    heights = np.linspace(2.6e-4, 4e-3, 16)
    return RigidState(jnp.asarray(np.stack([np.zeros(16), np.zeros(16), heights], axis=1)),
                      jnp.tile(jnp.asarray([1.0, 0.0, 0.0, 0.0]), (16, 1)),
                      jnp.tile(jnp.asarray([1e-3, 0.0, -0.05]), (16, 1)),
                      jnp.tile(jnp.asarray([4.0, -3.0, 2.0]), (16, 1)))


@pytest.mark.parametrize("which", ["some clear", "all clear"])
def test_a_batch_steps_each_body_as_it_steps_alone(which):
    with jax.enable_x64(True):
        inputs, _ = inputs_and_start(_box_dropped())
        starts = _batch_starts()
        if which == "all clear":
            starts = dataclasses.replace(starts, position=starts.position + jnp.asarray([0.0, 0.0, 1e-2]))
        step = lambda s: rigid.step(inputs, s, 0.0, demos.DT)  # noqa: E731
        batched = jax.jit(jax.vmap(step))(starts)
        alone = [jax.jit(step)(jax.tree_util.tree_map(lambda a: a[i], starts)) for i in range(16)]
    clear = np.isinf(np.asarray(batched[1].contact_gap))
    assert clear.all() if which == "all clear" else (clear.any() and (~clear).any())
    for i, (state, report) in enumerate(alone):
        assert bool(np.isinf(report.contact_gap)) == clear[i]
        for name in RigidState.FIELDS:  # a batched program may round otherwise than one body's (run_batch)
            np.testing.assert_allclose(np.asarray(getattr(batched[0], name))[i], np.asarray(getattr(state, name)),
                                       rtol=1e-14, atol=1e-18)
        assert bool(np.asarray(batched[1].touching)[i]) == bool(report.touching)


def test_derivatives_pass_through_both_branches():
    with jax.enable_x64(True):
        inputs, _ = inputs_and_start(_box_dropped())
        starts = _batch_starts()
        step = lambda s: rigid.step(inputs, s, 0.0, demos.DT)[0].position  # noqa: E731
        tangent = jax.tree_util.tree_map(jnp.ones_like, starts)
        _, batched = jax.jit(jax.vmap(lambda s, t: jax.jvp(step, (s,), (t,))))(starts, tangent)
        first = jax.tree_util.tree_map(lambda a: a[-1], starts)  # the highest start: clear
        _, alone = jax.jit(lambda s, t: jax.jvp(step, (s,), (t,)))(first, jax.tree_util.tree_map(jnp.ones_like, first))
    # a clear body's position moves with its velocity: d x' = d x + dt d v'
    np.testing.assert_allclose(np.asarray(batched)[-1], np.asarray(alone), rtol=1e-12)
    assert np.all(np.isfinite(np.asarray(batched)))


def test_a_surface_not_known_to_be_a_distance_is_never_clear():
    class Plane:  # a surface written outside mime.scene: no promise on how fast its phi changes
        flat = True

        def distance_and_normal(self, x):
            return x[..., 2], jnp.broadcast_to(jnp.asarray([0.0, 0.0, 1.0], x.dtype), x.shape)

    with jax.enable_x64(True):
        inputs, s0 = inputs_and_start(demos.attach(demos.make_body(Sphere(4e-4), mass=1e-6,
                                                                   position=(0.0, 0.0, 5e-3)), demos.FLOOR.surface))
        free = rigid.free_solve(inputs, s0, 0.0, demos.DT)
        assert bool(_hold.clear(inputs.hold, s0, free, demos.DT))  # far above the floor: clear
        opaque = dataclasses.replace(inputs.hold, surface=OpaqueShape(Plane()))
        assert not bool(_hold.clear(opaque, s0, free, demos.DT))


def test_the_contact_band_is_its_ulps_of_the_largest_magnitude_the_step_reaches():
    """``contact_band`` is ``CONTACT_ULPS`` units in the last place of ``|x| + extent + margin``: at
    x = (3, 4, 0) mm with a 1 mm extent and a 0.5 mm margin, of 6.5 mm; each term counts."""
    with jax.enable_x64(True):
        band = float(_hold.contact_band(jnp.array([3e-3, 4e-3, 0.0]), jnp.asarray(1e-3), jnp.asarray(5e-4)))
        eps = np.finfo(np.float64).eps
        assert band == pytest.approx(_hold.CONTACT_ULPS * eps * 6.5e-3, rel=1e-12)
        assert band > float(_hold.contact_band(jnp.array([3e-3, 4e-3, 0.0]), jnp.asarray(1e-3), jnp.asarray(0.0)))
