// specbook: small presentation helpers for the book's generated tables and its prose (see specbook.css).
document.addEventListener("DOMContentLoaded", () => {
  // A code name in a table cell may break after a dot, an underscore, a slash, a bracket or a comma, never
  // inside a word: the table's columns are sized by their longest unbreakable piece (specbook.css).
  // In a box of prose only a long name (16 characters or more) is given the breaks.
  // <wbr> adds a break opportunity and no text, so a copied name is unchanged.
  const spans = ".bd-article table code.literal span.pre, .bd-article .specbook-anomaly code.literal span.pre, "
    + ".bd-article .specbook-known-defects code.literal span.pre";
  for (const span of document.querySelectorAll(spans)) {
    if (span.childElementCount > 0 || (span.textContent.length < 16 && !span.closest("table"))) continue;
    const parts = span.textContent.split(/(?<=[._/([,|])/);
    if (parts.length < 2) continue;
    span.textContent = "";
    parts.forEach((part, i) => {
      if (i > 0) span.appendChild(document.createElement("wbr"));
      span.appendChild(document.createTextNode(part));
    });
  }
  // A number is never broken over two lines (5.4e-16 must not become "5.4e-" and "16").
  const number = /^[-+−]?(\d[\d,]*\.?\d*|\.\d+)([eE][-+−]?\d+)?( ?[%a-zA-Zµ°²³/]{1,6})?$/;
  for (const cell of document.querySelectorAll(".bd-article table.specbook-table td")) {
    if (number.test(cell.innerText.trim())) cell.classList.add("specbook-number");
  }
  // In a cell of words and numbers ("±1.77636e-15 m + 1e-09 relative"), each number that a line
  // could break inside (at its sign or its exponent's) is kept whole; the words still wrap.
  const token = /[±+\-−]?\d[\d.,]*(?:[eE][-+−]?\d+)?/g;
  const breakable = /[eE±+\-−]/;
  for (const cell of document.querySelectorAll(".bd-article table.specbook-table td:not(.specbook-number)")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    const texts = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.parentElement.closest("code, pre, .math, mjx-container, .specbook-nowrap")) texts.push(node);
    }
    for (const node of texts) {
      const text = node.textContent;
      const found = [...text.matchAll(token)].filter(m => breakable.test(m[0]));
      if (!found.length) continue;
      const parts = document.createDocumentFragment();
      let at = 0;
      for (const m of found) {
        parts.append(text.slice(at, m.index));
        const span = document.createElement("span");
        span.className = "specbook-nowrap";
        span.textContent = m[0];
        parts.append(span);
        at = m.index + m[0].length;
      }
      parts.append(text.slice(at));
      node.replaceWith(parts);
    }
  }
  // Punctuation right after inline math stays on the math's line: a browser may break between the math
  // and the text that follows it, so a line could start with ", 3 × 10⁻¹⁶" or ": it has no stable step".
  for (const math of document.querySelectorAll(".bd-article span.math")) {
    const next = math.nextSibling;
    const lead = next && next.nodeType === Node.TEXT_NODE ? next.textContent.match(/^[,.;:!?)\]]+/) : null;
    if (!lead) continue;
    const keep = document.createElement("span");
    keep.className = "specbook-nowrap";
    math.replaceWith(keep);
    keep.append(math, lead[0]);
    next.textContent = next.textContent.slice(lead[0].length);
  }
  // Each cell knows its column's name, which a stacked (narrow-screen) table shows before it.
  for (const table of document.querySelectorAll(".bd-article table.specbook-table")) {
    const names = [...table.querySelectorAll("thead th")].map(th => th.innerText.trim());
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.children].forEach((cell, i) => { if (names[i]) cell.dataset.label = names[i]; });
    }
  }
});
