"""Return values that a notebook cell does not display.

:func:`specbook.claim` returns the measured value and :func:`specbook.check`
returns that the condition held, so code can use them; but a hidden cell whose
last line is a claim would show the bare value (``True``, ``0.9990…``) under the
page's prose. These types behave as the plain ``float`` and ``True`` they stand
for, and tell IPython they have nothing to display.
"""

from __future__ import annotations

__all__ = ["HOLDS", "Holds", "Measured"]


class Measured(float):
    """A claim's measured value: a ``float`` that a notebook cell does not display."""

    __slots__ = ()

    def _ipython_display_(self) -> None:
        return None


class Holds(int):
    """A check's result: equal to ``True`` and truthy, and not displayed by a notebook cell."""

    __slots__ = ()

    def __new__(cls) -> "Holds":
        return super().__new__(cls, 1)

    def __repr__(self) -> str:
        return "True"

    __str__ = __repr__

    def _ipython_display_(self) -> None:
        return None


HOLDS = Holds()
