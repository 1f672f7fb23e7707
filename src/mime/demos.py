"""The scenarios behind the contact page's live evidence, shared by the page and the tests.

Each function builds real bodies, surfaces and experiments, runs them, and
returns what it measured; the page turns the measurements into claims and the
tests assert them. All lengths are in metres, times in seconds. The margin is
the seed's, ``mm(0.1)``.

Scenarios are sized so that each compiles once and runs in well under a second
on a laptop's core: a few hundred hull samples, a few hundred steps. Every
scenario returns a frozen dataclass of what it measured (NumPy arrays and
floats), and no scenario changes a body it was given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from mime._compile import jit
from mime._pytree import replace
from mime._simulate import BodyRun, RunRecord, run_body
from mime.dynamics import ContactReport, RigidState
from mime.errors import invalid
from mime.experiment import Experiment
from mime.geometry import Box, Capsule, Cylinder, Ellipsoid, Hull, Screw, Sphere, cylinder_mesh, rotation, solid_inertia
from mime.interactions import CentreContact, Confinement, Contact
from mime.nodes import ConstantLoad, PropulsionForce, RigidInertialNode, RotatingFieldTorque, SumLoad
from mime.scene import Floor, Tube, shape_of
from mime.units import m, mm

__all__ = [
    "MARGIN",
    "DT",
    "FLOOR",
    "NARROW_TUBE",
    "solid_inertia",
    "make_body",
    "attach",
    "confinement",
    "body_of",
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
    "axis_angle",
    "flying",
    "flying_surface",
    "same_bits",
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
SCREW_PART = 2e-3
"""'Part of its spin': the most of its spin a screw held at its support is claimed to lose at any spacing (under a
five-hundredth of what the mesh held at its samples loses), so the spread over the spacings is within it too."""
SCREW_GAIN = 1e-9
"""The most of its spin a screw held at its support is claimed to gain at any spacing (none, to a part in 10^9)."""
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


def make_body(hull: Any, *, mass: float, name: str = "body", **kw: Any) -> RigidInertialNode:
    """A body of the kind and ``mass`` (kg), its inertia from ``solid_inertia``."""
    h = hull if isinstance(hull, Hull) else Hull([hull])
    # a zero load rather than none, so that every scenario's step shares one compilation per hull
    kw.setdefault("force", ConstantLoad((0.0, 0.0, 0.0)))
    kw.setdefault("torque", ConstantLoad((0.0, 0.0, 0.0)))
    return RigidInertialNode(h, mass=mass, inertia=solid_inertia(h, mass), name=name, **kw)


def attach(body: RigidInertialNode, surface: Any, *, version: str = "0.4.0", spacing: float | None = None,
           profile: str = "exploratory") -> Experiment:
    """An experiment holding ``body`` against ``surface`` with the seed's margin, built under ``profile``.

    The body itself is left as it was: what the contact planned is the built experiment's
    (:func:`confinement`, :func:`run`).
    """
    e = Experiment(profile=profile)
    settings: dict[str, Any] = {"margin": mm(0.1)}
    if spacing is not None and version == "0.4.0":
        settings["spacing"] = m(spacing)
    entry = Contact.Projection(**settings) if version == "0.4.0" else CentreContact.Projection(**settings)
    e.attach(entry, body=body, surface=surface)
    e.build(profile)
    return e


def body_of(experiment: Experiment) -> RigidInertialNode:
    """The experiment's one rigid body."""
    bodies = [t for t in experiment.things.values() if isinstance(t, RigidInertialNode)]
    if len(bodies) != 1:
        raise invalid("experiment", experiment, "an experiment with one rigid body", where="mime.demos")
    return bodies[0]


def confinement(experiment: Experiment) -> Confinement:
    """The confinement the contact planned for the experiment's one body (its build report, its hold)."""
    return experiment.build().confinement(body_of(experiment))


def run(subject: Experiment | RigidInertialNode, steps: int, state0: RigidState | None = None) -> BodyRun:
    """Run a body for ``steps`` steps of ``DT`` s: an experiment's one body with what its contact planned,
    or a bare body, free.

    Returns a :class:`~mime._simulate.BodyRun`: the states after each step (m, unit quaternion, m/s,
    rad/s in the body frame) and the contact's report per step, NumPy arrays over the steps.
    ``state0`` replaces the body's start.
    """
    if isinstance(subject, Experiment):
        body = body_of(subject)
        inputs = subject.build().step_inputs(body)
    else:
        body, inputs = subject, subject.step_inputs()
    return run_body(inputs, body.start if state0 is None else state0, DT, steps)


def hull_gaps(hull: Hull, surface: Any, positions: np.ndarray, orientations: np.ndarray, spacing: float) -> np.ndarray:
    """Each pose's smallest ``distance - margin`` over a dense sampling of the hull (``spacing``), m."""
    pts, _, _ = hull.sample(spacing)
    with jax.enable_x64(True):
        # NumPy in: the compiled call converts its arguments, without an eager JAX program per leaf
        return np.asarray(_gaps(shape_of(surface), np.asarray(pts), np.asarray(positions), np.asarray(orientations)))


@jit
def _gaps(surface: Any, P: Any, positions: Any, orientations: Any) -> Any:
    def one(x, q):
        phi, _ = surface.distance_and_normal(x + P @ rotation.matrix(q).T)
        return jnp.min(phi) - MARGIN

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


@dataclass(frozen=True)
class FreeRow:
    """One hull kind flying past the floor (:func:`flying`): its samples, whether any step touched, its
    nearest gap (m), at how many steps the hold chose points (``held_steps``: the others were clear of its
    reach), and whether the held run equals the free one bit for bit."""

    kind: str
    samples: int
    touched: bool
    nearest: float
    held_steps: int
    bitwise: bool


SKIM = 6e-5
"""How far beyond the margin a flight over the floor starts its bounding ball, in metres.

It lies within the hold's reach at the flights' speed (the samples' shortfall, 0.1 mm at the rule's
spacing, and twice a step's travel, about 10 µm; ``mime.interactions._hold.clear``), so that the hold
chooses and holds points at the first steps, until the flight has risen clear of that reach."""


def flying(kind: str, geometry: Any) -> RigidInertialNode:
    """A 1 mg body of ``geometry`` flying past the floor with drag, a force and a torque: its bounding ball
    starts :data:`SKIM` beyond the margin and rises (the capsule flies inside the narrow tube, along its
    axis, clear of the wall)."""
    hull = geometry if isinstance(geometry, Hull) else Hull([geometry])
    start: dict[str, Any] = dict(position=(0.0, 0.0, hull.extent + MARGIN + SKIM), velocity=(1e-3, -5e-4, 2e-3),
                                 angular_velocity=(3.0, -2.0, 5.0))
    if kind == "capsule":
        start = dict(position=(0.0, 0.0, 0.0), orientation=lying_orientation(), angular_velocity=(0.0, 0.0, 5.0),
                     velocity=(1e-3, 0.0, 0.0))
    return make_body(
        geometry, mass=1e-6, force=ConstantLoad((0.0, 1e-9, 0.0)), torque=ConstantLoad((1e-15, 0.0, -2e-15)),
        translational_drag=1e-5, rotational_drag=1e-14, **start,
    )


def flying_surface(kind: str) -> Any:
    """The surface a flying body of ``kind`` is held against: the narrow tube's for the capsule, the floor's else."""
    return NARROW_TUBE.inner_surface if kind == "capsule" else FLOOR.surface


def same_bits(a: RigidState, b: RigidState) -> bool:
    """Whether two runs' states are equal bit for bit."""
    return all(np.array_equal(np.asarray(getattr(a, k)).view(np.uint64), np.asarray(getattr(b, k)).view(np.uint64))
               for k in RigidState.FIELDS)


def free_body_bitwise(steps: int = STEPS) -> list[FreeRow]:
    """Each hull kind flying past the floor (:func:`flying`), with and without the contact: equal bit for bit?"""
    rows = []
    for name, g in _kinds():
        free = run(flying(name, g), steps)
        experiment = attach(flying(name, g), flying_surface(name))
        held = run(experiment, steps)
        gap = np.asarray(held.report.contact_gap)
        rows.append(FreeRow(name, confinement(experiment).report.samples, bool(held.report.touching.any()),
                            float(gap.min()), int(np.isfinite(gap).sum()), same_bits(free.states, held.states)))
    return rows


# ---------------------------------------------------------------------------------------
# 2. the turned body in a narrow tube
# ---------------------------------------------------------------------------------------
LONG_CAPSULE = Capsule(radius=2.5e-4, length=2.0e-3)
"""2.5 mm long in all: longer than the narrow tube is wide (2 mm)."""


@dataclass(frozen=True)
class TubeRun:
    """The capsule turned in the narrow tube under one version: per step the times (s), the axis's angle
    from the tube's axis (rad), the exact smallest ``distance - margin`` (m), positions and orientations."""

    version: str
    times: np.ndarray
    angle: np.ndarray
    min_gap: np.ndarray
    positions: np.ndarray
    orientations: np.ndarray


@dataclass(frozen=True)
class NarrowTube:
    """The narrow tube's two runs, 0.1.0's centre hold and 0.4.0's hull hold, and the pass 0.1.0 is
    predicted to make (m): the capsule's half length and radius, less the tube's radius."""

    centre: TubeRun
    hull: TubeRun
    predicted_pass: float


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
    axis = _body_axes(orientations)
    ends = []
    for s in (-1.0, 1.0):
        e = positions + axis * (s * capsule.length / 2)
        r = e - np.asarray(tube.centre)
        ends.append(np.linalg.norm(r - (r @ a)[:, None] * a, axis=1))
    return tube.radius - capsule.radius - np.maximum(*ends) - MARGIN


def _body_axes(orientations: np.ndarray) -> np.ndarray:
    """``(n, 3)``: each pose's body ``z`` axis in the world, the third column of ``R(q)``, for the
    ``(n, 4)`` orientations at once. ``R(q) (0, 0, l)`` is that column times ``l`` (its other two
    products are zeros), so this gives the bits of one matrix product a pose."""
    return rotation.matrix(np.asarray(orientations, dtype=np.float64).T)[:, 2, :].T


def axis_angle(orientations: np.ndarray) -> np.ndarray:
    """The body axis's angle from the world's ``x`` axis (the tube's), rad, per orientation ``(n, 4)``."""
    return np.arccos(np.clip(np.abs(_body_axes(orientations)[:, 0]), 0.0, 1.0))


def narrow_tube(steps: int = STEPS) -> NarrowTube:
    """The long capsule turned across the narrow tube by a steady torque, under 0.1.0 and 0.4.0."""
    runs = {}
    for version in ("0.1.0", "0.4.0"):
        s = run(attach(_turning_capsule(), NARROW_TUBE.inner_surface, version=version), steps).states
        gaps = capsule_tube_gaps(LONG_CAPSULE, NARROW_TUBE, s.position, s.orientation)
        runs[version] = TubeRun(version, DT * np.arange(1, steps + 1), axis_angle(s.orientation), gaps, s.position,
                                s.orientation)
    g = LONG_CAPSULE
    return NarrowTube(runs["0.1.0"], runs["0.4.0"], (g.length / 2 + g.radius) - NARROW_TUBE.radius)


# ---------------------------------------------------------------------------------------
# 3. spin on the floor
# ---------------------------------------------------------------------------------------
SPIN_CYLINDER = Cylinder(radius=5e-4, length=2e-3)
SPIN_MESH_SIDES = 24
"""The sides of the spinning cylinder's mesh (MIME-ANO-131)."""
SPIN_MESH = cylinder_mesh(5e-4, 2e-3, SPIN_MESH_SIDES)
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


@dataclass(frozen=True)
class SpinRun:
    """A body spun on the floor: per step its spin about its axis (rad/s) and the flags, and its samples."""

    name: str
    spin: np.ndarray
    held_by_samples: np.ndarray
    touching: np.ndarray
    samples: int

    @property
    def kept(self) -> float:
        """The share of the spin it kept after the last step."""
        return float(self.spin[-1] / SPIN)


@dataclass(frozen=True)
class SpinOnFloor:
    """The smooth cylinder (held at its support) and its 24-sided mesh (held at its samples), spun on the floor."""

    cylinder: SpinRun
    mesh: SpinRun


def _spin(name: str, geometry: Any, steps: int) -> SpinRun:
    experiment = attach(spinner(geometry, 5e-4, name), FLOOR.surface)
    r = run(experiment, steps)
    return SpinRun(name, r.states.angular_velocity[:, 2], r.report.held_by_samples, r.report.touching,
                   confinement(experiment).report.samples)


def spin_on_floor(steps: int = STEPS) -> SpinOnFloor:
    """A smooth cylinder (held at its support) and a 24-sided mesh of it (held at its samples), spun on the floor."""
    return SpinOnFloor(_spin("cylinder", SPIN_CYLINDER, steps), _spin("mesh", SPIN_MESH, steps))


@dataclass(frozen=True)
class ScrewSpin:
    """The screw spun on the floor at one spacing (m): its samples and the share of its spin it kept."""

    spacing: float
    samples: int
    kept: float


def screw_spin_by_spacing(spacings: tuple[float, ...] = (2.0e-4, 1.5e-4, 1.0e-4, 0.7e-4), steps: int = STEPS) -> list[ScrewSpin]:
    """The screw held at its support, spun on the floor at several spacings."""
    rows = []
    for h in spacings:
        experiment = attach(spinner(SPIN_SCREW, SPIN_SCREW.outer_radius, "screw"), FLOOR.surface, spacing=h)
        s = run(experiment, steps).states
        rows.append(ScrewSpin(h, confinement(experiment).report.samples, float(s.angular_velocity[-1, 2] / SPIN)))
    return rows


# ---------------------------------------------------------------------------------------
# 4. two walls, short levers: c^2 a sweep
# ---------------------------------------------------------------------------------------
SHORT_CAPSULE = Capsule(radius=2.5e-4, length=1.31e-3)
"""1.81 mm in all: it cannot turn square across the tube within the margin, and jams nearly square."""


@jit
def _first_rows(inputs: Any, state: RigidState) -> tuple[Any, ...]:
    from mime.interactions._solve import gram
    from mime.nodes.rigid import free_solve

    free = free_solve(inputs, state, 0.0, DT)
    A = inputs.hold.choose(state.position, state.orientation)
    K = gram(A.normal, A.lever, 1.0 / free.mass_eff, 1.0 / free.inertia_eff)
    u0 = A.normal @ free.velocity + A.lever @ free.angular_velocity
    return A.point, K, u0, -jnp.maximum(A.gap, 0.0) / DT, A.gap, A.lever, A.normal, free.mass_eff, free.inertia_eff


@jit
def _pgs40(K: Any, u0: Any, target: Any, active: Any) -> Any:
    from mime.interactions._solve import pgs

    return pgs(K, u0, target, active, 40)[2]


@dataclass(frozen=True)
class TwoWalls:
    """The short capsule jammed across the tube.

    Attributes:
        coupling: ``c``, the two end rows' coupling in the Delassus matrix.
        residuals: the two rows' residual over 40 sweeps (m/s).
        residuals_all_rows: every held row's residual over 40 sweeps (m/s).
        ratios: each sweep's residual over the one before.
        unconverged, touching: the flags per step.
        residual: the step's ``contact_residual`` per step (m/s).
        angle: the capsule's final angle from the tube's axis, degrees.
        lever: the longest lever of a held point, m.
        min_gap: the exact smallest ``distance - margin`` over the run, m.
        normals, levers: ``(2, 3)`` the two end rows' world normals and body-frame levers (m).
        mass: the body's effective mass, kg; ``inertia`` ``(3,)`` its effective principal moments, kg m^2.
    """

    coupling: float
    residuals: np.ndarray
    residuals_all_rows: np.ndarray
    ratios: np.ndarray
    unconverged: np.ndarray
    touching: np.ndarray
    residual: np.ndarray
    angle: float
    lever: float
    min_gap: float
    normals: np.ndarray
    levers: np.ndarray
    mass: float
    inertia: np.ndarray


def two_walls(steps: int = STEPS) -> TwoWalls:
    """The short capsule turned by a torque until it jams across the tube, both ends pressed into the wall."""
    mass = 1e-6
    body = make_body(
        SHORT_CAPSULE, mass=mass, name="capsule", orientation=lying_orientation(math.radians(60.0)),
        torque=ConstantLoad((0.0, 0.0, 4e-10)), rotational_drag=2e-12, translational_drag=1e-4,
    )
    experiment = attach(body, NARROW_TUBE.inner_surface)
    r = run(experiment, steps)
    s = r.states
    with jax.enable_x64(True):
        inputs = experiment.build().step_inputs(body)  # NumPy leaves: the compiled call converts them
        # the rows are chosen by the hold with its one kind static (HullHold.kinds): the same points, to
        # the last bit, from a program that does not compile the searches of every other kind
        inputs = replace(inputs, hold=replace(inputs.hold, kinds=(type(SHORT_CAPSULE),)))
        last = jax.tree_util.tree_map(lambda a: np.asarray(a[-1]), s)
        point, K, u0, target, gap, levers, normals, mass_eff, inertia_eff = _first_rows(inputs, last)
        # the two distinct rows (one per end)
        ends = np.asarray(point)[:, 2] > 0
        i, j = int(np.argmax(ends)), int(np.argmax(~ends))
        pick = jnp.array([i, j])
        K2 = K[pick][:, pick]
        hist = np.asarray(_pgs40(K2, u0[pick], target[pick], jnp.array([True, True])))
        c = float(K2[0, 1] / jnp.sqrt(K2[0, 0] * K2[1, 1]))
        hist_all = np.asarray(_pgs40(K, u0, target, jnp.isfinite(gap)))
        lever = float(np.max(np.linalg.norm(np.asarray(levers), axis=1)))
    return TwoWalls(
        coupling=c, residuals=hist, residuals_all_rows=hist_all, ratios=hist[1:] / hist[:-1],
        unconverged=r.report.unconverged, touching=r.report.touching, residual=r.report.contact_residual,
        angle=float(np.degrees(axis_angle(s.orientation[-1:])[0])), lever=lever,
        min_gap=float(capsule_tube_gaps(SHORT_CAPSULE, NARROW_TUBE, s.position, s.orientation).min()),
        normals=np.asarray(normals)[[i, j]], levers=np.asarray(levers)[[i, j]], mass=float(mass_eff),
        inertia=np.asarray(inertia_eff, dtype=np.float64),
    )


# ---------------------------------------------------------------------------------------
# 5. a hull-less body
# ---------------------------------------------------------------------------------------
HULLLESS_EXTENT = 4e-4
"""The extent of the body with no hull in :func:`hullless_body`, and the radius of the ball beside it, m."""


@dataclass(frozen=True)
class HulllessBody:
    """A body with no hull dropped on the floor beside a ball of its extent.

    Attributes:
        min_gap: the smallest ``height - extent - margin`` over the run, m.
        difference: the largest difference of position or velocity from the ball's run (m, m/s).
        touching_steps: the hull-less body's touching steps.
        heights: its centre's height per step, m.
    """

    min_gap: float
    difference: float
    touching_steps: int
    heights: np.ndarray


def hullless_body(steps: int = STEPS) -> HulllessBody:
    """A body with no hull (extent :data:`HULLLESS_EXTENT`) and a ball of that radius, both dropped on the floor."""
    runs = {}
    for name, h in (("no hull", Hull(extent=HULLLESS_EXTENT)), ("sphere", Hull([Sphere(HULLLESS_EXTENT)]))):
        body = make_body(h, mass=1e-6, name=name.replace(" ", "_"), position=(0.0, 0.0, 8e-4),
                         velocity=(2e-3, 0.0, -5e-3), angular_velocity=(0.0, 7.0, 0.0), force=ConstantLoad((0.0, 0.0, -1e-5)))
        runs[name] = run(attach(body, FLOOR.surface), steps)
    s0, s1 = runs["no hull"].states, runs["sphere"].states
    height_gap = s0.position[:, 2] - HULLLESS_EXTENT - MARGIN
    return HulllessBody(
        min_gap=float(height_gap.min()),
        difference=float(max(np.max(np.abs(getattr(s0, k) - getattr(s1, k))) for k in ("position", "velocity"))),
        touching_steps=int(runs["no hull"].report.touching.sum()),
        heights=s0.position[:, 2],
    )


# ---------------------------------------------------------------------------------------
# 6. the touching point moves continuously on a turning ellipsoid
# ---------------------------------------------------------------------------------------
ELLIPSOID = Ellipsoid(8e-4, 4e-4, 3e-4)


@dataclass(frozen=True)
class TurningEllipsoid:
    """The tumbling ellipsoid's held point, at the steps at which the hold chose one.

    At a step where the ellipsoid flies clear of the hold's reach (``mime.interactions._hold.clear``) no
    point is chosen (the report's ``contact_gap`` is ``inf``); those steps are left out, and a move is
    taken only between two consecutive steps that both held a point.

    Attributes:
        held: ``(steps,)`` bool, whether the step chose a point.
        points: ``(h, 3)`` m, body frame: the first pass's deepest held point at each of the ``h`` held steps.
        orientations: ``(h, 4)`` each held step's starting orientation (unit quaternion ``(w, x, y, z)``).
        exact: ``(h, 3)`` m: the ellipsoid's exact support at each held step's starting pose.
        off_support: the largest distance between the two, m.
        largest_move: the held point's largest move in one step, m.
        worst_move_over_bound: the largest move over its bound ``(a^2 / c) dtheta``.
        sample_hops: the nearest sample's moves over the same steps, m (what a hold at samples would do).
        spacing: the sampling spacing, m.
        touching: the flag per step.
    """

    held: np.ndarray
    points: np.ndarray
    orientations: np.ndarray
    exact: np.ndarray
    off_support: float
    largest_move: float
    worst_move_over_bound: float
    sample_hops: np.ndarray
    spacing: float
    touching: np.ndarray


def turning_ellipsoid(steps: int = STEPS) -> TurningEllipsoid:
    """An ellipsoid lying on the floor, lightly pressed, tumbling end over end; its held point's path."""
    mass = 1e-6
    body = make_body(ELLIPSOID, mass=mass, name="ellipsoid", position=(0.0, 0.0, 3e-4 + MARGIN),
                     angular_velocity=(0.0, 12.0, 0.0), force=ConstantLoad((0.0, 0.0, -1e-10)))
    experiment = attach(body, FLOOR.surface)
    r = run(experiment, steps)
    s = r.states
    held = np.isfinite(np.asarray(r.report.contact_gap))
    pts = np.asarray(r.report.contact_point)[held]
    spacing = confinement(experiment).spacing
    with jax.enable_x64(True):
        # the ellipsoid's own deepest point at each held step's starting pose (the exact support)
        qs = np.concatenate([body.start.orientation[None], s.orientation[:-1]])[held]
        # every pose at once, op by op as one pose's (the same bits): each R(q)^T (0, 0, -1), then the support
        down = jax.vmap(lambda R: R.T @ jnp.array([0.0, 0.0, -1.0]), in_axes=2)(rotation.matrix(jnp.asarray(qs.T)))
        exact = np.asarray(jax.vmap(ELLIPSOID.support)(down))
    # a move is one step's: between consecutive held steps only (not across a stretch flown clear)
    step_index = np.flatnonzero(held)
    next_held = np.diff(step_index) == 1
    moves = np.linalg.norm(np.diff(pts, axis=0), axis=1)[next_held]
    # the support map's continuity: a turn by dtheta moves the support by at most rho_max dtheta,
    # rho_max = a^2 / c the largest radius of curvature of the ellipse the turn sweeps
    dq = np.array([abs(float(np.clip(np.dot(qs[k], qs[k + 1]), -1.0, 1.0))) for k in range(len(qs) - 1)])[next_held]
    turns = 2 * np.arccos(np.clip(dq, -1.0, 1.0))
    a, c = ELLIPSOID.a, ELLIPSOID.c
    bound = (a * a / c) * turns
    samples, _ = ELLIPSOID.sample(spacing)
    nearest = np.array([samples[np.argmax(samples @ (rotation.matrix(q).T @ np.array([0.0, 0.0, -1.0])))]
                        for q in np.asarray(qs)]).reshape(-1, 3)
    return TurningEllipsoid(
        held=held,
        points=pts,
        orientations=np.asarray(qs),
        exact=exact,
        # with no step held, or no two held in a row, there is nothing to show: inf, which no bound passes
        off_support=float(np.max(np.linalg.norm(pts - exact, axis=1))) if len(pts) else np.inf,
        largest_move=float(moves.max()) if len(moves) else np.inf,
        worst_move_over_bound=float(np.max(moves / np.maximum(bound, 1e-300))) if len(moves) else np.inf,
        sample_hops=np.linalg.norm(np.diff(nearest, axis=0), axis=1)[next_held],
        spacing=spacing,
        touching=r.report.touching,
    )


# ---------------------------------------------------------------------------------------
# 7. flags
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Flags:
    """A scenario's flags per step: ``support_short`` and ``touching``."""

    support_short: np.ndarray
    touching: np.ndarray


def support_short_screw(newton_steps: int = 1, steps: int = STEPS) -> Flags:
    """The spinning screw on the floor with its Newton search bounded at ``newton_steps``: support_short raises."""
    g = Screw(SPIN_SCREW.core_radius, SPIN_SCREW.thread_depth, SPIN_SCREW.pitch, SPIN_SCREW.length, newton_steps=newton_steps)
    r = run(attach(spinner(g, g.outer_radius, "screw"), FLOOR.surface), steps)
    return Flags(r.report.support_short, r.report.touching)


@dataclass(frozen=True)
class TouchingIsForce:
    """Per step of a bouncing sphere: ``touching``; whether the contact changed the step's state
    (``changed``, against the free step from the same start); whether a force or push acted (``forced``)."""

    touching: np.ndarray
    changed: np.ndarray
    forced: np.ndarray


def touching_is_force(steps: int = STEPS) -> TouchingIsForce:
    """A sphere bouncing on to the floor: does ``touching`` mark exactly the steps whose state the contact changed?"""
    from mime.dynamics import FreeFlight
    from mime.nodes.rigid import run_on_host

    body = make_body(Sphere(4e-4), mass=1e-6, name="ball", position=(0.0, 0.0, 1.2e-3),
                     velocity=(1e-3, 0.0, 0.0), force=ConstantLoad((0.0, 0.0, -2e-5)))
    experiment = attach(body, FLOOR.surface)
    r = run(experiment, steps)
    s = r.states
    with jax.enable_x64(True):
        # NumPy throughout: the compiled call converts its arguments, and run_on_host returns NumPy (no eager
        # JAX program per leaf either way)
        held_inputs = experiment.build().step_inputs(body)
        free_inputs = replace(held_inputs, hold=FreeFlight())
        starts = jax.tree_util.tree_map(lambda a0, a: np.concatenate([a0[None], a[:-1]]), body.start, s)

        def after(inputs: Any, k: int) -> RigidState:
            # one step from the k-th start, as step number k: the run's own compiled program
            start = jax.tree_util.tree_map(lambda a: a[k], starts)
            states, _ = run_on_host(inputs, start, DT, 1, first=k)
            return jax.tree_util.tree_map(lambda a: a[0], states)

        def differ(a: RigidState, b: RigidState) -> bool:
            return any(bool(np.any(getattr(a, f) != getattr(b, f))) for f in RigidState.FIELDS)

        changed = np.array([differ(after(held_inputs, k), after(free_inputs, k)) for k in range(steps)])
    forced = (r.report.contact_impulse > 0) | (r.report.contact_push > 0)
    return TouchingIsForce(r.report.touching, changed, forced)


# ---------------------------------------------------------------------------------------
# 8. spacing rules
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SpacingRules:
    """The spacing rule at work (lengths in m).

    Attributes:
        floor_fraction: ``Contact.SPACING_FLOOR``.
        default: the long capsule's default spacing; ``default_expected`` the rule's value, computed here.
        tiny_margin_spacing: the spacing under :data:`TINY_MARGIN`; ``floor_spacing`` the floor's.
        refused: the message refusing a coarse spacing for the box (``None`` had it been accepted).
        coarse: that coarse spacing; ``box_shortfall`` the box's samples' shortfall at it.
    """

    floor_fraction: float
    default: float
    default_expected: float
    tiny_margin_spacing: float
    floor_spacing: float
    refused: str | None
    coarse: float
    box_shortfall: float


def spacing_rules() -> SpacingRules:
    """The default spacing by the rule; a tiny margin takes the floor; a coarse spacing refused for a box."""
    from mime.errors import ValidationError

    capsule = make_body(LONG_CAPSULE, mass=1e-6)
    default = confinement(attach(capsule, NARROW_TUBE.inner_surface)).spacing
    tiny = make_body(LONG_CAPSULE, mass=1e-6)
    e = Experiment()
    e.attach(Contact.Projection(margin=TINY_MARGIN), body=tiny, surface=NARROW_TUBE.inner_surface)
    e.build("exploratory")
    box = make_body(Box(6e-4, 4e-4, 3e-4), mass=1e-6)
    coarse = 3 * MARGIN
    try:
        attach(box, FLOOR.surface, spacing=coarse)
        refused = None
    except ValidationError as exc:
        refused = str(exc)
    return SpacingRules(
        floor_fraction=Contact.SPACING_FLOOR,
        default=default,
        default_expected=max(MARGIN, Contact.SPACING_FLOOR * capsule.size),
        tiny_margin_spacing=confinement(e).spacing,
        floor_spacing=Contact.SPACING_FLOOR * tiny.size,
        refused=refused,
        coarse=coarse,
        box_shortfall=Box(6e-4, 4e-4, 3e-4).shortfall(coarse),
    )


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


@dataclass(frozen=True)
class MicrorobotRun:
    """The seed's microrobot in the narrow tube: the run's record, the smallest ``distance - margin`` over a
    dense sampling of its hull (m), the experiment (as the seed attaches it) and the body."""

    record: RunRecord
    min_gap: float
    experiment: Experiment
    body: RigidInertialNode


def helical_microrobot(steps: int = 600) -> MicrorobotRun:
    """The microrobot in the narrow tube, attached exactly as the seed writes it, run and measured."""
    umr = microrobot()
    tube = NARROW_TUBE
    experiment = Experiment()
    experiment.attach(Contact.Projection(margin=mm(0.1)), body=umr, surface=tube.inner_surface)
    record = experiment.run(dt=DT, steps=steps, profile="exploratory")
    gaps = hull_gaps(umr.hull, tube.inner_surface, record.states["position"], record.states["orientation"], MARGIN / 4)
    return MicrorobotRun(record, float(gaps.min()), experiment, umr)
