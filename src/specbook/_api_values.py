"""Which values the API pages show beside a module constant or a class attribute.

Sphinx's autodoc writes every documented constant's ``repr`` into its header (``X = ...``). For a
number, a word or a short tuple that is the most useful line of the entry. For anything else it is
noise a reader has to climb over: a tuple of forty records, a dict of classes
(``{'box': <class '...'>}``), an object whose ``repr`` is its own name (``Stiffness = Stiffness``).
The entry's docstring says what such a value holds.

So the book's documenters for ``data`` and ``attribute`` show a value only when it is *plain*: a
literal (``None``, a bool, a number, a string) or a tuple or frozenset of them, written in at most
:data:`WIDEST` characters. The rule is the book's, in one place, rather than a ``:meta hide-value:``
in each long constant's docstring.

>>> plain(0.5), plain("remove_outward"), plain((1, 2, 3)), plain(None)
(True, True, True, True)
>>> import numpy as np
>>> plain({"box": int}), plain(tuple(range(40))), plain(object()), plain(np.float64(0.5))
(False, False, False, False)
"""

from __future__ import annotations

from typing import Any

__all__ = ["WIDEST", "plain", "setup"]

WIDEST = 60
"""The longest ``repr`` (in characters) an API entry's header shows as the value."""

_LITERALS = (type(None), bool, int, float, complex, str, bytes)


def plain(value: Any) -> bool:
    """Whether ``value`` reads well as an API header's value: a short literal, or a short tuple of them."""
    from sphinx.util.inspect import object_description

    if type(value) in (tuple, frozenset):
        if not all(type(v) in _LITERALS for v in value):
            return False
    elif type(value) not in _LITERALS:  # exactly: a NumPy scalar or an enum member is no literal to a reader
        return False
    return len(object_description(value)) <= WIDEST


class _PlainValues:
    """Mixed in before autodoc's ``data`` and ``attribute`` documenters: a value shows only when it is plain."""

    def should_suppress_value_header(self) -> bool:
        return super().should_suppress_value_header() or not plain(self.object)  # type: ignore[misc]


def _documenters() -> tuple[type, ...]:
    from sphinx.ext.autodoc import AttributeDocumenter, DataDocumenter

    return tuple(type(base.__name__, (_PlainValues, base), {}) for base in (DataDocumenter, AttributeDocumenter))


def setup(app: Any) -> None:
    """Register the two documenters in place of autodoc's own (``app.add_autodocumenter(..., override=True)``)."""
    app.setup_extension("sphinx.ext.autodoc")
    for documenter in _documenters():
        app.add_autodocumenter(documenter, override=True)
