"""Reading a drawn Matplotlib figure for what hides, crowds or cuts its data.

A figure on a page makes a claim by what a reader sees. Five layout faults make it
say less than its code drew, and :func:`figure_defects` finds each one with
Matplotlib's own geometry, after the figure has been drawn:

overlap
    A legend or a text (a title, an axis label, a tick label, an annotation) whose
    box on the canvas, from ``get_window_extent``, overlaps another text, or
    overlaps the plotting area of an axes other than its own (a twin or an inset
    of its own axes counts as its own).
crowded legend
    A legend that overlaps no text but comes within :data:`LEGEND_CLEARANCE_PT` of
    one (a panel's title under a legend placed above the panels): read together,
    the legend's last row and the title look like one block.
legend over data
    A legend whose box (its frame, ``Legend.get_frame``, with the entries inside)
    covers a vertex or a marker of a plotted series, or a stretch of line between
    two vertices, inside the area where that series is drawn. A series is a
    :class:`~matplotlib.lines.Line2D`, a scatter's
    :class:`~matplotlib.collections.PathCollection` or a
    :class:`~matplotlib.collections.LineCollection`; fills and images are not.
cut
    A series with a vertex or marker centre outside its axes' view, so that the
    clip box cuts it, or a marker more than a quarter cut at the edge. A value a
    logarithmic axis cannot show (zero or negative) is cut too. A page that cuts
    a series on purpose declares it, with its reason, through ``cut``.
empty legend entry
    A legend entry whose artists show (almost) nothing on the canvas: outside the
    view, of zero size, transparent, or covered by the legend or by other artists,
    in any panel that draws them. This is measured by drawing, with Matplotlib's
    Agg renderer: in its panel, the entry's artists are drawn alone over the
    background, and under what the panel draws after them (its later artists, its
    axis lines and ticks). The pixels that differ in the first case are what the
    artists draw; those that still differ in the second, outside every legend's
    box, are what a reader sees of them. An entry is empty when its artists draw
    nothing, or when less than :data:`VISIBLE_SHARE` of what they draw shows.

Distances are in display pixels at the figure's dpi; a box, point or segment
counts as overlapping only beyond :data:`TOLERANCE_PT` points, so touching is not
a defect.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> fig, ax = plt.subplots()
>>> _ = ax.plot([0, 1, 2], [0, 1, 4], label="y = x²")
>>> figure_defects(fig)
[]
>>> _ = ax.set_ylim(0, 2)
>>> print(*figure_defects(fig), sep="\\n")
the line 'y = x²' is cut by the view: 1 of 3 points lies above the top (y = 2), up to y = 4
>>> figure_defects(fig, cut={"y = x²": "the last point is off the scale of the others"})
[]
>>> plt.close(fig)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["LEGEND_CLEARANCE_PT", "TOLERANCE_PT", "VISIBLE_SHARE", "FigureDefect", "figure_defects"]

TOLERANCE_PT = 0.75
"""How far (points) two boxes, a point and a box, or a series and its view may overlap before it counts.

Text boxes carry a little room above and below the glyphs; three quarters of a point is less
than a reader can see at the book's sizes and more than that room."""

LEGEND_CLEARANCE_PT = 4.0
"""The least room (points) between a legend's frame and a text it does not overlap.

A text box already carries a little room above and below its glyphs; four points more is about
a third of the book's figure text, the gap a reader needs to see two blocks. Matplotlib's
constrained layout leaves about three points between a legend placed outside the panels and their
titles, so such a figure asks its layout for more (``h_pad``)."""

VISIBLE_SHARE = 0.15
"""The share of what a legend entry's artists draw that must show for the entry to count as drawn.

Counted over the pixels an artist draws at full strength (see ``_shown_share``). A solid line
under a dashed one of the same width on the same path shows in the gaps, about a quarter of it,
and counts as drawn; a line under another solid one, a marker under the legend or under a larger
marker show almost nothing, and do not."""


_NO_LINE = ("None", "none", "", " ")
_NO_MARKER = (None, "None", "none", "", " ")


class FigureDefect(ValueError):
    """A figure on a page hides, crowds or cuts what it draws (see :func:`figure_defects`)."""


@dataclass(frozen=True)
class _Box:
    """A text, or a legend as one box, on the canvas."""

    name: str
    bbox: Any  # matplotlib.transforms.Bbox, display pixels
    owner: Any  # the Axes it belongs to, or None for the figure's own
    legend: bool = False
    group: str = ""  # for tick labels: "the tick labels of <axes>", so that a crowded axis is one sentence
    text: str = ""


def figure_defects(fig: Any, *, cut: Mapping[Any, str] | None = None) -> list[str]:
    """The layout defects of a Matplotlib figure, one sentence each (an empty list when there are none).

    Four kinds, each read from Matplotlib's own geometry once ``fig`` is drawn:

    - a legend or a text whose box overlaps another text, or the plotting area of an axes
      other than its own (its twins and insets count as its own);
    - a legend whose box covers a point, a marker or a stretch of line of a plotted series;
    - a series with points outside its axes' view, a marker more than a quarter past an
      edge, or a value of zero or less on a logarithmic axis;
    - a legend entry whose artists show less than 15% of what they draw, in any panel
      that draws them (outside the view, of zero size, transparent, or covered by the
      legend or by what the panel draws after them), measured by drawing them alone and
      under the rest with Matplotlib's Agg renderer.

    ``cut`` maps a series, by its legend label or as the artist
    itself, to the reason the page cuts it on purpose (``{"per-step": "it runs off to
    1e3; the others are the subject"}``); a declared series is not reported as cut. A
    declaration that names no series, or a series the view does not cut, is reported
    as a defect, so a declaration cannot outlive its reason.

    The figure is left as it was given: its dpi and layout engine are changed while the
    entries are drawn, and put back.

    Raises ``ValueError`` naming ``cut`` when it is not a mapping of series to
    non-empty reasons.
    """
    declared = _declared_cuts(cut)
    fig.canvas.draw()
    # The layout is settled by that draw; the checks draw again (entries at a higher dpi) without
    # running a layout engine, which would only find the same places, slowly.
    engine = fig.get_layout_engine()
    if engine is not None:
        fig.set_layout_engine("none")
    try:
        return _defects(fig, declared)
    finally:
        if engine is not None:
            fig.set_layout_engine(engine)


def _defects(fig: Any, declared: dict[Any, str]) -> list[str]:
    renderer = fig.canvas.get_renderer()
    tol = TOLERANCE_PT * fig.dpi / 72.0
    axes = [ax for ax in _all_axes(fig) if ax.get_visible() and _shows_anything(ax)]
    names = _axes_names(fig, axes)
    legends = [leg for leg in [*(ax.get_legend() for ax in axes), *fig.legends]
               if leg is not None and leg.get_visible()]
    boxes = [*_text_boxes(fig, axes, legends, names, renderer), *_legend_boxes(legends, names, renderer)]
    defects = [
        *_overlaps(boxes, axes, names, tol),
        *_legends_over_data(legends, axes, names, renderer, tol),
    ]
    cut_found, declared_used = _cut_series(axes, names, declared, tol)
    defects += cut_found
    for key, reason in declared.items():
        if key not in declared_used:
            defects.append(f"cut declares {_key_name(key)} ({reason!r}), but no series by that name is cut "
                           f"by the view: remove the declaration")
    defects += _empty_entries(fig, legends, names)
    return defects


# ---- naming ------------------------------------------------------------------------------------

def _axes_names(fig: Any, axes: list[Any]) -> dict[int, str]:
    """A name for each axes: its title (or y-label) and, where there are several, its panel number."""
    names = {}
    several = len(axes) > 1
    for number, ax in enumerate(axes, start=1):
        title = next((t for t in (ax.get_title(loc) for loc in ("center", "left", "right")) if t.strip()), "")
        title = title or ax.get_ylabel().strip()
        parts = [f"panel {number}" if several else "the axes"]
        if title:
            parts.append(repr(title))
        names[id(ax)] = " ".join(parts)
    return names


def _series_name(artist: Any, ax: Any, names: Mapping[int, str]) -> str:
    label = artist.get_label()
    kind = "marker series" if _is_markers_only(artist) else "line"
    where = names.get(id(ax), "an axes")
    if label and not label.startswith("_"):
        return f"the {kind} {label!r}" + (f" of {where}" if where != "the axes" else "")
    index = [*ax.lines, *ax.collections].index(artist) + 1
    return f"unlabelled {kind} {index} of {where}"


def _key_name(key: Any) -> str:
    return repr(key) if isinstance(key, str) else f"the artist {key!r}"


def _declared_cuts(cut: Any) -> dict[Any, str]:
    if cut is None:
        return {}
    if not isinstance(cut, Mapping):
        raise ValueError(f"cut = {cut!r} is not allowed; expected a mapping of series (label or artist) "
                         f"to the reason the page cuts it")
    for key, reason in cut.items():
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"cut[{key!r}] = {reason!r} is not allowed; expected a sentence giving the "
                             f"reason the series is cut")
    return dict(cut)


# ---- what is drawn where -----------------------------------------------------------------------

def _all_axes(fig: Any) -> list[Any]:
    """The figure's axes and, after each, its insets (``Axes.inset_axes`` keeps them apart from ``fig.axes``)."""
    found = []

    def visit(ax):
        found.append(ax)
        for child in ax.child_axes:
            visit(child)

    for ax in fig.axes:
        visit(ax)
    return found


def _shows_anything(ax: Any) -> bool:
    """False for an axes switched off with nothing in it (a spacer in a grid)."""
    return ax.axison or bool(ax.lines or ax.collections or ax.patches or ax.images or ax.texts)


def _drawn_tick_labels(axis: Any) -> list[Any]:
    labels = []
    # The ticks inside the view, as Axis.draw picks them (the Axis keeps spare ticks around).
    for tick in axis._update_ticks():
        labels += [tick.label1, tick.label2]
    return labels


def _text_name(text: Any, ax: Any, names: Mapping[int, str], role: str) -> str:
    where = names.get(id(ax), "the figure") if ax is not None else "the figure"
    return f"{role} {text.get_text()!r} of {where}"


def _text_boxes(fig, axes, legends, names, renderer) -> Iterable[_Box]:
    from matplotlib.text import Text

    inside_legends = set()
    for leg in legends:
        inside_legends |= {id(t) for t in leg.findobj(Text)}
    roles: dict[int, tuple[str, Any]] = {}
    hidden = set()  # texts of an axis that is not drawn (a twin's shared axis, an axes switched off)
    for ax in axes:
        for loc in ("center", "left", "right"):
            roles[id(_title(ax, loc))] = ("the title", ax)
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            texts = {"label": axis.label, "offset": axis.offsetText}
            roles[id(axis.label)] = (f"the {name}-label", ax)
            roles[id(axis.offsetText)] = (f"the {name}-offset", ax)
            ticks = _drawn_tick_labels(axis)
            for label in ticks:
                roles[id(label)] = ("the tick label", ax)
            if not (ax.axison and axis.get_visible()):
                hidden |= {id(t) for t in [*texts.values(), *ticks]}
        for text in ax.texts:
            roles[id(text)] = ("the text", ax)
    spare_ticks = set()
    for ax in _all_axes(fig):
        for axis in (ax.xaxis, ax.yaxis):
            for tick in [*axis.majorTicks, *axis.minorTicks]:
                spare_ticks |= {id(tick.label1), id(tick.label2)}
    figure_box = fig.bbox
    for text in fig.findobj(Text):
        if id(text) in inside_legends or id(text) in hidden or (id(text) in spare_ticks and id(text) not in roles):
            continue
        if not text.get_visible() or not text.get_text().strip():
            continue
        bbox = Text.get_window_extent(text, renderer)  # the text alone, not an annotation's arrow
        if bbox.width <= 0 or not bbox.overlaps(figure_box):
            continue
        role, ax = roles.get(id(text), ("the text", text.axes))
        if ax is not None and id(ax) not in names:
            continue  # a text of an axes that shows nothing
        group = f"the tick labels of {names[id(ax)]}" if role == "the tick label" else ""
        yield _Box(_text_name(text, ax, names, role), bbox, ax, group=group, text=text.get_text())


def _title(ax: Any, loc: str) -> Any:
    return {"center": ax.title, "left": ax._left_title, "right": ax._right_title}[loc]


def _legend_bbox(leg: Any, renderer: Any) -> Any:
    from matplotlib.transforms import Bbox

    boxes = [leg.get_window_extent(renderer)]
    if leg.get_frame_on():
        boxes.append(leg.get_frame().get_window_extent(renderer))
    return Bbox.union(boxes)


def _legend_name(leg: Any, names: Mapping[int, str]) -> str:
    owner = _legend_owner(leg)
    return f"the legend of {names.get(id(owner), 'an axes')}" if owner is not None else "the figure's legend"


def _legend_owner(leg: Any) -> Any:
    return leg.axes if leg.axes is not None and leg.axes.get_legend() is leg else None


def _legend_boxes(legends, names, renderer) -> Iterable[_Box]:
    for leg in legends:
        yield _Box(_legend_name(leg, names), _legend_bbox(leg, renderer), _legend_owner(leg), legend=True)


def _overlap(a: Any, b: Any, tol: float) -> bool:
    """Whether two display boxes share more than ``tol`` pixels in both directions."""
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return width > tol and height > tol


def _related(a: Any, b: Any) -> bool:
    """Whether two axes share a plotting area: twins, or one an inset of the other."""
    pa, pb = a.bbox, b.bbox
    inside = (lambda p, q: p.x0 >= q.x0 - 0.5 and p.x1 <= q.x1 + 0.5 and p.y0 >= q.y0 - 0.5 and p.y1 <= q.y1 + 0.5)
    return inside(pa, pb) or inside(pb, pa)


def _overlaps(boxes: list[_Box], axes: list[Any], names: Mapping[int, str], tol: float) -> list[str]:
    pairs: list[tuple[_Box, str, str]] = []  # (box, verb, what it overlaps)
    crowded: dict[str, list[str]] = {}  # tick labels of one axes that overlap each other
    clearance = LEGEND_CLEARANCE_PT * tol / TOLERANCE_PT  # in pixels, as tol is
    for i, box in enumerate(boxes):
        for other in boxes[i + 1:]:
            if not _overlap(box.bbox, other.bbox, tol):
                if (box.legend != other.legend) and _overlap(box.bbox, other.bbox, -clearance):
                    legend, text = (box, other) if box.legend else (other, box)
                    pairs.append((legend, f"crowds (within {LEGEND_CLEARANCE_PT:g} pt of)", text.name))
                continue
            if box.group and box.group == other.group:
                texts = crowded.setdefault(box.group, [])
                texts += [t for t in (box.text, other.text) if t not in texts]
            else:
                pairs.append((box, "overlaps", other.name))
        for ax in axes:
            if box.owner is not None and (ax is box.owner or _related(ax, box.owner)):
                continue
            if _overlap(box.bbox, ax.bbox, tol):
                verb = "runs over the plotting area of" if box.legend else "overlaps the plotting area of"
                pairs.append((box, verb, names[id(ax)]))
    # Tick labels of one axis that overlap the same thing make one sentence.
    found, grouped = [], {}
    for box, verb, target in pairs:
        if box.group:
            grouped.setdefault((box.group, verb, target), []).append(box.text)
        else:
            found.append(f"{box.name} {verb} {target}")
    for (group, verb, target), texts in grouped.items():
        if len(texts) == 1:
            found.append(f"{group.replace('the tick labels', 'the tick label ' + repr(texts[0]))} {verb} {target}")
        else:
            shown = ", ".join(repr(t) for t in texts[:4]) + (", …" if len(texts) > 4 else "")
            found.append(f"{len(texts)} of {group} ({shown}) {verb.replace('overlaps', 'overlap')} {target}")
    for group, texts in crowded.items():
        shown = ", ".join(repr(t) for t in texts[:4]) + (", …" if len(texts) > 4 else "")
        found.append(f"{len(texts)} of {group} overlap each other ({shown}): use fewer ticks or shorter labels")
    return found


# ---- series ------------------------------------------------------------------------------------

def _is_markers_only(artist: Any) -> bool:
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D

    if isinstance(artist, PathCollection):
        return True
    return isinstance(artist, Line2D) and artist.get_linestyle() in _NO_LINE


def _series(ax: Any) -> list[Any]:
    """The drawn data of an axes: visible lines, scatters and line collections."""
    from matplotlib.collections import LineCollection, PathCollection

    return [a for a in [*ax.lines, *ax.collections]
            if a.get_visible() and (a in ax.lines or isinstance(a, (PathCollection, LineCollection)))]


@dataclass(frozen=True)
class _Geometry:
    """A series on the canvas: its vertices' display positions, which runs join them, marker radii."""

    points: np.ndarray  # (n, 2) display pixels, finite
    runs: list[np.ndarray]  # lists of (m, 2) display vertices joined by straight line
    radius: np.ndarray  # (n,) marker radius in pixels, 0 without markers
    unshowable: int  # finite data points the axes cannot place (zero or less on a log axis)


def _geometry(artist: Any, ax: Any) -> _Geometry:
    """Where a series' vertices and markers land on the canvas, through the series' own transform."""
    from matplotlib.collections import LineCollection, PathCollection

    px_per_pt = ax.figure.dpi / 72.0
    if isinstance(artist, PathCollection):
        data = np.asarray(artist.get_offsets(), dtype=float).reshape(-1, 2)
        transform = artist.get_offset_transform()
        sizes = np.asarray(artist.get_sizes(), dtype=float)
        radius = np.sqrt(np.resize(sizes, len(data)) if len(sizes) else np.zeros(len(data))) / 2.0 * px_per_pt
        run = np.full(len(data), -1)
    elif isinstance(artist, LineCollection):
        segments = [np.asarray(s, dtype=float).reshape(-1, 2) for s in artist.get_segments()]
        data = np.concatenate(segments) if segments else np.zeros((0, 2))
        transform = artist.get_transform()
        radius = np.zeros(len(data))
        run = np.repeat(np.arange(len(segments)), [len(s) for s in segments])
    else:
        data = np.asarray(artist.get_xydata(), dtype=float).reshape(-1, 2)
        transform = artist.get_transform()
        has_marker = artist.get_marker() not in _NO_MARKER and artist.get_markersize() > 0
        radius = np.full(len(data), artist.get_markersize() / 2.0 * px_per_pt if has_marker else 0.0)
        joined = artist.get_linestyle() not in _NO_LINE and artist.get_linewidth() > 0
        run = np.zeros(len(data), dtype=int) if joined else np.full(len(data), -1)
    finite = np.isfinite(data).all(axis=1)
    if transform.contains_branch(ax.transData):
        # A log axis has no place for zero or less (Matplotlib clips or masks it, depending on the scale).
        for column, scale in ((0, ax.get_xscale()), (1, ax.get_yscale())):
            if scale == "log":
                finite &= ~(data[:, column] <= 0)
    points = np.full_like(data, np.nan)
    if finite.any():
        with np.errstate(all="ignore"):
            points[finite] = transform.transform(data[finite])
    placed = finite & np.isfinite(points).all(axis=1)
    runs = []
    for r in np.unique(run[run >= 0]):
        # A NaN (or a point the axes cannot place) breaks a line, as it does when Matplotlib draws it.
        index = np.flatnonzero(run == r)
        for chunk in np.split(index, np.flatnonzero(~placed[index]) + 1):
            chunk = chunk[placed[chunk]]
            if len(chunk) > 1:
                runs.append(points[chunk])
    unshowable = int((np.isfinite(data).all(axis=1) & ~placed).sum())
    return _Geometry(points[placed], runs, radius[placed], unshowable)


def _clip_box(artist: Any, ax: Any) -> Any | None:
    """The box a series is clipped to (the axes' area), or None when it is drawn unclipped."""
    if not artist.get_clip_on():
        return None
    box = artist.get_clip_box()
    return box if box is not None else ax.bbox


# ---- legends over data -------------------------------------------------------------------------

def _segments_cross(runs: list[np.ndarray], box: Any) -> int:
    """How many straight segments of the runs pass through ``box`` (display pixels)."""
    from matplotlib.path import Path

    crossing = 0
    for run in runs:
        for a, b in zip(run[:-1], run[1:]):
            if Path(np.array([a, b])).intersects_bbox(box, filled=False):
                crossing += 1
    return crossing


def _legends_over_data(legends, axes, names, renderer, tol) -> list[str]:
    from matplotlib.transforms import Bbox

    found = []
    for leg in legends:
        box = _legend_bbox(leg, renderer)
        covered = []
        for ax in axes:
            for artist in _series(ax):
                if artist in _legend_artists(leg):
                    continue
                clip = _clip_box(artist, ax)
                region = Bbox.intersection(box, clip) if clip is not None else box
                if region is None or region.width <= 2 * tol or region.height <= 2 * tol:
                    continue
                inner = Bbox.from_extents(region.x0 + tol, region.y0 + tol, region.x1 - tol, region.y1 - tol)
                geometry = _geometry(artist, ax)
                p, r = geometry.points, geometry.radius
                under = ((p[:, 0] + r > inner.x0) & (p[:, 0] - r < inner.x1)
                         & (p[:, 1] + r > inner.y0) & (p[:, 1] - r < inner.y1))
                n_points = int(under.sum())
                n_segments = _segments_cross(geometry.runs, inner) if not n_points else 0
                if n_points:
                    noun = "marker" if r.max(initial=0) > 0 else "point"
                    covered.append(f"{n_points} {noun}{'s' if n_points > 1 else ''} of "
                                   f"{_series_name(artist, ax, names)}")
                elif n_segments:
                    covered.append(f"{_series_name(artist, ax, names)} where it passes under it")
        if covered:
            found.append(f"{_legend_name(leg, names)} covers data: " + ", ".join(covered)
                         + " (move it where no data is drawn, or out of the axes)")
    return found


def _legend_artists(leg: Any) -> list[Any]:
    return [*leg.legend_handles, *leg.texts]


# ---- series cut by the view --------------------------------------------------------------------

_SIDES = (("left of the left edge", "left", "x", 0, "x0", -1), ("right of the right edge", "right", "x", 0, "x1", 1),
          ("below the bottom", "bottom", "y", 1, "y0", -1), ("above the top", "top", "y", 1, "y1", 1))


def _cut_series(axes, names, declared, tol) -> tuple[list[str], set]:
    found, used = [], set()
    for ax in axes:
        for artist in _series(ax):
            clip = _clip_box(artist, ax)
            if clip is None:
                continue
            geometry = _geometry(artist, ax)
            if not len(geometry.points) and not geometry.unshowable:
                continue
            reasons = _how_cut(ax, artist, geometry, clip, tol)
            if not reasons:
                continue
            key = next((k for k in (artist, artist.get_label()) if _hashable_in(k, declared)), None)
            if key is not None:
                used.add(key)
                continue
            total = len(geometry.points) + geometry.unshowable
            found.append(f"{_series_name(artist, ax, names)} is cut by the view: "
                         + "; ".join(reasons).replace("{total}", str(total)))
    return found, used


def _hashable_in(key: Any, declared: Mapping[Any, str]) -> bool:
    try:
        return key in declared
    except TypeError:
        return False


def _how_cut(ax: Any, artist: Any, geometry: _Geometry, clip: Any, tol: float) -> list[str]:
    p, r = geometry.points, geometry.radius
    reasons = []
    data_to_view = ax.transData.inverted()
    for words, side, axis_name, column, edge, sign in _SIDES:
        limit = getattr(clip, edge)
        beyond = sign * (p[:, column] - limit) > tol
        # A marker whose centre is inside but more than a quarter of it is past the edge.
        half_cut = ~beyond & (r > 0) & (sign * (p[:, column] - limit) + r > 0.5 * r + tol)
        n = int(beyond.sum())
        if n:
            worst = p[beyond][np.argmax(sign * p[beyond][:, column])]
            limit_data = data_to_view.transform(_point_at(clip, column, limit))[column]
            worst_data = data_to_view.transform(worst)[column]
            reasons.append(f"{n} of {{total}} points {'lies' if n == 1 else 'lie'} {words} "
                           f"({axis_name} = {limit_data:.3g}), up to {axis_name} = {worst_data:.3g}")
        m = int(half_cut.sum())
        if m:
            reasons.append(f"{m} marker{'s are' if m > 1 else ' is'} cut at the {side} edge")
    if geometry.unshowable:
        n = geometry.unshowable
        reasons.append(f"{n} of {{total}} points {'is' if n == 1 else 'are'} zero or negative on a logarithmic axis")
    return reasons


def _point_at(box: Any, column: int, value: float) -> tuple[float, float]:
    return (value, box.y0) if column == 0 else (box.x0, value)


# ---- legend entries that show nothing ----------------------------------------------------------

_SCALE = 2
"""Entries are drawn at this many times the figure's dpi, so that antialiased edges, one pixel
wide whatever the dpi, weigh half as much against the width of a line."""


def _draw_only(fig: Any, ax: Any, artists: list[Any], crop: Any = (slice(None), slice(None))) -> np.ndarray:
    """The figure's and the axes' backgrounds with only ``artists`` drawn over them, in that order.

    Matplotlib's Agg renderer draws each artist as it does in the figure, with its own
    transform and clip box: (height, width, 4) uint8, rows from the top.
    """
    from matplotlib.backends.backend_agg import RendererAgg

    width, height = (int(round(v)) for v in fig.bbox.size)
    renderer = RendererAgg(width, height, fig.dpi)
    fig.patch.draw(renderer)
    if ax.patch.get_visible():
        ax.patch.draw(renderer)
    for artist in artists:
        artist.draw(renderer)
    return np.asarray(renderer.buffer_rgba())[crop].copy()


def _contrast(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per pixel, how far two renders differ: the sum over red, green and blue, 0 to 765."""
    return np.abs(a[..., :3].astype(np.int16) - b[..., :3].astype(np.int16)).sum(axis=-1, dtype=np.int16)


def _entry_artists(fig: Any, label: str, handle: Any) -> list[Any]:
    """The artists a legend entry stands for: those with its label, else those drawn in its style."""
    candidates = [a for ax in fig.axes for a in [*ax.lines, *ax.collections, *ax.patches, *ax.images]]
    by_label = [a for a in candidates if a.get_label() == label]
    if by_label:
        return by_label
    return [a for a in candidates if type(a) is type(handle) and _same_style(a, handle)]


def _same_style(a: Any, b: Any) -> bool:
    from matplotlib.colors import to_rgba
    from matplotlib.lines import Line2D

    try:
        if isinstance(a, Line2D):
            return (a.get_marker() == b.get_marker() and a.get_linestyle() == b.get_linestyle()
                    and to_rgba(a.get_color()) == to_rgba(b.get_color()))
        return np.allclose(np.asarray(a.get_facecolor()).ravel()[:4], np.asarray(b.get_facecolor()).ravel()[:4])
    except (TypeError, ValueError):
        return False


def _empty_entries(fig: Any, legends: list[Any], names: Mapping[int, str]) -> list[str]:
    """Legend entries whose artists show nothing, each panel on its own.

    An entry stands for every artist of its label, in every panel (a legend drawn once for
    several panels): in each panel where such an artist is drawn, it must show there. What it
    draws is the artist alone over the panel's background; what shows of it is the difference
    it makes under what the panel draws after it (its own later artists, its axis and ticks,
    its insets). What a legend covers does not show, whichever panel it belongs to.
    """
    found = []
    groups = []
    for leg in legends:
        where = _legend_name(leg, names)
        for text, handle in zip(leg.texts, leg.legend_handles):
            label = text.get_text()
            artists = [a for a in _entry_artists(fig, label, handle) if a.get_visible()]
            if not artists:
                found.append(f"{where} has an entry {label!r} that stands for nothing drawn in the figure")
                continue
            panels: dict[int, list[Any]] = {}
            for artist in artists:
                panels.setdefault(id(artist.axes), []).append(artist)
            for group in panels.values():
                groups.append((where, label, len(panels) > 1, group))
    if not groups:
        return found
    dpi = fig.dpi
    try:
        fig.set_dpi(dpi * _SCALE)
        fig.canvas.draw()  # the legends' places and the ticks at this dpi
        renderer = fig.canvas.get_renderer()
        height, width = (int(round(v)) for v in fig.bbox.size[::-1])
        under_legends = _mask_of((height, width), [_legend_bbox(leg, renderer) for leg in legends], fig)
        backgrounds = {}
        for where, label, several, group in groups:
            ax = group[0].axes
            in_panel = f" in {names.get(id(ax), 'an axes')}" if several else ""
            after = _drawn_after(ax, group)
            crop = _crop(fig, ax, group)
            key = (id(ax), repr(crop))
            if key not in backgrounds:
                backgrounds[key] = _draw_only(fig, ax, [], crop)
            drawn = _contrast(_draw_only(fig, ax, group, crop), backgrounds[key])
            shown = _contrast(_draw_only(fig, ax, [*group, *after], crop), _draw_only(fig, ax, after, crop))
            shown[under_legends[crop]] = 0  # what a legend covers is not there for a reader
            if not (drawn > _FAINT).any():
                found.append(f"{where} has an entry {label!r} whose artists draw nothing{in_panel} in the "
                             f"view (outside the limits, of zero size or transparent)")
                continue
            share, hidden = _shown_share(drawn, shown)
            if share < VISIBLE_SHARE:
                by = "the legend" if under_legends[crop][hidden].mean() > 0.5 else "the artists drawn over them"
                found.append(f"{where} has an entry {label!r} that the figure hides{in_panel}: "
                             f"{100 * share:.0f}% of what it draws there shows; the rest is under {by}")
    finally:
        fig.set_dpi(dpi)  # the next draw places everything at the figure's own dpi again
    return found


def _crop(fig: Any, ax: Any, group: list[Any]) -> tuple[slice, slice]:
    """The rows and columns of the canvas where the group can draw: its axes' area when it is clipped to it."""
    if any(not a.get_clip_on() for a in group):
        return slice(None), slice(None)
    box = ax.bbox
    height, width = fig.bbox.height, fig.bbox.width
    top, bottom = max(0, int(height - box.y1) - 2), min(int(round(height)), int(height - box.y0) + 3)
    left, right = max(0, int(box.x0) - 2), min(int(round(width)), int(box.x1) + 3)
    return slice(top, bottom), slice(left, right)


def _drawn_after(ax: Any, group: list[Any]) -> list[Any]:
    """What the axes draws over the group: its children after it, in Axes.draw's order (by zorder, stably)."""
    from matplotlib.legend import Legend

    children = [a for a in ax.get_children()
                if a.get_visible() and a is not ax.patch and not isinstance(a, Legend)]
    order = sorted(children, key=lambda a: a.get_zorder())
    first = min(order.index(a) for a in group)
    return [a for a in order[first + 1:] if a not in group]


_FAINT = 24  # a contrast (of 765) below which a pixel does not count as drawn


def _shown_share(drawn: np.ndarray, shown: np.ndarray) -> tuple[float, np.ndarray]:
    """The share of an artist's core pixels a reader sees, and the mask of the core pixels hidden.

    The core is where the artist draws with at least half its full contrast, not the soft edge
    that antialiasing gives it: two lines of one width drawn on the same path leave the lower
    one a fringe of half-blended pixels, which shows nothing a reader can follow. A core pixel
    shows when nine tenths of its contrast survive what is drawn over it.
    """
    full = np.percentile(drawn[drawn > _FAINT], 95)
    core = drawn >= 0.5 * full
    seen = core & (shown >= 0.9 * drawn)
    return float(seen.sum() / core.sum()), core & ~seen


def _mask_of(shape: tuple[int, int], boxes: list[Any], fig: Any) -> np.ndarray:
    """The pixels (rows from the top) inside any of the display boxes (y from the bottom)."""
    rows, cols = np.indices(shape)
    y = fig.bbox.height - rows - 0.5
    x = cols + 0.5
    inside = np.zeros(shape, dtype=bool)
    for box in boxes:
        inside |= (x >= box.x0) & (x <= box.x1) & (y >= box.y0) & (y <= box.y1)
    return inside
