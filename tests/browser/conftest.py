"""The published book in a real browser: Debian's Chromium driven by Playwright.

These tests read the *built* book, so they are opt-in: a plain ``pytest`` does
not collect them (the book is not built yet then). ``make test`` runs them after
the strict build with::

    pytest tests/browser --browser

``--book-html=PATH`` points them at another build (default ``_build/html``; write it
with ``=``, or pytest takes the path for a test path).
The book is served on 127.0.0.1 by a server the session starts and stops; the
browser is refused every request to any other host, and each refusal is a
failure of the page that made it.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import queue
import threading
from pathlib import Path

import pytest
from browser_visit import QuietHandler

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
# Exactly the flags the project runs Chromium with.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_addoption(parser):
    group = parser.getgroup("browser", "the built book in a real browser")
    group.addoption("--browser", action="store_true", default=False,
                    help="run tests/browser against the built book (opt-in)")
    group.addoption("--book-html", default=str(ROOT / "_build" / "html"),
                    help="the built book's HTML folder (default: _build/html)")


def _browser_enabled(config) -> bool:
    try:
        return bool(config.getoption("--browser"))
    except ValueError:  # the option is unknown when this conftest was not loaded at start-up
        return False


def pytest_ignore_collect(collection_path, config):
    """Without ``--browser``, skip the tests of the built book (not the helpers' doctests)."""
    if collection_path.name.startswith(("test_browser", "test_built")) and not _browser_enabled(config):
        return True
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name.startswith("test_browser"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def book_html(request) -> Path:
    html = Path(request.config.getoption("--book-html")).resolve()
    if not (html / "index.html").exists():
        pytest.fail(f"--book-html {html}: no built book there (run `make book` first)", pytrace=False)
    return html


@pytest.fixture(scope="session")
def book_server(book_html):
    """Serve the built book on 127.0.0.1 on a free port; yields its base URL."""
    handler = functools.partial(QuietHandler, directory=str(book_html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="book-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextlib.contextmanager
def launched():
    """Debian's Chromium, headless, launched by a Playwright of this thread's own (never a downloaded
    browser); Playwright gives it a fresh, temporary profile. Closed on leaving."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it with apt (package chromium)",
                    pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def chromium():
    """The session's Chromium (:func:`launched`), for the tests that drive a page themselves."""
    with launched() as browser:
        yield browser


@pytest.fixture(scope="session")
def screenshots(book_html) -> Path:
    folder = book_html.parent / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


VISITORS = 2
"""Browsers that visit the book's pages at once, each in a thread of its own. A visit spends much
of its time waiting (for the network to go quiet, for MathJax, for the screenshot), so two
overlap where one would idle."""


@pytest.fixture(scope="session")
def visit(book_server, book_html, screenshots):
    """``visit(doc)``: the report of one page seen in the browser, made once per session.

    The first call starts :data:`VISITORS` threads, each with its own Chromium (:func:`launched`:
    Playwright's objects belong to the thread that made them), and queues every page of the
    table of contents in reading order; a call waits for its page's report. A visit that
    raised, or a browser that would not start, raises where its page is asked for.
    """
    from book_pages import toc_pages  # noqa: PLC0415
    from browser_visit import visit_page  # noqa: PLC0415

    reports: dict[str, object] = {}
    done: dict[str, threading.Event] = {}
    todo: queue.Queue[str | None] = queue.Queue()
    threads: list[threading.Thread] = []

    def worker() -> None:
        doc: str | None = ""  # none taken yet
        try:
            with launched() as browser:
                while (doc := todo.get()) is not None:
                    try:
                        reports[doc] = visit_page(browser, book_server, book_html, doc, screenshots)
                    except Exception as exc:  # noqa: BLE001 - raised by the test that asks for the page
                        reports[doc] = exc
                    done[doc].set()
        except BaseException as exc:  # noqa: BLE001 - no browser (pytest.fail is a BaseException)
            if doc == "":
                doc = todo.get()
            while doc is not None:  # every page still asked for fails with this, until the end
                reports[doc] = exc
                done[doc].set()
                doc = todo.get()

    def _visit(doc: str):
        if doc not in done:
            if not threads:
                threads.extend(threading.Thread(target=worker, name="book-visitor", daemon=True)
                               for _ in range(VISITORS))
                for thread in threads:
                    thread.start()
            for page in (*toc_pages(), doc):
                if page not in done:
                    done[page] = threading.Event()
                    todo.put(page)
        if not done[doc].wait(timeout=600):
            pytest.fail(f"{doc}: no visit report after 600 s", pytrace=False)
        report = reports[doc]
        if isinstance(report, BaseException):
            raise report
        return report

    yield _visit
    for _ in threads:
        todo.put(None)
    for thread in threads:
        thread.join(timeout=60)
