"""The scenarios behind the contact page's live evidence, shared by the page and the tests.

Each function builds real bodies, surfaces and experiments, runs them, and
returns what it measured; the page turns the measurements into claims and the
tests assert them. All lengths are in metres, times in seconds. The margin is
the seed's, ``mm(0.1)``.

Scenarios are sized so that each compiles once and runs in well under a second
on a laptop's core: a few hundred hull samples, a few hundred steps.
"""

from __future__ import annotations

import math
from functools import partial
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from mime.experiment import Experiment
from mime.geometry import Box, Capsule, Cylinder, Ellipsoid, Geometry, Hull, Mesh, Screw, Sphere, cylinder_mesh, rotation
from mime.interactions import CentreContact, Contact
from mime.nodes import ConstantLoad, PropulsionForce, RigidInertialNode, RotatingFieldTorque, SumLoad
from mime.scene import Floor, Tube
from mime.units import m, mm

__all__ = [
    "MARGIN",
    "DT",
    "FLOOR",
    "NARROW_TUBE",
    "solid_inertia",
    "make_body",
    "attach",
    "run",
    "spinner",
    "lying_orientation",
    "hull_gaps",
    "free_body_bitwise",
    "narrow_tube",
    "spin_on_floor",
    "screw_spin_by_spacing",
    "two_walls",
    "hullless_body",
    "turning_ellipsoid",
    "support_short_screw",
    "touching_is_force",
    "spacing_rules",
    "helical_microrobot",
    "microrobot",
    "capsule_tube_gaps",
]

MARGIN = 1e-4
"""The seed's margin, ``mm(0.1)``, in metres."""
TINY_MARGIN = mm(0.001)
"""A margin so small that the spacing rule would sample finer than its floor (the spacing-rules scenario), as written."""
DT = 1e-3
"""The step of every scenario, s."""
STEPS = 300
"""The steps of each scenario (one count, so that scenarios of one hull share a compiled scan)."""
DENSITY = 1000.0
"""The bodies' density, kg/m^3 (water-like: a microrobot's scale)."""
G = 9.81
"""The weight's acceleration, m/s^2."""

KEEP_ATOL = 1e-9 * MARGIN
"""How close to the margin a held body's nearest point is claimed to stay (both ways), m: rounding on the
scale of the margin and the fixed counts of the projection's sweeps and searches."""
SWEPT_ATOL = 1e-4 * MARGIN
"""Where the rows are coupled near 1 and the step is flagged ``unconverged``, how far past the margin the fixed
sweeps may leave a point, m (what c^(2 x sweeps) leaves of the violation, the pose projected back taking the rest)."""
SCREW_FLATNESS = 0.01
"""How flat in the spacing the screw's kept spin is claimed to be: the spread of the kept share over the spacings."""
MOST = 0.5
"""'Most of its spin': a body held at its samples is claimed to keep less than this share of it."""

FLOOR = Floor(0.0)
NARROW_TUBE = Tube(radius=1e-3)
"""A tube of 1 mm radius (axis along x): narrower than the long bodies of the scenarios."""


def lying_orientation(angle: float = 0.0) -> tuple[float, ...]:
    """A body lying on its side: the unit quaternion ``(w, x, y, z)`` of the turn taking the body's
    ``z`` axis to the world's ``x`` axis, then ``angle`` (rad) about the world's ``z`` axis.

    >>> [round(c, 6) for c in lying_orientation()]
    [0.707107, 0.0, 0.707107, 0.0]
    """
    lie = rotation.about_axis(jnp.array([0.0, 1.0, 0.0]), math.pi / 2)
    turn = rotation.about_axis(jnp.array([0.0, 0.0, 1.0]), angle)
    return tuple(float(c) for c in rotation.compose(turn, lie))


def solid_inertia(geometry: Geometry | Hull, mass: float) -> tuple[float, float, float]:
    """Principal moments (kg m^2) of a solid of ``mass`` shaped as the kind (the screw as a cylinder of mean radius,
    the capsule as a cylinder of its whole length, the mesh as its bounding box: close, not exact)."""
    g = geometry.parts[0].geometry if isinstance(geometry, Hull) and geometry.parts else geometry
    if isinstance(g, Hull):  # no parts: a ball of the extent
        r = g.extent
        i = 0.4 * mass * r * r
        return (i, i, i)
    if isinstance(g, Sphere):
        i = 0.4 * mass * g.radius**2
        return (i, i, i)
    if isinstance(g, Ellipsoid):
        a, b, c = g.a, g.b, g.c
        return (mass * (b * b + c * c) / 5, mass * (a * a + c * c) / 5, mass * (a * a + b * b) / 5)
    if isinstance(g, (Cylinder, Capsule, Screw)):
        if isinstance(g, Screw):
            r, L = g.core_radius + g.thread_depth / 2, g.length
        elif isinstance(g, Capsule):
            r, L = g.radius, g.length + 2 * g.radius
        else:
            r, L = g.radius, g.length
        t = mass * (3 * r * r + L * L) / 12
        return (t, t, mass * r * r / 2)
    if isinstance(g, Box):
        x, y, z = g.x, g.y, g.z
        return (mass * (y * y + z * z) / 12, mass * (x * x + z * z) / 12, mass * (x * x + y * y) / 12)
    if isinstance(g, Mesh):
        ext = g.vertices.max(axis=0) - g.vertices.min(axis=0)
        x, y, z = ext
        r = max(x, y) / 2
        t = mass * (3 * r * r + z * z) / 12
        return (t, t, mass * r * r / 2)
    raise TypeError(type(g).__name__)


def make_body(hull: Any, *, mass: float, name: str = "body", **kw: Any) -> RigidInertialNode:
    """A body of the kind and ``mass`` (kg), its inertia from ``solid_inertia``."""
    h = hull if isinstance(hull, Hull) else Hull([hull])
    # a zero load rather than none, so that every scenario's step shares one compilation per hull
    kw.setdefault("force", ConstantLoad((0.0, 0.0, 0.0)))
    kw.setdefault("torque", ConstantLoad((0.0, 0.0, 0.0)))
    return RigidInertialNode(h, mass=mass, inertia=solid_inertia(h, mass), name=name, **kw)


def attach(body: RigidInertialNode, surface: Any, *, version: str = "0.4.0", spacing: float | None = None,
           profile: str = "exploratory") -> Experiment:
    """An experiment holding ``body`` against ``surface`` with the seed's margin, built under ``profile``."""
    e = Experiment()
    settings: dict[str, Any] = {"margin": mm(0.1)}
    if spacing is not None and version == "0.4.0":
        settings["spacing"] = m(spacing)
    entry = Contact.Projection(**settings) if version == "0.4.0" else CentreContact.Projection(**settings)
    e.attach(entry, body=body, surface=surface)
    e.build(profile)
    return e


def run(body: RigidInertialNode, steps: int, state0: dict | None = None) -> tuple[dict, dict]:
    """Run ``body``, with the contact it holds if any, for ``steps`` steps of ``DT`` s.

    Returns ``(states, report)`` as ``{name: NumPy array}`` over the steps: the states
    (m, unit quaternion, m/s, rad/s in the body frame) after each step, and the
    contact's report per step (``mime.interactions.ContactReport``'s fields). ``state0``
    replaces the body's start.
    """
    from mime._simulate import run_body

    return run_body(body, DT, steps, state0)


def hull_gaps(hull: Hull, surface: Any, positions: np.ndarray, orientations: np.ndarray, spacing: float) -> np.ndarray:
    """Each pose's smallest ``distance - margin`` over a dense sampling of the hull (``spacing``), m."""
    pts, _, _ = hull.sample(spacing)
    with jax.enable_x64(True):
        return np.asarray(_gaps(surface, jnp.asarray(pts), jnp.asarray(positions), jnp.asarray(orientations)))


@partial(jax.jit, static_argnames=("surface",))
def _gaps(surface: Any, P: Any, positions: Any, orientations: Any) -> Any:
    def one(x, q):
        return jnp.min(surface.distance(x + P @ rotation.matrix(q).T)) - MARGIN

    return jax.vmap(one)(positions, orientations)


# ---------------------------------------------------------------------------------------
# 1. free body, to the last bit
# ---------------------------------------------------------------------------------------
def _kinds() -> list[tuple[str, Any]]:
    return [
        ("sphere", Sphere(4e-4)),
        ("ellipsoid", ELLIPSOID),
        ("cylinder", SPIN_CYLINDER),
        ("capsule", LONG_CAPSULE),
        ("screw", SPIN_SCREW),
        ("box", Box(6e-4, 4e-4, 3e-4)),
        ("mesh", SPIN_MESH),
        ("no hull", Hull(extent=4e-4)),
    ]


@dataclass
class FreeRow:
    kind: str
    samples: int
    touched: bool
    nearest: float
    bitwise: bool


def free_body_bitwise(steps: int = STEPS) -> list[FreeRow]:
    """Each hull kind flying clear of the floor, with and without the contact: equal bit for bit?"""
    rows = []
    for name, g in _kinds():
        common = dict(
            position=(0.0, 0.0, 4e-3), velocity=(1e-3, -5e-4, 2e-4), angular_velocity=(3.0, -2.0, 5.0),
            force=ConstantLoad((0.0, 1e-9, 0.0)), torque=ConstantLoad((1e-15, 0.0, -2e-15)),
            translational_drag=1e-5, rotational_drag=1e-14,
        )
        free = make_body(g, mass=1e-6, **common)
        held = make_body(g, mass=1e-6, **common)
        surface = NARROW_TUBE.inner_surface if name == "capsule" else FLOOR.surface
        if name == "capsule":  # in the tube, along its axis, clear of the wall
            for b in (free, held):
                b.start["position"] = (0.0, 0.0, 0.0)
                b.start["orientation"] = lying_orientation()
                b.start["angular_velocity"] = (0.0, 0.0, 5.0)
                b.start["velocity"] = (1e-3, 0.0, 0.0)
        attach(held, surface)
        sf, _ = run(free, steps)
        sh, rh = run(held, steps)
        same = all(
            np.array_equal(sf[k].view(np.uint64), sh[k].view(np.uint64)) for k in ("position", "orientation", "velocity", "angular_velocity")
        )
        rows.append(FreeRow(name, held.confinement.report.samples, bool(rh["touching"].any()), float(rh["contact_gap"].min()), same))
    return rows


# ---------------------------------------------------------------------------------------
# 2. the turned body in a narrow tube
# ---------------------------------------------------------------------------------------
LONG_CAPSULE = Capsule(radius=2.5e-4, length=2.0e-3)
"""2.5 mm long in all: longer than the narrow tube is wide (2 mm)."""


@dataclass
class TubeRun:
    version: str
    times: np.ndarray
    angle: np.ndarray  # the axis's angle from the tube's axis, rad
    min_gap: np.ndarray  # per step, over a dense sampling of the hull, m
    positions: np.ndarray
    orientations: np.ndarray


def _turning_capsule() -> RigidInertialNode:
    mass = 1e-6
    return make_body(
        LONG_CAPSULE, mass=mass, name="capsule", orientation=lying_orientation(math.radians(20.0)),
        torque=ConstantLoad((0.0, 0.0, 4e-10)), rotational_drag=2e-12, translational_drag=1e-4,
    )


def capsule_tube_gaps(capsule: Capsule, tube: Tube, positions: np.ndarray, orientations: np.ndarray) -> np.ndarray:
    """Each pose's exact smallest ``distance - margin`` of a capsule in a tube, m.

    A ball of radius ``r`` about ``c`` reaches ``rho(c) + r`` from the tube's axis, and ``rho`` is convex along
    the capsule's segment, so the farthest reach is at an end: ``gap = R - r - max(rho(e1), rho(e2)) - margin``.
    """
    a = np.asarray(tube.axis)
    ends = []
    for s in (-1.0, 1.0):
        e = positions + np.stack([rotation.matrix(np.asarray(q)) @ np.array([0.0, 0.0, s * capsule.length / 2]) for q in orientations])
        r = e - np.asarray(tube.centre)
        ends.append(np.linalg.norm(r - (r @ a)[:, None] * a, axis=1))
    return tube.radius - capsule.radius - np.maximum(*ends) - MARGIN


def _axis_angle(orientations: np.ndarray) -> np.ndarray:
    axes = np.stack([np.asarray(rotation.rotate(jnp.asarray(q), jnp.array([0.0, 0.0, 1.0]))) for q in orientations])
    return np.arccos(np.clip(np.abs(axes[:, 0]), 0.0, 1.0))


def narrow_tube(steps: int = STEPS) -> dict[str, Any]:
    """The long capsule turned across the narrow tube by a steady torque, under 0.1.0 and 0.4.0."""
    out: dict[str, Any] = {}
    for version in ("0.1.0", "0.4.0"):
        body = _turning_capsule()
        attach(body, NARROW_TUBE.inner_surface, version=version)
        s, r = run(body, steps)
        gaps = capsule_tube_gaps(LONG_CAPSULE, NARROW_TUBE, s["position"], s["orientation"])
        with jax.enable_x64(True):
            angle = _axis_angle(s["orientation"])
        out[version] = TubeRun(version, DT * np.arange(1, steps + 1), angle, gaps, s["position"], s["orientation"])
    g = LONG_CAPSULE
    out["predicted_pass"] = (g.length / 2 + g.radius) - NARROW_TUBE.radius
    return out


# ---------------------------------------------------------------------------------------
# 3. spin on the floor
# ---------------------------------------------------------------------------------------
SPIN_CYLINDER = Cylinder(radius=5e-4, length=2e-3)
SPIN_MESH = cylinder_mesh(5e-4, 2e-3, 24)
SPIN_SCREW = Screw(core_radius=4e-4, thread_depth=1e-4, pitch=6e-4, length=2e-3)
SPIN = 40.0
"""The spin the bodies are started with, rad/s."""


def spinner(geometry: Any, radius: float, name: str) -> RigidInertialNode:
    """A body of ``geometry``, lying on its side with its lowest point ``MARGIN`` above the floor, spun
    about its own axis at ``SPIN`` rad/s and pressed down by its weight.

    ``radius`` (m) is how far its lowest point lies below its axis; its mass (kg) is that of a
    water-like cylinder of that radius, 2 mm long.
    """
    g = geometry
    mass = DENSITY * math.pi * radius**2 * 2e-3
    return make_body(
        g, mass=mass, name=name, position=(0.0, 0.0, radius + MARGIN), orientation=lying_orientation(),
        angular_velocity=(0.0, 0.0, SPIN), force=ConstantLoad((0.0, 0.0, -mass * G)),
    )


@dataclass
class SpinRun:
    name: str
    spin: np.ndarray  # body-axis spin per step, rad/s
    held_by_samples: np.ndarray
    touching: np.ndarray
    samples: int

    @property
    def kept(self) -> float:
        return float(self.spin[-1] / SPIN)


def spin_on_floor(steps: int = STEPS) -> dict[str, SpinRun]:
    """A smooth cylinder (held at its support) and a 24-sided mesh of it (held at its samples), spun on the floor."""
    out = {}
    for name, g in (("cylinder", SPIN_CYLINDER), ("mesh", SPIN_MESH)):
        body = spinner(g, 5e-4, name)
        attach(body, FLOOR.surface)
        s, r = run(body, steps)
        out[name] = SpinRun(name, s["angular_velocity"][:, 2], r["held_by_samples"], r["touching"], body.confinement.report.samples)
    return out


def screw_spin_by_spacing(spacings: tuple[float, ...] = (2.0e-4, 1.5e-4, 1.0e-4, 0.7e-4), steps: int = STEPS) -> list[tuple[float, int, float]]:
    """The screw held at its support, spun on the floor at several spacings: ``(spacing, samples, spin kept)``."""
    rows = []
    for h in spacings:
        body = spinner(SPIN_SCREW, SPIN_SCREW.outer_radius, "screw")
        attach(body, FLOOR.surface, spacing=h)
        s, _ = run(body, steps)
        rows.append((h, body.confinement.report.samples, float(s["angular_velocity"][-1, 2] / SPIN)))
    return rows


# ---------------------------------------------------------------------------------------
# 4. two walls, short levers: c^2 a sweep
# ---------------------------------------------------------------------------------------
SHORT_CAPSULE = Capsule(radius=2.5e-4, length=1.31e-3)
"""1.81 mm in all: it cannot turn square across the tube within the margin, and jams nearly square."""


@partial(jax.jit, static_argnums=(0, 1))
def _two_walls_rows(spec: Any, static: Any, params: Any, arrays: Any, state: Any):
    from mime.interactions._projection import choose_points, gram
    from mime.nodes.rigid import free_solve

    free = free_solve(static, params, state, {"time": 0.0}, DT)
    A = choose_points(spec, arrays, state["position"], state["orientation"])
    K = gram(A.normal, A.lever, 1.0 / free.mass_eff, 1.0 / free.inertia_eff)
    u0 = A.normal @ free.velocity + A.lever @ free.angular_velocity
    return A.point, K, u0, -jnp.maximum(A.gap, 0.0) / DT, A.gap


@partial(jax.jit, static_argnums=0)
def _levers(spec: Any, arrays: Any, state: Any):
    from mime.interactions._projection import choose_points

    return choose_points(spec, arrays, state["position"], state["orientation"]).lever


@jax.jit
def _pgs40(K: Any, u0: Any, target: Any, active: Any):
    from mime.interactions._projection import pgs

    return pgs(K, u0, target, active, 40)[2]


def two_walls(steps: int = STEPS) -> dict[str, Any]:
    """The short capsule turned by a torque until it jams across the tube, both ends pressed into the wall."""
    mass = 1e-6
    body = make_body(
        SHORT_CAPSULE, mass=mass, name="capsule", orientation=lying_orientation(math.radians(60.0)),
        torque=ConstantLoad((0.0, 0.0, 4e-10)), rotational_drag=2e-12, translational_drag=1e-4,
    )
    attach(body, NARROW_TUBE.inner_surface)
    s, r = run(body, steps)
    last = {k: v[-1] for k, v in s.items()}
    with jax.enable_x64(True):
        static, spec, params, arrays = body.step_inputs()
        state = {k: jnp.asarray(v) for k, v in last.items()}
        point, K, u0, target, gap = _two_walls_rows(spec, static, params, arrays, state)
        # the two distinct rows (one per end)
        ends = np.asarray(point)[:, 2] > 0
        i, j = int(np.argmax(ends)), int(np.argmax(~ends))
        pick = jnp.array([i, j])
        K2 = K[pick][:, pick]
        hist = np.asarray(_pgs40(K2, u0[pick], target[pick], jnp.array([True, True])))
        c = float(K2[0, 1] / jnp.sqrt(K2[0, 0] * K2[1, 1]))
        hist_all = np.asarray(_pgs40(K, u0, target, jnp.isfinite(gap)))
        lever = float(np.max(np.linalg.norm(np.asarray(_levers(spec, arrays, state)), axis=1)))
    ratios = hist[1:] / hist[:-1]
    return {
        "coupling": c,
        "residuals": hist,
        "residuals_all_rows": np.asarray(hist_all),
        "ratios": ratios,
        "unconverged": r["unconverged"],
        "touching": r["touching"],
        "residual": r["contact_residual"],
        "angle": float(np.degrees(_axis_angle(s["orientation"][-1:])[0])),
        "lever": lever,
        "min_gap": float(capsule_tube_gaps(SHORT_CAPSULE, NARROW_TUBE, s["position"], s["orientation"]).min()),
    }


# ---------------------------------------------------------------------------------------
# 5. a hull-less body
# ---------------------------------------------------------------------------------------
HULLLESS_EXTENT = 4e-4
"""The extent of the body with no hull in :func:`hullless_body`, and the radius of the ball beside it, m."""


def hullless_body(steps: int = STEPS) -> dict[str, Any]:
    """A body with no hull (extent :data:`HULLLESS_EXTENT`) and a ball of that radius, both dropped on the floor."""
    runs = {}
    for name, h in (("no hull", Hull(extent=HULLLESS_EXTENT)), ("sphere", Hull([Sphere(HULLLESS_EXTENT)]))):
        body = make_body(h, mass=1e-6, name=name.replace(" ", "_"), position=(0.0, 0.0, 8e-4),
                         velocity=(2e-3, 0.0, -5e-3), angular_velocity=(0.0, 7.0, 0.0), force=ConstantLoad((0.0, 0.0, -1e-5)))
        attach(body, FLOOR.surface)
        s, r = run(body, steps)
        runs[name] = (s, r)
    s0 = runs["no hull"][0]
    s1 = runs["sphere"][0]
    height_gap = s0["position"][:, 2] - HULLLESS_EXTENT - MARGIN
    return {
        "min_gap": float(height_gap.min()),
        "difference": float(max(np.max(np.abs(s0[k] - s1[k])) for k in ("position", "velocity"))),
        "touching_steps": int(runs["no hull"][1]["touching"].sum()),
        "heights": s0["position"][:, 2],
    }


# ---------------------------------------------------------------------------------------
# 6. the touching point moves continuously on a turning ellipsoid
# ---------------------------------------------------------------------------------------
ELLIPSOID = Ellipsoid(8e-4, 4e-4, 3e-4)


def turning_ellipsoid(steps: int = STEPS) -> dict[str, Any]:
    """An ellipsoid lying on the floor, lightly pressed, tumbling end over end; its held point's path."""
    mass = 1e-6
    body = make_body(ELLIPSOID, mass=mass, name="ellipsoid", position=(0.0, 0.0, 3e-4 + MARGIN),
                     angular_velocity=(0.0, 12.0, 0.0), force=ConstantLoad((0.0, 0.0, -1e-10)))
    attach(body, FLOOR.surface)
    s, r = run(body, steps)
    pts = r["contact_point"]
    with jax.enable_x64(True):
        # the ellipsoid's own deepest point at each step's starting pose (the exact support)
        qs = np.concatenate([np.asarray(body.start["orientation"])[None], s["orientation"][:-1]])
        exact = np.stack([np.asarray(ELLIPSOID.support(rotation.matrix(jnp.asarray(q)).T @ jnp.array([0.0, 0.0, -1.0]))) for q in qs])
    moves = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    # the support map's continuity: a turn by dtheta moves the support by at most rho_max dtheta,
    # rho_max = a^2 / c the largest radius of curvature of the ellipse the turn sweeps
    dq = [abs(float(np.clip(np.dot(qs[k], qs[k + 1]), -1.0, 1.0))) for k in range(len(qs) - 1)]
    turns = 2 * np.arccos(np.clip(dq, -1.0, 1.0))
    a, c = ELLIPSOID.a, ELLIPSOID.c
    bound = (a * a / c) * turns
    samples, _ = ELLIPSOID.sample(body.confinement.spacing)
    nearest = np.array([samples[np.argmax(samples @ (rotation.matrix(q).T @ np.array([0.0, 0.0, -1.0])))] for q in np.asarray(qs)])
    return {
        "points": pts,
        "exact": exact,
        "off_support": float(np.max(np.linalg.norm(pts - exact, axis=1))),
        "largest_move": float(moves.max()),
        "worst_move_over_bound": float(np.max(moves / np.maximum(bound, 1e-300))),
        "sample_hops": np.linalg.norm(np.diff(nearest, axis=0), axis=1),
        "spacing": body.confinement.spacing,
        "touching": r["touching"],
    }


# ---------------------------------------------------------------------------------------
# 7. flags
# ---------------------------------------------------------------------------------------
def support_short_screw(newton_steps: int = 1, steps: int = STEPS) -> dict[str, Any]:
    """The spinning screw on the floor with its Newton search bounded at ``newton_steps``: support_short raises."""
    g = Screw(SPIN_SCREW.core_radius, SPIN_SCREW.thread_depth, SPIN_SCREW.pitch, SPIN_SCREW.length, newton_steps=newton_steps)
    body = spinner(g, g.outer_radius, "screw")
    attach(body, FLOOR.surface)
    _, r = run(body, steps)
    return {"support_short": r["support_short"], "touching": r["touching"]}


def touching_is_force(steps: int = STEPS) -> dict[str, Any]:
    """A sphere bouncing on to the floor: does ``touching`` mark exactly the steps whose state the contact changed?"""
    from mime.nodes.rigid import step

    body = make_body(Sphere(4e-4), mass=1e-6, name="ball", position=(0.0, 0.0, 1.2e-3),
                     velocity=(1e-3, 0.0, 0.0), force=ConstantLoad((0.0, 0.0, -2e-5)))
    attach(body, FLOOR.surface)
    s, r = run(body, steps)
    with jax.enable_x64(True):
        _, spec, _, arrays = body.step_inputs()
        starts = {k: jnp.asarray(np.concatenate([np.asarray(body.start[k])[None], s[k][:-1]])) for k in s}
        t = DT * jnp.arange(steps)

        def both(state, ti):
            static, _, params, _ = body.step_inputs()
            held, _ = step(static, spec, params, arrays, state, {"time": ti}, DT)
            free, _ = step(static, None, params, {}, state, {"time": ti}, DT)
            return jnp.any(jnp.stack([jnp.any(held[k] != free[k]) for k in held]))

        changed = np.asarray(jax.jit(jax.vmap(both))(starts, t))
    forced = (r["contact_impulse"] > 0) | (r["contact_push"] > 0)
    return {"touching": r["touching"], "changed": changed, "forced": forced}


# ---------------------------------------------------------------------------------------
# 8. spacing rules
# ---------------------------------------------------------------------------------------
def spacing_rules() -> dict[str, Any]:
    """The default spacing by the rule; a tiny margin takes the floor; a coarse spacing refused for a box."""
    from mime.errors import ValidationError

    out: dict[str, Any] = {"floor_fraction": Contact.SPACING_FLOOR}
    body = make_body(LONG_CAPSULE, mass=1e-6)
    attach(body, NARROW_TUBE.inner_surface)
    out["default"] = body.confinement.spacing
    out["default_expected"] = max(MARGIN, Contact.SPACING_FLOOR * body.size)
    tiny = make_body(LONG_CAPSULE, mass=1e-6)
    e = Experiment()
    e.attach(Contact.Projection(margin=TINY_MARGIN), body=tiny, surface=NARROW_TUBE.inner_surface)
    e.build("exploratory")
    out["tiny_margin_spacing"] = tiny.confinement.spacing
    out["floor_spacing"] = Contact.SPACING_FLOOR * tiny.size
    box = make_body(Box(6e-4, 4e-4, 3e-4), mass=1e-6)
    coarse = 3 * MARGIN
    try:
        attach(box, FLOOR.surface, spacing=coarse)
        out["refused"] = None
    except ValidationError as exc:
        out["refused"] = str(exc)
    out["coarse"] = coarse
    out["box_shortfall"] = Box(6e-4, 4e-4, 3e-4).shortfall(coarse)
    return out


# ---------------------------------------------------------------------------------------
# 9. the seed's helical microrobot
# ---------------------------------------------------------------------------------------
def microrobot() -> RigidInertialNode:
    """The seed's helical microrobot: a 1.5 mm screw with a magnetic moment across its axis, its weight and a
    thrust from its spin, turned by a field rotating about the tube's axis at 5 Hz."""
    umr_shape = Screw(core_radius=2e-4, thread_depth=1e-4, pitch=5e-4, length=1.5e-3)
    mass = DENSITY * math.pi * (2.5e-4) ** 2 * 1.5e-3
    return make_body(
        umr_shape, mass=mass, name="umr", position=(0.0, 0.0, 0.0), orientation=lying_orientation(),
        force=SumLoad(ConstantLoad((0.0, 0.0, -mass * G)), PropulsionForce(2e-9)),
        torque=RotatingFieldTorque(moment=(1e-6, 0.0, 0.0), field=5e-3, frequency=5.0, axis=(1.0, 0.0, 0.0)),
        translational_drag=1e-5, rotational_drag=1e-10,
    )


def helical_microrobot(steps: int = 600) -> dict[str, Any]:
    """The microrobot in the narrow tube, attached exactly as the seed writes it, run and measured."""
    umr = microrobot()
    tube = NARROW_TUBE
    experiment = Experiment()
    experiment.attach(Contact.Projection(margin=mm(0.1)), body=umr, surface=tube.inner_surface)
    record = experiment.run(dt=DT, steps=steps, profile="exploratory")
    gaps = hull_gaps(umr.hull, tube.inner_surface, record.states["position"], record.states["orientation"], MARGIN / 4)
    return {"record": record, "min_gap": float(gaps.min()), "experiment": experiment, "body": umr}
