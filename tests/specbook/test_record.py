"""The kernel's recorder (``specbook._record``): which cell made each claim, and the claims a page reports."""

from __future__ import annotations

import importlib.util
import os
from types import SimpleNamespace

import pytest

import specbook
from specbook import _claims


@pytest.fixture
def recorder():
    """A fresh copy of the recorder, loaded as the kernel loads it (not as part of the package)."""
    path = os.path.join(os.path.dirname(_claims.__file__), "_record.py")
    spec = importlib.util.spec_from_file_location("_record_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    specbook.reset_claims()
    yield module
    specbook.reset_claims()


def test_a_claim_made_again_in_a_later_cell_is_anchored_at_that_cell(recorder):
    specbook.claim("x", 1.0, 1.0)
    recorder._after_cell(SimpleNamespace(execution_count=1))
    specbook.claim("y", 1.0, 1.0)
    recorder._after_cell(SimpleNamespace(execution_count=2))
    specbook.claim("x", 1.0, 1.0)
    recorder._after_cell(SimpleNamespace(execution_count=3))
    assert {c["key"]: c["cell"] for c in recorder._claims()} == {"x": 3, "y": 2}


def test_in_record_mode_a_claim_that_failed_once_reports_the_values_it_failed_with(recorder, monkeypatch):
    monkeypatch.setenv(specbook.RECORD_ENV, "1")
    specbook.claim("again", 2.0, 1.0, atol=0.1)
    specbook.claim("again", 1.0, 1.0, atol=0.1)  # the build would have stopped at the first
    specbook.claim("fine", 1.0, 1.0)
    specbook.claim("probe", 3.0, 1.0)
    specbook.forget("probe")  # forgotten after it failed: the build would have stopped there too
    reported = {c["key"]: c for c in recorder._claims()}
    assert (reported["again"]["measured"], reported["again"]["holds"]) == (2.0, False)
    assert reported["fine"]["holds"] is True
    assert (reported["probe"]["measured"], reported["probe"]["holds"], reported["probe"]["forgotten"]) == (3.0, False, True)


def test_a_file_is_a_read_by_how_it_was_opened_and_only_under_the_root_outside_caches(recorder, tmp_path):
    """The audit hook's ``open`` events, as ``open()`` and ``os.open`` raise them, decide what a page read:
    a text or binary read counts, a write does not; ``os.open``'s flags count as a read whatever other
    bits they carry (``O_CLOEXEC``, as ``io`` adds); compiled bytecode, caches and files outside the
    project never count."""
    root = tmp_path / "project"
    (root / "data").mkdir(parents=True)
    recorder._STATE.update(root=str(root), src=None, read=set(), jax_cache=None)
    opened = [
        (root / "data" / "table.csv", "r", None),
        (root / "data" / "weights.npy", "rb", None),
        (root / "data" / "flags.bin", None, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)),
        (root / "data" / "out.csv", "w", None),
        (root / "data" / "log.bin", None, os.O_WRONLY | os.O_CREAT),
        (root / "data" / "legacy.pyc", "rb", None),
        (root / "data" / "__pycache__" / "m.cpython-311.pyc", "rb", None),
        (root / "_build" / "page.json", "r", None),
        (tmp_path / "elsewhere.txt", "r", None),
    ]
    for path, mode, flags in opened:
        recorder._hook("open", (str(path), mode, flags))
    assert recorder._STATE["read"] == {"data/table.csv", "data/weights.npy", "data/flags.bin"}
