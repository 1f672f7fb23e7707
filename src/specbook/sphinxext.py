"""A Sphinx extension for the book: pages executed by key, the claim ledger, the summaries of claims.

Every page whose execution key changed is executed (``specbook.execute``; see
``specbook.keys``), in the background while Sphinx reads the other pages, and each is
read only once its run ended. A page whose run failed is not run again by myst-nb: the
build fails on it with one plain message naming the page, the cell and its line
(``specbook._failure``), and the page is read as a stub that says so, so no stale output
is ever shown. Each claim is anchored
at the cell that makes it (``#claim-<key>``); the build writes every claim of the book
to ``claims.json`` in the site (``specbook.ledger``), each with the faults of the catalogue
that break it (``killed_by``, read from the fault runs ``python -m specbook.faults`` stored
and still current: ``specbook._matrix``), and ``{specbook-claims}`` shows them to a
reviewer: a summary, then one table filterable by page, source and text and sortable by
margin (``specbook._claims_page``), linked to where each claim is made and to its
source's API entry.
With ``specbook_require_source`` on (``sphinx: config:`` in ``_config.yml``), a claim
that does not state the source of its expected value fails the build.

The landing page's summary of claims across pages:

The directive ``{specbook-summary}`` is replaced, once every page has been
executed and read, by a table with one row per page of the table of contents:
its title, how many claims it makes and whether all of them hold. The counts
come from the claims table each page displays (``specbook.claims_table``): it
carries its claims as data beside its Markdown, and the mime renderer below keeps
that data in the build environment while each page is read.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive

from specbook._tables import CLAIMS_MIME

__all__ = ["ClaimsData", "setup"]


class summary_placeholder(nodes.General, nodes.Element):
    """Stands where the summary goes until every page has been read."""


class SummaryDirective(Directive):
    has_content = False

    def run(self) -> list[nodes.Node]:
        return [summary_placeholder("")]


def _env_claims(env) -> dict[str, dict[str, Any]]:
    if not hasattr(env, "specbook_claims"):
        env.specbook_claims = {}
    return env.specbook_claims


def _replace(app, doctree: nodes.document, docname: str) -> None:
    placeholders = list(doctree.findall(summary_placeholder))
    if not placeholders:
        return
    env = app.env
    order = _reading_order(app, docname)  # the table of contents' reading order
    table = nodes.table(classes=["specbook-summary"])
    group = nodes.tgroup(cols=4)
    table += group
    for _ in range(4):
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    group += head
    body = nodes.tbody()
    group += body

    def row(cells: list[nodes.Node | str], parent: nodes.Element) -> None:
        r = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += nodes.paragraph("", "", cell if isinstance(cell, nodes.Node) else nodes.Text(cell))
            r += entry
        parent += r

    row(["Page", "Claims", "Holding", "All hold"], head)
    total = held = 0
    for doc in order:
        data = _env_claims(env).get(doc)
        if data is None:
            continue
        title = env.titles[doc].astext() if doc in env.titles else doc
        ref = nodes.reference("", title, internal=True, refuri=app.builder.get_relative_uri(docname, doc))
        count, passed = _counted(data)
        total += count
        held += passed
        row([ref, str(count), str(passed), "✓" if count == passed else "✗"], body)
    row([nodes.strong("", "Whole book"), str(total), str(held), "✓" if total == held else "✗"], body)
    for placeholder in placeholders:
        placeholder.replace_self(table.deepcopy())


def _counted(data: dict[str, Any]) -> tuple[int, int]:
    """A page's claims and how many hold, examples (``specbook.example``) left out."""
    claims = data.get("claims")
    if not isinstance(claims, list):
        return int(data["count"]), int(data["passed"])
    own = [c for c in claims if not c.get("example")]
    return len(own), sum(bool(c.get("passed")) for c in own)


class ClaimsData:
    """A myst-nb mime renderer that renders a page's claims data as nothing.

    The claims table carries its claims as JSON beside its Markdown; the Markdown
    is what readers see, and the data is read back by the summary, not shown.
    """

    mime_priority_overrides = ()

    @staticmethod
    def handle_mime(renderer, data, inline):  # noqa: D102 - myst-nb plugin protocol
        if data.mime_type != CLAIMS_MIME:
            return None
        env = getattr(renderer.renderer, "sphinx_env", None)
        if env is not None:  # keep the page's last claims table for the summary
            _env_claims(env)[env.docname] = data.content
        return []


def _purge(app, env, docname: str) -> None:
    _env_claims(env).pop(docname, None)
    _ledger(env).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    _env_claims(env).update({d: v for d, v in _env_claims(other).items() if d in docnames})
    _ledger(env).update({d: v for d, v in _ledger(other).items() if d in docnames})


def _reader_view(app, pagename, templatename, context, doctree) -> None:
    """Fix two console errors every reader meets on a first visit.

    With this stack (Sphinx 7.4, jupyter-book 1.0) the inline scripts that
    sphinx-thebe and sphinx-togglebutton add once the builder has started are
    listed twice on every page, and sphinx-thebe's second ``const THEBE_JS_URL``
    throws "already declared"; pydata-sphinx-theme logs "invalid theme mode"
    when no ``default_mode`` is set. Keep one copy of each script; default to ``auto``.
    """
    seen, unique = set(), []
    for script in context.get("script_files", []):
        key = (str(getattr(script, "filename", script) or ""),
               tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique
    context.setdefault("default_mode", "auto")


def _cache_config(env):
    config = getattr(env, "mystnb_config", None)
    if config is None or config.execution_mode != "cache" or not config.execution_cache_path:
        return None
    return config


class _LogLines:
    """A text stream whose lines go to Sphinx's log (the executor's per-page reasons)."""

    def __init__(self, logger) -> None:
        self.logger, self.buffer = logger, ""

    def write(self, text: str) -> None:
        self.buffer += text
        while "\n" in self.buffer:
            line, self.buffer = self.buffer.split("\n", 1)
            if line.strip():
                self.logger.info(line)

    def flush(self) -> None:
        pass


def _bring_cache_up_to_date(app, env, added, changed, removed) -> list[str]:
    """Start executing every page whose execution key changed, before any page is read.

    jupyter-cache matches a page by its code cells alone; a page whose cells did not
    change but whose modules, data or environment did would otherwise show the old
    outputs, and its claims would not run. ``specbook.execute`` checks each page's key.
    With a serial read (the case for Jupyter Book 1.x), the stale pages run in the
    background (:class:`specbook._background.PageRuns`) while Sphinx reads the others,
    and each is read once its run ended (:func:`_wait_for_page`); otherwise they run
    here, before reading. A page that could not be re-run loses its cached notebook, so
    myst-nb executes it and the build fails on it: no stale output is ever shown. Each
    page's use record (its claims included) is kept for the ledger. Returns the stale
    pages, for Sphinx to read again in an incremental build (``make book`` always reads
    every page afresh).
    """
    config = _cache_config(env)
    app.specbook_use = {}
    app.specbook_runs = None
    app.specbook_failed = {}
    if config is None:
        return []
    from pathlib import Path

    from sphinx.util import logging

    from specbook import execute
    from specbook._background import PageRuns
    from specbook._cache import CacheUnusable

    logger = logging.getLogger(__name__)
    root = Path(app.srcdir)
    if not (root / "_toc.yml").is_file():
        return []
    cache_dir = Path(config.execution_cache_path)
    try:
        verdicts = execute.plan(root, cache_dir=cache_dir, out=_LogLines(logger))
    except CacheUnusable as error:  # neither readable nor movable: say what to do, with no traceback
        raise SystemExit(str(error)) from None
    stale = sorted(Path(v.rel).with_suffix("").as_posix() for v in verdicts if v.reason is not None)
    for verdict in verdicts:
        if verdict.reason is None:
            _keep_use(app, root, cache_dir, verdict.page)
    timeout = config.execution_timeout
    if stale and not (app.parallel > 1 and app.is_parallel_allowed("read")):
        app.specbook_runs = PageRuns(root, cache_dir, verdicts, execute.known_times(root), timeout=timeout).start()
        return [name for name in stale if name in env.found_docs]

    def finished(rel: str, error: str | None) -> None:
        if error is not None:
            app.specbook_failed[Path(rel).with_suffix("").as_posix()] = error

    failed = execute.execute_pages(root, cache_dir=cache_dir, out=_LogLines(logger), prefix="specbook: ",
                                   verdicts=verdicts, timeout=timeout, on_finished=finished, report_failures=False)
    for verdict in verdicts:
        if verdict.reason is not None:
            _keep_use(app, root, cache_dir, verdict.page, ran=True)
    if failed:
        logger.warning(f"specbook: {failed} page(s) failed to execute; see above", type="specbook")
    return [name for name in stale if name in env.found_docs]


def _keep_use(app, root, cache_dir, page, *, ran: bool = False) -> None:
    """Keep a page's use record for the ledger; a page that ran but is still stale loses its cached notebook."""
    from pathlib import Path

    from jupyter_cache import get_cache

    from specbook import execute
    from specbook._cache import forget
    from specbook.keys import DATA_KEY, environment_record, why_stale

    cache = get_cache(str(cache_dir))
    try:
        record = cache.match_cache_notebook(execute.read_page(page, root))
    except KeyError:
        return
    use = (record.data or {}).get(DATA_KEY)
    if ran and why_stale(use, root, environment_record()) is not None:  # failed to re-run: never show old outputs
        forget(cache, record.pk)
        return
    docname = Path(page).resolve().relative_to(root.resolve()).with_suffix("").as_posix()
    app.specbook_use[docname] = use or {}


def _read_stale_pages_last(app, env, docnames: list[str]) -> None:
    """Sphinx reads the pages still executing last, in the order their runs should end."""
    runs = getattr(app, "specbook_runs", None)
    if runs is not None:
        runs.reorder(docnames)


def _wait_for_page(app, docname: str, source: list[str]) -> None:
    """Before a page is read: log the executor's report so far, wait if the page is still running.

    A page whose run failed is read as a stub (:func:`_failed_page`), and the build fails
    on it with the run's message.
    """
    from pathlib import Path

    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    runs = getattr(app, "specbook_runs", None)
    if runs is not None and runs.wait(docname, logger.info) is not None:
        root = Path(app.srcdir)
        page = root / (docname + ".md")
        _keep_use(app, root, Path(app.env.mystnb_config.execution_cache_path), page, ran=True)
        if docname in runs.failures:
            app.specbook_failed[docname] = runs.failures[docname]
    error = getattr(app, "specbook_failed", {}).get(docname)
    if error is not None:
        logger.warning(f"specbook: {error}", type="specbook", subtype="page")
        source[0] = _failed_page(source[0], error)


def _failed_page(text: str, error: str) -> str:
    """What is read in place of a page whose run failed: its title and the failure, as plain Markdown.

    myst-nb would otherwise run the page again, only to fail on it with its own traceback;
    and the page's outputs from an earlier run must never be shown.

    >>> print(_failed_page("---\\nkernelspec: {}\\n---\\n\\n# The ball\\n\\ntext", "ball.md, line 9: died"))
    # The ball
    <BLANKLINE>
    This page could not be executed, so the build shows none of it:
    <BLANKLINE>
    ````text
    ball.md, line 9: died
    ````
    <BLANKLINE>
    """
    import re

    title = re.search(r"^# (.+)$", text, re.M)
    fence = "`" * max(4, 1 + max((len(run) for run in re.findall(r"`+", error)), default=0))
    return (f"# {title.group(1) if title else 'A page that failed'}\n\n"
            f"This page could not be executed, so the build shows none of it:\n\n"
            f"{fence}text\n{error}\n{fence}\n")


def _finish_runs(app, env) -> None:
    """Once every page is read: wait for the last runs, log the rest of the report, warn on failures."""
    runs = getattr(app, "specbook_runs", None)
    if runs is None:
        return
    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    runs.join(logger.info)
    app.specbook_runs = None
    if runs.error is not None:
        logger.warning(f"specbook: executing the stale pages failed: {type(runs.error).__name__}: {runs.error}",
                       type="specbook")
    elif runs.failed:
        logger.warning(f"specbook: {runs.failed} page(s) failed to execute; see above", type="specbook")


def _ledger(env) -> dict[str, dict[str, Any]]:
    if not hasattr(env, "specbook_ledger"):
        env.specbook_ledger = {}
    return env.specbook_ledger


def _anchor_claims(app, doctree) -> None:
    """Anchor each claim of the page at the cell that makes it (``#claim-<key>``), for the ledger."""
    env = app.env
    use = getattr(app, "specbook_use", {}).get(env.docname)
    if not use:
        return
    cells = [(n.get("exec_count"), n) for n in doctree.findall(nodes.container)
             if n.get("nb_element") == "cell_code" and isinstance(n.get("exec_count"), int)]
    claims = []
    for claim in use.get("claims", []):
        anchor = f"claim-{claim['key']}"
        cell = claim.get("cell")
        exact = [n for count, n in cells if count == cell]
        before = [n for count, n in cells if cell is not None and count < cell]
        target = (exact or before[-1:] or [n for _, n in cells[:1]] or [None])[0]
        if target is None:
            section = next(iter(doctree.findall(nodes.section)), None)
            anchor = section["ids"][0] if section is not None and section["ids"] else ""
        elif anchor not in target["ids"]:
            target["ids"].append(anchor)
        claims.append({**claim, "anchor": anchor})
    _ledger(env)[env.docname] = {"page": use.get("page", env.docname), "key": use.get("key"),
                                 "seconds": use.get("seconds"), "claims": claims}


def _api_entry(app, fromdoc: str, dotted: str | None) -> tuple[str, str] | None:
    """The nearest documented object to ``dotted`` (itself, else its longest documented prefix): (name, URI)."""
    if not dotted:
        return None
    objects = app.env.get_domain("py").objects
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        entry = objects.get(name)
        if entry is not None and end > 1:
            return name, app.builder.get_relative_uri(fromdoc, entry.docname) + "#" + entry.node_id
    return None


def _reading_order(app, first: str) -> list[str]:
    env = app.env
    order = [first] + [d for d in env.found_docs if d != first]
    try:
        toc = env.toctree_includes
        seen, queue = [], [env.config.root_doc]
        while queue:
            doc = queue.pop(0)
            if doc in seen:
                continue
            seen.append(doc)
            queue[0:0] = toc.get(doc, [])
        order = [d for d in seen if d in env.found_docs]
    except AttributeError:  # pragma: no cover - older Sphinx
        pass
    return order


class claims_placeholder(nodes.General, nodes.Element):
    """Stands where the book's list of claims goes until every page has been read."""


class ClaimsDirective(Directive):
    """``{specbook-claims}``: the Claims page; ``{specbook-claims} summary`` (or ``table``, ``examples``) one part."""

    has_content = False
    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        from specbook._claims_page import PARTS

        part = self.arguments[0] if self.arguments else ""
        if part and part not in PARTS:
            raise self.error(f"specbook-claims: part {part!r} is not allowed; expected one of {', '.join(PARTS)}")
        return [claims_placeholder("", part=part)]


def _annotated(app) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The ledger's pages in reading order, each claim with its verdicts under the fault catalogue.

    Read once per build (``specbook._matrix.annotate``: the faults' stored runs that are still
    current). The second value is the ledger's ``faults`` section, None when no fault run was
    ever stored here (``python -m specbook.faults`` stores them).
    """
    found = getattr(app, "specbook_annotated", None)
    if found is not None:
        return found
    from pathlib import Path

    from specbook import _matrix
    from specbook.catalogue import FAULTS

    env = app.env
    pages = []
    for doc in _reading_order(app, env.config.root_doc):
        page = _ledger(env).get(doc)
        if page:
            pages.append({**page, "doc": doc, "claims": [dict(c) for c in page["claims"]]})
    root = Path(app.srcdir)
    section = None
    if (root / _matrix.RUNS).is_dir():
        section = _matrix.annotate(root, pages, FAULTS)
    else:
        for page in pages:
            for claim in page["claims"]:
                claim.update(example=bool(claim.get("example")), killed_by=[], unreached_under=[],
                             expected_moved_under=[], mislabelled=[], tolerance_used=_matrix.tolerance_used(claim))
    app.specbook_annotated = (pages, section)
    return pages, section


def _render_claims(app, doctree: nodes.document, docname: str) -> None:
    placeholders = list(doctree.findall(claims_placeholder))
    if not placeholders:
        return
    from specbook._claims_page import render

    env = app.env
    pages, section = _annotated(app)
    docs = {page["page"]: page["doc"] for page in pages}

    def title(rel: str) -> str:
        doc = docs[rel]
        return env.titles[doc].astext() if doc in env.titles else doc

    def api_uri(source: dict[str, Any]) -> str | None:
        if source.get("kind") not in ("declaration", "seed figure", "independent implementation"):
            return None
        api = _api_entry(app, docname, source.get("ref"))
        return None if api is None else api[1]

    parts = render(pages, section, title=title, page_uri=lambda rel: app.builder.get_relative_uri(docname, docs[rel]),
                   api_uri=api_uri)
    for placeholder in placeholders:
        part = placeholder.get("part")
        content = parts[part] if part else [*parts["summary"], nodes.rubric("", "Every claim"), *parts["table"],
                                            nodes.rubric("", "Examples"), *parts["examples"]]
        placeholder.replace_self([node.deepcopy() for node in content])


def _claims_page_assets(app, pagename, templatename, context, doctree) -> None:
    """The Claims page alone loads DataTables (vendored in ``_static``) and the script that sets it up."""
    from specbook._claims_page import DATATABLES, TABLE_ID

    if doctree is None or not any(TABLE_ID in node.astext() for node in doctree.findall(nodes.raw)):
        return
    script, style = DATATABLES
    app.add_css_file(style)
    app.add_js_file(script)
    app.add_js_file("specbook-claims.js")


def _check_sources(app, env) -> None:
    from sphinx.errors import ExtensionError
    from sphinx.util import logging

    from specbook.ledger import missing_sources

    entries = [{"page": page["page"], **claim} for page in _ledger(env).values() for claim in page["claims"]]
    missing = missing_sources(entries)
    if not missing:
        return
    if app.config.specbook_require_source:
        raise ExtensionError(
            f"{len(missing)} claim(s) do not state where their expected value comes from "
            "(specbook_require_source is on; pass source= to specbook.claim/check):\n  " + "\n  ".join(missing))
    logging.getLogger(__name__).info(
        f"specbook: {len(missing)} of {len(entries)} claims state no source of their expected value")


def _write_ledger(app, exception) -> None:
    """Write ``claims.json`` into the built site: every claim of every page (``specbook.ledger``)."""
    if exception is not None or app.builder.format != "html":
        return
    from pathlib import Path

    from sphinx.util import logging

    from specbook.ledger import LEDGER_NAME, claim_entry, write_ledger

    entries, pages = [], []
    annotated, section = _annotated(app)
    for page in annotated:
        doc = page["doc"]
        url = app.builder.get_target_uri(doc)
        pages.append({"page": page["page"], "url": url, "key": page["key"], "seconds": page.get("seconds"),
                      "claims": len(page["claims"])})
        for claim in page["claims"]:
            source = claim.get("source") or {}
            api = _api_entry(app, doc, source.get("ref")) if source.get("kind") in (
                "declaration", "seed figure", "independent implementation") else None
            api_uri = None if api is None else _site_uri(app, doc, api[1])  # from the site's root
            entries.append(claim_entry(page["page"], f"{url}#{claim['anchor']}" if claim.get("anchor") else url,
                                       page["key"], claim, api_uri))
    path = write_ledger(Path(app.outdir) / LEDGER_NAME, entries, pages, faults=section)
    examples = sum(bool(e.get("example")) for e in entries)
    proven = sum(bool(e.get("killed_by")) for e in entries if not e.get("example"))
    logging.getLogger(__name__).info(
        f"specbook: wrote {len(entries)} claims of {len(pages)} pages to {path}; {proven} of "
        f"{len(entries) - examples} claims proven able to fail by the fault catalogue ({examples} examples apart)")


def _site_uri(app, fromdoc: str, relative: str) -> str:
    """A URI relative to ``fromdoc``'s page, made relative to the site's root."""
    import posixpath

    base = posixpath.dirname(app.builder.get_target_uri(fromdoc))
    return posixpath.normpath(posixpath.join(base, relative.split("#")[0])) + (
        "#" + relative.split("#", 1)[1] if "#" in relative else "")


def _write_cached_outputs(app, doctree) -> None:
    """Give a page read from the notebook cache its outputs in ``_build/jupyter_execute``.

    myst-nb 1.4 renders a cached page from the cache's outputs but writes the notebook
    it read, without them, as the page's executed notebook (``<page>.ipynb``, the file
    a reader downloads and the browser checks count claims in). Merge the cached
    outputs into that file once the page has been read.
    """
    env = app.env
    config = getattr(env, "mystnb_config", None)
    if config is None or config.execution_mode != "cache" or not config.output_folder:
        return
    from pathlib import Path

    import nbformat

    path = Path(config.output_folder).joinpath(*(env.docname + ".ipynb").split("/"))
    if not path.is_file() or env.docname in getattr(app, "specbook_failed", {}):
        return
    notebook = nbformat.read(path, as_version=4)
    if any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"):
        return  # executed in this build: written with its outputs
    from jupyter_cache import get_cache

    try:
        _, merged = get_cache(config.execution_cache_path).merge_match_into_notebook(notebook)
    except KeyError:  # not in the cache: a page with no outputs at all
        return
    from specbook import _atomic

    _atomic.write_text(path, nbformat.writes(merged))


def setup(app) -> dict[str, Any]:
    from specbook import _api_values
    from specbook._collector import relax_during_build

    relax_during_build(app)
    _api_values.setup(app)  # the API pages show a constant's value only when it is a short literal
    app.connect("doctree-read", _write_cached_outputs)
    app.connect("env-get-outdated", _bring_cache_up_to_date, priority=100)
    app.connect("env-before-read-docs", _read_stale_pages_last)
    app.connect("source-read", _wait_for_page, priority=100)
    app.connect("env-updated", _finish_runs)
    app.connect("doctree-read", _anchor_claims)
    app.add_node(claims_placeholder)
    app.add_directive("specbook-claims", ClaimsDirective)
    app.connect("doctree-resolved", _render_claims)
    app.connect("env-check-consistency", _check_sources)
    app.connect("build-finished", _write_ledger)
    app.add_config_value("specbook_require_source", False, "env")
    app.connect("html-page-context", _claims_page_assets)
    app.connect("html-page-context", _reader_view, priority=900)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.add_node(summary_placeholder)
    app.add_directive("specbook-summary", SummaryDirective)
    app.connect("doctree-resolved", _replace)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": False}
