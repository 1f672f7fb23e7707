"""The pieces that keep the build's state sound between builds (``tests/book/test_build_faults.py`` runs them whole).

- ``specbook._atomic``: a write cut short leaves the old file and no temporary one;
- ``specbook._cache``: a damaged cache database is moved aside, whole, to a dated folder;
  one that cannot be moved gives a message that says what to do;
- ``specbook.buildkey``: the key vouches only for a site that is all there and unchanged;
- ``specbook.buildlock``: a build started by a locked build runs at once; a wait that runs
  out gives up saying why; what runs under the lock returns its own exit status;
- ``specbook._failure``: a failed cell is named by its page, line and number.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from specbook import _atomic, _cache, _failure, buildkey, buildlock


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary_one(tmp_path, monkeypatch):
    target = _atomic.write_text(tmp_path / "claims.json", "old\n")

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _atomic.write_text(target, "new, but cut short\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["claims.json"]


def _cache_with_a_page(folder: Path):
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(str(folder))
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1", execution_count=1)])
    cache.cache_notebook_bundle(CacheBundleIn(notebook, "page.md"), check_validity=False)
    cache.db.dispose()
    return cache


def test_a_damaged_cache_database_is_moved_aside_whole(tmp_path, capsys):
    folder = tmp_path / ".jupyter_cache"
    _cache_with_a_page(folder)
    database = folder / "global.db"
    damaged = database.read_bytes()[: database.stat().st_size // 3]
    database.write_bytes(damaged)
    cache = _cache.open_cache(folder)
    assert cache.list_cache_records() == []  # a fresh cache
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(".jupyter_cache.damaged-")]
    assert len(aside) == 1 and (aside[0] / "global.db").read_bytes() == damaged
    assert len(list((aside[0] / "executed").glob("*/base.ipynb"))) == 1
    said = capsys.readouterr().out
    assert "cannot be read (" in said and f"moved aside to {aside[0]}" in said


def test_a_cache_that_cannot_be_moved_aside_says_what_to_do(tmp_path, monkeypatch):
    folder = tmp_path / ".jupyter_cache"
    _cache_with_a_page(folder)
    (folder / "global.db").write_bytes(b"not a database" * 100)

    def refused(source, target):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "rename", refused)
    with pytest.raises(_cache.CacheUnusable, match=r"file is not a database\), and it could not be moved aside "
                                                   r"\(Permission denied\)\. Move or delete .* yourself"):
        _cache.open_cache(folder)


def test_a_sound_cache_is_left_as_it_is(tmp_path):
    folder = tmp_path / ".jupyter_cache"
    _cache_with_a_page(folder)
    cache = _cache.open_cache(folder)
    record = cache.list_cache_records()[0]
    assert _cache.notebook_problem(cache, record, 1) is None
    assert _cache.notebook_problem(cache, record, 2) == "its cached notebook is damaged (its cells do not match the page's)"
    notebook = folder / "executed" / record.hashkey / "base.ipynb"
    notebook.write_text(notebook.read_text()[:50])
    assert _cache.notebook_problem(cache, record, 1).startswith("its cached notebook is damaged (")
    notebook.unlink()
    assert _cache.notebook_problem(cache, record, 1) == "its cached notebook is missing"
    _cache.forget(cache, record.pk)  # its file is gone: the record goes all the same
    assert cache.list_cache_records() == []


def _site(root: Path) -> Path:
    (root / "book").mkdir()
    (root / "book" / "page.md").write_text("# A page\n")
    site = root / "_build" / "html"
    site.mkdir(parents=True)
    (site / "index.html").write_text("<html></html>\n")
    (site / "claims.json").write_text(json.dumps({"version": 1, "pages": [], "claims": []}))
    return site


def test_the_build_key_vouches_only_for_a_site_that_is_all_there(tmp_path, capsys):
    site = _site(tmp_path)
    assert buildkey.main(["write", "--root", str(tmp_path)]) == 0
    assert buildkey.main(["check", "--root", str(tmp_path)]) == 0
    (site / "index.html").write_text("<html>half")
    assert buildkey.main(["check", "--root", str(tmp_path)]) == 1
    assert "_build/html/index.html changed since the build that wrote it" in capsys.readouterr().out
    assert not (tmp_path / buildkey.KEY_FILE).exists()  # a key that vouched for nothing is dropped
    (site / "index.html").write_text("<html></html>\n")
    assert buildkey.main(["write", "--root", str(tmp_path)]) == 0
    (site / "claims.json").unlink()
    assert buildkey.main(["check", "--root", str(tmp_path)]) == 1
    assert "_build/html/claims.json is missing" in capsys.readouterr().out


def test_a_key_from_an_older_version_or_damaged_means_building_again(tmp_path, capsys):
    _site(tmp_path)
    key = tmp_path / buildkey.KEY_FILE
    for stored in (buildkey.build_key(tmp_path) + "\n", "\xff\x00", json.dumps({"key": "abc"})):
        key.write_text(stored, errors="surrogateescape")
        assert buildkey.main(["check", "--root", str(tmp_path)]) == 1
        assert "is damaged or from an older version" in capsys.readouterr().out


def test_no_key_is_written_for_a_build_that_left_no_readable_ledger(tmp_path, capsys):
    site = _site(tmp_path)
    (site / "claims.json").write_text('{"claims": ')
    assert buildkey.main(["write", "--root", str(tmp_path)]) == 1
    assert "no key written: the build left no readable claim ledger" in capsys.readouterr().err
    assert not (tmp_path / buildkey.KEY_FILE).exists()


def _locked(root: Path, *command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != buildlock.ENVIRONMENT}
    return subprocess.run([sys.executable, "-m", "specbook.buildlock", "--root", str(root), "--for", "make x", "--",
                           *command], capture_output=True, text=True, timeout=60, env={**environ, **(env or {})})


def test_a_build_started_by_a_locked_build_runs_at_once(tmp_path):
    inner = [sys.executable, "-m", "specbook.buildlock", "--root", str(tmp_path), "--", sys.executable, "-c",
             "import os; print(os.environ['SPECBOOK_BUILD_LOCK'])"]
    done = _locked(tmp_path, *inner, env={"SPECBOOK_LOCK_TIMEOUT": "2"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith(str(tmp_path / buildlock.LOCK_FILE) + ":")
    assert "waiting" not in done.stderr


def test_the_lock_passes_on_the_exit_status_and_refuses_a_bad_wait(tmp_path):
    assert _locked(tmp_path, sys.executable, "-c", "raise SystemExit(7)").returncode == 7
    done = _locked(tmp_path, "true", env={"SPECBOOK_LOCK_TIMEOUT": "soon"})
    assert done.returncode == 2
    assert "SPECBOOK_LOCK_TIMEOUT = 'soon' is not allowed; expected a number of seconds, 0 or more" in done.stderr


def test_a_lock_held_elsewhere_is_waited_for_then_given_up_on(tmp_path):
    with buildlock.build_lock(tmp_path, "make book"):
        done = _locked(tmp_path, "true", env={"SPECBOOK_LOCK_TIMEOUT": "0.5"})
    assert done.returncode == buildlock.GAVE_UP
    assert "another build is running in this tree (make book, pid" in done.stderr
    assert "gave up after waiting 0.5 s" in done.stderr and "then run make x again" in done.stderr
    assert _locked(tmp_path, "true").returncode == 0  # released with the block


PAGE = "# T\n\n```{code-cell} ipython3\nimport time\n```\n\nProse.\n\n```{code-cell} ipython3\ntime.sleep(9)\n```\n"


def test_a_failed_cell_is_named_by_its_page_line_and_number():
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    timed_out = _failure.describe("book/t.md", PAGE, 1, CellTimeoutError("timed out"), 5)
    assert timed_out.headline.startswith("book/t.md, line 9, code cell 2: still running after the execution "
                                         "timeout of 5 s, so its kernel was stopped.")
    assert timed_out.where == "line 9, code cell 2"
    raised = CellExecutionError("the cell's report", "ClaimError", "claim 'x' failed: measured 2")
    failure = _failure.describe("book/t.md", PAGE, 0, raised, 5)
    assert failure.headline == "book/t.md, line 3, code cell 1: ClaimError: claim 'x' failed: measured 2"
    assert failure.message().endswith("\nthe cell's report")
    unknown = _failure.describe("book/t.md", PAGE, None, RuntimeError("no kernel\nat all"), 5)
    assert unknown.headline == "book/t.md: the page could not run (RuntimeError: no kernel at all)"


def test_the_execution_timeout_is_the_books(tmp_path):
    from specbook.execute import timeout_of

    assert timeout_of(tmp_path) == 600  # no _config.yml
    (tmp_path / "_config.yml").write_text("execute:\n  timeout: 5\n")
    assert timeout_of(tmp_path) == 5
    (tmp_path / "_config.yml").write_text("execute:\n  timeout: 5\nsphinx:\n  config:\n    nb_execution_timeout: 7\n")
    assert timeout_of(tmp_path) == 7  # as in the build, Sphinx's own setting wins


def test_a_failed_cell_the_page_has_no_fence_for_is_named_by_its_number_alone():
    unknown = _failure.describe("book/t.md", PAGE, 2, RuntimeError("gone"), 5)
    assert unknown.headline == "book/t.md, code cell 3: the page could not run (RuntimeError: gone)"


def test_a_failed_cells_headline_has_no_terminal_colours_and_names_no_made_up_timeout():
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    raised = CellExecutionError("report", "\x1b[0;31mClaimError\x1b[0m", "claim \x1b[1m'x'\x1b[0m failed")
    assert _failure.describe("book/t.md", PAGE, 0, raised, 5).headline == (
        "book/t.md, line 3, code cell 1: ClaimError: claim 'x' failed")
    timed_out = _failure.describe("book/t.md", PAGE, 1, CellTimeoutError("timed out"), None)
    assert "still running after the execution timeout, so its kernel was stopped" in timed_out.headline
