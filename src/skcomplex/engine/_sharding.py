"""The batch axis of the batched step split over a device mesh (``Simulation.step_function(mesh=...)``).

skcomplex stands alone, so it keeps this small copy of the recipe rather than
importing one: the batch (the leading axis of every state leaf, and of ``dt``
when it is per point) is padded to a multiple of the mesh's device count with
its last point, split over *all* the mesh's axes (``PartitionSpec(axis_names)``)
by ``jax.shard_map``, each device runs the same batched step on its share
(compacting its own busy points), and the padded points are dropped. No device
talks to another, and every point goes through the same per-point passes, so
the results are bitwise those of the unsharded step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec

from skcomplex.exceptions import ValidationError

__all__ = ["MESH_TEXT", "is_mesh", "sharded_batched_step"]

#: What a ``mesh`` argument must be, in words (the ``Simulation.step_function`` constraint's text).
MESH_TEXT = ("a jax.sharding.Mesh with at least one named axis "
             "(e.g. jax.make_mesh((jax.device_count(),), ('batch',)))")


def is_mesh(mesh: Any) -> bool:
    """Whether ``mesh`` is a ``jax.sharding.Mesh`` with a device and at least one named axis."""
    return isinstance(mesh, Mesh) and mesh.size >= 1 and bool(mesh.axis_names)


def _auto(mesh: Mesh) -> Mesh:
    auto = (AxisType.Auto,) * len(mesh.axis_names)
    return mesh if tuple(mesh.axis_types) == auto else Mesh(mesh.devices, mesh.axis_names, axis_types=auto)


def sharded_batched_step(step: Callable[..., Any], mesh: Mesh) -> Callable[..., Any]:
    """``step(states, params, dt)`` (the batched step) with its batch axis split over ``mesh``."""
    mesh = _auto(mesh)
    spec = PartitionSpec(mesh.axis_names)
    devices = mesh.size

    def sharded(states: Any, params: Any, dt: Any) -> Any:
        leaves = jax.tree_util.tree_leaves(states)
        sizes = {jnp.shape(leaf)[0] if jnp.ndim(leaf) else None for leaf in leaves}
        if len(sizes) != 1 or None in sizes:
            raise ValidationError(
                f"the batched step needs one leading batch axis on every state leaf, got lengths {sizes}")
        (n,) = sizes
        dt = jnp.asarray(dt, dtype=jnp.result_type(float))
        if dt.ndim > 1 or (dt.ndim == 1 and dt.shape[0] != n):
            raise ValidationError(f"the batched step needs dt to be a scalar or of shape ({n},), got shape {dt.shape}")
        if n == 0:
            return step(states, params, dt)
        per_point = dt.ndim == 1
        pad = (-n) % devices

        def grow(a: Any) -> Any:
            return a if pad == 0 else jnp.concatenate([a, jnp.repeat(a[-1:], pad, axis=0)], axis=0)

        batch = jax.tree_util.tree_map(grow, (states, dt) if per_point else states)
        batch = jax.tree_util.tree_map(lambda a: jax.lax.with_sharding_constraint(a, NamedSharding(mesh, spec)), batch)
        if per_point:
            local = jax.shard_map(lambda b, p: step(b[0], p, b[1]), mesh=mesh, in_specs=(spec, PartitionSpec()),
                                  out_specs=spec, check_vma=False)
            out = local(batch, params)
        else:
            local = jax.shard_map(step, mesh=mesh, in_specs=(spec, PartitionSpec(), PartitionSpec()),
                                  out_specs=spec, check_vma=False)
            out = local(batch, params, dt)
        return out if pad == 0 else jax.tree_util.tree_map(lambda a: a[:n], out)

    return sharded
