"""What the book-level tests write and read: the front matter that makes a Markdown file a page, and a
page's code cells as Python."""

import textwrap
from collections.abc import Iterator
from pathlib import Path

FRONT = textwrap.dedent(
    """\
    ---
    jupytext:
      text_representation:
        extension: .md
        format_name: myst
    kernelspec:
      display_name: Python 3
      language: python
      name: python3
    ---
    """
)
"""A MyST notebook's front matter: jupytext's format and the kernel the page runs on."""


def code_cells(page: Path) -> Iterator[tuple[int, str]]:
    """``(number, source)`` of each code cell of the MyST page ``page``, counted from 0, its IPython
    magics and shell lines (``%``, ``!``) left out so that the rest parses as Python."""
    import jupytext  # noqa: PLC0415 - only the tests that read pages need it

    notebook = jupytext.read(str(page), fmt="md:myst")
    for number, cell in enumerate(c for c in notebook.cells if c.cell_type == "code"):
        yield number, "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
