"""The support queries and the sweep's depths are traced once per process, not once per call.

``lax.switch`` keeps a branch's trace keyed by the branch's function object and its operand types.
A hold's support switch (``HullHold.support``, ``support_once``) and the margin sweep's depth switch
(``mime.sweep._kind_depth``) therefore take module-level branches, made once: the second query with
the same operand types reuses the first one's traces. Branches made anew at each call (a lambda per
kind, as before) are traced at every call site of every program (the impact capsule's chunk traced in
0.70 s with them, 0.61 s without); the first two tests below then count two traces where they allow
one, and the third finds the two switches' branches traced apart.

A kind's support is counted where ``_part_support`` asks the kind class for it
(``support_from``, patched here to count its calls while tracing); the depths' switches are compared
in the traced program.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from mime import demos, sweep
from mime.geometry import Capsule, Ellipsoid


def _hold(hull):
    body = demos.make_body(hull, mass=1e-6)
    return demos.confinement(demos.attach(body, demos.FLOOR.surface)).hold


def _count_calls(monkeypatch, cls, name):
    calls = []
    original = getattr(cls, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(cls, name, staticmethod(counted))
    return calls


def test_two_support_queries_trace_each_kind_once(monkeypatch):
    calls = _count_calls(monkeypatch, Capsule, "support_from")
    with jax.enable_x64(True):
        hold = jax.tree_util.tree_map(jnp.asarray, _hold(Capsule(radius=2.5e-4, length=1e-3)))
        # operand types of their own (a float32 direction) so no earlier test's trace is reused here
        d, hint = jnp.ones(3, jnp.float32), jnp.zeros(3, jnp.float32)

        def two(hold, d, hint):
            first, _ = hold.support(jnp.zeros((), jnp.int32), d, hint)
            again, _ = hold.support(jnp.zeros((), jnp.int32), -d, hint)
            return first + again

        jax.make_jaxpr(two)(hold, d, hint)
    assert len(calls) <= 1, f"the capsule's support was traced {len(calls)} times for two queries"


def test_two_searches_of_one_point_trace_each_kind_once(monkeypatch):
    calls = _count_calls(monkeypatch, Ellipsoid, "support_from")
    with jax.enable_x64(True):
        hold = jax.tree_util.tree_map(jnp.asarray, _hold(Ellipsoid(3e-4, 2e-4, 1e-4)))
        d = jnp.ones(3, jnp.float32)
        jax.make_jaxpr(lambda hold, d: hold.support_once(d) + hold.support_once(-d))(hold, d)
    assert len(calls) <= 1, f"the ellipsoid's support was traced {len(calls)} times for two searches"


def _switches(jaxpr):
    """Every ``cond`` (a ``lax.switch`` or ``lax.cond``) of ``jaxpr``, in its loops and branches too."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "cond":
            yield eqn
        for param in eqn.params.values():
            for inner in param if isinstance(param, (tuple, list)) else (param,):
                if hasattr(inner, "jaxpr"):
                    yield from _switches(getattr(inner.jaxpr, "jaxpr", inner.jaxpr))


def test_the_depths_of_two_parts_share_one_trace_of_each_formula():
    """A capsule and a ball: each part's depth is a switch over the formulas, and both switches hold
    the very same traced branches (traced anew, they would be programs of their own)."""
    from mime.geometry import Hull, Part, Sphere
    from mime.scene import Plane

    hull = Hull([Part(Capsule(radius=2.5e-4, length=1e-3)), Part(Sphere(2e-4), (6e-4, 0.0, 0.0))])
    measure = sweep._Measure.of(hull, Plane(), 1e-4, 2.5e-5)
    first, second = _switches(jax.make_jaxpr(measure.depth)(np.ones(3, np.float32)).jaxpr)
    assert len(first.params["branches"]) == len(sweep._DEPTH_BRANCHES)
    assert all(a.jaxpr is b.jaxpr for a, b in zip(first.params["branches"], second.params["branches"]))


def test_a_choice_against_a_curved_wall_holds_one_support_switch():
    """Against a curved wall a start's search is repeated along the normal where it landed: a loop of two
    turns, so that the choice's program holds the switch over every kind's support once (written out
    twice, it held two, and the tube's compiled step 51 more fusions: 2.9 s against 2.65 s to compile)."""
    from mime.interactions._hold import SUPPORT_KINDS

    body = demos.make_body(Capsule(radius=2.5e-4, length=1.31e-3), mass=1e-6)
    hold = demos.confinement(demos.attach(body, demos.NARROW_TUBE.inner_surface)).hold
    with jax.enable_x64(True):
        hold = jax.tree_util.tree_map(jnp.asarray, hold)
        jaxpr = jax.make_jaxpr(hold.choose)(jnp.zeros(3), jnp.array([1.0, 0.0, 0.0, 0.0]))
    supports = [e for e in _switches(jaxpr.jaxpr) if len(e.params["branches"]) == len(SUPPORT_KINDS)]
    assert len(supports) == 1, f"{len(supports)} switches over the kinds' supports in one choice"
