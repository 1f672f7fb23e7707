"""A pytest plugin for ``bench/budget.py``: each XLA compilation of the session, with the test that made it.

Loaded with ``-p _compile_log`` (``bench/`` on ``PYTHONPATH``). It turns on JAX's ``jax_log_compiles``
and reads JAX's own log line for every program XLA compiled (a persistent-cache hit logs none), and
appends ``seconds <TAB> program <TAB> test id`` to ``$BUDGET_COMPILE_LOG/<pid>.tsv``: one file per
process, so that pytest-xdist's workers never write to one file. Nothing else in the run changes but
the log level of the ``jax`` logger, whose lines this plugin keeps to itself.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import pytest

_FINISHED = re.compile(r"Finished XLA compilation of (.+?) in ([0-9.eE+-]+) sec")
_TEST = ["(collection)"]


class _Compiles(logging.Handler):
    def __init__(self, out) -> None:
        super().__init__(logging.DEBUG)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        found = _FINISHED.search(record.getMessage())
        if found:
            self.out.write(f"{float(found.group(2)):.6f}\t{found.group(1)}\t{_TEST[0]}\n")


def pytest_configure(config) -> None:
    folder = os.environ.get("BUDGET_COMPILE_LOG")
    if not folder:
        return
    import jax

    out = (Path(folder) / f"{os.getpid()}.tsv").open("a", buffering=1, encoding="utf-8")
    jax.config.update("jax_log_compiles", True)
    logger = logging.getLogger("jax")
    logger.addHandler(_Compiles(out))
    logger.setLevel(logging.DEBUG)
    logger.propagate = False  # the compile lines go to the file, not to the run's output


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _TEST[0] = item.nodeid
    yield
