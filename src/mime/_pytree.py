"""mime's one pytree style: frozen dataclasses registered with JAX.

A class decorated with :func:`pytree` is a frozen dataclass whose fields are the
pytree's children, except those declared with :func:`static`, which are part of
its structure: JAX compares them (by ``==`` and ``hash``) to key a compilation,
so two values that differ only in their arrays share one compiled program.

JAX rebuilds a pytree from its leaves (under ``jit``, ``vmap``, ``lax.scan``)
without calling the constructor, so a class may check its arguments in
``__post_init__`` without those checks ever seeing a traced value.

Why not ``equinox.Module``: the package would take a further core dependency for
what ``jax.tree_util`` already does, and a mime pytree needs neither Equinox's
filtering nor its field conversion.

>>> import jax, jax.numpy as jnp
>>> @pytree
... class Point:
...     where: jax.Array
...     label: str = static(default="p")
>>> jax.tree_util.tree_leaves(Point(jnp.ones(2)))
[Array([1., 1.], dtype=float32)]
>>> jax.jit(lambda p: p.where * 2)(Point(jnp.ones(2))).tolist()
[2.0, 2.0]
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

import jax

from maddening.errors import invalid  # as mime.errors re-exports it (errors and _pytree share a layer)

__all__ = ["pytree", "static", "replace"]

T = TypeVar("T")


def static(**kwargs: Any) -> Any:
    """A dataclass field that is part of the pytree's structure (hashable; it keys compilation)."""
    metadata = dict(kwargs.pop("metadata", {}) or {})
    metadata["static"] = True
    return dataclasses.field(metadata=metadata, **kwargs)


def pytree(cls: type[T] | None = None, *, eq: bool = False) -> Any:
    """Make ``cls`` a frozen dataclass and register it as a JAX pytree (see the module's docstring).

    ``eq=False`` (the default) keeps identity comparison: a class of arrays has no
    meaningful ``==``. A class whose every field is static may pass ``eq=True``.
    """

    def wrap(klass: type[T]) -> type[T]:
        klass = dataclasses.dataclass(frozen=True, eq=eq)(klass)
        fields = dataclasses.fields(klass)
        data = tuple(f.name for f in fields if not f.metadata.get("static", False))
        meta = tuple(f.name for f in fields if f.metadata.get("static", False))
        keys = tuple(jax.tree_util.GetAttrKey(name) for name in data)

        def flatten(x: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
            return tuple(getattr(x, n) for n in data), tuple(getattr(x, n) for n in meta)

        def flatten_with_keys(x: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
            return tuple(zip(keys, (getattr(x, n) for n in data))), tuple(getattr(x, n) for n in meta)

        def unflatten(aux: tuple[Any, ...], children: Any) -> Any:
            obj = object.__new__(klass)
            for name, value in zip(meta, aux):
                object.__setattr__(obj, name, value)
            for name, value in zip(data, children):
                object.__setattr__(obj, name, value)
            return obj

        jax.tree_util.register_pytree_with_keys(klass, flatten_with_keys, unflatten, flatten)
        klass.__pytree_data__ = data  # type: ignore[attr-defined]
        return klass

    return wrap if cls is None else wrap(cls)


def replace(obj: T, **changes: Any) -> T:
    """A copy of the pytree ``obj`` with ``changes``, built without its constructor (no checks rerun)."""
    new = object.__new__(type(obj))
    for f in dataclasses.fields(obj):  # type: ignore[arg-type]
        object.__setattr__(new, f.name, changes.pop(f.name, getattr(obj, f.name)))
    if changes:
        names = ", ".join(f.name for f in dataclasses.fields(obj))  # type: ignore[arg-type]
        raise TypeError(str(invalid("fields", sorted(changes), f"fields of {type(obj).__name__} ({names})",
                                    where="replace")))
    return new
