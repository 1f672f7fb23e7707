"""The Claims page (``{specbook-claims}``): the reviewer's summary and the table of every claim, from the ledger."""

from __future__ import annotations

from docutils import nodes

from specbook._claims_page import render


def _claim(key, *, holds=True, used=0.5, killed_by=(), unreached_under=(), example=False, kind="closed form"):
    return {"key": key, "measured": 1.0, "expected": 1.0, "atol": 0.1, "rtol": None, "tolerance": "±0.1",
            "unit": "", "holds": holds, "description": "", "source": {"kind": kind, "ref": "1"},
            "example": example, "tolerance_used": used, "killed_by": list(killed_by),
            "unreached_under": list(unreached_under), "expected_moved_under": [], "mislabelled": [],
            "anchor": f"claim-{key}"}


PAGES = [
    {"page": "book/a.md", "claims": [
        _claim("a_broken", used=0.2, killed_by=["f1"]),
        _claim("a_unreached", used=0.9, unreached_under=["f2"], kind="declaration"),
        _claim("a_fails", holds=False, used=1.5, killed_by=["f2"], kind="declaration"),
        _claim("a_example", example=True),
    ]},
    {"page": "book/b.md", "claims": [_claim("b_quiet", used=0.05, kind="declaration")]},
    {"page": "book/empty.md", "claims": []},  # a page with no claims is not counted among the pages
]
SECTION = {"catalogue": ["f1", "f2", "f3"], "pages": {}}


def _render(pages=PAGES, section=SECTION):
    return render(pages, section, title=lambda rel: rel.removeprefix("book/").removesuffix(".md"),
                  page_uri=lambda rel: rel.replace(".md", ".html"), api_uri=lambda source: None)


def _rows(parts, cls):
    (table,) = [n for n in parts["summary"] if isinstance(n, nodes.table) and cls in n["classes"]]
    return [[entry.astext() for entry in row.children] for row in table.findall(nodes.row)][1:]  # below the header


def test_the_headline_counts_claims_pages_holding_and_proven_without_the_examples():
    headline = _render()["summary"][0].astext()
    assert headline.startswith("4 claims on 2 pages; 3 hold. 2 of 4 are proven able to fail: each is broken "
                               "by at least one of the 3 faults of the catalogue")
    assert "1 example, page arithmetic" in headline


def test_the_rows_by_page_count_only_the_pages_own_claims_as_holding():
    assert _rows(_render(), "specbook-by-page") == [
        ["a", "3", "2", "2 of 3", "1"], ["b", "1", "1", "0 of 1", "0"], ["Whole book", "4", "3", "2 of 4", "1"]]


def test_the_sources_are_listed_most_claims_first():
    assert _rows(_render(), "specbook-by-source") == [["declared", "3", "2", "1 of 3"],
                                                      ["closed form", "1", "1", "1 of 1"]]


def test_each_claim_has_one_outcome_and_a_claim_a_fault_breaks_is_counted_as_broken():
    assert _rows(_render(), "specbook-by-outcome") == [
        ["holds, and a fault breaks it", "1"], ["holds; its faults stop the page before it", "1"],
        ["holds; no fault breaks it yet", "1"], ["fails in this build", "1"], ["example (not counted)", "1"]]


def test_the_least_margin_lists_the_largest_share_of_the_tolerance_first_as_a_percentage():
    rows = _rows(_render(), "specbook-least-margin")
    assert [(row[0], row[3]) for row in rows] == [
        ("a_fails", "150%"), ("a_unreached", "90%"), ("a_broken", "20%"), ("b_quiet", "5%")]


def test_the_table_of_every_claim_marks_only_the_claims_that_fail():
    (html,) = [n.astext() for n in _render()["table"] if isinstance(n, nodes.raw)]
    rows = {row.split('"', 1)[0]: row for row in html.split('<tr data-claim="')[1:]}
    assert "specbook-fails" in rows["a_fails"]
    assert [key for key, row in rows.items() if "specbook-fails" in row] == ["a_fails"]
    assert "<code>f2</code>" in rows["a_fails"] and "none yet" in rows["b_quiet"]
