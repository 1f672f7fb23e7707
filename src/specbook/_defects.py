"""Known defects at a glance: the open anomalies that touch the names a page maps.

specbook imports no physics package, so the page passes the anomaly records in
(any objects with ``id``, ``title``, ``status`` and ``affects``, the dotted names
of what each defect touches). An anomaly is listed when one of the names it
affects is a name of the page's implementation mapping, or contains one, or lies
inside one (``maddening.core.Node`` touches ``maddening.core.Node.resolve_params``).
Names are compared by the objects they resolve to, so a re-export and the name
where a class or function is defined (``maddening.core.Node`` and
``maddening.core.node.Node``) are one name.
The list is computed while the page runs: a record marked resolved leaves the box
with no edit to the page.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from specbook._tables import resolve

__all__ = ["KnownDefects", "anomaly_label", "known_defects"]


def anomaly_label(anomaly_id: str) -> str:
    """The cross-reference label of an anomaly's record on the anomalies page.

    >>> anomaly_label("MADD-ANO-021")
    'anomaly-madd-ano-021'
    """
    return "anomaly-" + anomaly_id.lower()


def _chain(dotted: str) -> tuple[object, ...]:
    """One key per prefix of ``dotted``: the object it names when that is a module, class or
    function (so a re-export and its original are one key), else the prefix's text."""
    parts = dotted.split(".")
    keys: list[object] = []
    for end in range(1, len(parts) + 1):
        prefix = ".".join(parts[:end])
        try:
            obj = resolve(prefix)
        except (LookupError, ImportError):
            keys.append(prefix)
            continue
        obj = getattr(obj, "__func__", obj)  # a bound or class method: the function it wraps
        if inspect.ismodule(obj) or isinstance(obj, type) or inspect.isroutine(obj) or isinstance(obj, property):
            keys.append(("object", id(obj)))
        else:
            keys.append(prefix)
    home = getattr(obj, "__module__", None) if keys and keys[-1] != dotted else None
    if isinstance(home, str):  # a class or function lies inside the module that defines it
        parts = home.split(".")
        keys[:0] = [("object", id(sys.modules[".".join(parts[:n])])) for n in range(1, len(parts) + 1)
                    if ".".join(parts[:n]) in sys.modules]
    return tuple(keys)


def _touches(affected: tuple[object, ...], mapped: tuple[object, ...]) -> bool:
    """One name is the other, or lies inside it."""
    return affected[-1] in mapped or mapped[-1] in affected


def _mapped_names(mapping_rows: Iterable[Any]) -> list[tuple[str, str]]:
    """Each mapped dotted name with what the box shows for it: the row's term, else the name."""
    names = []
    for number, row in enumerate(mapping_rows):
        if isinstance(row, str):
            names.append((row, f"`{_short(row)}`"))
        elif isinstance(row, Sequence) and len(row) >= 2 and isinstance(row[1], str):
            term = str(row[0]).strip() if row[0] is not None else ""
            names.append((row[1], term or f"`{_short(row[1])}`"))
        else:
            raise TypeError(
                f"mapping_rows[{number}] = {row!r} is not allowed; expected a dotted name or a mapping row "
                f"(term, dotted name, notes)"
            )
    return names


def _short(dotted: str) -> str:
    """The last two public parts of a dotted name, for a line that fits the box.

    Private modules are the mapping table's business, not the reader's:

    >>> _short("maddening.nodes.ball.BallNode.update"), _short("mime.interactions._projection.choose_points")
    ('BallNode.update', 'interactions.choose_points')
    """
    return ".".join([part for part in dotted.split(".") if not part.startswith("_")][-2:])


class KnownDefects:
    """The open anomalies that touch a page's names, as the box at the top of the page shows them.

    ``entries`` holds ``(record, names)`` pairs: the record and what it touches of the page, each
    as the box shows it (the mapping row's term, or a plain name's last public parts).
    """

    def __init__(self, entries: Sequence[tuple[Any, tuple[str, ...]]]) -> None:
        self.entries = tuple(entries)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(record.id for record, _ in self.entries)

    @property
    def markdown(self) -> str:
        """A MyST admonition listing each anomaly, linked to its record on the anomalies page."""
        if not self.entries:
            return (
                "```{admonition} Known defects: none open\n:class: tip specbook-known-defects\n\n"
                "No open anomaly in the registry touches a name this page specifies.\n```\n"
            )
        count = len(self.entries)
        lines = [
            f"```{{admonition}} Known defects: {count} open\n:class: warning specbook-known-defects\n",
            f"{'This open anomaly touches' if count == 1 else 'These open anomalies touch'} names this page "
            "specifies. Each is pinned by a strict xfail test; the link leads to its record.\n",
        ]
        for record, names in self.entries:
            shown = "; ".join(names)
            title = " ".join(str(record.title).split())
            lines.append(f"- {{ref}}`{record.id} <{anomaly_label(record.id)}>`: {title} (touches {shown})")
        lines.append("```")
        return "\n".join(lines) + "\n"

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __repr__(self) -> str:
        return f"KnownDefects({list(self.ids)!r})"

    def __len__(self) -> int:
        return len(self.entries)


def known_defects(records: Iterable[Any], mapping_rows: Iterable[Any]) -> KnownDefects:
    """The box of open anomalies whose affected names appear in the page's mapping.

    ``records`` are anomaly records (``id``, ``title``, ``status``, ``affects``), such as
    ``maddening.anomalies.all_records()``; ``mapping_rows`` are the rows the page gives
    :func:`specbook.mapping_table` (or plain dotted names). Only records whose status is
    ``"open"`` are listed, in the order given. A page displays the result in a cell at its
    top; when nothing is open the box says so.
    """
    mapped = _mapped_names(mapping_rows)
    chains = [(_chain(name), label) for name, label in mapped]
    entries = []
    for record in records:
        for attribute in ("id", "title", "status", "affects"):
            if not hasattr(record, attribute):
                raise TypeError(f"records: {record!r} has no attribute {attribute!r}; expected anomaly records")
        if record.status != "open":
            continue
        touched = []
        for affected in record.affects:
            chain = _chain(affected)
            for mapped_chain, label in chains:
                if _touches(chain, mapped_chain) and label not in touched:
                    touched.append(label)
        if touched:
            entries.append((record, tuple(touched)))
    return KnownDefects(entries)
