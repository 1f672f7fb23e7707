"""``PlanarBarNode``: a rigid bar that translates vertically and rocks, on penalty supports.

Coordinates: the height ``y`` (m) of the bar's support line above a fixed floor at
height 0, and its rotation ``theta`` (rad, positive raising the ``+r`` end). A
support at horizontal offset ``r_i`` (m, along the bar) sits at world
``(r_i cos theta, r_i sin theta + y)``, so its gap and gap rate are::

    g_i = y + r_i sin(theta),       dg_i/dt = dy/dt + r_i cos(theta) dtheta/dt

Each support is a penalty spring of the contact's penalty rung
(``mime.interactions._penalty``): a normal force ``f_i`` that is ``k_i`` times
the overlap, with an optional dashpot, zero while the gap is open. The forces are
summed into the bar's applied wrench about its centre (a 3-D wrench whose
vertical force and rocking torque the bar reads), and::

    m y''     = sum_i f_i + m g - P + F_ext
    I theta'' = sum_i f_i r_i cos(theta) + tau_ext

with ``g`` the gravitational acceleration (negative is down) and ``P`` a preload
pressing the bar down (N). At ``theta = 0`` the gap Jacobian is ``J = [[1, r_i]]``
and the mass matrix ``diag(m, I)``: :meth:`PlanarBarNode.frozen_modes` hands them
to ``maddening.analysis.contact_modes``.

The same bar is expressible as a MIME experiment: :func:`mime.penalty_bar.bar_experiment` builds a
``RigidInertialNode`` whose hull is the support points (a ``PointSet``) and attaches
``Contact.Penalty`` to it against a floor, so the contact entry's penalty rung
(not this module's own springs) carries the bar. Its rigid-body step is
semi-implicit Euler, whose positions obey the same recurrence as central
differences, ``x_{n+1} - 2 x_n + x_{n-1} = h^2 a(x_n)``.

>>> import jax
>>> bar = PlanarBarNode(supports=(-0.1, 0.1), stiffness=1e5, mass=2.0, inertia=0.005)
>>> with jax.enable_x64(True):
...     rest = bar.equilibrium()
...     rates = bar.derivatives(rest, None)
>>> round(float(rest["y"]) * 1e6, 3), abs(float(rates["y_rate"])) < 1e-9
(-98.1, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from maddening.core import (
    BoundaryInputField,
    ChangelogEntry,
    DiscretizationOrder,
    Node,
    NodeMeta,
    ParamField,
    Stability,
    StateField,
)
from mime._compile import jit
from mime.errors import ValidationError, finite_number, whole_number, invalid
from mime.interactions._penalty import penalty_forces, penalty_wrench

__all__ = ["PlanarBarNode", "FlatFloor", "run_bar"]


class FlatFloor:
    """The floor ``z = 0`` facing up, as the penalty functions read a surface (traceable)."""

    def distance_and_normal(self, x: Any) -> tuple[Any, Any]:
        x = jnp.asarray(x)
        n = jnp.zeros(x.shape, x.dtype).at[..., 2].set(1.0)
        return x[..., 2], n


def _per_support(name: str, value: Any, n: int, allowed: str, *, positive: bool) -> tuple[float, ...]:
    try:
        array = np.broadcast_to(np.asarray(value, dtype=np.float64), (n,))
    except (TypeError, ValueError):
        raise invalid(name, value, f"{allowed}", where="PlanarBarNode") from None
    bad = ~np.isfinite(array) | ((array <= 0) if positive else (array < 0))
    if isinstance(value, bool) or np.any(bad):
        raise invalid(name, value, f"{allowed}", where="PlanarBarNode")
    return tuple(float(v) for v in array)


class PlanarBarNode(Node):
    """A planar rigid bar on two or more penalty supports (vertical translation and rocking).

    Args:
        supports: Horizontal offsets ``r_i`` of the supports from the centre, m (at least two).
        stiffness: Penalty stiffness ``k_i``, N/m (> 0): one number or one per support.
        damping: Penalty damping ``c_i``, N s/m (>= 0): one number or one per support.
        mass: ``m``, kg. inertia: ``I`` about the centre, kg m^2.
        gravity: ``g``, m/s^2 (negative is down). preload: ``P``, N, pressing the bar down.
        y, theta, y_rate, theta_rate: The initial state (m, rad, m/s, rad/s).
    """

    meta: ClassVar[NodeMeta] = NodeMeta(
        algorithm_id="MIME-NODE-020",
        version="0.1.0",
        stability=Stability.EXPERIMENTAL,
        discretization="any maddening integrator (integrate_node); the note uses central differences",
        order=DiscretizationOrder(spatial=None, temporal=None),
        assumptions=(
            "A rigid bar in a vertical plane; its centre does not move horizontally (the supports are frictionless).",
            "Each support is a point of the bar and a linear penalty spring (optionally with a dashpot) against a flat, fixed floor.",
            "A support pushes only while its gap is closed and never pulls.",
        ),
        changelog=(ChangelogEntry("0.1.0", "2026-12-05", "The contact-mode note's penalty bar."),),
    )
    state_fields: ClassVar[tuple[StateField, ...]] = (
        StateField("y", (), "m", "height of the support line above the floor (negative: pressed in)"),
        StateField("theta", (), "rad", "rotation, positive raising the +r end"),
        StateField("y_rate", (), "m/s", "dy/dt", rate_of="y"),
        StateField("theta_rate", (), "rad/s", "dtheta/dt", rate_of="theta"),
    )
    param_fields: ClassVar[tuple[ParamField, ...]] = (
        ParamField("mass", 2.0, "kg", "the bar's mass", low=0.0),
        ParamField("inertia", 0.005, "kg m^2", "moment of inertia about the centre", low=0.0),
        ParamField("gravity", -9.81, "m/s^2", "gravitational acceleration (negative is down)"),
        ParamField("preload", 0.0, "N", "a downward force pressing the bar onto its supports", low=0.0),
    )
    boundary_input_fields: ClassVar[tuple[BoundaryInputField, ...]] = (
        BoundaryInputField("force", (), "N", "a further vertical force at the centre (up is positive)"),
        BoundaryInputField("torque", (), "N m", "a further torque about the centre (positive raises +r)"),
    )

    def __init__(self, supports: Sequence[float] = (-0.1, 0.1), stiffness: Any = 1e5, damping: Any = 0.0, *,
                 mass: float = 2.0, inertia: float = 0.005, gravity: float = -9.81, preload: float = 0.0,
                 y: float = 0.0, theta: float = 0.0, y_rate: float = 0.0, theta_rate: float = 0.0) -> None:
        try:
            offsets = np.asarray(supports, dtype=np.float64)
        except (TypeError, ValueError):
            offsets = None
        if offsets is None or offsets.ndim != 1 or offsets.size < 2 or not np.all(np.isfinite(offsets)):
            raise invalid("supports", supports, "at least two finite offsets (m)", where="PlanarBarNode")
        n = offsets.size
        self.supports = tuple(float(r) for r in offsets)
        self.stiffness = _per_support("stiffness", stiffness, n, f"a stiffness > 0 (N/m), one or {n}", positive=True)
        self.damping = _per_support("damping", damping, n, f"a damping >= 0 (N s/m), one or {n}", positive=False)
        for name, value in (("mass", mass), ("inertia", inertia)):
            finite_number(value, name, "a number > 0", where="PlanarBarNode", above=0)
        super().__init__(mass=mass, inertia=inertia, gravity=gravity, preload=preload)
        start = {"y": y, "theta": theta, "y_rate": y_rate, "theta_rate": theta_rate}
        for name, value in start.items():
            finite_number(value, name, "a finite number", where="PlanarBarNode")
        self.start = {k: float(v) for k, v in start.items()}

    # -- geometry ---------------------------------------------------------------------------
    def _arrays(self, dtype: Any) -> tuple[Any, Any, Any]:
        return (jnp.asarray(self.supports, dtype), jnp.asarray(self.stiffness, dtype), jnp.asarray(self.damping, dtype))

    def support_points(self, state: Mapping[str, Any]) -> tuple[Any, Any]:
        """World positions and velocities of the supports, ``(n, 3)`` each (the bar lies in x-z)."""
        y, th = jnp.asarray(state["y"]), jnp.asarray(state["theta"])
        r, _, _ = self._arrays(y.dtype)
        c, s = jnp.cos(th), jnp.sin(th)
        zero = jnp.zeros_like(r)
        points = jnp.stack([r * c, zero, y + r * s], axis=-1)
        vels = jnp.stack([-r * s * state["theta_rate"], zero, state["y_rate"] + r * c * state["theta_rate"]], axis=-1)
        return points, vels

    def gaps(self, state: Mapping[str, Any]) -> Any:
        """The support gaps ``g_i = y + r_i sin(theta)``, m (negative: pressed in)."""
        return self.support_points(state)[0][..., 2]

    def support_forces(self, state: Mapping[str, Any]) -> Any:
        """The penalty normal force at each support, N."""
        points, vels = self.support_points(state)
        _, k, c = self._arrays(points.dtype)
        return penalty_forces(points, vels, FlatFloor(), k, c)[1]

    def wrench(self, state: Mapping[str, Any]) -> tuple[Any, Any]:
        """The supports' vertical force (N) and rocking torque (N m) on the bar, from the 3-D penalty wrench."""
        points, vels = self.support_points(state)
        _, k, c = self._arrays(points.dtype)
        center = jnp.stack([jnp.zeros_like(state["y"]), jnp.zeros_like(state["y"]), jnp.asarray(state["y"])])
        F, tau = penalty_wrench(points, vels, center, FlatFloor(), k, c)
        return F[2], -tau[1]  # rotation positive raising +x is about -y

    # -- the frozen modes ---------------------------------------------------------------------
    def jacobian(self) -> np.ndarray:
        """The gap Jacobian at ``theta = 0``: row ``i`` is ``(1, r_i)`` (m per m, m per rad)."""
        return np.stack([np.ones(len(self.supports)), np.asarray(self.supports)], axis=1)

    def mass_matrix(self) -> np.ndarray:
        """``diag(m, I)`` (kg, kg m^2)."""
        return np.diag([float(self.params["mass"]), float(self.params["inertia"])])

    def frozen_modes(self) -> Any:
        """``maddening.analysis.contact_modes.coupled_modes`` of the supports at ``theta = 0``."""
        from maddening.analysis import coupled_modes

        return coupled_modes(self.jacobian(), self.mass_matrix(), self.stiffness)

    def equilibrium(self) -> dict[str, Any]:
        """The level rest state with every support compressed (solved for the linear springs), float64.

        Raises ``ValidationError`` if the supports cannot hold the load level and compressed.
        """
        m, g, P = (float(self.params[k]) for k in ("mass", "gravity", "preload"))
        load = -(m * g) + P  # downward load the supports must carry
        r, k = np.asarray(self.supports), np.asarray(self.stiffness)
        # sum k_i (-y - r_i th) = load, sum k_i r_i (-y - r_i th) = 0
        A = np.array([[k.sum(), (k * r).sum()], [(k * r).sum(), (k * r * r).sum()]])
        y, th = -np.linalg.solve(A, np.array([load, 0.0]))
        gaps = y + r * th
        if load <= 0 or np.any(gaps >= 0):
            raise invalid("load", load, "a downward load (N) that keeps every support compressed",
                          where="PlanarBarNode.equilibrium")
        # NumPy float64, not jnp: outside an x64 context jnp would round the rest state to float32
        return {"y": np.float64(y), "theta": np.float64(th), "y_rate": np.float64(0.0), "theta_rate": np.float64(0.0)}

    # -- maddening's node interface -------------------------------------------------------------
    def initial_state(self) -> dict[str, Any]:
        return {k: jnp.asarray(v) for k, v in self.start.items()}

    def derivatives(self, state: Mapping[str, Any], boundary_inputs: Mapping[str, Any] | None,
                    params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        bi = self.check_boundary_inputs(boundary_inputs)
        p = self.resolve_params(params)
        F, tau = self.wrench(state)
        F = F + p["mass"] * p["gravity"] - p["preload"] + bi.get("force", 0.0)
        tau = tau + bi.get("torque", 0.0)
        return {
            "y": jnp.asarray(state["y_rate"]),
            "theta": jnp.asarray(state["theta_rate"]),
            "y_rate": F / p["mass"],
            "theta_rate": tau / p["inertia"],
        }

    def update(self, state: Mapping[str, Any], boundary_inputs: Mapping[str, Any] | None, dt: float,
               params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """One central-difference step (``integrate_node(..., method="central_difference")``)."""
        from maddening.core.simulation.integrators import integrate_node

        return integrate_node(self, state, boundary_inputs, dt, method="central_difference", params=params)

    def __repr__(self) -> str:
        return (f"PlanarBarNode(supports={self.supports!r}, stiffness={self.stiffness!r}, "
                f"damping={self.damping!r}, mass={self.params['mass']!r}, inertia={self.params['inertia']!r})")


def run_bar(bar: PlanarBarNode, dt: float, steps: int, *, method: str = "central_difference",
            state0: Mapping[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Run ``bar`` for ``steps`` steps of ``dt`` s under one ``lax.scan``, in float64.

    Returns NumPy arrays over ``steps + 1`` instants (the start included): ``time``
    (s), the state fields, ``gaps`` ``(steps + 1, n)`` (m) and ``forces``
    ``(steps + 1, n)`` (N).
    """
    from maddening.core.simulation.integrators import METHODS, integrate_node

    if method not in METHODS:
        raise invalid("method", method, f"one of {sorted(METHODS)}", where="run_bar")
    finite_number(dt, "dt", "a finite time step > 0 (s)", where="run_bar", above=0)
    whole_number(steps, "steps", "a whole number >= 1", where="run_bar")
    with jax.enable_x64(True):
        start = bar.initial_state() if state0 is None else {k: jnp.asarray(v, jnp.float64) for k, v in state0.items()}
        bar.check_state(start)
        states = _scan(bar, method, steps)(start, jnp.asarray(dt, jnp.float64))
        out = {k: np.asarray(v) for k, v in states.items()}
        out["gaps"] = np.asarray(jax.vmap(bar.gaps)(states))
        out["forces"] = np.asarray(jax.vmap(bar.support_forces)(states))
    out["time"] = dt * np.arange(steps + 1, dtype=np.float64)
    return out


_SCANS: dict[tuple, Any] = {}


def _scan(bar: PlanarBarNode, method: str, steps: int) -> Any:
    from maddening.core.simulation.integrators import integrate_node

    key = (id(bar), method, steps)
    if key not in _SCANS:
        def run(state: Any, dt: Any) -> Any:
            def body(s: Any, _: Any) -> tuple[Any, Any]:
                new = integrate_node(bar, s, None, dt, method=method)
                return new, new

            _, states = jax.lax.scan(body, state, None, length=steps)
            return {k: jnp.concatenate([state[k][None], states[k]]) for k in state}

        _SCANS[key] = (bar, jit(run))
    return _SCANS[key][1]
