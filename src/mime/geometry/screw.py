"""A helical body: a core with one sinusoidal thread, held by Newton's steps on its own surface.

The screw's axis is its frame's ``z`` axis. Its side surface, in cylindrical
coordinates ``(theta, z)`` with ``|z| <= length / 2``, lies at radius

    R(theta, z) = core_radius + thread_depth * (1 + cos(k z - theta)) / 2,   k = 2 pi / pitch,

so the thread's crest is the helix ``k z - theta = 0 (mod 2 pi)``; flat end caps
close it. There is no closed form for its support: for a unit direction ``d``
the support maximises ``g(theta, z) = R (d_x cos theta + d_y sin theta) + d_z z``
over the side (the caps are flat, so a cap's deepest point is on its rim).
``support_near`` runs Newton's steps on ``g`` from a start, each step bounded
(``|dtheta| <= pi / 8``, ``|dz| <= pitch / 8``), ``z`` held at an end where the
ascent leaves the side, for at most ``newton_steps`` steps (it stops early once a step is within the
tolerance). A search has
converged when its last step moved the point by no more than
``sqrt(eps) * size`` and it stands at a local maximum; otherwise it reports
``converged = False`` and the contact holds the group's nearest sample instead.

>>> import jax, jax.numpy as jnp
>>> s = Screw(core_radius=1.0, thread_depth=0.25, pitch=1.0, length=4.0)
>>> with jax.enable_x64(True):
...     p = s.support(jnp.array([0.0, -1.0, 0.0]))
>>> round(float(p[1]), 9)
-1.25
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from mime.errors import whole_number
from mime.geometry._base import Geometry, padded, positive_length
from mime.geometry.convex import TIE, unit

__all__ = ["Screw", "NEWTON_STEPS"]

NEWTON_STEPS = 16
"""The default bound on a screw's Newton steps per search."""


class Screw(Geometry):
    """A core of ``core_radius`` with a thread of ``thread_depth`` and ``pitch``, ``length`` long (all m)."""

    kind: ClassVar[str] = "screw"
    has_support: ClassVar[bool] = True

    def __init__(
        self,
        core_radius: float,
        thread_depth: float,
        pitch: float,
        length: float,
        newton_steps: int = NEWTON_STEPS,
    ) -> None:
        where = "Screw"
        self.core_radius = positive_length("core_radius", core_radius, where=where)
        self.thread_depth = positive_length("thread_depth", thread_depth, where=where)
        self.pitch = positive_length("pitch", pitch, where=where)
        self.length = positive_length("length", length, where=where)
        whole_number(newton_steps, "newton_steps", "a whole number of at least 1", where=where)
        self.newton_steps = newton_steps

    @property
    def wall_maxima(self) -> int:  # type: ignore[override]
        """The crest passes along the length, and the two rims."""
        return math.ceil(self.length / self.pitch) + 2

    @property
    def outer_radius(self) -> float:
        return self.core_radius + self.thread_depth

    @property
    def size(self) -> float:
        return 2.0 * math.hypot(self.outer_radius, self.length / 2)

    @property
    def radial_extent(self) -> float:
        return self.outer_radius

    @property
    def k(self) -> float:
        return 2 * math.pi / self.pitch

    # -- the surface -----------------------------------------------------------------
    def radius_at(self, theta: Any, z: Any) -> Any:
        """``R(theta, z)``, m."""
        return self.core_radius + 0.5 * self.thread_depth * (1.0 + jnp.cos(self.k * z - theta))

    def point_at(self, theta: Any, z: Any) -> Any:
        r = self.radius_at(theta, z)
        return jnp.stack([r * jnp.cos(theta), r * jnp.sin(theta), z], axis=-1)

    def tolerance(self, dtype: Any = jnp.float64) -> float:
        """The search's convergence test: ``sqrt(eps) * size``, m."""
        return float(np.sqrt(np.finfo(dtype).eps)) * self.size

    # -- the support ------------------------------------------------------------------
    @property
    def shape(self) -> tuple[float, float, float, float]:
        """The numbers the surface depends on, ``(core_radius, thread_depth, pitch, length)``, in m."""
        return (self.core_radius, self.thread_depth, self.pitch, self.length)

    @property
    def support_steps(self) -> int:  # type: ignore[override]
        """The bound on the Newton steps of a search."""
        return self.newton_steps

    def support_params(self) -> np.ndarray:
        """``(core_radius, thread_depth, pitch, length, k, outer_radius, size)``."""
        return padded(self.core_radius, self.thread_depth, self.pitch, self.length, self.k, self.outer_radius,
                      self.size)

    @staticmethod
    def support_from(params: Any, direction: Any, hint: Any, steps: Any) -> tuple[Any, Any]:
        d = unit(jnp.asarray(direction))
        hint = jnp.asarray(hint, dtype=d.dtype)
        return _newton_search(jnp.asarray(params, dtype=d.dtype), d, hint, steps)

    def _crest_starts(self, d: Any) -> Any:
        alpha = jnp.arctan2(d[1], d[0])
        kl = self.k * self.length / 2
        m = np.arange(math.floor((-kl - math.pi) / (2 * math.pi)) - 1, math.ceil((kl + math.pi) / (2 * math.pi)) + 2)
        z = jnp.clip((alpha + 2 * math.pi * jnp.asarray(m, dtype=d.dtype)) / self.k, -self.length / 2, self.length / 2)
        zs = jnp.concatenate([z, jnp.array([-self.length / 2, self.length / 2], dtype=d.dtype)])
        r = self.outer_radius
        return jnp.stack([jnp.full_like(zs, r * jnp.cos(alpha)), jnp.full_like(zs, r * jnp.sin(alpha)), zs], axis=1)

    def support(self, direction: Any) -> Any:
        """The global support: Newton's steps from every crest pass and both rims, the best kept."""
        d = unit(jnp.asarray(direction))
        starts = self._crest_starts(d)
        params = jnp.asarray(self.support_params(), dtype=d.dtype)
        pts, ok = jax.vmap(lambda h: _newton_search(params, d, h, max(self.newton_steps, NEWTON_STEPS)))(starts)
        val = jnp.where(ok, pts @ d, -jnp.inf)
        return pts[jnp.argmax(val)]

    # -- samples ----------------------------------------------------------------------
    def sample(self, spacing: float) -> tuple[np.ndarray, np.ndarray]:
        R = self.outer_radius
        k, h = self.k, self.thread_depth
        n_t = max(8, math.ceil(2 * math.pi * R / spacing))
        dz = spacing / math.sqrt(1.0 + (0.5 * h * k) ** 2)
        n_z = max(2, math.ceil(self.length / dz) + 1)
        t = 2 * math.pi * np.arange(n_t) / n_t
        z = np.linspace(-self.length / 2, self.length / 2, n_z)
        T, Z = np.meshgrid(t, z, indexing="ij")
        T, Z = T.ravel(), Z.ravel()
        phi = k * Z - T
        r = self.core_radius + 0.5 * h * (1 + np.cos(phi))
        r_t = 0.5 * h * np.sin(phi)
        r_z = -0.5 * h * k * np.sin(phi)
        x_t = np.stack([r_t * np.cos(T) - r * np.sin(T), r_t * np.sin(T) + r * np.cos(T), 0 * T], 1)
        x_z = np.stack([r_z * np.cos(T), r_z * np.sin(T), np.ones_like(T)], 1)
        nrm = np.cross(x_t, x_z)
        nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
        side = np.stack([r * np.cos(T), r * np.sin(T), Z], 1)
        pts, nrms = [side], [nrm]
        n_r = max(1, math.ceil(R / spacing))
        for s in (-1.0, 1.0):
            ring = [np.zeros((1, 3))]
            for j in range(1, n_r):
                f = j / n_r
                m = max(3, math.ceil(2 * math.pi * f * R / spacing))
                tt = 2 * math.pi * np.arange(m) / m
                rr = f * (self.core_radius + 0.5 * h * (1 + np.cos(k * s * self.length / 2 - tt)))
                ring.append(np.stack([rr * np.cos(tt), rr * np.sin(tt), np.zeros(m)], 1))
            cap = np.concatenate(ring)
            cap[:, 2] = s * self.length / 2
            pts.append(cap)
            nrms.append(np.tile([0.0, 0.0, s], (len(cap), 1)))
        return np.concatenate(pts), np.concatenate(nrms)

    def to_document(self) -> dict[str, Any]:
        return {
            "core_radius": self.core_radius,
            "length": self.length,
            "newton_steps": self.newton_steps,
            "pitch": self.pitch,
            "thread_depth": self.thread_depth,
        }


class _Numbers(NamedTuple):
    """A screw's numbers as the search reads them (each traced), m: ``params`` unpacked."""

    core_radius: Any
    thread_depth: Any
    pitch: Any
    length: Any
    k: Any
    outer_radius: Any
    size: Any

    def radius_at(self, theta: Any, z: Any) -> Any:
        """``R(theta, z)``, m."""
        return self.core_radius + 0.5 * self.thread_depth * (1.0 + jnp.cos(self.k * z - theta))

    def point_at(self, theta: Any, z: Any) -> Any:
        r = self.radius_at(theta, z)
        return jnp.stack([r * jnp.cos(theta), r * jnp.sin(theta), z], axis=-1)

    def reach_derivatives(self, d: Any, theta: Any, z: Any) -> tuple[Any, Any, Any, Any, Any]:
        """The first and second derivatives of the reach ``g(theta, z) = p(theta, z) . d`` along the
        unit ``d``, in closed form: ``(g_t, g_z, g_tt, g_tz, g_zz)`` (m per radian or per m).

        With ``a = d_x cos(theta) + d_y sin(theta)`` (so ``a' = -d_x sin(theta) + d_y cos(theta)``,
        ``a'' = -a``) and ``R = r_core + (h/2)(1 + cos(k z - theta))``, ``g = R a + d_z z``:

        ``g_t = R_t a + R a'``, ``g_z = R_z a + d_z``, ``g_tt = R_tt a + 2 R_t a' - R a``,
        ``g_tz = R_tz a + R_z a'``, ``g_zz = R_zz a``, where ``R_t = (h/2) sin(k z - theta)``,
        ``R_z = -k R_t``, ``R_tt = -(h/2) cos(k z - theta)``, ``R_tz = -k R_tt``, ``R_zz = k^2 R_tt``.
        """
        c, s = jnp.cos(theta), jnp.sin(theta)
        a = d[0] * c + d[1] * s
        a1 = d[1] * c - d[0] * s
        half_depth = 0.5 * self.thread_depth
        phase = self.k * z - theta
        r = self.radius_at(theta, z)
        r_t = half_depth * jnp.sin(phase)
        r_tt = -half_depth * jnp.cos(phase)
        r_z, r_tz, r_zz = -self.k * r_t, -self.k * r_tt, self.k * self.k * r_tt
        return (r_t * a + r * a1, r_z * a + d[2], r_tt * a + 2.0 * r_t * a1 - r * a, r_tz * a + r_z * a1,
                r_zz * a)


@jax.jit
def _newton_search(params: Any, d: Any, hint: Any, steps: Any) -> tuple[Any, Any]:
    """The bounded Newton search of ``support_near`` for the screw whose numbers are ``params``
    (``Screw.support_params``), from ``hint`` along the unit ``d``, at most ``steps`` steps.

    Every argument is traced, so one compiled search serves every screw and bound. A contact
    step searches the screw at several places (each pass's starts, the refinements); each search
    is a loop with a Hessian inside, and tracing it anew at every place cost about 0.5 s of each
    step's compilation.
    """
    s = _Numbers(*(params[i] for i in range(7)))
    half = s.length / 2
    dt_max, dz_max = math.pi / 8, s.pitch / 8
    tol = float(np.sqrt(np.finfo(d.dtype).eps)) * s.size
    eps = jnp.finfo(d.dtype).eps

    def body(carry):
        k, u, last = carry
        g_t, g_z, g_tt, g_tz, g_zz = s.reach_derivatives(d, u[0], u[1])
        at_end = (jnp.abs(u[1]) >= half) & (g_z * jnp.sign(u[1]) > 0)
        det = g_tt * g_zz - g_tz * g_tz
        concave2 = (g_tt < 0) & (det > 0)
        safe_det = jnp.where(concave2, det, 1.0)
        n2 = -jnp.stack([g_zz * g_t - g_tz * g_z, -g_tz * g_t + g_tt * g_z]) / safe_det
        asc = jnp.stack([dt_max * jnp.sign(g_t), dz_max * jnp.sign(g_z)])
        step2 = jnp.where(concave2, n2, asc)
        h00 = jnp.where(g_tt < 0, g_tt, -1.0)
        step1 = jnp.stack([jnp.where(g_tt < 0, -g_t / h00, dt_max * jnp.sign(g_t)), jnp.zeros_like(g_t)])
        step = jnp.where(at_end, step1, step2)
        step = jnp.clip(step, jnp.stack([-dt_max, -dz_max]), jnp.stack([dt_max, dz_max]))
        new = jnp.stack([u[0] + step[0], jnp.clip(u[1] + step[1], -half, half)]).astype(u.dtype)
        r = s.radius_at(new[0], new[1])
        moved = jnp.sqrt((r * (new[0] - u[0])) ** 2 + (new[1] - u[1]) ** 2)
        return k + 1, new, moved.astype(u.dtype)

    th0 = jnp.arctan2(hint[1], hint[0])
    u0 = jnp.stack([th0, jnp.clip(hint[2], -half, half)]).astype(d.dtype)
    # bounded: at most ``steps`` steps, stopping once a step moves the point by no more than tol
    _, u, last = jax.lax.while_loop(
        lambda c: (c[0] < steps) & (c[2] > tol), body, (jnp.array(0), u0, jnp.array(jnp.inf, dtype=d.dtype))
    )
    _, g_z, g_tt, g_tz, g_zz = s.reach_derivatives(d, u[0], u[1])
    at_end = (jnp.abs(u[1]) >= half) & (g_z * jnp.sign(u[1]) >= 0)
    det = g_tt * g_zz - g_tz * g_tz
    is_max = jnp.where(at_end, g_tt < 0, (g_tt < 0) & (det > 0))
    converged = (last <= tol) & is_max
    point = s.point_at(u[0], u[1])
    # a direction along the axis: the whole end cap ties; keep the hint's place on it
    rho = jnp.sqrt(d[0] ** 2 + d[1] ** 2)
    axial = rho * s.outer_radius <= TIE * eps * s.size
    hr2 = hint[0] ** 2 + hint[1] ** 2
    cap_r = s.core_radius
    scale = jnp.where(hr2 > cap_r**2, cap_r / jnp.sqrt(jnp.where(hr2 > 0, hr2, 1.0)), 1.0)
    cap = jnp.stack([hint[0] * scale, hint[1] * scale, jnp.where(d[2] > 0, half, -half)])
    return jnp.where(axial, cap, point), jnp.where(axial, True, converged)
