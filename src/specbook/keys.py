"""A page's execution key: its code cells, the files it used, and the environment it ran in.

jupyter-cache matches an executed page by its code cells alone. That misses what a page
*uses*: the modules it imports from ``src/``, the project files it reads, the installed
distributions its imports came from, and the settings that shape its numbers. While a page
runs, ``specbook.execute`` records the first three (see ``specbook._record``: the
distributions are read from the kernel's ``sys.modules`` at the page's end, so a page that
imports SciPy is keyed by SciPy's version, and one that does not is not); this module turns
that record into a key and says, for a page whose key changed, why::

    book/skcomplex/reflection.md: re-ran (src/skcomplex/engine/events.py changed)
    book/mime/contact.md: re-ran (distribution changed: scipy 1.13.1 -> 1.14.0)
    book/maddening/ball.md: re-ran (environment changed: XLA_FLAGS (unset) -> --xla_cpu_enable_fast_math=true)
    book/maddening/verification.md: cached

The environment record holds Python's version, jax, jaxlib and numpy, the platform and every
environment variable that changes JAX's numbers or devices: ``XLA_FLAGS``, each ``JAX_*``
variable but those that only place or log the compilation cache (:data:`NEUTRAL_VARIABLES`),
and the accelerators' visibility variables.

The record is kept beside the executed notebook, in the jupyter-cache record's ``data``
(:data:`DATA_KEY`). Everything here is standard library, cheap enough to check every page on
every build.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping

__all__ = ["DATA_KEY", "NEUTRAL_VARIABLES", "environment_record", "file_hashes", "installed_versions", "page_key",
           "source_files", "source_hashes", "why_stale"]

DATA_KEY = "specbook"
"""The key, in a jupyter-cache record's ``data``, of what the page used (its *use record*)."""

_VERSIONED = ("jax", "jaxlib", "numpy")
_ACCELERATOR_PLUGINS = ("jax-cuda12-plugin", "jax-cuda13-plugin", "jax-rocm60-plugin", "libtpu")
_DEVICE_VARIABLES = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "TPU_VISIBLE_CHIPS")
NEUTRAL_VARIABLES = re.compile(
    r"JAX_(COMPILATION_CACHE_.*|PERSISTENT_CACHE_.*|RAISE_PERSISTENT_CACHE_ERRORS|EXPLAIN_CACHE_MISSES"
    r"|LOG_COMPILES|LOGGING_LEVEL|DEBUG_LOG_MODULES|TRACEBACK_FILTERING|TRACEBACK_IN_LOCATIONS_LIMIT"
    r"|INCLUDE_FULL_TRACEBACKS_IN_LOCATIONS|ENABLE_X64|PLATFORMS)")
"""The ``JAX_*`` variables left out of the key, as none of them changes a result. They say where the
persistent compilation cache lives and what it keeps (a hit returns the program XLA compiled before),
set logging, or are the two the record holds already under its own names (``x64``, ``jax_platforms``)."""


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


_INSTALLED: dict[tuple[str, ...], dict[str, str]] = {}


def installed_versions() -> dict[str, str]:
    """Every installed distribution's version, by normalised name (``scikit_learn`` -> ``scikit-learn``).

    Read once per process and search path: checking every page's distributions then costs one
    scan of the installed metadata, not one per name.
    """
    path = tuple(sys.path)
    found = _INSTALLED.get(path)
    if found is None:
        found = {}
        for dist in metadata.distributions():
            name, version = _name_and_version(dist)
            if name:
                found.setdefault(_normal(name), version)
        _INSTALLED.clear()
        _INSTALLED[path] = found
    return found


def _name_and_version(dist: metadata.Distribution) -> tuple[str | None, str | None]:
    """A distribution's ``Name`` and ``Version``, read from the header of its metadata alone.

    ``dist.metadata`` parses the whole file as an e-mail message, long description and all: for the
    few hundred distributions of a scientific environment that took a fifth of a second, in every
    process that keys a page. The header ends at the first blank line; a file without these fields
    falls back to the full parse.
    """
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            break
        key, colon, value = line.partition(":")
        if colon and key in ("Name", "Version") and key not in fields:
            fields[key] = value.strip()
    if "Name" in fields and "Version" in fields:
        return fields["Name"], fields["Version"]
    meta = dist.metadata
    return (meta["Name"] if meta else None), dist.version


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def environment_record(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What shapes a page's results besides its code: Python, jax/jaxlib/numpy, the x64 flag, the platform.

    Read without importing JAX: versions from the installed distributions, the x64 flag
    (``JAX_ENABLE_X64``) and the platform choice (``JAX_PLATFORMS``) from the environment the
    kernels inherit, and the host's operating system and machine. A page that switches x64 on
    for itself does so in its code cells, which are in its key already.

    The variables that change JAX's numbers or devices are recorded under their own names,
    when set: ``XLA_FLAGS``, every ``JAX_*`` but :data:`specbook.keys.NEUTRAL_VARIABLES`, and the
    accelerators' visibility (``CUDA_VISIBLE_DEVICES``, ...).

    >>> sorted(environment_record({}))
    ['accelerators', 'jax', 'jax_platforms', 'jaxlib', 'numpy', 'platform', 'python', 'x64']
    >>> sorted(environment_record({"XLA_FLAGS": "--xla_backend_optimization_level=0",
    ...                            "JAX_DEFAULT_MATMUL_PRECISION": "highest",
    ...                            "JAX_COMPILATION_CACHE_DIR": "/tmp/jax"}))[:3]
    ['JAX_DEFAULT_MATMUL_PRECISION', 'XLA_FLAGS', 'accelerators']
    """
    environ = os.environ if environ is None else environ
    record: dict[str, Any] = {"python": platform.python_version()}
    record.update({name: _version(name) for name in _VERSIONED})
    record["x64"] = _flag(environ.get("JAX_ENABLE_X64"))
    record["jax_platforms"] = environ.get("JAX_PLATFORMS", "") or "default"
    record["platform"] = f"{platform.system()}-{platform.machine()}"
    record["accelerators"] = sorted(name for name in _ACCELERATOR_PLUGINS if _version(name))
    for name, value in environ.items():
        if name == "XLA_FLAGS" or name in _DEVICE_VARIABLES or (
                name.startswith("JAX_") and not NEUTRAL_VARIABLES.fullmatch(name)):
            record[name] = value
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


def source_files(root: str | os.PathLike[str], folder: str = "src") -> list[str]:
    """Every Python file under ``root/folder``, project-relative and sorted: the code any page may import
    (bytecode caches and ``*.egg-info`` folders left out)."""
    root = Path(root)
    return [p.relative_to(root).as_posix() for p in sorted((root / folder).rglob("*.py"))
            if "__pycache__" not in p.parts and not any(part.endswith(".egg-info") for part in p.parts)]


def source_hashes(root: str | os.PathLike[str], folder: str = "src") -> dict[str, str | None]:
    """:func:`file_hashes` of :func:`source_files`.

    Coarser than a page's key (which holds only the files the page used), for a record that has no
    use record of its own, such as what a page glued under nbval.

    >>> hashes = source_hashes(Path(__file__).parents[2])
    >>> "src/specbook/keys.py" in hashes and all(len(h) == 64 for h in hashes.values())
    True
    """
    return file_hashes(root, source_files(root, folder))


def page_key(cells_hash: str, files: Mapping[str, str | None], environment: Mapping[str, Any],
             distributions: Mapping[str, str] | None = None) -> str:
    """The page's execution key: a SHA-256 of its code cells' hash, its files' hashes, its environment
    and the versions of the distributions it imported.

    >>> page_key("abc", {"src/a.py": "1"}, {"python": "3.11"}) == page_key("abc", {"src/a.py": "1"}, {"python": "3.11"})
    True
    >>> page_key("abc", {"src/a.py": "1"}, {}) == page_key("abc", {"src/a.py": "2"}, {})
    False
    >>> page_key("abc", {}, {"x64": True}) == page_key("abc", {}, {"x64": False})
    False
    >>> page_key("abc", {}, {}, {"scipy": "1.13.1"}) == page_key("abc", {}, {}, {"scipy": "1.14.0"})
    False
    """
    parts = {"cells": cells_hash, "files": dict(sorted(files.items())),
             "environment": dict(sorted(environment.items()))}
    if distributions:
        parts["distributions"] = dict(sorted(distributions.items()))
    text = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _shown(value: Any) -> str:
    return "(unset)" if value is None else str(value)


def _listed(names: list[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def why_stale(record: Mapping[str, Any] | None, root: str | os.PathLike[str],
              environment: Mapping[str, Any]) -> str | None:
    """Why a page's cached execution no longer holds, or ``None`` when it still does.

    ``record`` is the use record stored with the cached notebook whose code cells match
    the page's (``None`` when the notebook was cached without one, by a plain
    ``jupyter-book build``). The reason names what changed, as a reader wants it:
    the files (``src/mime/contact.py changed``), the environment
    (``environment changed: jax 0.4.30 -> 0.4.31``, ``XLA_FLAGS (unset) -> ...``) or a
    distribution the page imported (``distribution changed: scipy 1.13.1 -> 1.14.0``).
    A record made before distributions were recorded is stale: it cannot say which it used.
    """
    if not record or "files" not in record or "environment" not in record:
        return "no record of what it used"
    old_env = record["environment"]
    moved = [f"{k} {_shown(old_env.get(k))} -> {_shown(environment.get(k))}"
             for k in sorted(set(old_env) | set(environment)) if old_env.get(k) != environment.get(k)]
    if moved:
        return "environment changed: " + _listed(moved)
    if "distributions" not in record:
        return "no record of the distributions it imported"
    installed = installed_versions()
    bumped = [f"{name} {version} -> {installed.get(_normal(name), '(not installed)')}"
              for name, version in sorted(record["distributions"].items())
              if installed.get(_normal(name)) != version]
    if bumped:
        return "distribution changed: " + _listed(bumped)
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
