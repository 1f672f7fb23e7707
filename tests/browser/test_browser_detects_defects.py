"""The browser checks can fail: a hand-made page with every defect they look for.

A tiny fake build (one page, no Sphinx) is served on 127.0.0.1 and visited as
the book's pages are; each defect must show in the report, and a clean page must
report none. Opt-in with the other browser tests.
"""

from __future__ import annotations

import functools
import http.server
import threading

import pytest
from browser_visit import QuietHandler, visit_page

BROKEN = """<!DOCTYPE html><html><head><title>broken</title></head><body><main>
<p>The order is <span class="pasted-text">0.9990</span>. Left over: {glue:text}`gone:.2f`</p>
<span class="math notranslate nohighlight">\\(x^2\\)</span>
<img src="missing.png" alt="a figure that was never written">
<img src="http://example.invalid/remote.png" alt="a figure from the network">
<div class="cell docutils container"><div class="cell_output docutils container">
<div class="output traceback highlight-ipythontb notranslate"><pre>Traceback (most recent call last):
ZeroDivisionError: division by zero</pre></div></div></div>
<div class="cell docutils container"><div class="cell_output docutils container">
<div class="output stderr highlight-myst-ansi notranslate"><pre>UserWarning: a warning a reader should not see</pre></div></div></div>
<div class="cell tag_raises-exception docutils container"><div class="cell_output docutils container">
<div class="output traceback highlight-ipythontb notranslate"><pre>ClaimError: shown on purpose</pre></div></div></div>
<script>console.error("a console error"); undefinedFunction();</script>
</main></body></html>
"""

CLEAN = """<!DOCTYPE html><html><head><title>clean</title></head><body><main>
<p>The order is <span class="pasted-text">1.0000</span>.</p>
<img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" alt="a one-pixel image">
</main></body></html>
"""


@pytest.fixture(scope="module")
def fake_book(tmp_path_factory):
    html = tmp_path_factory.mktemp("fake") / "html"
    (html / "book").mkdir(parents=True)
    (html / "book" / "broken.html").write_text(BROKEN)
    (html / "book" / "clean.html").write_text(CLEAN)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(html)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield html, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def reports(chromium, fake_book, tmp_path_factory):
    html, base = fake_book
    shots = tmp_path_factory.mktemp("shots")
    return {doc: visit_page(chromium, base, html, f"book/{doc}", shots) for doc in ("broken", "clean")}


def test_console_and_script_errors_are_caught(reports):
    broken = reports["broken"]
    assert any("a console error" in e for e in broken.console_errors)
    assert any("undefinedFunction" in e for e in broken.page_errors)


def test_a_missing_file_and_a_foreign_host_are_caught(reports):
    broken = reports["broken"]
    assert any("missing.png" in r and "404" in r for r in broken.failed_requests)
    assert set(broken.refused_requests) == {"http://example.invalid/remote.png"}


def test_a_traceback_or_stderr_is_caught_unless_the_cell_raises_on_purpose(reports):
    outputs = reports["broken"].page["errorOutputs"]
    assert [o["kind"] for o in outputs] == ["traceback", "stderr"]
    assert "ZeroDivisionError" in outputs[0]["text"] and "UserWarning" in outputs[1]["text"]


def test_untypeset_math_broken_images_and_raw_glue_are_seen(reports):
    page = reports["broken"].page
    assert page["mathJax"] is None and page["math"] and not page["math"][0]["typeset"]
    assert [img["width"] for img in page["images"]] == [0, 0]
    assert "{glue:text}" in page["prose"]
    assert page["pasted"] == ["0.9990"]


def test_a_clean_page_reports_nothing(reports):
    clean = reports["clean"]
    assert clean.status == 200
    assert not (clean.console_errors or clean.page_errors or clean.failed_requests or clean.refused_requests)
    assert not clean.page["errorOutputs"] and not clean.page["math"]
    assert [(img["width"], img["height"]) for img in clean.page["images"]] == [(1, 1)]
    assert clean.screenshot.exists()
