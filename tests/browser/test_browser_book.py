"""Every page of the table of contents, as a reader's browser meets it.

Opt-in (``pytest tests/browser --browser``), after the strict build: see conftest.py.
Each test names the page it judges; the failure message quotes what the browser saw.
"""

from __future__ import annotations

import ast
import html
import re
import urllib.error
import urllib.request
from collections import Counter
from functools import lru_cache

import pytest
from book_pages import built_source, format_glue_text, glued_values, page_references, toc_pages
from browser_visit import front_door, next_walk
from reader_defects import SCREENS, rounded_to_zero

from specbook._api_values import WIDEST

PAGES = toc_pages()
# Text a reader must never see: a glue or role that failed to render.
_BROKEN_TEXT = ("{glue", "No key ", "unknown glue", "glue data for this document", "Failed to format")


@pytest.mark.parametrize("doc", PAGES)
def test_page_loads_without_console_errors(visit, doc):
    report = visit(doc)
    assert report.status == 200, f"{report.url}: HTTP {report.status}"
    assert not report.page_errors, f"{doc}: uncaught script errors {report.page_errors}"
    assert not report.console_errors, f"{doc}: console errors {report.console_errors}"


@pytest.mark.parametrize("doc", PAGES)
def test_no_failed_request_and_none_leaves_the_machine(visit, doc):
    report = visit(doc)
    assert not report.failed_requests, f"{doc}: failed requests {report.failed_requests}"
    assert not report.refused_requests, f"{doc}: requests to another host {report.refused_requests}"


@pytest.mark.parametrize("doc", PAGES)
def test_no_executed_cell_shows_an_error(visit, doc):
    page = visit(doc).page
    assert not page["errorOutputs"], f"{doc}: error output in executed cells {page['errorOutputs']}"
    assert not page["systemMessages"], f"{doc}: rendering errors shown to the reader {page['systemMessages']}"


@pytest.mark.parametrize("doc", PAGES)
def test_every_glued_value_is_shown(visit, book_html, doc):
    page = visit(doc).page
    references = page_references(built_source(book_html, doc))
    glued = glued_values(book_html.parent, doc)
    missing = sorted({g.key for g in references.glue if g.key not in glued})
    assert not missing, f"{doc}: the prose glues keys the page never glued: {missing}"
    expected = Counter(
        format_glue_text(glued[g.key]["data"]["text/plain"], g.spec) for g in references.glue_text
    )
    shown = Counter(page["pasted"])
    absent = expected - shown
    assert not absent, f"{doc}: glued values not on the page: {dict(absent)} (shown: {dict(shown)})"
    leaked = [text for text in _BROKEN_TEXT if text in page["prose"]]
    assert not leaked, f"{doc}: the prose shows broken glue text {leaked}"


@pytest.mark.parametrize("doc", PAGES)
def test_no_glued_number_is_shown_rounded_to_zero(book_html, doc):
    glued = glued_values(book_html.parent, doc)
    zeros = []
    for g in page_references(built_source(book_html, doc)).glue_text:
        if g.key in glued:
            value = glued[g.key]["data"]["text/plain"]
            shown = format_glue_text(value, g.spec)
            if rounded_to_zero(value, shown):
                zeros.append(f"{g.key} = {value} shown as {shown!r} (format {g.spec!r})")
    assert not zeros, f"{doc}: non-zero values the prose shows as zero: {zeros}"


@pytest.mark.parametrize("doc", PAGES)
def test_math_is_typeset_by_the_books_own_mathjax(visit, book_server, book_html, doc):
    report = visit(doc)
    page = report.page
    written = page_references(built_source(book_html, doc)).math
    if not page["math"] and not written:
        pytest.skip(f"{doc} has no math")
    assert page["mathJax"], f"{doc}: MathJax did not load"
    local = f"{book_server}/_static/mathjax/"
    assert page["mathScripts"] and all(src.startswith(local) for src in page["mathScripts"]), (
        f"{doc}: MathJax is not served from the book: {page['mathScripts']}")
    foreign = [url for url in report.requested if "mathjax" in url.lower() and not url.startswith(local)]
    assert not foreign, f"{doc}: MathJax reached outside the book {foreign}"
    assert len(page["math"]) >= written, f"{doc}: {written} formulas written, {len(page['math'])} rendered as math"
    untypeset = [m["tex"] for m in page["math"] if not m["typeset"]]
    errors = [m["tex"] for m in page["math"] if m["error"]]
    assert not untypeset, f"{doc}: math left untypeset {untypeset}"
    assert not errors, f"{doc}: MathJax could not typeset {errors}"


@pytest.mark.parametrize("doc", PAGES)
def test_every_image_loads(visit, doc):
    broken = [img for img in visit(doc).page["images"]
              if not (img["complete"] and img["width"] > 0 and img["height"] > 0)]
    assert not broken, f"{doc}: images that did not load {broken}"


@lru_cache(maxsize=None)
def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.mark.parametrize("doc", PAGES)
def test_every_link_within_the_book_resolves(visit, book_server, doc):
    links = {link.split("#", 1)[0] for link in visit(doc).page["links"] if link.startswith(book_server)}
    broken = sorted(link for link in links if _status(link) != 200)
    assert not broken, f"{doc}: links to missing files {broken}"


@pytest.mark.parametrize("doc", PAGES)
def test_a_screenshot_is_saved(visit, doc):
    shot = visit(doc).screenshot
    assert shot is not None and shot.exists(), f"{doc}: no screenshot"
    head = shot.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{shot} is not a PNG"
    width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    assert width >= 800 and height >= 300, f"{shot}: {width}x{height}"
    report = visit(doc)
    if report.screenshot_cropped:  # only a page taller than the limit, and then exactly its first screens
        screens = SCREENS * report.layout["screen"]
        assert report.layout["height"] > screens and height == screens, f"{shot}: {width}x{height}"


def test_the_sidebar_reaches_every_page(visit, book_server):
    """The navigation of the landing page links every page of the table of contents."""
    nav = {link.split("#", 1)[0] for link in visit(PAGES[0]).page["nav"]}
    nav.add(visit(PAGES[0]).url)
    unreachable = [doc for doc in PAGES if f"{book_server}/{doc}.html" not in nav]
    assert not unreachable, f"pages the sidebar does not reach: {unreachable}"


def test_next_links_walk_the_whole_book_in_order(chromium, book_server, visit):
    """From the front door (index.html), "next" visits every page, in TOC order.

    The front door is opened and its page's "next" clicked in the browser; from there the walk
    follows the "next" link each page's visit read from the rendered page (``a.right-next``),
    so no page is loaded twice.
    """
    expected = [f"{book_server}/{doc}.html" for doc in PAGES]
    landed, clicked = front_door(chromium, book_server, "index.html")
    assert landed == expected[0], f"the front door leads to {landed}, not the first page"
    assert clicked == (expected[1] if len(expected) > 1 else None), f"clicking next on {landed} reached {clicked}"
    by_url = {f"{book_server}/{doc}.html": doc for doc in PAGES}
    walked = next_walk(landed, lambda url: visit(by_url[url]).page["next"] if url in by_url else None)
    assert walked == expected


def test_the_landing_summary_shows_every_claiming_page_holding(chromium, book_server, book_html):
    """The landing page's summary: a row per page that makes claims, and the whole book holding."""
    pages_with_claims = {doc for doc in PAGES if (book_html.parent / "jupyter_execute" / f"{doc}.ipynb").exists()
                         and '"application/vnd.specbook.claims+json"' in
                         (book_html.parent / "jupyter_execute" / f"{doc}.ipynb").read_text(encoding="utf-8")}
    context = chromium.new_context(service_workers="block")
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(book_server) else r.abort())
    page = context.new_page()
    try:
        page.goto(f"{book_server}/{PAGES[0]}.html", wait_until="load")
        rows = page.locator("table.specbook-summary tbody tr")
        cells = [rows.nth(i).locator("td").all_inner_texts() for i in range(rows.count())]
        hrefs = [rows.nth(i).locator("a").first.evaluate("a => a.href") for i in range(rows.count() - 1)]
    finally:
        context.close()
    assert cells, "the landing page has no summary table"
    total = cells[-1]
    assert total[0].strip() == "Whole book" and total[3].strip() == "✓", f"summary total row {total}"
    assert int(total[1]) == int(total[2]) > 0, f"summary total row {total}"
    listed = {href.split("#", 1)[0].removeprefix(book_server + "/").removesuffix(".html") for href in hrefs}
    assert pages_with_claims <= listed, f"pages with claims missing from the summary: {pages_with_claims - listed}"
    assert sum(int(row[1]) for row in cells[:-1]) == int(total[1])


def _claims_made(book_html, doc: str) -> int | None:
    """How many claims the page's last claims table carried in the build (None: it displayed none)."""
    import json

    notebook = book_html.parent / "jupyter_execute" / f"{doc}.ipynb"
    if not notebook.exists():
        return None
    count = None
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {}).get("application/vnd.specbook.claims+json")
            if data is not None:
                count = int(data["count"])
    return count


@pytest.mark.parametrize("doc", PAGES)
def test_a_page_that_claims_ends_with_its_claims_table(visit, book_html, doc):
    source = built_source(book_html, doc).read_text(encoding="utf-8")
    claims = _claims_made(book_html, doc)
    if claims is None and "specbook.claim(" not in source and "specbook.check(" not in source:
        pytest.skip(f"{doc} makes no claims")
    table = visit(doc).page["lastCellTable"]
    assert table is not None, f"{doc}: its last code cell shows no claims table"
    assert table["header"] == ["Claim", "Expected", "Measured", "Tolerance", "Holds"], (
        f"{doc}: its last code cell shows a table that is not the claims table: {table['header']}")
    assert claims is not None and table["rows"] == claims, (
        f"{doc}: the claims table shows {table['rows']} rows for {claims} claims")


_VALUE = re.compile(r'<em class="property"><span class="w"> </span><span class="p"><span class="pre">=</span></span>(.*?)</em>',
                    re.S)


@pytest.mark.parametrize("doc", PAGES)
def test_an_api_entry_shows_a_value_only_when_it_is_short(book_html, doc):
    """An API entry's header shows its constant's value only when it reads as a short literal
    (``specbook._api_values``): never a tuple of records, a dict of classes or an object's ``repr``."""
    text = (book_html / f"{doc}.html").read_text(encoding="utf-8")
    shown = [html.unescape(re.sub(r"<[^>]+>", "", v)).strip() for v in _VALUE.findall(text)]
    if doc == "book/mime/api":  # the pattern still finds the values autodoc writes (else every page passes)
        assert len(shown) >= 10, shown
    bad = [v for v in shown if len(v) > WIDEST or not _literal(v)]
    assert not bad, f"{doc}: API values a reader has to climb over: {[v[:120] for v in bad]}"


def _literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return False
    return True
