"""Every claim a page makes states where its expected value comes from (``source=``).

The pages are read, not run: each ``specbook.claim(...)`` and ``specbook.check(...)`` call in a
code cell must pass ``source=`` (or ``**kwargs`` that carry it, as a page's own wrapper does).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from _pages import code_cells

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p for p in (ROOT / "book").rglob("*.md") if "_build" not in p.parts)


def _calls_without_source(page: Path) -> list[str]:
    missing = []
    for number, source in code_cells(page):
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "specbook"
                    and node.func.attr in ("claim", "check")):
                continue
            if any(k.arg == "source" or k.arg is None for k in node.keywords):
                continue
            name = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else ast.unparse(node.args[0])
            missing.append(f"cell {number}: {name}")
    return missing


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_claim_states_its_source(page):
    assert _calls_without_source(page) == []
