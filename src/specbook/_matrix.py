"""The kill matrix: which faults break which claims, judged from the faults' recorded runs.

:mod:`specbook.faults` runs every fault over its target pages in record mode and keeps each
run (:data:`RUNS`): the claims the page made under the patched code, each with whether it held
and its expected value, and the cell where the page stopped if a cell raised. This module
reads those runs against the claims the build measured on the unpatched code and says, for
every claim:

``killed_by``
    the faults under whose run the claim was made and did not hold;
``unreached_under``
    the faults under whose run the claim was never made (a cell raised before it);
``expected_moved_under``
    the faults under whose run the claim's *expected* value differed from the build's.

The rules, as a verification engineer signs them off:

- A claim is killed by a fault only when it was evaluated under the fault and did not hold.
  A cell that raises for another reason stops the run there, as it stops the build: the fault
  is detected (the build would fail), but the claims after that cell prove nothing and are
  *not reached*, never killed. A run keeps no claim made after a raising cell, since the
  page's state after it is not the state its author wrote the claims for.
- An expected value that moves when product code is patched was computed by that code. That is
  its job for a declaration (``specbook.declared``) or a seed's figure kept in a declaration
  (``specbook.seed_figure``), when the patch lies in the file that holds the named
  declaration (:func:`declaration_files`). Any other source whose expected value moves is
  *mislabelled*: the claim compares the code with itself.
- An example (``specbook.example``) has no product code under test, so no fault may break it;
  one that fails under a fault is mislabelled too.
- A run counts only while it is current: its fault's patch, the page's code cells, every
  file the patched page used, the versions of what it imported and the environment are
  those of today (:func:`run_stale`), as a page's cached execution counts only while its key
  holds.

Standard library only: the build (``specbook.sphinxext``) and the gate use it without running
anything.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from specbook._numbers import allowed as _allowed
from specbook.keys import why_stale

__all__ = ["MATRIX", "RUNS", "RUN_VERSION", "annotate", "cells_hash", "declaration_files", "fault_key",
           "gate_report", "judge_claims", "load_runs", "moved", "run_stale", "tolerance_used"]

FAULTS_DIR = Path("_build") / "faults"
RUNS = FAULTS_DIR / "runs"
"""Where, relative to the book's root, each (fault, target) run is kept, one JSON file each."""
MATRIX = FAULTS_DIR / "matrix.json"
"""The fault stage's summary: every fault's verdict, its kills and its runs' status."""
RUN_VERSION = 1
"""Bumped when what a run records, or how it is judged, changes: every stored run is then stale."""
ALLOWED_TO_MOVE = ("declaration", "seed figure")
"""Source kinds whose expected value is read from the code, so may move with a patch of the declaration."""


def fault_key(fault) -> str:
    """A SHA-256 of what a fault does: its patches and its targets (not its name or its prose)."""
    text = json.dumps({"version": RUN_VERSION, "patches": [[p.file, p.old, p.new] for p in fault.patches],
                       "targets": list(fault.targets)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def cells_hash(notebook) -> str:
    """A SHA-256 of a notebook's code cells: their source and tags (``raises-exception`` changes a run)."""
    cells = [[c.source, sorted((c.get("metadata") or {}).get("tags", []))]
             for c in notebook.cells if c.cell_type == "code"]
    return hashlib.sha256(json.dumps(cells).encode()).hexdigest()


def run_stale(run: Mapping[str, Any] | None, root: str | os.PathLike[str], environment: Mapping[str, Any],
              fault, cells: str | None) -> str | None:
    """Why a stored run no longer stands for the fault on today's code, or ``None`` when it does.

    ``cells`` is the target page's :func:`cells_hash` today (``None`` for a test target).
    """
    if not run:
        return "never run"
    if run.get("version") != RUN_VERSION:
        return "recorded by another version of specbook.faults"
    if run.get("fault_key") != fault_key(fault):
        return "the fault's patch or targets changed"
    if cells is not None and run.get("cells") != cells:
        return "the page's code cells changed"
    return why_stale(run, root, environment)


def load_runs(root: str | os.PathLike[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every stored run under ``root``, by (fault, target); unreadable files are left out."""
    folder = Path(root) / RUNS
    runs: dict[tuple[str, str], dict[str, Any]] = {}
    if not folder.is_dir():
        return runs
    for path in sorted(folder.rglob("*.json")):
        try:
            run = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(run, dict) and "fault" in run and "target" in run:
            runs[(run["fault"], run["target"])] = run
    return runs


# -- which declaration a source names ------------------------------------------------------------

_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _module_file(src: Path, parts: list[str]) -> Path | None:
    if not parts:
        return None
    base = src.joinpath(*parts)
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _package_of(src: Path, file: Path) -> list[str]:
    """The package a module file belongs to (for ``__init__.py``, the package itself)."""
    return list(file.relative_to(src).with_suffix("").parts)[:-1]


def _imported_from(src: Path, file: Path, node: ast.ImportFrom) -> list[str]:
    if node.level == 0:
        return (node.module or "").split(".")
    package = _package_of(src, file)
    base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
    return base + ((node.module or "").split(".") if node.module else [])


def _imports(src: Path, file: Path, tree: ast.Module) -> dict[str, tuple[list[str], str]]:
    """Module-level ``from M import x as y``: ``y -> (M's parts, x)``."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            module = _imported_from(src, file, node)
            for alias in node.names:
                found[alias.asname or alias.name] = (module, alias.name)
    return found


def _definition(body: list[ast.stmt], name: str) -> ast.stmt | None:
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return node
    return None


def _follow(src: Path, file: Path, rest: list[str], depth: int) -> set[Path]:
    files = {file}
    if not rest or depth > 6:
        return files
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return files
    imports = _imports(src, file, tree)
    name = rest[0]
    node = _definition(tree.body, name)
    if node is None and name in imports:  # re-exported: follow it to where it is defined
        module, original = imports[name]
        submodule = _module_file(src, [*module, original])
        if submodule is not None:
            return files | _follow(src, submodule, rest[1:], depth + 1)
        target = _module_file(src, module)
        return files | (_follow(src, target, [original, *rest[1:]], depth + 1) if target else set())
    if node is None:  # a package's submodule, imported by its full name
        submodule = _module_file(src, [*_package_of(src, file), name]) if file.name == "__init__.py" else None
        return files | (_follow(src, submodule, rest[1:], depth + 1) if submodule else set())
    if isinstance(node, ast.ClassDef) and len(rest) > 1:
        inner = _definition(node.body, rest[1])
        node = inner if inner is not None else node
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        # a constant defined from another module's constant: that declaration is named too
        for used in ast.walk(node.value):
            if isinstance(used, ast.Name) and used.id in imports:
                module, original = imports[used.id]
                target = _module_file(src, [*module, original]) or _module_file(src, module)
                if target is not None:
                    files.add(target)
            elif isinstance(used, ast.Attribute) and isinstance(used.value, ast.Name) and used.value.id in imports:
                module, original = imports[used.value.id]
                target = _module_file(src, [*module, original])
                if target is not None:
                    files.add(target)
    return files


def declaration_files(ref: str, src: str | os.PathLike[str]) -> set[str]:
    """The files under ``src`` that hold the declaration a source names, relative to ``src``.

    The source's reference starts with a dotted name (``mime.registry.PROFILES['exploratory']``
    names ``mime.registry.PROFILES``). Its longest prefix that is a module is found, and the
    rest is followed through the module's source without importing it: a name re-exported
    with ``from ... import`` leads to the module that defines it, and a constant assigned from
    another module's constant names that module's file too. A reference that names no module
    of ``src`` gives the empty set.

    >>> root = Path(__file__).resolve().parents[1]
    >>> sorted(declaration_files("specbook.keys.DATA_KEY", root))
    ['specbook/keys.py']
    >>> sorted(declaration_files("specbook.catalogue.FAULTS", root))  # built by _faults.Fault
    ['specbook/_faults.py', 'specbook/catalogue.py']
    >>> sorted(declaration_files("the wall's restitution argument, 0.35", root))
    []
    """
    src = Path(src)
    match = _DOTTED.match(ref.strip())
    if not match:
        return set()
    parts = match.group(0).split(".")
    for end in range(len(parts), 0, -1):
        file = _module_file(src, parts[:end])
        if file is not None:
            return {p.relative_to(src).as_posix() for p in _follow(src, file, parts[end:], 0)}
    return set()


# -- judging the claims --------------------------------------------------------------------------

def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)  # the ledger writes NaN and infinities as text
        except ValueError:
            return None
    return None


def moved(before: Any, after: Any) -> bool:
    """Whether an expected value changed between two runs (NaN equals NaN; any other difference counts).

    >>> moved(1.0, 1.0), moved(1.0, 1.0 + 2**-52), moved("nan", float("nan"))
    (False, True, False)
    >>> moved(1.0, "nan"), moved(float("nan"), 0.0)  # a number that became NaN moved, and back
    (True, True)
    """
    a, b = _number(before), _number(after)
    if a is None or b is None:
        return before != after
    if math.isnan(a) and math.isnan(b):
        return False
    return a != b


def tolerance_used(claim: Mapping[str, Any]) -> float | None:
    """How much of its tolerance a numerical claim uses: ``|measured - expected| / allowed``.

    0 is dead on, 1 is at the edge, above 1 fails. ``None`` for a condition (a check) and for
    an exact claim (no tolerance: it holds only to the bit).

    >>> tolerance_used({"measured": 1.01, "expected": 1.0, "atol": 0.02, "rtol": None})
    0.5
    >>> tolerance_used({"measured": 1.0, "expected": 1.0, "atol": None, "rtol": None}) is None
    True

    A value that is not finite, measured or expected, is off the scale (the ledger writes it as text):

    >>> [tolerance_used({"measured": m, "expected": e, "atol": 0.1}) for m, e in (("nan", 1.0), (1.0, "inf"))]
    [inf, inf]
    """
    if claim.get("description"):
        return None
    m, e = _number(claim.get("measured")), _number(claim.get("expected"))
    if m is None or e is None:
        return None
    allowed = _allowed(e, claim.get("atol"), claim.get("rtol"))
    if not allowed:
        return None
    if not (math.isfinite(m) and math.isfinite(e)):
        return math.inf
    return round(abs(m - e) / allowed, 6)


def judge_claims(claims: Iterable[Mapping[str, Any]], runs: Mapping[str, Mapping[str, Any]], faults: Mapping[str, Any],
                 src: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """Each claim's verdicts under the current runs of its page.

    ``claims`` are the page's claims as the build measured them (each with ``key``,
    ``expected``, ``source`` and ``example``); ``runs`` the page's current runs, by fault
    name; ``faults`` the catalogue's faults by name; ``src`` the unpatched sources. Returns,
    by claim key, ``killed_by``, ``unreached_under``, ``expected_moved_under`` and
    ``mislabelled`` (one sentence per fault that proves the source wrong).
    """
    verdicts = {}
    for claim in claims:
        key = claim["key"]
        killed, unreached, shifted, wrong = [], [], [], []
        source = claim.get("source") or {}
        for name, run in sorted(runs.items()):
            made = {c["key"]: c for c in run.get("claims", [])}
            under = made.get(key)
            if under is None:
                unreached.append(name)
                continue
            if not under.get("holds"):
                killed.append(name)
                if claim.get("example"):
                    wrong.append(f"example {key!r} fails under fault {name!r}: it tests product code, so it is a "
                                 "claim, not an example")
            if moved(claim.get("expected"), under.get("expected")):
                shifted.append(name)
                fault = faults.get(name)
                patched = sorted({p.file for p in fault.patches}) if fault is not None else []
                if source.get("kind") in ALLOWED_TO_MOVE:
                    named = declaration_files(source.get("ref", ""), src)
                    if not named.intersection(patched):
                        wrong.append(
                            f"claim {key!r}: its expected value moved under fault {name!r}, which patches "
                            f"{', '.join('src/' + p for p in patched)}; its source, {source.get('kind')} "
                            f"{source.get('ref')!r}, names " + (", ".join("src/" + f for f in sorted(named))
                                                              or "no file of src/"))
                else:
                    wrong.append(
                        f"claim {key!r}: its expected value moved under fault {name!r} (patching "
                        f"{', '.join('src/' + p for p in patched)}): it is computed by the code under test, "
                        f"yet its source says {source.get('kind') or 'nothing'}"
                        + (f" ({source.get('ref')!r})" if source.get("ref") else ""))
        verdicts[key] = {"killed_by": killed, "unreached_under": unreached, "expected_moved_under": shifted,
                         "mislabelled": wrong}
    return verdicts


def annotate(root: str | os.PathLike[str], pages: list[dict[str, Any]], faults, *,
             environment: Mapping[str, Any] | None = None, runs: Mapping | None = None,
             cells: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Give every claim of ``pages`` its verdicts; return the ledger's ``faults`` section.

    ``pages`` are the ledger's pages as the build holds them (``page``, the page's path, and
    ``claims``, each claim a dict); each claim gains ``killed_by``, ``unreached_under``,
    ``expected_moved_under``, ``mislabelled``, ``example`` and ``tolerance_used``. ``cells``
    gives each page's :func:`cells_hash` today (a page missing from it is read from disk).
    A run that is not current (:func:`run_stale`) is not used; the section lists, per page,
    the faults whose runs are current, stale (and why) or missing, so a reader knows what
    the verdicts rest on.
    """
    from specbook.keys import environment_record

    root = Path(root)
    environment = environment_record() if environment is None else environment
    runs = load_runs(root) if runs is None else runs
    by_name = {f.name: f for f in faults}
    section_pages = {}
    for page in pages:
        rel = page["page"]
        targeting = [f for f in faults if rel in f.targets]
        today = (cells or {}).get(rel)
        if today is None and targeting:
            today = _cells_of(root, rel)
        current, stale, missing = {}, {}, []
        for fault in targeting:
            run = runs.get((fault.name, rel))
            if run is None:
                missing.append(fault.name)
                continue
            reason = run_stale(run, root, environment, fault, today)
            if reason is None:
                current[fault.name] = run
            else:
                stale[fault.name] = reason
        verdicts = judge_claims(page["claims"], current, by_name, root / "src")
        for claim in page["claims"]:
            claim.update(verdicts[claim["key"]])
            claim["example"] = bool(claim.get("example"))
            claim["tolerance_used"] = tolerance_used(claim)
        errors = [{"fault": name, "cell": run["error"].get("cell"), "message": run["error"].get("message", "")}
                  for name, run in sorted(current.items()) if run.get("error")]
        section_pages[rel] = {"current": sorted(current), "stale": dict(sorted(stale.items())),
                              "missing": sorted(missing), "errors": errors}
    return {"catalogue": [f.name for f in faults], "pages": section_pages}


def _cells_of(root: Path, rel: str) -> str | None:
    from specbook.execute import read_page

    page = root / rel
    if not page.is_file():
        return None
    return cells_hash(read_page(page, root))


# -- the gate ------------------------------------------------------------------------------------

def gate_report(ledger: Mapping[str, Any]) -> dict[str, Any]:
    """What the gate judges in a ledger: the claims with no killer, the mislabelled, the missing runs.

    Returns ``claims`` (the claims that are not examples), ``proven`` (those with at least one
    killer), ``unkilled`` (``page: key`` of the rest), ``examples``, ``mislabelled`` (sentences
    naming the claim and the fault) and ``not_current`` (``page: fault (why)`` of every
    target run that is stale or missing).
    """
    claims = ledger.get("claims", [])
    real = [c for c in claims if not c.get("example")]
    unkilled = [f"{c['page']}: {c['key']}" for c in real if not c.get("killed_by")]
    wrong = [w for c in claims for w in c.get("mislabelled", [])]
    section = ledger.get("faults") or {}
    not_current = []
    for page, status in sorted((section.get("pages") or {}).items()):
        not_current += [f"{page}: {name} (stale: {why})" for name, why in status.get("stale", {}).items()]
        not_current += [f"{page}: {name} (never run)" for name in status.get("missing", [])]
    return {"claims": len(real), "proven": len(real) - len(unkilled), "unkilled": unkilled,
            "examples": len(claims) - len(real), "mislabelled": wrong, "not_current": not_current,
            "has_matrix": bool(section)}
