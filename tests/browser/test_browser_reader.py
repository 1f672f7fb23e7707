"""Every page as a reader sees it at 1280 px: no Markdown or TeX left as text, no stray values,
no unformatted numbers, no e-notation in a sentence, nothing wider than the text column, no figure text too small to read,
no backslash drawn in a formula, no page wider than the window, and no page but an API
reference taller than 15 screens.

Opt-in (``pytest tests/browser --browser``), after the strict build: see conftest.py. The rules
are in reader_defects.py; test_browser_detects_defects.py shows each one failing on a planted defect.
"""

from __future__ import annotations

import pytest
from book_pages import toc_pages
from reader_defects import (
    SCREENS, bare_value, broken_words, e_notation, first_equation_number, float_noise, hidden_line_ends, markdown_leaks, math_escapes, prose_as_type, sideways, small_figure_text, tex_leaks,
    too_tall, too_wide,
)

PAGES = toc_pages()
# An API reference lists every public name of its modules, and is read by search, not end to end.
API_REFERENCES = [doc for doc in PAGES if doc.rsplit("/", 1)[-1].endswith("api")]


@pytest.mark.parametrize("doc", PAGES)
def test_no_markdown_shows_as_text(visit, doc):
    leaks = markdown_leaks(visit(doc).layout["proseText"])
    assert not leaks, f"{doc}: Markdown a reader sees as text: {leaks}"


@pytest.mark.parametrize("doc", PAGES)
def test_no_tex_shows_as_text(visit, doc):
    leaks = tex_leaks(visit(doc).layout["proseText"])
    assert not leaks, (f"{doc}: TeX a reader sees as text, outside every typeset formula (an inline formula "
                       f"broken over lines, or a wrapped line that begins with '- '): {leaks}")


@pytest.mark.parametrize("doc", PAGES)
def test_no_cell_shows_a_bare_value(visit, doc):
    bare = [text[:80] for text in visit(doc).layout["outputs"] if bare_value(text)]
    assert not bare, f"{doc}: cell outputs that are bare values (end the cell with a statement): {bare}"


@pytest.mark.parametrize("doc", PAGES)
def test_no_number_shows_unformatted(visit, doc):
    noise = float_noise(visit(doc).layout["shownText"])
    assert not noise, f"{doc}: numbers shown with binary noise or every digit of a float: {noise}"


@pytest.mark.parametrize("doc", [doc for doc in PAGES if doc not in API_REFERENCES])
def test_no_sentence_writes_a_number_as_code_does(visit, doc):
    """Prose writes a small figure in powers of ten (``specbook.scientific``); a table may keep e-notation,
    and an API reference quotes its docstrings' constants as code writes them."""
    found = e_notation(visit(doc).layout["sentenceText"])
    assert not found, f"{doc}: numbers written as code writes them, in a sentence: {found}"


@pytest.mark.parametrize("doc", PAGES)
def test_tables_equations_and_figures_fit_the_column(visit, doc):
    layout = visit(doc).layout
    assert layout["viewport"] == 1280, f"{doc}: measured at {layout['viewport']} px, not 1280"
    wide = too_wide(layout)
    assert not wide, f"{doc}: wider than the text column at 1280 px: {wide}"


@pytest.mark.parametrize("doc", PAGES)
def test_no_word_in_a_table_breaks_inside(visit, doc):
    broken = broken_words(visit(doc).layout)
    assert not broken, (f"{doc}: a table breaks a word over two lines (its column is narrower than the word): "
                        f"{broken}")


@pytest.mark.parametrize("doc", PAGES)
def test_a_pages_equations_are_numbered_from_one(book_html, doc):
    first = first_equation_number((book_html / f"{doc}.html").read_text(encoding="utf-8"))
    assert first in (None, 1), (f"{doc}: its first equation is numbered ({first}): equations are numbered page by "
                                "page (math_numfig: false in _config.yml)")


@pytest.mark.parametrize("doc", PAGES)
def test_a_docstring_example_shows_its_lines_whole(visit, doc):
    """A doctest block on an API page wraps its long lines inside its box (``_static/specbook.css``):
    a refusal's message, the line a reader came for, is never cut at the box's edge."""
    hidden = hidden_line_ends(visit(doc).layout)
    assert not hidden, f"{doc}: docstring examples whose line ends are hidden past their box: {hidden[:5]}"


@pytest.mark.parametrize("doc", PAGES)
def test_no_page_scrolls_sideways(visit, doc):
    wide = sideways(visit(doc).layout)
    assert wide is None, f"{doc}: {wide}"


@pytest.mark.parametrize("doc", PAGES)
def test_figure_text_is_as_large_as_the_prose(visit, doc):
    layout = visit(doc).layout
    if not layout["figures"]:
        pytest.skip(f"{doc} has no figure")
    small = small_figure_text(layout)
    assert not small, f"{doc}: {small}"


@pytest.mark.parametrize("doc", PAGES)
def test_no_formula_shows_a_backslash(visit, doc):
    escapes = math_escapes(visit(doc).layout)
    assert not escapes, (f"{doc}: formulas that draw a backslash (write the constant as a symbol defined in the "
                         f"prose, and map it in the implementation table): " + "; ".join(escapes))


@pytest.mark.parametrize("doc", [doc for doc in PAGES if doc not in API_REFERENCES])
def test_a_page_is_at_most_15_screens_tall(visit, doc):
    tall = too_tall(visit(doc).layout, SCREENS)
    assert tall is None, f"{doc}: {tall}; split it where its ideas split, as sub-pages of its chapter"


@pytest.mark.parametrize("doc", API_REFERENCES)
def test_an_api_reference_shows_types_as_types(book_html, doc):
    prose = prose_as_type((book_html / f"{doc}.html").read_text(encoding="utf-8"))
    assert not prose, (f"{doc}: a docstring's first line read as its type (write no 'words: more' there): "
                       + "; ".join(prose))
