"""Tables rendered from declarations, and the implementation mapping's name check."""

from dataclasses import dataclass
from enum import Enum

import pytest

import specbook


class Kind(Enum):
    CONVENTION = "convention"


@dataclass
class Setting:
    name: str
    default: object
    kind: Kind


def test_table_renders_dataclass_fields_in_order():
    shown = specbook.table([Setting("rule", "remove_outward", Kind.CONVENTION), Setting("rung", None, Kind.CONVENTION)])
    assert shown.header == ("name", "default", "kind")
    assert shown.cells == (("rule", "remove_outward", "convention"), ("rung", "—", "convention"))


def test_table_columns_by_name_or_callable_and_escaping():
    rows = [{"a": "x|y", "b": 0.1 + 0.2}]
    shown = specbook.table(rows, ["a", ("twice b", lambda r: 2 * r["b"])])
    assert shown.pipe.splitlines() == ["| a | twice b |", "|---|---|", "| x\\|y | 0.6 |"]


def test_a_set_shows_its_items_sorted_so_a_page_reads_the_same_in_every_process():
    """A set's order is its hashes' (a string's changes with each process's hash seed; ``{8, 1}`` iterates 8
    first): a cell lists the items sorted by their text, and a list or tuple in its own order."""
    shown = specbook.table([{"tags": frozenset({8, 1}), "names": {"gamma", "alpha", "delta", "beta", "epsilon",
                                                                   "zeta", "eta", "theta"}, "kept": (8, 1)}])
    assert shown.cells == (("1, 8", "alpha, beta, delta, epsilon, eta, gamma, theta, zeta", "8, 1"),)


def _parsed(markdown: str):
    """The tokens MyST's own parser makes of a table's Markdown (directives stay fences)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").parse(markdown)


def test_a_table_is_a_list_table_whatever_its_cells_hold():
    """Absolute-value bars in a header, pipes in code, a cell that looks like a heading or a list:
    the Markdown is one list-table directive with one item per cell, never a pipe table."""
    rows = [{"dt": 1e-3, "err": 0.1 + 0.2, "note": "`str | None`"}, {"dt": "#", "err": "1. first", "note": "- x"}]
    shown = specbook.table(rows, [("dt (s)", "dt"), ("|x(T) - exact|", "err"), ("Notes", "note")])
    tokens = _parsed(shown.markdown)
    assert [t.type for t in tokens] == ["fence"] and tokens[0].info == "{list-table}"
    body = tokens[0].content
    assert ":header-rows: 1" in body and ":class: specbook-table" in body
    items = [line for line in body.splitlines() if line.startswith(("* - ", "  - "))]
    assert items == ["* - dt (s)", "  - |x(T) - exact|", "  - Notes",
                     "* - 0.001", "  - 0.3", "  - `str | None`",
                     "* - \\#", "  - 1\\. first", "  - \\- x"]
    assert shown.cells[0] == ("0.001", "0.3", "`str \\| None`")  # cells keep the pipe escape


def test_a_list_table_cell_renders_as_its_text():
    """Each escaped cell parses back to inline text equal to what the record holds."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    for text in ("#", "1. first", "- x", "> quote", "2) two", "===", "%", "% of the steps"):
        cell = specbook.table([{"c": text}]).markdown.splitlines()[-2].removeprefix("* - ")
        tokens = md.parse(cell)
        assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"], text
        assert tokens[1].children[0].content == text


def test_widths_and_classes_reach_the_directive():
    shown = specbook.table([{"a": 1, "b": 2}], widths=(1, 3), classes=("narrow",))
    assert ":widths: 1 3" in shown.markdown and ":class: specbook-table narrow" in shown.markdown
    with pytest.raises(ValueError, match="widths must be 2 positive integers"):
        specbook.table([{"a": 1, "b": 2}], widths=(1,))


def test_numbers_are_formatted_never_shown_with_binary_noise():
    import numpy as np

    rows = [{"v": 3e-4 * 1.0000000000000002}, {"v": np.float32(0.1)}, {"v": 0.1 + 0.2}, {"v": [0.1 + 0.2, 1 / 3]}]
    assert [row[0] for row in specbook.table(rows).cells] == ["0.0003", "0.1", "0.3", "0.3, 0.333333"]


def test_a_claim_and_a_check_display_nothing_at_the_end_of_a_cell():
    from IPython.core.formatters import DisplayFormatter

    formatter = DisplayFormatter()
    measured = specbook.claim("quiet_claim", 0.25, 0.25)
    held = specbook.check("quiet_check", True, "holds")
    assert measured == 0.25 and held == True and held  # noqa: E712 - it stands for True
    assert formatter.format(measured) == ({}, {}) and formatter.format(held) == ({}, {})
    specbook.forget("quiet_claim")
    specbook.forget("quiet_check")


def test_equal_tables_compare_equal_and_differ_on_one_cell():
    rows = [Setting("rule", "remove_outward", Kind.CONVENTION)]
    assert specbook.table(rows) == specbook.table(list(rows))
    assert specbook.table(rows) != specbook.table([Setting("rule", "keep", Kind.CONVENTION)])


def test_table_refuses_bad_columns():
    with pytest.raises(TypeError, match="columns must be names or"):
        specbook.table([{"a": 1}], [3])
    with pytest.raises(ValueError, match="empty table"):
        specbook.table([])


def test_mapping_resolves_names_and_links_them():
    shown = specbook.mapping_table([("$\\dot x = v$", "specbook.claim", "the claim")])
    assert shown.cells == (("$\\dot x = v$", "{py:obj}`specbook.claim`", "the claim"),)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("specbook.no_such_function", "module 'specbook' has no attribute 'no_such_function'"),
        ("specbook.Table.no_such_method", "object 'specbook.Table' has no attribute 'no_such_method'"),
        ("no_such_package.thing", "no module 'no_such_package'"),
    ],
)
def test_mapping_raises_on_a_name_that_does_not_exist(name, message):
    with pytest.raises(LookupError, match=message.replace(".", r"\.")):
        specbook.mapping_table([("term", name, "")])


def test_mapping_table_fits_the_column_with_given_widths():
    shown = specbook.mapping_table([("term", "specbook.claim", "notes")])
    assert ":widths: 3 4 5" in shown.markdown and "specbook-mapping" in shown.markdown


# ---- known defects at a glance --------------------------------------------------------------

@dataclass(frozen=True)
class Record:
    id: str
    title: str
    status: str
    affects: tuple


RECORDS = [
    Record("X-ANO-001", "tables break", "open", ("specbook._tables.Table.markdown",)),
    Record("X-ANO-002", "claims are loud", "resolved", ("specbook.claim",)),
    Record("X-ANO-003", "a module-wide defect", "open", ("specbook._claims",)),
    Record("X-ANO-004", "elsewhere", "open", ("specbook.glue",)),
]


def test_known_defects_lists_open_records_touching_the_mapping():
    rows = [("a table", "specbook.Table", ""), ("a claim", "specbook.claim", "")]
    box = specbook.known_defects(RECORDS, rows)
    # X-ANO-001: a method of the mapped class (re-exported as specbook.Table); X-ANO-002 is resolved;
    # X-ANO-003: the module where the mapped claim() is defined; X-ANO-004 touches nothing mapped.
    assert box.ids == ("X-ANO-001", "X-ANO-003")
    text = box.markdown
    assert text.startswith("```{admonition} Known defects: 2 open")
    # each touched row is named by its term, as the mapping table shows it
    assert "{ref}`X-ANO-001 <anomaly-x-ano-001>`: tables break (touches a table)" in text
    assert "(touches a claim)" in text
    assert "X-ANO-002" not in text and "X-ANO-004" not in text


def test_the_box_names_a_plain_name_by_its_public_parts():
    box = specbook.known_defects(RECORDS, ["specbook._tables.Table.markdown"])
    assert "(touches `Table.markdown`)" in box.markdown


def test_a_resolved_record_leaves_the_box():
    rows = ["specbook.Table"]
    assert specbook.known_defects(RECORDS, rows).ids == ("X-ANO-001",)
    resolved = [Record(r.id, r.title, "resolved", r.affects) for r in RECORDS]
    box = specbook.known_defects(resolved, rows)
    assert box.ids == () and "none open" in box.markdown


def test_known_defects_refuses_what_is_not_a_record_or_a_row():
    with pytest.raises(TypeError, match="has no attribute 'id'"):
        specbook.known_defects([object()], ["specbook.claim"])
    with pytest.raises(TypeError, match=r"mapping_rows\[0\]"):
        specbook.known_defects(RECORDS, [3])


def test_a_mapping_list_or_set_in_a_cell_reads_as_text_never_as_a_repr():
    rows = [{"v": {"every named claim broken": "caught", "nothing broken": "survived"}},
            {"v": ["gone", "twice"]}, {"v": {"twice", "gone"}}, {"v": {}}, {"v": {"order": 2.0000000000000004}}]
    assert [row[0] for row in specbook.table(rows).cells] == [
        "every named claim broken: caught; nothing broken: survived", "gone, twice", "gone, twice", "—", "order: 2"]


def test_a_cell_holding_a_percent_sign_is_not_a_myst_comment():
    """MyST drops a line that starts with "%" as a comment: the note's figures lost their unit "%"."""
    from myst_parser.parsers.mdit import create_md_parser
    from myst_parser.config.main import MdParserConfig
    from markdown_it.renderer import RendererHTML

    shown = specbook.table([{"figure": "cd_phase_error", "unit": "%"}])
    cell = shown.markdown.splitlines()[-2]
    assert cell == "  - \\%"
    md = create_md_parser(MdParserConfig(), RendererHTML)
    assert md.render(cell.removeprefix("  - ")).strip() == "<p>%</p>"
    assert md.render("%").strip() == "<!--  -->"  # what the cell held before: a comment


def test_a_flag_reads_yes_or_no_and_a_nan_shows_as_a_dash_but_an_infinity_as_itself():
    rows = [{"v": True}, {"v": False}, {"v": float("nan")}, {"v": float("inf")}, {"v": -float("inf")}]
    assert [row[0] for row in specbook.table(rows).cells] == ["yes", "no", "—", "inf", "-inf"]


def test_a_column_of_zero_width_is_refused():
    with pytest.raises(ValueError, match="widths must be 2 positive integers"):
        specbook.table([{"a": 1, "b": 2}], widths=(0, 1))
