"""Faults that prove the claims can fail: each a small patch of the real code, and the claims it must break.

A :class:`Fault` is one plausible bug: a wrong scheme, a wrong restitution law, a dropped step
of an algorithm, a page showing the expected value where it says "measured". It is a text
patch of one file under ``src/`` (the text must occur exactly once), the pages and tests that
exercise the patched code, and the claims (or test ids) that must fail under it.

:func:`run` applies each fault to its own copy of ``src/``, runs each of its targets in a
separate ``pytest -x`` process with the copy first on ``PYTHONPATH`` (the pages' kernels
inherit it), several processes at once, and reads which claims failed. A fault passes the
gate when what failed is exactly what it names: a fault that no claim catches *survives*,
and one caught by anything else (another claim, an error in a cell) is *misattributed*;
either fails the run.

Run it as ``python -m specbook.faults`` (``--jobs N``, ``--only NAME ...``); ``make test``
runs the whole catalogue (:mod:`specbook.catalogue`). specbook imports no physics: a fault is
text, and the runner only starts processes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from specbook._claims import ANSI
from specbook._faults import Fault, Patch
from specbook.catalogue import FAULTS

__all__ = ["Fault", "FaultResult", "Patch", "apply", "judge", "main", "run"]

ROOT = Path(__file__).resolve().parents[2]
"""The project's root: ``src/`` and ``book/`` sit below it."""

_FAILED_CLAIM = re.compile(r"FAILED CLAIM '([^']+)'")
_FAILED_ITEM = re.compile(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", re.M)


@dataclass
class FaultResult:
    """What one fault did: the failures seen, per target, and the verdict."""

    name: str
    expected: tuple[str, ...]
    observed: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    error: str = ""

    @property
    def verdict(self) -> str:
        """``caught`` (exactly the named claims failed), ``survived`` or ``misattributed``."""
        if self.error:
            return "error"
        if not self.observed:
            return "survived"
        return "caught" if sorted(set(self.observed)) == sorted(set(self.expected)) else "misattributed"


def apply(fault: Fault, src: Path) -> None:
    """Apply ``fault``'s patches to the copy of ``src/`` at ``src``; a patch whose text is not there once raises."""
    for patch in fault.patches:
        target = src / patch.file
        text = target.read_text(encoding="utf-8")
        count = text.count(patch.old)
        if count != 1:
            raise ValueError(f"fault {fault.name!r}: the patched text occurs {count} times in src/{patch.file}, not once")
        target.write_text(text.replace(patch.old, patch.new, 1), encoding="utf-8")


def judge(target: str, output: str) -> list[str]:
    """The failures a ``pytest -x`` run of ``target`` reports: claims by name, anything else by its test id.

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


def _copy_src(folder: Path) -> Path:
    src = folder / "src"
    shutil.copytree(ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (folder / "book").symlink_to(ROOT / "book", target_is_directory=True)  # code that finds the book beside src/
    return src


def _run_target(fault: Fault, src: Path, target: str, timeout: float) -> tuple[str, str, float]:
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               SPECBOOK_FAULT=fault.name)
    command = [sys.executable, "-m", "pytest", "-x", "-q", "--no-header", "-p", "no:cacheprovider",
               "-p", "no:randomly", "-n", "0", target]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout)
        output = done.stdout
    except subprocess.TimeoutExpired as exc:
        output = (exc.stdout or "") if isinstance(exc.stdout, str) else ""
        output += f"\nERROR {target} timed out after {timeout:.0f} s"
    return target, output, time.perf_counter() - start


def run(faults: list[Fault], *, jobs: int = 2, timeout: float = 600.0, log: Path | None = None,
        echo=print) -> list[FaultResult]:
    """Run every fault's targets, ``jobs`` processes at a time, and judge each fault.

    Pages go first (they take longest). ``log`` is a folder for each run's output.
    """
    results = {f.name: FaultResult(f.name, f.caught_by) for f in faults}
    with tempfile.TemporaryDirectory(prefix="specbook-faults-") as tmp:
        sources = {}
        for fault in faults:
            try:
                src = _copy_src(Path(tmp) / fault.name)
                apply(fault, src)
                sources[fault.name] = src
            except (ValueError, OSError) as exc:
                results[fault.name].error = str(exc)
        work = [(f, t) for f in faults if f.name in sources for t in f.targets]
        work.sort(key=lambda ft: not ft[1].endswith(".md"))
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [(f, pool.submit(_run_target, f, sources[f.name], t, timeout)) for f, t in work]
            for fault, future in futures:
                target, output, seconds = future.result()
                result = results[fault.name]
                result.observed.extend(judge(target, output))
                result.seconds[target] = round(seconds, 1)
                if log is not None:
                    log.mkdir(parents=True, exist_ok=True)
                    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", target)
                    (log / f"{fault.name}__{safe}.log").write_text(output, encoding="utf-8")
    return [results[f.name] for f in faults]


def main(argv: list[str] | None = None) -> int:
    """``python -m specbook.faults``: run the catalogue and fail unless every fault is caught as named."""
    parser = argparse.ArgumentParser(prog="python -m specbook.faults", description=main.__doc__)
    parser.add_argument("--jobs", type=int, default=2, help="processes at once (default 2)")
    parser.add_argument("--only", nargs="*", default=None, help="run only these faults, by name")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per target run")
    parser.add_argument("--report", type=Path, default=ROOT / "_build" / "faults" / "report.json")
    args = parser.parse_args(argv)
    chosen = [f for f in FAULTS if args.only is None or f.name in args.only]
    unknown = set(args.only or ()) - {f.name for f in FAULTS}
    if unknown:
        parser.error(f"no fault named {sorted(unknown)}; the catalogue holds {[f.name for f in FAULTS]}")
    start, cpu0 = time.perf_counter(), os.times()
    results = run(chosen, jobs=args.jobs, timeout=args.timeout, log=args.report.parent / "logs")
    wall, cpu1 = time.perf_counter() - start, os.times()
    cpu = (cpu1.children_user + cpu1.children_system) - (cpu0.children_user + cpu0.children_system)
    width = max(len(r.name) for r in results)
    for r in results:
        print(f"{r.verdict:>13}  {r.name:<{width}}  {sum(r.seconds.values()):6.1f} s  "
              f"expected {', '.join(r.expected)}; observed {', '.join(r.observed) or 'nothing'}"
              + (f"; {r.error}" if r.error else ""))
    bad = [r for r in results if r.verdict != "caught"]
    print(f"{len(results) - len(bad)} of {len(results)} faults caught by the claims they name, "
          f"in {wall:.0f} s wall, {cpu:.0f} s CPU of the target runs, {args.jobs} at a time")
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps({"wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1), "jobs": args.jobs,
                                       "results": [dict(asdict(r), verdict=r.verdict) for r in results]},
                                      indent=2) + "\n", encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
