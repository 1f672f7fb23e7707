"""The kill matrix's rules, piece by piece (the whole, on a toy project, is tests/book/test_kill_matrix.py)."""

from __future__ import annotations

import textwrap

from specbook import _matrix
from specbook._faults import Fault, Patch
from specbook.keys import file_hashes


def _package(src):
    (src / "pkg" / "inner").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("from pkg.model import Model\nfrom .inner import numerics\n")
    (src / "pkg" / "model.py").write_text(textwrap.dedent("""\
        from pkg.inner.numerics import FLOOR
        from pkg.inner import numerics


        class Model:
            floor = FLOOR
            scale = numerics.SCALE * 2
            name = "model"

            def run(self):
                return 1
        """))
    (src / "pkg" / "inner" / "__init__.py").write_text("")
    (src / "pkg" / "inner" / "numerics.py").write_text("FLOOR = 0.1\nSCALE = 3.0\n")


def test_a_declaration_is_followed_through_re_exports_and_the_constants_it_is_assigned_from(tmp_path):
    _package(tmp_path)
    files = lambda ref: sorted(_matrix.declaration_files(ref, tmp_path))  # noqa: E731
    assert files("pkg.Model.name") == ["pkg/__init__.py", "pkg/model.py"]
    assert files("pkg.Model.floor") == ["pkg/__init__.py", "pkg/inner/numerics.py", "pkg/model.py"]
    assert "pkg/inner/numerics.py" in files("pkg.model.Model.scale")  # numerics.SCALE, a module attribute
    assert files("pkg.Model.run") == ["pkg/__init__.py", "pkg/model.py"]  # a method: its own file only
    assert files("pkg.inner.numerics.FLOOR") == ["pkg/inner/numerics.py"]
    assert files("pkg.numerics.SCALE") == ["pkg/__init__.py", "pkg/inner/numerics.py"]
    assert files("PROFILES['x'] of nothing") == [] and files("the wall's argument, 0.35") == []


def test_an_expected_value_may_move_only_with_the_declaration_its_source_names(tmp_path):
    _package(tmp_path)
    fault = Fault("floor_zero", "x", "The floor is zero.",
                  (Patch("pkg/inner/numerics.py", "FLOOR = 0.1", "FLOOR = 0.0"),), ("book/p.md",), ("c",))
    run = {"claims": [{"key": k, "holds": True, "expected": 0.0} for k in ("named", "other", "closed")]}
    claims = [{"key": "named", "expected": 0.1, "source": {"kind": "declaration", "ref": "pkg.Model.floor"}},
              {"key": "other", "expected": 0.1, "source": {"kind": "declaration", "ref": "pkg.Model.name"}},
              {"key": "closed", "expected": 0.1, "source": {"kind": "closed form", "ref": "a tenth"}}]
    verdicts = _matrix.judge_claims(claims, {"floor_zero": run}, {"floor_zero": fault}, tmp_path)
    assert verdicts["named"]["expected_moved_under"] == ["floor_zero"] and verdicts["named"]["mislabelled"] == []
    (other,) = verdicts["other"]["mislabelled"]
    assert "'other'" in other and "'floor_zero'" in other and "names src/pkg/__init__.py, src/pkg/model.py" in other
    (closed,) = verdicts["closed"]["mislabelled"]
    assert "computed by the code under test" in closed and "closed form" in closed


def test_a_claim_a_run_never_made_is_unreached_not_killed_and_an_example_it_breaks_is_mislabelled(tmp_path):
    run = {"claims": [{"key": "made", "holds": False, "expected": 1.0},
                      {"key": "arith", "holds": False, "expected": 2.0, "example": True}]}
    claims = [{"key": "made", "expected": 1.0, "source": {"kind": "closed form", "ref": "1"}},
              {"key": "later", "expected": 1.0, "source": {"kind": "closed form", "ref": "1"}},
              {"key": "arith", "expected": 2.0, "example": True, "source": {"kind": "closed form", "ref": "2"}}]
    verdicts = _matrix.judge_claims(claims, {"f": run}, {}, tmp_path)
    assert verdicts["made"]["killed_by"] == ["f"] and verdicts["made"]["unreached_under"] == []
    assert verdicts["later"]["killed_by"] == [] and verdicts["later"]["unreached_under"] == ["f"]
    assert "tests product code" in verdicts["arith"]["mislabelled"][0]


def test_the_gate_report_counts_claims_apart_from_examples_and_names_runs_not_current():
    ledger = {"faults": {"pages": {"book/p.md": {"stale": {"f": "src/a.py changed"}, "missing": ["g"]}}},
              "claims": [{"page": "book/p.md", "key": "a", "killed_by": ["f"]},
                         {"page": "book/p.md", "key": "b", "killed_by": []},
                         {"page": "book/p.md", "key": "c", "killed_by": [], "example": True}]}
    found = _matrix.gate_report(ledger)
    assert (found["claims"], found["proven"], found["examples"]) == (2, 1, 1)
    assert found["unkilled"] == ["book/p.md: b"]
    assert found["not_current"] == ["book/p.md: f (stale: src/a.py changed)", "book/p.md: g (never run)"]
    assert not _matrix.gate_report({"claims": []})["has_matrix"]


def test_a_stored_run_stands_only_while_its_fault_its_page_and_its_inputs_are_unchanged(tmp_path):
    """``run_stale``: a run is current only for the same fault, the same code cells of its page and the
    same files and environment; each change is named. A run kept after its page's cells were edited would
    vouch for claims the page no longer makes."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("X = 1\n")
    fault = Fault("a_fault", "test", "X is 2", (Patch("a.py", "X = 1", "X = 2"),), ("book/p.md",), ("claim",))
    environment = {"python": "3.11"}
    run = {"version": _matrix.RUN_VERSION, "fault_key": _matrix.fault_key(fault), "cells": "cells-1",
           "files": file_hashes(tmp_path, ["src/a.py"]),
           "environment": environment, "distributions": {}}
    assert _matrix.run_stale(run, tmp_path, environment, fault, "cells-1") is None
    assert _matrix.run_stale(run, tmp_path, environment, fault, "cells-2") == "the page's code cells changed"
    assert _matrix.run_stale(None, tmp_path, environment, fault, "cells-1") == "never run"
    other = Fault("a_fault", "test", "X is 3", (Patch("a.py", "X = 1", "X = 3"),), ("book/p.md",), ("claim",))
    assert _matrix.run_stale(run, tmp_path, environment, other, "cells-1") == "the fault's patch or targets changed"
    assert _matrix.run_stale(run, tmp_path, {"python": "3.12"}, fault, "cells-1").startswith("environment changed")
    (tmp_path / "src" / "a.py").write_text("X = 10\n")
    assert _matrix.run_stale(run, tmp_path, environment, fault, "cells-1") == "src/a.py changed"
