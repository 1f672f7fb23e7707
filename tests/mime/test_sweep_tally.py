"""The margin sweep's tally against each start's own run, measured here step by step from its definition.

``run_sweep`` keeps, per start, the least ``distance - margin`` over the hull after any step
(``worst_gap``) and the most a held point's outward speed fell short of ``-max(gap, 0) / dt`` on a
touching step (``worst_inward``; the point is the step's deepest held one, its speed the new twist's
at the pose the step started from). Here every start runs alone (``mime._simulate.run_body``) and both
figures are taken from its states and reports, step by step, in NumPy.
"""

from __future__ import annotations

import jax
import numpy as np

from mime import demos, sweep
from mime._simulate import run_body
from mime.geometry import rotation
from mime.nodes import ConstantLoad

STARTS, STEPS = 16, sweep.SWEEP_STEPS


def _capsule_sweep():
    body = demos.make_body(sweep.sweep_kinds()["capsule"], mass=1e-6, name="capsule",
                           force=ConstantLoad((0.0, 0.0, -sweep.SWEEP_PUSH)))
    built = demos.attach(body, demos.FLOOR.surface)
    starts = sweep.random_starts(built, STARTS, seed=0, clearance=sweep.SWEEP_CLEARANCE, speed=sweep.SWEEP_SPEED,
                                 spin=sweep.SWEEP_SPIN)
    # the first start leaves the floor at 0.1 m/s against the push, unspun: its least gap comes after its first step
    starts = starts.__class__(starts.position, starts.orientation, starts.velocity.copy(), starts.angular_velocity.copy())
    starts.velocity[0], starts.angular_velocity[0] = (0.0, 0.0, 0.1), (0.0, 0.0, 0.0)
    return body, built, starts, sweep.run_sweep(built, starts, dt=demos.DT, steps=STEPS)


def test_the_sweeps_tally_is_each_starts_own_run_measured_step_by_step():
    body, built, starts, result = _capsule_sweep()
    inputs, dt = built.build().step_inputs(body), demos.DT
    margin = float(inputs.hold.margin)
    worst_gap, worst_inward, last_gap = [], [], []
    with jax.enable_x64(True):
        for i in range(STARTS):
            start = jax.tree_util.tree_map(lambda a: np.asarray(a[i]), starts)
            run = run_body(inputs, start, dt, STEPS)
            before = [start] + [jax.tree_util.tree_map(lambda a: a[k], run.states) for k in range(STEPS - 1)]
            gaps, inward = [], [0.0]
            for k in range(STEPS):
                x, q = run.states.position[k], run.states.orientation[k]
                R = np.asarray(rotation.matrix(np.asarray(q)))
                # the floor z = 0, normal +z: the hull's deepest point lies its depth along -R^T z below the centre
                depth = float(sweep.hull_depth(body.hull, -(R.T @ np.array([0.0, 0.0, 1.0])), margin / 4))
                gaps.append(float(x[2]) - depth - margin)
                touching, gap = bool(run.report.touching[k]), float(run.report.contact_gap[k])
                if touching and np.isfinite(gap):
                    p = np.asarray(run.report.contact_point[k])
                    R0 = np.asarray(rotation.matrix(np.asarray(before[k].orientation)))
                    speed = run.states.velocity[k] + R0 @ np.cross(run.states.angular_velocity[k], p)
                    inward.append(max(-max(gap, 0.0) / dt - float(speed[2]), 0.0))
            worst_gap.append(min(gaps))
            last_gap.append(gaps[-1])
            worst_inward.append(max(inward))
    # the sweep's program and the run's differ only in how they are compiled: rounding, at the scale of a
    # millimetre's last bits for the gaps and of a metre per second's for the speeds
    np.testing.assert_allclose(result.worst_gap, worst_gap, rtol=0, atol=1e-17)
    np.testing.assert_allclose(result.worst_inward, worst_inward, rtol=0, atol=1e-12)
    # the figures can tell: some start's least gap is not its last, and some touching step fell short
    assert np.max(np.array(last_gap) - np.array(worst_gap)) > 1e-6
    assert np.max(worst_inward) > 1e-6 and np.all(result.touching[np.array(worst_inward) > 0] > 0)


def test_random_starts_lift_each_hull_to_the_margin_and_at_most_the_clearance_past_it():
    """Each start's deepest point begins between the margin and the margin plus the clearance from the floor, its
    centre moved only along the floor. Measured here against a sampling ten times denser than the one the starts
    were lifted by: the screw is measured at its samples, which reach short of its surface, and its starts are
    lifted by a further sampling spacing so that the true surface clears the margin as well."""
    for kind, clearance in {"capsule": sweep.SWEEP_CLEARANCE, "screw": 0.0}.items():
        body = demos.make_body(sweep.sweep_kinds()[kind], mass=1e-6, name=kind)
        built = demos.attach(body, demos.FLOOR.surface)
        starts = sweep.random_starts(built, 64, seed=1, clearance=clearance, speed=0.0, spin=0.0)
        margin = float(built.build().step_inputs(body).hold.margin)
        spacing = margin / 4  # the sampling random_starts measures by
        padding = spacing if kind == "screw" else 0.0
        surface = demos.FLOOR.surface
        n, point = np.asarray(surface.normal_vector), np.asarray(surface.point)
        with jax.enable_x64(True):
            down = np.stack([-(np.asarray(rotation.matrix(q)).T @ n) for q in starts.orientation])
            depth = np.asarray(jax.vmap(lambda d: sweep.hull_depth(body.hull, d, spacing / 10))(down))
        gap = (starts.position - point) @ n - depth
        assert gap.min() >= margin - 1e-15, kind
        # the denser sampling falls short of the surface too, elsewhere than the starts' own (6e-10 m seen): a
        # thousandth of the spacing is allowed for it, far below the spacing the lift adds
        assert gap.max() <= margin + clearance + padding + 1e-3 * spacing, kind
