"""``make book``'s parallel pre-execution (``python -m specbook.execute``) and its cache guard.

The pages are executed several at once into ``_build/.jupyter_cache``; the strict build
then reads them from there. Three promises are checked on a small temporary book:

- every page the build reads comes from the cache (none is executed twice);
- a false claim fails the pre-execution, naming the claim, and leaves no stamp;
- a cache made from other sources (a file of ``src/`` changed, cells unchanged) is never
  read: the build empties it and executes the page, so a claim cannot go unchecked.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _pages import FRONT

from specbook import execute

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _page(title: str, expected: str) -> str:
    return FRONT + textwrap.dedent(
        f"""
        # {title}

        ```{{code-cell}} ipython3
        import specbook
        specbook.claim("{title.lower()}_value", 1.0, {expected}, atol=0.01)
        ```
        """
    )


def _book(folder: Path, expected_second: str = "1.0") -> Path:
    (folder / "src" / "tiny").mkdir(parents=True)
    (folder / "src" / "tiny" / "__init__.py").write_text("VALUE = 1.0\n")
    (folder / "_config.yml").write_text((ROOT / "_config.yml").read_text())
    (folder / "bibliography.bib").write_text((ROOT / "bibliography.bib").read_text())
    (folder / "_toc.yml").write_text("format: jb-book\nroot: first\nchapters:\n  - file: second\n  - file: prose\n")
    (folder / "first.md").write_text(_page("First", "1.0"))
    (folder / "second.md").write_text(_page("Second", expected_second))
    (folder / "prose.md").write_text("# Prose\n\nNo code here.\n")
    return folder


def _run(command: list[str], cwd: Path) -> tuple[int, str]:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    return done.returncode, re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)


def _execute(folder: Path) -> tuple[int, str]:
    return _run([sys.executable, "-m", "specbook.execute", "--root", str(folder), "--workers", "2"], folder)


def _build(folder: Path) -> tuple[int, str]:
    return _run([str(BIN / "jupyter-book"), "build", "-W", "-n", "--keep-going", str(folder)], folder)


def test_toc_pages_are_the_notebooks_with_code_in_reading_order(tmp_path):
    book = _book(tmp_path)
    assert [p.name for p in execute.toc_pages(book)] == ["first.md", "second.md"]


def test_the_books_own_pages_with_code_are_all_found():
    pages = {p.relative_to(ROOT).as_posix() for p in execute.toc_pages(ROOT)}
    assert {"book/maddening/ball.md", "book/mime/contact.md", "book/notes/contact-mode-stability.md"} <= pages


def test_the_source_key_follows_src_and_ignores_bytecode(tmp_path):
    book = _book(tmp_path)
    key = execute.source_key(book)
    assert execute.source_key(book) == key
    (book / "src" / "tiny" / "__pycache__").mkdir()
    (book / "src" / "tiny" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    assert execute.source_key(book) == key
    (book / "src" / "tiny" / "__init__.py").write_text("VALUE = 2.0\n")
    assert execute.source_key(book) != key


def test_slowest_pages_of_the_last_run_go_first():
    pages = [Path("a.md"), Path("b.md"), Path("c.md")]
    assert execute._order(pages, {"b.md": 9.0, "c.md": 1.0}) == [Path("b.md"), Path("c.md"), Path("a.md")]
    assert execute._order(pages, {}) == pages


def test_workers_must_be_at_least_one():
    with pytest.raises(SystemExit):
        execute.main(["--workers", "0"])


@pytest.mark.slow
def test_the_build_reads_every_page_from_the_cache_and_a_stale_cache_is_never_read(tmp_path):
    book = _book(tmp_path)
    code, out = _execute(book)
    assert code == 0, out
    assert "2 of 2 pages executed" in out
    assert execute.stamp_matches(book / "_build" / ".jupyter_cache", book)

    code, out = _build(book)
    assert code == 0, out[-3000:]
    assert out.count("Using cached notebook") == 2 and "Executing notebook" not in out
    assert "WARNING:" not in out
    # the executed notebook a reader downloads carries the cached outputs (myst-nb 1.4 writes it without)
    executed = json.loads((book / "_build" / "jupyter_execute" / "second.ipynb").read_text())
    assert any(cell.get("outputs") for cell in executed["cells"] if cell["cell_type"] == "code")

    # the page's cells are unchanged, but the code it imports changed: the cache must not be read
    (book / "src" / "tiny" / "__init__.py").write_text("VALUE = 2.0\n")
    assert not execute.stamp_matches(book / "_build" / ".jupyter_cache", book)
    (book / "_build" / "html").mkdir(exist_ok=True)
    code, out = _run([str(BIN / "jupyter-book"), "build", "--all", "-W", "-n", "--keep-going", str(book)], book)
    assert code == 0, out[-3000:]
    assert "not made from these sources" in out
    assert out.count("Executing notebook") == 2 and "Using cached notebook" not in out


@pytest.mark.slow
def test_a_false_claim_fails_the_pre_execution_naming_it_and_leaves_no_stamp(tmp_path):
    book = _book(tmp_path, expected_second="2.0")
    code, out = _execute(book)
    assert code == 1
    assert "second.md: FAILED CLAIM 'second_value'" in out
    assert "1 of 2 pages executed" in out
    assert not (book / "_build" / ".jupyter_cache" / execute.STAMP).exists()
