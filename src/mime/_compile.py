"""How MIME compiles its programs: ``jax.jit`` with MIME's own XLA options, for MIME's programs only.

Since JAX 0.10, XLA's CPU backend hands dot products, and fusions of elementwise arithmetic
with reductions, to the YNNPACK library by default. MIME's hot arithmetic is small and in
float64: a ``(3, 3)`` rotation applied to a group of samples, ``(k, 3)`` contact rows, a
``(2k, 2k)`` Delassus matrix. On those, a YNNPACK call costs more than the loop XLA
emits itself, and a dot held by YNNPACK cannot fuse with the arithmetic around it.
``bench/contact_speed.py --xla-defaults`` measures MIME's programs both ways in one run.

So every program MIME compiles is compiled by :func:`jit`, which is ``jax.jit`` with
:data:`COMPILER_OPTIONS`: XLA's own emitters for every fusion, and copies inserted only where
a region's buffers need them. The options are the
program's, passed to XLA with it (``jax.jit(..., compiler_options=...)``); nothing is set
for the process, so a caller's own programs compile as they would without MIME. A caller
who traces MIME's functions into a program of their own (``jax.jit(jax.vmap(step))``)
compiles them under their own options; :func:`mime.nodes.rigid.run_batch` is the batched
roll-out compiled under MIME's.

The options name fields of XLA's debug options, which every backend reads; only the CPU
backend acts on them. XLA refuses a field it does not know by name, so ``pyproject.toml``
keeps JAX to the releases these were tested with.

>>> import jax.numpy as jnp
>>> double = jit(lambda x: 2 * x)
>>> double(jnp.arange(3)).tolist()
[0, 2, 4]
"""

from __future__ import annotations

from typing import Any, Callable

import jax

__all__ = ["COMPILER_OPTIONS", "jit"]

COMPILER_OPTIONS: dict[str, str | bool] = {
    "xla_cpu_experimental_ynn_fusion_type": "",
    "xla_cpu_copy_insertion_use_region_analysis": True,
}
"""XLA options of every program MIME compiles:

- ``xla_cpu_experimental_ynn_fusion_type``: no fusion handed to YNNPACK (an empty list of fusion
  types), so that XLA emits each fusion's loops itself;
- ``xla_cpu_copy_insertion_use_region_analysis``: copy insertion asks XLA's region analysis which
  of a conditional's or a loop's buffers are still live where the region writes them, and
  copies only those. A step's branches and loops carry many small arrays, and without the
  analysis XLA copies more of them in and out of each region (with it, ``run_scan``'s compiled
  chunk holds 28 fewer copies on JAX 0.10.2, with the same arithmetic and the same bits)."""


def jit(fun: Callable[..., Any] | None = None, **kwargs: Any) -> Any:
    """``jax.jit(fun, **kwargs)`` with :data:`COMPILER_OPTIONS`; usable as a decorator, bare or with
    keyword arguments (``@jit``, ``@jit(static_argnames=...)``)."""
    if fun is None:
        return lambda f: jit(f, **kwargs)
    return jax.jit(fun, compiler_options=COMPILER_OPTIONS, **kwargs)
