"""How long the book takes to build, to test, and to tell an author which claim broke.

Usage::

    .venv/bin/python bench/book.py                 # clean build + author loop (a few minutes)
    .venv/bin/python bench/book.py --parallel      # also: serial against parallel page execution
    .venv/bin/python bench/book.py --xdist         # also: pages under pytest with pytest-xdist -n 2
    .venv/bin/python bench/book.py --fresh-clone   # also: `make test` from a `git clone` (long)

Everything runs in a temporary copy of the working tree (tracked and untracked
files, never ``.venv`` or ``_build``), so the checkout's own build is left alone.
The copy uses the project's installed virtual environment: the timings are
"after install", as the goals state. Each figure is printed in seconds, against
its goal, and as a ratio to a baseline measured in the same run:

- **clean build**: ``make book`` from nothing, with a cold JAX compilation cache
  (the pages run in parallel first, ``python -m specbook.execute``, then the strict
  build reads them from the notebook cache). Baseline: the same strict build
  of a one-page book whose single cell is ``1 + 1`` (the stack's fixed cost:
  Sphinx, myst-nb and one kernel). Goal: 120 s.
- **author loop**: an author appends a false claim to a page and runs
  ``make page`` on it; the time until the output names the claim. Baseline: the
  same ``make page`` on the unedited page. Goal: 20 s. The page is the one whose
  execution took longest in the clean build (the worst case), or ``--page``.
- **parallel** (``--parallel``): the same build through ``sphinx-build`` with one
  process and with two (``-j 2``); the ratio is the speed-up. jupyter-book 1.x
  has no ``-j`` flag, hence ``sphinx-build`` on the configuration
  ``jupyter-book config sphinx`` generates (see ``parallel`` for why it cannot
  read pages in parallel).
- **xdist** (``--xdist``, needs pytest-xdist importable): every page under
  pytest/nbval with ``-n 0`` and with ``-n 2 --dist loadfile`` (a page's cells
  stay in one worker, as nbval needs).
- **fresh clone** (``--fresh-clone``): ``git clone`` of the committed history,
  then ``make test``. With ``--own-venv`` the clone creates and installs its own
  environment (downloads; the honest first-time figure); by default it reuses
  the installed one.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
GOALS = {"clean build": 120.0, "author loop": 20.0}
EDIT_CLAIM = "bench_author_edit"
_EXECUTED = re.compile(r"(\S+\.md): Executed notebook in ([0-9.]+) seconds")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _files() -> list[str]:
    listing = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, check=True).stdout.decode()
    return [name for name in listing.split("\0") if name and (ROOT / name).is_file()]


def workspace(base: Path) -> tuple[Path, list[str]]:
    """A copy of the working tree using the installed venv; returns it and make's stamp override."""
    copy = base / "book"
    for name in _files():
        target = copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    (copy / ".venv").symlink_to(VENV)
    stamp = base / "installed.stamp"
    stamp.touch()  # newer than the copy's pyproject.toml: make sees the install as done
    return copy, [f"STAMP={stamp}"]


def timed(command: list[str], cwd: Path, *, until: str | None = None) -> tuple[float, float | None, int, str]:
    """Run a command; (total seconds, seconds until ``until`` appeared or None, exit code, output).

    ``PYTHONPATH`` puts the tree's own ``src`` first, ahead of the installed venv's
    editable path (which points at the checkout), so the copy runs its own code.
    """
    start = time.perf_counter()
    seen_at = None
    lines = []
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env={**os.environ, "PYTHONUNBUFFERED": "1",
                                               "PYTHONPATH": os.pathsep.join(
                                                   p for p in (str(cwd / "src"), os.environ.get("PYTHONPATH")) if p)})
    for line in process.stdout:
        lines.append(line)
        if until and seen_at is None and until in _ANSI.sub("", line):
            seen_at = time.perf_counter() - start
    code = process.wait()
    return time.perf_counter() - start, seen_at, code, "".join(lines)


def _page_front() -> str:
    """A page's front matter, as the book-level tests write it (``tests/book/_pages.py``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_pages", ROOT / "tests" / "book" / "_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FRONT


def baseline_book(base: Path, copy: Path) -> Path:
    """A one-page book with this project's configuration and a single trivial cell."""
    book = base / "baseline"
    book.mkdir()
    for name in ("_config.yml", "bibliography.bib"):
        shutil.copy2(copy / name, book / name)
    (book / "_toc.yml").write_text("format: jb-book\nroot: page\n")
    (book / "page.md").write_text(_page_front() + textwrap.dedent("""
        # Baseline

        ```{code-cell} ipython3
        1 + 1
        ```
        """))
    return book


def clean_build(base: Path, copy: Path, stamp: list[str]) -> dict:
    jb = [str(VENV / "bin" / "jupyter-book"), "build", "-W", "-n", "--keep-going"]
    base_seconds, _, base_code, base_out = timed([*jb, str(baseline_book(base, copy))], base)
    seconds, _, code, output = timed(["make", "--no-print-directory", "book", *stamp], copy)
    pages = {Path(m.group(1)).relative_to(copy).as_posix(): float(m.group(2))
             for m in _EXECUTED.finditer(_ANSI.sub("", output))}
    if code != 0:
        print(f"  ! make book failed (exit {code}); its last lines:\n{textwrap.indent(output[-2000:], '    ')}")
    if base_code != 0:
        print(f"  ! the baseline build failed:\n{textwrap.indent(base_out[-1500:], '    ')}")
    return {"seconds": seconds, "baseline": base_seconds, "code": code, "pages": pages}


def author_loop(copy: Path, stamp: list[str], page: str) -> dict:
    before, _, code_before, _ = timed(["make", "--no-print-directory", "page", f"PAGE={page}", *stamp], copy)
    source = copy / page
    original = source.read_text()
    source.write_text(original + textwrap.dedent(f"""
        ```{{code-cell}} ipython3
        import specbook
        specbook.claim("{EDIT_CLAIM}", 1.0, 2.0, atol=0.01)
        ```
        """))
    total, named, code, output = timed(["make", "--no-print-directory", "page", f"PAGE={page}", *stamp], copy,
                                       until=f"FAILED CLAIM '{EDIT_CLAIM}'")
    source.write_text(original)  # the author reverts the edit
    if named is None:
        print(f"  ! the edited page did not name the claim; its last lines:\n{textwrap.indent(output[-2000:], '    ')}")
    return {"page": page, "seconds": named if named is not None else float("nan"), "total": total,
            "baseline": before, "baseline_passed": code_before == 0, "failed": code != 0}


def parallel(base: Path, copy: Path) -> dict:
    """The same strict build with ``-j 1`` and ``-j 2``.

    jupyter-book 1.x cannot read in parallel: sphinx_external_toc always sets up
    sphinx_multitoc_numbering, which is not parallel-read-safe, so Sphinx falls
    back to a serial read (and, under ``-W``, that warning fails the build).
    The figure shows what ``-j 2`` buys as the stack stands.
    """
    subprocess.run([str(VENV / "bin" / "jupyter-book"), "config", "sphinx", str(copy)], check=True,
                   capture_output=True)
    conf = copy / "conf.py"
    generated = conf.read_text()
    results = {}
    for label, jobs, text in (
        ("1", "1", generated),
        ("2", "2", generated),
    ):
        conf.write_text(text)
        out = base / f"sphinx-{label}"
        command = [str(VENV / "bin" / "sphinx-build"), "-b", "html", "-W", "-n", "--keep-going", "-q",
                   "-j", jobs, "-d", str(out / "doctrees"), str(copy), str(out / "html")]
        seconds, _, code, output = timed(command, copy)
        results[label] = (seconds, code, output)
        if jobs != "1" and "doing serial read" in output:
            print(f"  note: sphinx-build -j {jobs} ({label}) fell back to a serial read (an extension is not"
                  " parallel-read-safe): pages were not executed concurrently")
    conf.unlink()
    return results


def xdist_runs(copy: Path) -> dict:
    """Every page under pytest/nbval, in one process and in two (``-n 2 --dist loadfile``)."""
    common = [str(VENV / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist", "book"]
    serial = timed([*common, "-n", "0"], copy)
    two = timed([*common, "-n", "2", "--dist", "loadfile"], copy)
    return {"serial": serial[0], "two": two[0], "codes": (serial[2], two[2])}


def fresh_clone(base: Path, own_venv: bool) -> dict:
    clone = base / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    extra: list[str] = []
    if not own_venv:
        (clone / ".venv").symlink_to(VENV)
        stamp = base / "clone.stamp"
        stamp.touch()
        extra = [f"STAMP={stamp}"]
    seconds, _, code, output = timed(["make", "--no-print-directory", "test", *extra], clone)
    if code != 0:
        print(f"  ! make test failed in the clone (exit {code}):\n{textwrap.indent(output[-3000:], '    ')}")
    return {"seconds": seconds, "code": code}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", help="the page the author edits (default: the slowest page)")
    parser.add_argument("--parallel", action="store_true", help="also time serial against -j 2")
    parser.add_argument("--xdist", action="store_true",
                        help="also time the pages under pytest with and without pytest-xdist (if importable)")
    parser.add_argument("--fresh-clone", action="store_true", help="also time `make test` on a git clone")
    parser.add_argument("--own-venv", action="store_true", help="the clone installs its own venv (downloads)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)

    base = Path(tempfile.mkdtemp(prefix="specbook-bench-"))
    rows: list[tuple[str, float, float | None, float | None, str]] = []
    try:
        copy, stamp = workspace(base)
        print(f"bench/book.py in {base} ({os.cpu_count()} cores)")
        build = clean_build(base, copy, stamp)
        rows.append(("clean build", build["seconds"], GOALS["clean build"], build["baseline"],
                     "make book; baseline: one trivial page" + ("" if build["code"] == 0 else " (BUILD FAILED)")))
        for page, seconds in sorted(build["pages"].items(), key=lambda kv: -kv[1]):
            print(f"  executed {page:45s} {seconds:6.2f} s")
        page = args.page or (max(build["pages"], key=build["pages"].get) if build["pages"] else "book/intro.md")
        loop = author_loop(copy, stamp, page)
        rows.append(("author loop", loop["seconds"], GOALS["author loop"], loop["baseline"],
                     f"edit {page}, make page to the claim's name; baseline: unedited page"
                     + ("" if loop["baseline_passed"] else " (UNEDITED PAGE FAILED)")))
        if args.parallel:
            runs = parallel(base, copy)
            failed = {label: " (FAILED)" if code != 0 else "" for label, (_, code, _) in runs.items()}
            one = runs["1"][0]
            rows.append(("sphinx-build -j 2", runs["2"][0], None, one,
                         f"baseline: the same build with -j 1{failed['1']}; -j 2{failed['2']}"))
            for label, (_, code, out) in runs.items():
                if code != 0:
                    print(f"  ! sphinx-build {label} failed:\n{textwrap.indent(out[-1500:], '    ')}")
        if args.xdist:
            try:
                import xdist  # noqa: F401
            except ImportError:
                print("  ! --xdist: pytest-xdist is not importable; skipped")
            else:
                runs = xdist_runs(copy)
                rows.append(("pytest book -n 2", runs["two"], None, runs["serial"],
                             "nbval, --dist loadfile; baseline: -n 0" + ("" if runs["codes"] == (0, 0) else " (FAILED)")))
        if args.fresh_clone:
            clone = fresh_clone(base, args.own_venv)
            rows.append(("make test (clone)", clone["seconds"], None, build["seconds"],
                         ("own venv" if args.own_venv else "installed venv") + "; baseline: clean build"
                         + ("" if clone["code"] == 0 else " (FAILED)")))
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)

    print()
    print(f"{'measure':20s} {'seconds':>8s} {'goal':>6s} {'/goal':>6s} {'baseline':>9s} {'/baseline':>9s}  what")
    for name, seconds, goal, baseline, what in rows:
        goal_text = f"{goal:6.0f} {seconds / goal:6.2f}" if goal else f"{'':6s} {'':6s}"
        base_text = f"{baseline:9.1f} {seconds / baseline:9.2f}" if baseline else f"{'':9s} {'':9s}"
        print(f"{name:20s} {seconds:8.1f} {goal_text} {base_text}  {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
