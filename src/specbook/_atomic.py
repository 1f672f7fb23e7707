"""Writing a file so that a reader sees the old file or the new one, never half of either.

Every file the build writes and a later build reads (the claim ledger, the build key, the
page times, the schedule, a page's executed notebook) goes through here. The bytes go to a
temporary file beside the target, are flushed to disk, and the temporary file is renamed
over the target: on POSIX a rename within one folder is atomic, so a build killed at any
moment leaves the previous file, or none, in place. A write interrupted by an exception
(``KeyboardInterrupt`` included) removes its temporary file; one ended by ``SIGKILL``
leaves a hidden ``.<name>.<pid>.tmp`` beside the target, which no reader looks at.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["write_bytes", "write_text"]


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Replace ``path`` by ``data`` in one step; its folder is made if missing. Returns the path.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = Path(tmp)
    ...     written = write_bytes(folder / "a" / "x.bin", b"new").read_bytes()
    ...     left = sorted(p.name for p in (folder / "a").iterdir())
    >>> written
    b'new'
    >>> left  # no temporary file is left behind
    ['x.bin']
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(partial, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path


def write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Replace ``path`` by ``text`` in one step (:func:`write_bytes`). Returns the path."""
    return write_bytes(path, text.encode(encoding))

