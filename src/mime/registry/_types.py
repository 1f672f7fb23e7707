"""Render annotations the way an entry's page writes them (``Annotated[Quantity, Length]``)."""

from __future__ import annotations

import types
import typing
from typing import Any

from mime.units import Dimension, Quantity

_NONE = type(None)


def format_type(tp: Any) -> str:
    """Short, stable text for an annotation.

    >>> from typing import Annotated, ClassVar
    >>> from mime.units import Quantity, Length
    >>> format_type(Annotated[Quantity | None, Length])
    'Annotated[Quantity | None, Length]'
    >>> format_type(ClassVar[tuple[str, ...] | None])
    'ClassVar[tuple[str, ...] | None]'
    """
    if tp is None or tp is _NONE:
        return "None"
    if tp is Ellipsis:
        return "..."
    if isinstance(tp, Dimension):
        return tp.label
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return f"Annotated[{format_type(args[0])}, {', '.join(format_type(a) for a in tp.__metadata__)}]"
    if origin is typing.Union or origin is types.UnionType:
        return " | ".join(format_type(a) for a in args)
    if origin is typing.ClassVar:
        return f"ClassVar[{format_type(args[0])}]"
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[{', '.join(format_type(a) for a in args)}]"
    if isinstance(tp, type):
        return tp.__name__
    return str(tp)


def annotation_parts(tp: Any) -> tuple[tuple[Any, ...], Dimension | None, bool]:
    """Split an annotation into (allowed base types, dimension or None, whether None is allowed)."""
    dimension = None
    if typing.get_origin(tp) is typing.Annotated:
        for meta in tp.__metadata__:
            if isinstance(meta, Dimension):
                dimension = meta
        tp = typing.get_args(tp)[0]
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        members = typing.get_args(tp)
    else:
        members = (tp,)
    optional = any(a is _NONE or a is None for a in members)
    bases = tuple(a for a in members if not (a is _NONE or a is None))
    bases = tuple(typing.get_origin(a) or a for a in bases)
    return bases, dimension, optional


__all__ = ["format_type", "annotation_parts", "Quantity"]
