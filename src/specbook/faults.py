"""Faults that prove the claims can fail: each a small patch of the real code, run over its pages.

A :class:`Fault` is one plausible bug: a wrong scheme, a wrong restitution law, a dropped step
of an algorithm, a page showing the expected value where it says "measured". It is a text
patch of one file under ``src/`` (the text must occur exactly once), the pages and tests that
exercise the patched code, and the claims (or test ids) that must fail under it.

:func:`run` applies each fault to its own copy of ``src/`` and runs each of its targets with
the copy first on ``PYTHONPATH``, several at once:

- a page runs in a kernel of its own (:func:`specbook.execute.run_page`), forked from a process
  that has already imported JAX, SciPy and matplotlib (``specbook._kernels``), in *record mode*
  (``SPECBOOK_RECORD=1``): a false claim is recorded and the page goes on, so one run shows
  every claim the fault breaks. A cell that raises for another reason stops the run there,
  as it stops the build; the claims after it are *not reached* under that fault (see
  ``specbook._matrix`` for why an unreached claim is never counted as killed);
- a test file runs under ``pytest``, and every failing test id is read.

Each run is kept in ``_build/faults/runs/`` with what the patched page used (its files, the
distributions it imported, the environment), as a page's execution is kept, and is run again
only when that changed or the fault did: a ``make test`` with nothing changed runs none.
A fault is *caught* when every claim it names (``caught_by``) fails under it; it *survived*
when nothing failed, and is *misattributed* when something else failed but not all it names
(an error before its claims, a claim that no longer catches it). Any of those fails the run.
The runs, with the claims each fault kills, are summed up in ``_build/faults/matrix.json``;
the build reads them into the claim ledger (``claims.json``: ``killed_by`` for every claim).

``python -m specbook.faults --gate strict`` then reads the built ledger and fails when a claim
(not an example) has no killer, or when a fault moved a claim's expected value whose source
is not the declaration it patched. ``--gate report`` prints the same and passes.

Run it as ``python -m specbook.faults`` (``--jobs N``, ``--only NAME ...``, ``--page PAGE ...``,
``--plan``, ``--force``); ``make test`` runs the whole catalogue (``specbook.catalogue.FAULTS``). specbook
imports no physics: a fault is text, and the runner only starts processes.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from specbook import _matrix
from specbook._claims import ANSI, RECORD_ENV
from specbook._faults import Fault, Patch
from specbook._kernels import FORK_ENV, KernelServer, forking
from specbook.catalogue import FAULTS

__all__ = ["Fault", "FaultResult", "Patch", "apply", "gate", "judge", "main", "patch_problems", "plan", "run"]

ROOT = Path(__file__).resolve().parents[2]
"""The project's root: ``src/`` and ``book/`` sit below it."""

_FAILED_CLAIM = re.compile(r"FAILED CLAIM '([^']+)'")
_FAILED_ITEM = re.compile(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", re.M)
_TEST_SECONDS = 10.0  # a test target's time before it was ever run: a guess that only orders the runs


@dataclass
class FaultResult:
    """What one fault did: the claims and tests it broke, the errors it caused, and the verdict."""

    name: str
    expected: tuple[str, ...]
    observed: list[str] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    cached: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def verdict(self) -> str:
        """``caught`` (every named claim failed), ``survived`` (nothing did) or ``misattributed``."""
        if self.error:
            return "error"
        if not self.observed and not self.errors:
            return "survived"
        return "caught" if set(self.expected) <= set(self.observed) else "misattributed"


def _stale(fault: Fault, patch: Patch, text: str | None) -> str | None:
    """Why ``patch`` of ``fault`` cannot apply to a file whose text is ``text`` (``None``: no such file), or None."""
    if text is None:
        return f"fault {fault.name!r}: src/{patch.file} does not exist"
    count = text.count(patch.old)
    if count != 1:
        return f"fault {fault.name!r}: the patched text occurs {count} times in src/{patch.file}, not once"
    return None


def patch_problems(faults: list[Fault] | tuple[Fault, ...], src: str | os.PathLike[str] | None = None) -> list[str]:
    """Every patch of ``faults`` that would not apply to the sources at ``src`` (default: the project's ``src/``).

    A patch applies when its text occurs exactly once in its file; each one that does not is
    named in a sentence, as :func:`apply` would refuse it. An empty list: every fault applies.
    """
    folder = Path(src) if src is not None else ROOT / "src"
    problems = []
    for fault in faults:
        for patch in fault.patches:
            path = folder / patch.file
            why = _stale(fault, patch, path.read_text(encoding="utf-8") if path.is_file() else None)
            if why:
                problems.append(why)
    return problems


def apply(fault: Fault, src: Path) -> None:
    """Apply ``fault``'s patches to the copy of ``src/`` at ``src``; a patch whose text is not there once raises."""
    for patch in fault.patches:
        target = src / patch.file
        text = target.read_text(encoding="utf-8") if target.is_file() else None
        why = _stale(fault, patch, text)
        if why:
            raise ValueError(why)
        target.write_text(text.replace(patch.old, patch.new, 1), encoding="utf-8")


def judge(target: str, output: str) -> list[str]:
    """The failures a ``pytest`` run of ``target`` reports: claims by name, anything else by its test id.

    >>> judge("book/x.md", "FAILED CLAIM 'ball_order': ...\\nFAILED book/x.md::Cell 3 - ...")
    ['ball_order']
    >>> judge("tests/t.py", "FAILED tests/t.py::test_a - AssertionError")
    ['tests/t.py::test_a']
    """
    text = ANSI.sub("", output)
    claims = _FAILED_CLAIM.findall(text)
    if target.endswith(".md"):
        if claims:
            return sorted(set(claims))
        items = _FAILED_ITEM.findall(text)
        return [f"error in {item}" for item in items] or ([] if " passed" in text else ["error: no test ran"])
    return sorted(set(_FAILED_ITEM.findall(text)))


def _copy_src(root: Path, folder: Path) -> Path:
    src = folder / "src"
    shutil.copytree(root / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (folder / "book").symlink_to(root / "book", target_is_directory=True)  # code that finds the book beside src/
    return src


def _environ(fault: Fault, src: Path) -> dict[str, str]:
    path = os.environ.get("PYTHONPATH", "")
    return dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{path}" if path else str(src),
                SPECBOOK_FAULT=fault.name, **{RECORD_ENV: "1"})


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def _slug(target: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", target)


def _test_files(root: Path, target: str) -> list[str]:
    """What a test target's run is keyed by: every source file, the test file and the conftests above it."""
    from specbook.keys import source_files

    files = source_files(root)
    test = Path(target.split("::")[0])
    files.append(test.as_posix())
    for parent in [Path("."), *reversed(test.parents[:-1])]:
        if (root / parent / "conftest.py").is_file():
            files.append((parent / "conftest.py").as_posix())
    return files


_STARTS = 3
"""How many times a page's run is started when its kernel dies before the first cell (a start that failed
says nothing about the fault, and a stored run is trusted until its inputs change)."""


def _never_started(result: dict[str, Any]) -> bool:
    """Whether a run failed before its page's first cell ran: its kernel never came up, nothing was recorded."""
    return bool(result.get("error")) and result.get("error_cell") is None and not (result.get("used") or {}).get("modules")


def _run_page(pool: ProcessPoolExecutor, root: Path, fault: Fault, src: Path, target: str, timeout: float,
              environment: dict[str, Any], server: str | None = None) -> dict[str, Any]:
    from specbook.execute import run_page
    from specbook.keys import file_hashes

    start = time.perf_counter()
    for attempt in range(_STARTS):
        try:
            result = pool.submit(run_page, root / target, root, timeout=int(timeout), environ=_environ(fault, src),
                                 src=str(src), kernel_server=server).result()
        except Exception as error:  # noqa: BLE001 - a worker that died is a run that failed
            result = {"error": f"{type(error).__name__}: {error}", "error_cell": None, "used": {}, "seconds": 0.0}
        if not _never_started(result):
            break
    used = result.get("used") or {}
    recorder = Path(__file__).with_name("_record.py").resolve()  # what reported the claims keys the run too
    own = [recorder.relative_to(root.resolve()).as_posix()] if recorder.is_relative_to(root.resolve()) else []
    files = file_hashes(root, [*used.get("modules", []), *used.get("reads", []), *used.get("missing", []), *own])
    error = None
    if result.get("error"):
        text = ANSI.sub("", result["error"])
        last = [line for line in text.strip().splitlines() if line.strip()][-1:] or [text]
        error = {"cell": result.get("error_cell"), "message": last[0][:500], "traceback": text[-4000:]}
    return {"kind": "page", "files": files, "distributions": used.get("distributions") or {},
            "claims": [{k: c.get(k) for k in ("key", "holds", "measured", "expected", "example", "forgotten")}
                       for c in used.get("claims", [])],
            "error": error, "passed_over": used.get("passed_over") or [],
            "imports": sorted(p.file for p in fault.patches if f"src/{p.file}" in files),
            "seconds": round(time.perf_counter() - start, 2), "output": (error or {}).get("traceback", "")}


def _run_test(root: Path, fault: Fault, src: Path, target: str, timeout: float,
              environment: dict[str, Any]) -> dict[str, Any]:
    from specbook.keys import file_hashes

    command = [sys.executable, "-m", "pytest", "-q", "--no-header", "-p", "no:cacheprovider", "-p", "no:randomly",
               "-n", "0", target]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=root, env=_environ(fault, src), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=timeout)
        output = done.stdout
    except subprocess.TimeoutExpired as exc:
        output = (exc.stdout or "") if isinstance(exc.stdout, str) else ""
        output += f"\nERROR {target} timed out after {timeout:.0f} s"
    failed = judge(target, output)
    return {"kind": "test", "files": file_hashes(root, _test_files(root, target)), "distributions": {},
            "failed_tests": failed, "claims": [], "error": None,
            "seconds": round(time.perf_counter() - start, 2), "output": output}


def _page_cells(root: Path, faults: list[Fault]) -> dict[str, str]:
    from specbook.execute import read_page

    pages = sorted({t for f in faults for t in f.targets if t.endswith(".md")})
    return {page: _matrix.cells_hash(read_page(root / page, root)) for page in pages if (root / page).is_file()}


def plan(faults: list[Fault], *, root: Path = ROOT, force: bool = False) -> list[tuple[Fault, str, str | None]]:
    """Every (fault, target) with why it must run, or ``None`` when its stored run is current."""
    from specbook.keys import environment_record

    environment = environment_record()
    stored = _matrix.load_runs(root)
    cells = _page_cells(root, faults)
    out = []
    for fault in faults:
        for target in fault.targets:
            if force:
                out.append((fault, target, "forced"))
                continue
            page_cells = cells.get(target) if target.endswith(".md") else None
            out.append((fault, target, _matrix.run_stale(stored.get((fault.name, target)), root, environment,
                                                         fault, page_cells)))
    return out


def run(faults: list[Fault], *, root: Path = ROOT, jobs: int = 2, timeout: float = 600.0, force: bool = False,
        echo=print) -> list[FaultResult]:
    """Run every fault's targets whose stored run is not current, ``jobs`` at a time, and judge each fault.

    The longest runs start first (a page's last recorded time; a test's guessed). Each run is
    stored in ``root/_build/faults/runs/``; its output in ``root/_build/faults/logs/``.
    """
    from specbook.execute import known_times
    from specbook.keys import environment_record

    root = Path(root).resolve()
    environment = environment_record()
    verdicts = plan(faults, root=root, force=force)
    cells = _page_cells(root, faults)
    stored = _matrix.load_runs(root)
    results = {f.name: FaultResult(f.name, f.caught_by) for f in faults}
    todo = [(fault, target, why) for fault, target, why in verdicts if why is not None]
    current = {(fault.name, target) for fault, target, why in verdicts if why is None}
    times = known_times(root)
    todo.sort(key=lambda item: -times.get(item[1], _TEST_SECONDS))
    runs: dict[tuple[str, str], dict[str, Any]] = {
        (fault.name, target): stored[(fault.name, target)] for fault, target, why in verdicts if why is None}
    if todo:
        echo(f"specbook.faults: {len(todo)} of {len(verdicts)} runs to do, {jobs} at a time "
             f"({len(verdicts) - len(todo)} current)")
    with tempfile.TemporaryDirectory(prefix="specbook-faults-") as tmp:
        sources = {}
        for fault in {f.name: f for f, _, _ in todo}.values():
            try:
                src = _copy_src(root, Path(tmp) / fault.name)
                apply(fault, src)
                sources[fault.name] = src
            except (ValueError, OSError) as exc:
                results[fault.name].error = str(exc)
        work = [(f, t, why) for f, t, why in todo if f.name in sources]
        context = multiprocessing.get_context("spawn")
        pages = any(t.endswith(".md") for _, t, _ in work)
        with KernelServer(start=pages and forking()) as server, \
                ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=context) as kernels, \
                ThreadPoolExecutor(max_workers=max(1, jobs)) as threads:
            if pages and server.path is None:
                echo(f"specbook.faults: {server.why if forking() else FORK_ENV + '=0'}; "
                     "each page gets a kernel started afresh")

            def one(fault: Fault, target: str) -> dict[str, Any]:
                src = sources[fault.name]
                if target.endswith(".md"):
                    return _run_page(kernels, root, fault, src, target, timeout, environment, server.path)
                return _run_test(root, fault, src, target, timeout, environment)

            futures = [(f, t, why, threads.submit(one, f, t)) for f, t, why in work]
            for fault, target, why, future in futures:
                record = future.result()
                output = record.pop("output", "")
                record.update({"version": _matrix.RUN_VERSION, "fault": fault.name, "target": target,
                               "fault_key": _matrix.fault_key(fault), "environment": environment,
                               "cells": cells.get(target)})
                _atomic_write(root / _matrix.RUNS / fault.name / f"{_slug(target)}.json",
                              json.dumps(record, indent=1, sort_keys=True) + "\n")
                if output:
                    _atomic_write(root / _matrix.FAULTS_DIR / "logs" / f"{fault.name}__{_slug(target)}.log", output)
                runs[(fault.name, target)] = record
                killed = _kills(record)
                echo(f"  {fault.name} on {target}: {record['seconds']:.1f} s (ran because {why}); "
                     + (f"kills {len(killed)}" if killed else "kills nothing")
                     + (f"; stopped by an error in cell {record['error']['cell']}" if record.get("error") else ""))
    for fault in faults:
        result = results[fault.name]
        for target in fault.targets:
            record = runs.get((fault.name, target))
            if record is None:
                continue
            result.observed.extend(_kills(record))
            result.seconds[target] = record.get("seconds", 0.0)
            if (fault.name, target) in current:
                result.cached.append(target)
            if record.get("error"):
                result.errors.append({"target": target, **{k: record["error"].get(k) for k in ("cell", "message")}})
            if record.get("kind") == "page" and len(record.get("imports", [])) < len(fault.patches):
                missing = sorted({p.file for p in fault.patches} - set(record.get("imports", [])))
                result.notes.append(f"{target} never imports {', '.join('src/' + m for m in missing)}")
        result.observed = sorted(set(result.observed))
    _write_matrix(root, faults, results, runs)
    return [results[f.name] for f in faults]


def _kills(record: dict[str, Any]) -> list[str]:
    if record.get("kind") == "test":
        return list(record.get("failed_tests", []))
    return [c["key"] for c in record.get("claims", []) if not c.get("holds") and not c.get("example")]


def _write_matrix(root: Path, faults: list[Fault], results: dict[str, FaultResult],
                  runs: dict[tuple[str, str], dict[str, Any]]) -> None:
    """``_build/faults/matrix.json``: every fault's verdict, and per page the claims each run made and broke."""
    path = root / _matrix.MATRIX
    previous = {}
    try:
        previous = {f["name"]: f for f in json.loads(path.read_text(encoding="utf-8")).get("faults", [])}
    except (OSError, ValueError, AttributeError):
        pass
    chosen = {f.name for f in faults}
    rows = [row for name, row in previous.items() if name not in chosen and name in {f.name for f in FAULTS}]
    for fault in faults:
        r = results[fault.name]
        rows.append({"name": fault.name, "area": fault.area, "what": fault.what,
                     "patches": sorted({p.file for p in fault.patches}), "targets": list(fault.targets),
                     "caught_by": list(fault.caught_by), "verdict": r.verdict, "kills": r.observed,
                     "errors": r.errors, "notes": r.notes, "seconds": r.seconds, "cached": r.cached,
                     "error": r.error})
    order = {f.name: i for i, f in enumerate(FAULTS)}
    rows.sort(key=lambda row: order.get(row["name"], len(order)))
    _atomic_write(path, json.dumps({"version": _matrix.RUN_VERSION, "faults": rows}, indent=1) + "\n")


def _page_summary(root: Path, faults: list[Fault]) -> list[str]:
    """Per target page: how many of the claims its current runs made are killed, and which are not."""
    from specbook.keys import environment_record

    environment = environment_record()
    cells = _page_cells(root, faults)
    stored = _matrix.load_runs(root)
    lines = []
    for page in sorted(cells):
        seen: dict[str, bool] = {}
        examples = set()
        for fault in FAULTS:
            if page not in fault.targets:
                continue
            run = stored.get((fault.name, page))
            if run is None or _matrix.run_stale(run, root, environment, fault, cells[page]) is not None:
                continue
            for claim in run.get("claims", []):
                if claim.get("forgotten"):
                    continue
                if claim.get("example"):
                    examples.add(claim["key"])
                    continue
                seen[claim["key"]] = seen.get(claim["key"], False) or not claim.get("holds")
        if not seen:
            continue
        unkilled = [key for key, killed in seen.items() if not killed]
        line = f"{page}: {len(seen) - len(unkilled)} of {len(seen)} claims made under its faults are killed"
        if unkilled:
            line += f"; no killer yet: {', '.join(unkilled)}"
        lines.append(line)
    return lines


def gate(ledger_path: Path, mode: str, *, out=sys.stdout) -> int:
    """The kill gate over a built ledger: in ``strict`` mode every claim needs a killer and no source is mislabelled.

    Returns the exit status: 1 in ``strict`` mode when a claim (not an example) has no
    killer, a fault moved an expected value its source does not declare, or a fault's run
    over a page is stale or missing; 0 otherwise (``report`` prints the same and passes).
    """
    from specbook.ledger import read_ledger

    if not ledger_path.is_file():
        print(f"specbook.faults --gate: no ledger at {ledger_path} (run `make book` first)", file=out)
        return 1 if mode == "strict" else 0
    found = _matrix.gate_report(read_ledger(ledger_path))
    if not found["has_matrix"]:
        print("specbook.faults --gate: the ledger holds no kill matrix (run `python -m specbook.faults`, "
              "then `make book`)", file=out)
        return 1 if mode == "strict" else 0
    print(f"specbook.faults --gate ({mode}): {found['proven']} of {found['claims']} claims proven able to fail "
          f"(each broken by at least one fault); {found['examples']} examples apart", file=out)
    for line in found["not_current"]:
        print(f"  kill run not current: {line}", file=out)
    for line in found["mislabelled"]:
        print(f"  MISLABELLED: {line}", file=out)
    by_page: dict[str, list[str]] = {}
    for item in found["unkilled"]:
        page, _, key = item.partition(": ")
        by_page.setdefault(page, []).append(key)
    for page, keys in by_page.items():
        print(f"  no killer: {page}: {len(keys)}: {', '.join(keys)}", file=out)
    bad = found["unkilled"] or found["mislabelled"] or found["not_current"]
    if bad and mode == "strict":
        print("specbook.faults --gate: FAILED (strict): every claim needs a fault of src/ that breaks it, "
              "and an expected value may move only with its own declaration", file=out)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m specbook.faults``: run the catalogue and fail unless every fault is caught as named."""
    parser = argparse.ArgumentParser(prog="python -m specbook.faults", description=main.__doc__)
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (default 2)")
    parser.add_argument("--only", nargs="*", default=None, help="run only these faults, by name")
    parser.add_argument("--page", nargs="*", default=None, metavar="TARGET",
                        help="run only the faults that target these pages or tests (book/x.md ...)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a page's cell, or a test run, may take")
    parser.add_argument("--force", action="store_true", help="run every chosen fault again, stored runs or not")
    parser.add_argument("--plan", action="store_true", help="say which runs are current and which would run, and why")
    parser.add_argument("--gate", choices=("report", "strict"), default=None,
                        help="judge the built ledger instead: claims with no killer, mislabelled sources")
    parser.add_argument("--ledger", type=Path, default=ROOT / "_build" / "html" / "claims.json",
                        help="the ledger --gate reads (default: _build/html/claims.json)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs = {args.jobs} is not allowed; expected a whole number of at least 1")
    if args.gate:
        return gate(args.ledger, args.gate)
    chosen = [f for f in FAULTS if (args.only is None or f.name in args.only)
              and (args.page is None or set(f.targets) & set(args.page))]
    unknown = set(args.only or ()) - {f.name for f in FAULTS}
    if unknown:
        parser.error(f"no fault named {sorted(unknown)}; the catalogue holds {[f.name for f in FAULTS]}")
    untargeted = set(args.page or ()) - {t for f in FAULTS for t in f.targets}
    if untargeted:
        parser.error(f"no fault targets {sorted(untargeted)}")
    if args.plan:
        for fault, target, why in plan(chosen, force=args.force):
            print(f"{fault.name} on {target}: " + ("current" if why is None else f"to run ({why})"))
        return 0
    start, cpu0 = time.perf_counter(), os.times()
    results = run(chosen, jobs=args.jobs, timeout=args.timeout, force=args.force)
    wall, cpu1 = time.perf_counter() - start, os.times()
    cpu = (cpu1.children_user + cpu1.children_system) - (cpu0.children_user + cpu0.children_system)
    width = max(len(r.name) for r in results)
    for r in results:
        extra = [n for n in set(r.observed) - set(r.expected)]
        print(f"{r.verdict:>13}  {r.name:<{width}}  {sum(r.seconds.values()):6.1f} s"
              + (" (stored)" if r.cached and len(r.cached) == len(r.seconds) else "")
              + f"  named {', '.join(r.expected)}; "
              + (f"also kills {len(extra)}" if extra else "kills nothing else")
              + "".join(f"; error in {e['target']} cell {e['cell']}: {e['message']}" for e in r.errors)
              + "".join(f"; note: {n}" for n in r.notes)
              + (f"; {r.error}" if r.error else ""))
    for line in _page_summary(ROOT, FAULTS):
        print(line)
    bad = [r for r in results if r.verdict != "caught"]
    ran = sum(1 for r in results for t in r.seconds if t not in r.cached)
    print(f"{len(results) - len(bad)} of {len(results)} faults caught by the claims they name; "
          f"{ran} runs in {wall:.0f} s wall, {cpu:.0f} s CPU, {args.jobs} at a time "
          f"(the rest were current); the matrix is in {_matrix.MATRIX}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
