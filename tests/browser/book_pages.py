"""What the browser checks expect of a page, read from the sources and the build.

Three sources of truth, none of them the HTML itself:

- ``_toc.yml`` lists the pages the book must have (``toc_pages``);
- each page's MyST source lists the glue references and the math it writes
  (``page_references``), parsed with the same MyST parser the build uses, so a
  role written inside a code span is not mistaken for a live one;
- the build's executed notebooks hold what was glued (``glued_values``), from
  which the text a reader must see is formatted exactly as myst-nb formats it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

# Directives whose body is code or raw text: their content is not MyST prose.
_RAW_DIRECTIVES = {
    "code-cell", "code-block", "code", "sourcecode", "eval-rst", "math", "raw",
    "literalinclude", "bibliography", "specbook-summary", "glossary-raw",
}
_GLUE_ROLES = {"glue", "glue:", "glue:any", "glue:text", "glue:md", "glue:math"}
_DIRECTIVE_INFO = re.compile(r"^\{([^}]+)\}\s*(.*)$")


def toc_pages(root: Path = ROOT) -> list[str]:
    """The document names of every page in ``_toc.yml``, in reading order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    pages = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                pages.append(str(entry["file"]).removesuffix(".md"))
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    walk(toc.get("sections"))
    return pages


@dataclass(frozen=True)
class GlueReference:
    """One glue role or directive in a page's prose: its kind, key and format spec."""

    role: str
    key: str
    spec: str


@dataclass
class PageReferences:
    """What a page's source asks the reader's view to contain."""

    glue: list[GlueReference] = field(default_factory=list)
    math: int = 0  # inline and display math written in the prose

    @property
    def glue_text(self) -> list[GlueReference]:
        return [g for g in self.glue if g.role == "glue:text"]


def _parser():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    extensions = set(config.get("parse", {}).get("myst_enable_extensions", []))
    return create_md_parser(MdParserConfig(enable_extensions=extensions), RendererHTML)


def _directive_body(content: str) -> str:
    """Drop a directive's option block (``:key: value`` lines or a ``---`` YAML block)."""
    lines = content.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        lines = lines[end + 1:]
    else:
        while lines and re.match(r"^\s*:[\w-]+:", lines[0]):
            lines = lines[1:]
    return "\n".join(lines)


def _split_key(role: str, text: str) -> GlueReference:
    """Split ``key:spec`` the way myst-nb's ``glue:text`` role does (at the last colon)."""
    if role == "glue:text":
        parts = text.rsplit(":", 1)
        key, spec = (parts[0], parts[1]) if len(parts) == 2 else (parts[0], "")
        return GlueReference(role, key.strip(), spec)
    return GlueReference(role, text.strip(), "")


def _collect(md, text: str, found: PageReferences) -> None:
    for token in md.parse(text):
        if token.type in ("math_block", "math_block_label", "amsmath", "math_block_eqno"):
            found.math += 1
        if token.type in ("fence", "colon_fence"):
            info = _DIRECTIVE_INFO.match(token.info.strip())
            if not info:
                continue  # a plain code fence
            name = info.group(1).strip()
            if name in ("glue", "glue:", "glue:any", "glue:figure", "glue:math"):
                found.glue.append(GlueReference(name, info.group(2).strip(), ""))
                if name == "glue:math":
                    found.math += 1
                continue
            if name in _RAW_DIRECTIVES:
                if name == "math":
                    found.math += 1
                continue
            _collect(md, _directive_body(token.content), found)
        for child in token.children or []:
            if child.type == "myst_role" and child.meta.get("name") in _GLUE_ROLES:
                found.glue.append(_split_key(child.meta["name"], child.content))
            elif child.type == "myst_role" and child.meta.get("name") == "math":
                found.math += 1
            elif child.type in ("math_inline", "math_single", "math_inline_double"):
                found.math += 1


def page_references(source: Path) -> PageReferences:
    """The glue references and math of one MyST page, parsed as the build parses it.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     page = Path(folder) / "p.md"
    ...     _ = page.write_text("A {glue:text}`order:.3f` and ``{glue:text}`shown:.1f` `` $x$\\n")
    ...     refs = page_references(page)
    >>> [(g.key, g.spec) for g in refs.glue], refs.math
    ([('order', '.3f')], 1)
    """
    text = source.read_text(encoding="utf-8")
    text = re.sub(r"\A---\s*\n.*?\n---\s*\n", "", text, count=1, flags=re.S)  # front matter
    found = PageReferences()
    _collect(_parser(), text, found)
    return found


def built_source(html: Path, doc: str) -> Path:
    """The source a build used for ``doc`` (Sphinx copies it to ``_sources``), else the checkout's."""
    copied = html / "_sources" / f"{doc}.md"
    return copied if copied.exists() else ROOT / f"{doc}.md"


def glued_values(build: Path, doc: str) -> dict[str, dict]:
    """The values a page glued while the book was built, keyed by glue key (may be empty)."""
    path = build / "jupyter_execute" / f"{doc}.glue.json"
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def format_glue_text(text_plain: str, spec: str) -> str:
    """Format a glued ``text/plain`` value as ``{glue:text}`` does (myst-nb's rule).

    >>> format_glue_text("0.45152364098573083", ".4f"), format_glue_text("'holds'", "")
    ('0.4515', 'holds')
    """
    from myst_nb.core.variables import format_plain_text

    return format_plain_text(text_plain, spec)


_RECORD_PREFIX = "application/papermill.record/"


def notebook_glue(nb) -> dict[str, dict[str, object]]:
    """Every value an executed notebook glued: ``{key: {mime type: data}}``, as myst-nb stores it.

    A glue is a ``display_data`` output whose metadata names it (``scrapbook.name``);
    its mime types carry a record prefix, which is dropped here.
    """
    glued: dict[str, dict[str, object]] = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if output.get("output_type") == "display_data" and name:
                glued[name] = {k.removeprefix(_RECORD_PREFIX): v for k, v in output.get("data", {}).items()}
    return glued


def execute_page(source: Path, timeout: int = 600, *, cwd: Path | None = None):
    """Execute one MyST page in a fresh kernel, from the page's folder (or ``cwd``), as the build does.

    Cells tagged ``raises-exception`` may raise; any other error raises here.
    """
    import jupytext
    from nbclient import NotebookClient

    nb = jupytext.read(str(source), fmt="md:myst")
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(cwd or source.parent)}})
    client.execute()
    return nb
