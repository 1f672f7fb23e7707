"""``maddening.core.simulation.batch.run_batch``: a batch of starts, each rolled as its own run.

The sharded runs (``tests/sharding``) compare it with itself across devices; here it is held to the
node's own step, one start at a time, and to its edge cases: no step at all, and a state that is not
the node's.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import maddening
from maddening.core.simulation.batch import run_batch
from maddening.nodes import BallNode

INPUTS = {"table_position": 0.0}


def _alone(ball: BallNode, start: dict, dt: float, steps: int) -> dict:
    """One start rolled by the node's own ``update``, ``steps`` times, in a scan of its own."""
    def body(state, _):
        return ball.update(state, INPUTS, dt), None

    return jax.jit(lambda s: jax.lax.scan(body, s, None, length=steps)[0])(start)


def test_each_start_of_a_batch_ends_where_it_ends_alone():
    """Drops from five heights, some bouncing within the run: the batch's final states are each
    start's own run to rounding (XLA may fuse a batched program's arithmetic otherwise)."""
    ball = BallNode()
    with jax.enable_x64(True):
        states = {"position": jnp.linspace(0.05, 1.0, 5), "velocity": jnp.array([0.0, -1.0, 0.5, 0.0, -0.2])}
        batch = run_batch(ball, states, dt=1e-3, steps=600, boundary_inputs=INPUTS)
        for i in range(5):
            alone = _alone(ball, {k: v[i] for k, v in states.items()}, 1e-3, 600)
            for k in states:
                np.testing.assert_allclose(np.asarray(batch[k][i]), np.asarray(alone[k]), rtol=1e-12, atol=1e-12)
        assert np.any(np.asarray(batch["velocity"]) > 0)  # some ball has bounced: the contact branch ran


def test_no_step_returns_the_starts_bit_for_bit():
    ball = BallNode()
    states = {"position": jnp.array([0.3, 0.7]), "velocity": jnp.array([-0.1, 0.2])}
    out = run_batch(ball, states, dt=1e-3, steps=0, boundary_inputs=INPUTS)
    for k in states:
        np.testing.assert_array_equal(np.asarray(out[k]), np.asarray(states[k]), strict=True)


@pytest.mark.parametrize("states", [{"position": jnp.ones(3)},
                                    {"position": jnp.ones(3), "velocity": jnp.zeros(3), "spin": jnp.zeros(3)}],
                         ids=["a field missing", "a field too many"])
def test_a_state_that_is_not_the_nodes_is_refused_naming_it(states):
    with pytest.raises(maddening.ValidationError, match=r"BallNode: state = \[.*\] is not allowed; expected a dict "
                                                          r"with the fields \['position', 'velocity'\]"):
        run_batch(BallNode(), states, dt=1e-3, steps=2, boundary_inputs=INPUTS)
