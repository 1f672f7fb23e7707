"""What a page used while it ran: runs inside the page's kernel, standard library only.

``specbook.execute`` loads this file into the kernel under the name ``_specbook_record``
(not as part of the ``specbook`` package, so loading it imports nothing a page would not)
before the first cell, and asks for :func:`report` after the last. Between the two:

- an audit hook (:func:`sys.addaudithook`, event ``open``) notes every file of the project
  the page opens for reading (data, notes, saved experiments, its own folder's files);
- after each cell, the claims the cell made or re-made are noted with the cell's execution
  count, so the build can anchor each claim to the cell that makes it;
- once JAX is imported, a :mod:`jax.monitoring` listener sums the seconds JAX spends
  tracing, lowering and compiling (and reading compiled programs from its persistent
  cache), so the build can say where a page's time went;
- the same audit hook notes every file of JAX's persistent compilation cache
  (``JAX_COMPILATION_CACHE_DIR``) the page reads or writes: the compiled programs it
  used, by name, so the build can run pages that share programs one after the other;
- :func:`report` adds every module file under ``src/`` in ``sys.modules``, and every installed
  distribution one of the imported modules belongs to, with its version (SciPy, Diffrax,
  matplotlib, ...: what the page imported, not a fixed list), so that a new version of any of
  them makes the page stale.

A fault's run (:mod:`specbook.faults`) imports the code from a patched copy of ``src/``;
``start(root, src=copy)`` records that copy's modules under the project's own ``src/`` paths,
so the run is keyed by the files it was patched from.
"""

from __future__ import annotations

import json
import os
import sys

_IGNORED_PARTS = {".git", ".venv", "_build", "__pycache__", ".pytest_cache", ".hypothesis",
                  ".ipynb_checkpoints", ".jupyter_cache"}
_STATE: dict = {"root": None, "src": None, "read": set(), "cells": {}, "seen": {}, "jax": None, "jax_cache": None,
                "programs": set()}
_PROGRAM_SUFFIX = "-cache"  # JAX's persistent cache keeps each program as <module>-<key>-cache
_JAX_EVENTS = {  # jax.monitoring duration events, summed under these names (seconds)
    "/jax/core/compile/jaxpr_trace_duration": "tracing",
    "/jax/core/compile/jaxpr_to_mlir_module_duration": "lowering",
    "/jax/core/compile/backend_compile_duration": "compiling",
    "/jax/compilation_cache/cache_retrieval_time_sec": "cache reads",
}


def _on_jax_event(event: str, seconds: float, **_: object) -> None:
    name = _JAX_EVENTS.get(event)
    if name is not None:
        _STATE["jax"][name] = _STATE["jax"].get(name, 0.0) + float(seconds)


def _listen_to_jax() -> None:
    """Register the duration listener once ``jax.monitoring`` exists (imported by the page, never by us)."""
    monitoring = sys.modules.get("jax.monitoring")
    if _STATE["jax"] is not None or monitoring is None:
        return
    register = getattr(monitoring, "register_event_duration_secs_listener", None)
    if register is None:  # pragma: no cover - every supported jax has it
        return
    _STATE["jax"] = {}
    register(_on_jax_event)


def _under_root(path: str) -> str | None:
    """The project-relative POSIX path of ``path`` if it is a file of the project worth keying."""
    root = _STATE["root"]
    if root is None:
        return None
    try:
        full = os.path.abspath(os.fsdecode(path))
    except (TypeError, ValueError):
        return None
    src = _STATE["src"]
    if src is not None and full.startswith(src + os.sep):  # a fault's patched copy stands for src/
        full = os.path.join(root, "src", full[len(src) + 1:])
    if not full.startswith(root + os.sep):
        return None
    rel = full[len(root) + 1:].replace(os.sep, "/")
    parts = rel.split("/")
    if _IGNORED_PARTS.intersection(parts) or any(p.endswith(".egg-info") for p in parts):
        return None
    if rel.endswith((".pyc", ".pyo")):
        return None
    return rel


def _reads(mode, flags) -> bool:
    if isinstance(mode, str):
        return not any(c in mode for c in "wax+")
    if isinstance(flags, int):
        return (flags & 3) == os.O_RDONLY
    return True


def _hook(event: str, args: tuple) -> None:
    if event == "import":
        if _STATE["jax"] is None and "jax.monitoring" in sys.modules:
            _listen_to_jax()
        return
    if event != "open" or not args:
        return
    path = args[0]
    if isinstance(path, int):  # os.fdopen / an already-open descriptor
        return
    cache = _STATE["jax_cache"]
    if cache is not None and isinstance(path, (str, bytes, os.PathLike)):
        name = os.fsdecode(path)
        if name.startswith(cache) and name.endswith(_PROGRAM_SUFFIX):
            _STATE["programs"].add(os.path.basename(name)[:-len(_PROGRAM_SUFFIX)])
            return
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 else None
    if not _reads(mode, flags):
        return
    rel = _under_root(path)
    if rel is not None:
        _STATE["read"].add(rel)


def _after_cell(result) -> None:
    claims = sys.modules.get("specbook._claims")
    if claims is None:
        return
    count = getattr(result, "execution_count", None)
    current = getattr(claims, "_CLAIMS", {})
    for key, record in current.items():
        if _STATE["seen"].get(key) is not record:  # made (or made again) in this cell
            _STATE["seen"][key] = record
            _STATE["cells"][key] = count


def start(root: str, src: str | None = None) -> None:
    """Begin recording for the project at ``root`` (called once, before the page's first cell).

    ``src`` is a copy of the project's ``src/`` the page imports instead (a fault's patched copy):
    its files are recorded as the project's own.
    """
    _STATE["root"] = os.path.abspath(root)
    _STATE["src"] = os.path.abspath(src) if src else None
    cache = os.environ.get("JAX_COMPILATION_CACHE_DIR")
    _STATE["jax_cache"] = os.path.join(os.path.abspath(cache), "") if cache else None
    sys.addaudithook(_hook)  # audit hooks cannot be removed; the kernel ends with the page
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - always inside an IPython kernel
        return
    shell = get_ipython()
    if shell is not None:
        shell.events.register("post_run_cell", _after_cell)


def _module_files() -> set[str]:
    files = set()
    for name, module in list(sys.modules.items()):
        if name == "_specbook_record":
            continue
        path = getattr(module, "__file__", None)
        if not path:
            continue
        rel = _under_root(path)
        if rel is not None and rel.startswith("src/") and rel.endswith(".py"):
            files.add(rel)
    return files


def _passed_over() -> list[str]:
    mode = sys.modules.get("specbook._mode")
    return mode.passed_over() if mode is not None else []


def _claims() -> list[dict]:
    claims = sys.modules.get("specbook._claims")
    if claims is None:
        return []
    # record mode: a claim that failed once counts as failed, with the values it failed with
    failed = {r.key: r for r in claims.recorded_failures()} if hasattr(claims, "recorded_failures") else {}
    out = []
    for last in claims.all_claims():
        record = failed.get(last.key, last)
        source = record.source
        out.append({
            "key": record.key, "measured": record.measured, "expected": record.expected,
            "rtol": record.rtol, "atol": record.atol, "tolerance": record.tolerance, "unit": record.unit,
            "holds": bool(record.passed) and last.key not in failed, "description": record.description,
            "source": None if source is None else {"kind": source.kind, "ref": source.ref},
            "example": bool(getattr(record, "example", False)),
            "cell": _STATE["cells"].get(record.key),
        })
    made = {c["key"] for c in out}
    for key, record in failed.items():  # failed, then forgotten: the build would have stopped at it
        if key not in made:
            out.append({"key": key, "measured": record.measured, "expected": record.expected, "holds": False,
                        "example": bool(getattr(record, "example", False)), "forgotten": True,
                        "source": None if record.source is None else {"kind": record.source.kind,
                                                                      "ref": record.source.ref}})
    return out


def _distributions() -> dict[str, str]:
    """Every installed distribution that one of the imported modules belongs to, with its version."""
    from importlib import metadata

    top = {name.partition(".")[0] for name, module in list(sys.modules.items())
           if name != "_specbook_record" and getattr(module, "__file__", None)}
    owners = metadata.packages_distributions()
    found = {}
    for name in sorted({d for t in top for d in owners.get(t, ())}):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:  # pragma: no cover - listed, then removed
            continue
    return found


def report() -> str:
    """What the page used and claimed, as JSON: ``modules``, ``reads`` (project-relative), ``claims``,
    ``distributions`` (each imported distribution's version), ``jax_seconds`` (JAX's tracing,
    lowering, compiling and cache reads, seconds) and ``programs`` (the names of the compiled
    programs it read from or wrote to JAX's persistent cache) and ``passed_over`` (record mode: the
    figures and NaN glues the page stepped past, ``specbook._mode``)."""
    modules = _module_files()
    reads = {r for r in _STATE["read"] if r not in modules and os.path.isfile(os.path.join(_STATE["root"], r))}
    missing = {r for r in _STATE["read"] if not os.path.exists(os.path.join(_STATE["root"], r))}
    spent = _STATE["jax"] or {}
    jax_seconds = {name: round(spent[name], 3) for name in _JAX_EVENTS.values() if name in spent}
    return json.dumps({"modules": sorted(modules), "reads": sorted(reads), "missing": sorted(missing),
                       "claims": _claims(), "distributions": _distributions(), "jax_seconds": jax_seconds,
                       "programs": sorted(_STATE["programs"]), "passed_over": _passed_over()})
