"""The figure checks can fail: each defect planted in a small figure, and the same figure without it.

Each plant is drawn twice, with the defect and without, so each test shows both that the check
finds the defect and that it finds nothing once the defect is gone (the check is not reporting
something else about the figure).
"""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import specbook  # noqa: E402
from specbook import figure_defects  # noqa: E402


@pytest.fixture(autouse=True)
def _book_style():
    with matplotlib.rc_context({"font.size": 12}):  # as the pages set it
        yield
    plt.close("all")


def _panels(n=2, width=7.0, height=3.2):
    fig, axes = plt.subplots(1, n, figsize=(width, height), squeeze=False)
    return fig, list(axes[0])


def _clean_curve(ax, label="curve", **style):
    t = np.linspace(0.0, 1.0, 41)
    return ax.plot(t, t**2, label=label, **style)[0]


# ---- text sizes (the check that came first) ----------------------------------------------------

def _figure(width_in, font_pt, panels=1):
    fig, axes = plt.subplots(1, panels, figsize=(width_in, 2.5), squeeze=False)
    for ax in axes[0]:
        ax.plot([0, 1], [0, 1])
        ax.set_xlabel("t (s)", fontsize=font_pt)
        ax.tick_params(labelsize=font_pt)
    fig.tight_layout()
    return fig


def test_smallest_font_reads_every_visible_text():
    fig = _figure(5, 12)
    fig.axes[0].set_title("title", fontsize=9)
    assert specbook.smallest_font_pt(fig) == 9.0


def test_a_wide_many_panel_figure_is_refused_with_the_size_it_would_show_at():
    fig = _figure(14, 10, panels=4)  # the ball page's old derivative figure: 10 pt in a 14 in row
    with pytest.raises(specbook.FigureTooSmall, match=r"10 pt, would show at \d\.\d px"):
        specbook.figure(fig, "four panels in a row")


def test_a_column_wide_figure_with_large_enough_text_is_shown():
    fig = _figure(6.5, 12, panels=2)
    assert specbook.figure(fig, "two panels") is None


# ---- a clean figure ----------------------------------------------------------------------------

def _clean_figure():
    """Two panels with everything the checks read: legend, markers, a scatter, a log axis, texts."""
    fig, (left, right) = _panels()
    _clean_curve(left, "t²")
    left.plot([0.6, 0.8], [0.2, 0.5], "o", color="tab:red", label="samples")
    left.set(xlabel="t (s)", ylabel="x (m)", title="a curve")
    left.legend(loc="upper left")
    left.text(0.95, 0.05, "note", transform=left.transAxes, ha="right")
    right.loglog([1e-3, 1e-2, 1e-1], [1e-9, 1e-7, 1e-5], "s-", label="error")
    right.scatter([3e-3], [1e-8], label="one run")
    right.set(xlabel="dt (s)", title="a log axis")
    right.legend(loc="lower right")
    fig.tight_layout()
    return fig


def test_a_clean_figure_has_no_defects_and_is_shown():
    fig = _clean_figure()
    assert figure_defects(fig) == []
    assert specbook.figure(fig, "a clean figure") is None


def test_a_curve_whose_view_is_set_to_its_own_extremes_is_not_cut():
    """Limits set to a curve's first and last times and its least and greatest values put its extreme points on
    the view's edges, where the transform to the display rounds them a hair either way: that is no cut."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    t = np.linspace(0.3, 7.7, 137)
    y = 1.37 * np.sin(t) + 0.11
    ax.plot(t, y, label="sine")
    ax.set(xlim=(t[0], t[-1]), ylim=(y.min(), y.max()), xlabel="t (s)", ylabel="y (m)")
    fig.tight_layout()
    assert figure_defects(fig) == []


def test_twins_and_insets_are_not_other_axes():
    fig, ax = plt.subplots(figsize=(6, 3.5))
    _clean_curve(ax, "left")
    twin = ax.twinx()
    twin.plot([0, 1], [5, 3], color="tab:orange", label="right")
    twin.set_ylabel("right scale")
    ax.legend(loc="upper center")
    inset = ax.inset_axes([0.6, 0.1, 0.35, 0.3])
    inset.plot([0, 1], [0, 1])
    fig.tight_layout()
    assert figure_defects(fig) == []


# ---- planted defects ---------------------------------------------------------------------------

def legend_over_the_next_panel(defect):
    """The contact chapter's "spin on the floor": a legend wider than its panel spills over the next one."""
    fig, (left, right) = _panels(width=6.9, height=3.4)
    t = np.linspace(0.0, 1.0, 41)
    left.plot(t, 1.3 - 0.1 * t, label="cylinder, held at its support" if defect else "cylinder")
    left.plot(t, 1.3 - 0.3 * t, label="24-sided mesh, held at its samples" if defect else "mesh")
    left.set(title="spin on the floor", ylim=(0, 1.4))
    right.plot(t, t)
    right.set(ylabel="share lost")
    left.legend(loc="center left")
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.12, top=0.9, wspace=0.4)  # a layout set by hand
    return fig


def legend_above_crowding_the_titles(defect):
    """ball-evidence's four panels: a figure legend above titled panels, placed by the constrained
    layout's own padding (about 3 pt under the legend), or by ``specbook.legend_above``."""
    fig, axes = plt.subplots(1, 2, figsize=(7.0, 3.4), layout="constrained")
    for ax, title in zip(axes, ("x(t) (m)", "dx/dh")):
        _clean_curve(ax, label="exact")
        ax.plot([0.0, 1.0], [0.2, 0.8], label="located")
        ax.set_title(title)
    handles = axes[0].get_legend_handles_labels()
    if defect:
        fig.legend(*handles, loc="outside upper center", ncol=2)
    else:
        specbook.legend_above(fig, *handles, ncol=2)
    return fig


def texts_on_top_of_each_other(defect):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    _clean_curve(ax)
    ax.set(xlabel="t (s)", title="one title")
    ax.text(0.1, 0.8, "first note", transform=ax.transAxes)
    ax.text(0.15 if defect else 0.6, 0.8, "second note", transform=ax.transAxes)
    fig.tight_layout()
    return fig


def crowded_tick_labels(defect):
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot(np.arange(12), np.arange(12))
    ax.set_xticks(np.arange(12) if defect else np.arange(0, 12, 4))
    ax.set_xticklabels([f"{v:.4f}" for v in ax.get_xticks()])
    fig.tight_layout()
    return fig


def text_over_the_next_panel(defect):
    fig, (left, right) = _panels()
    _clean_curve(left)
    _clean_curve(right)
    left.set_ylim(0, 1.4)
    fig.tight_layout()
    # Written after the layout, which would otherwise have made room for it.
    left.text(0.3, 1.2, "a note far too long for its own panel" if defect else "a short note")
    return fig


def legend_over_points(defect):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    t = np.linspace(0.0, 1.0, 9)
    ax.plot(t, t, "o", label="rising")
    ax.plot(t, 0.5 + 0 * t, "s", label="flat")
    ax.legend(loc="upper right" if defect else "upper left")
    fig.tight_layout()
    return fig


def big_marker_reaching_under_the_legend(defect):
    """One 24 pt marker whose centre lies 4 pt below the legend's box: its body reaches 8 pt under the legend."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([0.0, 0.4], [0.0, 0.4], label="line")
    (wide,) = ax.plot([0.5], [0.5], "o", ms=24, label="wide")
    ax.set(xlim=(0, 1), ylim=(0, 1))
    legend = ax.legend(loc="upper right")
    fig.tight_layout()
    fig.canvas.draw()
    box = legend.get_window_extent()
    below = box.y0 - 4 * fig.dpi / 72 if defect else box.y0 - 60 * fig.dpi / 72
    x, y = ax.transData.inverted().transform(((box.x0 + box.x1) / 2, below))
    wide.set_data([x], [y])
    return fig


def legend_over_a_segment(defect):
    """No vertex under the legend, only a straight stretch of line between two."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([0, 1], [0, 1], label="two-point line")
    ax.plot([0, 1], [0.9, 0.9] if defect else [0.1, 0.1], color="0.5", label="guide")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(loc="upper center")
    fig.tight_layout()
    return fig


def scatter_under_legend(defect):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.scatter([0.1, 0.5, 0.9], [0.2, 0.4, 0.95 if defect else 0.5], s=60, label="runs")
    ax.set(xlim=(0, 1), ylim=(0, 1))
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


def curve_cut_at_the_top(defect):
    """The contact chapter's mesh curve, cut by a y-limit of 1.1."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    t = np.linspace(0, 1, 50)
    ax.plot(t, 1 + 0.2 * np.sin(6 * t), label="mesh")
    ax.set(ylim=(0, 1.1) if defect else (0, 1.3))
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig


def curve_cut_at_the_bottom(defect):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    t = np.linspace(0, 1, 50)
    ax.plot(t, np.cos(4 * t), label="spin")
    ax.set(ylim=(0, 1.05) if defect else (-1.1, 1.1))
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


def marker_outside_the_x_view(defect):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([0.1, 0.5, 1.5 if defect else 0.9], [0.2, 0.5, 0.4], "o-", label="steps")
    ax.set(xlim=(0, 1), ylim=(0, 1))
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def marker_half_cut_at_the_edge(defect):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([0.0 if defect else 0.05, 0.5, 0.9], [0.2, 0.5, 0.4], "o", ms=10, label="steps")
    ax.set(xlim=(0, 1), ylim=(0, 1))
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def zero_on_a_log_axis(defect):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.loglog([1e-3, 1e-2, 1e-1], [0.0 if defect else 1e-16, 1e-7, 1e-5], "o-", label="error")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def marker_outside_the_view_in_the_legend(defect):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    _clean_curve(ax, "search")
    ax.plot([1.5 if defect else 0.8], [0.3], "*", ms=14, color="gold", label="global support", clip_on=True)
    ax.set(xlim=(-0.05, 1.05), ylim=(-0.05, 1.05))
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def marker_of_zero_size(defect):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    _clean_curve(ax, "search")
    ax.plot([0.8], [0.3], "*", ms=0 if defect else 12, label="global support")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def transparent_series(defect):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    _clean_curve(ax, "search")
    ax.plot([0, 1], [0.6, 0.2], alpha=0.0 if defect else 1.0, label="bound")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def star_behind_a_marker(defect):
    """A legend entry's marker drawn under a bigger opaque marker at the same place."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    _clean_curve(ax, "search")
    ax.plot([0.7], [0.3], "*", ms=10, color="gold", label="global support", zorder=2)
    ax.plot([0.7 if defect else 0.4], [0.3], "o", ms=18, color="tab:blue", zorder=3, label="_end")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def star_under_the_legend(defect):
    """The contact chapter's screw: the global support's star where the legend box sits."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    t = np.linspace(0, 1, 6)
    ax.plot(t, 0.2 + 0.5 * t, "o-", label="Newton's steps")
    ax.plot([0.05], [0.05 if defect else 0.9], "*", ms=14, color="gold", label="global support", zorder=1)
    ax.set(xlim=(-0.1, 1.1), ylim=(-0.1, 1.1))
    ax.legend(loc="lower left" if defect else "lower right")
    fig.tight_layout()
    return fig


def series_hidden_in_another_panel(defect):
    """The stability note's phase panel: two schemes with one phase error, the second drawn over the first."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.5, 5.5), sharex=True)
    z = np.linspace(0.01, 3.0, 100)
    top.plot(z, np.sqrt(1 + z**2), label="forward Euler")
    top.plot(z, 1 / np.sqrt(1 + z**2), "--", label="backward Euler")
    bottom.plot(z, np.arctan(z) / z - 1, label="forward Euler")
    bottom.plot(z, np.arctan(z) / z - 1, "-" if defect else "--", label="backward Euler")
    top.legend(loc="upper left")
    fig.tight_layout()
    return fig


def coarse_run_under_the_fine_one(defect):
    """The stability note's force histories: the run at the coarse step hidden under the fine one."""
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for steps, style in ((300, "-" if defect else "o"), (2400, "-")):
        t = np.linspace(0, 30, steps)
        keep = slice(None) if style == "-" else slice(None, None, 10)
        ax.plot(t[keep], np.maximum(0, 1250 * np.sin(t[keep] / 2)), style, ms=4, label=f"{steps} steps")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


def proxy_entry_for_nothing(defect):
    from matplotlib.lines import Line2D

    fig, ax = plt.subplots(figsize=(6, 3.5))
    _clean_curve(ax, "_curve", color="tab:blue")
    proxy = Line2D([], [], color="tab:red" if defect else "tab:blue", label="measured")
    ax.legend(handles=[proxy], loc="upper left")
    fig.tight_layout()
    return fig


PLANTS = {
    legend_over_the_next_panel: (r"the legend of panel 1 'spin on the floor' runs over the plotting area of panel 2",
                                 r"the y-label 'share lost' of panel 2 'share lost' overlaps the legend of panel 1",
                                 r"of the tick labels of panel 2 'share lost' \(.*\) overlap the legend of panel 1"),
    texts_on_top_of_each_other: r"the text 'first note' of the axes 'one title' overlaps the text 'second note'",
    crowded_tick_labels: r"\d+ of the tick labels of the axes overlap each other \('0\.0000', '1\.0000', '2\.0000'",
    text_over_the_next_panel: r"the text 'a note far too long for its own panel' of panel 1 overlaps the plotting "
                              r"area of panel 2",
    legend_over_points: r"the legend of the axes covers data: \d markers of the marker series 'rising'",
    legend_over_a_segment: r"covers data: the line 'guide' where it passes under it",
    big_marker_reaching_under_the_legend: r"the legend of the axes covers data: 1 marker of the marker series 'wide'",
    scatter_under_legend: r"covers data: 1 marker of the marker series 'runs'",
    curve_cut_at_the_top: r"the line 'mesh' is cut by the view: \d+ of 50 points lie above the top \(y = 1\.1\), "
                          r"up to y = 1\.2",
    curve_cut_at_the_bottom: r"the line 'spin' is cut by the view: \d+ of 50 points lie below the bottom \(y = 0\)",
    legend_above_crowding_the_titles: r"the figure's legend crowds \(within 4 pt of\) the title 'x\(t\) \(m\)' of panel 1",
    marker_outside_the_x_view: r"the line 'steps' is cut by the view: 1 of 3 points lies right of the right edge "
                               r"\(x = 1\), up to x = 1\.5",
    marker_half_cut_at_the_edge: r"the marker series 'steps' is cut by the view: 1 marker is cut at the left edge",
    zero_on_a_log_axis: r"the line 'error' is cut by the view: 1 of 3 points is zero or negative on a "
                        r"logarithmic axis",
    marker_outside_the_view_in_the_legend: r"has an entry 'global support' whose artists draw nothing in the view",
    marker_of_zero_size: r"has an entry 'global support' whose artists draw nothing in the view",
    transparent_series: r"has an entry 'bound' whose artists draw nothing in the view",
    star_behind_a_marker: r"has an entry 'global support' that the figure hides: \d+% of what it draws there shows; "
                          r"the rest is under the artists drawn over them",
    star_under_the_legend: r"has an entry 'global support' that the figure hides: \d+% of what it draws there shows; "
                           r"the rest is under the legend",
    proxy_entry_for_nothing: r"has an entry 'measured' that stands for nothing drawn in the figure",
    series_hidden_in_another_panel: r"the legend of panel 1 has an entry 'forward Euler' that the figure hides in "
                                    r"panel 2: \d+% of what it draws there shows; the rest is under the artists",
    coarse_run_under_the_fine_one: r"has an entry '300 steps' that the figure hides: \d+% of what it draws there",
}


@pytest.mark.parametrize("plant", PLANTS, ids=lambda p: p.__name__)
def test_a_planted_defect_is_found_and_named(plant):
    found = figure_defects(plant(defect=True))
    expected = PLANTS[plant] if isinstance(PLANTS[plant], tuple) else (PLANTS[plant],)
    for pattern in expected:
        assert any(re.search(pattern, d) for d in found), (pattern, found)


@pytest.mark.parametrize("plant", PLANTS, ids=lambda p: p.__name__)
def test_without_the_plant_the_same_figure_passes(plant):
    assert figure_defects(plant(defect=False)) == []


def test_legend_above_refuses_a_figure_its_layout_cannot_place_a_legend_outside():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match=r"fig = <a figure under no layout> is not allowed; expected a figure "
                                         r"under constrained layout"):
        specbook.legend_above(fig, ncol=2)


def test_figure_fails_the_page_naming_the_figure_and_the_defect_and_closes_it():
    fig = curve_cut_at_the_top(defect=True)
    with pytest.raises(specbook.FigureDefect, match=r"(?s)figure 'the mesh against time'.*\n  - the line 'mesh' "
                                                    r"is cut by the view"):
        specbook.figure(fig, "the mesh against time")
    assert not plt.fignum_exists(fig.number)


def test_a_long_alt_is_shortened_in_the_message():
    with pytest.raises(specbook.FigureDefect, match=r"figure 'x{89}…'"):
        specbook.figure(curve_cut_at_the_top(defect=True), "x" * 200)


# ---- declared cuts -----------------------------------------------------------------------------

def test_a_declared_cut_with_its_reason_passes():
    fig = curve_cut_at_the_top(defect=True)
    assert figure_defects(fig, cut={"mesh": "the peaks are not the subject; the floor is"}) == []
    assert specbook.figure(fig, "declared", cut={"mesh": "the peaks are not the subject"}) is None


def test_a_cut_may_be_declared_by_the_artist_itself():
    fig, ax = plt.subplots(figsize=(6, 3.5))
    line = ax.plot([0, 1, 2], [0, 1, 4])[0]
    ax.set_ylim(0, 2)
    (found,) = figure_defects(fig)
    assert found.startswith("unlabelled line 1 of the axes is cut by the view")
    assert figure_defects(fig, cut={line: "the last point is off the scale"}) == []


def test_a_declared_cut_that_cuts_nothing_is_a_defect():
    fig = curve_cut_at_the_top(defect=False)
    (found,) = figure_defects(fig, cut={"mesh": "stale"})
    assert found == "cut declares 'mesh' ('stale'), but no series by that name is cut by the view: remove the declaration"
    (found,) = figure_defects(fig, cut={"no such series": "typo"})
    assert found.startswith("cut declares 'no such series'")


def test_a_series_drawn_unclipped_is_not_cut():
    fig = curve_cut_at_the_top(defect=True)
    fig.axes[0].lines[0].set_clip_on(False)
    assert figure_defects(fig) == []


@pytest.mark.parametrize("cut", [["mesh"], {"mesh": ""}, {"mesh": "  "}, {"mesh": None}])
def test_a_malformed_cut_is_refused_naming_the_argument(cut):
    with pytest.raises(ValueError, match=r"cut(\[.*\])? = .* is not allowed"):
        figure_defects(curve_cut_at_the_top(defect=True), cut=cut)


# ---- what does not count -----------------------------------------------------------------------

def test_a_curve_ending_exactly_at_the_limits_is_not_cut():
    fig, ax = plt.subplots(figsize=(6, 3.5))
    t = np.linspace(0, 2, 30)
    ax.plot(t, np.sin(t), label="sin")
    ax.axhline(0.5, color="0.5", lw=0.8, label="_level")
    ax.set(xlim=(0, 2), ylim=(0, 1))
    ax.legend(loc="lower right")
    fig.tight_layout()
    assert figure_defects(fig) == []


def test_a_half_hidden_series_still_counts_as_drawn():
    """Two solid curves on the same points, the second dashed over the first: both show."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    _clean_curve(ax, "per-step", color="tab:red", lw=1.2)
    _clean_curve(ax, "located", color="tab:blue", lw=1.2, ls="--")
    ax.legend(loc="upper left")
    fig.tight_layout()
    assert figure_defects(fig) == []


def test_a_spacer_axes_switched_off_is_ignored():
    fig, (left, right) = _panels()
    _clean_curve(left, "curve")
    left.legend(loc="upper left", bbox_to_anchor=(1.05, 1.0))
    right.axis("off")
    fig.tight_layout()
    assert figure_defects(fig) == []


def test_the_checks_leave_the_figure_as_they_found_it():
    fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
    _clean_curve(ax, "curve")
    ax.legend(loc="upper left")
    fig.canvas.draw()  # the layout engine places the axes
    dpi, engine, position = fig.dpi, fig.get_layout_engine(), ax.get_position().bounds
    assert figure_defects(fig) == []
    assert fig.dpi == dpi and fig.get_layout_engine() is engine
    fig.canvas.draw()
    assert ax.get_position().bounds == pytest.approx(position)
