"""Document kinds: which classes a saved experiment can name, and how it finds them.

A class becomes savable by registering a kind (it needs ``to_document`` and
``from_document``, and may have ``to_arrays``)::

    @document_kind("tube")
    class Tube: ...

This module sits low in the package, beside :mod:`mime.errors`, so the modules
that define savable things (:mod:`mime.geometry`, :mod:`mime.scene`,
:mod:`mime.nodes`) register them without importing :mod:`mime.experiment`,
which reads the registry when it saves and loads.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from mime.errors import invalid, invalid_document

__all__ = ["KINDS", "PROVIDERS", "document_kind", "register_kind", "kind_of", "load_kind"]

KINDS: dict[str, type] = {}
"""The classes a saved experiment can name, keyed by their document kind."""

PROVIDERS = ("mime.geometry", "mime.scene", "mime.nodes")
"""The modules whose import registers mime's own kinds (imported on demand when loading)."""


def register_kind(name: str, cls: type) -> type:
    """Register ``cls`` as the document kind ``name`` (it needs ``to_document`` and ``from_document``)."""
    if not isinstance(name, str) or not name:
        raise invalid("name", name, "a non-empty string")
    if not isinstance(cls, type):
        raise invalid("cls", cls, "a class with to_document and from_document", where="register_kind")
    for method in ("to_document", "from_document"):
        if not callable(getattr(cls, method, None)):
            raise invalid(method, getattr(cls, method, None), "a method (a document kind has to_document and "
                          "from_document)", where=f"{cls.__qualname__} as document kind {name!r}")
    held = KINDS.get(name)
    if held is not None and held.__qualname__ != cls.__qualname__:
        raise invalid("kind", name, f"a kind no other class holds (it is registered by {held.__qualname__})")
    KINDS[name] = cls
    cls.document_kind_name = name  # type: ignore[attr-defined]
    return cls


def document_kind(name: str) -> Callable[[type], type]:
    """Class decorator: ``@document_kind("tube")`` registers the class as kind ``"tube"``."""

    def apply(cls: type) -> type:
        register_kind(name, cls)
        return cls

    return apply


def kind_of(thing: Any) -> str | None:
    """The document kind registered for ``type(thing)``, or ``None``."""
    for name, cls in KINDS.items():
        if type(thing) is cls:
            return name
    return None


def load_kind(name: str, path: Any, key: str) -> type:
    """The class registered as kind ``name``, importing :data:`PROVIDERS` first if it is not yet known.

    A name no class holds raises ``DocumentError`` naming the file ``path`` and the ``key`` it was read from.
    """
    if name not in KINDS:
        for module in PROVIDERS:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name is None or not module.startswith(exc.name):
                    raise
    try:
        return KINDS[name]
    except (KeyError, TypeError):
        raise invalid_document(path, key, name, f"a registered document kind: one of "
                               f"{', '.join(sorted(KINDS)) or 'none registered'}") from None
