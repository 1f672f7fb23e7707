"""The build survives faults: each case breaks the machinery one way, then runs the next build.

That build either succeeds with the same claims, or fails with one plain message that says
what happened and what to do; it never shows a raw traceback from SQLite, SQLAlchemy or
nbclient, and it never stays broken. The cases run the real ``make book`` and ``make page``
recipes (the project's Makefile, the project's ``_config.yml``) on a small book of two pages,
built once and copied for each case:

- ``SIGINT`` (Ctrl-C) while a page runs and while the claim ledger is written; ``SIGKILL``
  while a run page is stored in the cache, while Sphinx writes the site and while the ledger
  is written. A build is held at that moment by ``_inject/sitecustomize.py`` (half of the
  file written, then a wait) or by a page cell that waits, and killed there;
- a truncated and an unreadable notebook-cache database, and a truncated cached notebook;
- a damaged ``claims.json``, ``claims-previous.json``, ``page-schedule.json`` (and the page
  times) or build key;
- a kernel that dies mid-page and a page that hangs past the execution timeout: the build
  fails naming the page, the cell and its line;
- two builds in one tree at once: the second waits for the first and says so; a build
  that cannot get the lock in time gives up with a message.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _pages import FRONT

from specbook.buildlock import build_lock

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
INJECT = Path(__file__).resolve().parent / "_inject"
RAW = ("Traceback (most recent call last)", "site-packages/", "sqlite3.", "sqlalchemy", "nbclient.",
       "NotJSONError", "DeadKernelError", "CellTimeoutError")
"""What a plain message never shows: a Python traceback, or the libraries' own error types."""

pytestmark = pytest.mark.slow

SECOND = FRONT + """
# Second

The second page's value comes from `tiny.second`.

```{code-cell} ipython3
import os
import sys
import time

sys.path.insert(0, "../src")
import specbook
from tiny import second
```

```{code-cell} ipython3
# a test holds the page here, as a long computation would be (FIXTURE_STALL_MARK unset: no wait)
if os.environ.get("FIXTURE_STALL_MARK"):
    open(os.environ["FIXTURE_STALL_MARK"], "w").close()
    for _ in range(1200):
        if os.path.exists(os.environ.get("FIXTURE_STALL_UNTIL", "/nonexistent")):
            break
        time.sleep(0.05)
```

```{code-cell} ipython3
specbook.claim("second_value", second.VALUE, 2.0, atol=0.01, source=specbook.declared("tiny.second.VALUE"))
```
"""


def _book(folder: Path) -> Path:
    (folder / "src" / "tiny").mkdir(parents=True)
    (folder / "src" / "tiny" / "__init__.py").write_text("")
    (folder / "src" / "tiny" / "shared.py").write_text("ONE = 1.0\n")
    (folder / "src" / "tiny" / "second.py").write_text("VALUE = 2.0\n")
    shutil.copy(ROOT / "_config.yml", folder / "_config.yml")
    shutil.copy(ROOT / "bibliography.bib", folder / "bibliography.bib")
    (folder / "_toc.yml").write_text(
        "format: jb-book\nroot: book/first\nchapters:\n  - file: book/second\n  - file: book/claims\n")
    (folder / "book").mkdir()
    (folder / "book" / "first.md").write_text(FRONT + (
        "\n# First\n\nSome prose about the first page.\n\n"
        "```{code-cell} ipython3\nimport sys\nsys.path.insert(0, \"../src\")\nimport specbook\nfrom tiny import shared\n```\n\n"
        "```{code-cell} ipython3\nspecbook.claim(\"first_one\", shared.ONE, 1.0, atol=0.01, "
        "source=specbook.declared(\"tiny.shared.ONE\"))\n```\n"))
    (folder / "book" / "second.md").write_text(SECOND)
    (folder / "book" / "claims.md").write_text("# Claims\n\n```{specbook-claims}\n```\n")
    return folder


def _environ(extra: dict[str, str] | None = None) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "SPECBOOK_BUILD_LOCK", "SPECBOOK_TEST_STALL")}
    environ["PYTHONPATH"] = os.pathsep.join([str(INJECT), *filter(None, [environ.get("PYTHONPATH")])])
    return {**environ, **(extra or {})}


def _command(*targets: str) -> list[str]:
    return ["make", "-f", str(ROOT / "Makefile"), "--no-print-directory", *targets, f"BIN={BIN}", "STAMP="]


def _clean(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _make(folder: Path, *targets: str, env: dict[str, str] | None = None, timeout: float = 300) -> tuple[int, str]:
    done = subprocess.run(_command(*targets), cwd=folder, env=_environ(env), capture_output=True, text=True,
                          timeout=timeout)
    return done.returncode, _clean(done.stdout + done.stderr)


_TERMINAL = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
             "signal.signal(signal.SIGQUIT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])")
"""Run the rest of the command line with Ctrl-C and Ctrl-\\ acting as in a terminal. A test run
started in the background by a shell without job control (``make test &`` in a script) inherits
SIGINT and SIGQUIT ignored, an ignored signal stays ignored across exec, and the build would never
see the interrupt a test sends. (Not a ``preexec_fn``: that forks this process, JAX threads and all.)"""


def _start(folder: Path, log: Path, *targets: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """``make`` in a process group of its own (as a terminal runs it), its output to ``log``."""
    with log.open("w") as handle:
        return subprocess.Popen([sys.executable, "-c", _TERMINAL, *_command(*targets)], cwd=folder,
                                env=_environ(env), stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)


def _wait_for(path: Path, process: subprocess.Popen, log: Path, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert process.poll() is None, f"the build ended before the fault:\n{_clean(log.read_text())[-3000:]}"
        assert time.monotonic() < deadline, "the build never reached the fault"
        time.sleep(0.02)


def _gone(group: int, seconds: float = 30) -> None:
    """Wait until every process of ``group`` has ended (SIGKILL whatever is left after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.killpg(group, signal.SIGKILL)


def _killed(folder: Path, tmp: Path, sig: signal.Signals, *, stall: str | None = None,
            in_page: bool = False) -> str:
    """Run ``make book``, hold it at the fault, send ``sig`` to its process group; its output."""
    mark, log = tmp / f"reached-{sig.name}", tmp / f"killed-{sig.name}.log"
    extra = {"SPECBOOK_TEST_STALL": stall, "SPECBOOK_TEST_STALL_MARK": str(mark)} if stall else {}
    if in_page:
        extra["FIXTURE_STALL_MARK"] = str(mark)
    process = _start(folder, log, "book", env=extra)
    try:
        _wait_for(mark, process, log)
        os.killpg(process.pid, sig)
        process.wait(timeout=180)  # a hang guard: a stopped build ends in seconds
    finally:
        _gone(process.pid)
    assert process.returncode != 0, "the build was not stopped"
    output = _clean(log.read_text())
    if sig == signal.SIGINT:  # Ctrl-C is a clean stop: the build says so, with no traceback
        assert "Traceback (most recent call last)" not in output, output[-4000:]
        assert "Interrupt" in output, output[-4000:]
    return output


def _claims(folder: Path) -> list[tuple]:
    ledger = json.loads((folder / "_build" / "html" / "claims.json").read_text())
    return sorted((c["page"], c["key"], c["measured"], c["holds"]) for c in ledger["claims"])


def _plain(output: str) -> None:
    for raw in RAW:
        assert raw not in output, f"{raw!r} shown:\n{output[-4000:]}"


def _rebuilt(output: str) -> bool:
    return "build succeeded" in output and "is current" not in output


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, list[tuple]]:
    """The small book, built once by ``make book``: (folder, its claims)."""
    folder = _book(tmp_path_factory.mktemp("faults") / "book")
    code, output = _make(folder, "book")
    assert code == 0, output[-4000:]
    claims = _claims(folder)
    assert [c[:2] for c in claims] == [("book/first.md", "first_one"), ("book/second.md", "second_value")]
    return folder, claims


@pytest.fixture
def book(built, tmp_path) -> Path:
    """A copy of the built book, for one case to break."""
    return Path(shutil.copytree(built[0], tmp_path / "book", symlinks=True))


def _next_build_succeeds(book: Path, built, *, rebuilt: bool = True) -> str:
    code, output = _make(book, "book")
    assert code == 0, output[-4000:]
    _plain(output)
    assert _claims(book) == built[1]
    if rebuilt:
        assert _rebuilt(output), output[-3000:]
    return output


# ---- killed builds -------------------------------------------------------------------------

def test_sigint_while_a_page_runs(book, built, tmp_path):
    _edit(book / "src" / "tiny" / "second.py", "VALUE = 2.0\n", "VALUE = 2.0  # edited\n")
    _killed(book, tmp_path, signal.SIGINT, in_page=True)
    output = _next_build_succeeds(book, built)
    assert "book/second.md: re-ran (src/tiny/second.py changed)" in output


def test_sigkill_while_a_run_page_is_stored_in_the_cache(book, built, tmp_path):
    _edit(book / "src" / "tiny" / "second.py", "VALUE = 2.0\n", "VALUE = 2.0  # edited\n")
    _killed(book, tmp_path, signal.SIGKILL, stall="base.ipynb")
    output = _next_build_succeeds(book, built)
    # the record was written before its notebook: the half notebook is moved aside, the page runs again
    assert re.search(r"book/second\.md: its cached notebook is damaged \(.*\); moved it aside to "
                     r"_build/\.jupyter_cache\.damaged-[-\d]+; the page will run again", output), output[-3000:]
    assert "book/second.md: to re-run (its cached notebook was damaged)" in output


def test_sigkill_while_sphinx_writes_the_site(book, built, tmp_path):
    # (Ctrl-C here is Ctrl-C while the ledger is written, below: Sphinx stops, nothing is vouched for)
    _edit(book / "book" / "first.md", "Some prose", "Other prose")  # Sphinx runs again, no page does
    _killed(book, tmp_path, signal.SIGKILL, stall="second.html")
    assert not (book / "_build" / "specbook-build-key").exists()  # dropped before the site was
    _edit(book / "book" / "first.md", "Other prose", "Some prose")  # back to what the last whole build built
    _next_build_succeeds(book, built)
    assert (book / "_build" / "html" / "book" / "second.html").read_text().rstrip().endswith("</html>")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["sigint", "sigkill"])
def test_killed_while_the_ledger_is_written(book, built, tmp_path, sig):
    _edit(book / "book" / "first.md", "Some prose", "Other prose")
    _killed(book, tmp_path, sig, stall="claims.json")
    assert not (book / "_build" / "html" / "claims.json").exists()  # never half a ledger
    _edit(book / "book" / "first.md", "Other prose", "Some prose")
    output = _next_build_succeeds(book, built)
    assert "warning" not in output.split("specbook.diff", 1)[1].lower()


# ---- damaged state -------------------------------------------------------------------------

def test_a_truncated_cache_database_is_moved_aside_and_the_pages_run_again(book, built):
    cache = book / "_build" / ".jupyter_cache"
    database = cache / "global.db"
    damaged = database.read_bytes()[: database.stat().st_size // 2]
    database.write_bytes(damaged)
    before = sorted(p.relative_to(book) for p in book.rglob("*") if "_build" not in p.parts)
    output = _next_build_succeeds(book, built)
    aside = re.search(r"The notebook cache _build/\.jupyter_cache cannot be read \((.*?)\)\. It was moved aside to "
                      r"(_build/\.jupyter_cache\.damaged-[-\d]+), and every page will run again", output, re.I)
    assert aside, output[-3000:]
    assert "book/first.md: re-ran (not in the cache)" in output and "book/second.md: re-ran (not in the cache)" in output
    kept = book / aside.group(2)  # set aside whole, nothing deleted
    assert (kept / "global.db").read_bytes() == damaged
    assert len(list((kept / "executed").glob("*/base.ipynb"))) == 2
    assert sorted(p.relative_to(book) for p in book.rglob("*") if "_build" not in p.parts) == before


def test_an_unreadable_cache_database_is_moved_aside(book):
    (book / "_build" / ".jupyter_cache" / "global.db").write_bytes(b"\x00not a database\xff" * 500)
    done = subprocess.run([sys.executable, "-m", "specbook.execute", "--plan"], cwd=book, env=_environ(),
                          capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 3, output  # pages to run, not a crash
    _plain(output)
    assert "cannot be read (file is not a database). It was moved aside" in output
    assert "book/first.md: to re-run (not in the cache)" in output
    assert len(list((book / "_build").glob(".jupyter_cache.damaged-*/global.db"))) == 1


def test_a_truncated_cached_notebook_is_moved_aside_and_its_page_runs_again(book, built):
    cache = book / "_build" / ".jupyter_cache"
    record = next(r for r in _records(cache) if r[0] == "book/second.md")
    notebook = cache / "executed" / record[1] / "base.ipynb"
    notebook.write_bytes(notebook.read_bytes()[:200])
    _edit(book / "book" / "first.md", "Some prose", "Other prose")  # Sphinx reads every page again
    output = _next_build_succeeds(book, built)
    assert "book/second.md: its cached notebook is damaged" in output
    assert "book/second.md: to re-run (its cached notebook was damaged)" in output
    assert "book/first.md: cached" in output


def _cell_line(page: Path, number: int) -> int:
    """The line (from 1) where the page's code cell ``number`` (from 1) starts."""
    lines = [i + 1 for i, line in enumerate(page.read_text().splitlines()) if line.startswith("```{code-cell}")]
    return lines[number - 1]


def _records(cache: Path) -> list[tuple[str, str]]:
    import sqlite3

    with sqlite3.connect(cache / "global.db") as connection:
        return connection.execute("SELECT uri, hashkey FROM nbcache").fetchall()


def test_a_damaged_ledger_is_not_vouched_for(book, built):
    ledger = book / "_build" / "html" / "claims.json"
    ledger.write_text(ledger.read_text()[:100])
    output = _next_build_succeeds(book, built)
    assert "cannot be vouched for" in output and "is not a claim ledger" in output
    # the damaged ledger became the previous one: the comparison warns, and the build still succeeds
    assert "specbook.diff: warning: the earlier ledger cannot be read" in output


def test_a_damaged_previous_ledger_gets_a_warning_not_a_failure(book):
    previous = book / "_build" / "claims-previous.json"
    previous.write_bytes(b"\xff\xfe{ half")
    done = subprocess.run([sys.executable, "-m", "specbook.diff", str(previous), "_build/html/claims.json"],
                          cwd=book, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "warning: the earlier ledger cannot be read" in done.stderr
    assert done.returncode == 0 and not done.stdout  # nothing compared
    # the ledger just built is another matter: it must read
    done = subprocess.run([sys.executable, "-m", "specbook.diff", "_build/html/claims.json", str(previous)],
                          cwd=book, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "is not a claim ledger" in done.stderr


def test_a_damaged_build_key_means_building_again(book):
    key = book / "_build" / "specbook-build-key"
    key.write_bytes(b"\xff\x00 half a key")
    # make book builds again when the check says no (exit 1); the rest of that build is any build's
    done = subprocess.run([sys.executable, "-m", "specbook.buildkey", "check"], cwd=book, env=_environ(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    _plain(done.stdout + done.stderr)
    assert "the stored key _build/specbook-build-key is damaged or from an older version" in done.stdout
    assert not key.exists()


def test_the_plan_asks_the_build_key_when_every_page_is_cached(book):
    def plan(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "specbook.execute", "--plan", *extra], cwd=book, env=_environ(),
                              capture_output=True, text=True, timeout=120)

    done = plan("--build-key")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "_build/html is current" in done.stdout
    _edit(book / "book" / "first.md", "Some prose", "Other prose")  # prose only: no page re-runs, Sphinx must
    assert plan().returncode == 0
    done = plan("--build-key")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "is current" not in done.stdout
    _edit(book / "book" / "second.md", "VALUE, 2.0", "VALUE, 2.0 + 0.0")  # a code cell: the page re-runs
    assert plan("--build-key").returncode == 3
    refused = subprocess.run([sys.executable, "-m", "specbook.execute", "--build-key"], cwd=book, env=_environ(),
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "--build-key goes with --plan" in refused.stderr


def test_a_damaged_schedule_and_page_times_are_tolerated(book):
    (book / "page-schedule.json").write_text('{"seconds": {"book/second.md": "slow"}, "follows": ')
    (book / "_build" / "page-seconds.json").write_bytes(b"\xff\xfe[1, 2")
    code, output = _make(book, "page", "PAGE=book/second.md", "FORCE=1")
    assert code == 0, output
    _plain(output)
    assert "book/second.md: re-ran (forced)" in output
    assert json.loads((book / "_build" / "page-seconds.json").read_text()).keys() == {"book/second.md"}


# ---- pages that fail -----------------------------------------------------------------------

def test_a_kernel_that_dies_fails_naming_the_page_and_the_cell(book, built):
    page = book / "book" / "second.md"
    _edit(page, "# a test holds the page", "os._exit(3)\n# a test holds the page")
    code, output = _make(book, "book")
    assert code != 0
    _plain(output)
    line = _cell_line(page, 2)
    message = (f"book/second.md, line {line}, code cell 2: the kernel died while this cell ran. A cell that ends the "
               "Python process")
    assert f"WARNING: specbook: {message}" in output, output[-4000:]
    assert "Executing notebook" not in output  # myst-nb does not run it again
    assert "the kernel died" not in (book / "_build" / "html" / "book" / "first.html").read_text()
    # put right, the next build succeeds
    _edit(page, "os._exit(3)\n# a test holds the page", "# a test holds the page")
    _next_build_succeeds(book, built)


def test_a_hanging_page_fails_at_the_timeout_naming_the_page_and_the_cell(book):
    config = book / "_config.yml"
    _edit(config, "  timeout: 600", "  timeout: 2")
    _edit(config, "nb_execution_timeout: 600", "nb_execution_timeout: 2")
    page = book / "book" / "second.md"
    _edit(page, "# a test holds the page", "time.sleep(120)\n# a test holds the page")
    start = time.monotonic()
    code, output = _make(book, "page", "PAGE=book/second.md", timeout=60)
    assert code != 0 and time.monotonic() - start < 40
    _plain(output)
    line = _cell_line(page, 2)
    assert (f"book/second.md, line {line}, code cell 2: still running after the execution timeout of 2 s, so its "
            "kernel was stopped") in output, output
    assert f"book/second.md: FAILED at line {line}, code cell 2, after" in output


# ---- two builds ----------------------------------------------------------------------------

def test_a_second_build_waits_for_the_first_and_says_so(book, built, tmp_path):
    _edit(book / "src" / "tiny" / "second.py", "VALUE = 2.0\n", "VALUE = 2.0  # edited\n")
    mark, release = tmp_path / "first-running", tmp_path / "release"
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    first = _start(book, first_log, "book", env={"FIXTURE_STALL_MARK": str(mark), "FIXTURE_STALL_UNTIL": str(release)})
    try:
        _wait_for(mark, first, first_log)  # the first build is running a page
        second = _start(book, second_log, "book")
        try:
            deadline = time.monotonic() + 60
            while "waiting for it to finish" not in second_log.read_text():
                assert second.poll() is None, second_log.read_text()
                assert time.monotonic() < deadline, second_log.read_text()
                time.sleep(0.05)
            release.touch()
            assert first.wait(timeout=120) == 0, _clean(first_log.read_text())[-3000:]
            assert second.wait(timeout=120) == 0, _clean(second_log.read_text())[-3000:]
        finally:
            _gone(second.pid)
    finally:
        release.touch()
        _gone(first.pid)
    output = _clean(second_log.read_text())
    _plain(output)
    assert re.search(r"another build is running in this tree \(make book, pid \d+, started [\d:]+\); waiting for it "
                     r"to finish \(at most 3600 s; SPECBOOK_LOCK_TIMEOUT sets how long\)", output), output
    assert "the other build finished after" in output
    assert "_build/html is current" in output  # it found the first one's work, and redid none of it
    assert _claims(book) == built[1]


def test_a_build_that_cannot_get_the_lock_in_time_gives_up_saying_why(book):
    with build_lock(book, "a test's build"):
        code, output = _make(book, "page", "PAGE=book/first.md", env={"SPECBOOK_LOCK_TIMEOUT": "1"}, timeout=60)
    assert code != 0
    assert re.search(r"gave up after waiting 1 s: another build is still running in this tree \(a test's build, "
                     r"pid \d+, started [\d:]+\)\. Let it finish or stop it, then run make page again", output), output
