"""What the book-level tests write: the front matter that makes a Markdown file a page."""

import textwrap

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
