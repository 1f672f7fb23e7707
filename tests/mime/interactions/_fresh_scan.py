"""A scenario's steps through a freshly traced scan: every state and report, as NumPy arrays.

The comparisons of the hold's shortcuts (``test_projection_skip``, ``test_broad_phase``) patch a
function of ``mime.interactions._hold`` and run the scenario again; a new function per call is
traced afresh, so no cached trace of the unpatched step is reused.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from mime import demos
from mime.nodes import rigid


def inputs_and_start(experiment):
    """The built experiment's step inputs for its one body, and the body's start, as JAX arrays."""
    body = demos.body_of(experiment)
    inputs = jax.tree_util.tree_map(jnp.asarray, experiment.build().step_inputs(body))
    return inputs, jax.tree_util.tree_map(jnp.asarray, body.start)


def run_fresh(*experiments, steps):
    """For each experiment, ``(states, reports)`` of ``steps`` steps of the demos' ``DT``, every field
    ``(steps, ...)``, in float64 (one experiment: its pair alone). One program is traced for the call and
    reused by every experiment whose step inputs have its structure."""
    with jax.enable_x64(True):
        def scan(inputs, s0):  # a new function each call: traced afresh, never a cached trace
            def one(state, k):
                new, report = rigid.step(inputs, state, k * demos.DT, demos.DT)
                return new, (new, report)

            return jax.lax.scan(one, s0, jnp.arange(steps, dtype=jnp.float64))[1]

        program = jax.jit(scan)
        runs = [jax.tree_util.tree_map(np.asarray, program(*inputs_and_start(e))) for e in experiments]
    return runs[0] if len(runs) == 1 else runs
