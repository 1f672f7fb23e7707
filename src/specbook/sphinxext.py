"""A Sphinx extension for the book: the landing page's summary of claims across pages.

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
    order = [docname] + [d for d in env.found_docs if d != docname]
    try:
        toc = env.toctree_includes  # keep the reading order of the table of contents
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
        count, passed = int(data["count"]), int(data["passed"])
        total += count
        held += passed
        row([ref, str(count), str(passed), "✓" if count == passed else "✗"], body)
    row([nodes.strong("", "Whole book"), str(total), str(held), "✓" if total == held else "✗"], body)
    for placeholder in placeholders:
        placeholder.replace_self(table.deepcopy())


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


def _merge(app, env, docnames, other) -> None:
    _env_claims(env).update({d: v for d, v in _env_claims(other).items() if d in docnames})


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


def _drop_stale_cache(app, env, docnames) -> None:
    """Empty the notebook cache unless ``python -m specbook.execute`` filled it from today's sources.

    jupyter-cache matches a page by its code cells alone; a page whose cells did not
    change but whose imported code did would otherwise show the old outputs, and its
    claims would not run. See ``specbook.execute``.
    """
    config = getattr(env, "mystnb_config", None)
    if config is None or config.execution_mode != "cache" or not config.execution_cache_path:
        return
    from pathlib import Path

    from specbook.execute import stamp_matches

    cache = Path(config.execution_cache_path)
    if cache.exists() and not stamp_matches(cache, app.srcdir):
        import shutil

        from sphinx.util import logging

        logging.getLogger(__name__).info(
            "specbook: the notebook cache was not made from these sources; every page is executed")
        shutil.rmtree(cache)


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
    if not path.is_file():
        return
    notebook = nbformat.read(path, as_version=4)
    if any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"):
        return  # executed in this build: written with its outputs
    from jupyter_cache import get_cache

    try:
        _, merged = get_cache(config.execution_cache_path).merge_match_into_notebook(notebook)
    except KeyError:  # not in the cache: a page with no outputs at all
        return
    path.write_text(nbformat.writes(merged), encoding="utf-8")


def setup(app) -> dict[str, Any]:
    app.connect("doctree-read", _write_cached_outputs)
    app.connect("env-before-read-docs", _drop_stale_cache, priority=100)
    app.connect("html-page-context", _reader_view, priority=900)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.add_node(summary_placeholder)
    app.add_directive("specbook-summary", SummaryDirective)
    app.connect("doctree-resolved", _replace)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": False}
