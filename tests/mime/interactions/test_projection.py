"""The contact page's demonstrations, each as a test (the same scenarios, from mime.demos)."""

import numpy as np
import pytest

import specbook
from mime import demos
from mime.errors import ValidationError


@pytest.fixture(scope="module")
def tube_runs():
    return demos.narrow_tube()


def test_free_body_is_bitwise_the_free_body_for_every_kind():
    rows = demos.free_body_bitwise()
    assert [r.kind for r in rows] == ["sphere", "ellipsoid", "cylinder", "capsule", "screw", "box", "mesh", "no hull"]
    for r in rows:
        assert r.bitwise and not r.touched and r.nearest > 0, r
        # each flight is held at some steps (those over the floor start within the hold's reach), so the
        # two passes, not only the broad phase's free step, are compared with the free body
        assert 1 <= r.held_steps <= demos.STEPS and np.isfinite(r.nearest), r
        assert (r.held_steps == demos.STEPS) == (r.kind in ("capsule", "no hull")), r  # the tube, the centre hold


def test_turned_capsule_passes_the_wall_under_010_and_is_held_under_040(tube_runs):
    passed = -(tube_runs.centre.min_gap.min() + demos.MARGIN)
    assert passed == pytest.approx(tube_runs.predicted_pass, rel=1e-3)
    assert abs(tube_runs.hull.min_gap.min()) <= demos.KEEP_ATOL


def test_holding_the_centre_in_the_040_path_fails_the_narrow_tube_claim(monkeypatch):
    from mime.interactions import _build, _centre

    def centre(*, margin, spacing, rule, body, surface):
        return _centre.build_centre_confinement(margin=margin, rule=rule, body=body, surface=surface)

    monkeypatch.setattr(_build, "build_confinement", centre)
    runs = demos.narrow_tube()
    with pytest.raises(specbook.ClaimError, match="narrow_tube_040_keeps_margin"):
        specbook.claim("narrow_tube_040_keeps_margin", runs.hull.min_gap.min(), 0.0, atol=demos.KEEP_ATOL, unit="m")


def test_spin_on_the_floor_kept_by_support_lost_by_samples():
    runs = demos.spin_on_floor()
    assert np.all(runs.cylinder.spin == demos.SPIN) and runs.cylinder.touching.all()
    assert not runs.cylinder.held_by_samples.any()
    assert runs.mesh.kept < demos.MOST and runs.mesh.held_by_samples.any()


def test_screw_spin_loss_is_nearly_flat_in_the_spacing():
    rows = demos.screw_spin_by_spacing(spacings=(1.5e-4, 1.0e-4))
    kept = [row.kept for row in rows]
    assert max(kept) - min(kept) <= demos.SCREW_PART
    assert all(1.0 - demos.SCREW_PART <= k <= 1.0 + demos.SCREW_GAIN for k in kept)


def test_two_walls_converge_by_c_squared_a_sweep_and_flag_unconverged():
    r = demos.two_walls()
    assert abs(r.coupling) > 0.9
    assert np.allclose(r.ratios[:20], r.coupling ** 2, rtol=1e-6)
    assert r.unconverged.any()
    # the margin is kept only as far as the fixed sweeps get it (the seed's validity line), and flagged
    assert abs(r.min_gap) <= demos.SWEPT_ATOL


def test_hullless_body_is_held_as_a_sphere_of_its_extent():
    r = demos.hullless_body()
    assert abs(r.min_gap) <= demos.KEEP_ATOL and r.touching_steps > 0
    assert r.difference <= 1e-12


def test_touching_point_moves_continuously_on_a_turning_ellipsoid():
    r = demos.turning_ellipsoid()
    assert r.off_support <= 1e-15
    assert r.worst_move_over_bound <= 1.0 + 1e-9


def test_support_short_raises_where_the_screws_search_is_cut_short():
    r = demos.support_short_screw(newton_steps=1)
    assert r.support_short.any()
    ok = demos.support_short_screw(newton_steps=16)
    assert not ok.support_short.any()


def test_touching_marks_exactly_the_steps_with_a_force():
    r = demos.touching_is_force()
    assert r.touching.any() and not r.touching.all()
    assert np.array_equal(r.touching, r.changed)
    assert np.array_equal(r.touching, r.forced)


def test_spacing_rules():
    r = demos.spacing_rules()
    assert r.default == r.default_expected
    assert r.tiny_margin_spacing == r.floor_spacing
    assert r.refused is not None and "spacing" in r.refused and "shortfall" in r.refused
    assert r.box_shortfall > demos.MARGIN


def test_the_seeds_helical_microrobot_runs_saves_and_loads(tmp_path):
    from mime import Experiment

    r = demos.helical_microrobot(steps=600)
    rec = r.record
    assert rec.flags["touching"].any() and rec.states["position"][-1, 0] > 0
    r.experiment.save(tmp_path / "umr")
    again = Experiment.load(tmp_path / "umr")
    assert again.document_text() == r.experiment.document_text()
    rec2 = again.run(dt=demos.DT, steps=600)
    assert all(np.array_equal(rec2.states[k], rec.states[k]) for k in rec.states)


def test_bad_settings_are_refused_by_the_build():
    from mime import Contact, Experiment
    from mime.interactions._build import build_confinement
    from mime.interactions._centre import build_centre_confinement
    from mime.units import mm, nm

    body = demos.make_body(demos.LONG_CAPSULE, mass=1e-6)
    surface = demos.NARROW_TUBE.inner_surface
    with pytest.raises(ValidationError, match="rule = 'bounce'"):
        build_confinement(margin=1e-4, spacing=None, rule="bounce", body=body, surface=surface)
    # the margin is checked once, by the entry's setting; the build takes the metres the plan converts
    with pytest.raises(ValidationError, match=r"margin = mm\(-1.0\) is not allowed; expected a positive length"):
        Contact.Projection(margin=mm(-1.0))
    underflow = Experiment()
    underflow.attach(Contact.Projection(margin=nm(5e-324)), body=body, surface=surface)
    with pytest.raises(ValidationError, match=r"margin = nm\(5e-324\) is not allowed; .* SI value is finite, and zero"):
        underflow.build("exploratory")
    with pytest.raises(ValidationError, match="surface = "):
        build_centre_confinement(margin=1e-4, rule="remove_outward", body=body, surface=demos.NARROW_TUBE)
    with pytest.raises(ValidationError, match="spacing = 0.0"):
        build_confinement(margin=1e-4, spacing=0.0, rule="remove_outward", body=body, surface=surface)
