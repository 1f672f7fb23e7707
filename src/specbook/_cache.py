"""The notebook cache, opened so that a damaged one costs a re-run and never stops a build.

The cache (``_build/.jupyter_cache``, a jupyter-cache store) is a SQLite database,
``global.db``, of executed pages, with each page's executed notebook in a folder of its own
(``executed/<hash>/base.ipynb``). A build killed at the wrong moment, a full disk or a
copy cut short can leave either one damaged. jupyter-cache then fails with a database
error on every build, until someone finds the hidden folder and deletes it.

So the cache is checked before a build trusts it. A database that SQLite cannot read, or
that fails its ``quick_check``, is moved aside, whole, to a dated folder beside it
(``_build/.jupyter_cache.damaged-20261204-181502``), with a message, and every page runs
again into a fresh cache. A cached notebook that is missing or does not parse is moved
into such a folder too, its record dropped, and its page runs again. Nothing is deleted:
the folder set aside is there to look at, and to delete once it is of no more use.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

__all__ = ["CacheUnusable", "DAMAGED", "forget", "notebook_problem", "open_cache", "set_aside_notebook"]

DAMAGED = ".damaged-"
"""What a folder set aside adds to the cache's name, before the date and time."""


class CacheUnusable(RuntimeError):
    """The cache cannot be read and could not be moved aside; the message says what to do."""


def _shown(path: Path) -> str:
    """``path`` relative to the working folder where it lies below it, else as it is."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _reason(error: BaseException) -> str:
    """An exception as one plain line: SQLAlchemy's messages carry the SQL and a link after the first line."""
    text = str(getattr(error, "orig", None) or error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _database_problem(folder: Path) -> str | None:
    """Why the cache's database cannot be used, or ``None`` when it reads and passes SQLite's check."""
    from jupyter_cache import get_cache

    cache = None
    try:
        cache = get_cache(str(folder))
        with cache.db.connect() as connection:
            verdict = connection.exec_driver_sql("PRAGMA quick_check").scalar()
        if verdict != "ok":
            return f"SQLite's check of global.db failed: {verdict}"
        cache.list_cache_records()
        cache.list_project_records()
    except Exception as error:  # noqa: BLE001 - any failure to read it makes the cache unusable
        reason = _reason(error)
        # another process writing it is no damage (the build lock keeps builds of one tree apart)
        return None if "locked" in reason or "busy" in reason else reason
    finally:
        if cache is not None:
            cache.db.dispose()  # the probe's connections
    return None


def _aside(folder: Path, *, fresh: bool = True) -> Path:
    """The dated folder beside ``folder`` to set it, or a part of it (``fresh=False``), aside in."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = folder.with_name(f"{folder.name}{DAMAGED}{stamp}")
    count = 2
    while fresh and target.exists():
        target = folder.with_name(f"{folder.name}{DAMAGED}{stamp}-{count}")
        count += 1
    return target


def open_cache(folder: str | os.PathLike[str], *, out: TextIO | Any | None = None):
    """The jupyter-cache store in ``folder``, after moving a damaged one aside (see the module's docstring).

    Raises :class:`CacheUnusable`, with a message that says what to do, only when the damaged
    cache cannot even be moved.
    """
    from jupyter_cache import get_cache

    folder = Path(folder)
    if (folder / "global.db").exists():
        problem = _database_problem(folder)
        if problem is not None:
            target = _aside(folder)
            try:
                os.rename(folder, target)
            except OSError as error:
                raise CacheUnusable(
                    f"specbook: the notebook cache {_shown(folder)} cannot be read ({problem}), and it could not "
                    f"be moved aside ({error.strerror or error}). Move or delete {_shown(folder)} yourself, then "
                    "build again: every page will run again.") from None
            print(f"specbook: the notebook cache {_shown(folder)} cannot be read ({problem}). It was moved "
                  f"aside to {_shown(target)}, and every page will run again; delete that folder once you no "
                  "longer need it.", file=out or sys.stdout, flush=True)
    return get_cache(str(folder))


def _notebook_folder(cache, record) -> Path:
    # jupyter-cache 1.x keeps each executed notebook in executed/<hashkey>/base.ipynb
    return Path(cache.path) / "executed" / record.hashkey


def notebook_problem(cache, record, code_cells: int) -> str | None:
    """Why the notebook stored for ``record`` cannot be used, or ``None`` when it parses and fits the page.

    ``code_cells`` is the number of code cells of the page it was matched to: myst-nb
    takes one cached cell for each.
    """
    path = _notebook_folder(cache, record) / "base.ipynb"
    try:
        notebook = json.loads(path.read_bytes())
    except FileNotFoundError:
        return "its cached notebook is missing"
    except (OSError, ValueError) as error:
        return f"its cached notebook is damaged ({_reason(error)})"
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list) or sum(
            isinstance(c, dict) and c.get("cell_type") == "code" for c in cells) != code_cells:
        return "its cached notebook is damaged (its cells do not match the page's)"
    return None


def forget(cache, pk: int) -> None:
    """Drop a cached notebook and its record; a record whose notebook is already gone is dropped too."""
    from jupyter_cache.cache.db import NbCacheRecord

    try:
        cache.remove_cache(pk)
    except KeyError:  # its notebook file is gone (a build killed while it wrote it)
        NbCacheRecord.remove_records([pk], cache.db)


def set_aside_notebook(cache, record, label: str, problem: str, *, out: TextIO | Any | None = None) -> None:
    """Move a damaged cached notebook into a dated folder beside the cache and drop its record."""
    from jupyter_cache.cache.db import NbCacheRecord

    folder = _notebook_folder(cache, record)
    where = ""
    if folder.exists():
        target = _aside(Path(cache.path), fresh=False) / "executed" / record.hashkey
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(folder, target)
        where = f"; moved it aside to {_shown(target.parent.parent)}"
    NbCacheRecord.remove_records([record.pk], cache.db)
    print(f"specbook: {label}: {problem}{where}; the page will run again", file=out or sys.stdout, flush=True)
