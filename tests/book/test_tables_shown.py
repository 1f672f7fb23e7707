"""Every table a page makes is shown: no ``specbook.table(...)`` whose value the cell throws away.

``specbook.table`` returns the table; Jupyter shows a cell's value only when it is the cell's last
statement. A table made as a statement anywhere else in a cell is dropped without a word: the
anomalies page lost its "measured now" table that way, and two more pages lost one each, while the
prose went on to describe them. The pages are read, not run: a table call that stands as a
statement of its own must be the cell's last, or be passed to ``display(...)``, or be used
(assigned, joined into Markdown).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from _pages import code_cells

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p for p in (ROOT / "book").rglob("*.md") if "_build" not in p.parts)
TABLES = ("table", "claims_table")
"""The specbook calls that make a table to be shown."""


def _is_table(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TABLES
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "specbook")


def dropped_tables(source: str) -> list[int]:
    """The lines of ``source`` (one code cell) where a table is made and its value thrown away.

    >>> dropped_tables("specbook.table(rows)\\nx = 1")
    [1]
    >>> dropped_tables("x = 1\\nspecbook.table(rows)")
    []
    >>> dropped_tables("for r in rows:\\n    specbook.table(r)\\nx = 1")
    [2]
    >>> dropped_tables("display(specbook.table(rows))\\nshown = specbook.table(rows)\\nx = 1")
    []
    """
    tree = ast.parse(source)
    last = tree.body[-1] if tree.body else None
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and _is_table(node.value) and node is not last]


def _page_drops(page: Path) -> list[str]:
    found = []
    for number, source in code_cells(page):
        try:
            found += [f"code cell {number}, line {line}" for line in dropped_tables(source)]
        except SyntaxError:
            continue
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_table_a_page_makes_is_shown(page):
    assert _page_drops(page) == [], f"{page.relative_to(ROOT)}: a table made and not shown; end the cell with it or display() it"
