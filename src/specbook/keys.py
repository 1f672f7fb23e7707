"""A page's execution key: its code cells, the files it used, and the environment it ran in.

jupyter-cache matches an executed page by its code cells alone. That misses what a page
*uses*: the modules it imports from ``src/``, the project files it reads, and the versions and
settings that shape its numbers. While a page runs, ``specbook.execute`` records the first two
(see ``specbook._record``); this module turns that record into a key and says, for a page
whose key changed, why::

    book/skcomplex/reflection.md: re-ran (src/skcomplex/engine/events.py changed)
    book/maddening/ball.md: cached

The record is kept beside the executed notebook, in the jupyter-cache record's ``data``
(:data:`DATA_KEY`). Everything here is standard library, cheap enough to check every page on
every build.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping

__all__ = ["DATA_KEY", "environment_record", "file_hashes", "page_key", "why_stale"]

DATA_KEY = "specbook"
"""The key, in a jupyter-cache record's ``data``, of what the page used (its *use record*)."""

_VERSIONED = ("jax", "jaxlib", "numpy")
_ACCELERATOR_PLUGINS = ("jax-cuda12-plugin", "jax-cuda13-plugin", "jax-rocm60-plugin", "libtpu")


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def environment_record(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What shapes a page's results besides its code: Python, jax/jaxlib/numpy, the x64 flag, the platform.

    Read without importing JAX: versions from the installed distributions, the x64 flag
    (``JAX_ENABLE_X64``) and the platform choice (``JAX_PLATFORMS``) from the environment the
    kernels inherit, and the host's operating system and machine. A page that switches x64 on
    for itself does so in its code cells, which are in its key already.

    >>> sorted(environment_record({}))
    ['accelerators', 'jax', 'jax_platforms', 'jaxlib', 'numpy', 'platform', 'python', 'x64']
    """
    environ = os.environ if environ is None else environ
    record: dict[str, Any] = {"python": platform.python_version()}
    record.update({name: _version(name) for name in _VERSIONED})
    record["x64"] = _flag(environ.get("JAX_ENABLE_X64"))
    record["jax_platforms"] = environ.get("JAX_PLATFORMS", "") or "default"
    record["platform"] = f"{platform.system()}-{platform.machine()}"
    record["accelerators"] = sorted(name for name in _ACCELERATOR_PLUGINS if _version(name))
    return record


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def file_hashes(root: str | os.PathLike[str], files: list[str]) -> dict[str, str | None]:
    """SHA-256 of each project-relative file (``None`` for one that does not exist)."""
    root = Path(root)
    return {name: _sha256(root / name) for name in sorted(set(files))}


def page_key(cells_hash: str, files: Mapping[str, str | None], environment: Mapping[str, Any]) -> str:
    """The page's execution key: a SHA-256 of its code cells' hash, its files' hashes and its environment.

    >>> page_key("abc", {"src/a.py": "1"}, {"python": "3.11"}) == page_key("abc", {"src/a.py": "1"}, {"python": "3.11"})
    True
    >>> page_key("abc", {"src/a.py": "1"}, {}) == page_key("abc", {"src/a.py": "2"}, {})
    False
    """
    text = json.dumps({"cells": cells_hash, "files": dict(sorted(files.items())),
                       "environment": dict(sorted(environment.items()))}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _listed(names: list[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def why_stale(record: Mapping[str, Any] | None, root: str | os.PathLike[str],
              environment: Mapping[str, Any]) -> str | None:
    """Why a page's cached execution no longer holds, or ``None`` when it still does.

    ``record`` is the use record stored with the cached notebook whose code cells match
    the page's (``None`` when the notebook was cached without one, by a plain
    ``jupyter-book build``). The reason names what changed, as a reader wants it:
    the files (``src/mime/contact.py changed``), or the environment
    (``environment changed: jax 0.4.30 -> 0.4.31``).
    """
    if not record or "files" not in record or "environment" not in record:
        return "no record of what it used"
    old_env = record["environment"]
    moved = [f"{k} {old_env.get(k)} -> {environment.get(k)}"
             for k in sorted(set(old_env) | set(environment)) if old_env.get(k) != environment.get(k)]
    if moved:
        return "environment changed: " + _listed(moved)
    now = file_hashes(root, list(record["files"]))
    changed = [name for name, digest in record["files"].items() if now.get(name) != digest]
    if not changed:
        return None
    removed = [n for n in changed if now.get(n) is None]
    created = [n for n in changed if record["files"][n] is None]
    edited = [n for n in changed if n not in removed and n not in created]
    parts = []
    if edited:
        parts.append(_listed(edited) + " changed")
    if removed:
        parts.append(_listed(removed) + " removed")
    if created:
        parts.append(_listed(created) + " created")
    return "; ".join(parts)
