"""Spreading a batch over the devices of a mesh: one function, a ``mesh`` argument, no rewrite.

A batched entry point (``maddening.core.simulation.batch.run_batch``, and the
batched runs of the libraries built on maddening) takes ``mesh=None`` or a
``jax.sharding.Mesh``. With a mesh, ``map_batch`` splits the batch axis (the
leading axis of every leaf of the batched pytree) over *all* the mesh's
devices, ``P(mesh.axis_names)``, runs the same per-batch function on each
device's share under ``jax.shard_map`` (inside the entry point's ``jax.jit``;
``batch_sharding`` is the ``NamedSharding`` of the shares), and returns the results with the batch axis
restored. Each device computes exactly what the unsharded call computes for its
points, so the results are equal bit for bit; no device talks to another.

Uneven batches: a batch of ``n`` points over ``d`` devices is padded to the
next multiple of ``d`` by repeating its last point (a valid input, so no NaN
reaches the kernel), and the ``(-n) % d`` padded results are dropped.

Across hosts the call is the same. Each process runs
``jax.distributed.initialize()`` first; a mesh built from ``jax.devices()`` (every
process's devices, e.g. ``jax.make_mesh((jax.device_count(),), ("batch",))``)
then spans the hosts, and the batch is passed as a global ``jax.Array``
(``jax.make_array_from_process_local_data``); the result is a global array too
(``jax.experimental.multihost_utils.process_allgather`` fetches it). Nothing here
assumes a CPU: the same code runs on GPUs and TPUs.

>>> import jax, jax.numpy as jnp
>>> mesh = jax.make_mesh((1,), ("batch",))
>>> map_batch(lambda x, k: x * k, jnp.arange(5.0), 2.0, mesh=mesh).tolist()
[0.0, 2.0, 4.0, 6.0, 8.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec

from maddening.errors import ValidationError, invalid

__all__ = ["check_mesh", "batch_size", "pad_batch", "map_batch", "batch_sharding"]

MESH_ALLOWED = "None or a jax.sharding.Mesh (e.g. jax.make_mesh((jax.device_count(),), ('batch',)))"


def check_mesh(mesh: Any, *, where: str = "", error: type[Exception] = ValidationError) -> Mesh | None:
    """Return ``mesh`` when it is ``None`` or a non-empty ``jax.sharding.Mesh``; else raise ``error``.

    ``error`` lets a library built on maddening raise its own documented error type
    with the same message.

    >>> check_mesh(4, where="run_batch")
    Traceback (most recent call last):
    ...
    maddening.ValidationError: run_batch: mesh = 4 is not allowed; expected None or a jax.sharding.Mesh (e.g. jax.make_mesh((jax.device_count(),), ('batch',)))
    """
    if mesh is None:
        return None
    if not isinstance(mesh, Mesh):
        raise error(str(invalid("mesh", mesh, MESH_ALLOWED, where=where)))
    if mesh.size < 1 or not mesh.axis_names:
        raise error(str(invalid("mesh", mesh, "a mesh with at least one named axis and one device", where=where)))
    return mesh


def batch_size(batch: Any, *, argument: str = "batch", where: str = "",
               error: type[Exception] = ValidationError) -> int:
    """The common length of the leading axis of every leaf of ``batch``; else raise ``error`` naming ``argument``."""
    leaves = jax.tree_util.tree_leaves(batch)
    sizes = {jnp.shape(leaf)[0] if jnp.ndim(leaf) else None for leaf in leaves}
    if not leaves or len(sizes) != 1 or None in sizes:
        shapes = [tuple(jnp.shape(leaf)) for leaf in leaves]
        raise error(str(invalid(argument, f"<leaves of shapes {shapes}>",
                                "a pytree whose every leaf has one leading batch axis of the same length",
                                where=where)))
    return int(sizes.pop())


def _auto(mesh: Mesh) -> Mesh:
    """``mesh`` with every axis in ``Auto`` mode: the compiler places the padding and the unpadding (an
    ``Explicit`` axis refuses to slice a batch that does not divide by its devices)."""
    auto = (AxisType.Auto,) * len(mesh.axis_names)
    if tuple(mesh.axis_types) == auto:
        return mesh
    return Mesh(mesh.devices, mesh.axis_names, axis_types=auto)


def batch_sharding(mesh: Mesh) -> NamedSharding:
    """The sharding of a batch axis over every device of ``mesh`` (its leading axis split over all mesh axes)."""
    return NamedSharding(mesh, PartitionSpec(mesh.axis_names))


def pad_batch(batch: Any, multiple: int) -> tuple[Any, int]:
    """``(padded, n)``: ``batch`` padded along its leading axis to a multiple of ``multiple`` with its last point.

    Traceable (``jnp`` only). ``n`` is the unpadded length; a batch already a
    multiple is returned as it is.
    """
    n = batch_size(batch)
    pad = (-n) % multiple
    if pad == 0:
        return batch, n

    def grow(a: Any) -> Any:
        a = jnp.asarray(a)
        return jnp.concatenate([a, jnp.repeat(a[-1:], pad, axis=0)], axis=0)

    return jax.tree_util.tree_map(grow, batch), n


def map_batch(function: Callable[..., Any], batch: Any, *shared: Any, mesh: Mesh | None = None) -> Any:
    """``function(batch, *shared)``, its batch axis split over ``mesh``'s devices when one is given.

    ``function`` maps a batch (every leaf with a leading axis) and arguments shared
    by every point (replicated on every device) to a pytree whose every leaf has
    the same leading batch axis. It must treat each point on its own (a ``vmap``,
    or a batched kernel whose points do not interact): each device then runs it on
    its share and the results equal the unsharded call's bit for bit.

    With ``mesh=None`` this is exactly ``function(batch, *shared)``. A batch of
    length 0 is run unsharded. Call it inside ``jax.jit`` (the entry points do),
    so the padding, the ``shard_map`` and the unpadding compile into one program.
    """
    if mesh is None:
        return function(batch, *shared)
    check_mesh(mesh, where="map_batch")
    n = batch_size(batch)
    if n == 0:
        return function(batch, *shared)
    padded, n = pad_batch(batch, mesh.size)
    mesh = _auto(mesh)
    spec = PartitionSpec(mesh.axis_names)
    mapped = jax.shard_map(function, mesh=mesh, in_specs=(spec,) + (PartitionSpec(),) * len(shared),
                           out_specs=spec, check_vma=False)
    constrain = jax.lax.with_sharding_constraint
    padded = jax.tree_util.tree_map(lambda a: constrain(a, NamedSharding(mesh, spec)), padded)
    out = mapped(padded, *shared)
    if padded is batch:
        return out
    return jax.tree_util.tree_map(lambda a: a[:n], out)
