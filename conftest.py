"""Root pytest configuration: run the book's MyST Markdown pages as notebooks.

nbval collects only ``.ipynb`` files. A page of this book is a ``.md`` file whose
front matter names a ``kernelspec``; this hook reads it with jupytext, in memory,
and hands the notebook to nbval, so each code cell becomes a test item
(``book/maddening/ball.md::Cell 3``). Nothing is written beside the page.

Pages run in lax mode: they carry no stored outputs to compare; their claims
raise instead. When a cell fails on a ``specbook.ClaimError``, the report and
the session's summary name the claim.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

from specbook import failed_claim

# JAX's persistent compilation cache, for this process's tests and for the pages' kernels (nbval
# starts them; they inherit this environment). It lives under _build/ (git-ignored): `make clean`
# drops it, `make book`'s clean build keeps it. A hit returns the executable XLA compiled before
# for the same program, options and versions, so no result changes. The Makefile's `book` recipe
# sets the same three for the strict build's kernels. A value already set in the environment wins.
JAX_CACHE = {
    "JAX_COMPILATION_CACHE_DIR": str(Path(__file__).resolve().parent / "_build" / "jax_cache"),
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1",
}
for _name, _value in JAX_CACHE.items():
    os.environ.setdefault(_name, _value)
if "jax" in sys.modules:  # imported before this file (by a plugin): its config has read the environment already
    _jax = sys.modules["jax"]
    _jax.config.update("jax_compilation_cache_dir", os.environ["JAX_COMPILATION_CACHE_DIR"] or None)
    _jax.config.update("jax_persistent_cache_min_compile_time_secs", float(os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"]))
    _jax.config.update("jax_persistent_cache_min_entry_size_bytes", int(os.environ["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"]))

_SERVER = None  # the kernel server nbval's kernels are forked from in this process, once started

try:  # the test extras provide both; without them pages are simply not collected
    import jupytext
    import nbval.kernel
    from nbval.plugin import IPyNbCell, IPyNbFile, find_comment_markers, find_metadata_tags
except ImportError:  # pragma: no cover
    jupytext = None
else:
    from traitlets import Type

    from specbook._kernels import ForkedKernels, KernelServer, OverUnixSockets, forking
    from specbook._ready import PromptShutdown

    def _kernel_server() -> str | None:
        """This process's kernel server, started at the first page's kernel (None: kernels start afresh)."""
        global _SERVER
        if _SERVER is None and forking():
            _SERVER = KernelServer().__enter__()
        return _SERVER.path if _SERVER is not None else None

    class _PageKernels(OverUnixSockets, ForkedKernels, PromptShutdown, nbval.kernel.KernelManager):
        """nbval's kernels, as the fault catalogue's: forked from a process that has imported JAX,
        SciPy and matplotlib already (``specbook._kernels``; ``SPECBOOK_FORK_KERNELS=0`` starts them
        afresh), over Unix sockets of their own. No key is made from an nbval run, so the modules the
        server preloaded cannot key a page by more than it uses, as they would the build's runs."""

        client_factory = Type(klass="specbook._ready.ReadyBlockingClient")  # ready with no idle wait

        @property
        def fork_server(self) -> str | None:
            return _kernel_server()

    if not issubclass(nbval.kernel.KernelManager, OverUnixSockets):
        nbval.kernel.KernelManager = _PageKernels

_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.S)
_FAILED_CLAIMS: list[tuple[str, str]] = []
# What each page glued under nbval: the second run that tests/browser/test_built_determinism.py
# compares with the strict build's glue (_build/jupyter_execute/<page>.glue.json).
_GLUE_RECORDS = Path(__file__).resolve().parent / "_build" / "nbval_glue"
_RECORD_PREFIX = "application/papermill.record/"
_PAGE_GLUE: dict[Path, dict] = {}


def is_page(path: Path) -> bool:
    """A book page: Markdown whose front matter declares a kernelspec."""
    if path.suffix != ".md":
        return False
    head = path.read_text(encoding="utf-8")[:2000]
    match = _FRONT_MATTER.match(head)
    return bool(match and "kernelspec:" in match.group(1))


if jupytext is not None:

    class MystPageCell(IPyNbCell):
        """A page's code cell; a failure names the claim that broke."""

        def runtest(self):
            glue = _PAGE_GLUE.setdefault(Path(self.path), {})
            try:
                super().runtest()
            finally:
                for out in self.test_outputs or []:
                    name = (out.get("metadata") or {}).get("scrapbook", {}).get("name")
                    if out.get("output_type") == "display_data" and name:
                        glue[name] = {k.removeprefix(_RECORD_PREFIX): v for k, v in out["data"].items()}

        def repr_failure(self, excinfo):
            text = super().repr_failure(excinfo)
            found = failed_claim(str(text))
            if found:
                text = f"FAILED CLAIM {found[0]!r}: {found[1]}\n\n{text}"
            return text

    class MystPage(IPyNbFile):
        """A MyST Markdown page collected as a notebook (read with jupytext, in memory)."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.compare_outputs = False  # lax: pages store no outputs; claims raise

        def collect(self):
            self.nb = jupytext.read(str(self.path), fmt="md:myst")
            number = 0
            for cell in self.nb.cells:
                if cell.cell_type != "code":
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    options = defaultdict(bool, find_metadata_tags(cell.metadata))
                    options.update(dict(find_comment_markers(cell.source)))
                options.setdefault("check", False)
                yield MystPageCell.from_parent(
                    self, name=f"Cell {number}", cell_num=number, cell=cell, options=options
                )
                number += 1

    def pytest_collect_file(file_path: Path, parent):
        if file_path.suffix == ".md" and "_build" not in file_path.parts and is_page(file_path):
            return MystPage.from_parent(parent, path=file_path)
        return None


def pytest_sessionfinish(session, exitstatus):
    if _SERVER is not None:
        _SERVER.__exit__(None, None, None)
    if exitstatus != 0 or os.environ.get("SPECBOOK_FAULT"):
        return  # a failed run, or any run of a fault's patched code, is no record of what the pages glue
    from specbook.keys import source_hashes

    root = Path(__file__).resolve().parent
    code = source_hashes(root)  # a later edit of src/ makes every record here stale
    for path, glue in _PAGE_GLUE.items():
        try:
            doc = path.resolve().relative_to(root).with_suffix("")
        except ValueError:  # a page outside this book (a test's temporary book)
            continue
        record = _GLUE_RECORDS / f"{doc}.json"
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps({"source_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                                      "code": code, "glue": glue}, sort_keys=True))


def pytest_runtest_logreport(report):
    """Collect failed claims where reports arrive (the controller, under pytest-xdist too)."""
    if report.failed and report.longrepr is not None:
        found = failed_claim(str(report.longrepr))
        if found and "FAILED CLAIM" in str(report.longrepr):
            _FAILED_CLAIMS.append((report.nodeid, found[1]))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if _FAILED_CLAIMS:
        terminalreporter.section("failed claims")
        for where, message in _FAILED_CLAIMS:
            terminalreporter.write_line(f"{where}: {message}")
