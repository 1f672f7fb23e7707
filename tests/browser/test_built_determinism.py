"""Every page, twice: the values the strict build glued against a second, independent run.

The second run is the nbval run of the same ``make test`` when it left a record
(``_build/nbval_glue/<page>.json``, holding the hashes of the page's text and of every file
under ``src/``) and neither has changed since, else a fresh
execution here, in its own kernel, of the page's text as the build read it
(``_build/html/_sources``). Either way each page has been run
twice, and every glued value must be identical: the glued text is the ``repr`` of
a float, so equal text is equal bits. Opt-in with the browser tests (after the build).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache

import pytest
from book_pages import ROOT, built_source, execute_page, glued_values, notebook_glue, toc_pages

from specbook.keys import source_hashes

PAGES = toc_pages()


@lru_cache(maxsize=1)
def _code() -> dict:
    """The hashes of ``src/`` now, read once for all pages (the build is done; nothing edits it)."""
    return source_hashes(ROOT)


def _second_run(book_html, doc: str) -> tuple[str, dict]:
    source = built_source(book_html, doc)  # the text the build ran
    record = book_html.parent / "nbval_glue" / f"{doc}.json"
    if record.exists():
        saved = json.loads(record.read_text(encoding="utf-8"))
        if (saved.get("source_sha256") == hashlib.sha256(source.read_bytes()).hexdigest()
                and saved.get("code") == _code()):
            return "the nbval run", saved["glue"]
    return "a fresh run", notebook_glue(execute_page(source, cwd=(ROOT / doc).parent))


@pytest.mark.parametrize("doc", PAGES)
def test_the_build_and_a_second_run_glue_identical_values(book_html, doc):
    built = {key: value["data"] for key, value in glued_values(book_html.parent, doc).items()}
    if not built:
        pytest.skip(f"{doc} glues nothing")
    where, again = _second_run(book_html, doc)
    assert built.keys() == again.keys(), f"{doc}: glue keys differ between the build and {where}"
    differ = {key: (built[key], again[key]) for key in built if built[key] != again[key]}
    assert not differ, f"{doc}: the build and {where} glued different values: {differ}"
