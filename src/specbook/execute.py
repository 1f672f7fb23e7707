"""Execute the book's pages in parallel, into the jupyter-cache the strict build then reads.

Sphinx reads a Jupyter Book's pages one at a time (jupyter-book 1.x cannot read in
parallel), and each page's kernel runs while Sphinx waits. On a machine with
several cores that leaves all but one idle. ``make book`` therefore runs::

    python -m specbook.execute            # every page of _toc.yml, one kernel per core
    jupyter-book build -W -n --keep-going .

The first command executes every page that has code, several kernels at once, the
slowest pages first (their times are kept from the last run), and stores each
executed notebook in ``_build/.jupyter_cache``, the cache the book's configuration
(``execute_notebooks: cache``) points the build at. The build then reads every page's
outputs from the cache and executes nothing.

A cache must never show what older code printed. jupyter-cache matches a notebook by
its code cells only, so a change to ``src/`` alone would go unseen. This command
stamps the cache with a key of everything the pages import from this project
(:func:`source_key`), and ``specbook.sphinxext`` empties the cache at the start of a
build whose sources no longer match the stamp (or that has no stamp): a plain
``jupyter-book build`` executes every page itself, as with ``force``.

A page that fails is reported with the claim that broke (``FAILED CLAIM 'name'``),
after every page has run, and the command exits with status 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import re
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Iterable

from specbook._claims import _ANSI, failed_claim

__all__ = ["STAMP", "source_key", "toc_pages", "stamp_matches", "execute_pages", "main"]

STAMP = "specbook-source-key"
"""The file in the cache folder that holds the key of the sources its notebooks ran."""
TIMES = "page-seconds.json"
"""Each page's execution time in the last run, kept beside the cache to order the next one."""
_KEYED_SUFFIXES = {".py", ".md", ".txt", ".json", ".yml", ".yaml", ".toml"}


def _keyed_files(root: Path) -> Iterable[Path]:
    for folder in ("src",):
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(root).parts
            if (path.is_file() and path.suffix in _KEYED_SUFFIXES and "__pycache__" not in rel
                    and not any(p.endswith(".egg-info") for p in rel)):
                yield path
    for name in ("_config.yml", "pyproject.toml"):
        if (root / name).is_file():
            yield root / name


def source_key(root: str | os.PathLike[str]) -> str:
    """A SHA-256 over every file of ``src/`` the pages can import or read, and the book's configuration.

    The pages' own code cells are not in it: jupyter-cache keys each notebook by them.
    """
    root = Path(root).resolve()
    digest = hashlib.sha256()
    for path in _keyed_files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def stamp_matches(cache: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """Whether the cache folder was filled by this command from the sources ``root`` holds now."""
    stamp = Path(cache) / STAMP
    return stamp.is_file() and stamp.read_text().strip() == source_key(root)


def toc_pages(root: str | os.PathLike[str]) -> list[Path]:
    """The table of contents' pages, in reading order, that are MyST notebooks with code to run."""
    import yaml
    from myst_nb.core.read import is_myst_markdown_notebook

    root = Path(root).resolve()
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    names: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "file" in node or "root" in node:
                names.append(str(node.get("file", node.get("root"))))
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(toc)
    pages = []
    for name in names:
        path = root / (name if name.endswith(".md") else name + ".md")
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        if is_myst_markdown_notebook(text) and re.search(r"^```\{code-cell\}", text, re.M):
            pages.append(path)
    return pages


def _md_config(root: Path):
    """The Markdown parser configuration the book reads its pages with (``parse:`` in ``_config.yml``)."""
    import yaml
    from myst_parser.config.main import MdParserConfig

    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    extensions = (config.get("parse") or {}).get("myst_enable_extensions") or []
    return MdParserConfig(enable_extensions=set(extensions))


def _read(path: Path, root: Path):
    """The page as a notebook, read exactly as myst-nb reads it, so its cache key is the build's."""
    from myst_nb.core.config import NbParserConfig
    from myst_nb.core.read import create_nb_reader

    text = path.read_text(encoding="utf-8")
    reader = create_nb_reader(str(path), _md_config(root), NbParserConfig(), text)
    if reader is None:  # pragma: no cover - toc_pages keeps notebooks only
        raise ValueError(f"{path} is not a MyST notebook")
    return reader.read(text)


def _execute(path_text: str, root_text: str, timeout: int) -> dict[str, Any]:
    """Run in a worker process: execute one page from its own folder, as the build does."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    path, root = Path(path_text), Path(root_text)
    nb = _read(path, root)
    result = single_nb_execution(nb, cwd=str(path.parent), timeout=timeout, allow_errors=False, meta_override=True)
    return {
        "notebook": nbformat.writes(nb),
        "seconds": float(result.time),
        "error": None if result.err is None else (result.exc_string or repr(result.err)),
    }


def _order(pages: list[Path], times: dict[str, float]) -> list[Path]:
    """The slowest pages of the last run first (so the last page to finish is a short one), else reading order."""
    return sorted(pages, key=lambda p: -times.get(p.as_posix(), 0.0))


def execute_pages(root: str | os.PathLike[str], *, workers: int | None = None, timeout: int = 600,
                  out=sys.stdout) -> int:
    """Empty the cache, execute every page with code (``workers`` at once), cache each, stamp the cache.

    Returns the number of pages that failed; each is reported with the claim that broke.
    """
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    root = Path(root).resolve()
    build = root / "_build"
    cache_dir = build / ".jupyter_cache"
    times_path = build / TIMES
    key = source_key(root)
    shutil.rmtree(cache_dir, ignore_errors=True)
    cache = get_cache(str(cache_dir))
    times = json.loads(times_path.read_text()) if times_path.is_file() else {}
    pages = _order(toc_pages(root), times)
    workers = max(1, min(workers or os.cpu_count() or 1, len(pages) or 1))
    print(f"specbook.execute: {len(pages)} pages, {workers} at a time", file=out, flush=True)
    failures: list[tuple[Path, str]] = []
    new_times: dict[str, float] = {}
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        running = {pool.submit(_execute, str(p), str(root), timeout): p for p in pages}
        for done in as_completed(running):
            page = running[done]
            rel = page.relative_to(root).as_posix()
            try:
                result = done.result()
            except Exception as error:  # noqa: BLE001 - a worker that died is a failed page
                result = {"notebook": None, "seconds": 0.0, "error": f"{type(error).__name__}: {error}"}
            new_times[rel] = result["seconds"]
            if result["error"] is None:
                nb = nbformat.reads(result["notebook"], as_version=4)
                cache.cache_notebook_bundle(CacheBundleIn(nb, str(page), data={"execution_seconds": result["seconds"]}),
                                            check_validity=False, overwrite=True)
                print(f"{page}: Executed notebook in {result['seconds']:.2f} seconds", file=out, flush=True)
            else:
                failures.append((page, result["error"]))
                found = failed_claim(result["error"])
                named = f"FAILED CLAIM {found[0]!r}" if found else "FAILED"
                print(f"{page}: {named} after {result['seconds']:.2f} seconds", file=out, flush=True)
    times_path.write_text(json.dumps(dict(sorted(new_times.items())), indent=1))
    print(f"specbook.execute: {len(pages) - len(failures)} of {len(pages)} pages executed in "
          f"{time.perf_counter() - start:.1f} s", file=out, flush=True)
    for page, error in failures:
        print(f"\n---- {page.relative_to(root).as_posix()} ----\n{_ANSI.sub('', error)}", file=out, flush=True)
    if not failures:
        (cache_dir / STAMP).write_text(key + "\n")
    return len(failures)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specbook.execute", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=".", help="the book's root folder (holds _toc.yml and _config.yml)")
    parser.add_argument("--workers", type=int, default=None, help="kernels at once (default: one per core)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds a cell may run")
    args = parser.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        parser.error(f"--workers = {args.workers} is not allowed; expected a whole number of at least 1")
    return 1 if execute_pages(args.root, workers=args.workers, timeout=args.timeout) else 0


if __name__ == "__main__":
    sys.exit(main())
