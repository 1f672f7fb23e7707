"""Determinism: a reference scenario run twice gives identical bits.

Each package's reference scenarios (``SCENARIOS``) are run twice in this process and their
results compared bit for bit: same dtype, same shape, same bytes. JAX's compilation cache is
cleared between the runs so the second run recompiles rather than replaying the first's
executable.

Pages are compared elsewhere, every one of them: ``make test`` runs each page under nbval (its
glued values kept in ``_build/nbval_glue``) and again in the strict build, and
``tests/browser/test_built_determinism.py`` compares the two runs' glued values exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest


# ---------------------------------------------------------------------------------------------
# Reference scenarios, bit for bit.


def _plain(result: Any) -> Any:
    """A result as nested dicts and lists of arrays and scalars (dataclasses opened field by field)."""
    import dataclasses

    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return {f.name: _plain(getattr(result, f.name)) for f in dataclasses.fields(result)}
    if isinstance(result, dict):
        return {key: _plain(value) for key, value in result.items()}
    if isinstance(result, (list, tuple)):
        return [_plain(value) for value in result]
    return result


def _leaves(result: Any) -> list[np.ndarray]:
    """The numbers of a result (any nesting of dicts, lists, dataclasses and arrays), as NumPy arrays."""
    leaves = [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(_plain(result))
              if not isinstance(leaf, (str, bytes, type(None)))]
    opaque = [type(leaf).__name__ for leaf in leaves if leaf.dtype == object]
    if opaque:
        raise TypeError(f"cannot compare the bits of {opaque}: return arrays, numbers or dataclasses of them")
    return leaves


def bitwise_equal(a: Any, b: Any) -> bool:
    """True when two results have the same leaves with the same dtypes, shapes and bytes.

    >>> bitwise_equal({"x": np.array([0.1, 0.2])}, {"x": np.array([0.1, 0.2])})
    True
    >>> bitwise_equal(np.array([0.0]), np.array([-0.0]))  # equal as numbers, not as bits
    False
    """
    left, right = _leaves(a), _leaves(b)
    return len(left) == len(right) and all(
        x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
        for x, y in zip(left, right)
    )


def _trajectory(trajectory) -> dict[str, np.ndarray]:
    out = {path: trajectory.values(path) for path in trajectory.paths}
    out["times"] = trajectory.times
    out["event_times"] = trajectory.event_times()
    return out


def _skcomplex_scenarios() -> dict[str, Callable[[], Any]]:
    from skcomplex import ContinuousSpace, PointElement, ReflectionInteraction, Simulation, System

    def seed_wall():
        # The seed's example: a point crossing x = 1 in the plane, reflected once.
        wall = ReflectionInteraction("wall", target="ball", guard=lambda s: s.target.x[0] - 1, direction=1)
        ball = PointElement("ball", x=[0.0, 0.0], x_d1=[1.0, 1.0])
        system = System(elements=[ball], interactions=[wall], space=ContinuousSpace(n_dim=2))
        return _trajectory(Simulation(system, dt=0.5).check().prepare().run(until=2.0).trajectory_)

    def bouncing_ball():
        # A ball dropped from 1 m onto a floor with restitution 0.8: many located bounces.
        floor = ReflectionInteraction("floor", target="ball", guard=lambda s: s.target.x,
                                      direction=-1, restitution=0.8)
        ball = PointElement("ball", x=1.0, x_d1=0.0, x_d2=-9.81)
        system = System(elements=[ball], interactions=[floor], space=ContinuousSpace(n_dim=1))
        return _trajectory(Simulation(system, dt=0.01).run(until=2.0).trajectory_)

    return {"skcomplex.seed_wall": seed_wall, "skcomplex.bouncing_ball": bouncing_ball}


def _maddening_scenarios() -> dict[str, Callable[[], Any]]:
    from maddening.nodes import ball_evidence as evidence

    return {
        # The seed's drop: one bounce, its final height and gradients, both contact modes.
        "maddening.seed_drop": lambda: evidence.drop_gradients(evidence.SEED_DROP),
        "maddening.seed_drop_located": lambda: evidence.drop_gradients(evidence.SEED_DROP, locate_contact=True),
        # The trajectory and its sensitivities over the whole run.
        "maddening.drop_sensitivities": lambda: evidence.drop_sensitivities(evidence.SEED_DROP),
        # MADD-VER-010: the manufactured-solution ladder behind the declared order.
        "maddening.order_ladder": lambda: evidence.ball_order_ladder(),
    }


def _mime_scenarios() -> dict[str, Callable[[], Any]]:
    from mime import demos

    # A smooth cylinder and its 24-sided mesh spun on the floor, held by projection contact.
    return {"mime.spin_on_floor": lambda: demos.spin_on_floor(steps=150)}


def _scenarios() -> dict[str, Callable[[], Any]]:
    """Each package's reference scenarios, as they land: a name and a call that runs it.

    A package whose public names do not exist yet contributes nothing (and the
    test below says so by skipping); once it lands, its scenarios are compared.
    """
    found: dict[str, Callable[[], Any]] = {}
    for provider in (_maddening_scenarios, _skcomplex_scenarios, _mime_scenarios):
        try:
            found.update(provider())
        except (ImportError, AttributeError):
            continue
    return found


SCENARIOS = _scenarios()


@pytest.mark.parametrize("name", sorted(SCENARIOS) or ["(none yet)"])
def test_a_reference_scenario_run_twice_gives_identical_bits(name):
    if name not in SCENARIOS:
        pytest.skip("no package reference scenario is available yet")
    with jax.enable_x64(True):
        first = SCENARIOS[name]()
        jax.clear_caches()
        second = SCENARIOS[name]()
    assert _leaves(first), f"{name} returned no arrays to compare"
    assert bitwise_equal(first, second), f"{name}: two runs differ in their bits"
