"""Sharded batch runs equal the unsharded runs bit for bit, on four fake host devices.

XLA reads ``--xla_force_host_platform_device_count`` once, when JAX starts, so
the runs happen in a subprocess (``_sharded_runs.py``) that starts with it set;
it reports per case whether every leaf of the sharded run's result has the same
bits as the unsharded run's, for a batch that divides by four and one that does
not. The margin sweep of every hull kind runs sharded there too, and its
measurements are checked here against the contact's tolerances. Bad ``mesh``
arguments are refused in this process (they need no devices).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jax
import pytest

pytestmark = pytest.mark.slow  # its builds (or subprocess runs) take tens of seconds

HERE = Path(__file__).resolve().parent


def _run(*libraries: str) -> dict:
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4").strip()
    env["JAX_PLATFORMS"] = "cpu"
    done = subprocess.run([sys.executable, str(HERE / "_sharded_runs.py"), *libraries], env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-4000:]
    line = [l for l in done.stdout.splitlines() if l.startswith("RESULT ")][-1]
    result = json.loads(line[len("RESULT "):])
    assert result["devices"] == 4
    return result


@pytest.fixture(scope="module")
def runs() -> dict:
    return _run("maddening", "skcomplex", "mime")


@pytest.mark.parametrize("n", [12, 10, 1])
def test_maddening_run_batch_sharded_is_bitwise(runs, n):
    case = runs[f"maddening_n{n}"]
    assert case["bitwise"], f"run_batch over 4 devices differs from the unsharded run for {n} balls"


def test_maddening_batch_really_bounces(runs):
    assert runs["maddening_n12"]["bounced"]  # the comparison covers the contact branch, not only free flight


@pytest.mark.parametrize("n", [200, 203])
def test_skcomplex_batched_step_sharded_is_bitwise(runs, n):
    case = runs[f"skcomplex_n{n}"]
    assert case["events"] > n  # several crossings per point: the later, compacted passes run
    assert case["bitwise"]


def test_skcomplex_batched_step_sharded_with_one_dt_per_point_and_a_small_buffer_is_bitwise(runs):
    assert runs["skcomplex_n200"]["bitwise_dt_per_point_capacity_3"]


@pytest.mark.parametrize("kind", ["sphere", "box"])
def test_mime_sweep_sharded_is_bitwise(runs, kind):
    case = runs[f"mime_{kind}"]
    assert case["size"] == 6  # 6 starts over 4 devices: padded to 8, unpadded to 6
    assert case["bitwise"]


def test_mime_margin_sweep_every_kind_keeps_the_margin(runs):
    from mime.demos import KEEP_ATOL, SWEPT_ATOL
    from mime.sweep import sweep_kinds

    for kind in sweep_kinds():
        case = runs[f"mime_{kind}"]
        assert case["touching"] > 0, f"{kind}: no start touched the floor, the sweep tested nothing"
        tolerance = SWEPT_ATOL if case["unconverged"] else KEEP_ATOL
        assert case["worst_gap"] >= -tolerance, f"{kind}: a hull point ended {-case['worst_gap']:.3e} m past the margin"


# ---------------------------------------------------------------------------------------- bad meshes
def test_bad_mesh_is_refused_by_each_library():
    import jax.numpy as jnp

    import maddening
    import mime
    import skcomplex
    from maddening.core.simulation.batch import run_batch
    from maddening.nodes import BallNode
    from mime.sweep import margin_sweep

    ball = BallNode()
    states = {"position": jnp.ones(3), "velocity": jnp.zeros(3)}
    with pytest.raises(maddening.ValidationError, match=r"run_batch: mesh = 'cpu' is not allowed; expected None or a jax.sharding.Mesh"):
        run_batch(ball, states, dt=1e-3, steps=2, mesh="cpu")
    with pytest.raises(maddening.ValidationError, match=r"steps = -1 is not allowed"):
        run_batch(ball, states, dt=1e-3, steps=-1)
    with pytest.raises(maddening.ValidationError, match=r"states = .* is not allowed; expected a pytree whose every leaf"):
        run_batch(ball, {"position": jnp.ones(3), "velocity": jnp.zeros(2)}, dt=1e-3, steps=2)
    with pytest.raises(maddening.ValidationError, match=r"states = .* is not allowed; expected a pytree whose every leaf"):
        run_batch(ball, {"position": jnp.ones(()), "velocity": jnp.zeros(())}, dt=1e-3, steps=2)  # one state, no batch axis

    sim = skcomplex.Simulation(skcomplex.System([skcomplex.PointElement("p", x=0.0, x_d1=1.0)], [],
                                                skcomplex.ContinuousSpace(1)), dt=0.1)
    with pytest.raises(skcomplex.ValidationError, match=r"mesh must be None or a jax.sharding.Mesh .* got 4"):
        sim.step_function(differentiable=False, batched=True, mesh=4)
    one = jax.make_mesh((1,), ("batch",))
    with pytest.raises(skcomplex.ValidationError, match=r"pass batched=True with it"):
        sim.step_function(differentiable=False, mesh=one)

    with pytest.raises(mime.ValidationError, match=r"run_sweep: mesh = \[0, 1\] is not allowed; expected None or a jax.sharding.Mesh"):
        margin_sweep("sphere", 2, mesh=[0, 1])
    with pytest.raises(mime.ValidationError, match=r"margin_sweep: kind = 'cube' is not allowed"):
        margin_sweep("cube", 2)


def test_one_device_mesh_equals_no_mesh():
    import jax.numpy as jnp
    import numpy as np

    from maddening.core.simulation.batch import run_batch
    from maddening.nodes import BallNode

    ball = BallNode()
    states = {"position": jnp.linspace(0.1, 1.0, 5), "velocity": jnp.zeros(5)}
    kw = dict(dt=1e-3, steps=50, boundary_inputs={"table_position": 0.0})
    a = run_batch(ball, states, **kw)
    b = run_batch(ball, states, mesh=jax.make_mesh((1,), ("batch",)), **kw)
    for k in a:
        np.testing.assert_array_equal(np.asarray(a[k]), np.asarray(b[k]), strict=True)
