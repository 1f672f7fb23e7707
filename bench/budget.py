"""Where ``make test``'s time goes: the pytest stage from a cold JAX cache, and the fault catalogue's runs.

Usage::

    .venv/bin/python bench/budget.py                     # the whole pytest stage (about ten minutes)
    .venv/bin/python bench/budget.py tests/skcomplex     # a part of it
    .venv/bin/python bench/budget.py --catalogue         # the catalogue only, from _build/faults/matrix.json

The pytest part runs ``pytest -n 2 --dist loadfile`` as ``make test`` does, with JAX's persistent cache
in an empty scratch folder (a fresh clone's first run), and with ``bench/_compile_log.py``, a plugin
that records every program XLA compiles in the test processes and the test that compiled it. It
prints the wall time, the tests' summed time, how much of that was XLA compiling, and per test file
and per program where the compiling went. The pages' own kernels are other processes: their cells'
times are counted, their compiling is not (``bench/contact_chapter.py`` splits a page's time).

The catalogue part reads the last catalogue run's matrix (``make test`` or ``python -m
specbook.faults`` writes it): each fault's seconds on each target, summed by target. A page's cost
in the catalogue is its run time times the faults that name it, so the pages many faults target, and
what they compile, set the stage's length.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
MATRIX = ROOT / "_build" / "faults" / "matrix.json"


def _file_of(classname: str) -> str:
    """A junit test case's file: ``tests.x.test_y`` -> ``tests/x/test_y.py``; a page's cells keep their page."""
    if classname.endswith(".md"):  # nbval's items: classname "book.mime.contact-sweeps.md"
        return classname[: -len(".md")].replace(".", "/") + ".md"
    return classname.replace(".", "/") + ".py"


def pytest_part(paths: list[str], workers: int) -> None:
    with tempfile.TemporaryDirectory(prefix="test-budget-") as tmp:
        tmp_path = Path(tmp)
        log = tmp_path / "compiles"
        log.mkdir()
        junit = tmp_path / "junit.xml"
        env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": str(tmp_path / "jax_cache"),
               "BUDGET_COMPILE_LOG": str(log), "OPENBLAS_NUM_THREADS": "1",
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "bench"), os.environ.get("PYTHONPATH")]))}
        command = [str(PYTHON), "-m", "pytest", "-n", str(workers), "--dist", "loadfile", "-q", "-p", "no:cacheprovider",
                   "-p", "_compile_log", f"--junitxml={junit}", *paths]
        print(f"running {' '.join(command[2:])} (cold JAX cache); load {os.getloadavg()[0]:.1f}", flush=True)
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        print(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:])
        if not junit.exists():
            raise SystemExit(f"pytest wrote no report (exit {done.returncode}):\n{done.stderr[-3000:]}")
        tests: collections.Counter[str] = collections.Counter()
        for case in ET.parse(junit).iter("testcase"):
            tests[_file_of(case.get("classname", ""))] += float(case.get("time", 0.0))
        compile_by_file: collections.Counter[str] = collections.Counter()
        compile_by_program: collections.Counter[str] = collections.Counter()
        programs: collections.Counter[str] = collections.Counter()
        for part in log.glob("*.tsv"):
            for line in part.read_text(encoding="utf-8").splitlines():
                seconds, program, test = line.split("\t")
                compile_by_file[test.split("::")[0]] += float(seconds)
                compile_by_program[program] += float(seconds)
                programs[program] += 1
    total, compiled = sum(tests.values()), sum(compile_by_file.values())
    print(f"\nwall {wall:.0f} s on {workers} workers; the tests' summed time {total:.0f} s, of which XLA compiling "
          f"in the test processes {compiled:.0f} s ({100 * compiled / max(total, 1e-9):.0f}%), "
          f"{sum(programs.values())} programs")
    print(f"\n{'test s':>8} {'compile s':>9}  file (the 20 longest)")
    for name, seconds in tests.most_common(20):
        print(f"{seconds:8.1f} {compile_by_file.get(name, 0.0):9.1f}  {name}")
    print(f"\n{'compile s':>9} {'programs':>8}  program (the 12 costliest)")
    for name, seconds in compile_by_program.most_common(12):
        print(f"{seconds:9.1f} {programs[name]:8d}  {name}")


def catalogue_part(matrix: Path) -> None:
    if not matrix.exists():
        print(f"\nno {matrix}: run `make test` or `python -m specbook.faults` first")
        return
    faults = json.loads(matrix.read_text(encoding="utf-8"))["faults"]
    seconds: collections.Counter[str] = collections.Counter()
    runs: collections.Counter[str] = collections.Counter()
    for fault in faults:
        for target, s in fault.get("seconds", {}).items():
            seconds[target] += s
            runs[target] += 1
    total = sum(seconds.values())
    print(f"\nthe fault catalogue's last runs: {sum(runs.values())} runs of {len(faults)} faults, {total:.0f} s of runs "
          "(one core each; make test runs two at a time)")
    print(f"{'seconds':>8} {'runs':>5} {'share':>6}  target")
    for target, s in seconds.most_common(15):
        print(f"{s:8.1f} {runs[target]:5d} {100 * s / max(total, 1e-9):5.0f}%  {target}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="test paths for the pytest part (default: pytest's own testpaths)")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers, as make test (default 2)")
    parser.add_argument("--catalogue", action="store_true", help="only the catalogue part, from the last matrix")
    parser.add_argument("--matrix", type=Path, default=MATRIX,
                        help="the catalogue's matrix to read (default: this tree's _build/faults/matrix.json)")
    args = parser.parse_args(argv)
    if not args.catalogue:
        pytest_part(args.paths, args.workers)
    catalogue_part(args.matrix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
