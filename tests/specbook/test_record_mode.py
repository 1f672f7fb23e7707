"""Record mode steps past what a fault does to a page's presentation: figures and NaN glues."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import specbook  # noqa: E402
from specbook import _mode  # noqa: E402


def _cut_figure():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1, 2], [0, 5, 1], label="curve")
    ax.set_ylim(0, 2)  # cuts the curve
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    return fig


@pytest.fixture
def record(monkeypatch):
    monkeypatch.setenv(_mode.RECORD_ENV, "1")
    _mode.reset_notes()
    yield
    _mode.reset_notes()


def test_a_defective_figure_raises_in_the_normal_build():
    with pytest.raises(specbook.FigureDefect, match="cut by the view"):
        specbook.figure(_cut_figure(), "A curve cut at the top.")


def test_record_mode_closes_a_figure_unchecked_and_notes_it(record):
    fig = _cut_figure()
    assert specbook.figure(fig, "A curve cut at the top.") is None
    assert not plt.fignum_exists(fig.number)
    assert _mode.passed_over() == ["figure 'A curve cut at the top.': not drawn (record mode)"]


def test_raising_keeps_the_figure_check_in_record_mode(record):
    with pytest.raises(specbook.FigureDefect):
        with specbook.raising():
            specbook.figure(_cut_figure(), "A curve cut at the top.")


def test_a_nan_glue_raises_in_the_normal_build():
    with pytest.raises(ValueError, match="NaN"):
        specbook.glue("some_value", math.nan)


def test_record_mode_notes_a_nan_glue_and_goes_on(record):
    specbook.glue("some_value", math.nan)
    assert _mode.passed_over() == ["glue 'some_value': the value is NaN; a page never shows a NaN"]


def test_record_mode_glues_a_false_check_as_failing(record, fresh_claims, glued):
    """The page under a fault reads as the fault leaves it: a condition that does not hold shows "fails"."""
    assert specbook.check("rec_true", True, "a condition that holds") is not False
    assert specbook.check("rec_false", False, "a condition the fault broke") is False
    assert glued == {"rec_true": "holds", "rec_false": "fails"}
    assert [c.key for c in specbook.recorded_failures()] == ["rec_false"]


def test_record_mode_keeps_a_claims_first_failure(record, fresh_claims, glued):
    """A claim made again after it failed (in a loop, or a later cell) keeps its first failure: the normal build
    would have stopped there, so that is the measurement the catalogue reports."""
    specbook.claim("rec_twice", 2.0, 1.0, atol=0.1)
    specbook.claim("rec_twice", 3.0, 1.0, atol=0.1)
    specbook.claim("rec_twice", 1.0, 1.0, atol=0.1)
    (failure,) = specbook.recorded_failures()
    assert (failure.key, failure.measured) == ("rec_twice", 2.0)
    assert glued["rec_twice"] == 1.0  # the page shows the last value it made
