"""Rendering declared records as Markdown tables, and the page's tables of evidence."""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import numbers
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from specbook._claims import all_claims
from specbook._numbers import claim_values

__all__ = ["Table", "claims_table", "mapping_table", "resolve", "table"]

CLAIMS_MIME = "application/vnd.specbook.claims+json"

Column = str | tuple[str, str | Callable[[Any], Any]]


class Table:
    """A rendered table: its header, its cells as text, and the MyST that displays it.

    A page displays it (Jupyter shows :attr:`markdown`, a MyST ``list-table``
    directive, which the book renders as a real HTML table whatever the cells hold:
    an absolute value ``|x|`` in a header cannot break it). A test or a claim
    compares two tables with ``==``, which compares header and cells.

    ``widths`` gives the columns' relative widths (the book's CSS lets every cell
    wrap, long code names included, so a table fits the text column); ``None``
    leaves them to the browser. ``classes`` are extra CSS classes of the table.
    Cells hold text with ``|`` escaped as ``\\|`` (so :attr:`pipe` can use them as
    they are); the header holds plain text.
    """

    def __init__(
        self,
        header: Sequence[str],
        cells: Sequence[Sequence[str]],
        *,
        widths: Sequence[int] | None = None,
        classes: Sequence[str] = (),
    ) -> None:
        self.header = tuple(header)
        self.cells = tuple(tuple(row) for row in cells)
        for number, row in enumerate(self.cells):
            if len(row) != len(self.header):
                raise ValueError(
                    f"row {number} has {len(row)} cells for {len(self.header)} columns: {row!r}"
                )
        if widths is not None:
            widths = tuple(int(w) for w in widths)
            if len(widths) != len(self.header) or any(w <= 0 for w in widths):
                raise ValueError(
                    f"widths must be {len(self.header)} positive integers, one per column, got {widths!r}"
                )
        self.widths = widths
        self.classes = tuple(classes)

    @property
    def markdown(self) -> str:
        """The table as a MyST ``list-table`` directive, which is what the book renders."""
        classes = " ".join(("specbook-table", *self.classes))
        widths = " ".join(str(w) for w in self.widths) if self.widths else "auto"
        lines = ["```{list-table}", ":header-rows: 1", f":class: {classes}", f":widths: {widths}", ""]
        for row in (self.header, *(tuple(_unescape(c) for c in r) for r in self.cells)):
            for index, text in enumerate(row):
                lines.append(("* - " if index == 0 else "  - ") + _block_safe(text))
        lines.append("```")
        return "\n".join(lines) + "\n"

    @property
    def pipe(self) -> str:
        """The table as GitHub/MyST pipe-table Markdown (header pipes escaped too)."""
        header = [text.replace("|", "\\|") for text in self.header]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(self.header)]
        lines += ["| " + " | ".join(row) + " |" for row in self.cells]
        return "\n".join(lines) + "\n"

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __repr__(self) -> str:
        return self.pipe

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Table):
            return NotImplemented
        return self.header == other.header and self.cells == other.cells

    def __hash__(self) -> int:
        return hash((self.header, self.cells))

    def __len__(self) -> int:
        return len(self.cells)


def _unescape(text: str) -> str:
    """A cell's text as inline MyST: the pipe-table escape ``\\|`` undone."""
    return text.replace("\\|", "|")


# Text that Markdown would read as a block (heading, list, quote, rule, fence, target) when it
# opens a list-table cell, or MyST as a comment (a line that starts with "%": a cell holding only
# the unit "%" showed empty); a backslash before its first character keeps it inline text.
_BLOCK_START = re.compile(r"^(#|>|%|[-+*](\s|$)|\d+[.)](\s|$)|=+\s*$|`{3}|~{3}|:{3}|\(.*\)=\s*$)")


def _block_safe(text: str) -> str:
    """One line of inline MyST for a list-table cell (``—`` for an empty cell)."""
    text = " ".join(text.split())
    if not text:
        return "—"
    start = _BLOCK_START.match(text)
    if not start:
        return text
    if text[0].isdigit():  # "1. text": escape the delimiter, since a backslash before a digit shows
        at = len(start.group(0).rstrip())
        return text[: at - 1] + "\\" + text[at - 1:]
    return "\\" + text


def _cell(value: Any) -> str:
    """Format one value as the text of a table cell."""
    if value is None:
        text = "—"
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, float) or (isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)):
        value = float(value)
        text = "—" if math.isnan(value) else f"{value:.6g}"
    elif getattr(value, "shape", None) == () and hasattr(value, "item"):
        return _cell(value.item())  # a NumPy or JAX scalar shows as the Python number it holds
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        text = ", ".join(_cell(v) for v in items) if value else "—"
    elif isinstance(value, Mapping):
        text = "; ".join(f"{_cell(k)}: {_cell(v)}" for k, v in value.items()) if value else "—"
    elif hasattr(value, "value") and hasattr(value, "name") and type(value).__module__ != "builtins":
        text = str(value.value)  # an Enum member shows its value
    else:
        text = str(value)
    return text.replace("\n", " ").replace("|", "\\|")


def _field(row: Any, name: str) -> Any:
    if isinstance(row, Mapping):
        return row[name]
    return getattr(row, name)


def _columns_of(row: Any) -> list[str]:
    if dataclasses.is_dataclass(row):
        return [f.name for f in dataclasses.fields(row)]
    if isinstance(row, Mapping):
        return list(row)
    raise TypeError(
        f"rows must be dataclasses or mappings when columns is not given, got {type(row).__name__}"
    )


def table(
    rows: Iterable[Any],
    columns: Sequence[Column] | None = None,
    *,
    widths: Sequence[int] | None = None,
    classes: Sequence[str] = (),
) -> Table:
    """Render declared records (dataclasses or mappings) as a table.

    Each column is a field name, shown with the name as its header, or a pair
    ``(header, field)`` where ``field`` is a field name or a callable of the row
    that returns the cell's value (which may be Markdown, such as a code span).
    A float is shown to six significant digits, so the binary noise of a float
    (the trailing digits of ``0.1 + 0.2``) never reaches the reader; format it
    yourself for fewer.
    ``widths`` (relative, one per column) and ``classes`` go to :class:`Table`.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Regime:
    ...     parameter: str
    ...     low: float
    ...     high: float
    >>> shown = table([Regime("elasticity", 0.0, 1.0)], ["parameter", ("|range|", lambda r: f"{r.low}–{r.high}")])
    >>> print(shown.markdown)
    ```{list-table}
    :header-rows: 1
    :class: specbook-table
    :widths: auto
    <BLANKLINE>
    * - parameter
      - |range|
    * - elasticity
      - 0.0–1.0
    ```
    <BLANKLINE>
    """
    rows = list(rows)
    if columns is None:
        if not rows:
            raise ValueError("columns must be given for an empty table")
        columns = _columns_of(rows[0])
    header: list[str] = []
    getters: list[Callable[[Any], Any]] = []
    for column in columns:
        if isinstance(column, str):
            header.append(column)
            getters.append(lambda row, _n=column: _field(row, _n))
        elif isinstance(column, tuple) and len(column) == 2 and isinstance(column[0], str):
            title, source = column
            header.append(title)
            if isinstance(source, str):
                getters.append(lambda row, _n=source: _field(row, _n))
            elif callable(source):
                getters.append(source)
            else:
                raise TypeError(f"column {title!r}: the source must be a field name or a callable, got {source!r}")
        else:
            raise TypeError(f"columns must be names or (header, source) pairs, got {column!r}")
    cells = [[_cell(get(row)) for get in getters] for row in rows]
    return Table(header, cells, widths=widths, classes=classes)


def resolve(dotted: str) -> Any:
    """Import the object a dotted Python name refers to, or raise ``LookupError``.

    The longest importable module prefix is imported, and the rest is looked up
    with ``getattr``.

    >>> resolve("specbook.table") is table
    True
    >>> resolve("specbook.no_such_thing")
    Traceback (most recent call last):
    ...
    LookupError: 'specbook.no_such_thing' does not resolve: module 'specbook' has no attribute 'no_such_thing'
    """
    if not isinstance(dotted, str) or not dotted:
        raise LookupError(f"{dotted!r} is not a dotted Python name")
    parts = dotted.split(".")
    module = None
    index = len(parts)
    while index > 0:
        try:
            module = importlib.import_module(".".join(parts[:index]))
            break
        except ModuleNotFoundError as exc:
            if exc.name is not None and not ".".join(parts[:index]).startswith(exc.name):
                raise  # a real import failure inside the module, not a missing name
            index -= 1
    if module is None:
        raise LookupError(f"{dotted!r} does not resolve: no module {parts[0]!r}")
    obj = module
    for depth, attribute in enumerate(parts[index:], start=index):
        if not hasattr(obj, attribute):
            owner = ".".join(parts[:depth])
            kind = "module" if depth == index and obj is module else "object"
            raise LookupError(f"{dotted!r} does not resolve: {kind} {owner!r} has no attribute {attribute!r}")
        obj = getattr(obj, attribute)
    return obj


def mapping_table(rows: Iterable[Sequence[str]]) -> Table:
    """Render an Implementation Mapping: equation term, implementation, notes.

    Every implementation cell is a dotted Python name. It is resolved now (the
    page fails if it does not exist) and rendered as a cross-reference to its API
    entry, which the strict book build (``-n``) checks in turn.
    """
    cells = []
    for number, row in enumerate(rows):
        if len(row) != 3:
            raise ValueError(f"mapping row {number} must be (term, dotted name, notes), got {row!r}")
        term, dotted, notes = row
        resolve(dotted)
        cells.append((term, f"{{py:obj}}`{dotted}`", notes.replace("|", "\\|")))
    return Table(("Equation term", "Implementation", "Notes"), cells, widths=(3, 4, 5), classes=("specbook-mapping",))


def claims_table() -> Any:
    """Display every claim made so far on this page: name, expected, measured, tolerance, pass.

    An example (``specbook.example``) is marked as one after its name.

    Returns an object that Jupyter displays as the table; it carries the claims
    as data too, so the book's landing page can count them across pages.
    """
    claims = all_claims()
    header = ("Claim", "Expected", "Measured", "Tolerance", "Holds")
    cells = []
    for c in claims:
        if c.description:
            expected, measured = c.description, ("holds" if c.passed else "fails")
        else:
            unit = f" {c.unit}" if c.unit else ""
            measured, expected = (text + unit for text in claim_values(c.measured, c.expected, c.atol, c.rtol))
        name = f"`{c.key}`" + (" (example)" if c.example else "")
        cells.append((name, expected.replace("|", "\\|"), measured, c.tolerance, "✓" if c.passed else "✗"))
    rendered = Table(header, cells, widths=(5, 5, 3, 3, 1), classes=("specbook-claims",))
    data = {
        "count": len(claims),
        "passed": sum(c.passed for c in claims),
        "claims": [dataclasses.asdict(c) for c in claims],
    }
    return _ClaimsDisplay(rendered, data)


class _ClaimsDisplay:
    """The claims table as Jupyter displays it: Markdown, plus the claims as JSON data."""

    def __init__(self, rendered: Table, data: dict) -> None:
        self.table = rendered
        self.data = data

    def _repr_mimebundle_(self, include=None, exclude=None):  # noqa: D401 - Jupyter protocol
        return {
            "text/markdown": self.table.markdown,
            "text/plain": self.table.pipe,
            CLAIMS_MIME: json.loads(json.dumps(self.data)),
        }

    def __repr__(self) -> str:
        return self.table.markdown
