"""The layering holds: import-linter's contracts pass, and would catch a circle; private modules
stay private to their package and out of the book's pages; ARCHITECTURE.md names only what exists.
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("specbook", "maddening", "skcomplex", "mime")
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(cwd: Path, src: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return subprocess.run([str(LINT), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _private(module: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in module.split("."))


def test_the_import_contracts_hold():
    run = _lint(ROOT, ROOT / "src")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_a_planted_circular_import_breaks_the_contracts(tmp_path):
    shutil.copytree(ROOT / "src", tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    errors = tmp_path / "src" / "mime" / "errors.py"
    errors.write_text(errors.read_text() + "\nfrom mime import units  # planted: units imports errors\n")
    run = _lint(tmp_path, tmp_path / "src")
    assert run.returncode != 0
    assert "mime's layers, each importing only those below it BROKEN" in run.stdout
    assert "no package has a circle of imports among its modules BROKEN" in run.stdout
    assert "mime.errors" in run.stdout


def test_no_module_imports_another_packages_private_modules():
    import grimp

    graph = grimp.build_graph(*PACKAGES)
    crossings = []
    for importer in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(importer):
            if _private(imported) and imported.split(".")[0] != importer.split(".")[0]:
                crossings.append(f"{importer} -> {imported}")
    assert crossings == []


def _code_cells(page: Path) -> list[str]:
    return re.findall(r"^```\{code-cell\}[^\n]*\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.M | re.S)


def _imports(code: str) -> list[str]:
    """The modules a cell imports (``from a import _b`` counts as importing ``a._b``)."""
    lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!", ":"))]
    names = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    return names


PAGES = sorted((ROOT / "book").rglob("*.md"))


def test_the_page_scan_sees_a_private_import():
    assert _imports("from mime.interactions._projection import SWEEPS\nx = 1") [0] == "mime.interactions._projection"
    assert any(_private(m) for m in _imports(":tags: [hide-input]\nfrom mime.interactions import _projection"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_imports_a_private_module(page):
    private = [m for cell in _code_cells(page) for m in _imports(cell) if m.split(".")[0] in PACKAGES and _private(m)]
    assert private == [], f"{page.relative_to(ROOT)} imports private modules: {private}"


def _resolves(dotted: str) -> bool:
    """Whether ``dotted`` is a module, or an attribute reached from the longest importable module prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def _named_in_architecture() -> tuple[list[str], list[str]]:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    spans = re.findall(r"`([^`\n]+)`", text)
    blocks = "\n".join(re.findall(r"^```\n(.*?)^```", text, flags=re.M | re.S))
    dotted = {m for s in spans for m in re.findall(r"\b((?:%s)(?:\.\w+)+)" % "|".join(PACKAGES), s)}
    dotted |= set(re.findall(r"\b(mime\.\w+)", blocks))
    paths = {s.split(" ")[0] for s in spans if re.match(r"(src|book|tests|bench)/", s)}
    return sorted(dotted), sorted(paths)


def test_architecture_names_only_modules_and_files_that_exist():
    dotted, paths = _named_in_architecture()
    assert len(dotted) > 30 and len(paths) > 5  # the scan finds what the page names
    assert [d for d in dotted if not _resolves(d)] == []
    missing = []
    for p in paths:
        if "<" in p:  # a pattern such as book/<page>.md: its folder must exist
            p = p.split("<")[0]
        if not (ROOT / p).exists():
            missing.append(p)
    assert missing == []
    assert "ARCHITECTURE.md" in (ROOT / "README.md").read_text(encoding="utf-8")
