"""Execute the book's pages that need it, in parallel, into the jupyter-cache the strict build reads.

Sphinx reads a Jupyter Book's pages one at a time (jupyter-book 1.x cannot read in
parallel), and each page's kernel runs while Sphinx waits. ``make book`` therefore runs::

    python -m specbook.execute            # the pages whose key changed, one kernel per core
    jupyter-book build -W -n --keep-going .

A page re-executes when, and only when, its *execution key* changes (:mod:`specbook.keys`):
its code cells, the module files under ``src/`` it imported, the project files it read, the
versions of the installed distributions it imported, and the environment record (Python, jax,
jaxlib, numpy, the platform, ``XLA_FLAGS`` and the ``JAX_*`` settings). While a page
runs, its kernel records what it used (``specbook._record``: ``sys.modules`` and an audit
hook on ``open``); the record is stored with the executed notebook in the jupyter-cache
record's ``data``. Every page is reported with its reason::

    book/skcomplex/reflection.md: re-ran (src/skcomplex/engine/events.py changed)
    book/maddening/ball.md: cached

jupyter-cache keys a notebook by its code cells alone, so a Markdown-only edit matches the
cached notebook and starts no kernel. ``specbook.sphinxext`` runs the same check at the
start of every build and executes what is stale itself, so a plain ``jupyter-book build``
never shows what older code printed either.

Across machines (a CI matrix)::

    python -m specbook.execute --shard 1/2 --cache shard-1     # on one runner
    python -m specbook.execute --shard 2/2 --cache shard-2     # on another
    python -m specbook.execute --merge shard-1 shard-2         # then, on one: merge and build

The shards are balanced by the pages' recorded times (``_build/page-seconds.json``, else the
times kept in ``page-schedule.json``). On one machine, pages that compile the same JAX programs
run one after the other (``specbook._sharing``), so the second reads the first one's
programs from JAX's persistent cache instead of compiling them again::

    python -m specbook.execute --store-schedule    # keep the last runs' times and followers

A page that fails is reported with the claim that broke (``FAILED CLAIM 'name'``) and the
line of the cell that failed, its kernel dying or its cell running past the execution
timeout (``execute: timeout:`` in ``_config.yml``) included (``specbook._failure``); the
cell's report follows after every page has run, and the command exits with status 1. A
damaged notebook cache is moved aside and its pages run again (``specbook._cache``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specbook import _atomic, _sharing
from specbook._cache import CacheUnusable, forget, notebook_problem, open_cache, set_aside_notebook
from specbook._claims import ANSI, failed_claim
from specbook._failure import describe
from specbook.keys import DATA_KEY, environment_record, file_hashes, page_key, why_stale

__all__ = ["CACHE", "SITE_STALE", "STALE", "TIMES", "PagePlan", "execute_pages", "known_times", "load_times", "main",
           "merge_caches", "plan", "read_page", "run_order", "run_page", "schedule", "shard", "store_schedule",
           "timeout_of", "toc_pages", "where_time_went"]

CACHE = Path("_build") / ".jupyter_cache"
"""The notebook cache, relative to the book's root; ``execute: cache`` in ``_config.yml`` reads it."""
TIMES = Path("_build") / "page-seconds.json"
"""The file, relative to the book's root, of each page's last execution time in seconds (it orders and balances the runs)."""
_RECORDER = Path(__file__).with_name("_record.py")
STALE = 3
"""The exit status of ``python -m specbook.execute --plan`` when some page would re-run (it is 0 when all are cached)."""
SITE_STALE = 4
"""The exit status of ``python -m specbook.execute --plan --build-key`` when every page is cached but the last
strict build's site is not current (:func:`specbook.buildkey.check`): Sphinx must run, no page must."""
_PARSED: dict[str, Any] = {}  # _read's parsed pages, by path: ((text, config bytes), notebook)


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


def read_page(path: Path, root: Path):
    """The page as a notebook, read exactly as myst-nb reads it, so its cache key is the build's.

    Parsing a page's Markdown is the slow part of planning, and a build asks for each
    page several times; the parse is kept for as long as the page's and the
    configuration's bytes are unchanged, and a copy is returned each time.
    """
    import copy

    text = path.read_text(encoding="utf-8")
    config = (root / "_config.yml").read_bytes() if (root / "_config.yml").is_file() else b""
    stored = _PARSED.get(str(path))
    if stored is None or stored[0] != (text, config):
        from myst_nb.core.config import NbParserConfig
        from myst_nb.core.read import create_nb_reader

        reader = create_nb_reader(str(path), _md_config(root), NbParserConfig(), text)
        if reader is None:  # pragma: no cover - toc_pages keeps notebooks only
            raise ValueError(f"{path} is not a MyST notebook")
        stored = _PARSED[str(path)] = ((text, config), reader.read(text))
    return copy.deepcopy(stored[1])


@dataclass
class PagePlan:
    """One page's verdict: ``reason`` is ``None`` when its cached execution still holds."""

    page: Path
    rel: str
    reason: str | None


def _cache(root: Path, cache_dir: str | os.PathLike[str] | None, out=None):
    """The notebook cache, a damaged one moved aside first (:func:`specbook._cache.open_cache`)."""
    return open_cache(root / CACHE if cache_dir is None else Path(cache_dir), out=out)


def timeout_of(root: str | os.PathLike[str]) -> int:
    """The seconds a cell may run, as the book's ``_config.yml`` sets them (600 when it does not).

    ``sphinx: config: nb_execution_timeout`` wins over ``execute: timeout``, as in the build.
    """
    import yaml

    try:
        config = yaml.safe_load((Path(root) / "_config.yml").read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        return 600
    sphinx = ((config.get("sphinx") or {}).get("config") or {})
    value = sphinx.get("nb_execution_timeout", (config.get("execute") or {}).get("timeout", 600))
    return int(value)


def plan(root: str | os.PathLike[str], pages: list[Path] | None = None, *, cache_dir=None,
         force: bool = False, environment: dict[str, Any] | None = None, out=None) -> list[PagePlan]:
    """Which pages must execute and why: each page's cached record checked against today's files.

    A page is cached when jupyter-cache holds a notebook with its code cells, that notebook
    reads, and the use record stored with it still matches (:func:`specbook.keys.why_stale`).
    A damaged cache, or a damaged cached notebook, is moved aside with a message on ``out``
    (standard output by default) and its pages run again.
    """
    root = Path(root).resolve()
    cache = _cache(root, cache_dir, out)
    environment = environment_record() if environment is None else environment
    records = cache.list_cache_records()
    verdicts = []
    for page in toc_pages(root) if pages is None else pages:
        rel = page.resolve().relative_to(root).as_posix()
        if force:
            verdicts.append(PagePlan(page, rel, "forced"))
            continue
        notebook = read_page(page, root)
        try:
            record = cache.match_cache_notebook(notebook)
        except KeyError:
            known = any(r.uri == rel or r.uri == str(page) for r in records)
            verdicts.append(PagePlan(page, rel, "its code cells changed" if known else "not in the cache"))
            continue
        problem = notebook_problem(cache, record, sum(c.cell_type == "code" for c in notebook.cells))
        if problem is not None:
            set_aside_notebook(cache, record, rel, problem, out=out)
            verdicts.append(PagePlan(page, rel, "its cached notebook was " + ("missing" if "missing" in problem else "damaged")))
            continue
        verdicts.append(PagePlan(page, rel, why_stale((record.data or {}).get(DATA_KEY), root, environment)))
    return verdicts


_START = """def _specbook_start():
    import importlib.util, sys
    spec = importlib.util.spec_from_file_location("_specbook_record", {recorder!r})
    module = importlib.util.module_from_spec(spec)
    sys.modules["_specbook_record"] = module
    spec.loader.exec_module(module)
    module.start({root!r}, {src!r})
_specbook_start()
del _specbook_start
"""


def run_page(path: str | os.PathLike[str], root: str | os.PathLike[str], *, timeout: int = 600,
             environ: dict[str, str] | None = None, src: str | None = None,
             kernel_server: str | None = None) -> dict[str, Any]:
    """Execute one page in a kernel of its own, recording what it used; nothing is cached.

    ``environ`` is the kernel's whole environment (default: this process's); ``src`` is a
    copy of ``src/`` the page imports instead (first on the kernel's ``PYTHONPATH``), whose
    files are recorded as the project's own. Returns the executed notebook (``notebook``),
    ``seconds``, ``error`` (the failing cell's traceback, or None), ``error_cell`` (the
    number of the code cell that failed, counted as pytest's ``Cell N``, or None) and ``used``, the recorder's report (read
    after the last cell, or after the failing one: a page run in record mode reports every
    claim it made before it stopped). ``kernel_server`` is the socket of a running
    ``specbook._kernels.KernelServer``: the kernel is forked from it instead of started
    afresh. :mod:`specbook.faults` runs a fault's pages with it.
    """
    return _execute(str(path), str(root), timeout, environ, src, kernel_server)


def _execute(path_text: str, root_text: str, timeout: int, environ: dict[str, str] | None = None,
             src: str | None = None, kernel_server: str | None = None) -> dict[str, Any]:
    """Run in a worker process: execute one page from its own folder, recording what it used.

    A failure comes back as ``error``: one plain message naming the page and the cell
    (:func:`specbook._failure.describe`), then the cell's own report, never nbclient's traceback.
    """
    import nbformat
    from nbclient import NotebookClient

    path, root = Path(path_text), Path(root_text)
    nb = read_page(path, root)
    executable = [i for i, c in enumerate(nb.cells)
                  if c.cell_type == "code" and c.source.strip()]
    last = executable[-1] if executable else None
    code_index = {i: n for n, i in enumerate(i for i, c in enumerate(nb.cells) if c.cell_type == "code")}
    running: list[int] = []  # the code cell running now, counted among the page's code cells
    used: dict[str, Any] = {}
    # The recorder's report is read after the last cell and JAX writes its persistent cache as it
    # compiles, so nothing is lost by ending the kernel at once; nbclient's "graceful" shutdown
    # waits about a second for a kernel that has nothing left to do.
    from specbook._kernels import manager_class

    client = NotebookClient(nb, timeout=timeout, allow_errors=False, record_timing=False,
                            shutdown_kernel="immediate", kernel_manager_class=manager_class(kernel_server),
                            # the kernel's own start-up warnings (a local TCP connection without
                            # encryption, once per run) say nothing about the page; its errors still show
                            extra_arguments=["--IPKernelApp.log_level=ERROR"],
                            resources={"metadata": {"path": str(path.parent)}})

    async def ask(code: str, expression: str | None = None) -> Any:
        msg_id = client.kc.execute(code, silent=True, store_history=False,
                                   user_expressions={"r": expression} if expression else None)
        reply = await client.async_wait_for_reply(msg_id)
        content = reply["content"] if reply else {}
        if content.get("status") != "ok":
            raise RuntimeError(f"specbook's recorder failed in the kernel: {content.get('evalue', content)}")
        if expression:
            value = content["user_expressions"]["r"]
            if value.get("status") != "ok":
                raise RuntimeError(f"specbook's recorder failed in the kernel: {value.get('evalue')}")
            import ast

            return json.loads(ast.literal_eval(value["data"]["text/plain"]))
        return None

    started: list[float] = []

    async def on_start(notebook) -> None:
        started.append(time.perf_counter())  # the kernel is up: what came before is its start
        await ask(_START.format(recorder=str(_RECORDER), root=str(root), src=src))

    report = "__import__('sys').modules['_specbook_record'].report()"

    async def on_executed(cell, cell_index, execute_reply) -> None:
        if cell_index == last:
            used.update(await ask("", report))

    failed_at: list[int] = []

    async def on_error(cell, cell_index, execute_reply) -> None:
        if "raises-exception" not in cell.metadata.get("tags", []):  # the run stops here: read what it made
            failed_at.append(cell_index)
            used.update(await ask("", report))

    async def on_cell_start(cell, cell_index) -> None:
        if cell_index in code_index:  # nbclient calls it for every cell, Markdown included
            running[:] = [code_index[cell_index]]

    client.on_notebook_start = on_start
    client.on_cell_start = on_cell_start
    client.on_cell_executed = on_executed
    client.on_cell_error = on_error
    error = where = None
    start = time.perf_counter()
    try:
        client.execute(**({"env": environ} if environ is not None else {}))
    except Exception as err:  # noqa: BLE001 - a failing cell, a kernel that died, a timeout: a failed page
        text = path.read_text(encoding="utf-8")
        failure = describe(path.resolve().relative_to(root.resolve()).as_posix(), text,
                           running[0] if running else None, err, timeout)
        error, where = failure.message(), failure.where
    seconds = time.perf_counter() - start
    if error is None and last is not None and not used:
        error = "specbook's recorder did not report what the page used"
    kernel = started[0] - start if started else seconds
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]  # numbered as pytest's "Cell N"
    error_cell = code.index(failed_at[0]) if failed_at and failed_at[0] in code else None
    return {"notebook": nbformat.writes(nb), "seconds": seconds, "kernel": kernel, "error": error, "where": where,
            "error_cell": error_cell, "used": used}


def where_time_went(seconds: float, kernel: float, jax_seconds: dict[str, float]) -> str:
    """A page's run split into kernel start, JAX's compilation work and the rest, as text.

    ``jax_seconds`` is the recorder's sum of JAX's tracing, lowering, compiling and
    persistent-cache reads; "the page" is what is left: imports, the page's own arithmetic,
    plotting and the claims.

    >>> where_time_went(20.0, 1.5, {"tracing": 2.0, "lowering": 1.0, "compiling": 6.5})
    'kernel 1.5 s, JAX 9.5 s (tracing 2.0, lowering 1.0, compiling 6.5), the page 9.0 s'
    """
    jax_total = sum(jax_seconds.values())
    parts = ", ".join(f"{name} {value:.1f}" for name, value in jax_seconds.items())
    rest = max(0.0, seconds - kernel - jax_total)
    jax_text = f"JAX {jax_total:.1f} s ({parts})" if jax_seconds else "JAX 0.0 s"
    return f"kernel {kernel:.1f} s, {jax_text}, the page {rest:.1f} s"


def shard(names: list[str], times: dict[str, float], k: int, n: int) -> list[str]:
    """The ``k``-th of ``n`` shards (1-based) of the pages ``names``, balanced by their recorded times.

    Longest first, each page to the shard with the least time so far (ties: the lower
    shard); a page never timed counts as the mean of those that were (or 1 s). The same
    pages and times give every runner the same partition.

    >>> times = {"a": 9.0, "b": 5.0, "c": 4.0, "d": 1.0}
    >>> shard(["a", "b", "c", "d"], times, 1, 2), shard(["a", "b", "c", "d"], times, 2, 2)
    (['a', 'd'], ['b', 'c'])
    """
    if not (isinstance(n, int) and isinstance(k, int) and n >= 1 and 1 <= k <= n):
        raise ValueError(f"shard {k}/{n} is not allowed; expected K/N with 1 <= K <= N")
    owner, _ = schedule(names, times, n)
    return [p for p in names if owner[p] == k - 1]


def schedule(names: list[str], times: dict[str, float], n: int,
             order: list[str] | None = None) -> tuple[dict[str, int], dict[str, float]]:
    """Each page in turn to the least busy of ``n`` workers: each page's worker and end time.

    The turn is ``order`` (``execute_pages`` starts its pages in :func:`run_order`), else
    longest first. A page never timed counts as the mean of those that were (or 1 s); ties
    go to the lower worker. :func:`shard` keeps a worker's pages, and the end times say when
    each page's run should finish.

    >>> schedule(["a", "b", "c", "d"], {"a": 9.0, "b": 5.0, "c": 4.0, "d": 1.0}, 2)
    ({'a': 0, 'b': 1, 'c': 1, 'd': 0}, {'a': 9.0, 'b': 5.0, 'c': 9.0, 'd': 10.0})
    """
    default = _sharing.typical_time(names, times)
    loads = [0.0] * max(1, n)
    owner: dict[str, int] = {}
    ends: dict[str, float] = {}
    turn = order if order is not None else sorted(names, key=lambda p: (-times.get(p, default), names.index(p)))
    for name in turn:
        target = min(range(len(loads)), key=lambda i: (loads[i], i))
        owner[name] = target
        loads[target] += times.get(name, default)
        ends[name] = loads[target]
    return owner, ends


def known_times(root: Path) -> dict[str, float]:
    """Each page's last execution time here (``TIMES``), else the one kept in ``page-schedule.json``."""
    kept, _ = _sharing.load(root)
    return {**kept, **load_times(root / TIMES)}


def run_order(root: Path, names: list[str], times: dict[str, float]) -> list[str]:
    """The order ``execute_pages`` starts ``names`` in (``specbook._sharing.run_order``).

    Pages that follow no other of ``names`` first, longest first, then the pages that compile
    mostly the programs of a longer one of them (``page-schedule.json``'s followers).
    """
    _, follows = _sharing.load(root)
    return _sharing.run_order(names, times, follows)


def store_schedule(root: str | os.PathLike[str], *, cache_dir=None, out=sys.stdout) -> int:
    """Rewrite ``page-schedule.json`` from every page's cached record; returns the pages kept."""
    root = Path(root).resolve()
    cache = _cache(root, cache_dir)
    records = {}
    for page in toc_pages(root):
        use = _use_record(cache, page, root)
        if use is not None:
            records[page.relative_to(root).as_posix()] = use
    folder = os.environ.get("JAX_COMPILATION_CACHE_DIR")
    jax_cache = Path(folder) if folder else root / "_build" / "jax_cache"
    data = _sharing.store(root, records, jax_cache if jax_cache.is_dir() else None)
    for rel, leaders in data["follows"].items():
        print(f"{rel}: runs after {', '.join(leaders)} (most of its compiled programs are theirs)", file=out)
    print(f"specbook.execute: kept the times of {len(data['seconds'])} pages in {_sharing.SCHEDULE}", file=out)
    return len(data["seconds"])


def load_times(path: Path) -> dict[str, float]:
    """Each page's last execution time in seconds, from ``path`` (``TIMES``); empty when there is none."""
    try:
        return {str(k): float(v) for k, v in json.loads(path.read_text()).items()}
    except (FileNotFoundError, ValueError, AttributeError):
        return {}


def _save_times(path: Path, times: dict[str, float]) -> None:
    """Write the times atomically: shards running side by side on one checkout never see half a file."""
    _atomic.write_text(path, json.dumps(dict(sorted(times.items())), indent=1))


def _store(cache, root: Path, page: Path, rel: str, result: dict[str, Any], environment: dict[str, Any]) -> None:
    """Cache one executed page with its use record; drop the page's older executions."""
    import nbformat
    from jupyter_cache.base import CacheBundleIn

    nb = nbformat.reads(result["notebook"], as_version=4)
    used = result["used"]
    files = file_hashes(root, [*used.get("modules", []), *used.get("reads", []), *used.get("missing", [])])
    hashkey = cache.create_hashed_notebook(nb)[1]
    distributions = used.get("distributions") or {}
    data = {DATA_KEY: {
        "page": rel, "files": files, "environment": environment, "distributions": distributions,
        "seconds": result["seconds"], "key": page_key(hashkey, files, environment, distributions),
        "claims": used.get("claims", []),
        "kernel_seconds": result.get("kernel"), "jax_seconds": used.get("jax_seconds") or {},
        "programs": used.get("programs") or [],
    }}
    record = cache.cache_notebook_bundle(CacheBundleIn(nb, rel, data=data), check_validity=False, overwrite=True)
    for other in cache.list_cache_records():
        if other.pk != record.pk and other.uri in (rel, str(page)):
            forget(cache, other.pk)


def _claims_text(claims: list[dict[str, Any]]) -> str:
    held = sum(bool(c.get("holds")) for c in claims)
    noun = "claim" if len(claims) == 1 else "claims"
    if held == len(claims):
        return f"{len(claims)} {noun}, all hold" if claims else "no claims"
    return f"{held} of {len(claims)} {noun} hold"


def _use_record(cache, page: Path, root: Path) -> dict[str, Any] | None:
    """The use record stored with the page's cached notebook (``{}`` if it has none), or None if none is cached."""
    try:
        return (cache.match_cache_notebook(read_page(page, root)).data or {}).get(DATA_KEY) or {}
    except KeyError:
        return None


def _cached_claims(cache, page: Path, root: Path) -> str:
    use = _use_record(cache, page, root)
    if use is None:  # pragma: no cover - a cached page has a record
        return ""
    return f" ({_claims_text(use.get('claims', []))})"


def execute_pages(root: str | os.PathLike[str], pages: list[Path] | None = None, *, workers: int | None = None,
                  timeout: int | None = None, cache_dir=None, force: bool = False,
                  shard_of: tuple[int, int] | None = None, out=sys.stdout, prefix: str = "",
                  verdicts: list[PagePlan] | None = None, on_finished=None, report_only: bool = False,
                  report_failures: bool = True) -> int:
    """Execute the pages whose key changed (``workers`` at once) into the cache; report every page.

    ``pages`` defaults to every page of the table of contents; ``shard_of = (k, n)`` keeps
    the ``k``-th of ``n`` balanced shards of them. ``verdicts`` is a plan already made
    (:func:`plan`) for those pages. ``timeout`` is the seconds a cell may run (default: the
    book's, :func:`timeout_of`). ``on_finished(rel, error)`` is called as each stale page is
    done: ``error`` is ``None`` once it is stored in the cache, else the plain message of its
    failure. ``report_only`` prints each page's verdict and runs nothing. Returns the number
    of pages that failed (with ``report_only``: the number that would run); each failure is
    reported with the claim that broke and the cell's line, and with ``report_failures`` the
    failed cells' reports follow once every page has run.
    """
    root = Path(root).resolve()
    timeout = timeout_of(root) if timeout is None else timeout
    times_path = root / TIMES
    times = known_times(root)
    pages = toc_pages(root) if pages is None else [Path(p).resolve() for p in pages]
    if shard_of is not None:
        keep = set(shard([p.relative_to(root).as_posix() for p in pages], times, *shard_of))
        pages = [p for p in pages if p.relative_to(root).as_posix() in keep]
    environment = environment_record()
    if verdicts is None:
        verdicts = plan(root, pages, cache_dir=cache_dir, force=force, environment=environment, out=out)
    cache = _cache(root, cache_dir, out)
    for v in verdicts:
        if v.reason is None:
            print(f"{prefix}{v.rel}: cached{_cached_claims(cache, v.page, root)}", file=out, flush=True)
    stale = {v.page: v for v in verdicts if v.reason is not None}
    starts = run_order(root, [stale[p].rel for p in stale], times)
    todo = sorted(stale, key=lambda p: starts.index(stale[p].rel))
    label = f" (shard {shard_of[0]}/{shard_of[1]})" if shard_of else ""
    if report_only:
        for page in todo:
            print(f"{prefix}{stale[page].rel}: to re-run ({stale[page].reason})", file=out, flush=True)
        return len(todo)
    if not todo:
        print(f"{prefix}specbook.execute{label}: {len(verdicts)} pages, all cached", file=out, flush=True)
        return 0
    workers = max(1, min(workers or os.cpu_count() or 1, len(todo)))
    print(f"{prefix}specbook.execute{label}: {len(todo)} of {len(verdicts)} pages to run, {workers} at a time",
          file=out, flush=True)
    failures: list[tuple[str, str]] = []
    start = time.perf_counter()

    def finished(page: Path, result: dict[str, Any]) -> None:
        verdict = stale[page]
        times[verdict.rel] = round(result["seconds"], 2)
        if result["error"] is None:
            _store(cache, root, page, verdict.rel, result, environment)
            split = where_time_went(result["seconds"], result.get("kernel", 0.0),
                                    result["used"].get("jax_seconds") or {})
            print(f"{prefix}{verdict.rel}: re-ran ({verdict.reason}) in {result['seconds']:.1f} s, "
                  f"{_claims_text(result['used'].get('claims', []))} [{split}]", file=out, flush=True)
        else:
            failures.append((verdict.rel, result["error"]))
            found = failed_claim(result["error"])
            named = f"FAILED CLAIM {found[0]!r}" if found else "FAILED"
            at = f" at {result['where']}," if result.get("where") else ""
            print(f"{prefix}{verdict.rel}: {named}{at} after {result['seconds']:.1f} s (ran because {verdict.reason})",
                  file=out, flush=True)
        if on_finished is not None:
            on_finished(verdict.rel, result["error"])

    if workers == 1:  # one page at a time: in this process, no worker to start
        for page in todo:
            finished(page, _execute(str(page), str(root), timeout))
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            running = {pool.submit(_execute, str(p), str(root), timeout): p for p in todo}
            for done in as_completed(running):
                try:
                    result = done.result()
                except Exception as error:  # noqa: BLE001 - a worker that died is a failed page
                    page = running[done]
                    text = page.read_text(encoding="utf-8")
                    result = {"notebook": None, "seconds": 0.0, "used": {},
                              "error": describe(stale[page].rel, text, None, error, timeout).message()}
                finished(running[done], result)
    _save_times(times_path, times)
    print(f"{prefix}specbook.execute{label}: {len(todo) - len(failures)} of {len(todo)} pages re-ran in "
          f"{time.perf_counter() - start:.1f} s, {len(verdicts) - len(todo)} cached", file=out, flush=True)
    for rel, error in failures if report_failures else []:
        print(f"\n---- {rel} ----\n{ANSI.sub('', error)}", file=out, flush=True)
    return len(failures)


def merge_caches(root: str | os.PathLike[str], sources: list[str | os.PathLike[str]], *, cache_dir=None,
                 out=sys.stdout) -> int:
    """Copy every executed page of the ``sources`` caches (one per shard) into the book's cache.

    Each notebook keeps its use record, so the build checks it as if it had run here.
    The shards' times are merged into the book's times. Returns the number of pages copied.
    """
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    root = Path(root).resolve()
    target = _cache(root, cache_dir)
    times = load_times(root / TIMES)
    copied = 0
    for source in sources:
        folder = Path(source)
        if not (folder / "global.db").is_file():
            raise FileNotFoundError(f"{folder} is not a notebook cache (no global.db); pass the --cache folder of a shard")
        shard_cache = get_cache(str(folder))
        for record in shard_cache.list_cache_records():
            bundle = shard_cache.get_cache_bundle(record.pk)
            stored = target.cache_notebook_bundle(CacheBundleIn(bundle.nb, record.uri, data=record.data or {}),
                                                  check_validity=False, overwrite=True)
            for other in target.list_cache_records():
                if other.pk != stored.pk and other.uri == record.uri:
                    forget(target, other.pk)
            use = (record.data or {}).get(DATA_KEY) or {}
            if "seconds" in use:
                times[record.uri] = round(float(use["seconds"]), 2)
            copied += 1
            print(f"{record.uri}: merged from {folder}", file=out, flush=True)
    _save_times(root / TIMES, times)
    return copied


def _shard_arg(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match or not (1 <= int(match.group(1)) <= int(match.group(2))):
        raise argparse.ArgumentTypeError(f"--shard {text!r} is not allowed; expected K/N with 1 <= K <= N, e.g. 1/2")
    return int(match.group(1)), int(match.group(2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specbook.execute", description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help="pages to consider (default: every page of _toc.yml with code)")
    parser.add_argument("--root", default=".", help="the book's root folder (holds _toc.yml and _config.yml)")
    parser.add_argument("--workers", type=int, default=None, help="kernels at once (default: one per core)")
    parser.add_argument("--timeout", type=int, default=None,
                        help="seconds a cell may run (default: execute: timeout: in _config.yml, else 600)")
    parser.add_argument("--force", action="store_true", help="execute the pages even where their key matches")
    parser.add_argument("--plan", action="store_true",
                        help="print each page's verdict (cached, or to re-run and why) and run nothing")
    parser.add_argument("--build-key", action="store_true",
                        help=f"with --plan, when every page is cached: exit 0 only if the last strict build's site "
                             f"is current (specbook.buildkey check), else {SITE_STALE}")
    parser.add_argument("--shard", type=_shard_arg, default=None, metavar="K/N",
                        help="execute only the K-th of N shards, balanced by the pages' recorded times")
    parser.add_argument("--cache", default=None, help=f"the notebook cache folder (default: ROOT/{CACHE.as_posix()})")
    parser.add_argument("--merge", nargs="+", default=None, metavar="CACHE",
                        help="merge these shards' cache folders into the cache instead of executing")
    parser.add_argument("--store-schedule", action="store_true",
                        help="keep the cached pages' times and which pages share compiled programs in "
                             "page-schedule.json (it orders the runs on a fresh clone)")
    args = parser.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        parser.error(f"--workers = {args.workers} is not allowed; expected a whole number of at least 1")
    if args.timeout is not None and args.timeout < 1:
        parser.error(f"--timeout = {args.timeout} is not allowed; expected a whole number of seconds, at least 1")
    if args.build_key and not args.plan:
        parser.error("--build-key goes with --plan")
    try:
        return _main(args, parser)
    except CacheUnusable as error:
        print(error, file=sys.stderr)
        return 2


def _main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    root = Path(args.root).resolve()
    if args.merge:
        merge_caches(root, args.merge, cache_dir=args.cache)
        return 0
    if args.store_schedule:
        store_schedule(root, cache_dir=args.cache)
        return 0
    pages = [Path(p) for p in args.pages] or None
    if pages:
        missing = [str(p) for p in pages if not p.is_file()]
        if missing:
            parser.error(f"no such page: {', '.join(missing)}")
    failed = execute_pages(root, pages, workers=args.workers, timeout=args.timeout, cache_dir=args.cache,
                           force=args.force, shard_of=args.shard, report_only=args.plan)
    if args.plan:
        if failed:
            return STALE
        if args.build_key:
            from specbook import buildkey

            return SITE_STALE if buildkey.check(root) else 0  # not vouched for, for whatever reason: build
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
