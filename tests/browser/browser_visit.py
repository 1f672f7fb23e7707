"""One visit of one built page in Chromium: what a reader's browser saw, as plain data.

The visit records every console error, page error, failed or refused request
and HTTP error while the page loads; then, once MathJax has finished and every
image has settled, it reads the page: the error outputs of executed cells, the
glued text, the typeset math, the images and the links. It saves a full-page
screenshot (the first ``SCREENS`` screens of a page taller than that). The tests
judge the report; this module only observes.
"""

from __future__ import annotations

import http.server
import time
from dataclasses import dataclass, field
from pathlib import Path
import urllib.request
from urllib.parse import urlsplit

from reader_defects import READ_LAYOUT, SCREENS, too_tall

# Runs in the page once it has loaded: waits for MathJax and the images, then reads.
_READ_PAGE = r"""
async () => {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise) { await mj.startup.promise; }
  const images = [...document.images];
  for (const img of images) { img.loading = "eager"; }
  await Promise.all(images.map(img => img.complete ? null :
    new Promise(done => { img.addEventListener("load", done); img.addEventListener("error", done); })));

  const article = document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
  const prose = article.cloneNode(true);
  for (const node of prose.querySelectorAll("pre, code, .highlight, .cell_input, mjx-container, script, style")) { node.remove(); }

  const errorOutputs = [];
  for (const output of article.querySelectorAll(".cell_output .output, .cell_output .traceback, .output.traceback, .output.stderr, .output.error")) {
    const cell = output.closest(".cell");
    const expected = cell && cell.classList.contains("tag_raises-exception");
    const kind = [...output.classList].filter(c => ["traceback", "stderr", "error"].includes(c));
    const text = output.innerText || "";
    const looksLikeError = kind.length > 0 || /Traceback \(most recent call last\)/.test(text);
    if (looksLikeError && !expected) { errorOutputs.push({kind: kind.join(" ") || "text", text: text.slice(0, 600)}); }
  }

  const mathNodes = [...article.querySelectorAll(".math")];
  const math = mathNodes.map(node => ({
    tex: (node.getAttribute("data-tex") || node.textContent || "").slice(0, 80),
    typeset: node.querySelector("mjx-container") !== null,
    error: node.querySelector("mjx-merror") !== null,
  }));
  const mathScripts = [...document.scripts].map(s => s.src).filter(src => /mathjax/i.test(src));

  const nav = [...document.querySelectorAll(".bd-sidebar-primary nav a.reference.internal, #bd-docs-nav a.reference.internal")].map(a => a.href);
  const links = [...document.querySelectorAll("a[href]")].map(a => a.href);
  const next = document.querySelector("a.right-next");
  const cells = [...article.querySelectorAll("div.cell")];
  const last = cells.length ? cells[cells.length - 1] : null;
  const lastTable = last ? last.querySelector(".cell_output table") : null;
  const lastCellTable = lastTable ? {
    header: [...lastTable.querySelectorAll("thead th")].map(th => th.innerText.trim()),
    rows: lastTable.querySelectorAll("tbody tr").length,
  } : null;

  return {
    title: document.title,
    prose: prose.innerText,
    pasted: [...article.querySelectorAll(".pasted-text")].map(n => n.textContent),
    systemMessages: [...document.querySelectorAll(".system-message, .problematic")].map(n => n.textContent.slice(0, 300)),
    errorOutputs,
    math,
    mathJax: mj ? (mj.version || "loaded") : null,
    mathScripts,
    images: images.map(img => ({src: img.currentSrc || img.src, complete: img.complete,
                                width: img.naturalWidth, height: img.naturalHeight})),
    nav,
    links,
    next: next ? next.href : null,
    lastCellTable,
  };
}
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder without logging every request, or a browser that hangs up mid-answer.

    A page the test leaves while a request is still being answered (a font, a figure) closes its
    socket; the server's thread would otherwise print that ``ConnectionResetError`` (or
    ``BrokenPipeError``) with its traceback into ``make test``'s log, where it reads as a failure.
    """

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass

    def handle(self):
        try:
            super().handle()
        except (ConnectionResetError, BrokenPipeError):
            pass


@dataclass
class PageReport:
    """What the browser saw of one page."""

    doc: str
    url: str
    status: int | None = None
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    refused_requests: list[str] = field(default_factory=list)
    requested: list[str] = field(default_factory=list)
    page: dict = field(default_factory=dict)
    layout: dict = field(default_factory=dict)  # reader_defects.READ_LAYOUT: widths, shown text, fonts
    screenshot: Path | None = None
    screenshot_cropped: bool = False  # the screenshot holds the page's first SCREENS screens only


def _local(url: str, base: str) -> bool:
    parts, home = urlsplit(url), urlsplit(base)
    if parts.scheme in ("data", "blob", "about"):
        return True
    return parts.scheme == "http" and parts.netloc == home.netloc


SETTLE_TIMEOUT = 120.0
"""Seconds a page may take to settle after it loaded (a long page on a busy machine needs more
than 30 s)."""

_QUIET = 0.5
"""Seconds with no request open before a page counts as settled (Playwright's networkidle also
waits 500 ms)."""


def _settle(page, pending: dict, timeout: float) -> None:
    """Wait until the page's fonts are ready and no request has been open for ``_QUIET`` seconds.

    ``pending`` is filled and emptied by the page's request events, which Playwright delivers
    while this thread waits in ``page.wait_for_timeout``. Past ``timeout`` seconds (the fonts'
    wait included), raises a ``TimeoutError`` naming what is still awaited. A request the page
    sends more than ``_QUIET`` seconds after the last one ended is not waited for, as
    Playwright's ``networkidle`` would not wait for it.
    """
    def still_open() -> str:
        return ", ".join(sorted(pending.values())[:10])

    start = time.monotonic()
    fonts = page.evaluate("ms => Promise.race([document.fonts.ready.then(() => true),"
                          " new Promise(done => setTimeout(() => done(false), ms))])", int(timeout * 1000))
    if not fonts:
        raise TimeoutError(f"{page.url}: the fonts were not ready after {timeout:.0f} s: {still_open()}")
    quiet_since = None
    while True:
        now = time.monotonic()
        if pending:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = now
        elif now - quiet_since >= _QUIET:
            return
        if now - start > timeout:
            raise TimeoutError(f"{page.url}: {len(pending)} request(s) still open after {timeout:.0f} s: "
                               f"{still_open()}")
        page.wait_for_timeout(50)


def visit_page(browser, base: str, html: Path, doc: str, screenshots: Path) -> PageReport:
    """Load ``doc`` in a fresh browser context and report what it saw."""
    url = f"{base}/{doc}.html"
    report = PageReport(doc=doc, url=url)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")

    def route(route_):
        request_url = route_.request.url
        if _local(request_url, base):
            route_.continue_()
        else:
            report.refused_requests.append(request_url)
            route_.abort("blockedbyclient")

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda msg: msg.type == "error" and report.console_errors.append(
        f"{msg.text} ({msg.location.get('url', '')}:{msg.location.get('lineNumber', '')})"))
    page.on("pageerror", lambda exc: report.page_errors.append(str(exc)))
    pending: dict[object, str] = {}  # the requests sent and not yet answered (or failed)

    def sent(req):
        report.requested.append(req.url)
        if req.resource_type != "eventsource":  # a stream stays open; networkidle does not count it either
            pending[req] = req.url

    def failed(req):
        pending.pop(req, None)
        if _local(req.url, base):
            report.failed_requests.append(f"{req.url}: {req.failure}")

    page.on("request", sent)
    page.on("requestfinished", lambda req: pending.pop(req, None))
    page.on("requestfailed", failed)
    page.on("response", lambda resp: resp.status >= 400 and report.failed_requests.append(
        f"{resp.url}: HTTP {resp.status}"))
    try:
        # "load": the page and its scripts (MathJax among them) are in; _READ_PAGE then waits for
        # MathJax and the images, and the wait for the network below comes before the screenshot
        response = page.goto(url, wait_until="load", timeout=60_000)
        report.status = response.status if response else None
        report.page = page.evaluate(_READ_PAGE)
        report.layout = page.evaluate(READ_LAYOUT)
        # the fonts MathJax asked for while typesetting: every request answered, and none for a
        # while (not Playwright's "networkidle", which under request routing can fail to come at
        # all: once in a make test, 120 s on a page whose requests had all been answered in 2 s)
        _settle(page, pending, timeout=SETTLE_TIMEOUT)
        shot = screenshots / (doc.replace("/", "__") + ".png")
        # The whole page, or its first SCREENS screens where it is taller (only an API reference
        # may be: one of 170 screens takes Chromium 25 s to draw, and nobody reads it as a picture).
        if too_tall(report.layout, SCREENS) is not None:
            width, screen = report.layout["viewport"], report.layout["screen"]
            page.screenshot(path=str(shot), full_page=True,
                            clip={"x": 0, "y": 0, "width": width, "height": SCREENS * screen})
            report.screenshot_cropped = True
        else:
            page.screenshot(path=str(shot), full_page=True)
        report.screenshot = shot
    finally:
        context.close()
    return report


def front_door(browser, base: str, start: str = "index.html") -> tuple[str, str | None]:
    """Open ``start`` (the book's front door, a redirect to the first page) and click its page's "next".

    Returns the URL the front door lands on and the URL the click on ``a.right-next`` reaches
    (``None`` when that page has no "next" link), each without its ``#fragment``.
    """
    context = browser.new_context(service_workers="block")
    context.route("**/*", lambda r: r.continue_() if _local(r.request.url, base) else r.abort())
    page = context.new_page()
    try:
        with urllib.request.urlopen(f"{base}/{start}", timeout=10) as door:
            redirects = 'http-equiv="refresh"' in door.read().decode("utf-8", "replace").lower()
        page.goto(f"{base}/{start}", wait_until="load")
        if redirects:
            page.wait_for_url(lambda url: not url.endswith(f"/{start}"), timeout=10_000)
            page.wait_for_load_state("load")
        landed = page.url.split("#", 1)[0]
        link = page.locator("a.right-next").first
        if link.count() == 0:
            return landed, None
        link.click()
        page.wait_for_url(lambda url: url.split("#", 1)[0] != landed, timeout=10_000)
        return landed, page.url.split("#", 1)[0]
    finally:
        context.close()


def next_walk(first: str, next_of, limit: int = 500) -> list[str]:
    """The URLs met following "next" from ``first``: ``next_of(url)`` is the page's "next" link or ``None``.

    Stops at a page with no "next", or at one met before (a loop is a defect the caller sees).

    >>> links = {"a": "b", "b": "c", "c": None}
    >>> next_walk("a", links.get), next_walk("a", {"a": "b", "b": "a"}.get)
    (['a', 'b', 'c'], ['a', 'b', 'a'])
    """
    walked = [first]
    for _ in range(limit):
        following = next_of(walked[-1])
        if following is None:
            break
        walked.append(following.split("#", 1)[0])
        if walked[-1] in walked[:-1]:
            break
    return walked
