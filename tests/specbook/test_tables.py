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
    assert shown.markdown.splitlines() == ["| a | twice b |", "|---|---|", "| x\\|y | 0.6 |"]


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
