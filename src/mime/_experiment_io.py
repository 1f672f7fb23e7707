"""Disk side of saved experiments: the document's text, content-named arrays, atomic replace.

A folder holds ``experiment.json`` and ``arrays/<sha256>.npy``. Arrays are named
by their content, and are only ever added before the document is replaced, so
the document on disk always names arrays that exist: a crash at any point of a
save leaves either the previous folder or the new one, never a mix. Arrays no
longer named are removed after the document is in place.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np

DOCUMENT = "experiment.json"
ARRAYS = "arrays"
_TMP = ".tmp-"


def document_text(doc: Mapping[str, Any]) -> str:
    """The canonical text: sorted keys, indent 2, UTF-8 kept, one trailing newline."""
    return json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def array_bytes(array: Any) -> bytes:
    """The ``.npy`` bytes of ``array`` (a NumPy or JAX array), deterministic for equal arrays."""
    buf = io.BytesIO()
    np.save(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def array_name(data: bytes) -> str:
    """``arrays/<sha256 of the bytes>.npy``."""
    return f"{ARRAYS}/{hashlib.sha256(data).hexdigest()}.npy"


def _replace(src: Path, dst: Path) -> None:
    """``os.replace``: the one atomic step (a seam tests use to simulate a crash)."""
    os.replace(src, dst)


def _write_file(path: Path, data: bytes) -> None:
    tmp = path.with_name(f"{path.name}{_TMP}{os.getpid()}")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    _replace(tmp, path)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def write_folder(folder: Path, text: str, arrays: Mapping[str, bytes]) -> None:
    """Write ``arrays`` (name -> bytes) then ``text`` as the document, atomically; then tidy."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ARRAYS).mkdir(exist_ok=True)
    for stale in list(folder.glob(f"*{_TMP}*")) + list((folder / ARRAYS).glob(f"*{_TMP}*")):
        stale.unlink(missing_ok=True)
    for name, data in arrays.items():
        target = folder / name
        if not (target.exists() and target.read_bytes() == data):
            _write_file(target, data)
    _fsync_dir(folder / ARRAYS)
    _write_file(folder / DOCUMENT, text.encode("utf-8"))
    _fsync_dir(folder)
    keep = {Path(n).name for n in arrays}
    for path in (folder / ARRAYS).glob("*.npy"):
        if path.name not in keep:
            path.unlink(missing_ok=True)


def read_array(folder: Path, name: str) -> np.ndarray:
    """Load ``folder/name`` without pickles."""
    return np.load(folder / name, allow_pickle=False)
