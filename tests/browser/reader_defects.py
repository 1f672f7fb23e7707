"""What a reader sees that they should not: the text and layout rules the browser checks apply.

``READ_LAYOUT`` runs in a loaded page (after MathJax and the images) and returns
plain data: the article's text column, the text a reader sees, the text outputs
of cells, every table, display equation and image with its rendered width, and
the smallest text of the prose. The functions below judge that data; each names
what it found, so a failure message quotes the defect.
"""

from __future__ import annotations

import re

# Runs in the page (see browser_visit.visit_page). Widths are CSS px at the page's viewport.
READ_LAYOUT = r"""
async () => {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise) { await mj.startup.promise; }
  const article = document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
  const style = getComputedStyle(article);
  const box = article.getBoundingClientRect();
  const left = box.left + parseFloat(style.paddingLeft) + parseFloat(style.borderLeftWidth);
  const width = article.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const describe = node => (node.innerText || node.getAttribute("alt") || node.getAttribute("data-tex") || "")
      .replace(/\s+/g, " ").trim().slice(0, 90);
  const measure = (kind, node, inner) => {
    const r = (inner || node).getBoundingClientRect();
    return {kind, what: describe(node), width: Math.round(r.width * 10) / 10,
            right: Math.round((r.right - left) * 10) / 10};
  };
  const blocks = [];
  for (const t of article.querySelectorAll("table")) { blocks.push(measure("table", t)); }
  for (const m of article.querySelectorAll('mjx-container[display="true"]')) {
    blocks.push(measure("equation", m.closest(".math") || m, m.querySelector("mjx-math") || m));
  }
  for (const img of article.querySelectorAll("img")) { blocks.push(measure("figure", img)); }

  // The text a reader sees, laid out as shown (a table's cells apart, blocks on their own lines):
  // the live article's innerText while a style hides what is not text for the reader.
  const readWithout = selector => {
    const hide = document.createElement("style");
    hide.textContent = `${selector} { display: none !important; }`;
    document.head.appendChild(hide);
    const text = article.innerText;
    hide.remove();
    return text;
  };
  // Code listings (a docstring's doctest) are code, not numbers shown; a cell's printed output is shown.
  const notText = ".cell_input, mjx-container, .headerlink, .specbook-figure, [class*='highlight-']:not(.output)";
  const shownText = readWithout(notText);
  const proseText = readWithout(notText + ", pre, code, .highlight");
  // The sentences alone: the prose without its tables (a table may keep a column of e-notation)
  const sentenceText = readWithout(notText + ", pre, code, .highlight, table");
  // Text outputs of cells whose code the reader does not see (hidden or removed input): a visible
  // cell may show its result as a REPL does, a hidden one has nothing to show but tables and figures.
  const outputs = [...article.querySelectorAll(".cell_output .output.text_plain")].filter(o => {
    const cell = o.closest(".cell");
    return !cell || cell.classList.contains("tag_hide-input") || cell.classList.contains("tag_remove-input")
      || !cell.querySelector(".cell_input");
  }).map(o => o.innerText.trim());

  // The smallest text of the prose: every visible text node outside code, math, cell inputs,
  // super/subscripts and the page's chrome (buttons, toggles).
  const skip = "pre, code, mjx-container, .cell_input, sup, sub, script, style, button, summary, .headerlink, .cell_output, .specbook-figure";
  let smallest = null;
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (!el || el.closest(skip) || el.getClientRects().length === 0) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (smallest === null || size < smallest.px) { smallest = {px: size, text: node.textContent.trim().slice(0, 60), tag: el.tagName}; }
  }
  const figures = [...article.querySelectorAll(".cell_output img, img.specbook-figure")].map(img => ({
    alt: img.getAttribute("alt") || "", natural: img.naturalWidth, rendered: img.getBoundingClientRect().width,
    minFontPt: img.dataset.minFontPt ? parseFloat(img.dataset.minFontPt) : null,
    dpi: img.dataset.dpi ? parseFloat(img.dataset.dpi) : null,
  }));
  // What each typeset formula shows: the text of every token MathJax drew (identifiers, numbers,
  // operators, text), read from its internal tree, since the glyphs themselves are CSS, not text.
  const mathShown = [];
  const mathDocument = mj && mj.startup && mj.startup.document;
  for (const item of (mathDocument && mathDocument.math) || []) {
    if (!item.root || !item.root.walkTree) continue;
    let shown = "";
    item.root.walkTree(node => { if (node.isToken && node.getText) { shown += node.getText(); } });
    mathShown.push({tex: String(item.math).replace(/\s+/g, " ").trim().slice(0, 120), shown: shown.slice(0, 200)});
  }
  // What makes the page wider than the window (so the reader scrolls sideways): the outermost
  // elements past its right edge that no scrolling box (a code listing) holds.
  const page = document.documentElement;
  const overflow = [];
  if (page.scrollWidth > page.clientWidth + 1) {
    const clipped = el => { for (let a = el.parentElement; a && a !== page; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== "visible") { return true; } } return false; };
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      const parent = el.parentElement && el.parentElement.getBoundingClientRect();
      if (r.width > 0 && r.right > page.clientWidth + 1 && !(parent && parent.right > page.clientWidth + 1) && !clipped(el)) {
        overflow.push({tag: el.tagName.toLowerCase(), right: Math.round(r.right), what: describe(el)});
      }
    }
  }
  // A docstring's example (a doctest block) whose lines run past its box: their ends are hidden
  // behind the box's scroll bar, and a refusal's message is cut where it says what is allowed.
  const hiddenCode = [];
  for (const pre of article.querySelectorAll("div.doctest pre")) {
    if (pre.scrollWidth > pre.clientWidth + 1) {
      const longest = pre.innerText.split("\n").reduce((a, b) => (b.length > a.length ? b : a), "");
      hiddenCode.push({hidden: pre.scrollWidth - pre.clientWidth, what: longest.trim().slice(0, 90)});
    }
  }
  // Words a table breaks inside: two letters or digits of one text node drawn on two lines (a break at a
  // <wbr>, after a dot or an underscore, falls between two text nodes and is not one).
  const brokenWords = [];
  const range = document.createRange();
  for (const table of article.querySelectorAll("table")) {
    const cells = document.createTreeWalker(table, NodeFilter.SHOW_TEXT);
    for (let node = cells.nextNode(); node && brokenWords.length < 10; node = cells.nextNode()) {
      const text = node.textContent;
      if (text.length < 2 || !node.parentElement || node.parentElement.closest("mjx-container, .math")) continue;
      let previous = null;
      for (let i = 0; i < text.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) { previous = null; continue; }
        if (previous && rect.top > previous.top + 1 && /\w/.test(text[i - 1]) && /\w/.test(text[i])) {
          const start = text.slice(0, i).search(/\w+$/), end = i + text.slice(i).search(/\W|$/);
          brokenWords.push(`${text.slice(start, i)} | ${text.slice(i, end)}`);
        }
        previous = rect;
      }
    }
  }
  return {column: {left, width}, blocks, shownText, proseText, sentenceText, brokenWords, hiddenCode,
          outputs, smallestProse: smallest, figures, mathShown, viewport: window.innerWidth,
          screen: window.innerHeight, height: page.scrollHeight,
          pageWidth: page.scrollWidth, windowWidth: page.clientWidth, overflow: overflow.slice(0, 5)};
}
"""

# A pipe table printed as text: its separator row (``|---|``, which typography may turn into
# ``|—|``), or a line of three or more pipes with no tab (a real table's cells are tab-separated).
_PIPE_TABLE = re.compile(r"\|\s*:?(?:-{3,}|[—–]+):?\s*\||(?:^|\n)[ ]*\|[^\n\t]*\|[^\n\t]*\|[ ]*(?=\n|$)")
# Emphasis as CommonMark reads it: no space just inside the asterisks ({**own, **injected} is not bold).
_BOLD = re.compile(r"\*\*(?!\s)[^*\n]{1,200}(?<!\s)\*\*")
_DOLLAR_MATH = re.compile(r"(?<![\\$])\$[^$\n]{1,200}\$(?!\d)")
_ROLE = re.compile(r"\{(?:[a-z][\w-]*:)*[a-z][\w-]*\}(?:`|\s*[A-Za-z_])")
_DIRECTIVE = re.compile(r"(```|:::)\{[a-z]")


def markdown_leaks(prose: str) -> list[str]:
    r"""Markdown syntax a reader sees as text: pipe tables, ``**bold**``, ``$math$``, roles, directives.

    >>> markdown_leaks("| dt (s) | |x(T) - exact| | Observed order |")
    ['pipe table: | dt (s) | |x(T) - exact| | Observed order |']
    >>> markdown_leaks("The ladder | dt (s) | Order | |—|—| | 0.001 | 1.0 |")
    ['pipe table: |—|']
    >>> markdown_leaks("|λ|\t|θ|/h\t|g|\n0.5\t1.0\t9.81")  # a real table's rows: cells tab-separated
    []
    >>> markdown_leaks("a **bold** claim, $x^2$ and {py:obj}`f` left as text")
    ['bold: **bold**', 'dollar math: $x^2$', 'role: {py:obj}`']
    >>> markdown_leaks("A set {0, 0.5, 1}, a price of 5 $, |v| <= v_min and {**self.params, **params}.")
    []
    """
    found = []
    for kind, pattern in (("pipe table", _PIPE_TABLE), ("bold", _BOLD), ("dollar math", _DOLLAR_MATH),
                          ("role", _ROLE), ("directive", _DIRECTIVE)):
        found += [f"{kind}: {m.group(0).strip()[:90]}" for m in pattern.finditer(prose)]
    return found


# TeX a reader sees as text, outside every formula MathJax drew: a dollar with a TeX command a few
# characters after it ("$0 \le"), a command a few characters before a dollar ("\lambda = 0$"), a dollar
# span holding TeX's own characters, or a bare command ("b \ge 0", where a wrapped line that began with
# "- " made the rest of an inline formula a list item).
_RAW_TEX = re.compile(
    r"\$[^$\n]{0,8}?\\[A-Za-z]+"
    r"|\\[A-Za-z]+[^$\n\\]{0,12}\$"
    r"|(?<![\\$\w])\$(?=\S)[^$\n]{0,200}?[\\^_{}][^$\n]{0,200}?\$"
    r"|(?<![\w\\])\\[A-Za-z]{2,}(?![A-Za-z])"
)


def tex_leaks(prose: str) -> list[str]:
    r"""Inline TeX left as text outside the typeset formulas, each with a little of the text around it.

    >>> for leak in tex_leaks("the complementarity $0 \\le \\lambda \\perp u^{*} + K\\lambda\nb \\ge 0\nfrom \\lambda = 0$."):
    ...     print(leak)
    $0 \le  (in: the complementarity $0 \le \lambda \perp u^{*})
    \lambda  (in: plementarity $0 \le \lambda \perp u^{*} + K\lam)
    \perp  (in: rity $0 \le \lambda \perp u^{*} + K\lambda b)
    \ge  (in: u^{*} + K\lambda b \ge 0 from \lambda = 0$)
    \lambda = 0$  (in: lambda b \ge 0 from \lambda = 0$.)
    >>> tex_leaks("A price of 5 $ and 10 $ more, a set {0, 1}, x_1 in words, and C:/data")
    []
    >>> tex_leaks("the speed $v_0$ left as text")
    ['$v_0$  (in: the speed $v_0$ left as text)']
    """
    found = []
    for m in _RAW_TEX.finditer(prose):
        around = " ".join(prose[max(0, m.start() - 20): m.end() + 20].split())
        found.append(f"{m.group(0).strip()}  (in: {around})")
    return found


_BARE = re.compile(
    r"^(True|False|None|Ellipsis|[-+]?(\d[\d_]*\.?\d*|\.\d+)([eE][-+]?\d+)?|[-+]?(inf|nan)"
    r"|'[^'\n]*'|\"[^\"\n]*\""  # a bare string's repr
    r"|\[?<[\w.]+( object)? at 0x[0-9a-fA-F]+>\]?"  # <Foo object at 0x...>, [<Line2D at 0x...>]
    r"|[A-Za-z_][\w.]*\(.*\)"  # Text(0.5, 1.0, 'x'), Array(1., dtype=float64), a dataclass repr
    r"|\((.*,.*)?\)|\[.*\]|\{.*\})$",  # a tuple, list, dict or set printed whole
    re.S,
)


def bare_value(output: str) -> bool:
    """Whether a cell's text output is a bare value a hidden cell left behind.

    >>> [bare_value(t) for t in ("True", "None", "2.001951252151805", "<Axes: > ", "[<matplotlib.lines.Line2D at 0x7f3>]")]
    [True, True, True, True, True]
    >>> [bare_value(t) for t in ("Text(0.5, 1.0, 'x(t)')", "(1.0, 2.0)", "Array(0.25, dtype=float64)")]
    [True, True, True]
    >>> bare_value("step 1: residual 3.2e-05\\nstep 2: residual 1.1e-09")
    False
    """
    text = output.strip()
    return bool(text) and (_BARE.match(text) is not None or re.match(r"^<[\w.: ]+>$", text) is not None)


_NUMBER = re.compile(r"(?<![\w./:-])[-+]?(\d+)\.(\d+)(?![\w/])")  # not inside a DOI, path or name
_RUN = re.compile(r"(0{6,})[0-9]*[1-9]|(9{6,})[0-8]")


def _noisy(whole: str, fraction: str) -> bool:
    """A run of six or more zeros or nines after a significant digit, and more digits after it."""
    run = _RUN.search(fraction)
    if run is None:
        return False
    return whole.strip("0") != "" or fraction[: run.start()].strip("0") != "" or run.group(2) is not None


def float_noise(text: str) -> list[str]:
    """Numbers shown unformatted: binary noise of a float, or a float's full repr (13+ decimals).

    >>> float_noise("spacing = 0.00030000000000000003 m, sum 0.30000000000000004, ratio 2.001951252151805")
    ['0.00030000000000000003', '0.30000000000000004', '2.001951252151805']
    >>> float_noise("a step of 0.000001 s, 1.0000 and 2.00e-05, 0.9999999 at most, the year 2026, v1.0.0")
    []
    >>> float_noise("2.9999999999999996, 1.0000001, 12.50, 3.14159")
    ['2.9999999999999996', '1.0000001']
    >>> float_noise("doi:10.1137/1.9780898717839 and https://doi.org/10.1137/1.9780898717839")
    []
    """
    found = []
    for m in _NUMBER.finditer(text):
        whole, fraction = m.group(1), m.group(2)
        if _noisy(whole, fraction) or len(fraction) >= 13:
            found.append(m.group(0))
    return found


_E_NOTATION = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?e[-+−]?\d+\b")


def e_notation(text: str) -> list[str]:
    """Numbers a sentence writes as code does (``4.76e-04``) instead of in powers of ten (``4.76 × 10⁻⁴``,
    ``specbook.scientific``).

    >>> e_notation("recorded 4.76e-04 s late, within 1e-12 and 2E+3, against 4.76 × 10⁻⁴ s")
    ['4.76e-04', '1e-12']
    >>> e_notation("the file e2e-3.md, a hash 3e8f1c and version 1.2e")
    []
    """
    return _E_NOTATION.findall(text)


def rounded_to_zero(value: str, shown: str) -> bool:
    """Whether a glued number that is not zero is shown as a zero: its format keeps too few digits
    (1e-13 m glued in nanometres with one decimal reads "0.0 nm").

    >>> [rounded_to_zero(v, s) for v, s in (("1e-04", "0.0"), ("-3e-07", "-0.000"), ("0.0", "0.0"))]
    [True, True, False]
    >>> [rounded_to_zero(v, s) for v, s in (("1e-04", "1e-04"), ("0.45", "0.5"), ("'holds'", "holds"))]
    [False, False, False]
    """
    try:
        number, text = float(value), float(shown)
    except ValueError:
        return False
    return number != 0.0 and text == 0.0


def too_wide(layout: dict, slack: float = 1.0) -> list[str]:
    """Tables, display equations and figures wider than the article's text column, or past its edge."""
    column = layout["column"]["width"]
    return [f"{b['kind']} {b['width']:.0f} px wide (column {column:.0f} px): {b['what']!r}"
            for b in layout["blocks"] if b["width"] > column + slack or b["right"] > column + slack]


def broken_words(layout: dict) -> list[str]:
    """Words a table's cell breaks inside, over two lines, each as ``"Quantit | y"``.

    A browser breaks a word only when its column is narrower than the word; a name given its
    break opportunities (``specbook.js``: after its dots and underscores) breaks between words.
    """
    return list(layout["brokenWords"])


_EQUATION_NUMBER = re.compile(r'<span class="eqno">\((\d+)\)')


def first_equation_number(html: str) -> int | None:
    """The number of the page's first numbered equation, or ``None`` where it numbers none.

    >>> first_equation_number('<div class="math"><span class="eqno">(3)<a class="headerlink"></a></span></div>')
    3
    >>> first_equation_number("<p>no equations</p>") is None
    True
    """
    found = _EQUATION_NUMBER.search(html)
    return int(found.group(1)) if found else None


def small_figure_text(layout: dict) -> list[str]:
    """Figures whose smallest text shows smaller than the prose's smallest text.

    A figure's smallest font (points) at its dpi is ``pt / 72 x dpi`` image pixels high; shown at
    ``rendered / natural`` of its natural width, that many CSS px times the ratio.
    A figure in a cell's output that does not record its font size and dpi is a defect too:
    nobody can tell whether it can be read.
    """
    smallest = layout["smallestProse"]
    if smallest is None:
        return []
    found = []
    for fig in layout["figures"]:
        if fig["minFontPt"] is None or fig["dpi"] is None:
            found.append(f"figure {fig['alt']!r}: records no font size and dpi (show it with specbook.figure)")
            continue
        if not fig["natural"]:
            continue  # an image that did not load is another check's failure
        px = fig["minFontPt"] / 72.0 * fig["dpi"] * fig["rendered"] / fig["natural"]
        if px < smallest["px"] - 0.05:
            found.append(f"figure {fig['alt']!r}: smallest text {fig['minFontPt']:g} pt shows at {px:.1f} px, "
                         f"below the prose's smallest {smallest['px']:g} px ({smallest['text']!r})")
    return found


def math_escapes(layout: dict) -> list[str]:
    r"""Typeset formulas that show a backslash: a TeX escape drawn as text, as ``\texttt{A\_B}`` is.

    A formula's symbols are the mathematics' own (a constant of the code is a symbol defined in
    the prose), so a backslash a reader can see is always a leak of TeX or of code.

    >>> shown = [{"tex": r"\texttt{CONTACT\_ULPS}", "shown": r"CONTACT\_ULPS"}, {"tex": r"A \setminus B", "shown": "A∖B"}]
    >>> print(*math_escapes({"mathShown": shown}))
    \texttt{CONTACT\_ULPS}  (drawn: CONTACT\_ULPS)
    """
    return [f"{m['tex']}  (drawn: {m['shown']})" for m in layout["mathShown"] if "\\" in m["shown"]]


def sideways(layout: dict) -> str | None:
    """A page wider than the window (the reader scrolls sideways), naming what sticks out; ``None`` when it fits.

    >>> sideways({"pageWidth": 1265, "windowWidth": 1265, "overflow": []}) is None
    True
    >>> print(sideways({"pageWidth": 2348, "windowWidth": 1265,
    ...                 "overflow": [{"tag": "em", "right": 2330, "what": "= re.compile(JAX_.*)"}]}))
    2348 px wide at a 1265 px window; past its edge: em to 2330 px: = re.compile(JAX_.*)
    """
    if layout["pageWidth"] <= layout["windowWidth"] + 1:
        return None
    culprits = "; ".join(f"{o['tag']} to {o['right']} px: {o['what']}" for o in layout["overflow"])
    return (f"{layout['pageWidth']} px wide at a {layout['windowWidth']} px window; past its edge: "
            f"{culprits or 'nothing outside a scrolling box'}")


def hidden_line_ends(layout: dict) -> list[str]:
    """Docstring examples (doctest blocks) whose lines run past their box, each with its longest line.

    >>> hidden_line_ends({"hiddenCode": [{"hidden": 212, "what": "maddening.ValidationError: steps = 2.0 is not"}]})
    ['212 px hidden: maddening.ValidationError: steps = 2.0 is not']
    >>> hidden_line_ends({"hiddenCode": []})
    []
    """
    return [f"{c['hidden']} px hidden: {c['what']}" for c in layout["hiddenCode"]]


_TYPE_FIELD = re.compile(r'<dt class="field-\w+">Type<span class="colon">:</span></dt>\s*<dd class="field-\w+"><p>(.*?)</p>', re.S)
_TYPE_NAME = re.compile(r"^(?:[A-Za-z_][\w.]*|\.\.\.|…)$")


def prose_as_type(html: str) -> list[str]:
    """An API page's "Type" fields that hold prose: a docstring whose first line read ``words: more``.

    Sphinx's Napoleon reads the first line of a data or attribute docstring written as ``type:
    description`` as the type. A type is names joined by ``|`` and ``,``, with brackets.

    >>> field = '<dt class="field-odd">Type<span class="colon">:</span></dt><dd class="field-odd"><p>{}</p>'
    >>> prose_as_type(field.format("<a>Callable</a>[[], float] | None") + field.format("tuple[int, …]"))
    []
    >>> prose_as_type(field.format("The <code>JAX_*</code> variables left out of the key") + field.format("(a, b), m"))
    ['The JAX_* variables left out of the key', '(a, b), m']
    """
    found = []
    for match in _TYPE_FIELD.finditer(html):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", match.group(1))).strip()
        bare = text
        while True:
            inner = re.sub(r"\[[^\[\]]*\]", "", bare)
            if inner == bare:
                break
            bare = inner
        parts = [part.strip() for part in re.split(r"[|,]", bare)]
        if not all(_TYPE_NAME.match(part) for part in parts):
            found.append(text)
    return found


SCREENS = 15
"""The tallest a page may be, in screens of the 1280 x 900 px window the checks read it in."""


def screens_tall(layout: dict) -> float:
    """How many screens the page is tall: its scroll height over the window's height."""
    return layout["height"] / layout["screen"]


def too_tall(layout: dict, limit: float = SCREENS) -> str | None:
    """A page taller than ``limit`` screens, described; ``None`` when it fits.

    >>> too_tall({"height": 9000, "screen": 900}), too_tall({"height": 18000, "screen": 900})
    (None, '20.0 screens tall (18000 px at a 900 px window), above the limit of 15')
    """
    screens = screens_tall(layout)
    if screens <= limit:
        return None
    return (f"{screens:.1f} screens tall ({layout['height']} px at a {layout['screen']} px window), "
            f"above the limit of {limit:g}")
