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

import functools
from typing import Any, Callable

import jax
from jax.experimental.xla_metadata import set_xla_metadata

__all__ = ["COMPILER_OPTIONS", "ONE_KERNEL", "jit", "one_kernel"]

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


ONE_KERNEL: dict[str, str] = {"xla_cpu_small_call": "true", "inlineable": "false"}
"""The frontend attributes :func:`one_kernel` puts on a call: ``inlineable = false`` keeps XLA from
inlining the call into its caller, and ``xla_cpu_small_call = true`` has XLA's CPU backend emit the
called computation as one kernel (the form its ``SmallWhileLoopHoistingPass`` gives a loop that
reads and writes fewer than 1024 bytes), instead of one kernel per fusion, copy, branch and loop
turn. Only the CPU backend is given them (:func:`one_kernel`)."""


def one_kernel(fun: Callable[..., Any]) -> Callable[..., Any]:
    """``fun`` called as one ``jax.jit`` call that XLA's CPU backend compiles as a single kernel.

    A step of one body runs hundreds of small kernels, and on the CPU their dispatch is most of its
    time (see ``ARCHITECTURE.md``, "How MIME compiles"). The call this returns is tagged with
    :data:`ONE_KERNEL` (through the outputs' producing operation, ``jax.experimental.xla_metadata``),
    so the program that holds it runs ``fun`` as one kernel: for ``run_scan``'s chunk, about three
    times faster per step of one body (2.7 to 3.0 times on the peer scenes, ``bench/contact_peer.py``),
    and about twice as long to compile. The arithmetic is
    the same; rounding may differ in the last bits, since the kernel is compiled as one function
    (a motion that follows the last bits, as MIME-ANO-140's spin kicks do, then parts from the
    default program's). The tag is only read when the call is compiled as part of a program
    (``jax.jit`` of a function that calls it); no setting of the process changes. Each output must be
    computed by ``fun`` (an input passed through is the result of another operation, which would take
    the tag), and the program must hand no fusion to YNNPACK (MIME's options), whose fusions the one
    kernel cannot hold. Where JAX's default backend is not the CPU (a GPU), the call is left untagged:
    a call XLA may not inline is a form only the CPU backend was checked with.

    The call must sit at the top of its program, not inside a branch or a loop of the caller: there,
    the emitter of jaxlib 0.10.2's XLA stops the whole process on a failed check ("All or none of the slices
    should have an explicit index"; the choice of points tagged inside a batched step). MIME tags
    only ``run_scan``'s chunk, the whole of its program, and refuses it in a caller's trace.

    >>> import jax.numpy as jnp
    >>> twice = jit(one_kernel(lambda x: 2 * x))
    >>> twice(jnp.arange(3)).tolist()
    [0, 2, 4]
    """
    called = jax.jit(fun)

    @functools.wraps(fun)
    def tagged(*args: Any, **kwargs: Any) -> Any:
        out = called(*args, **kwargs)
        return set_xla_metadata(out, **ONE_KERNEL) if jax.default_backend() == "cpu" else out

    return tagged
