"""The note's claims see a wrong integrator: central differences using the old acceleration twice."""

import pytest

import specbook
from maddening.analysis import stability
from maddening.analysis.note_figures import FIGURES, figure
from maddening.core.simulation import _second_order_schemes as schemes
from maddening.core.simulation.integrators import METHODS


def old_acceleration_twice(node, state, boundary_inputs, dt, params):
    """The mutant: both half kicks use the acceleration at the old position."""
    first = node.derivatives(state, boundary_inputs, params)
    v_half = {r: schemes._step(state[r], first[r], 0.5 * dt) for _, r in node.second_order_pairs()}
    drift = node.derivatives({**state, **v_half}, boundary_inputs, params)
    new = {p: schemes._step(state[p], drift[p], dt) for p, _ in node.second_order_pairs()}
    new.update({r: schemes._step(v_half[r], first[r], 0.5 * dt) for r in v_half})
    return new


@pytest.fixture
def mutated(monkeypatch):
    monkeypatch.setitem(METHODS, "central_difference", old_acceleration_twice)
    stability._batched_step_matrices.cache_clear()
    yield
    stability._batched_step_matrices.cache_clear()


def claim_note(key, measured):
    f = figure(key)
    return specbook.claim("test_" + key, measured, f.value, atol=f.atol)


def test_the_real_scheme_meets_the_note():
    claim_note("cd_frequency", stability.numerical_frequency("central_difference", 1000.0, 1e-3))
    claim_note("cd_limit", stability.stability_limit("central_difference"))


def test_the_mutant_fails_the_note_claims(mutated):
    with pytest.raises(specbook.ClaimError, match="test_cd_limit"):
        claim_note("cd_limit", stability.stability_limit("central_difference"))
    with pytest.raises(specbook.ClaimError, match="test_cd_frequency"):
        claim_note("cd_frequency", stability.numerical_frequency("central_difference", 1000.0, 1e-3))


def test_every_figure_is_declared_once():
    keys = [f.key for f in FIGURES]
    assert len(keys) == len(set(keys))
