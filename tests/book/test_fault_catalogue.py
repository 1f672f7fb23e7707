"""The fault catalogue is well formed; running it is `python -m specbook.faults` (in `make test`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbook.catalogue import FAULTS
from specbook.faults import Fault, Patch, apply, judge

ROOT = Path(__file__).resolve().parents[2]


def test_at_least_24_uniquely_named_faults_cover_every_area():
    names = [f.name for f in FAULTS]
    assert len(names) == len(set(names)) >= 24
    assert {f.area for f in FAULTS} >= {"ball", "reflection", "contact", "stability note", "registry", "specbook"}


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.name)
def test_each_patch_applies_once_and_changes_the_code(fault, tmp_path):
    for patch in fault.patches:
        assert patch.old != patch.new
        assert (ROOT / "src" / patch.file).read_text(encoding="utf-8").count(patch.old) == 1, patch.file
    for target in fault.targets:
        assert (ROOT / target.split("::")[0]).is_file(), target


def test_a_patch_whose_text_is_gone_is_refused(tmp_path):
    (tmp_path / "m.py").write_text("x = 1\n")
    with pytest.raises(ValueError, match="occurs 0 times"):
        apply(Fault("gone", "specbook", "nothing", (Patch("m.py", "x = 2", "x = 3"),), ("book/intro.md",), ("c",)), tmp_path)


def test_the_verdict_reads_claims_from_pages_and_ids_from_tests():
    assert judge("book/a.md", "FAILED CLAIM 'a_claim': ...\nFAILED book/a.md::Cell 2") == ["a_claim"]
    assert judge("book/a.md", "FAILED book/a.md::Cell 2 - NameError") == ["error in book/a.md::Cell 2"]
    assert judge("book/a.md", "3 passed in 1.0s") == []
    assert judge("tests/t.py", "FAILED tests/t.py::test_x[1] - assert") == ["tests/t.py::test_x[1]"]


def test_patch_problems_names_every_patch_that_would_not_apply(tmp_path):
    from specbook.faults import patch_problems

    (tmp_path / "m.py").write_text("x = 1\ny = 2\ny = 2\n")
    faults = [Fault(name, "specbook", "a probe", (Patch(file, old, "z = 0"),), ("book/intro.md",), ("c",))
              for name, file, old in (("once", "m.py", "x = 1"), ("twice", "m.py", "y = 2"),
                                      ("gone", "m.py", "w = 3"), ("nofile", "n.py", "x = 1"))]
    problems = patch_problems(faults, tmp_path)
    assert [p.split("'")[1] for p in problems] == ["twice", "gone", "nofile"]
    assert "occurs 2 times" in problems[0] and "does not exist" in problems[2]
    assert patch_problems(FAULTS) == []
