"""How long the book takes to build, to rebuild after an edit, and to tell an author which claim broke.

Usage::

    .venv/bin/python bench/book.py                 # the four targets of issue 15 (several minutes)
    .venv/bin/python bench/book.py --working-tree  # the same on a copy of the uncommitted tree
    .venv/bin/python bench/book.py --parallel      # also: sphinx-build -j 1 against -j 2
    .venv/bin/python bench/book.py --xdist         # also: pages under pytest with pytest-xdist -n 2
    .venv/bin/python bench/book.py --fresh-clone   # also: `make test` from a `git clone` (long)

Everything runs in a ``git clone`` of the committed history in a temporary folder (or a
copy of the working tree), so the checkout's own build is left alone. The clone uses the
project's installed virtual environment: the timings are "after install". Its ``_build``
starts empty, so the first build also starts with a cold JAX compilation cache. Each figure
is printed in seconds, against its target, with the machine's load average when it started
(the machine is shared), and as a ratio to a baseline measured in the same run:

- **clean build**: ``make book`` in the fresh clone. Baseline: the strict build of a one-page
  book whose single cell is ``1 + 1`` (the stack's fixed cost: Sphinx, myst-nb, one kernel).
  Target: 60 s.
- **clean, warm JAX**: ``make book`` again after deleting everything the build made except JAX's
  persistent compilation cache: a clean build whose kernels compile nothing new (as in ``make
  test``, where pytest has filled that cache). Target: 60 s, the clean build's.
- **no change**: ``make book`` again, nothing edited: every page must be ``cached``. Target: 15 s.
- **one module**: a comment appended to ``src/skcomplex/engine/events.py``, which only the
  reflection page imports, then ``make book``: only that page may re-run. Target: 30 s.
- **author loop**: a false claim appended to the reflection page, then ``make page``; the
  time until the output names the claim. Baseline: ``make page FORCE=1`` on the unedited page.
  Target: 10 s.

For each ``make book`` the time before Sphinx starts (``python -m specbook.execute --plan``:
every page's verdict) and the Sphinx build, with the stale pages executing beside its
reading, are printed apart. Each re-run page's own time is split into kernel start, JAX
(tracing, lowering, compiling, persistent-cache reads) and the rest, so a missed target
says where its time went.
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
GOALS = {"clean build": 60.0, "no change": 15.0, "one module": 30.0, "author loop": 10.0}
EDIT_CLAIM = "bench_author_edit"
EDIT_MODULE = "src/skcomplex/engine/events.py"
EDIT_PAGE = "book/skcomplex/reflection.md"
_VERDICT = re.compile(r"^(?:specbook: )?(\S+\.md): (cached|re-ran \((.*?)\) in ([0-9.]+) s)(?:.*?\[(.*)\])?", re.M)
SPHINX_STARTS = "Running Jupyter-Book"
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


def load() -> str:
    """The machine's 1-minute load average now (it is shared: every figure carries it)."""
    return f"{os.getloadavg()[0]:.1f}"


def clone(base: Path) -> tuple[Path, list[str]]:
    """A ``git clone`` of the committed history using the installed venv; returns it and make's stamp override."""
    folder = base / "book-clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(folder)], check=True)
    (folder / ".venv").symlink_to(VENV)
    stamp = base / "book-clone.stamp"
    stamp.touch()
    return folder, [f"STAMP={stamp}"]


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


def make_book(copy: Path, stamp: list[str]) -> dict:
    """``make book``: its time, the part before Sphinx starts, and each page's verdict."""
    load_before = load()
    seconds, pre_sphinx, code, output = timed(["make", "--no-print-directory", "book", *stamp], copy,
                                              until=SPHINX_STARTS)
    clean = _ANSI.sub("", output)
    verdicts = {m.group(1): ("cached" if m.group(2) == "cached" else m.group(3)) for m in _VERDICT.finditer(clean)}
    ran = {m.group(1): float(m.group(4)) for m in _VERDICT.finditer(clean) if m.group(4)}
    split = {m.group(1): m.group(5) for m in _VERDICT.finditer(clean) if m.group(4) and m.group(5)}
    if code != 0:
        print(f"  ! make book failed (exit {code}); its last lines:\n{textwrap.indent(output[-2000:], '    ')}")
    return {"seconds": seconds, "execute": pre_sphinx, "code": code, "verdicts": verdicts, "ran": ran,
            "split": split, "load": load_before, "output": output}


def author_loop(copy: Path, stamp: list[str], page: str) -> dict:
    load_before = load()
    before, _, code_before, _ = timed(["make", "--no-print-directory", "page", f"PAGE={page}", "FORCE=1", *stamp],
                                      copy)
    source = copy / page
    original = source.read_text()
    source.write_text(original + textwrap.dedent(f"""
        ```{{code-cell}} ipython3
        import specbook
        specbook.claim("{EDIT_CLAIM}", 1.0, 2.0, atol=0.01, source=specbook.closed_form("a false claim"))
        ```
        """))
    load_edit = load()
    total, named, code, output = timed(["make", "--no-print-directory", "page", f"PAGE={page}", *stamp], copy,
                                       until=f"FAILED CLAIM '{EDIT_CLAIM}'")
    source.write_text(original)  # the author reverts the edit
    if named is None:
        print(f"  ! the edited page did not name the claim; its last lines:\n{textwrap.indent(output[-2000:], '    ')}")
    return {"page": page, "seconds": named if named is not None else float("nan"), "total": total,
            "baseline": before, "baseline_passed": code_before == 0, "failed": code != 0,
            "load": load_edit, "load_baseline": load_before}


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


def _where(run: dict) -> str:
    if run["execute"] is None:
        return ""
    jax = sum(float(x) for text in run.get("split", {}).values() for x in re.findall(r"JAX ([0-9.]+) s", text))
    pages = sum(run["ran"].values())
    ran = f"; the re-run pages took {pages:.1f} s of worker time, JAX {jax:.1f} s of it" if run["ran"] else ""
    return (f"plan {run['execute']:.1f} s, then Sphinx with the stale pages running beside it "
            f"{run['seconds'] - run['execute']:.1f} s{ran}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--working-tree", action="store_true",
                        help="copy the working tree (uncommitted changes too) instead of cloning the history")
    parser.add_argument("--parallel", action="store_true", help="also time serial against -j 2")
    parser.add_argument("--xdist", action="store_true",
                        help="also time the pages under pytest with and without pytest-xdist (if importable)")
    parser.add_argument("--fresh-clone", action="store_true", help="also time `make test` on a git clone")
    parser.add_argument("--own-venv", action="store_true", help="the clone installs its own venv (downloads)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)

    base = Path(tempfile.mkdtemp(prefix="specbook-bench-"))
    rows: list[tuple[str, float, float | None, float | None, str, str]] = []
    try:
        copy, stamp = workspace(base) if args.working_tree else clone(base)
        print(f"bench/book.py in {base} ({os.cpu_count()} cores, load {load()})")
        jb = [str(VENV / "bin" / "jupyter-book"), "build", "-W", "-n", "--keep-going"]
        base_load = load()
        base_seconds, _, base_code, base_out = timed([*jb, str(baseline_book(base, copy))], base)
        if base_code != 0:
            print(f"  ! the baseline build failed:\n{textwrap.indent(base_out[-1500:], '    ')}")
        rows.append(("baseline: one page", base_seconds, None, None, base_load, "strict build of a one-cell book"))

        clean = make_book(copy, stamp)
        rows.append(("clean build", clean["seconds"], GOALS["clean build"], base_seconds, clean["load"],
                     "make book in a fresh clone, cold JAX cache; " + _where(clean)
                     + ("" if clean["code"] == 0 else " (BUILD FAILED)")))
        for page, seconds in sorted(clean["ran"].items(), key=lambda kv: -kv[1]):
            print(f"  executed {page:45s} {seconds:6.2f} s  [{clean['split'].get(page, '')}]")

        for folder in ("html", "jupyter_execute", ".doctrees", ".jupyter_cache"):  # all but the JAX cache
            shutil.rmtree(copy / "_build" / folder, ignore_errors=True)
        warm = make_book(copy, stamp)
        rows.append(("clean, warm JAX", warm["seconds"], GOALS["clean build"], base_seconds, warm["load"],
                     "make book again after deleting the build and its notebook cache but not JAX's compilation "
                     "cache (as in make test, where pytest fills it first); " + _where(warm)
                     + ("" if warm["code"] == 0 else " (BUILD FAILED)")))

        same = make_book(copy, stamp)
        reran = sorted(p for p, v in same["verdicts"].items() if v != "cached")
        rows.append(("no change", same["seconds"], GOALS["no change"], base_seconds, same["load"],
                     f"make book again; re-ran: {', '.join(reran) or 'none'}; " + _where(same)))

        module = copy / EDIT_MODULE
        module.write_text(module.read_text() + "\n# bench/book.py: an edit that changes no behaviour\n")
        edited = make_book(copy, stamp)
        reran = {p: v for p, v in edited["verdicts"].items() if v != "cached"}
        rows.append(("one module", edited["seconds"], GOALS["one module"], base_seconds, edited["load"],
                     f"{EDIT_MODULE} edited; re-ran: "
                     + (", ".join(f"{p} ({v})" for p, v in sorted(reran.items())) or "none") + "; " + _where(edited)))

        loop = author_loop(copy, stamp, EDIT_PAGE)
        rows.append(("author loop", loop["seconds"], GOALS["author loop"], loop["baseline"], loop["load"],
                     f"false claim appended to {EDIT_PAGE}, make page until it is named; "
                     f"baseline: make page FORCE=1 on the unedited page (load {loop['load_baseline']})"
                     + ("" if loop["baseline_passed"] else " (UNEDITED PAGE FAILED)")))
        if args.parallel:
            runs = parallel(base, copy)
            failed = {label: " (FAILED)" if code != 0 else "" for label, (_, code, _) in runs.items()}
            rows.append(("sphinx-build -j 2", runs["2"][0], None, runs["1"][0], load(),
                         f"baseline: the same build with -j 1{failed['1']}; -j 2{failed['2']}"))
        if args.xdist:
            try:
                import xdist  # noqa: F401
            except ImportError:
                print("  ! --xdist: pytest-xdist is not importable; skipped")
            else:
                runs = xdist_runs(copy)
                rows.append(("pytest book -n 2", runs["two"], None, runs["serial"], load(),
                             "nbval, --dist loadfile; baseline: -n 0" + ("" if runs["codes"] == (0, 0) else " (FAILED)")))
        if args.fresh_clone:
            test_clone = fresh_clone(base, args.own_venv)
            rows.append(("make test (clone)", test_clone["seconds"], None, clean["seconds"], load(),
                         ("own venv" if args.own_venv else "installed venv") + "; baseline: clean build"
                         + ("" if test_clone["code"] == 0 else " (FAILED)")))
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)

    print()
    print(f"{'measure':20s} {'seconds':>8s} {'target':>6s} {'/target':>7s} {'baseline':>9s} {'/baseline':>9s} "
          f"{'load':>5s}  what")
    for name, seconds, goal, baseline, load_avg, what in rows:
        goal_text = f"{goal:6.0f} {seconds / goal:7.2f}" if goal else f"{'':6s} {'':7s}"
        base_text = f"{baseline:9.1f} {seconds / baseline:9.2f}" if baseline else f"{'':9s} {'':9s}"
        print(f"{name:20s} {seconds:8.1f} {goal_text} {base_text} {load_avg:>5s}  {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
