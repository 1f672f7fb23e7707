"""Measurements of BallNode that its tests, its records and its book page share.

Everything here runs in float64 (inside ``jax.enable_x64``) and returns plain
Python floats or NumPy arrays.

The drop case (``DropCase``): a ball released from rest at height ``h`` above a
table at ``x_t``, falling with ``|g|``, bouncing once with restitution ``e`` and
observed at ``T`` before it lands again. With ``t_c = sqrt(2 h / |g|)`` and
``tau = T - t_c`` the exact solution after the bounce is::

    x(T) = x_t + e |g| t_c tau - |g| tau^2 / 2

and its derivatives are::

    dx/dh   = (tau (1 + e) - e t_c) / t_c
    dx/d|g| = (e t_c tau + e t_c^2 - tau^2 - tau t_c) / 2
    dx/de   = |g| t_c tau

Every drop runs in one of two compiled programs per contact route, whatever its
step, length or parameters: ``DROP_BLOCK`` drops side by side under ``vmap``, each
``lax.scan`` ``STEP_CAPACITY`` steps long, a drop that has reached its own number of
steps holding its state.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from maddening.core.simulation.integrators import integrate_node
from maddening.errors import invalid
from maddening.nodes.ball import BallNode
from maddening.verification.mms import ManufacturedSolution, mms_ladder
from maddening.verification.order import OrderLadder

__all__ = [
    "BALL_MMS",
    "STEP_CAPACITY",
    "SweepRow",
    "bounce_sweep",
    "sweep_cases",
    "sweep_trajectories",
    "DropCase",
    "SEED_DROP",
    "drop_gradients",
    "drop_gradients_many",
    "drop_sensitivities",
    "exact_drop",
    "exact_drop_sensitivities",
    "ball_order_ladder",
    "mechanical_energy",
    "one_step_difference",
    "scheme_energy",
]

STEP_CAPACITY = 32768
"""The most steps one drop may take, the length of the compiled programs' scan (a drop over 3 s at 1e-4 s takes 30000)."""

DROP_BLOCK = 4
"""How many drops one run of a compiled program takes. A call runs its drops in blocks of this many, the
last block padded, so that every call, whatever its number of drops, uses the same program."""

BALL_MMS = ManufacturedSolution(
    name="x*(t) = 0.4 sin(2.5 t) + t + 2",
    state=lambda t: {
        "position": 0.4 * jnp.sin(2.5 * t) + t + 2.0,
        "velocity": jnp.cos(2.5 * t) + 1.0,
    },
    params=lambda t: {"gravity": -2.5 * jnp.sin(2.5 * t)},
)
"""The manufactured solution of MADD-VER-010; its acceleration enters as ``gravity``."""


def ball_order_ladder(
    steps: tuple[int, ...] = (100, 200, 400, 800),
    t_final: float = 1.0,
    *,
    locate_contact: bool = False,
    method: str | None = None,
    sample: float = 0.0,
) -> OrderLadder:
    """MADD-VER-010: the observed temporal order of BallNode over an MMS ladder, in float64.

    ``method=None`` steps with ``BallNode.update``; a method name steps with
    ``integrate_node(..., method=method)`` instead. No table is given, so the
    run stays in the collision-free regime the order claim covers. ``sample`` is
    where in each step the manufactured acceleration is sampled (0: the step's
    start, as MADD-VER-010 specifies; 0.5: its middle).
    """
    node = BallNode(locate_contact=locate_contact)
    stepper = None
    if method is not None:
        def stepper(n, s, b, dt, p):
            return integrate_node(n, s, b, dt, method=method, params=p)
    with jax.enable_x64(True):
        return mms_ladder(node, BALL_MMS, t_final, steps, stepper=stepper, sample=sample)


@dataclass(frozen=True)
class DropCase:
    """A drop from rest onto a table, observed at ``t_final`` during the first rebound.

    Attributes:
        height: Release height above the table ``h``, m.
        gravity: Magnitude of the acceleration ``|g|``, m/s^2.
        elasticity: Restitution ``e``.
        t_final: Observation time ``T``, s.
        dt: Time step, s (``t_final / dt`` must be a whole number of steps).
        table: Table height ``x_t``, m.
    """

    height: float = 1.0
    gravity: float = 9.81
    elasticity: float = 0.8
    t_final: float = 0.8
    dt: float = 1e-3
    table: float = 0.0

    @property
    def steps(self) -> int:
        """The number of steps, ``round(T / dt)``."""
        return int(round(self.t_final / self.dt))

    @property
    def contact_time(self) -> float:
        """The exact time of the bounce, ``sqrt(2 h / |g|)``."""
        return math.sqrt(2.0 * self.height / self.gravity)

    def with_(self, **changes: Any) -> "DropCase":
        """A copy with some fields changed."""
        return replace(self, **changes)


SEED_DROP = DropCase()
"""The drop of MADD-ANO-021 (``h = 1``, ``|g| = 9.81``, ``e = 0.8``, ``T = 0.8`` s, ``dt = 1e-3`` s, table at 0)."""


def _check_single_bounce(case: DropCase, where: str) -> None:
    tc = case.contact_time
    if not (tc < case.t_final < tc * (1.0 + 2.0 * case.elasticity)):
        raise invalid(
            "case", case,
            f"a drop observed after its one bounce and before the next landing, {tc:.6g} < T < {tc * (1 + 2 * case.elasticity):.6g} s",
            where=where,
        )


def exact_drop(case: DropCase = SEED_DROP) -> dict[str, float]:
    """The closed-form ``x(T)`` and its derivatives in ``h``, ``|g|`` and ``e`` (see the module docstring)."""
    _check_single_bounce(case, "exact_drop")
    g, e, tc = case.gravity, case.elasticity, case.contact_time
    tau = case.t_final - tc
    return {
        "x": case.table + e * g * tc * tau - g * tau * tau / 2.0,
        "dxdh": (tau * (1.0 + e) - e * tc) / tc,
        "dxdg": (e * tc * tau + e * tc * tc - tau * tau - tau * tc) / 2.0,
        "dxde": g * tc * tau,
    }


def exact_drop_sensitivities(times: Any, case: DropCase = SEED_DROP) -> dict[str, np.ndarray]:
    """The exact ``x(t)`` and its three derivatives at every time in ``times`` (up to the next landing)."""
    t = np.asarray(times, dtype=float)
    g, e, tc, h = case.gravity, case.elasticity, case.contact_time, case.height
    tau = t - tc
    before = t < tc
    return {
        "t": t,
        "x": np.where(before, case.table + h - g * t * t / 2, case.table + e * g * tc * tau - g * tau * tau / 2),
        "dxdh": np.where(before, 1.0, (tau * (1.0 + e) - e * tc) / tc),
        "dxdg": np.where(before, -t * t / 2, (e * tc * tau + e * tc * tc - tau * tau - tau * tc) / 2),
        "dxde": np.where(before, 0.0, g * tc * tau),
    }


# -- the compiled drops ------------------------------------------------------------------------------

def _drop(node: BallNode, h, g_abs, e, table, dt, steps):
    """One drop from rest, ``STEP_CAPACITY`` steps long, holding its state after ``steps``: every (x, v)."""
    state = {"position": h, "velocity": jnp.zeros_like(h)}
    params = {"gravity": -g_abs, "elasticity": e}
    inputs = {"table_position": table}

    def body(s, n):
        new = node.update(s, inputs, dt, params)
        live = n < steps
        s = {k: jnp.where(live, new[k], s[k]) for k in s}
        return s, (s["position"], s["velocity"])

    _, (xs, vs) = jax.lax.scan(body, state, jnp.arange(STEP_CAPACITY))
    return jnp.concatenate([h[None], xs]), jnp.concatenate([jnp.zeros_like(h)[None], vs])


@partial(jax.jit, static_argnames=("locate_contact",))
def _final_and_grad(h, g_abs, e, table, dt, steps, *, locate_contact):
    """Each drop's final position and its ``jax.grad`` in ``(h, |g|, e)``: reverse mode, as a user would take it."""
    node = BallNode(locate_contact=locate_contact)

    def one(h, g_abs, e, table, dt, steps):
        def final(h, g_abs, e):
            return _drop(node, h, g_abs, e, table, dt, steps)[0][-1]

        return jax.value_and_grad(final, argnums=(0, 1, 2))(h, g_abs, e)

    return jax.vmap(one)(h, g_abs, e, table, dt, steps)


@partial(jax.jit, static_argnames=("locate_contact",))
def _trajectories(h, g_abs, e, table, dt, steps, *, locate_contact):
    """Each drop's positions and velocities, and the positions' forward-mode derivatives in ``(h, |g|, e)``."""
    node = BallNode(locate_contact=locate_contact)

    def one(h, g_abs, e, table, dt, steps):
        def positions(p):
            xs, vs = _drop(node, p[0], p[1], p[2], table, dt, steps)
            return xs, (xs, vs)

        jacobian, (xs, vs) = jax.jacfwd(positions, has_aux=True)(jnp.stack([h, g_abs, e]))
        return xs, vs, jacobian

    return jax.vmap(one)(h, g_abs, e, table, dt, steps)


def _rows(cases: Sequence[DropCase], where: str):
    if isinstance(cases, DropCase) or not cases or not all(isinstance(c, DropCase) for c in cases):
        raise invalid("cases", cases, "a non-empty sequence of DropCase", where=where)
    for case in cases:
        if not 1 <= case.steps <= STEP_CAPACITY:
            raise invalid("case", case, f"a drop of 1 to STEP_CAPACITY = {STEP_CAPACITY} steps (t_final / dt)",
                          where=where)
    blocks = []
    for start in range(0, len(cases), DROP_BLOCK):
        block = list(cases[start:start + DROP_BLOCK])
        padded = block + [block[-1].with_(t_final=block[-1].dt)] * (DROP_BLOCK - len(block))  # one step, unread
        columns = zip(*((c.height, c.gravity, c.elasticity, c.table, c.dt) for c in padded))
        blocks.append((len(block), (*(jnp.asarray(col, dtype=jnp.float64) for col in columns),
                                    jnp.asarray([c.steps for c in padded]))))
    return blocks


def drop_gradients_many(cases: Sequence[DropCase], *, locate_contact: bool = False) -> list[dict[str, float]]:
    """``drop_gradients`` of every case: the same compiled program for any number of cases, steps and lengths."""
    out = []
    with jax.enable_x64(True):
        for count, args in _rows(cases, "drop_gradients_many"):
            x, (dh, dg, de) = _final_and_grad(*args, locate_contact=locate_contact)
            x, dh, dg, de = (np.asarray(a) for a in (x, dh, dg, de))
            out += [{"x": float(x[i]), "dxdh": float(dh[i]), "dxdg": float(dg[i]), "dxde": float(de[i])}
                    for i in range(count)]
    return out


def drop_gradients(case: DropCase = SEED_DROP, *, locate_contact: bool = False) -> dict[str, float]:
    """``x(T)`` of BallNode on ``case`` and its ``jax.grad`` in ``h``, ``|g|`` and ``e``, in float64."""
    return drop_gradients_many([case], locate_contact=locate_contact)[0]


def _sensitivities(cases: Sequence[DropCase], locate_contact: bool, where: str) -> list[dict[str, np.ndarray]]:
    out = []
    with jax.enable_x64(True):
        for count, args in _rows(cases, where):
            xs, vs, jac = (np.asarray(a) for a in _trajectories(*args, locate_contact=locate_contact))
            out += [(xs[i], vs[i], jac[i]) for i in range(count)]
    runs = []
    for case, (xs, vs, jac) in zip(cases, out):
        n = case.steps + 1
        runs.append({"t": np.arange(n) * case.dt, "x": xs[:n], "v": vs[:n],
                     "dxdh": jac[:n, 0], "dxdg": jac[:n, 1], "dxde": jac[:n, 2]})
    return runs


def sweep_trajectories(cases: Sequence[DropCase], *, locate_contact: bool = False) -> list[dict[str, np.ndarray]]:
    """``drop_sensitivities`` of every case, in one run of one compiled program."""
    return _sensitivities(cases, locate_contact, "sweep_trajectories")


def drop_sensitivities(case: DropCase = SEED_DROP, *, locate_contact: bool = False) -> dict[str, np.ndarray]:
    """The whole trajectory: times ``t``, ``x(t_n)``, ``v(t_n)`` and the forward-mode derivatives of ``x`` in ``h``, ``|g|``, ``e``."""
    return _sensitivities([case], locate_contact, "drop_sensitivities")[0]


def one_step_difference(
    position: float = 1.0, velocity: float = 0.0, dt: float = 1e-3, table: float | None = None
) -> dict[str, float]:
    """MADD-ANO-011: one step of ``update()`` against ``integrate_node(method="euler")``, in float64.

    Returns both new positions and velocities and their differences.
    """
    node = BallNode(initial_position=position, initial_velocity=velocity)
    inputs = {} if table is None else {"table_position": table}
    with jax.enable_x64(True):
        state = node.initial_state(jnp.float64)
        own = node.update(state, inputs, dt)
        euler = integrate_node(node, state, inputs, dt, method="euler")
        return {
            "update_position": float(own["position"]),
            "update_velocity": float(own["velocity"]),
            "euler_position": float(euler["position"]),
            "euler_velocity": float(euler["velocity"]),
            "position_difference": float(own["position"] - euler["position"]),
            "velocity_difference": float(own["velocity"] - euler["velocity"]),
        }


def mechanical_energy(position: Any, velocity: Any, gravity: float = -9.81, table: float = 0.0) -> Any:
    """Mechanical energy per unit mass above the table, ``v^2/2 - g (x - x_t)`` (J/kg).

    Exact free flight under constant ``g`` conserves it; the located-contact step
    moves exactly so, and a contact multiplies it by ``e^2`` (or zeroes it).
    """
    return 0.5 * velocity * velocity - gravity * (position - table)


def scheme_energy(position: Any, velocity: Any, dt: float, gravity: float = -9.81, table: float = 0.0) -> Any:
    """The energy the per-step (semi-implicit Euler) flight conserves exactly, J/kg.

    For ``v' = v + g dt, x' = x + dt v'`` the quantity
    ``v^2/2 - g (x - x_t) + g dt v / 2`` is the same before and after every free
    step; it differs from the mechanical energy by ``g dt v / 2``.
    """
    return mechanical_energy(position, velocity, gravity, table) + 0.5 * gravity * dt * velocity


@dataclass(frozen=True)
class SweepRow:
    """One run of the validated-regime sweep: a drop from ``height`` at rest onto a table at 0.

    Attributes:
        route: ``"per-step"`` or ``"located"``.
        elasticity: Restitution ``e``.
        dt: Time step, s.
        bounce_ratio: Highest grid position of the first rebound over the release height.
        sampling_bound: ``|g| dt^2 / (8 h)``, the most a grid maximum can miss an apex by.
        rise_falling: Largest one-step rise of the route's conserved energy over steps that
            start falling, relative to the initial energy.
        rise_any: The same over every step.
    """

    route: str
    elasticity: float
    dt: float
    bounce_ratio: float
    sampling_bound: float
    rise_falling: float
    rise_any: float


def sweep_cases(
    elasticities: tuple[float, ...] = (0.0, 0.5, 1.0),
    dts: tuple[float, ...] = (1e-4, 1e-3, 1e-2, 1e-1),
    *,
    height: float = 1.0,
    gravity: float = -9.81,
    t_final: float = 3.0,
) -> list[DropCase]:
    """The drops of ``bounce_sweep``, step by step: every elasticity for each step, in that order."""
    return [DropCase(height=height, gravity=-gravity, elasticity=e, t_final=t_final, dt=dt)
            for dt in dts for e in elasticities]


def bounce_sweep(
    elasticities: tuple[float, ...] = (0.0, 0.5, 1.0),
    dts: tuple[float, ...] = (1e-4, 1e-3, 1e-2, 1e-1),
    *,
    height: float = 1.0,
    gravity: float = -9.81,
    t_final: float = 3.0,
) -> list[SweepRow]:
    """Drop a ball for every ``(route, e, dt)`` and measure its first bounce and its energy, in float64.

    All the drops of a route run in one compiled program (``drop_sensitivities``'s).
    """
    cases = sweep_cases(elasticities, dts, height=height, gravity=gravity, t_final=t_final)
    rows = []
    for locate in (False, True):
        for case, run in zip(cases, _sensitivities(cases, locate, "bounce_sweep")):
            e, dt, x, v = case.elasticity, case.dt, run["x"], run["v"]
            energy = mechanical_energy(x, v, gravity) if locate else scheme_energy(x, v, dt, gravity)
            rise = np.diff(energy) / energy[0]
            falling = v[:-1] <= 0
            bounces = np.nonzero((v[:-1] < 0) & (v[1:] >= 0))[0]
            first = bounces[0] + 1
            end = bounces[1] + 1 if len(bounces) > 1 else len(x)
            rows.append(
                SweepRow(
                    route="located" if locate else "per-step",
                    elasticity=float(e),
                    dt=float(dt),
                    bounce_ratio=float(x[first:end].max() / height),
                    sampling_bound=abs(gravity) * dt * dt / (8.0 * height),
                    rise_falling=float(max(rise[falling].max(), 0.0)),
                    rise_any=float(max(rise.max(), 0.0)),
                )
            )
    return rows
