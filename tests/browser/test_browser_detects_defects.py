"""The browser checks can fail: a hand-made page with every defect they look for.

A tiny fake build (one page, no Sphinx) is served on 127.0.0.1 and visited as
the book's pages are; each defect must show in the report, and a clean page must
report none. Opt-in with the other browser tests.
"""

from __future__ import annotations

import base64
import functools
import http.server
import importlib
import io
import shutil
import threading
import time
from pathlib import Path

import pytest
import browser_visit
from browser_visit import QuietHandler, visit_page
from reader_defects import (
    SCREENS, bare_value, broken_words, e_notation, float_noise, hidden_line_ends, markdown_leaks, math_escapes, screens_tall, sideways, small_figure_text, tex_leaks,
    too_tall, too_wide,
)

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


def _png(width_in: float, font_pt: float, dpi: int = 100) -> str:
    """A real Matplotlib figure as a base64 PNG: one panel, its text at ``font_pt``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width_in, 2.0))
    ax.plot([0, 1], [0, 1])
    ax.set_xlabel("t (s)", fontsize=font_pt)
    ax.tick_params(labelsize=font_pt)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


# A page laid out as the book's pages are (an article column 688 px wide at a 1280 px window), with one
# planted defect of each class a reader would see; READER_CLEAN is the same page with each one fixed.
_ARTICLE = """<!DOCTYPE html><html><head><title>{title}</title><style>
body {{ margin: 0; font-size: 16px; }} article.bd-article {{ width: 688px; margin-left: 300px; }}
td, th {{ font-size: 14px; }} img {{ max-width: 100%; height: auto; }}
</style></head><body><main><article class="bd-article">{body}</article></main></body></html>"""

READER_BROKEN = _ARTICLE.format(title="reader-broken", body="""
<p>| dt (s) | |x(T) - exact| | Observed order | |---|---|---|</p>
<p>The scheme is **semi-implicit** and $x^2$ is {{py:obj}}`maddening.nodes.ball.BallNode` left as text.</p>
<div class="cell tag_hide-input"><div class="cell_input"></div><div class="cell_output">
<div class="output text_plain"><pre>2.001951252151805</pre></div></div></div>
<div class="cell tag_remove-input"><div class="cell_output">
<div class="output text_plain"><pre>True</pre></div></div></div>
<div class="cell tag_hide-input"><div class="cell_input"></div><div class="cell_output">
<div class="output text_plain"><pre>&lt;matplotlib.legend.Legend at 0x7f00aa11&gt;</pre></div></div></div>
<p>The spacing rule gives spacing = 0.00030000000000000003 m.</p>
<p>The contact is recorded 4.76e-04 s late.</p>
<table><tr><td>a</td><td style="white-space: nowrap">maddening.core.simulation.integrators.integrate_node and a notes column that never wraps at all, so the table runs far past the column edge</td></tr></table>
<div class="math"><mjx-container display="true" style="display:block"><mjx-math style="display:inline-block; width: 900px">x</mjx-math></mjx-container></div>
<div class="cell tag_hide-input"><div class="cell_output"><div class="output text_html">
<img class="specbook-figure" alt="four panels in one row" src="data:image/png;base64,{wide}" data-min-font-pt="10" data-dpi="100" width="688">
</div></div></div>
<div class="cell tag_hide-input"><div class="cell_output"><img alt="a figure shown with plt.show()" src="data:image/png;base64,{plain}"></div></div>
<dl class="py data"><dt><em class="property" style="white-space: nowrap">= re.compile('JAX_(COMPILATION_CACHE_.*|PERSISTENT_CACHE_.*|RAISE_PERSISTENT_CACHE_ERRORS|EXPLAIN_CACHE_MISSES|LOG_COMPILES|LOGGING_LEVEL)')</em></dt></dl>
<table style="width: 688px"><tr><td style="width: 40px; overflow-wrap: anywhere"><code>Quantity</code></td>
<td>a description that takes the rest of the row, as a table of settings has</td></tr></table>
<pre style="overflow-x: auto">a code listing as long as a line can be, which scrolls inside its own box and so never widens the page at all, however long</pre>
<div class="doctest highlight-default"><pre style="overflow-x: auto">&gt;&gt;&gt; whole_number(2.0, "steps", "a whole number &gt;= 1", where="oscillator_series")
maddening.ValidationError: oscillator_series: steps = 2.0 is not allowed; expected a whole number &gt;= 1</pre></div>
""".format(wide=_png(14, 10), plain=_png(5, 12)))

READER_CLEAN = _ARTICLE.format(title="reader-clean", body="""
<table><thead><tr><th>dt (s)</th><th>|x(T) - exact|</th></tr></thead><tbody><tr><td>0.001</td><td>3.2e-05</td></tr></tbody></table>
<p>The scheme is <strong>semi-implicit</strong>; a set {{0, 0.5, 1}} and |v| at most 1.</p>
<div class="cell"><div class="cell_input"><pre>trajectory.values('ball.x')[-1].tolist()</pre></div><div class="cell_output">
<div class="output text_plain"><pre>[2.0, 2.0]</pre></div></div></div>
<p>The spacing rule gives spacing = 0.0003 m.</p>
<p>The contact is recorded 4.76 × 10⁻⁴ s late.</p>
<table style="width: 688px"><tr><td style="width: 100px; overflow-wrap: anywhere"><code>SPACING_<wbr>FLOOR_<wbr>OF_<wbr>HULL</code></td>
<td>a name broken after its underscores, between its words (without its breaks it would break inside one)</td></tr></table>
<div class="math"><mjx-container display="true" style="display:block"><mjx-math style="display:inline-block; width: 400px">x</mjx-math></mjx-container></div>
<div class="doctest highlight-default"><pre style="overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere">&gt;&gt;&gt; whole_number(2.0, "steps", "a whole number &gt;= 1", where="oscillator_series")
maddening.ValidationError: oscillator_series: steps = 2.0 is not allowed; expected a whole number &gt;= 1</pre></div>
<div class="cell tag_hide-input"><div class="cell_output"><div class="output text_html">
<img class="specbook-figure" alt="one panel at the column's width" src="data:image/png;base64,{fig}" data-min-font-pt="11" data-dpi="100" width="680">
</div></div></div>
""".format(fig=_png(6.8, 11)))

# Formulas typeset by the book's own MathJax, configured as Sphinx configures it: the broken page
# writes a code constant in TeX text (its escaped underscore is drawn as a backslash and an
# underscore), leaves an inline formula as text the way the contact chapter once did (a wrapped
# line that began with "- " turned the formula's end into a list item), and is 20 screens tall;
# the clean one writes the same band with a symbol defined in the prose, a set difference whose
# glyph is not a backslash, the same complementarity typeset, and dollars that are prices.
_MATH = """<!DOCTYPE html><html><head><title>{title}</title>
<script>window.MathJax = {{"options": {{"processHtmlClass": "tex2jax_process|mathjax_process|math|output_area"}}}}</script>
<script defer src="../_static/mathjax/tex-chtml.js"></script>
<style>body {{ margin: 0; }} article.bd-article {{ width: 688px; margin-left: 300px; }}</style>
</head><body><main><article class="bd-article">{body}</article></main></body></html>"""

MATH_BROKEN = _MATH.format(title="math-broken", body=r"""
<p>The band is <span class="math notranslate nohighlight">\(\varepsilon = \texttt{CONTACT\_ULPS}\cdot\epsilon_{\mathrm{mach}}\)</span>.</p>
<div class="math notranslate nohighlight">\[g_i(x, q) = \phi\bigl(x + R(q)\,p_i\bigr) - \delta\]</div>
<p>The impulses solve the complementarity problem $0 \le \lambda \perp u^{*} + K\lambda</p>
<ul><li><p>b \ge 0</p></li></ul>
<p>Projected Gauss–Seidel solves it row by row, from \lambda = 0$, clamping each impulse.</p>
<div style="height: 18000px">a page 20 screens tall</div>
""")

MATH_CLEAN = _MATH.format(title="math-clean", body=r"""
<p>The band is <span class="math notranslate nohighlight">\(\varepsilon = u\,\epsilon_{\mathrm{mach}}\,(|x| + r_e + \delta)\)</span>,
where <span class="math notranslate nohighlight">\(u\)</span> counts units in the last place.</p>
<div class="math notranslate nohighlight">\[A \setminus B = \{\, a \in A : a \notin B \,\}\]</div>
<p>The impulses solve <span class="math notranslate nohighlight">\(0 \le \lambda \perp u^{*} + K\lambda - b \ge 0\)</span>,
from <span class="math notranslate nohighlight">\(\lambda = 0\)</span>; a licence costs 5 $ and a manual 10 $, and
<code>\lambda</code> is how the source writes it.</p>
<div style="height: 9000px">a page 10 screens tall</div>
""")


# A page that, once loaded, asks for a resource the server holds back: the visit must not settle.
HANGING = """<!DOCTYPE html><html><head><title>hanging</title></head><body><main><p>Loaded.</p>
<script>window.addEventListener("load", () => fetch("/held-back"));</script></main></body></html>
"""

# A page that, once loaded, sets text in a font the server holds back (as MathJax asks for its fonts
# after the load, while it typesets): the fonts' wait is bounded as the requests' wait is.
FONT_HELD = """<!DOCTYPE html><html><head><title>font-held</title><style>
@font-face { font-family: "Held"; src: url("/held-back-font.woff2"); }
</style></head><body><main><p>Loaded.</p>
<script>window.addEventListener("load", () => { const p = document.createElement("p");
  p.style.fontFamily = "Held"; p.textContent = "Set in a font that comes late."; document.body.appendChild(p); });
</script></main></body></html>
"""

HELD_BACK_SECONDS = 2.5


class _HoldingHandler(QuietHandler):
    """Serves the fake book, but answers ``/held-back`` only after ``HELD_BACK_SECONDS``."""

    def do_GET(self):
        if self.path in ("/held-back", "/held-back-font.woff2"):
            time.sleep(HELD_BACK_SECONDS)
        return super().do_GET()


@pytest.fixture(scope="module")
def fake_book(tmp_path_factory):
    html = tmp_path_factory.mktemp("fake") / "html"
    (html / "book").mkdir(parents=True)
    (html / "book" / "broken.html").write_text(BROKEN)
    (html / "book" / "clean.html").write_text(CLEAN)
    (html / "book" / "reader-broken.html").write_text(READER_BROKEN)
    (html / "book" / "reader-clean.html").write_text(READER_CLEAN)
    (html / "book" / "math-broken.html").write_text(MATH_BROKEN)
    (html / "book" / "math-clean.html").write_text(MATH_CLEAN)
    (html / "book" / "hanging.html").write_text(HANGING)
    (html / "held-back").write_text("at last")
    (html / "book" / "font-held.html").write_text(FONT_HELD)
    (html / "held-back-font.woff2").write_bytes(b"not a font")
    # the book's MathJax, as the build copies it (sphinx-mathjax-offline)
    offline = Path(importlib.import_module("sphinx-mathjax-offline").__file__).parent / "static" / "mathjax"
    shutil.copytree(offline, html / "_static" / "mathjax")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_HoldingHandler, directory=str(html)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield html, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def reports(chromium, fake_book, tmp_path_factory):
    html, base = fake_book
    shots = tmp_path_factory.mktemp("shots")
    return {doc: visit_page(chromium, base, html, f"book/{doc}", shots)
            for doc in ("broken", "clean", "reader-broken", "reader-clean", "math-broken", "math-clean")}


def test_a_request_left_open_keeps_the_visit_from_settling(chromium, fake_book, tmp_path, monkeypatch):
    html, base = fake_book
    monkeypatch.setattr(browser_visit, "SETTLE_TIMEOUT", 1.0)
    with pytest.raises(TimeoutError, match=r"1 request\(s\) still open after 1 s: .*/held-back"):
        visit_page(chromium, base, html, "book/hanging", tmp_path)
    monkeypatch.setattr(browser_visit, "SETTLE_TIMEOUT", 3 * HELD_BACK_SECONDS)
    report = visit_page(chromium, base, html, "book/hanging", tmp_path)  # waits for the answer
    assert f"{base}/held-back" in report.requested and report.screenshot is not None


def test_a_font_held_back_keeps_the_visit_from_settling(chromium, fake_book, tmp_path, monkeypatch):
    html, base = fake_book
    monkeypatch.setattr(browser_visit, "SETTLE_TIMEOUT", 1.0)
    with pytest.raises(TimeoutError, match=r"the fonts were not ready after 1 s: .*/held-back-font.woff2"):
        visit_page(chromium, base, html, "book/font-held", tmp_path)


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


# ---- what a reader sees: each check of test_browser_reader.py fails on its planted defect -------

def test_markdown_left_as_text_is_caught(reports):
    leaks = markdown_leaks(reports["reader-broken"].layout["proseText"])
    kinds = sorted({leak.split(":")[0] for leak in leaks})
    assert kinds == ["bold", "dollar math", "pipe table", "role"], leaks
    assert not markdown_leaks(reports["reader-clean"].layout["proseText"])


def test_a_bare_value_under_a_hidden_cell_is_caught(reports):
    bare = [text for text in reports["reader-broken"].layout["outputs"] if bare_value(text)]
    assert bare == ["2.001951252151805", "True", "<matplotlib.legend.Legend at 0x7f00aa11>"]
    # a visible cell showing its result, as a REPL does, is not a stray output
    assert not [text for text in reports["reader-clean"].layout["outputs"] if bare_value(text)]


def test_binary_float_noise_is_caught(reports):
    assert float_noise(reports["reader-broken"].layout["shownText"]) == ["2.001951252151805", "0.00030000000000000003"]
    assert float_noise(reports["reader-clean"].layout["shownText"]) == []


def test_e_notation_in_a_sentence_is_caught_and_in_a_table_is_not(reports):
    assert e_notation(reports["reader-broken"].layout["sentenceText"]) == ["4.76e-04"]
    assert e_notation(reports["reader-clean"].layout["sentenceText"]) == []  # its table holds 3.2e-05
    assert "3.2e-05" in reports["reader-clean"].layout["proseText"]


def test_a_table_equation_or_figure_wider_than_the_column_is_caught(reports):
    layout = reports["reader-broken"].layout
    assert layout["viewport"] == 1280 and abs(layout["column"]["width"] - 688) < 1
    wide = too_wide(layout)
    assert [w.split()[0] for w in wide] == ["table", "equation"], wide
    assert not too_wide(reports["reader-clean"].layout)


def test_a_word_a_table_breaks_inside_is_caught(reports):
    broken = broken_words(reports["reader-broken"].layout)
    assert broken and all(b.replace(" | ", "") == "Quantity" for b in broken), broken
    assert not broken_words(reports["reader-clean"].layout)  # SPACING_FLOOR_OF_HULL breaks after its underscores


def test_a_page_wider_than_the_window_is_caught(reports):
    wide = sideways(reports["reader-broken"].layout)
    assert wide is not None and "em to " in wide and "re.compile('JAX_(COMPILATION_CACHE_" in wide, wide
    assert "code listing" not in wide, wide  # a listing that scrolls in its own box widens nothing
    assert sideways(reports["reader-clean"].layout) is None


def test_a_docstring_example_that_hides_its_line_ends_is_caught(reports):
    hidden = hidden_line_ends(reports["reader-broken"].layout)
    assert len(hidden) == 1 and "px hidden: maddening.ValidationError: oscillator_series: steps = 2.0" in hidden[0], hidden
    assert not hidden_line_ends(reports["reader-clean"].layout)  # the same example, wrapped in its box


def test_figure_text_smaller_than_the_prose_is_caught(reports):
    layout = reports["reader-broken"].layout
    assert layout["smallestProse"]["px"] == 14.0  # the table cells
    small = small_figure_text(layout)
    assert len(small) == 2, small
    assert small[0].startswith("figure 'four panels in one row': smallest text 10 pt shows at")
    assert "records no font size and dpi" in small[1]
    assert not small_figure_text(reports["reader-clean"].layout)


def test_a_backslash_drawn_in_a_formula_is_caught(reports):
    broken, clean = reports["math-broken"].layout, reports["math-clean"].layout
    assert len(broken["mathShown"]) == 2 and len(clean["mathShown"]) == 5  # every formula was typeset and read
    escapes = math_escapes(broken)
    assert len(escapes) == 1 and "\\" in escapes[0].split("(drawn: ")[1], escapes
    assert escapes[0].startswith(r"\varepsilon = \texttt{CONTACT\_ULPS}"), escapes
    assert not math_escapes(clean), math_escapes(clean)


def test_tex_left_as_text_outside_the_formulas_is_caught(reports):
    broken, clean = reports["math-broken"].layout, reports["math-clean"].layout
    leaks = tex_leaks(broken["proseText"])
    assert [leak.split("  (in: ")[0] for leak in leaks] == ["$0 \\le", "\\lambda", "\\perp", "\\ge", "\\lambda = 0$"], leaks
    # the typeset formulas (TeX commands in every one), the prices and the code are not leaks
    assert len(clean["mathShown"]) == 5 and not tex_leaks(clean["proseText"]), tex_leaks(clean["proseText"])


def test_a_page_taller_than_the_limit_is_caught(reports):
    broken, clean = reports["math-broken"].layout, reports["math-clean"].layout
    assert broken["screen"] == 900 and screens_tall(broken) > 20 > SCREENS, screens_tall(broken)
    assert too_tall(broken).startswith(f"{screens_tall(broken):.1f} screens tall")
    assert too_tall(clean) is None and 10 <= screens_tall(clean) < SCREENS
