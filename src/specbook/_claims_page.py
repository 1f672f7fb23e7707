"""The Claims page: a summary for a reviewer, then every claim in one table they can filter and sort.

``{specbook-claims}`` (:mod:`specbook.sphinxext`) is replaced, once every page has been read, by
what :func:`render` builds from the ledger the build holds, each claim annotated with its
verdicts under the fault catalogue (:mod:`specbook._matrix`):

1. a summary: claims by page, by the source of their expected value and by outcome, each with
   how many are proven able to fail (broken by at least one fault), and the claims that hold
   with the least margin to their tolerance;
2. the table of every claim: its page, source, values, the share of its tolerance it uses and
   the faults that kill it. DataTables (vendored in ``_static/vendor/datatables``, no network)
   makes it filterable by page, source kind and text, and sortable by margin; without
   JavaScript it is a plain table;
3. the examples (``specbook.example``): page arithmetic, listed apart and outside the counts.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from typing import Any, Callable

from docutils import nodes

from specbook._numbers import claim_values

__all__ = ["DATATABLES", "TABLE_ID", "render"]

TABLE_ID = "specbook-claims-table"
"""The HTML id of the table of every claim (``_static/specbook-claims.js`` enhances it)."""
DATATABLES = ("vendor/datatables/dataTables.min.js", "vendor/datatables/dataTables.dataTables.min.css")
"""The vendored DataTables files, relative to ``_static``: loaded by the Claims page only."""
KIND_LABEL = {"declaration": "declared", "closed form": "closed form",
              "independent implementation": "independent", "seed figure": "seed figure"}
LEAST_MARGIN = 10
"""How many claims the summary lists as holding with the least margin."""


def _table(header: list[str], rows: list[list[Any]], classes: list[str], widths: list[int] | None = None) -> nodes.table:
    table = nodes.table(classes=["specbook-claims-summary", *classes, *(["colwidths-given"] if widths else [])])
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in widths or [1] * len(header):
        group += nodes.colspec(colwidth=width)
    thead, tbody = nodes.thead(), nodes.tbody()
    group += thead
    group += tbody
    for parent, cells in [(thead, header), *[(tbody, r) for r in rows]]:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            para = nodes.paragraph()
            for part in cell if isinstance(cell, list) else [cell]:
                para += part if isinstance(part, nodes.Node) else nodes.Text(str(part))
            entry += para
            row += entry
        parent += row
    return table


def _kind(claim: dict[str, Any]) -> str:
    source = claim.get("source") or {}
    return KIND_LABEL.get(source.get("kind"), source.get("kind") or "not stated")


def _of(part: int, whole: int) -> str:
    return f"{part} of {whole}"


def _shown(value: Any) -> str:
    return f"{value:.6g}" if _number(value) else str(value)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _values(claim: dict[str, Any]) -> str:
    """A claim's values in words; the digits resolve what the tolerance allows (:mod:`specbook._numbers`)."""
    if claim.get("description"):
        return claim["description"]
    unit = f" {claim['unit']}" if claim.get("unit") else ""
    measured, expected = claim.get("measured"), claim.get("expected")
    if _number(measured) and _number(expected):
        m_text, e_text = claim_values(float(measured), float(expected), claim.get("atol"), claim.get("rtol"))
    else:
        m_text, e_text = _shown(measured), _shown(expected)
    return f"measured {m_text}{unit}; expected {e_text}{unit} ({claim.get('tolerance') or 'exact'})"


# A number as a claim shows it (1.6e-07, ±1e-06, -0.25): a line may break around it, never inside it.
_NUMBER = re.compile(r"[±+\-−]?\d[\d.,]*(?:[eE][-+−]?\d+)?")


def _pieces(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into ``(piece, is_number)``, every number a piece of its own."""
    out, at = [], 0
    for match in _NUMBER.finditer(text):
        if match.start() > at:
            out.append((text[at:match.start()], False))
        out.append((match.group(0), True))
        at = match.end()
    if at < len(text):
        out.append((text[at:], False))
    return out


def _unbroken_html(text: str) -> str:
    """``text`` escaped for HTML, each number in a span that the book's CSS keeps on one line."""
    return "".join(f'<span class="specbook-nowrap">{html.escape(piece)}</span>' if number else html.escape(piece)
                   for piece, number in _pieces(text))


def _unbroken(text: str) -> list[nodes.Node]:
    """``text`` as docutils nodes, each number an inline node that the book's CSS keeps on one line."""
    return [nodes.inline("", piece, classes=["specbook-nowrap"]) if number else nodes.Text(piece)
            for piece, number in _pieces(text)]


def _breakable(text: str) -> str:
    """``text`` escaped for HTML, with a line-break opportunity after each ``_ . / ( ,`` (long names wrap there)."""
    return "".join(html.escape(ch) + ("<wbr>" if ch in "_./(," else "") for ch in text)


def _used(claim: dict[str, Any]) -> tuple[str, float]:
    """The tolerance used, as shown and as sorted (conditions and exact claims sort below every number)."""
    used = claim.get("tolerance_used")
    if claim.get("description"):
        return "–", -2.0
    if used is None:
        return "exact", -1.0
    if used == float("inf"):
        return "not finite", 1e9
    return f"{100 * used:.3g}%", float(used)


PARTS = ("summary", "table", "examples")
"""The parts of the Claims page, each placed by ``{specbook-claims} PART`` (no part: all three)."""


def render(pages: list[dict[str, Any]], section: dict[str, Any] | None, *, title: Callable[[str], str],
           page_uri: Callable[[str], str], api_uri: Callable[[dict[str, Any]], str | None]) -> dict[str, list[nodes.Node]]:
    """The Claims page's content for the ledger's ``pages`` (in reading order, claims annotated), by part.

    ``title(page)`` and ``page_uri(page)`` give a page's title and its URI from the Claims
    page; ``api_uri(source)`` the URI of a source's API entry, or None. ``section`` is the
    ledger's ``faults`` section (None: no kill matrix was read). Returns the nodes of each
    of :data:`PARTS`.
    """
    claims = [(page, c) for page in pages for c in page["claims"] if not c.get("example")]
    examples = [(page, c) for page in pages for c in page["claims"] if c.get("example")]
    if not claims and not examples:
        return {"summary": [nodes.paragraph("", "No page has recorded claims in this build.")], "table": [],
                "examples": []}
    out: list[nodes.Node] = []
    proven = [c for _, c in claims if c.get("killed_by")]
    holding = [c for _, c in claims if c.get("holds")]
    faults = (section or {}).get("catalogue", [])
    intro = nodes.paragraph(classes=["specbook-claims-headline"])
    intro += nodes.Text(f"{len(claims)} claims on {len({p['page'] for p, _ in claims})} pages; "
                        f"{len(holding)} hold. ")
    intro += nodes.strong("", f"{len(proven)} of {len(claims)} are proven able to fail")
    noun = "example" if len(examples) == 1 else "examples"
    intro += nodes.Text(f": each is broken by at least one of the {len(faults)} faults of the catalogue "
                        "(a plausible bug patched into the code under test, run over the page). "
                        f"{len(examples)} {noun}, page arithmetic with no product code under test, "
                        f"{'is' if len(examples) == 1 else 'are'} listed apart and not counted." if section else
                        ": no kill matrix was read for this build (run python -m specbook.faults; make test does).")
    out.append(intro)
    out += _warnings(pages, section)

    # -- by page, by source, by outcome -----------------------------------------------------------
    out.append(nodes.rubric("", "By page"))
    rows = []
    for page in pages:
        own = [c for c in page["claims"] if not c.get("example")]
        if not own and not any(c.get("example") for c in page["claims"]):
            continue
        link = nodes.reference("", title(page["page"]), internal=True, refuri=page_uri(page["page"]))
        rows.append([[link], str(len(own)), str(sum(bool(c.get("holds")) for c in own)),
                     _of(sum(bool(c.get("killed_by")) for c in own), len(own)),
                     str(sum(bool(c.get("example")) for c in page["claims"]))])
    rows.append([[nodes.strong("", "Whole book")], str(len(claims)), str(len(holding)), _of(len(proven), len(claims)),
                 str(len(examples))])
    out.append(_table(["Page", "Claims", "Hold", "Proven able to fail", "Examples"], rows, ["specbook-by-page"],
                      [40, 12, 12, 22, 14]))

    out.append(nodes.rubric("", "By the source of the expected value"))
    kinds = Counter(_kind(c) for _, c in claims)
    rows = [[name, str(n), str(sum(bool(c.get("holds")) for _, c in claims if _kind(c) == name)),
             _of(sum(bool(c.get("killed_by")) for _, c in claims if _kind(c) == name), n)]
            for name, n in sorted(kinds.items(), key=lambda kv: -kv[1])]
    out.append(_table(["Source", "Claims", "Hold", "Proven able to fail"], rows, ["specbook-by-source"],
                      [40, 15, 15, 30]))

    out.append(nodes.rubric("", "By outcome"))
    outcome = Counter()
    for _, c in claims:
        if not c.get("holds"):
            outcome["fails in this build"] += 1
        elif c.get("killed_by"):
            outcome["holds, and a fault breaks it"] += 1
        elif c.get("unreached_under") and not c.get("killed_by"):
            outcome["holds; its faults stop the page before it"] += 1
        else:
            outcome["holds; no fault breaks it yet"] += 1
    order = ["holds, and a fault breaks it", "holds; its faults stop the page before it",
             "holds; no fault breaks it yet", "fails in this build"]
    rows = [[name, str(outcome[name])] for name in order if outcome[name]]
    rows.append(["example (not counted)", str(len(examples))])
    out.append(_table(["Outcome", "Claims"], rows, ["specbook-by-outcome"], [70, 30]))

    out.append(nodes.rubric("", "Least margin"))
    numeric = [(p, c) for p, c in claims if c.get("tolerance_used") is not None and not c.get("description")]
    numeric.sort(key=lambda pc: -float(pc[1]["tolerance_used"]))
    out.append(nodes.paragraph("", f"The {min(LEAST_MARGIN, len(numeric))} claims that use the largest share of "
                                   "their tolerance, |measured − expected| over what the tolerance allows: a "
                                   "small change of the code moves these first."))
    rows = []
    for page, c in numeric[:LEAST_MARGIN]:
        link = nodes.reference("", "", nodes.literal("", c["key"]), internal=True,
                               refuri=f"{page_uri(page['page'])}#{c['anchor']}" if c.get("anchor") else page_uri(page["page"]))
        rows.append([[link], title(page["page"]), _unbroken(_values(c)), _unbroken(_used(c)[0])])
    out.append(_table(["Claim", "Page", "Values", "Tolerance used"], rows, ["specbook-least-margin"],
                      [30, 20, 38, 12]))

    wrong = [(p, c) for p, c in claims if c.get("mislabelled")]
    if wrong:
        out.append(nodes.rubric("", "Mislabelled sources"))
        out.append(nodes.paragraph("", "An expected value that moves when the code under test is patched was "
                                       "computed by that code: only a declaration the fault patched may do that. "
                                       "These claims compare the code with itself until their expected value is "
                                       "made independent or their source says what it is."))
        rows = []
        for page, c in wrong:
            link = nodes.reference("", "", nodes.literal("", c["key"]), internal=True,
                                   refuri=f"{page_uri(page['page'])}#{c['anchor']}" if c.get("anchor")
                                   else page_uri(page["page"]))
            source = c.get("source") or {}
            rows.append([[link], f"{_kind(c)}: {source.get('ref', '')}", _names(c["expected_moved_under"])])
        out.append(_table(["Claim", "Its source says", "Its expected value moved under"], rows,
                          ["specbook-mislabelled"], [30, 45, 25]))

    # -- the table of every claim -------------------------------------------------------------------
    table: list[nodes.Node] = [
        nodes.paragraph("", "Filter by page, by the source of the expected value or by any text; sort by any "
                            "column (the tolerance used, largest first, finds the claims with the least margin). "
                            "A claim's name links to the cell that makes it; its source links to the "
                            "declaration's API entry where the book documents it."),
        nodes.raw("", _every_claim(claims, title, page_uri, api_uri, section), format="html")]

    listed: list[nodes.Node] = []
    if examples:
        out, summary = listed, out
        out.append(nodes.paragraph("", "Page arithmetic and reference formulas with no product code under test. "
                                       "Each is checked like a claim, so a wrong one still fails the build, but no "
                                       "fault of the code can break it, and none is counted above."))
        rows = []
        for page, c in examples:
            link = nodes.reference("", "", nodes.literal("", c["key"]), internal=True,
                                   refuri=f"{page_uri(page['page'])}#{c['anchor']}" if c.get("anchor")
                                   else page_uri(page["page"]))
            source = c.get("source") or {}
            rows.append([[link], title(page["page"]), _unbroken(_values(c)), source.get("ref", "not stated")])
        out.append(_table(["Example", "Page", "Values", "Where the expected value comes from"], rows,
                          ["specbook-examples"], [25, 17, 30, 28]))
        out = summary
    else:
        listed.append(nodes.paragraph("", "No page makes an example."))
    return {"summary": out, "table": table, "examples": listed}


def _names(names: list[str]) -> list[nodes.Node]:
    out: list[nodes.Node] = []
    for i, name in enumerate(names):
        if i:
            out.append(nodes.Text(", "))
        out.append(nodes.literal("", name))
    return out


def _warnings(pages: list[dict[str, Any]], section: dict[str, Any] | None) -> list[nodes.Node]:
    if not section:
        return []
    items = []
    for page, status in (section.get("pages") or {}).items():
        stale, missing = status.get("stale") or {}, status.get("missing") or []
        if stale:
            reasons = sorted(set(stale.values()))
            items.append(f"{page}: {len(stale)} fault run{'s' if len(stale) != 1 else ''} not current "
                         f"({'; '.join(reasons[:2])}{'; ...' if len(reasons) > 2 else ''}): "
                         f"{', '.join(sorted(stale))}; their kills are not counted")
        if missing:
            items.append(f"{page}: never run under {', '.join(missing)}")
    wrong = [c for page in pages for c in page["claims"] if c.get("mislabelled")]
    if wrong:
        items.insert(0, f"{len(wrong)} claim{'s' if len(wrong) != 1 else ''} compare the code with itself: a fault "
                        "moved the expected value, and the source is not the declaration it patched (see "
                        "Mislabelled sources, below)")
    if not items:
        return []
    box = nodes.admonition(classes=["warning"])
    box += nodes.title("", "What the matrix does not prove")
    listing = nodes.bullet_list()
    for text in items:
        item = nodes.list_item()
        item += nodes.paragraph("", text)
        listing += item
    box += listing
    return [box]


def _every_claim(claims, title, page_uri, api_uri, section) -> str:
    esc = html.escape
    page_names = list(dict.fromkeys(title(p["page"]) for p, _ in claims))
    kinds = sorted({_kind(c) for _, c in claims})
    parts = [f'<div class="specbook-claims-filters" data-table="{TABLE_ID}">',
             '<label>Page <select class="specbook-claims-filter" data-column="1"><option value="">every page</option>'
             + "".join(f'<option value="{esc(n)}">{esc(n)}</option>' for n in page_names) + "</select></label> ",
             '<label>Source <select class="specbook-claims-filter" data-column="2"><option value="">every source'
             '</option>' + "".join(f'<option value="{esc(k)}">{esc(k)}</option>' for k in kinds)
             + "</select></label></div>",
             f'<table id="{TABLE_ID}" class="specbook-claims-matrix display compact">',
             '<thead><tr><th>Claim</th><th class="specbook-filter-only">Page</th>'
             '<th class="specbook-filter-only">Source kind</th><th>Source of the expected value</th>'
             "<th>Measured and expected</th><th>Tolerance used</th><th>Killed by</th></tr></thead><tbody>"]
    for page, c in claims:
        uri = page_uri(page["page"])
        href = f"{uri}#{c['anchor']}" if c.get("anchor") else uri
        source = c.get("source") or {}
        ref = source.get("ref", "not stated")
        ref_html = f"<code>{_breakable(ref)}</code>" if source.get("kind") != "closed form" else esc(ref)
        api = api_uri(source) if source else None
        if api:
            ref_html = f'<a href="{esc(api)}" title="API entry">{ref_html}</a>'
        shown, order = _used(c)
        killed = c.get("killed_by") or []
        if killed:
            killers = ", ".join(f"<code>{_breakable(k)}</code>" for k in killed)
        elif section is None:
            killers = '<span class="specbook-unknown">not run</span>'
        else:
            killers = '<span class="specbook-no-killer">none yet</span>'
            if c.get("unreached_under"):
                killers += (f' <span class="specbook-unreached">(not reached under '
                            f'{", ".join(esc(k) for k in c["unreached_under"])})</span>')
        name = esc(title(page["page"]))
        held = "" if c.get("holds") else ' <span class="specbook-fails">fails</span>'
        parts.append(
            f'<tr data-claim="{esc(c["key"])}"><td class="specbook-claim"><a href="{esc(href)}"><code>'
            f'{_breakable(c["key"])}</code></a>{held}<br><span class="specbook-claim-page">{name}</span></td>'
            f'<td class="specbook-filter-only">{name}</td><td class="specbook-filter-only">{esc(_kind(c))}</td>'
            f'<td><span class="specbook-kind">{esc(_kind(c))}:</span> {ref_html}</td>'
            f'<td>{_unbroken_html(_values(c))}</td><td class="specbook-used" data-order="{order!r}">{esc(shown)}</td>'
            f'<td class="specbook-killers" data-order="{len(killed)}">{killers}</td></tr>')
    parts.append("</tbody></table>")
    return "".join(parts)
