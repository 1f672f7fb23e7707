"""The Sphinx extension's summaries: claims counted from the pages' claims tables, claims anchored at their cells."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from docutils import nodes
from docutils.utils import new_document

import specbook
from specbook import sphinxext
from specbook._tables import CLAIMS_MIME


@pytest.fixture(autouse=True)
def fresh_claims():
    specbook.reset_claims()
    yield
    specbook.reset_claims()


def _page_data(monkeypatch):
    """What a page's claims table carries: two claims, one failed in record mode, and an example."""
    monkeypatch.setenv(specbook.RECORD_ENV, "1")
    specbook.claim("holds", 1.0, 1.0)
    specbook.claim("fails", 2.0, 1.0, atol=0.1)
    specbook.example("arith", 1.0, 1.0)
    return specbook.claims_table()._repr_mimebundle_()[CLAIMS_MIME]


def test_the_summary_counts_a_pages_claims_and_those_that_hold_leaving_out_examples(monkeypatch):
    assert sphinxext._counted(_page_data(monkeypatch)) == (2, 1)


def _summary(data):
    env = SimpleNamespace(specbook_claims=data, titles={}, found_docs={"index", *data},
                          toctree_includes={"index": sorted(data)}, config=SimpleNamespace(root_doc="index"))
    app = SimpleNamespace(env=env, builder=SimpleNamespace(get_relative_uri=lambda start, doc: f"{doc}.html"))
    doctree = new_document("index")
    doctree += sphinxext.summary_placeholder("")
    sphinxext._replace(app, doctree, "index")
    (table,) = doctree.findall(nodes.table)
    return [[entry.astext() for entry in row.children] for row in table.findall(nodes.row)]


def test_the_summary_says_all_hold_only_for_a_page_whose_every_claim_holds():
    rows = _summary({"all": {"count": 2, "passed": 2}, "some": {"count": 2, "passed": 1}})
    assert rows == [["Page", "Claims", "Holding", "All hold"], ["all", "2", "2", "✓"], ["some", "2", "1", "✗"],
                    ["Whole book", "4", "3", "✗"]]


def test_a_claim_is_anchored_at_its_cell_or_else_at_the_last_cell_before_it():
    doctree = new_document("page")
    cells = {count: nodes.container(nb_element="cell_code", exec_count=count) for count in (1, 3, 4, 7)}
    for cell in cells.values():
        doctree += cell
    use = {"page": "book/page.md", "key": "k", "claims": [{"key": "here", "cell": 3}, {"key": "hidden", "cell": 6}]}
    env = SimpleNamespace(docname="page")
    sphinxext._anchor_claims(SimpleNamespace(env=env, specbook_use={"page": use}), doctree)
    assert cells[3]["ids"] == ["claim-here"] and cells[4]["ids"] == ["claim-hidden"]  # cell 6 shows no code
    assert [c["anchor"] for c in env.specbook_ledger["page"]["claims"]] == ["claim-here", "claim-hidden"]


def test_a_source_links_to_its_nearest_documented_object_but_never_to_a_bare_package():
    documented = {"specbook": SimpleNamespace(docname="api/specbook", node_id="module-specbook"),
                  "specbook.claims": SimpleNamespace(docname="api/specbook", node_id="specbook.claims")}
    env = SimpleNamespace(get_domain=lambda name: SimpleNamespace(objects=documented))
    app = SimpleNamespace(env=env, builder=SimpleNamespace(get_relative_uri=lambda start, doc: f"../{doc}.html"))
    assert sphinxext._api_entry(app, "book/a", "specbook.claims.ORDER") == (
        "specbook.claims", "../api/specbook.html#specbook.claims")
    assert sphinxext._api_entry(app, "book/a", "specbook.undocumented") is None


def test_the_book_replaces_autodocs_data_and_attribute_documenters_with_ones_that_hide_long_values():
    """``specbook._api_values.setup`` puts its two documenters in place of autodoc's (``override=True``); each is
    autodoc's own but for the value, which it hides unless ``plain`` (the browser stage checks the built pages)."""
    from sphinx.ext.autodoc import AttributeDocumenter, DataDocumenter

    from specbook import _api_values

    calls = []

    class App:
        def setup_extension(self, name):
            calls.append(("extension", name))

        def add_autodocumenter(self, cls, override=False):
            calls.append((cls.objtype, override, next(b for b in cls.__mro__[1:] if b.__module__.startswith("sphinx"))))

    _api_values.setup(App())
    assert calls == [("extension", "sphinx.ext.autodoc"), ("data", True, DataDocumenter),
                     ("attribute", True, AttributeDocumenter)]
    assert _api_values.plain((1.0, "a")) and not _api_values.plain(("x" * _api_values.WIDEST,))


@pytest.mark.parametrize("value, hidden", [(0.5, False), ("remove_outward", False), (tuple(range(40)), True),
                                           ({"box": int}, True), (object(), True)])
def test_the_books_documenters_hide_a_value_unless_it_is_plain_and_keep_autodocs_own_reasons(value, hidden):
    """The mixin's answer over a documenter that would show every value, and over one that hides it anyway."""
    from specbook._api_values import _PlainValues

    class Shows:
        def should_suppress_value_header(self):
            return False

    class Hides:
        def should_suppress_value_header(self):
            return True

    shown = type("D", (_PlainValues, Shows), {})()
    shown.object = value
    assert shown.should_suppress_value_header() is hidden
    kept = type("D", (_PlainValues, Hides), {})()
    kept.object = value
    assert kept.should_suppress_value_header() is True
