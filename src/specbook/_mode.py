"""Record mode: whether a page run under a fault records what breaks instead of stopping at it.

The normal build stops a page at its first false claim. A run of the fault catalogue
(:mod:`specbook.faults`) sets ``SPECBOOK_RECORD=1`` in the kernel's environment, so that one
run of a page shows every claim the fault breaks. In that mode the page's own presentation
checks also step aside: a figure that a fault has bent out of shape (a curve run off its
axes, a legend now over the data) or a glued value that became NaN says nothing about the
claims after it, so each is noted (:func:`passed_over`) and the page goes on. Such a note
never counts as a kill; only a false claim does.

Code inside :func:`raising` behaves as in the normal build, in both modes: a page that shows
a failure on purpose uses it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

__all__ = ["RECORD_ENV", "note_passed_over", "passed_over", "raising", "record_mode", "reset_notes"]

RECORD_ENV = "SPECBOOK_RECORD"
"""The environment variable that switches record mode on (``1``): false claims are recorded, not raised."""

_RAISING: list[bool] = []
_NOTES: list[str] = []


def record_mode() -> bool:
    """Whether false claims are recorded instead of raised: ``SPECBOOK_RECORD=1`` and no :func:`raising` is open.

    >>> record_mode()
    False
    """
    return os.environ.get(RECORD_ENV, "") == "1" and not _RAISING


@contextlib.contextmanager
def raising() -> Iterator[None]:
    """Claims, figures and glues inside raise as in the normal build, even in record mode.

    >>> with raising():
    ...     record_mode()
    False
    """
    _RAISING.append(True)
    try:
        yield
    finally:
        _RAISING.pop()


def note_passed_over(message: str) -> None:
    """Record mode: note a presentation check (a figure's defect, a NaN glue) that was passed over."""
    _NOTES.append(message)


def passed_over() -> list[str]:
    """Record mode: the presentation checks this page passed over, in order.

    >>> passed_over()
    []
    """
    return list(_NOTES)


def reset_notes() -> None:
    """Forget the notes of passed-over checks (a new page)."""
    _NOTES.clear()
