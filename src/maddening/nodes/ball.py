"""BallNode (MADD-NODE-001): a point mass falling under gravity onto an optional table.

Equations (one vertical degree of freedom, position ``x`` in m, velocity ``v``
in m/s, gravity ``g`` in m/s^2, restitution ``e``)::

    dv/dt = g,   dx/dt = v,
    at contact (x below the table x_t):  x <- x_t,  v <- -e v
    (v <- 0 instead when the incoming speed |v| is at most 1e-4 m/s).

The default step is semi-implicit (symplectic) Euler, with contact resolved once
per step after the motion::

    v' = v + g dt,   x' = x + v' dt,   then if x' < x_t:  x' = x_t,  v' = -e v'

With ``locate_contact=True`` the node instead moves exactly under the step's
constant acceleration, ``x(s) = x + v s + g s^2 / 2``, finds the first time ``s``
in the step at which this reaches the table (a root of the quadratic), applies
the same restitution and threshold there and completes the step from the
table. The contact time then depends smoothly on the state and parameters, so
``jax.grad`` sees it.

>>> import jax.numpy as jnp
>>> ball = BallNode(initial_position=0.001, initial_velocity=-1.0)
>>> out = ball.update(ball.initial_state(), {"table_position": 0.0}, 0.01)
>>> [round(float(out["position"]), 6), round(float(out["velocity"]), 4)]
[0.0, 0.8785]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np

from maddening.core import (
    BoundaryInputField,
    ChangelogEntry,
    DiscretizationOrder,
    Node,
    NodeMeta,
    ParamField,
    Reference,
    Stability,
    StateField,
    ValidatedRegime,
    as_state_dtype,
    check_timestep,
)
from maddening.errors import invalid

__all__ = ["BallNode"]


class BallNode(Node):
    """A point mass in free fall that bounces off an optional table.

    Args:
        initial_position: Starting height ``x(0)``, m.
        initial_velocity: Starting velocity ``v(0)``, m/s (positive is up).
        elasticity: Coefficient of restitution ``e`` (dimensionless, >= 0).
        gravity: Acceleration ``g``, m/s^2 (negative is down).
        locate_contact: ``False`` (default) resolves contact once per step at
            the step's end, as specified; ``True`` locates the contact time
            inside the step exactly for constant acceleration.

    Raises:
        maddening.ValidationError: A parameter outside its allowed range, or a
            ``locate_contact`` that is not a bool.
    """

    CONTACT_SPEED_THRESHOLD: ClassVar[float] = 1e-4
    """Incoming speed (m/s) at or below which a contact zeroes the velocity instead of bouncing."""

    meta: ClassVar[NodeMeta] = NodeMeta(
        algorithm_id="MADD-NODE-001",
        version="1.1.0",
        stability=Stability.STABLE,
        discretization="forward Euler",
        order=DiscretizationOrder(spatial=None, temporal=1.0),
        assumptions=(
            "The ball is a point mass: it has no size and does not rotate.",
            "The table is perfectly rigid and does not move during a step.",
            "The coefficient of restitution is a constant, independent of the impact speed.",
            "Motion is along one vertical axis only.",
            "There is no air resistance or drag.",
        ),
        validated_regimes=(
            ValidatedRegime("elasticity", 0.0, 1.0, "", "0 is a perfectly inelastic impact, 1 a perfectly elastic one"),
            ValidatedRegime("timestep", 1e-4, 1e-1, "s", "the range checked; a smaller step is more accurate"),
        ),
        references=(
            Reference("Hairer2006", "order and structure preservation of the symplectic Euler step (chapter VI)"),
            Reference("LeVeque2007", "convergence of one-step methods for ODEs"),
            Reference("Roache2002", "the method of manufactured solutions behind MADD-VER-010"),
        ),
        changelog=(
            ChangelogEntry("1.0.0", "2025-03-01", "First implementation."),
            ChangelogEntry(
                "1.0.0", "2026-09-20",
                "Order of accuracy declared and measured (MADD-VER-010); MADD-ANO-011 recorded.",
            ),
            ChangelogEntry(
                "1.1.0", "2026-12-02",
                "Optional located contact (locate_contact=True), the route MADD-ANO-021 names; "
                "the default step is unchanged bit for bit.",
            ),
        ),
    )

    state_fields: ClassVar[tuple[StateField, ...]] = (
        StateField("position", (), "m", "Height of the ball"),
        StateField("velocity", (), "m/s", "Vertical velocity (positive is up)", rate_of="position"),
    )
    param_fields: ClassVar[tuple[ParamField, ...]] = (
        ParamField("initial_position", 0.0, "m", "Starting height"),
        ParamField("initial_velocity", 0.0, "m/s", "Starting velocity"),
        ParamField("elasticity", 0.8, "", "Coefficient of restitution e", low=0.0),
        ParamField("gravity", -9.81, "m/s^2", "Gravitational acceleration (negative is down)"),
    )
    boundary_input_fields: ClassVar[tuple[BoundaryInputField, ...]] = (
        BoundaryInputField(
            "table_position", (), "m",
            "Height of the collision surface; without it there is no contact at all",
        ),
    )
    """The one boundary input ``table_position`` (m), the height of the table, a half-space below which the ball may not go."""

    def __init__(
        self,
        initial_position: float = 0.0,
        initial_velocity: float = 0.0,
        elasticity: float = 0.8,
        gravity: float = -9.81,
        *,
        locate_contact: bool = False,
    ) -> None:
        if not isinstance(locate_contact, bool):
            raise invalid("locate_contact", locate_contact, "True or False", where="BallNode")
        self.locate_contact = locate_contact
        super().__init__(
            initial_position=initial_position,
            initial_velocity=initial_velocity,
            elasticity=elasticity,
            gravity=gravity,
        )

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"BallNode({inner}, locate_contact={self.locate_contact})"

    def initial_state(self, dtype: Any = None) -> dict[str, Any]:
        """The state at time zero, from ``initial_position`` and ``initial_velocity``.

        Args:
            dtype: The floating dtype of the state (default: JAX's default float).

        Raises:
            maddening.ValidationError: ``dtype`` is not a floating dtype (the node's update
                refuses any other state).
        """
        if dtype is not None:
            try:
                floating = np.dtype(dtype).kind == "f"
            except TypeError:
                floating = False
            if not floating:
                raise invalid("dtype", dtype, "None or a floating dtype (float32, float64)",
                              where="BallNode.initial_state")
        return {
            "position": jnp.asarray(self.params["initial_position"], dtype=dtype),
            "velocity": jnp.asarray(self.params["initial_velocity"], dtype=dtype),
        }

    def derivatives(
        self,
        state: Mapping[str, Any],
        boundary_inputs: Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The collision-free right-hand side ``(dx/dt, dv/dt) = (v, g)``.

        It never reads ``table_position`` or ``elasticity``: an integrator driven by
        it passes through the table. ``gravity`` comes from
        ``{**self.params, **params}``, in the velocity's dtype.
        """
        self.check_state(state, values=True)  # concrete values only: a traced one passes
        self.check_boundary_inputs(boundary_inputs, values=True)
        p = self.resolve_params(params)
        v = jnp.asarray(state["velocity"])
        return {"position": v, "velocity": jnp.broadcast_to(as_state_dtype(p["gravity"], v), jnp.shape(v))}

    def update(
        self,
        state: Mapping[str, Any],
        boundary_inputs: Mapping[str, Any] | None,
        dt: Any,
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Advance one step of ``dt`` seconds, resolving contact with the table if given.

        Parameters come from ``{**self.params, **params}``; every injected value is
        used in the state's dtype. The step is branch-free (``jnp.where``), so it
        traces under ``jit``, ``grad``, ``vmap`` and ``lax.scan``.

        Concrete inputs are checked before the step: each state entry must be a
        finite floating-point scalar, ``table_position`` a finite real scalar, and each injected
        parameter a value its ``ParamField`` allows (so ``gravity`` finite,
        ``elasticity`` >= 0); anything else raises ``maddening.ValidationError``
        naming it. Traced values (inside a compiled step) are not inspected.
        """
        self.check_state(state, values=True)
        inputs = self.check_boundary_inputs(boundary_inputs, values=True)
        check_timestep(dt, where="BallNode.update")
        p = self.resolve_params(params)
        x = jnp.asarray(state["position"])
        v = jnp.asarray(state["velocity"])
        g = as_state_dtype(p["gravity"], v)
        e = as_state_dtype(p["elasticity"], v)
        h = as_state_dtype(dt, v)
        table = inputs.get("table_position")
        if self.locate_contact:
            return self._located_step(x, v, g, e, h, None if table is None else as_state_dtype(table, x))
        v_new = v + g * h
        x_new = x + v_new * h
        if table is None:
            return {"position": x_new, "velocity": v_new}
        table = as_state_dtype(table, x)
        hit = x_new < table
        slow = jnp.abs(v_new) <= self.CONTACT_SPEED_THRESHOLD
        bounced = jnp.where(slow, jnp.zeros_like(v_new), -e * v_new)
        return {
            "position": jnp.where(hit, table, x_new),
            "velocity": jnp.where(hit, bounced, v_new),
        }

    # -- located contact ------------------------------------------------------------
    def _reflect(self, v_in: Any, e: Any) -> Any:
        slow = jnp.abs(v_in) <= self.CONTACT_SPEED_THRESHOLD
        return jnp.where(v_in <= 0, jnp.where(slow, jnp.zeros_like(v_in), -e * v_in), v_in)

    def _located_step(self, x: Any, v: Any, g: Any, e: Any, h: Any, table: Any) -> dict[str, Any]:
        """Exact constant-acceleration motion over the step, with the contact time located.

        The first downward crossing of ``x + v s + g s^2/2 = table`` is
        ``s = 2 d / (-v + sqrt(v^2 - 2 g d))`` (``d = x - table``) while falling and
        ``s = (-v - sqrt(v^2 - 2 g d)) / g`` while rising. Every division and square
        root sees a safe operand in the branch not taken, so gradients stay finite.
        If the rebound would cross the table again within the same step, the ball
        is left at rest on the table.
        """
        v_free = v + g * h
        x_free = x + h * (v + v_free) / 2
        if table is None:
            return {"position": x_free, "velocity": v_free}
        d = x - table
        disc = v * v - 2 * g * d
        positive = disc > 0
        root = jnp.where(positive, jnp.sqrt(jnp.where(positive, disc, 1.0)), 0.0)
        falling = v <= 0
        den_fall = -v + root
        fall_ok = falling & ((den_fall > 0) | (d == 0))
        s_fall = 2 * d / jnp.where(den_fall > 0, den_fall, 1.0)
        rise_ok = (~falling) & (g < 0) & (disc >= 0)
        s_rise = (-v - root) / jnp.where(rise_ok, g, -1.0)
        s = jnp.where(falling, s_fall, s_rise)
        located = jnp.where(falling, fall_ok, rise_ok) & (d >= 0) & (s >= 0) & (s <= h)
        below = d < 0
        contact = located | below
        s = jnp.where(located, s, jnp.zeros_like(s))
        v_out = self._reflect(v + g * s, e)
        r = h - s
        x_after = table + v_out * r + g * r * r / 2
        v_after = v_out + g * r
        again = x_after < table
        x_after = jnp.where(again, table, x_after)
        v_after = jnp.where(again, jnp.zeros_like(v_after), v_after)
        return {
            "position": jnp.where(contact, x_after, x_free),
            "velocity": jnp.where(contact, v_after, v_free),
        }
