"""The generated entry page: its sections, its computed count, and its check against the class."""

import dataclasses
import re
from typing import ClassVar

import pytest

from mime import CentreContact, Contact, ValidationError
from mime.docs import SECTION_TITLES, Rows, Section, check_page, entry_page, hand_written
from mime.registry import Registry, ValidityLine


def test_sections_follow_the_seed_order():
    page = entry_page(Contact)
    assert page.titles == SECTION_TITLES
    assert page.sections[0].title == ""  # the introduction
    assert check_page(page, Contact) == []
    assert check_page(entry_page(CentreContact), CentreContact) == []


def test_introduction_names_the_class_and_the_kept_versions():
    intro = entry_page(Contact).section("").text()
    assert "`mime.interactions.contact.Contact`" in intro and "version 0.4.0" in intro
    assert "`contact` 0.1.0, by `mime.interactions._previous.CentreContact`" in intro
    old = entry_page(CentreContact).section("").text()
    assert "the current one is `contact` 0.4.0" in old


def test_at_a_glance_is_computed():
    glance = entry_page(Contact).section("At a glance").text()
    assert f"Validity: {len(Contact.validity)} declared lines" in glance
    assert "with 2 built rungs among its members" in glance
    assert "Rungs built: `projection`, `penalty`" in glance
    assert "Derivative: `piecewise_jump`" in glance


def test_adding_a_validity_line_changes_count_and_list_with_no_other_edit():
    class Wider(Contact):
        validity: ClassVar = Contact.validity + (ValidityLine("projection", "a line added for the test"),)

    page = entry_page(Wider, registry=Registry())
    assert f"Validity: {len(Contact.validity) + 1} declared lines" in page.section("At a glance").text()
    assert page.section("Validity").text().rstrip().endswith(f"{len(Contact.validity) + 1}. projection: a line added for the test")
    assert check_page(page, Wider) == []
    assert check_page(entry_page(Contact), Wider)  # the old page no longer matches the new class


def test_settings_table_matches_the_seed_columns():
    (table,) = entry_page(Contact).section("Settings").tables()
    assert table.header == ("Setting", "Type", "Default", "Dimension", "Role", "Default's kind")
    assert table.cells[1] == ("`rule`", "`str`", "`remove_outward`", "none", "physical", "convention")
    assert table.cells[2][1] == "`str | None`"  # plain data: escaping the pipe is the renderer's job


def test_switches_table_and_other_declarations():
    gradient = entry_page(Contact).section("Gradient status")
    (switches,) = gradient.tables()
    assert [c[0] for c in switches.cells] == [f"`{s.name}`" for s in Contact.switches]
    classvars, constants = entry_page(Contact).section("Other declarations").tables()
    assert classvars.cells == (
        ("`holds_off`", "`ClassVar[str | None]`", "`margin`"),
        ("`id_roles`", "`ClassVar[tuple[str, ...] | None]`", "`null`"),
        ("`moving`", "`ClassVar[bool]`", "`false`"),
    )
    assert ("`SPACING_FLOOR`", f"`{Contact.SPACING_FLOOR}`") == constants.cells[0][:2]


def test_check_page_finds_a_tampered_table():
    page = entry_page(Contact)
    settings = page.section("Settings")
    (table,) = settings.tables()
    bad_cells = (table.cells[0][:4] + ("physical",) + table.cells[0][5:],) + table.cells[1:]
    tampered_table = type(table)(table.header, bad_cells)
    tampered = dataclasses.replace(
        page,
        sections=tuple(
            Section(s.title, (tampered_table,) + s.blocks[1:]) if s.title == "Settings" else s
            for s in page.sections
        ),
    )
    problems = check_page(tampered, Contact)
    assert len(problems) == 1 and problems[0].startswith("setting margin")


def test_check_page_finds_a_reworded_validity_line_and_a_wrong_count_at_a_glance():
    page = entry_page(Contact)

    def with_block(title, old, new):
        return dataclasses.replace(page, sections=tuple(
            Section(s.title, tuple(b.replace(old, new, 1) if isinstance(b, str) else b for b in s.blocks))
            if s.title == title else s for s in page.sections))

    first = Contact.validity[0].line
    reworded = with_block("Validity", f"1. {first}", f"1. {first} (reworded)")
    assert reworded.section("Validity").text() != page.section("Validity").text()
    problems = check_page(reworded, Contact)
    assert len(problems) == 1 and problems[0].startswith("validity lines")
    count = len(Contact.validity)
    miscounted = with_block("At a glance", f"Validity: {count} declared lines", f"Validity: {count + 1} declared lines")
    problems = check_page(miscounted, Contact)
    assert len(problems) == 1 and problems[0].startswith("validity count at a glance")


def test_hand_written_part_fills_placeholders_and_cites_nothing_typed():
    text = hand_written(Contact)
    assert "[[" not in text and f"into {Contact.GROUPS} groups" in text
    assert "experiment.attach(Contact.Projection(margin=mm(0.1)), body=umr, surface=tube.inner_surface)" in text
    assert "**Versions.**" in text
    # prose numbers come from the code: no digits in the hand-written part apart from
    # version numbers, the seed's code line and placeholders' values
    stripped = re.sub(r"\d+\.\d+\.\d+|mm\(0\.1\)", "", text).replace(str(Contact.GROUPS), "")
    assert not re.search(r"\d", stripped)


def test_hand_written_part_refuses_unknown_placeholders_and_missing_files(tmp_path):
    class Missing(Contact):
        notes: ClassVar = "no_such_notes.md"

    with pytest.raises(ValidationError, match="no_such_notes.md"):
        hand_written(Missing)


def test_entry_page_refuses_a_non_entry():
    with pytest.raises(ValidationError, match="expected an entry class"):
        entry_page(object)


def test_the_page_is_plain_data_that_specbook_renders():
    import specbook

    page = entry_page(Contact)
    assert all(isinstance(b, (str, Rows)) for s in page.sections for b in s.blocks)
    assert "{cite}`StewartTrinkle1996`" in page.section("References").text()
    (settings,) = page.section("Settings").tables()
    rendered = specbook.table(settings.records())
    assert rendered.header == settings.header
    assert rendered.cells[2][1] == "`str \\| None`"  # specbook escapes the pipe for the Markdown table
