"""The Claims page as a reviewer uses it: a summary first, then a table DataTables filters and sorts.

Opt-in (``pytest tests/browser --browser``), after the strict build: see conftest.py. The page is
served from the built site alone (no request leaves the machine: DataTables is vendored), and
the tests drive its controls as a reader would: choose a page, choose a source kind, type a
word, sort by the tolerance used.
"""

from __future__ import annotations

import json

import pytest

CLAIMS_DOC = "book/claims"


@pytest.fixture
def claims_page(chromium, book_server):
    """The Claims page open in a fresh browser context that refuses every other host; yields (page, refused)."""
    context = chromium.new_context(service_workers="block", viewport={"width": 1280, "height": 900})
    refused: list[str] = []

    def route(r):
        if r.request.url.startswith(book_server):
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{book_server}/{CLAIMS_DOC}.html", wait_until="load")
    page.wait_for_selector("#specbook-claims-table[data-ready='true']", timeout=15000)
    try:
        yield page, refused, errors
    finally:
        context.close()


def _ledger(book_html) -> dict:
    return json.loads((book_html / "claims.json").read_text(encoding="utf-8"))


def _rows(page) -> list[dict]:
    """The table rows DataTables shows now: the claim, its page, its visible text and the tolerance used."""
    return page.evaluate("""() => [...document.querySelectorAll('#specbook-claims-table tbody tr')]
        .filter(tr => tr.dataset.claim)
        .map(tr => ({claim: tr.dataset.claim, page: tr.querySelector('.specbook-claim-page').innerText.trim(),
                     text: tr.innerText, used: Number(tr.querySelector('td.specbook-used').dataset.order)}))""")


def _info(page) -> str:
    return page.locator(".dt-info").first.inner_text()


def test_the_page_opens_with_its_summary_and_works_offline(claims_page, book_html):
    page, refused, errors = claims_page
    assert not refused, f"requests to another host: {refused}"
    assert not errors, f"script errors: {errors}"
    headline = page.locator(".specbook-claims-headline").inner_text()
    ledger = _ledger(book_html)
    counted = [c for c in ledger["claims"] if not c["example"]]
    proven = sum(bool(c["killed_by"]) for c in counted)
    assert f"{proven} of {len(counted)} are proven able to fail" in headline, headline
    for table in ("specbook-by-page", "specbook-by-source", "specbook-by-outcome", "specbook-least-margin"):
        assert page.locator(f"table.{table}").count() == 1, f"the summary has no {table} table"
    summary_top = page.locator("table.specbook-by-page").bounding_box()["y"]
    table_top = page.locator("#specbook-claims-table").bounding_box()["y"]
    assert summary_top < table_top, "the summary comes before the table of every claim"
    assert _info(page).endswith(f"of {len(counted)}"), _info(page)  # "claims 1 to 25 of N"


def test_the_page_filter_keeps_one_pages_claims(claims_page, book_html):
    page, _, _ = claims_page
    select = page.locator("select.specbook-claims-filter[data-column='1']")
    options = [o for o in select.locator("option").all_inner_texts() if o != "every page"]
    assert len(options) >= 2
    chosen = options[1]
    select.select_option(label=chosen)
    page.locator(".dt-length select").first.select_option("-1")  # show every row
    rows = _rows(page)
    assert rows and all(r["page"] == chosen for r in rows), [r["page"] for r in rows][:5]
    summary = page.locator("table.specbook-by-page tbody tr", has_text=chosen).first.locator("td").all_inner_texts()
    assert len(rows) == int(summary[1]), (chosen, summary)  # as many as the summary counts for that page
    select.select_option(label="every page")
    assert len(_rows(page)) == sum(1 for c in _ledger(book_html)["claims"] if not c["example"])


def test_the_source_filter_and_the_text_search_narrow_the_table(claims_page, book_html):
    page, _, _ = claims_page
    page.locator(".dt-length select").first.select_option("-1")
    everything = len(_rows(page))
    kinds = page.locator("select.specbook-claims-filter[data-column='2']")
    kinds.select_option(label="independent")
    independent = _rows(page)
    ledger_count = sum(1 for c in _ledger(book_html)["claims"]
                       if not c["example"] and (c["source"] or {}).get("kind") == "independent implementation")
    assert len(independent) == ledger_count > 0
    kinds.select_option(label="every source")
    page.locator(".dt-search input").first.fill("diffrax")
    found = _rows(page)
    assert 0 < len(found) < everything
    assert all("diffrax" in r["text"].lower() for r in found)


def test_sorting_by_tolerance_used_puts_the_least_margin_first(claims_page, book_html):
    page, _, _ = claims_page
    page.locator(".dt-length select").first.select_option("-1")
    header = page.locator("#specbook-claims-table thead th", has_text="Tolerance used")
    header.click()
    # DataTables sorts and redraws after the click's event has returned: read the rows once the
    # header says how they are sorted (aria-sort is set by the redraw)
    page.wait_for_function("th => th.hasAttribute('aria-sort')", arg=header.element_handle(), timeout=15000)
    assert header.get_attribute("aria-sort") == "descending", "one click sorts the largest share used first"
    used = [r["used"] for r in _rows(page)]
    assert used == sorted(used, reverse=True), used[:10]
    largest = max(c["tolerance_used"] for c in _ledger(book_html)["claims"]
                  if not c["example"] and isinstance(c["tolerance_used"], float))
    assert used[0] == pytest.approx(largest, rel=1e-6)
    first = page.locator("table.specbook-least-margin tbody tr").first.locator("td").first.inner_text().strip()
    assert first in [r["claim"] for r in _rows(page) if r["used"] == used[0]]
