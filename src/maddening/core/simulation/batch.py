"""A batch of one node's states stepped together: ``jit(vmap(scan(update)))``, optionally over a device mesh.

``run_batch(node, states, dt=..., steps=...)`` advances every point of the batch
(each leaf of ``states`` carries a leading batch axis: a million balls, say) by
``steps`` steps of the node's own ``update()``, under one ``lax.scan`` per point
mapped with ``vmap`` and compiled by one ``jax.jit``. This is the route of the
million-ball case in ``bench/ball.py``.

``mesh=`` (a ``jax.sharding.Mesh``) splits the batch axis over the mesh's
devices (``maddening.core.simulation.sharding.map_batch``): each device steps
its share, the results equal the unsharded run's bit for bit, and a batch that
does not divide by the device count is padded and unpadded. Across hosts, call
``jax.distributed.initialize()`` in every process, build the mesh from
``jax.devices()``, and pass the batch as a global ``jax.Array``; the call is the
same.

>>> import jax, jax.numpy as jnp
>>> from maddening.nodes import BallNode
>>> ball = BallNode()
>>> states = {"position": jnp.array([1.0, 2.0]), "velocity": jnp.zeros(2)}
>>> out = run_batch(ball, states, dt=1e-3, steps=10, boundary_inputs={"table_position": 0.0})
>>> out["position"].shape
(2,)
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import jax
import numpy as np

from maddening.core.node import Node, check_timestep
from maddening.core.simulation.sharding import batch_size, check_mesh, map_batch
from maddening.errors import invalid, whole_number

__all__ = ["run_batch"]


def run_batch(
    node: Node,
    states: Mapping[str, Any],
    *,
    dt: Any,
    steps: int,
    boundary_inputs: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    mesh: Any = None,
) -> dict[str, Any]:
    """The states of a batch after ``steps`` steps of ``dt`` seconds of ``node.update``.

    Args:
        node: The node whose ``update()`` advances each point.
        states: The node's state fields, each with a leading batch axis of one length ``n``.
        dt: The time step in seconds, shared by every point (finite, > 0).
        steps: How many steps (an int >= 0).
        boundary_inputs: The node's boundary inputs, shared by every point.
        params: Parameters injected over ``node.params``, shared by every point.
        mesh: ``None`` (one device, as before) or a ``jax.sharding.Mesh`` whose devices
            share the batch axis.

    Returns:
        The final states, each field with the batch axis of ``states``, equal bit for
        bit with and without a mesh.

    Raises:
        maddening.ValidationError: a ``node`` that is not a maddening node, ``states``
            whose fields are not the node's or whose leaves do not share a leading axis,
            a bad ``dt`` or ``steps``, or a ``mesh`` that is not a ``jax.sharding.Mesh``.
    """
    where = "run_batch"
    if not isinstance(node, Node):
        raise invalid("node", node, "a maddening.core.Node", where=where)
    node.check_state(states)
    batch_size(states, argument="states", where=where)
    _finite(states, "states", where)
    node.check_boundary_inputs(boundary_inputs, values=True)  # shared by every start, as the params are
    node.resolve_params(params)
    check_timestep(dt, where=where)
    whole_number(steps, "steps", "an int >= 0", where=where, at_least=0)
    check_mesh(mesh, where=where)
    return _run(node, steps, mesh, dict(states), boundary_inputs, dt, params)


def _finite(tree: Mapping[str, Any], argument: str, where: str) -> None:
    """Refuse a concrete entry with a NaN or an infinity, naming the field (a run from it returns NaN)."""
    for name, value in tree.items():
        if not isinstance(value, jax.core.Tracer) and not np.all(np.isfinite(np.asarray(value))):
            raise invalid(f"{argument}[{name!r}]", f"<{np.shape(value)} array with a non-finite entry>",
                          "finite numbers", where=where)


@partial(jax.jit, static_argnums=(0, 1, 2))
def _run(node: Node, steps: int, mesh: Any, states: dict, boundary_inputs: Any, dt: Any, params: Any) -> dict:
    def local(batch: dict, boundary_inputs: Any, dt: Any, params: Any) -> dict:
        def one(state: dict) -> dict:
            def body(carry: dict, _: Any) -> tuple[dict, None]:
                return node.update(carry, boundary_inputs, dt, params), None

            return jax.lax.scan(body, state, None, length=steps)[0]

        return jax.vmap(one)(batch)

    return map_batch(local, states, boundary_inputs, dt, params, mesh=mesh)
