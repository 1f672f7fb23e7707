"""Compiled run loops shared between simulations whose steps trace to the same program.

``Simulation.run`` calls a jitted loop of ``CHUNK`` steps. Each ``Simulation`` used
to jit its own, so a convergence ladder (the same system at several ``dt``, or with
several restitutions) traced, lowered and compiled the same program once per rung.
Here the loop is kept under a *program key*: everything the traced step reads from
Python, and nothing it receives as a traced argument.

- the step's static options (``StepOptions``);
- the space's type and dimension;
- each element's label and state names, in order, with each state's shape;
- each interaction's type and every constructor argument that is not one of its
  traced ``parameters()``: labels, roles, static parameters such as ``direction``,
  and functions such as the ``guard``, which count by identity (the same function
  object, not an equal-looking one).

The initial states, ``dt`` and the traced parameters are arguments of the compiled
loop, so they may differ freely between simulations sharing it.

The contract is ``jax.jit``'s: a guard is traced once, so it must be a pure
function of the states it is given. A guard that reads a global which changes
between two simulations of the same interaction keeps the value it read first.
An argument that cannot be compared (an unhashable object), or that the
interaction does not keep as an attribute of the same name, gives no key, and the
simulation jits a loop of its own, as before.
"""

from __future__ import annotations

import inspect
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from skcomplex.core.system import System

KEPT = 64
"""The most shared loops kept (least recently used first out)."""

_LOOPS: OrderedDict[Hashable, Callable] = OrderedDict()


class _Unkeyable(Exception):
    """An argument that cannot be part of a program key."""


def _frozen(value: Any) -> Hashable:
    """``value`` as a hashable that compares equal only for values that trace alike."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return (type(value).__name__, value)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_frozen(v) for v in value))
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, value.dtype.str, value.tobytes())
    if callable(value):
        return ("callable", id(value), value)  # identity: the same function object
    try:
        hash(value)
    except TypeError:
        raise _Unkeyable(value) from None
    return (type(value), value)


def _arguments(interaction: Any) -> tuple:
    """An interaction's constructor arguments, as ``(name, frozen value)``, without its traced parameters."""
    traced = set(interaction.parameters())
    names = [n for n, p in inspect.signature(type(interaction).__init__).parameters.items()
             if n != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    missing = [n for n in names if not hasattr(interaction, n)]
    if missing:  # an argument kept under another name: what the step reads of it is unknown
        raise _Unkeyable(missing)
    return tuple((n, _frozen(getattr(interaction, n))) for n in names if n not in traced)


def program_key(system: System, options: Hashable) -> Hashable | None:
    """The key under which ``system``'s loop with ``options`` is shared, or None if it cannot be shared."""
    try:
        elements = tuple(
            (e.label, tuple((name, np.shape(value)) for name, value in e.states.items()))
            for e in system.elements
        )
        interactions = tuple((type(i), _arguments(i)) for i in system.interactions)
        space = (type(system.space), getattr(system.space, "n_dim", None))
    except _Unkeyable:
        return None
    return (options, space, elements, interactions)


def shared_loop(key: Hashable | None, build: Callable[[], Callable]) -> Callable:
    """The loop kept under ``key``, built by ``build()`` the first time (a fresh one when ``key`` is None)."""
    if key is None:
        return build()
    loop = _LOOPS.get(key)
    if loop is None:
        loop = _LOOPS[key] = build()
        while len(_LOOPS) > KEPT:
            _LOOPS.popitem(last=False)
    else:
        _LOOPS.move_to_end(key)
    return loop
