"""Fault injection for ``tests/book/test_build_faults.py``: a build stalls half-way through writing a file.

With this folder first on ``PYTHONPATH`` and ``SPECBOOK_TEST_STALL`` set to a file name
(``claims.json``, ``second.html``, ``base.ipynb``), the first time a Python process of the
build opens for writing a file whose name contains it, the write puts half of its bytes on
disk, flushes them, creates the file named by ``SPECBOOK_TEST_STALL_MARK``, and then waits
(a minute at most) for the test to kill the build: the moment a build dies in the middle of
writing that file. Without ``SPECBOOK_TEST_STALL`` this module does nothing.
"""

import builtins
import io
import os
import time

_TARGET = os.environ.get("SPECBOOK_TEST_STALL")
_MARK = os.environ.get("SPECBOOK_TEST_STALL_MARK", "")

if _TARGET and _MARK:
    _open = builtins.open

    class _Stalling:
        """A file whose first write stops half-way until the process is killed."""

        def __init__(self, handle):
            self._handle = handle

        def write(self, data):
            half = len(data) // 2
            self._handle.write(data[:half])
            self._handle.flush()
            os.fsync(self._handle.fileno())
            with _open(_MARK, "w") as mark:
                mark.write(str(os.getpid()))
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                time.sleep(0.05)
            return half + self._handle.write(data[half:])

        def __enter__(self):
            return self

        def __exit__(self, *exc_info):
            return self._handle.__exit__(*exc_info)

        def __getattr__(self, name):
            return getattr(self._handle, name)

    def _stalling_open(file, mode="r", *args, **kwargs):
        handle = _open(file, mode, *args, **kwargs)
        if (isinstance(file, (str, os.PathLike)) and any(flag in mode for flag in "wax")
                and _TARGET in os.path.basename(os.fspath(file)) and not os.path.exists(_MARK)):
            return _Stalling(handle)
        return handle

    builtins.open = io.open = _stalling_open
