"""A one-degree-of-freedom linear oscillator, the probe the stability analysis steps.

Equations (position ``x`` in m, velocity ``v`` in m/s, angular frequency ``omega`` in
rad/s, damping ratio ``zeta``)::

    dx/dt = v,    dv/dt = -omega^2 x - 2 zeta omega v

Its own ``update`` is one step of the integrator named by ``method`` (central
differences by default): the node exists so that the analysis applies the real
integrators to it, not to be simulated for its own sake.

>>> import jax
>>> with jax.enable_x64(True):
...     node = OscillatorNode(omega=2.0)
...     rates = node.derivatives({"position": 1.0, "velocity": 0.5}, None)
>>> [float(rates["position"]), float(rates["velocity"])]
[0.5, -4.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax.numpy as jnp

from maddening.core import (
    ChangelogEntry,
    DiscretizationOrder,
    Node,
    NodeMeta,
    ParamField,
    Reference,
    Stability,
    StateField,
)

__all__ = ["OscillatorNode", "oscillator_series"]


class OscillatorNode(Node):
    """The linear oscillator ``x'' + 2 zeta omega x' + omega^2 x = 0``.

    Args:
        omega: Undamped angular frequency, rad/s (> 0).
        zeta: Damping ratio (>= 0; 0 is undamped).
        initial_position: ``x(0)``, m.
        initial_velocity: ``v(0)``, m/s.
        method: The integrator ``update`` applies (a name in ``METHODS``).
    """

    meta: ClassVar[NodeMeta] = NodeMeta(
        algorithm_id="MADD-NODE-900",
        version="0.1.0",
        stability=Stability.EXPERIMENTAL,
        discretization="any registered integrator (central differences by default)",
        order=DiscretizationOrder(spatial=None, temporal=None),
        assumptions=("A linear spring and a linear dashpot on one degree of freedom.",),
        references=(Reference("Hairer2006", "the linear test equation of one-step methods"),),
        changelog=(ChangelogEntry("0.1.0", "2026-12-05", "The stability analysis's probe."),),
    )
    state_fields: ClassVar[tuple[StateField, ...]] = (
        StateField("position", (), "m", "displacement from rest"),
        StateField("velocity", (), "m/s", "its rate", rate_of="position"),
    )
    param_fields: ClassVar[tuple[ParamField, ...]] = (
        ParamField("omega", 1.0, "rad/s", "undamped angular frequency", low=0.0),
        ParamField("zeta", 0.0, "", "damping ratio", low=0.0),
        ParamField("initial_position", 1.0, "m", "x(0)"),
        ParamField("initial_velocity", 0.0, "m/s", "v(0)"),
    )

    def __init__(self, omega: float = 1.0, zeta: float = 0.0, initial_position: float = 1.0,
                 initial_velocity: float = 0.0, *, method: str = "central_difference") -> None:
        from maddening.core.simulation.integrators import METHODS
        from maddening.errors import invalid

        if method not in METHODS:
            raise invalid("method", method, f"one of {sorted(METHODS)}", where="OscillatorNode")
        self.method = method
        super().__init__(omega=omega, zeta=zeta, initial_position=initial_position,
                         initial_velocity=initial_velocity)

    def initial_state(self) -> dict[str, Any]:
        return {"position": jnp.asarray(self.params["initial_position"]),
                "velocity": jnp.asarray(self.params["initial_velocity"])}

    def derivatives(self, state: Mapping[str, Any], boundary_inputs: Mapping[str, Any] | None,
                    params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        p = self.resolve_params(params)
        x, v = jnp.asarray(state["position"]), jnp.asarray(state["velocity"])
        w = p["omega"]
        return {"position": v, "velocity": -(w * w) * x - 2.0 * p["zeta"] * w * v}

    def update(self, state: Mapping[str, Any], boundary_inputs: Mapping[str, Any] | None, dt: float,
               params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        from maddening.core.simulation.integrators import integrate_node

        return integrate_node(self, state, boundary_inputs, dt, method=self.method, params=params)


_RUNS: dict[tuple[str, int], Any] = {}


def oscillator_series(method: str, omega: float, h: float, steps: int, *, zeta: float = 0.0,
                      position: float = 1.0, velocity: float = 0.0) -> dict[str, Any]:
    """Simulate the oscillator with ``method`` for ``steps`` steps of ``h`` s (float64, one ``lax.scan``).

    Returns NumPy arrays over ``steps + 1`` instants, the start included:
    ``time`` (s), ``position`` (m), ``velocity`` (m/s).

    >>> out = oscillator_series("trapezoidal", 1.0, 0.5, 4)
    >>> [round(float(x), 6) for x in out["position"][:3]]
    [1.0, 0.882353, 0.557093]
    """
    import jax
    import numpy as np

    from maddening.core.simulation.integrators import METHODS, integrate_node
    from maddening.errors import invalid, whole_number

    if method not in METHODS:
        raise invalid("method", method, f"one of {sorted(METHODS)}", where="oscillator_series")
    whole_number(steps, "steps", "a whole number >= 1", where="oscillator_series")
    node = OscillatorNode(omega=omega, zeta=zeta, initial_position=position, initial_velocity=velocity, method=method)
    key = (method, steps)
    if key not in _RUNS:
        probe = OscillatorNode(method=method)

        def run(state: Any, dt: Any, p: Any) -> Any:
            def body(s: Any, _: Any) -> tuple[Any, Any]:
                new = integrate_node(probe, s, None, dt, method=method, params=p)
                return new, new

            _, out = jax.lax.scan(body, state, None, length=steps)
            return {k: jnp.concatenate([state[k][None], out[k]]) for k in state}

        _RUNS[key] = jax.jit(run)
    with jax.enable_x64(True):
        from maddening.core import check_timestep

        check_timestep(h, where="oscillator_series")
        p = {"omega": jnp.asarray(float(node.params["omega"])), "zeta": jnp.asarray(float(node.params["zeta"]))}
        start = {k: jnp.asarray(float(v), jnp.float64) for k, v in node.initial_state().items()}
        out = {k: np.asarray(v) for k, v in _RUNS[key](start, jnp.asarray(float(h)), p).items()}
    out["time"] = float(h) * np.arange(steps + 1, dtype=np.float64)
    return out
