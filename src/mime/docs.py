"""An entry's page, as plain data read from its declarations.

:func:`entry_page` reads an entry class and returns an :class:`EntryPage`: its
sections in the order the book's entry pages use, each a sequence of blocks,
Markdown text or :class:`Rows` (a table's header and its cells' values). Nothing
on it is typed twice: add a validity line to the class and the count and the list
change with no other edit. :func:`check_page` compares a page against the class
it claims to describe, cell by cell, and lists every disagreement.

This module renders nothing: the book's page displays the blocks, the rows through
``specbook.table(rows.records())``. The physics never imports it.
"""

from __future__ import annotations

import json
import re
import typing
from dataclasses import dataclass
import sys
from pathlib import Path
from typing import Any

from mime.errors import invalid
from mime.registry import REGISTRY, DefaultKind, Entry, Registry, format_type

__all__ = ["SECTION_TITLES", "Rows", "Section", "EntryPage", "entry_page", "check_page", "hand_written", "value_text"]

SECTION_TITLES = (
    "At a glance",
    "What it models, and when not to use it",
    "Settings",
    "Roles, reads and deliveries",
    "Rungs",
    "Gradient status",
    "Validity",
    "Family",
    "References",
    "Other declarations",
)
"""The titled sections of an entry's page, in order (the untitled introduction comes first)."""

_PLACEHOLDER = re.compile(r"\[\[([A-Za-z_][A-Za-z0-9_]*)\]\]")


def value_text(value: Any) -> str:
    """A declared value as the page writes it: strings bare, anything else as JSON.

    >>> value_text("margin"), value_text(None), value_text(False), value_text(("a", "b"))
    ('margin', 'null', 'false', '["a", "b"]')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        value = list(value)
    return json.dumps(value)


@dataclass(frozen=True)
class Rows:
    """A table as data: its column headers and, per row, each cell's value (Markdown text).

    >>> Rows(("Setting", "Role"), (("`margin`", "numerical"),)).records()
    [{'Setting': '`margin`', 'Role': 'numerical'}]
    """

    header: tuple[str, ...]
    cells: tuple[tuple[Any, ...], ...]

    @classmethod
    def of(cls, items: Any, columns: Any) -> "Rows":
        """One row per item, one cell per column ``(header, attribute name or function of the item)``."""
        get = [(lambda item, _a=f: getattr(item, _a)) if isinstance(f, str) else f for _, f in columns]
        return cls(tuple(h for h, _ in columns), tuple(tuple(g(item) for g in get) for item in items))

    def records(self) -> list[dict[str, Any]]:
        """The rows as ``{header: value}`` mappings (what ``specbook.table`` renders)."""
        return [dict(zip(self.header, row)) for row in self.cells]


@dataclass(frozen=True)
class Section:
    """A section of an entry's page: a title (empty for the introduction) and its blocks.

    A block is Markdown text or :class:`Rows`; the page writes the title as a heading.
    """

    title: str
    blocks: tuple[str | Rows, ...]

    def text(self) -> str:
        """The section's text blocks, joined as Markdown paragraphs (its tables left out)."""
        return "\n\n".join(b for b in self.blocks if isinstance(b, str)) + "\n"

    def tables(self) -> tuple[Rows, ...]:
        """The section's tables."""
        return tuple(b for b in self.blocks if isinstance(b, Rows))


@dataclass(frozen=True)
class EntryPage:
    """The rendered page of one entry: its introduction, then :data:`SECTION_TITLES` in order."""

    entry: type
    sections: tuple[Section, ...]

    @property
    def titles(self) -> tuple[str, ...]:
        """The titled sections' titles, in order."""
        return tuple(s.title for s in self.sections if s.title)

    def section(self, title: str) -> Section:
        """The section titled ``title`` (``""`` for the introduction)."""
        for s in self.sections:
            if s.title == title:
                return s
        raise invalid("title", title, f"one of {list(self.titles)}")


def hand_written(entry: type[Entry]) -> str:
    """The entry's hand-written part, placeholders filled.

    The ``notes`` file lies beside the module of the class that declares ``notes``.

    ``[[NAME]]`` is replaced by the entry's class attribute ``NAME``, so a constant
    the text names is read from the code.
    """
    if not entry.notes:
        return "No hand-written part is declared for this entry."
    owner = next(c for c in entry.__mro__ if "notes" in c.__dict__)
    module = sys.modules[owner.__module__]
    try:
        text = (Path(module.__file__).parent / entry.notes).read_text(encoding="utf-8")
    except (FileNotFoundError, TypeError):
        raise invalid("notes", entry.notes, f"the name of a file beside {module.__name__}",
                      where=entry.qualified_name()) from None

    def fill(match: re.Match) -> str:
        name = match.group(1)
        if not hasattr(entry, name):
            raise invalid("placeholder", f"[[{name}]]", f"[[NAME]], NAME an attribute of {entry.__qualname__}",
                          where=entry.notes)
        return value_text(getattr(entry, name))

    return _PLACEHOLDER.sub(fill, text).strip("\n")


def _code(text: str) -> str:
    return f"`{text}`"


def _class_variable_type(entry: type, name: str) -> str:
    hints = typing.get_type_hints(entry, include_extras=True)
    return format_type(hints[name]) if name in hints else type(getattr(entry, name)).__name__


def _hand_written(entry: type[Entry], registry: Registry) -> tuple[Any, ...]:
    return (hand_written(entry),)


def _intro(entry: type[Entry], registry: Registry) -> tuple[Any, ...]:
    versions = registry.versions(entry.namespace, entry.name) if entry.key() in registry else ()
    current = registry.current(entry.namespace, entry.name) if versions else entry
    blocks = [
        f"Describes the entry `{entry.name}` at version {entry.version}, registered by "
        f"`{entry.qualified_name()}`. {entry.description}"
    ]
    if current is entry:
        kept = registry.kept(entry.namespace, entry.name) if versions else ()
        if kept:
            listed = "; ".join(f"`{entry.name}` {k.version}, by `{k.qualified_name()}`" for k in kept)
            blocks.append(
                f"Kept registered beside it: {listed}. A document that names a kept version loads "
                f"it; how the versions differ is told in the hand-written part's versions."
            )
    else:
        blocks.append(
            f"A kept version: the current one is `{entry.name}` {current.version}, by "
            f"`{current.qualified_name()}`, which a script that writes `{current.__name__}` gets. "
            f"A document that names {entry.version} loads this class."
        )
    return tuple(blocks)


def _glance(entry: type[Entry], registry: Registry) -> tuple[Any, ...]:
    built = [r.name for r in entry.built_rungs()]
    members = registry.family(entry.family.name) if entry.family else ()
    family_rungs = sorted({r.name for c in members or (entry,) for r in c.built_rungs()})
    n = len(family_rungs)
    n_valid = len(entry.validity)
    lines = [
        f"- {entry.kind} `{entry.name}`, version {entry.version}, namespace `{entry.namespace}`",
        f"- Family: `{entry.family.name if entry.family else 'none'}`, with {n} built "
        f"rung{'s' if n != 1 else ''} among its members",
        f"- Rungs built: {', '.join(_code(r) for r in built) or 'none'}",
        f"- Derivative: `{entry.gradient.value}`",
        f"- Validity: {n_valid} declared line{'s' if n_valid != 1 else ''}",
    ]
    return ("\n".join(lines),)


def _settings(entry: type[Entry], registry: Registry) -> tuple[Any, ...]:
    rows = Rows.of(
        entry.settings,
        [
            ("Setting", lambda s: _code(s.name)),
            ("Type", lambda s: _code(s.type_text)),
            ("Default", lambda s: _code(s.default_text)),
            ("Dimension", "dimension_text"),
            ("Role", lambda s: s.role.value),
            ("Default's kind", lambda s: s.default_kind.value if s.default_kind else "none"),
        ],
    )
    blocks: list[Any] = [
        rows,
        "Each setting's role is a `mime.registry.SettingRole`, and its default's kind a "
        "`mime.registry.DefaultKind`; a setting whose default has no kind must be given.",
    ]
    with_defaults = [s for s in entry.settings if s.default_kind is not None]
    if with_defaults:
        blocks.append(
            "Each default is a claim about the model, and its kind says which profiles take it: "
            + "; ".join(f"a {k.value} default is {k.profile_rule}" for k in DefaultKind)
            + ". The rule and the basis of each:"
        )
        blocks.append(
            "\n".join(
                f"- `{s.name}` ({s.default_kind.value}): {s.rule}. *Basis:* {s.basis}."
                for s in with_defaults
            )
        )
    return tuple(blocks)


def _roles(entry: type[Entry], registry: Registry) -> tuple[Any, ...]:
    roles = ", ".join(f"`{r.name}` ({r.binds})" for r in entry.roles) or "none"
    reads = ", ".join(_code(r) for r in entry.reads) or "none declared"
    delivers = ", ".join(_code(d) for d in entry.delivers) or "none declared"
    return (
        f"Roles, bound by keyword when the entry is attached: {roles}.",
        f"Reads: {reads}. Deliveries: {delivers}.",
        "What the plan adds for one particular construction is not listed here: these are "
        "the class's declarations, and the plan is code the build runs when the entry is attached.",
    )


def _rungs(entry: type[Entry], registry: Registry) -> tuple[Any, ...]:
    blocks: list[Any] = []
    if any(s.name == "rung" for s in entry.settings):
        blocks.append(
            "A rung is a way of building the entry; the entry's `rung` setting names one, and "
            "there is no default."
        )
    for r in entry.rungs:
        if not r.built:
            blocks.append(f"**Rung `{r.name}`.** Reserved, not built: {r.note}.")
            continue
        blocks.append(f"**Rung `{r.name}`.** {r.builds}")
        if r.requires:
            blocks.append("Supported constructions, by what each bound thing's dynamics must offer:")
            blocks.append(Rows.of(r.requires, [("Requires", "text"), ("Note", "note")]))
    return tuple(blocks)


def _gradient(entry: type[Entry], registry: Registry) -> tuple[Any, ...]:
    blocks: list[Any] = [
        f"The derivative through this entry is `{entry.gradient.value}`: {entry.gradient.meaning}."
    ]
    if entry.switches:
        blocks.append("The switches the law evaluates, each declared once by its owner:")
        blocks.append(
            Rows.of(
                entry.switches,
                [
                    ("Switch", lambda s: _code(s.name)),
                    ("Indicator", "indicator"),
                    ("Orders, per output group", "orders_text"),
                    ("Route to exact", "route"),
                ],
            )
        )
    return tuple(blocks)


def _validity(entry: type[Entry], registry: Registry) -> tuple[Any, ...]:
    lines = "\n".join(f"{i}. {v.line}" for i, v in enumerate(entry.validity, start=1))
    return (
        "Declared validity lines: free text, not parsed, and not yet checked against the "
        "operating point or the region each one describes.",
        lines or "None declared.",
    )


def _family(entry: type[Entry], registry: Registry) -> tuple[Any, ...]:
    if entry.family is None:
        return ("No family is declared.",)
    members = registry.family(entry.family.name)
    listed = ", ".join(f"`{c.name}` {c.version}" for c in members) or "none registered"
    return (f"Declared: `{entry.family.name}`. Registered members: {listed}. {entry.family.conformance}",)


def _references(entry: type[Entry], registry: Registry) -> tuple[Any, ...]:
    refs = "\n".join(f"- {{cite}}`{key}`" for key in entry.references) or "None declared."
    return (refs,)


def _other(entry: type[Entry], registry: Registry) -> tuple[Any, ...]:
    blocks: list[Any] = []
    if entry.other_declarations:
        blocks.append(
            Rows.of(
                entry.other_declarations,
                [
                    ("Class variable", lambda n: _code(n)),
                    ("Type", lambda n: _code(_class_variable_type(entry, n))),
                    ("Value", lambda n: _code(value_text(getattr(entry, n)))),
                ],
            )
        )
    if entry.constants:
        blocks.append("The constants its text names:")
        blocks.append(
            Rows.of(
                list(entry.constants.items()),
                [
                    ("Constant", lambda kv: _code(kv[0])),
                    ("Value", lambda kv: _code(value_text(getattr(entry, kv[0])))),
                    ("Meaning", lambda kv: kv[1]),
                ],
            )
        )
    return tuple(blocks) or ("None declared.",)


def entry_page(entry: type[Entry], *, registry: Registry | None = None) -> EntryPage:
    """Render ``entry``'s page from its declarations (and its hand-written part).

    >>> from mime import Contact
    >>> page = entry_page(Contact)
    >>> page.titles[:3]
    ('At a glance', 'What it models, and when not to use it', 'Settings')
    >>> len(page.section("Validity").blocks)
    2
    """
    if not (isinstance(entry, type) and issubclass(entry, Entry)):
        raise invalid("entry", entry, "an entry class such as mime.Contact")
    reg = REGISTRY if registry is None else registry
    builders = (_glance, _hand_written, _settings, _roles, _rungs, _gradient, _validity, _family, _references, _other)
    sections = (Section("", _intro(entry, reg)),) + tuple(
        Section(title, build(entry, reg)) for title, build in zip(SECTION_TITLES, builders)
    )
    return EntryPage(entry, sections)


def _strip_code(cell: str) -> str:
    return cell[1:-1] if cell.startswith("`") and cell.endswith("`") else cell


def check_page(page: EntryPage, entry: type[Entry]) -> list[str]:
    """Every way ``page``'s tables and lists disagree with ``entry``'s declarations (empty: none).

    The comparison reads the cells back and sets them against the class's
    own attributes: names, types, defaults, roles and kinds of the settings; each
    switch's name, indicator, orders and route; each Requires row; every validity
    line in order and their count; the class variables' values.
    """
    problems: list[str] = []

    def same(what: str, shown: Any, declared: Any) -> None:
        if shown != declared:
            problems.append(f"{what}: the page shows {shown!r}, the class declares {declared!r}")

    if page.entry is not entry:
        problems.append(f"the page describes {page.entry.__qualname__}, not {entry.__qualname__}")
    same("section titles", page.titles, SECTION_TITLES)

    (settings,) = page.section("Settings").tables()
    same("settings rows", len(settings.cells), len(entry.settings))
    for row, s in zip(settings.cells, entry.settings):
        same(f"setting {s.name}", tuple(_strip_code(c) for c in row), (
            s.name,
            s.type_text,
            s.default_text,
            s.dimension_text,
            s.role.value,
            s.default_kind.value if s.default_kind else "none",
        ))

    gradient = page.section("Gradient status").tables()
    switches = gradient[0].cells if gradient else ()
    same("switch rows", len(switches), len(entry.switches))
    for row, sw in zip(switches, entry.switches):
        same(f"switch {sw.name} name", _strip_code(row[0]), sw.name)
        same(f"switch {sw.name} indicator", row[1], sw.indicator)
        orders = tuple(
            (m.group(1), int(m.group(2))) for m in re.finditer(r"`([^`]+)` (-?\d+)", row[2])
        )
        same(f"switch {sw.name} orders", orders, tuple(sw.orders))
        same(f"switch {sw.name} route", row[3], sw.route)

    requires = [r for rung in entry.rungs for r in rung.requires]
    rung_rows = [row for t in page.section("Rungs").tables() for row in t.cells]
    same("requires rows", len(rung_rows), len(requires))
    for row, req in zip(rung_rows, requires):
        same(f"requires {req.role}", (row[0], row[1]), (req.text, req.note))

    validity_text = page.section("Validity").blocks[-1]
    shown = re.findall(r"^\d+\. (.*)$", validity_text, flags=re.M)
    same("validity lines", tuple(shown), tuple(v.line for v in entry.validity))
    glance = page.section("At a glance").blocks[0]
    count = re.search(r"Validity: (\d+) declared line", glance)
    same("validity count at a glance", int(count.group(1)) if count else None, len(entry.validity))

    other = page.section("Other declarations").tables()
    if entry.other_declarations:
        cells = other[0].cells
        same("class variables", tuple(_strip_code(r[0]) for r in cells), tuple(entry.other_declarations))
        for row in cells:
            name = _strip_code(row[0])
            same(f"class variable {name}", _strip_code(row[2]), value_text(getattr(entry, name)))
    return problems
