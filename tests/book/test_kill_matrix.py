"""The kill matrix on a toy project: record mode, kills, unreached claims, moved expected values, the gate.

A project in a temporary folder has one module, ``toy``, and one page that claims four things
about it and makes one example. Three faults patch the module: one the page's first claim
catches, one that moves a declared constant, one that makes a later cell raise. The page runs
once unpatched (the build's measurement) and once per fault in record mode, through the same
code ``python -m specbook.faults`` uses. Planted on purpose: ``toy_self``, whose "closed form"
expected value is computed by the code under test, so the fault that breaks the code moves it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest
from _pages import FRONT

from specbook import _matrix, faults
from specbook._faults import Fault, Patch
from specbook.execute import run_page
from specbook.ledger import claim_entry, write_ledger

ROOT = Path(__file__).resolve().parents[2]

MODULE = textwrap.dedent('''\
    """A toy product."""

    RATE = 2.0


    def double(x):
        return 2.0 * x


    def scaled(x):
        return RATE * x


    def offset():
        return 0.5
    ''')

PAGE = FRONT + textwrap.dedent('''
    # Toy

    ```{code-cell} ipython3
    import specbook
    import toy
    ```

    ```{code-cell} ipython3
    specbook.claim("toy_double", toy.double(3.0), 6.0, source=specbook.closed_form("2 x 3"))
    specbook.claim("toy_rate", toy.scaled(4.0) / 4.0, toy.RATE, source=specbook.declared("toy.RATE"))
    specbook.claim("toy_self", toy.double(1.0), toy.double(1.0), source=specbook.closed_form("two"))
    specbook.example("toy_arith", 1.0 + 1.0, 2.0, source=specbook.closed_form("1 + 1"))
    ```

    ```{code-cell} ipython3
    value = toy.offset()
    ```

    ```{code-cell} ipython3
    specbook.claim("toy_after", value, 0.5, source=specbook.closed_form("one half"))
    ```
    ''')

FAULTS = (
    Fault("toy_double_triple", "toy", "double triples.",
          (Patch("toy/__init__.py", "return 2.0 * x", "return 3.0 * x"),), ("book/toy.md",), ("toy_double",)),
    Fault("toy_rate_three", "toy", "The declared rate is 3.",
          (Patch("toy/__init__.py", "RATE = 2.0", "RATE = 3.0"),), ("book/toy.md",), ("toy_rate",)),
    Fault("toy_offset_raises", "toy", "offset raises.",
          (Patch("toy/__init__.py", "    return 0.5", "    raise ValueError('no offset')"),), ("book/toy.md",),
          ("toy_after",)),
)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The toy project, its page run unpatched, and every fault run: (root, baseline claims, results)."""
    root = tmp_path_factory.mktemp("kill") / "project"
    (root / "src" / "toy").mkdir(parents=True)
    (root / "src" / "toy" / "__init__.py").write_text(MODULE)
    (root / "book").mkdir()
    (root / "book" / "toy.md").write_text(PAGE)
    shutil.copy(ROOT / "_config.yml", root / "_config.yml")
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(root / "src") + (os.pathsep + old if old else "")
    try:
        baseline = run_page(root / "book" / "toy.md", root)
        assert baseline["error"] is None, baseline["error"]
        results = faults.run(list(FAULTS), root=root, jobs=2, echo=lambda *a: None)
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = old
    return root, baseline["used"]["claims"], results


def _verdicts(project):
    root, claims, _ = project
    pages = [{"page": "book/toy.md", "claims": [dict(c) for c in claims]}]
    section = _matrix.annotate(root, pages, FAULTS)
    return {c["key"]: c for c in pages[0]["claims"]}, section, pages


@pytest.mark.slow
def test_each_fault_is_judged_by_the_claims_it_names(project):
    _, _, results = project
    # the rate fault moves both sides of toy_rate: nothing fails; the offset fault stops the page first
    assert {r.name: r.verdict for r in results} == {"toy_double_triple": "caught", "toy_rate_three": "survived",
                                                    "toy_offset_raises": "misattributed"}
    raised = next(r for r in results if r.name == "toy_offset_raises")
    assert raised.errors and raised.errors[0]["cell"] == 2 and "no offset" in raised.errors[0]["message"]


@pytest.mark.slow
def test_record_mode_shows_every_claim_a_fault_breaks_and_none_after_a_raising_cell(project):
    verdicts, section, _ = _verdicts(project)
    assert verdicts["toy_double"]["killed_by"] == ["toy_double_triple"]
    assert verdicts["toy_self"]["killed_by"] == []  # both sides moved together: it cannot fail
    assert verdicts["toy_after"]["killed_by"] == [] and verdicts["toy_after"]["unreached_under"] == ["toy_offset_raises"]
    assert verdicts["toy_arith"]["example"] and verdicts["toy_arith"]["killed_by"] == []
    assert section["pages"]["book/toy.md"]["current"] == sorted(f.name for f in FAULTS)
    assert section["pages"]["book/toy.md"]["errors"][0]["fault"] == "toy_offset_raises"


@pytest.mark.slow
def test_an_expected_value_moved_by_a_fault_is_allowed_only_for_the_declaration_it_patches(project):
    verdicts, _, _ = _verdicts(project)
    assert verdicts["toy_rate"]["expected_moved_under"] == ["toy_rate_three"]
    assert verdicts["toy_rate"]["mislabelled"] == []  # declared("toy.RATE"), and the patch is RATE's
    assert verdicts["toy_self"]["expected_moved_under"] == ["toy_double_triple"]
    (wrong,) = verdicts["toy_self"]["mislabelled"]
    assert "'toy_self'" in wrong and "'toy_double_triple'" in wrong and "closed form" in wrong


@pytest.mark.slow
def test_the_gate_fails_naming_the_mislabelled_claim_and_the_fault_and_every_claim_with_no_killer(project, tmp_path):
    _, section, pages = _verdicts(project)
    entries = [claim_entry("book/toy.md", "toy.html", "key", c) for c in pages[0]["claims"]]
    ledger = write_ledger(tmp_path / "claims.json", entries, [], faults=section)
    out = io.StringIO()
    assert faults.gate(ledger, "strict", out=out) == 1
    text = out.getvalue()
    assert "MISLABELLED: claim 'toy_self'" in text and "'toy_double_triple'" in text
    assert "1 of 4 claims proven able to fail" in text  # toy_double; the example is apart
    assert "no killer: book/toy.md: 3: toy_rate, toy_self, toy_after" in text
    assert faults.gate(ledger, "report", out=io.StringIO()) == 0
    stored = json.loads(ledger.read_text())
    assert {e["key"]: e["killed_by"] for e in stored["claims"]}["toy_double"] == ["toy_double_triple"]


@pytest.mark.slow
def test_a_run_is_kept_while_its_fault_page_and_files_are_unchanged(project):
    root, _, _ = project
    assert [why for _, _, why in faults.plan(list(FAULTS), root=root)] == [None, None, None]
    module = root / "src" / "toy" / "__init__.py"
    text = module.read_text()
    try:
        module.write_text(text + "\n# an edit\n")
        assert {why for _, _, why in faults.plan(list(FAULTS), root=root)} == {"src/toy/__init__.py changed"}
    finally:
        module.write_text(text)
    changed = Fault("toy_double_triple", "toy", "double quadruples.",
                    (Patch("toy/__init__.py", "return 2.0 * x", "return 4.0 * x"),), ("book/toy.md",), ("toy_double",))
    assert faults.plan([changed], root=root)[0][2] == "the fault's patch or targets changed"
