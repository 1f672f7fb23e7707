"""Why a page's run failed, said as an author reads it: the page, the cell, its line, what to do.

A page runs in a kernel driven by nbclient. When it fails, nbclient raises one of three
errors, each with its own traceback through nbclient's internals; none of that helps an
author. :func:`describe` turns each into one plain message naming the page, the line of the
Markdown where the cell starts and the cell's number among the page's code cells, counted
from 1 (pytest names the same cell ``page.md::Cell <number - 1>``):

- an error raised by the cell's code (a failed claim included): the error's last line, then
  the cell's own report from the kernel (its code, its output and the page's traceback);
- the kernel process died while the cell ran (``os._exit``, a crash in compiled code, the
  memory limit);
- the cell was still running at the execution timeout (``execute: timeout:`` in
  ``_config.yml``), and the kernel was stopped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from specbook._claims import ANSI

__all__ = ["PageFailure", "cell_lines", "describe"]

_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})\s*\{code-cell\}", re.M)


def cell_lines(text: str) -> list[int]:
    """The line (from 1) where each code cell of a MyST page starts, in order.

    >>> cell_lines("# T\\n\\n```{code-cell} ipython3\\nx = 1\\n```\\n\\ntext\\n\\n```{code-cell} ipython3\\ny\\n```\\n")
    [3, 9]
    """
    return [text.count("\n", 0, match.start()) + 1 for match in _FENCE.finditer(text)]


@dataclass(frozen=True)
class PageFailure:
    """One failed run: ``headline`` names the page and the cell; ``detail`` is what the cell reported."""

    page: str
    headline: str
    detail: str = ""
    where: str = ""

    def message(self) -> str:
        """The headline, then the detail (if any) below it."""
        return self.headline + (f"\n{self.detail}" if self.detail else "")


def _where(text: str, code_index: int | None) -> str:
    if code_index is None:
        return ""
    lines = cell_lines(text)
    line = f"line {lines[code_index]}, " if code_index < len(lines) else ""
    return f"{line}code cell {code_index + 1}"


def describe(page: str, text: str, code_index: int | None, error: BaseException, timeout: float | None) -> PageFailure:
    """The plain message for ``error``, raised by nbclient while ``page`` ran its code cell ``code_index`` (from 0).

    ``text`` is the page's Markdown; ``timeout`` is the execution timeout in seconds.

    >>> from nbclient.exceptions import DeadKernelError
    >>> page = "# T\\n\\n```{code-cell} ipython3\\nimport os\\nos._exit(1)\\n```\\n"
    >>> print(describe("book/t.md", page, 0, DeadKernelError("Kernel died"), 600).headline)
    book/t.md, line 3, code cell 1: the kernel died while this cell ran. A cell that ends the Python process (os._exit, a crash in compiled code, running out of memory) ends the page; run it alone with `make page PAGE=book/t.md FORCE=1`.
    """
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    where = _where(text, code_index)
    at = f"{page}, {where}" if where else page
    if isinstance(error, CellTimeoutError):
        limit = f" of {timeout:g} s" if timeout else ""
        return PageFailure(page, f"{at}: still running after the execution timeout{limit}, so its kernel was "
                                 "stopped. Make the cell faster, or raise `timeout` under `execute:` in _config.yml.",
                           where=where)
    if isinstance(error, DeadKernelError):
        return PageFailure(page, f"{at}: the kernel died while this cell ran. A cell that ends the Python process "
                                 "(os._exit, a crash in compiled code, running out of memory) ends the page; run it "
                                 f"alone with `make page PAGE={page} FORCE=1`.", where=where)
    if isinstance(error, CellExecutionError):
        raised = f"{getattr(error, 'ename', '') or 'an error'}: {getattr(error, 'evalue', '')}".rstrip(": ")
        return PageFailure(page, f"{at}: {ANSI.sub('', raised)}", ANSI.sub("", str(error)).strip(), where=where)
    reason = " ".join(str(error).split()) or type(error).__name__
    return PageFailure(page, f"{at}: the page could not run ({type(error).__name__}: {reason})", where=where)
