"""Stale pages executed beside Sphinx's reading of the others (used by :mod:`specbook.sphinxext`).

Sphinx reads a Jupyter Book's pages one at a time, in one process. When some pages' keys
changed, their kernels need not hold that reading up: :class:`PageRuns` executes them
(``specbook.execute.execute_pages``, in worker processes) from a thread, the build reads
every other page first, and it waits for a stale page only when it reaches it. On two
cores the one page an edit touched runs while Sphinx parses the rest.

What the build shows is unchanged: a page is read only once its execution is in the
cache, and a page that failed loses its cached notebook before it is read; the build
fails on it with the run's message (:attr:`PageRuns.failures`), naming the claim, the
cell and its line.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Callable

__all__ = ["PageRuns"]


class PageRuns:
    """The stale pages of one build, executing in a background thread.

    ``verdicts`` is :func:`specbook.execute.plan`'s list for every page; the stale ones run.
    The report lines ``execute_pages`` prints collect in :meth:`take_lines` for the build's
    log, which the build writes from its own thread.
    """

    def __init__(self, root: Path, cache_dir: Path, verdicts: list[Any], times: dict[str, float],
                 timeout: int | None = None) -> None:
        self.root, self.cache_dir, self.verdicts, self.timeout = root, cache_dir, verdicts, timeout
        stale = [v for v in verdicts if v.reason is not None]
        self.docnames = {v.rel: Path(v.rel).with_suffix("").as_posix() for v in stale}
        self._done = {name: threading.Event() for name in self.docnames.values()}
        self.ok: dict[str, bool] = {}
        self.failures: dict[str, str] = {}  # docname: the plain message of its failed run
        self.failed = 0
        self.error: BaseException | None = None
        self._lines: list[str] = []
        self._partial = ""
        self._lock = threading.Lock()
        from specbook.execute import run_order, schedule

        names = list(self.docnames)
        workers = min(os.cpu_count() or 1, len(names)) or 1
        _, ends = schedule(names, times, workers, run_order(root, names, times))  # as execute_pages runs them
        self.order = [self.docnames[rel] for rel in sorted(names, key=lambda r: (ends[r], names.index(r)))]
        self._thread = threading.Thread(target=self._run, name="specbook-execute", daemon=True)

    @property
    def pending(self) -> set[str]:
        """The docnames still executing (or not yet started)."""
        return {name for name, done in self._done.items() if not done.is_set()}

    def start(self) -> "PageRuns":
        self._thread.start()
        return self

    def _run(self) -> None:
        from specbook import execute

        try:
            self.failed = execute.execute_pages(
                self.root, [v.page for v in self.verdicts], cache_dir=self.cache_dir, out=self,
                prefix="specbook: ", verdicts=self.verdicts, on_finished=self._finished, timeout=self.timeout,
                report_failures=False)
        except BaseException as error:  # noqa: BLE001 - reported by the build's thread
            self.error = error
        finally:
            for done in self._done.values():
                done.set()

    def _finished(self, rel: str, error: str | None) -> None:
        name = self.docnames.get(rel)
        if name is not None:
            self.ok[name] = error is None
            if error is not None:
                self.failures[name] = error
            self._done[name].set()

    # a text stream for execute_pages' report
    def write(self, text: str) -> None:
        with self._lock:
            self._partial += text
            *whole, self._partial = self._partial.split("\n")
            self._lines.extend(line for line in whole if line.strip())

    def flush(self) -> None:
        pass

    def take_lines(self) -> list[str]:
        """The report lines printed since the last call."""
        with self._lock:
            lines, self._lines = self._lines, []
        return lines

    def reorder(self, docnames: list[str]) -> None:
        """Move the stale pages to the end of Sphinx's reading list, in the order they should finish."""
        stale = [name for name in self.order if name in docnames]
        rest = [name for name in docnames if name not in self._done]
        docnames[:] = rest + stale

    def wait(self, docname: str, log: Callable[[str], None]) -> bool | None:
        """Block until ``docname`` has run (logging report lines meanwhile); ``None`` if it was not stale."""
        done = self._done.get(docname)
        if done is None:
            return None
        while not done.wait(0.5):
            for line in self.take_lines():
                log(line)
        for line in self.take_lines():
            log(line)
        return self.ok.get(docname, False)

    def join(self, log: Callable[[str], None]) -> None:
        """Wait for every run to end and log what is left of the report."""
        self._thread.join()
        for line in self.take_lines():
            log(line)
        if self._partial.strip():
            log(self._partial)
            self._partial = ""
