"""MIME's anomaly records: each pinned here, a strict xfail while it is open (fixing it flips the test)."""

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from maddening import anomalies
from mime import anomalies as mime_anomalies
from mime import demos

ROOT = Path(__file__).resolve().parents[2]
MIME_IDS = ("MIME-ANO-131", "MIME-ANO-134", "MIME-ANO-135", "MIME-ANO-136")
SWEEP_IDS = ("MIME-ANO-137", "MIME-ANO-138")  # found by the margin sweep; pinned in tests/sharding


def test_mime_records_are_registered_and_each_names_an_existing_test():
    # MIME keeps its records itself: importing mime writes nothing into maddening's registry
    assert not any(r.id.startswith("MIME-") for r in anomalies.all_records())
    ids = [r.id for r in mime_anomalies.all_records()]
    for needed in MIME_IDS + SWEEP_IDS:
        assert needed in ids
    for record in mime_anomalies.all_records():
        if not record.id.startswith("MIME-"):
            continue
        path, _, name = record.pinned_by.partition("::")
        lines = (ROOT / path).read_text().splitlines()
        index = next((i for i, line in enumerate(lines) if line.startswith(f"def {name}(")), None)
        assert index is not None, f"{record.id}: no test {record.pinned_by}"
        decorators = "\n".join(lines[max(0, index - 4):index])
        assert ("xfail(strict=True" in decorators) == (record.status == "open"), record.id
        # the seed states no figures for these: a record that states any states what it measured when
        # written, each figure with a bound of its own
        if record.figures:
            # each names the function that measured its figures (the page shows it), then when
            recorded = (mime_anomalies.RECORDED_140 if record.id == "MIME-ANO-140"
                        else f"{record.measure.__name__}() {mime_anomalies.RECORDED}")
            assert record.source == recorded and record.source.startswith(record.measure.__name__ + "()"), record.id
            assert set(record.tolerance) == set(record.figures), record.id
        else:
            assert not record.source, record.id
    assert [mime_anomalies.get(i).status for i in MIME_IDS] == ["open", "open", "resolved", "resolved"]
    assert all(mime_anomalies.get(i).resolved_in == "0.4.0" for i in MIME_IDS[2:])
    assert [mime_anomalies.get(i).status for i in SWEEP_IDS] == ["open", "open"]


@pytest.mark.xfail(strict=True, reason="MIME-ANO-131: a hull held at its samples (and a screw by its support) loses spin")
def test_a_body_of_revolution_spun_on_the_floor_keeps_its_spin():
    mesh_kept, flagged = mime_anomalies.mesh_spin()
    (screw_kept,) = mime_anomalies.screw_spin((1.5e-4,))
    # the smooth cylinder keeps its spin to the last bit; so should its mesh, and the screw
    assert mesh_kept == pytest.approx(1.0, abs=1e-6) and screw_kept == pytest.approx(1.0, abs=1e-6)


@pytest.mark.xfail(strict=True, reason="MIME-ANO-134: starts are counted against a flat wall, not the tube's")
def test_a_groups_starts_cover_its_places_against_a_curved_wall():
    umr = demos.microrobot().hull.parts[0].geometry
    r = mime_anomalies.curved_wall_places(umr, n=30, seed=0)
    assert r["excess"].max() == 0, f"{int((r['excess'] > 0).sum())} of 30 poses hold more places than starts"


def test_a_group_whose_search_does_not_converge_holds_its_nearest_sample_and_flags_it():
    """MIME-ANO-135, resolved in 0.4.0: a converged search holds the body's own point; an
    unconverged one holds the group's nearest sample, flagged support_short."""
    from mime.geometry import Screw

    g = demos.SPIN_SCREW
    held = {}
    for steps in (1, 16):
        screw = Screw(g.core_radius, g.thread_depth, g.pitch, g.length, newton_steps=steps)
        body = demos.spinner(screw, screw.outer_radius, "screw")
        hold = demos.confinement(demos.attach(body, demos.FLOOR.surface)).hold
        with jax.enable_x64(True):
            x = jnp.asarray(body.start.position) + jnp.array([0.0, 0.0, -2e-5])
            q = jnp.asarray(demos.lying_orientation(0.3))
            A = jax.jit(lambda hold, x, q: hold.choose(x, q))(jax.tree_util.tree_map(jnp.asarray, hold), x, q)
            held[steps] = {k: np.asarray(getattr(A, k)) for k in ("point", "gap", "short", "supported")}
        samples = hold.samples[hold.valid]
    cut, full = held[1], held[16]
    assert cut["short"].any() and not full["short"].any()
    # the unconverged groups hold a sample of the hull, exactly
    for p in cut["point"][cut["short"]]:
        assert np.min(np.linalg.norm(samples - p, axis=1)) == 0.0
    # a converged search holds the body's own deepest point, no shallower than the group's nearest sample
    assert full["supported"].all()
    assert full["gap"].min() <= cut["gap"][cut["short"]].min() + 1e-15


def test_the_second_pass_catches_what_the_first_pass_points_miss_and_keeps_the_margin():
    """MIME-ANO-136, resolved in 0.4.0: on the seed's microrobot in the narrow tube, a point the second
    pass chooses is past the margin on some steps where no first-pass point is, and the run keeps it."""
    # the anomalies page's 600 steps: the same compiled program as the page's measurement, read from
    # JAX's persistent cache by whichever of the two runs second
    run = demos.helical_microrobot(steps=600)
    c = mime_anomalies.second_pass_catches(run.experiment, run.record.states, demos.DT)
    assert c["caught"].any()
    assert run.min_gap >= -demos.KEEP_ATOL
