"""The claim ledger (claims.json) and ``python -m specbook.diff`` on two ledgers that differ."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import specbook
from specbook import _diff, diff, ledger


def _claim(key, measured, expected=1.0, atol=0.1, rtol=None, holds=True, page="book/a.md", source=None):
    return ledger.claim_entry(page, f"a.html#claim-{key}", "k", {
        "key": key, "measured": measured, "expected": expected, "atol": atol, "rtol": rtol, "holds": holds,
        "source": source or {"kind": "closed form", "ref": "1"}})


@pytest.fixture
def ledgers(tmp_path):
    old = [
        _claim("steady", 1.0),            # unchanged
        _claim("jitter", 1.0),            # moves by 0.005: 5 % of its tolerance 0.1, not reported
        _claim("drift", 1.0),             # moves by 0.05: half its tolerance, reported
        _claim("relative", 100.0, expected=100.0, atol=None, rtol=0.01),  # tolerance 1.0; moves by 0.2
        _claim("exact", 3.0, expected=3.0, atol=None),                    # exact: any change is reported
        _claim("gone", 1.0),              # removed
        _claim("same_key", 1.0, page="book/b.md"),  # same key on another page is another claim
    ]
    new = [
        _claim("steady", 1.0),
        _claim("jitter", 1.005),
        _claim("drift", 1.05),
        _claim("relative", 100.2, expected=100.0, atol=None, rtol=0.01),
        _claim("exact", 3.0000001, expected=3.0, atol=None, holds=False),
        _claim("same_key", 1.0, page="book/b.md"),
        _claim("fresh", 2.0, expected=2.0),  # added
    ]
    paths = []
    for name, entries in (("old", old), ("new", new)):
        paths.append(ledger.write_ledger(tmp_path / name / "claims.json", entries, []))
    return paths


def test_the_diff_lists_moved_added_and_removed_claims(ledgers):
    old, new = (ledger.read_ledger(p) for p in ledgers)
    changes = diff.diff_ledgers(old, new)
    assert [(page, key) for page, key, *_ in changes.moved] == [
        ("book/a.md", "drift"), ("book/a.md", "relative"), ("book/a.md", "exact")]
    drift = changes.moved[0]
    assert drift[2:4] == (1.0, 1.05) and drift[4] == pytest.approx(0.5)
    assert changes.moved[1][4] == pytest.approx(0.2)
    assert changes.added == [("book/a.md", "fresh")]
    assert changes.removed == [("book/a.md", "gone")]
    assert not diff.diff_ledgers(old, old)


def test_the_command_prints_the_differences(ledgers):
    done = subprocess.run([sys.executable, "-m", "specbook.diff", *map(str, ledgers)],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == "specbook.diff: 3 moved, 1 added, 1 removed (7 claims)"
    assert "moved    book/a.md: drift: 1.0 -> 1.05 (0.5 of its tolerance)" in lines
    assert "added    book/a.md: fresh" in lines and "removed  book/a.md: gone" in lines
    assert not any("jitter" in line or "steady" in line for line in lines)


def test_the_command_refuses_a_file_that_is_not_a_ledger(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"claims": "no"}))
    assert diff.main([str(bad), str(bad)]) == 2
    assert "is not a claim ledger" in capsys.readouterr().err


def test_the_ledger_is_strict_json_even_for_a_nan(tmp_path):
    path = ledger.write_ledger(tmp_path / "claims.json", [_claim("nan", float("nan"), holds=False)], [])
    document = json.loads(path.read_text())  # strict: NaN is written as text
    assert document["claims"][0]["measured"] == "nan" and document["version"] == ledger.LEDGER_VERSION


def test_a_claim_without_a_source_is_found():
    entries = [_claim("a", 1.0), {**_claim("b", 1.0), "source": None}]
    assert ledger.missing_sources(entries) == ["book/a.md: b"]


def test_the_exports():
    assert specbook.diff_ledgers is diff.diff_ledgers is _diff.diff_ledgers and specbook.read_ledger is ledger.read_ledger


def test_the_diff_names_a_claim_no_fault_breaks_any_more():
    def ledger(killers):
        return {"faults": {"catalogue": ["f1"]}, "claims": [
            {"page": "p.md", "key": "x", "measured": 1.0, "expected": 1.0, "atol": 0.1, "holds": True,
             "killed_by": killers}]}

    changes = diff.diff_ledgers(ledger(["f1"]), ledger([]))
    assert changes.lines() == ["unproven p.md: x: no fault breaks it any more (was f1)"]
    assert not diff.diff_ledgers(ledger([]), ledger(["f1"]))  # gaining a killer is no regression
    assert not diff.diff_ledgers({"claims": ledger(["f1"])["claims"]}, ledger([]))  # no matrix before: unknown


def test_a_ledger_entry_keeps_whether_its_claim_holds_and_each_verdict_apart():
    claim = {"key": "x", "measured": 2.0, "expected": 1.0, "atol": 0.1, "holds": False, "killed_by": ["f1"],
             "unreached_under": ["f2"], "expected_moved_under": ["f3"], "mislabelled": ["f3 moved it"]}
    entry = ledger.claim_entry("book/a.md", "a.html#claim-x", "k", claim)
    assert entry["holds"] is False and ledger.claim_entry("book/a.md", "", "k", {**claim, "holds": True})["holds"]
    assert (entry["killed_by"], entry["unreached_under"], entry["expected_moved_under"], entry["mislabelled"]) == (
        ["f1"], ["f2"], ["f3"], ["f3 moved it"])


def test_the_ledger_is_strict_json_even_for_an_infinity(tmp_path):
    entry = ledger.claim_entry("book/a.md", "a.html", "k", {"key": "inf", "measured": float("inf"), "expected": 1.0,
                                                            "atol": 0.1, "holds": False,
                                                            "tolerance_used": float("inf")})
    document = json.loads(ledger.write_ledger(tmp_path / "claims.json", [entry], []).read_text())
    assert (document["claims"][0]["measured"], document["claims"][0]["tolerance_used"]) == ("inf", "inf")


def test_a_change_of_exactly_a_tenth_of_the_tolerance_has_not_moved():
    def of(measured):
        return {"claims": [_claim("x", measured, expected=0.0, atol=1.0)]}

    assert not diff.diff_ledgers(of(0.0), of(0.1))  # "more than a tenth"
    assert [key for _, key, *_ in diff.diff_ledgers(of(0.0), of(0.125)).moved] == ["x"]


def test_a_claim_that_starts_or_stops_holding_is_listed_however_little_it_moved():
    def of(holds):
        return {"claims": [_claim("x", 1.0, holds=holds)]}

    assert [key for _, key, *_ in diff.diff_ledgers(of(True), of(False)).moved] == ["x"]
    assert [key for _, key, *_ in diff.diff_ledgers(of(False), of(True)).moved] == ["x"]
