"""Whether the last strict build is still the build of what is on disk now.

``make book`` runs Sphinx in a fresh environment every time it runs Sphinx, so no warning
is ever hidden. When *nothing* the build reads has changed since a strict build that
succeeded, that build's site is the answer, and Sphinx need not run again::

    python -m specbook.buildkey check    # exit 0: the site in _build/html is current
    python -m specbook.buildkey write    # after a strict build succeeded
    python -m specbook.buildkey write --diff _build/claims-previous.json   # then compare the ledgers

``make book`` asks ``check`` from the process that plans the pages (``specbook.execute --plan
--build-key``) and compares the ledgers from the one that writes the key, so each of the two
imports the notebook cache's libraries once.

The build key covers every file under ``book/``, ``src/`` and ``_static/`` (pages, the
stylesheet and script every page loads, and the code the API
pages document), the book's configuration (``_config.yml``, ``_toc.yml``, the
bibliography, ``pyproject.toml``), every page's execution key in the notebook cache
(so a data file a page reads counts too), the environment record and the versions of the
documentation stack, and the faults' stored runs (``_build/faults/runs``, which the build reads
into the ledger's kill matrix). Any change at all, a comment in a module or a word of prose, makes
``make book`` run the strict build again.

The key vouches only for what is there. ``write`` stores, with the key, the SHA-256 of every
file of the site the build wrote; ``check`` calls the site current only when every one of
them is still there, unchanged, and ``claims.json`` reads as a claim ledger. A site that a
killed build left half written, a ledger cut short, or a key file that is damaged or was
written by an older version of this module, makes the build run again; a reason is printed
for each but the first.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from importlib import metadata
from pathlib import Path

from specbook import _atomic
from specbook._cache import CacheUnusable, open_cache
from specbook.keys import DATA_KEY, environment_record

__all__ = ["KEY_FILE", "build_key", "check", "main", "write"]

KEY_FILE = Path("_build") / "specbook-build-key"
"""Where, relative to the book's root, the key of the last successful strict build is kept."""
_STACK = ("jupyter-book", "sphinx", "myst-nb", "myst-parser", "jupyter-cache", "sphinx-book-theme",
          "pydata-sphinx-theme", "sphinxcontrib-bibtex")
_SKIPPED = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".hypothesis"}


def _files(root: Path):
    for folder in ("book", "src", "_static"):
        for path in sorted((root / folder).rglob("*")):
            parts = path.relative_to(root).parts
            if path.is_file() and not _SKIPPED.intersection(parts) and not any(
                    p.endswith(".egg-info") for p in parts) and path.suffix not in {".pyc", ".pyo"}:
                yield path
    for name in ("_config.yml", "_toc.yml", "bibliography.bib", "pyproject.toml"):
        if (root / name).is_file():
            yield root / name


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def build_key(root: str | os.PathLike[str]) -> str:
    """A SHA-256 of everything the strict build reads: sources, pages' execution keys, environment, stack."""
    root = Path(root).resolve()
    digest = hashlib.sha256()
    for path in _files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    records = []
    cache = root / "_build" / ".jupyter_cache"
    if cache.is_dir():
        for record in open_cache(cache).list_cache_records():
            records.append((record.uri, record.hashkey, ((record.data or {}).get(DATA_KEY) or {}).get("key")))
    runs = root / "_build" / "faults" / "runs"  # the kill matrix the build reads (specbook._matrix.RUNS)
    fault_runs = sorted((p.relative_to(runs).as_posix(), hashlib.sha256(p.read_bytes()).hexdigest())
                        for p in runs.rglob("*.json")) if runs.is_dir() else []
    extra = {"records": sorted(records), "environment": environment_record(),
             "stack": {name: _version(name) for name in _STACK}, "fault_runs": fault_runs}
    digest.update(json.dumps(extra, sort_keys=True).encode())
    return digest.hexdigest()


def _site_files(site: Path) -> dict[str, str]:
    """The SHA-256 of every file of the built site, by its path in the site."""
    return {path.relative_to(site).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(site.rglob("*")) if path.is_file()}


def _why_not_current(stored: Path, site: Path, key: str) -> str | None:
    """Why the site cannot be vouched for (``""``: the key changed, the ordinary case), or ``None`` when it is current."""
    from specbook.ledger import LEDGER_NAME, read_ledger

    if not stored.is_file():
        return ""
    try:
        document = json.loads(stored.read_bytes())
        stored_key, files = document["key"], document["site"]
        if not (isinstance(stored_key, str) and isinstance(files, dict) and LEDGER_NAME in files):
            raise ValueError("it names no key or no site")
    except (OSError, ValueError, KeyError, TypeError) as error:
        return f"the stored key {KEY_FILE.as_posix()} is damaged or from an older version ({error})"
    if stored_key != key:
        return ""
    for name, digest in files.items():
        path = site / name
        try:
            same = hashlib.sha256(path.read_bytes()).hexdigest() == digest
        except OSError:
            return f"{(site / name).relative_to(site.parent.parent).as_posix()} is missing"
        if not same:
            return f"{(site / name).relative_to(site.parent.parent).as_posix()} changed since the build that wrote it"
    try:
        read_ledger(site / LEDGER_NAME)
    except (OSError, ValueError) as error:
        return str(error)
    return None


def check(root: str | os.PathLike[str] = ".") -> int:
    """``check``: 0 (and a line saying so) when the site in ``_build/html`` is current; else 1, the stored
    key dropped (with the reason, where it is not simply that something changed), or 2 when the notebook
    cache cannot be read. ``specbook.execute --plan --build-key`` asks this in its own process."""
    root = Path(root).resolve()
    stored = root / KEY_FILE
    try:
        key = build_key(root)
    except CacheUnusable as error:
        print(error, file=sys.stderr)
        return 2
    why = _why_not_current(stored, root / "_build" / "html", key)
    if why is None:
        print("specbook.buildkey: nothing the build reads changed since the last strict build; "
              "_build/html is current")
        return 0
    if why:
        print(f"specbook.buildkey: the last strict build's site cannot be vouched for ({why}); building again")
    stored.unlink(missing_ok=True)
    return 1


def write(root: str | os.PathLike[str] = ".", previous: str | os.PathLike[str] | None = None) -> int:
    """``write``: store the key of the build that just succeeded, with the hashes of its site; 1 when the
    build left no readable ledger (no key is written), 2 when the notebook cache cannot be read.

    With ``previous`` (an earlier ledger), the ledger just built is then compared with it
    (:mod:`specbook.diff`), in this process: the comparison informs and never changes the status."""
    root = Path(root).resolve()
    site = root / "_build" / "html"
    try:
        key = build_key(root)
    except CacheUnusable as error:
        print(error, file=sys.stderr)
        return 2
    from specbook.ledger import LEDGER_NAME, read_ledger

    try:
        read_ledger(site / LEDGER_NAME)
    except (OSError, ValueError) as error:
        print(f"specbook.buildkey: no key written: the build left no readable claim ledger ({error})",
              file=sys.stderr)
        return 1
    _atomic.write_text(root / KEY_FILE, json.dumps({"key": key, "site": _site_files(site)}, indent=0) + "\n")
    if previous is not None and Path(previous).is_file():
        from specbook import diff

        diff.main([str(previous), str(site / LEDGER_NAME)])
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specbook.buildkey", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("check", "write"))
    parser.add_argument("--root", default=".", help="the book's root folder")
    parser.add_argument("--diff", default=None, metavar="PREVIOUS",
                        help="write: then compare the ledger just built with this earlier one (specbook.diff)")
    args = parser.parse_args(argv)
    if args.action == "write":
        return write(args.root, args.diff)
    if args.diff is not None:
        parser.error("--diff goes with write")
    return check(args.root)


if __name__ == "__main__":
    sys.exit(main())
