"""The anomaly and benchmark registries and the records maddening declares."""

import pytest

import maddening
from maddening import anomalies, verification
from maddening.nodes import BallNode


def test_required_records_present():
    ids = [r.id for r in anomalies.all_records()]
    for needed in ("MADD-ANO-011", "MADD-ANO-013", "MADD-ANO-018", "MADD-ANO-021"):
        assert needed in ids
    assert anomalies.get("MADD-ANO-011").status == "open"
    assert anomalies.get("MADD-ANO-021").status == "open"
    assert anomalies.get("MADD-ANO-013").resolved_in == "0.4.0" == maddening.__version__
    assert anomalies.get("MADD-ANO-018").resolved_in == "0.4.0"


def test_pinned_tests_exist():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for record in anomalies.all_records():
        if not record.id.startswith("MADD-"):
            continue
        path, _, name = record.pinned_by.partition("::")
        assert name in (root / path).read_text(), record.id


def test_benchmark_reads_the_declaration():
    bench = verification.get("MADD-VER-010")
    assert bench.declared == BallNode.meta.order.temporal
    assert bench.test_file == "tests/maddening/verification/test_mms_order_ode_nodes.py"


def test_status_and_resolved_in_must_agree():
    with pytest.raises(maddening.ValidationError, match="resolved_in = None"):
        anomalies.Anomaly("X-1", "t", (), "resolved", None, "x::y")
    with pytest.raises(maddening.ValidationError, match="status = 'closed'"):
        anomalies.Anomaly("X-1", "t", (), "closed", None, "x::y")


def test_conflicting_registration_raises_and_unknown_id_names_it():
    record = anomalies.get("MADD-ANO-011")
    assert anomalies.register(record) is record
    clash = anomalies.Anomaly("MADD-ANO-011", "other", (), "open", None, "x::y")
    with pytest.raises(maddening.ValidationError, match="MADD-ANO-011"):
        anomalies.register(clash)
    with pytest.raises(maddening.ValidationError, match="MADD-ANO-999"):
        anomalies.get("MADD-ANO-999")
    with pytest.raises(maddening.ValidationError, match="MADD-VER-999"):
        verification.get("MADD-VER-999")


def test_every_open_anomaly_is_pinned_by_a_strict_xfail():
    """Rule 3: an open defect is shown by a strict xfail, so fixing it flips its test."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for record in anomalies.all_records():
        if record.status != "open":
            continue
        path, _, name = record.pinned_by.partition("::")
        lines = (root / path).read_text().splitlines()
        index = next(i for i, line in enumerate(lines) if line.startswith(f"def {name.split('[')[0]}("))
        decorators = "\n".join(lines[max(0, index - 4):index])
        assert "xfail(strict=True" in decorators, record.id


def test_figure_rows_can_list_the_stated_figures_alone():
    record = anomalies.get("MADD-ANO-021")
    rows = anomalies.figure_rows(record, measure=False)
    assert [r.figure for r in rows] == list(record.figures)
    assert all(r.measured is None and not r.compared for r in rows)


def test_figure_rows_list_the_stated_figures_then_those_only_measured():
    """A figure the measure returns but the record never stated is still shown, measured and not compared,
    after the stated ones in their order (a figure added to a measure is seen before it is stated)."""
    record = anomalies.Anomaly("X-3", "t", (), "open", None, "x::y", figures={"b": 2.0, "a": 1.0},
                               measure=lambda: {"a": 1.5, "c": 3.0, "b": 2.0})
    rows = anomalies.figure_rows(record)
    assert [(r.figure, r.stated, r.measured, r.compared) for r in rows] == [
        ("b", 2.0, 2.0, True), ("a", 1.0, 1.5, True), ("c", None, 3.0, False)]


def test_a_record_bounds_each_stated_figure_on_its_own_and_no_other():
    record = anomalies.Anomaly("X-2", "t", (), "open", None, "x::y", figures={"a": 1.0, "b": 2e-7},
                               tolerance={"a": 0.0, "b": 1e-12})
    assert (record.tolerance_for("a"), record.tolerance_for("b")) == (0.0, 1e-12)
    with pytest.raises(maddening.ValidationError, match="bounds for stated figures only"):
        anomalies.Anomaly("X-2", "t", (), "open", None, "x::y", figures={"a": 1.0}, tolerance={"c": 1.0})
    with pytest.raises(maddening.ValidationError, match="tolerance = -1.0"):
        anomalies.Anomaly("X-2", "t", (), "open", None, "x::y", tolerance=-1.0)
