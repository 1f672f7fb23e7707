"""skcomplex's registry of known defects (``skcomplex.anomalies``): its records agree with themselves and
each open one is pinned by a strict xfail test that exists."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from skcomplex import ValidationError, anomalies

ROOT = Path(__file__).resolve().parents[2]


def test_every_open_record_is_pinned_by_a_strict_xfail_that_exists():
    """An open defect is shown by a strict xfail, so fixing it flips its test and forces the record's update."""
    records = anomalies.all_records()
    assert records and all(r.id.startswith("SKC-ANO-") for r in records)
    for record in records:
        path, _, name = record.pinned_by.partition("::")
        tree = ast.parse((ROOT / path).read_text())
        (test,) = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name]
        if record.status == "open":
            marks = [ast.unparse(d) for d in test.decorator_list]
            assert any("xfail" in m and "strict=True" in m for m in marks), (record.id, marks)


def test_status_and_version_must_agree_and_an_id_is_taken_once():
    with pytest.raises(ValidationError, match="X-1: resolved_in must be a version when status is 'resolved'"):
        anomalies.Anomaly("X-1", "t", (), "resolved", None, "x::y")
    with pytest.raises(ValidationError, match=r"X-1: status must be one of \['open', 'resolved'\], got 'closed'"):
        anomalies.Anomaly("X-1", "t", (), "closed", None, "x::y")
    record = anomalies.get("SKC-ANO-001")
    assert anomalies.register(record) is record
    with pytest.raises(ValidationError, match="SKC-ANO-001"):
        anomalies.register(anomalies.Anomaly("SKC-ANO-001", "other", (), "open", None, "x::y"))
    with pytest.raises(ValidationError, match="id must be one of .*got 'SKC-ANO-999'"):
        anomalies.get("SKC-ANO-999")


def test_each_affected_name_is_an_object_of_skcomplex():
    import importlib

    for record in anomalies.all_records():
        for dotted in record.affects:
            module, _, name = dotted.rpartition(".")
            assert hasattr(importlib.import_module(module), name), (record.id, dotted)
