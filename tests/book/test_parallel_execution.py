"""Pages re-execute exactly when their execution key changes (``specbook.execute``, ``specbook.keys``).

A page's key is its code cells, the module files under ``src/`` it imported, the project
files it read, and the environment record. The promises, on a small temporary book whose
first page imports ``tiny.shared`` and reads ``data/table.txt`` and whose second page
imports ``tiny.shared`` and ``tiny.second``:

- editing a module only one page imports re-runs that page alone, and its new output is
  in the HTML;
- editing a data file a page reads re-runs that page;
- editing a page's Markdown starts no kernel;
- changing the environment record re-runs every page;
- a false claim is named, and its page's old outputs are never shown;
- two shards executed in two processes, merged, build the book with no execution and no
  warning.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _pages import FRONT

from specbook import buildkey, execute, keys

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _page(title: str, imports: str, body: str) -> str:
    return FRONT + (
        f"\n# {title}\n\nSome prose about {title.lower()}.\n\n"
        f"```{{code-cell}} ipython3\nimport sys\nsys.path.insert(0, \"src\")\nimport specbook\n{imports}\n```\n\n"
        f"```{{code-cell}} ipython3\n{body}\n```\n"
    )


def _book(folder: Path) -> Path:
    (folder / "src" / "tiny").mkdir(parents=True)
    (folder / "data").mkdir()
    (folder / "src" / "tiny" / "__init__.py").write_text("")
    (folder / "src" / "tiny" / "shared.py").write_text("ONE = 1.0\n")
    (folder / "src" / "tiny" / "second.py").write_text("MARK = 'second-mark-1'\n")
    (folder / "src" / "tiny" / "unused.py").write_text("X = 0\n")
    (folder / "data" / "table.txt").write_text("first-data-1\n")
    # the fixture's second page has a check with no source on purpose (the ledger shows it as
    # "not stated"; one test turns the requirement on and watches the build name it)
    (folder / "_config.yml").write_text(
        (ROOT / "_config.yml").read_text().replace("specbook_require_source: true", "specbook_require_source: false"))
    (folder / "bibliography.bib").write_text((ROOT / "bibliography.bib").read_text())
    (folder / "_toc.yml").write_text("format: jb-book\nroot: first\nchapters:\n  - file: second\n"
                                     "  - file: prose\n  - file: claims\n")
    (folder / "first.md").write_text(_page(
        "First", "from tiny import shared\nimport scipy.linalg  # keyed by SciPy's version; the second page is not",
        'print(open("data/table.txt").read().strip())\n'
        'try:  # an optional file, absent at first\n'
        '    print(open("data/notes.txt").read().strip())\n'
        'except FileNotFoundError:\n'
        '    pass\n'
        'specbook.claim("first_one", shared.ONE, 1.0, atol=0.01, source=specbook.declared("tiny.shared.ONE"))'))
    (folder / "second.md").write_text(_page(
        "Second", "from tiny import shared, second",
        'print(second.MARK)\nspecbook.check("second_mark", second.MARK.startswith("second"), "the mark names its page")'))
    (folder / "prose.md").write_text("# Prose\n\nNo code here.\n")
    (folder / "claims.md").write_text("# Claims\n\n```{specbook-claims}\n```\n")
    return folder


def _clean(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900,
                          env={**os.environ, **(env or {})})
    return done.returncode, _clean(done.stdout + done.stderr)


def _execute(folder: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    return _run([sys.executable, "-m", "specbook.execute", "--root", str(folder), "--workers", "2", *extra],
                folder, env)


def _build(folder: Path) -> tuple[int, str]:
    shutil.rmtree(folder / "_build" / ".doctrees", ignore_errors=True)
    return _run([str(BIN / "jupyter-book"), "build", "-W", "-n", "--keep-going", str(folder)], folder)


def _reasons(output: str) -> dict[str, str]:
    """Each page's verdict, as the command printed it: ``{'first.md': 'cached', ...}``."""
    found = {}
    for line in output.splitlines():
        match = re.match(r"(?:specbook: )?(\S+\.md): (cached|re-ran \(.*?\)(?= in )|FAILED CLAIM '\w+')", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def _executions(build_output: str) -> int:
    return build_output.count("Executing notebook") + len(re.findall(r"\.md: re-ran", build_output))


# ---- fast: the pieces ----------------------------------------------------------------------

def test_toc_pages_are_the_notebooks_with_code_in_reading_order(tmp_path):
    book = _book(tmp_path)
    assert [p.name for p in execute.toc_pages(book)] == ["first.md", "second.md"]


def test_the_books_own_pages_with_code_are_all_found():
    pages = {p.relative_to(ROOT).as_posix() for p in execute.toc_pages(ROOT)}
    assert {"book/maddening/ball.md", "book/mime/contact.md", "book/mime/contact-hold.md",
            "book/notes/contact-mode-stability.md", "book/notes/penalty-checks.md"} <= pages


def test_slowest_pages_go_first_and_pages_sharing_programs_after_their_leader(tmp_path):
    assert execute.run_order(tmp_path, ["a.md", "b.md", "c.md"], {"b.md": 9.0, "c.md": 1.0}) == ["b.md", "a.md", "c.md"]
    assert execute.run_order(tmp_path, ["a.md", "b.md", "c.md"], {}) == ["a.md", "b.md", "c.md"]
    (tmp_path / "page-schedule.json").write_text(json.dumps({"seconds": {"a.md": 50.0, "b.md": 9.0, "c.md": 1.0},
                                                            "follows": {"b.md": ["a.md"]}}))
    assert execute.known_times(tmp_path) == {"a.md": 50.0, "b.md": 9.0, "c.md": 1.0}
    assert execute.run_order(tmp_path, ["a.md", "b.md", "c.md"], execute.known_times(tmp_path)) == ["a.md", "c.md", "b.md"]
    # a follower whose leader is not running this time is ranked as any other page
    assert execute.run_order(tmp_path, ["b.md", "c.md"], execute.known_times(tmp_path)) == ["b.md", "c.md"]
    # the times measured here win over the kept ones
    (tmp_path / "_build").mkdir()
    (tmp_path / "_build" / "page-seconds.json").write_text(json.dumps({"c.md": 70.0}))
    assert execute.known_times(tmp_path)["c.md"] == 70.0


def test_the_schedule_simulates_the_pools_order():
    times = {"a": 80.0, "b": 50.0, "c": 30.0, "d": 5.0}
    owner, ends = execute.schedule(list(times), times, 2, order=["a", "c", "d", "b"])
    assert owner == {"a": 0, "c": 1, "d": 1, "b": 1} and ends["b"] == 85.0
    assert execute.schedule(list(times), times, 2)[1]["b"] == 50.0  # longest first without an order


def test_shards_cover_every_page_once_and_balance_the_recorded_times():
    names = [f"p{i}.md" for i in range(7)]
    times = {"p0.md": 30.0, "p1.md": 20.0, "p2.md": 12.0, "p3.md": 9.0, "p4.md": 8.0, "p5.md": 2.0}
    shards = [execute.shard(names, times, k, 3) for k in (1, 2, 3)]
    assert sorted(sum(shards, [])) == sorted(names)  # p6 was never timed: it counts as the mean
    loads = [sum(times.get(p, sum(times.values()) / len(times)) for p in s) for s in shards]
    assert max(loads) - min(loads) <= max(times.values())
    assert loads[0] == 30.0  # the slowest page alone in the first shard
    assert shards == [execute.shard(names, times, k, 3) for k in (1, 2, 3)]  # the same on every runner
    for bad in ((0, 2), (3, 2), (1, 0)):
        with pytest.raises(ValueError, match="not allowed"):
            execute.shard(names, times, *bad)


def test_bad_arguments_are_refused_naming_them(capsys):
    for argv in (["--workers", "0"], ["--shard", "3/2"], ["--shard", "half"]):
        with pytest.raises(SystemExit):
            execute.main(argv)
    assert "--shard" in capsys.readouterr().err


def test_the_environment_record_holds_what_shapes_results():
    record = keys.environment_record({"JAX_ENABLE_X64": "1"})
    assert record["x64"] is True and keys.environment_record({})["x64"] is False
    assert record["jax"] and record["jaxlib"] and record["numpy"] and record["python"]
    assert keys.environment_record({"JAX_PLATFORMS": "cpu"})["jax_platforms"] == "cpu"


# JAX's settings that change what a page computes: each must key the page when set
SHAPING = ("JAX_DISABLE_JIT", "JAX_DEFAULT_MATMUL_PRECISION", "JAX_NUMPY_RANK_PROMOTION", "JAX_DEFAULT_PRNG_IMPL",
           "JAX_DEBUG_NANS", "JAX_DEBUG_INFS", "JAX_ENABLE_CHECKS", "JAX_NUMPY_DTYPE_PROMOTION",
           "JAX_THREEFRY_PARTITIONABLE", "JAX_DEFAULT_DTYPE_BITS", "JAX_SOFTMAX_CUSTOM_JVP")
# and the ones left out on purpose: where the compilation cache lives, logging, and the two the
# record keeps under its own names
NEUTRAL = ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
           "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "JAX_LOG_COMPILES", "JAX_LOGGING_LEVEL",
           "JAX_TRACEBACK_FILTERING", "JAX_EXPLAIN_CACHE_MISSES", "JAX_ENABLE_X64", "JAX_PLATFORMS")


@pytest.mark.parametrize("name", SHAPING)
def test_a_jax_setting_that_changes_results_keys_the_page(name):
    assert keys.environment_record({name: "1"})[name] == "1"


@pytest.mark.parametrize("name", NEUTRAL)
def test_a_jax_setting_that_changes_no_result_is_left_out_of_the_key(name):
    assert name not in keys.environment_record({name: "1"})


def test_why_stale_names_what_changed(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("A = 1\n")
    (tmp_path / "notes.txt").write_text("x\n")
    env = keys.environment_record({})
    files = keys.file_hashes(tmp_path, ["src/a.py", "notes.txt", "later.txt"])
    assert files["later.txt"] is None
    record = {"files": files, "environment": env, "distributions": {}}
    assert keys.why_stale(record, tmp_path, env) is None
    (tmp_path / "src" / "a.py").write_text("A = 2\n")
    assert keys.why_stale(record, tmp_path, env) == "src/a.py changed"
    (tmp_path / "notes.txt").unlink()
    (tmp_path / "later.txt").write_text("now\n")
    assert keys.why_stale(record, tmp_path, env) == "src/a.py changed; notes.txt removed; later.txt created"
    assert keys.why_stale(record, tmp_path, {**env, "jax": "0.0.1"}).startswith(
        f"environment changed: jax {env['jax']} -> 0.0.1")
    assert keys.why_stale(None, tmp_path, env) == "no record of what it used"
    for partial in ({"files": files}, {"environment": env}, {"distributions": {}}):  # an older or damaged record
        assert keys.why_stale(partial, tmp_path, env) == "no record of what it used"


def test_why_stale_names_a_distribution_whose_version_changed_and_a_variable_that_shapes_jax(tmp_path):
    env = keys.environment_record({})
    scipy = keys.installed_versions()["scipy"]
    record = {"files": {}, "environment": env, "distributions": {"scipy": scipy}}
    assert keys.why_stale(record, tmp_path, env) is None
    assert keys.why_stale({**record, "distributions": {"scipy": "0.0.1"}}, tmp_path, env) == (
        f"distribution changed: scipy 0.0.1 -> {scipy}")
    assert keys.why_stale({"files": {}, "environment": env}, tmp_path, env) == (
        "no record of the distributions it imported")
    flags = keys.environment_record({"XLA_FLAGS": "--xla_backend_optimization_level=0"})
    assert keys.why_stale(record, tmp_path, flags) == (
        "environment changed: XLA_FLAGS (unset) -> --xla_backend_optimization_level=0")
    for neutral in ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "JAX_LOG_COMPILES"):
        assert keys.environment_record({neutral: "1"}) == env, neutral  # where the cache lives changes no number
    assert "JAX_DEFAULT_MATMUL_PRECISION" in keys.environment_record({"JAX_DEFAULT_MATMUL_PRECISION": "highest"})


def test_the_recorder_sees_modules_under_src_and_files_read_not_written(tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("import json\n")
    (tmp_path / "src" / "pkg" / "lazy.py").write_text("Z = 1\n")
    (tmp_path / "data.csv").write_text("1,2\n")
    script = textwrap.dedent(f"""
        import importlib.util, json, sys
        spec = importlib.util.spec_from_file_location("_specbook_record", {str(ROOT / "src/specbook/_record.py")!r})
        rec = importlib.util.module_from_spec(spec); sys.modules["_specbook_record"] = rec; spec.loader.exec_module(rec)
        rec.start({str(tmp_path)!r})
        sys.path.insert(0, {str(tmp_path / "src")!r})
        import pkg
        open({str(tmp_path / "data.csv")!r}).read()
        open({str(tmp_path / "written.txt")!r}, "w").write("out")
        open("/etc/hostname").close() if __import__("os").path.exists("/etc/hostname") else None
        print(rec.report())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=True)
    used = json.loads(done.stdout.strip().splitlines()[-1])
    assert used["modules"] == ["src/pkg/__init__.py"]  # not lazy.py: never imported
    assert used["reads"] == ["data.csv"]  # not the file written, nothing outside the project


def test_the_build_key_changes_with_any_source_and_only_then(tmp_path):
    book = _book(tmp_path)
    (book / "book").mkdir()
    (book / "book" / "page.md").write_text("# A page\n")
    key = buildkey.build_key(book)
    assert buildkey.build_key(book) == key
    (book / "src" / "tiny" / "__pycache__").mkdir()
    (book / "src" / "tiny" / "__pycache__" / "shared.cpython-311.pyc").write_bytes(b"\0")
    assert buildkey.build_key(book) == key  # bytecode is no source
    (book / "_static").mkdir()
    (book / "_static" / "style.css").write_text("p {}\n")
    assert buildkey.build_key(book) != key  # the stylesheet every page loads
    key = buildkey.build_key(book)
    for edit in (book / "book" / "page.md", book / "src" / "tiny" / "unused.py", book / "_config.yml",
                 book / "_static" / "style.css"):
        edit.write_text(edit.read_text() + "\n# an edit\n")
        assert buildkey.build_key(book) != key, edit
        key = buildkey.build_key(book)
    for name in ("_toc.yml", "bibliography.bib", "pyproject.toml"):  # the other files at the root the build reads
        path = book / name
        path.write_text((path.read_text() if path.exists() else "") + "\n# an edit\n")
        assert buildkey.build_key(book) != key, name
        key = buildkey.build_key(book)
    # a file renamed with its bytes unchanged: a page's address or a module's name is what the build reads too
    (book / "src" / "tiny" / "unused.py").rename(book / "src" / "tiny" / "unused_too.py")  # in the same place in order
    assert buildkey.build_key(book) != key
    key = buildkey.build_key(book)
    # a fault run stored or run again: the kill matrix the ledger shows changes, so the site is not current
    run = book / "_build" / "faults" / "runs" / "a_fault" / "book_page.md.json"
    run.parent.mkdir(parents=True)
    run.write_text('{"claims": []}\n')
    assert buildkey.build_key(book) != key
    key = buildkey.build_key(book)
    run.write_text('{"claims": [{"key": "c", "holds": false}]}\n')
    assert buildkey.build_key(book) != key
    key = buildkey.build_key(book)
    assert buildkey.main(["check", "--root", str(book)]) == 1  # no site, no stored key
    assert buildkey.main(["write", "--root", str(book)]) == 1  # no site: nothing to vouch for
    (book / "_build" / "html").mkdir(parents=True)
    (book / "_build" / "html" / "index.html").write_text("")
    (book / "_build" / "html" / "claims.json").write_text('{"claims": []}')
    assert buildkey.main(["write", "--root", str(book)]) == 0
    assert buildkey.main(["check", "--root", str(book)]) == 0
    (book / "src" / "tiny" / "unused.py").write_text("X = 2\n")
    assert buildkey.main(["check", "--root", str(book)]) == 1


# ---- slow: the four re-execution promises, failures, shards --------------------------------

@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """The small book, executed once and built once: (folder, execute output, build output)."""
    folder = _book(tmp_path_factory.mktemp("keys") / "book")
    code, out = _execute(folder)
    assert code == 0, out
    code, built = _build(folder)
    assert code == 0, built[-3000:]
    return folder, out, built


@pytest.mark.slow
def test_first_run_executes_every_page_and_the_build_reads_them_all_from_the_cache(book):
    folder, out, built = book
    assert _reasons(out) == {"first.md": "re-ran (not in the cache)", "second.md": "re-ran (not in the cache)"}
    assert _executions(built) == 0 and built.count("Using cached notebook") == 2
    assert "WARNING:" not in built
    record = next(r for r in execute._cache(folder, None).list_cache_records() if r.uri == "first.md")
    used = record.data["specbook"]
    assert set(used["files"]) == {"src/tiny/__init__.py", "src/tiny/shared.py", "data/table.txt", "data/notes.txt"}
    assert used["files"]["data/notes.txt"] is None  # looked for and missed: keyed as absent
    assert used["environment"] == keys.environment_record()
    # the executed notebook a reader downloads carries the cached outputs (myst-nb 1.4 writes it without)
    executed = json.loads((folder / "_build" / "jupyter_execute" / "second.ipynb").read_text())
    assert any(cell.get("outputs") for cell in executed["cells"] if cell["cell_type"] == "code")


@pytest.mark.slow
def test_the_ledger_holds_every_claim_with_its_anchor_and_source(book):
    folder, _, _ = book
    ledger = json.loads((folder / "_build" / "html" / "claims.json").read_text())
    claims = {c["key"]: c for c in ledger["claims"]}
    assert set(claims) == {"first_one", "second_mark"}
    first = claims["first_one"]
    assert (first["page"], first["url"], first["measured"], first["expected"], first["atol"], first["holds"]) == (
        "first.md", "first.html#claim-first_one", 1.0, 1.0, 0.01, True)
    assert first["source"] == {"kind": "declaration", "ref": "tiny.shared.ONE"}
    assert claims["second_mark"]["source"] is None and claims["second_mark"]["description"]
    html = (folder / "_build" / "html" / "first.html").read_text()
    assert 'id="claim-first_one"' in html
    listing = (folder / "_build" / "html" / "claims.html").read_text()
    assert "first.html#claim-first_one" in listing and "second.html#claim-second_mark" in listing


@pytest.mark.slow
def test_editing_a_module_one_page_imports_reruns_that_page_alone_and_its_output_shows(book):
    folder, _, _ = book
    (folder / "src" / "tiny" / "second.py").write_text("MARK = 'second-mark-2'\n")
    code, out = _execute(folder)
    assert code == 0, out
    assert _reasons(out) == {"first.md": "cached", "second.md": "re-ran (src/tiny/second.py changed)"}
    code, built = _build(folder)
    assert code == 0, built[-3000:]
    assert _executions(built) == 0
    assert "second-mark-2" in (folder / "_build" / "html" / "second.html").read_text()
    # a module no page imports changes nothing
    (folder / "src" / "tiny" / "unused.py").write_text("X = 1\n")
    code, out = _execute(folder)
    assert _reasons(out) == {"first.md": "cached", "second.md": "cached"}


@pytest.mark.slow
def test_editing_a_data_file_a_page_reads_reruns_that_page(book):
    folder, _, _ = book
    (folder / "data" / "table.txt").write_text("first-data-2\n")
    code, out = _execute(folder)
    assert code == 0, out
    assert _reasons(out) == {"first.md": "re-ran (data/table.txt changed)", "second.md": "cached"}


@pytest.mark.slow
def test_a_file_created_where_a_page_missed_it_reruns_the_page_and_a_rerun_replaces_the_older_execution(
        book, tmp_path):
    """Two promises, in one run of the copied book:

    - the first page tries ``data/notes.txt``, absent when it ran: the file, once there, is something the
      page reads, so the page runs again and says why;
    - the cache keeps one execution per page: after the second page's code changes and it runs again, its
      older notebook (whose use record, timings and programs the schedule and the build read) is gone.
    """
    folder = tmp_path / "again"
    shutil.copytree(book[0], folder)
    (folder / "data" / "notes.txt").write_text("a note\n")
    page = folder / "second.md"
    page.write_text(page.read_text().replace("print(second.MARK)", "print(second.MARK, 'again')"))
    code, out = _execute(folder)
    assert code == 0, out
    assert _reasons(out) == {"first.md": "re-ran (data/notes.txt created)", "second.md": "re-ran (its code cells changed)"}
    uris = [r.uri for r in execute._cache(folder, None).list_cache_records()]
    assert sorted(uris) == ["first.md", "second.md"]


@pytest.mark.slow
def test_editing_markdown_starts_no_kernel(book):
    folder, _, _ = book
    page = folder / "first.md"
    page.write_text(page.read_text().replace("Some prose about first.", "Other prose about the first page."))
    code, out = _execute(folder)
    assert code == 0, out
    assert _reasons(out) == {"first.md": "cached", "second.md": "cached"}
    assert "all cached" in out
    code, built = _build(folder)  # the build itself executes nothing either
    assert code == 0, built[-3000:]
    assert _executions(built) == 0
    assert "Other prose about the first page." in (folder / "_build" / "html" / "first.html").read_text()


@pytest.mark.slow
def test_a_change_of_the_environment_record_reruns_every_page(book):
    folder, _, _ = book
    code, out = _execute(folder, env={"JAX_ENABLE_X64": "1"})
    assert code == 0, out
    reasons = _reasons(out)
    assert set(reasons) == {"first.md", "second.md"}
    assert all(r.startswith("re-ran (environment changed: x64 False -> True") for r in reasons.values()), reasons
    code, out = _execute(folder)  # and back
    assert all(r.startswith("re-ran (environment changed: x64 True -> False") for r in _reasons(out).values())


@pytest.mark.slow
def test_the_key_holds_the_distributions_the_page_imported_read_from_its_kernel(book):
    folder, _, _ = book
    records = {r.uri: r.data["specbook"] for r in execute._cache(folder, None).list_cache_records()}
    first, second = records["first.md"]["distributions"], records["second.md"]["distributions"]
    assert first["scipy"] == keys.installed_versions()["scipy"]
    assert "scipy" not in second  # what the page imported, not a fixed list
    assert "numpy" in first and "diffrax" not in first


def _plan(folder: Path) -> tuple[int, dict[str, str]]:
    import io

    out = io.StringIO()
    stale = execute.execute_pages(folder, report_only=True, out=out)
    verdicts = {}
    for line in out.getvalue().splitlines():
        match = re.match(r"(\S+\.md): (cached|to re-run \((.*)\))", line)
        if match:
            verdicts[match.group(1)] = match.group(3) or match.group(2)
    return stale, verdicts


@pytest.mark.slow
def test_plan_reports_a_page_stale_after_a_scipy_version_change(book, monkeypatch):
    folder, _, _ = book
    assert _plan(folder) == (0, {"first.md": "cached", "second.md": "cached"})
    installed = dict(keys.installed_versions())
    old = installed["scipy"]
    monkeypatch.setattr(keys, "installed_versions", lambda: {**installed, "scipy": "99.0.0"})  # an upgrade, simulated
    assert _plan(folder) == (1, {"first.md": f"distribution changed: scipy {old} -> 99.0.0", "second.md": "cached"})


@pytest.mark.slow
def test_plan_reports_every_page_stale_after_a_change_of_xla_flags(book, monkeypatch):
    folder, _, _ = book
    monkeypatch.setenv("XLA_FLAGS", "--xla_backend_optimization_level=0")
    reason = "environment changed: XLA_FLAGS (unset) -> --xla_backend_optimization_level=0"
    assert _plan(folder) == (2, {"first.md": reason, "second.md": reason})
    monkeypatch.delenv("XLA_FLAGS")
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(folder / "elsewhere"))  # changes no number
    assert _plan(folder) == (0, {"first.md": "cached", "second.md": "cached"})


@pytest.mark.slow
def test_a_false_claim_is_named_and_its_old_outputs_are_never_shown(book, tmp_path):
    folder = tmp_path / "broken"
    shutil.copytree(book[0], folder)
    (folder / "src" / "tiny" / "shared.py").write_text("ONE = 2.0\n")
    code, out = _execute(folder)
    assert code == 1
    assert _reasons(out) == {"first.md": "FAILED CLAIM 'first_one'", "second.md": "re-ran (src/tiny/shared.py changed)"}
    code, built = _build(folder)  # the cached first page no longer holds: the build must not show it
    assert code != 0
    assert "first_one" in built and "ClaimError" in built


@pytest.mark.slow
def test_a_claim_without_a_source_fails_the_build_once_sources_are_required(book, tmp_path):
    folder = tmp_path / "strict"
    shutil.copytree(book[0], folder)
    config = folder / "_config.yml"
    config.write_text(config.read_text().replace("specbook_require_source: false", "specbook_require_source: true"))
    code, built = _build(folder)
    assert code != 0
    assert "second.md: second_mark" in built and "first_one" not in built.split("specbook_require_source")[-1]


@pytest.mark.slow
def test_two_shards_in_two_processes_merge_into_a_cache_the_build_reads_without_executing(tmp_path):
    folder = _book(tmp_path / "sharded")
    shards = []
    for k in (1, 2):
        shards.append(subprocess.Popen(
            [sys.executable, "-m", "specbook.execute", "--root", str(folder), "--shard", f"{k}/2",
             "--cache", str(tmp_path / f"shard-{k}")],
            cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    outputs = [_clean(p.communicate(timeout=900)[0]) for p in shards]
    assert [p.returncode for p in shards] == [0, 0], outputs
    ran = [set(_reasons(o)) for o in outputs]
    assert ran[0] | ran[1] == {"first.md", "second.md"} and not ran[0] & ran[1]
    code, out = _execute(folder, "--merge", str(tmp_path / "shard-1"), str(tmp_path / "shard-2"))
    assert code == 0, out
    code, built = _build(folder)
    assert code == 0, built[-3000:]
    assert _executions(built) == 0, built[-3000:]
    assert "WARNING:" not in built
    assert built.count("Using cached notebook") == 2
    assert len(json.loads((folder / "_build" / "html" / "claims.json").read_text())["claims"]) == 2


@pytest.mark.slow
def test_the_build_alone_runs_a_stale_page_beside_reading_the_others_and_reads_it_last(book, tmp_path):
    folder = tmp_path / "alone"
    shutil.copytree(book[0], folder)
    (folder / "src" / "tiny" / "second.py").write_text("MARK = 'second-mark-3'\n")
    code, built = _build(folder)
    assert code == 0, built[-3000:]
    assert _reasons(built) == {"first.md": "cached", "second.md": "re-ran (src/tiny/second.py changed)"}
    assert built.count("Executing notebook") == 0  # specbook ran it; myst-nb found it in the cache
    read = re.findall(r"reading sources\.\.\. \[\s*\d+%\] (\S+)", built)
    assert read[-1] == "second", read  # the others were read while it ran
    assert "second-mark-3" in (folder / "_build" / "html" / "second.html").read_text()
    assert "WARNING:" not in built


@pytest.mark.slow
def test_the_build_alone_fails_on_a_false_claim_and_never_shows_the_old_outputs(book, tmp_path):
    folder = tmp_path / "alone-broken"
    shutil.copytree(book[0], folder)
    (folder / "src" / "tiny" / "shared.py").write_text("ONE = 2.0\n")
    code, built = _build(folder)
    assert code != 0
    assert _reasons(built)["first.md"] == "FAILED CLAIM 'first_one'"
    assert "first_one" in built and "ClaimError" in built
