"""The layering holds: import-linter's contracts pass, and would catch a circle; private modules
stay private to their package and out of the book's pages; no module or page reads another
module's private names; ARCHITECTURE.md names only what exists.
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
        if "*" in p:  # a glob such as book/mime/contact*.md: some file must match it
            if not any(ROOT.glob(p)):
                missing.append(p)
            continue
        if not (ROOT / p).exists():
            missing.append(p)
    assert missing == []
    assert "ARCHITECTURE.md" in (ROOT / "README.md").read_text(encoding="utf-8")


# -- no module reads another module's private names ---------------------------------------------
PRIVATE_READS_LEFT: set[str] = set()
"""Reads of another module's private names that are known and not yet removed (only ever shrinks)."""


def _private_name(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_project_module(dotted: str, root: Path = ROOT) -> bool:
    parts = dotted.split(".")
    if parts[0] not in PACKAGES:
        return False
    path = root.joinpath("src", *parts)
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _private_reads(code: str, own: str | None = None, package: str | None = None, root: Path = ROOT) -> list[str]:
    """Where ``code`` reads an underscore name of another project module.

    Two forms are seen, both precise: ``from m import _x`` with ``m`` a project module,
    and ``alias._x`` (or ``alias.sub._x``) where ``alias`` is bound to a project module by
    an import. A private *module* (``from mime.interactions import _projection``) is not
    a private name: which modules may import it is the private-module rule's business.
    An attribute of anything else (an instance, a class) is not judged. ``own`` is the
    module the code is (its own names are its to read); ``package`` resolves relative
    imports.
    """
    tree = ast.parse(code)
    bound: dict[str, str] = {}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in PACKAGES:
                    bound[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = (package or "").split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            if base.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                if _is_project_module(f"{base}.{alias.name}", root):
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
                elif _private_name(alias.name) and base != own:
                    found.append(f"from {base} import {alias.name}")
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private_name(node.attr)):
            continue
        chain, value = [], node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if not (isinstance(value, ast.Name) and value.id in bound):
            continue
        owner = ".".join([bound[value.id], *reversed(chain)])
        if _is_project_module(owner, root) and owner != own and not _is_project_module(f"{owner}.{node.attr}", root):
            found.append(f"{owner}.{node.attr}")
    return found


def _page_code(page: Path) -> str:
    lines = [line for cell in _code_cells(page) for line in cell.splitlines()]
    return "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!", ":")))


def _private_reads_in(root: Path) -> set[str]:
    """Every read of another module's private name in ``root``'s ``src/`` modules and ``book/`` pages."""
    found = set()
    for path in sorted((root / "src").rglob("*.py")):
        parts = path.relative_to(root / "src").with_suffix("").parts
        own = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = own if parts[-1] == "__init__" else ".".join(parts[:-1])
        reads = _private_reads(path.read_text(encoding="utf-8"), own, package, root)
        found |= {f"{path.relative_to(root)}: {r}" for r in reads}
    for page in sorted((root / "book").rglob("*.md")):
        found |= {f"{page.relative_to(root)}: {r}" for r in _private_reads(_page_code(page), root=root)}
    return found


def test_the_private_read_scan_sees_each_form_and_nothing_else():
    planted = (
        "import mime.demos\nfrom mime import demos as d\nfrom mime.interactions import _hold as P\n"
        "from maddening.core.simulation.batch import _run\n"
        "mime.demos._down()\nd._spinner()\nP._band(1, 2)\n"
        "P.two_passes\nmime.interactions._hold\nd.FLOOR._private\nd.__name__\nx = object(); x._y\n"
    )
    assert sorted(_private_reads(planted)) == [
        "from maddening.core.simulation.batch import _run",
        "mime.demos._down", "mime.demos._spinner", "mime.interactions._hold._band",
    ]
    assert _private_reads("import mime.demos\nmime.demos._down()", own="mime.demos") == []
    assert _private_reads("from . import _x", own="mime.interactions.a", package="mime.interactions") == [
        "from mime.interactions import _x"]


def test_no_module_or_page_reads_another_modules_private_names():
    found = _private_reads_in(ROOT)
    assert sorted(found - PRIVATE_READS_LEFT) == [], "reads of another module's private names"
    assert sorted(PRIVATE_READS_LEFT - found) == [], "gone: remove them from PRIVATE_READS_LEFT"


def test_a_planted_private_read_fails_the_check(tmp_path):
    src = tmp_path / "src" / "mime"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "demos.py").write_text("def _spinner(n):\n    return n\n\n\ndef run(body, steps):\n    return body\n")
    (src / "anomalies.py").write_text("from mime import demos\n\n\ndef f():\n    return demos.run(demos._spinner(1), 3)\n")
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "page.md").write_text(
        "# A page\n\n```{code-cell} ipython3\n:tags: [hide-input]\nimport mime.demos\n"
        "body = mime.demos._spinner(1)\n```\n")
    assert _private_reads_in(tmp_path) == {
        "src/mime/anomalies.py: mime.demos._spinner", "book/page.md: mime.demos._spinner"}
