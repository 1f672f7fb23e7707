"""The table of one-step schemes by name (``METHODS``) and the decorator that fills it.

It sits below both modules that define schemes (``integrators`` and
``_second_order_schemes``), so neither imports the other to register one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from maddening.core.node import Node
from maddening.errors import invalid

__all__ = ["METHODS", "Method", "register_method"]

Method = Callable[[Node, Mapping[str, Any], Mapping[str, Any], Any, Mapping[str, Any] | None], dict]

METHODS: dict[str, Method] = {}


def register_method(name: str) -> Callable[[Method], Method]:
    """Register a one-step scheme under ``name`` (a decorator).

    Registering a name twice raises ``maddening.ValidationError``.
    """
    if not isinstance(name, str) or not name:
        raise invalid("name", name, "a non-empty string")

    def decorate(function: Method) -> Method:
        if name in METHODS:
            raise invalid("name", name, f"a method name not yet registered (taken: {sorted(METHODS)})")
        METHODS[name] = function
        return function

    return decorate
