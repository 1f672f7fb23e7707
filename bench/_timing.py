"""What every benchmark here times with: the best of several calls, and a wait for JAX's work.

The benchmarks import it as a sibling module (``python bench/<name>.py`` puts ``bench/`` first on
``sys.path``). The best of a few calls, not their mean, is quoted: the machines these figures come
from are shared, and the fastest call is the one least disturbed by the rest of the machine.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import jax

__all__ = ["best", "block"]


def best(fn: Callable[[], Any], repeat: int = 5) -> float:
    """The shortest wall time, s, of ``repeat`` calls of ``fn`` (which must block until its work is done)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def block(tree: Any) -> Any:
    """``tree`` once every array in it is computed (JAX dispatches asynchronously)."""
    return jax.block_until_ready(tree)
