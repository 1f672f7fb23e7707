"""Showing a Matplotlib figure on a page at a size whose text a reader can read.

A figure shown in the book's text column is scaled to fit it. A wide, many-panel
figure is scaled down a lot, and its tick labels with it: a 14-inch figure of
10-point labels shows them at 7 px in a 688 px column. :func:`figure` does the
arithmetic before it shows anything. The figure is drawn at ``dpi`` dots per inch
and shown at its natural size (1 in = 96 CSS px), or narrower when it is wider
than the column, so its smallest text shows at

    size (px) = font size (pt) / 72 x 96 x min(1, column / natural width),

and the page fails when that is below the smallest text of the book's prose.
Before that, the figure is read for what hides or cuts its data
(:func:`~specbook._figure_checks.figure_defects`): a legend or text over another
axes or text, a legend over data, a series cut by the view limits that the page
did not declare, a legend entry with nothing drawn. Any of them fails the page too.
The image carries what the browser checks need to measure the same thing again
from the rendered page: its smallest font size in points and its dpi
(``data-min-font-pt``, ``data-dpi``).
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Mapping
from typing import Any

from specbook._figure_checks import LEGEND_CLEARANCE_PT, FigureDefect, figure_defects
from specbook._mode import note_passed_over, record_mode

__all__ = ["COLUMN_PX", "LEGEND_CLEARANCE_PT", "PROSE_MIN_PX", "FigureDefect", "FigureTooSmall", "figure", "figure_defects",
           "legend_above", "smallest_font_pt"]

COLUMN_PX = 688
"""The width of the article's text column at a 1280 px window, in CSS px."""

PROSE_MIN_PX = 16.0
"""The smallest text of the book's prose, in CSS px (table cells, admonitions and captions
included; the browser checks measure it on every page and compare figures with the measurement)."""

CSS_PX_PER_INCH = 96.0


class FigureTooSmall(FigureDefect):
    """A figure's smallest text would show smaller than the prose's smallest text."""


def legend_above(fig: Any, *args: Any, ncol: int, **kwargs: Any) -> Any:
    """The figure's one legend, above its panels, clear of their titles; returns the legend.

    ``fig.legend(*args, loc="outside upper center", ncol=ncol, **kwargs)``, on a figure under
    Matplotlib's constrained layout, with the layout's vertical padding raised so that the legend's
    frame stands clear of the panels' titles by the room :func:`figure_defects` asks of a legend,
    ``specbook.LEGEND_CLEARANCE_PT`` (the layout's own three points leave the two reading as one block).
    The padding also spaces the rows of panels alike.

    Raises ``ValueError`` naming ``fig`` when it is not under constrained layout
    (``plt.subplots(..., layout="constrained")``), which alone places an outside legend.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, (a, b) = plt.subplots(1, 2, layout="constrained")
    >>> _ = a.plot([0, 1], label="rise"), b.plot([1, 0], label="fall"), a.set_title("left"), b.set_title("right")
    >>> _ = legend_above(fig, ncol=2)
    >>> figure_defects(fig)
    []
    >>> plt.close(fig)
    """
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    engine = fig.get_layout_engine()
    if not isinstance(engine, ConstrainedLayoutEngine):
        raise ValueError(f"fig = <a figure under {type(engine).__name__ if engine else 'no'} layout> is not allowed; "
                         "expected a figure under constrained layout (plt.subplots(..., layout=\"constrained\"))")
    engine.set(h_pad=_LEGEND_PAD_PT / 72.0)
    return fig.legend(*args, loc="outside upper center", ncol=ncol, **kwargs)


_LEGEND_PAD_PT = LEGEND_CLEARANCE_PT + 2.0
"""The constrained layout's vertical padding under :func:`legend_above`, points: the clearance the
figure checks ask for, and two points for the rounding of the layout's placement."""


def smallest_font_pt(fig: Any) -> float:
    """The smallest font size (points) of the text a figure draws: titles, labels, ticks, legends.

    Only text that is visible, not empty and inside the figure counts. The figure is drawn
    first, so tick labels exist.
    """
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    sizes = []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip():
            continue
        extent = text.get_window_extent(renderer)
        if extent.width <= 0 or not extent.overlaps(box):
            continue
        sizes.append(float(text.get_fontsize()))
    if not sizes:
        raise ValueError("fig draws no text: a figure in the book has at least labelled axes")
    return min(sizes)


def figure(
    fig: Any,
    alt: str,
    *,
    dpi: int = 144,
    column_px: float = COLUMN_PX,
    min_text_px: float = PROSE_MIN_PX,
    cut: Mapping[Any, str] | None = None,
) -> None:
    """Show ``fig`` below the cell, sized so its smallest text reads as well as the prose.

    ``alt`` describes the figure for a reader who cannot see it. Raises
    :class:`FigureTooSmall`, naming the smallest font and the size it would show at,
    when that size is below ``min_text_px``; the remedy is fewer panels per row or
    larger fonts. Raises :class:`FigureDefect`, naming the figure and every defect
    :func:`figure_defects` finds, when the figure hides or cuts what it draws.
    ``cut`` declares the series the page cuts on purpose, by label, each with its
    reason (``cut={"naive": "its error grows off the scale after the third step"}``).
    Returns ``None`` (a cell that ends with it shows nothing else) and
    closes the figure, so Matplotlib's inline backend does not show it a second time.
    In record mode (a run under a fault, ``specbook._mode``) the figure is closed
    unchecked and not drawn: a figure is no evidence, and a fault that bends it out of
    shape must not hide the claims after it.
    """
    import matplotlib.pyplot as plt

    if not isinstance(alt, str) or not alt.strip():
        raise ValueError(f"alt = {alt!r} is not allowed; expected a sentence describing the figure")
    if dpi < 72:
        raise ValueError(f"dpi = {dpi!r} is not allowed; expected at least 72")
    if record_mode():  # a run under a fault: a figure is no evidence, so it is neither checked nor drawn
        plt.close(fig)
        note_passed_over(f"figure {_short(alt)!r}: not drawn (record mode)")
        return None
    smallest = smallest_font_pt(fig)
    defects = figure_defects(fig, cut=cut)
    if defects:
        plt.close(fig)
        raise FigureDefect(f"figure {_short(alt)!r}:\n" + "\n".join(f"  - {d}" for d in defects))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", pad_inches=0.05,
                metadata={"Software": "specbook.figure", "specbook:min-font-pt": f"{smallest:g}",
                          "specbook:dpi": str(dpi)})
    plt.close(fig)
    png = buffer.getvalue()
    natural = int.from_bytes(png[16:20], "big")  # the IHDR width, in image pixels
    natural_css = natural / dpi * CSS_PX_PER_INCH
    shown_css = min(natural_css, column_px)
    text_px = smallest / 72.0 * CSS_PX_PER_INCH * shown_css / natural_css
    if text_px < min_text_px:
        small = (
            f"figure {alt!r}: its smallest text, {smallest:g} pt, would show at {text_px:.1f} px in the "
            f"{column_px:g} px column (the figure is {natural_css:.0f} px wide at its natural size); the "
            f"prose's smallest text is {min_text_px:g} px. Use larger fonts, a narrower figure, or fewer "
            f"panels per row."
        )
        raise FigureTooSmall(small)
    _display(png, alt, shown_css, smallest, dpi)
    return None


def _short(alt: str, limit: int = 90) -> str:
    return alt if len(alt) <= limit else alt[: limit - 1].rstrip() + "…"


def _display(png: bytes, alt: str, width_css: float, smallest_pt: float, dpi: int) -> None:
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover - outside a kernel there is nothing to show
        return
    encoded = base64.b64encode(png).decode("ascii")
    tag = (
        f'<img class="specbook-figure" src="data:image/png;base64,{encoded}" alt="{html.escape(alt)}" '
        f'width="{width_css:.0f}" data-min-font-pt="{smallest_pt:g}" data-dpi="{dpi}">'
    )
    display({"text/html": tag, "image/png": encoded, "text/plain": f"<figure: {alt}>"}, raw=True,
            metadata={"image/png": {"width": round(width_css)}})
