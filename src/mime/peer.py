"""One scene, two engines: MIME and MuJoCo built from the same declared numbers.

A :class:`Scene` declares a rigid body (its hull kind, mass, principal inertia), its start
(position, orientation, velocity, angular velocity) and the gravity it falls under, above a
floor: the plane through the origin, tilted ``slope_deg`` about the world's y axis (every scene
of the chapter stands on one floor tilted :data:`INCLINE_DEG`; :func:`on_floor` declares a scene
in the floor's own frame). :func:`run_mime` holds it with MIME's contact
(``Contact.Projection`` with the margin :data:`MARGIN`), run through the public
``Experiment.run``; :func:`run_mujoco` builds the same scene as a MuJoCo model
(:func:`mjcf`) and steps it with ``mujoco.mj_step``. Both return a :class:`Trajectory`, the
state after each step in one set of conventions, which the two engines share: the position
in metres (world), the orientation as a unit quaternion ``(w, x, y, z)`` taking the body's
frame to the world's, the velocity in m/s (world) and the angular velocity in rad/s in the
body's frame.

The MuJoCo side is set up as its documentation asks for a fair comparison:

- the margin is on the body's geom only: MuJoCo adds the margins of the two geoms of a
  contact, so the floor's stays 0;
- one contact dimension (``condim = 1``): the contact is frictionless, as MIME's is;
- a constant impedance ``d`` (:data:`IMPEDANCE`, MuJoCo's largest), the reference set by
  ``solref = (timeconst, dampratio)`` with ``timeconst`` :data:`TIMECONST_STEPS` steps (the
  least its ``refsafe`` flag leaves alone) and ``dampratio = 1``;
- the exact diagonal of the constraint-space inertia (the ``diagexact`` flag), so that a
  single contact row follows the documented interpolation ``a = d a_ref + (1 - d) a_0``
  exactly rather than through its body-based approximation;
- the semi-implicit ``Euler`` integrator, the ``Newton`` solver to a tolerance of
  :data:`SOLVER_TOLERANCE`, float64 throughout.

Nothing of either engine is tuned to the other's result: every number comes from the scene
and the constants here. ``mujoco`` is imported only by the functions that use it.

>>> s = SCENES["drop"]
>>> s.shape.radius, s.mass, s.margin
(0.0004, 1e-06, 0.0001)
>>> 'margin="0.0001"' in mjcf(s) and mjcf(s).count("margin=") == 1
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np

from mime.errors import Number, ValidationError, Vector, invalid, real_array
from mime.experiment import Experiment
from mime.geometry import Box, Capsule, Hull, Sphere
from mime.geometry import solid_inertia as geometry_inertia
from mime.interactions import Contact
from mime.nodes import ConstantLoad, RigidInertialNode
from mime.scene import Plane
from mime.units import mm

__all__ = [
    "MARGIN",
    "DT",
    "G",
    "STEPS",
    "TIMECONST_STEPS",
    "DAMPRATIO",
    "IMPEDANCE",
    "SOLVER_TOLERANCE",
    "INCLINE_DEG",
    "BALL",
    "BOX",
    "CAPSULE",
    "MASS",
    "DROP_SPEED",
    "TILT_DEG",
    "INSET",
    "Scene",
    "Trajectory",
    "SCENES",
    "on_floor",
    "DROP_STEPS",
    "drop_scenes",
    "mid_step_scenes",
    "solid_inertia",
    "mime_floor",
    "mime_body",
    "mime_experiment",
    "run_mime",
    "mjcf",
    "mujoco_model",
    "mujoco_start",
    "run_mujoco",
    "in_floor_frame",
    "rotation_matrices",
    "reach",
    "lowest_point",
    "lowest_gap",
    "inelastic_impact",
    "MID_STEP_PHASES",
    "MID_STEP_COMPARE",
    "KICK",
    "mid_step_landing",
    "spin_kicks",
]

MARGIN = 1e-4
"""The margin in metres, ``mm(0.1)``, which is MIME's contact setting and the margin of the body's MuJoCo geom."""
DT = 1e-3
"""The step of both engines, s."""
G = 9.81
"""The acceleration of gravity, m/s^2."""
STEPS = 300
"""The steps of every scene (one count, so that MIME compiles one program per hull)."""
TIMECONST_STEPS = 2.0
"""MuJoCo's ``solref`` time constant in steps, ``timeconst = 2 dt``, the smallest its ``refsafe`` flag keeps."""
DAMPRATIO = 1.0
"""MuJoCo's ``solref`` damping ratio, 1 for critical damping."""
IMPEDANCE = 0.9999
"""MuJoCo's impedance ``d``, held constant by ``solimp = (d, d, ...)`` at its largest allowed value, ``mjMAXIMP``."""
SOLVER_TOLERANCE = 1e-12
"""MuJoCo's Newton solver tolerance."""
INCLINE_DEG = 20.0
"""The floor's slope in degrees, a tilt about the world's y axis shared by every scene of the chapter."""


def solid_inertia(shape: Any, mass: float) -> tuple[float, float, float]:
    """Principal moments of a uniform solid of ``mass`` kg, kg m^2, for the kinds the chapter's scenes
    use: :func:`mime.geometry.solid_inertia`'s rule (a ball ``2/5 m r^2``; a box ``m (b^2 + c^2) / 12``
    about each axis; a capsule as a cylinder of its whole length), the number both engines are given
    (exactness is not needed, sameness is)."""
    _peer_shape(shape, "solid_inertia")
    return geometry_inertia(shape, mass)


def _scene(scene: Any, where: str) -> None:
    """Refuse anything but a :class:`Scene`, naming it."""
    if not isinstance(scene, Scene):
        raise invalid("scene", scene, "a mime.peer.Scene (mime.peer.SCENES holds the chapter's)", where=where)


_SPEED = Number("a finite speed >= 0 (m/s)", at_least=0.0)
"""The declared check of the speed an impact leaves a body with along the normal."""


def _peer_shape(shape: Any, where: str) -> None:
    """Refuse a shape outside the chapter's three, whose closed forms (reach, lowest point) this module writes."""
    if not isinstance(shape, (Sphere, Box, Capsule)):
        raise invalid("shape", shape, "a Sphere, Box or Capsule", where=where)


def _unit_quaternion(q: Any, where: str) -> tuple[float, float, float, float]:
    allowed = "a unit quaternion (w, x, y, z), of length 1 within 1e-12"
    a = real_array(q, "orientation", allowed, shape=(4,), where=where)  # text is never read as a number
    if abs(float(np.linalg.norm(a)) - 1.0) > 1e-12:
        raise invalid("orientation", q, allowed, where=where)
    return tuple(float(c) for c in a)


def _vector(v: Any, name: str, where: str) -> tuple[float, float, float]:
    return _THREE.check(v, name, where=where)


_THREE = Vector("three finite numbers", n=3)
"""The declared check of a scene's vectors (position, velocities, gravity)."""


def rotation_matrices(q: np.ndarray) -> np.ndarray:
    """``R(q)`` of unit quaternions ``(..., 4)`` ``(w, x, y, z)``, ``(..., 3, 3)``."""
    q = np.asarray(q, dtype=float)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


@dataclass(frozen=True)
class Scene:
    """A body above the floor ``z = 0``, declared once for both engines.

    Attributes:
        name: What the scene is called.
        shape: The hull: a ``Sphere``, ``Box`` or ``Capsule`` (the kinds both engines have).
        mass: kg.
        position: The centre's start, m (world).
        orientation: The start, a unit quaternion ``(w, x, y, z)``, body to world.
        velocity: m/s (world).
        angular_velocity: rad/s (body frame).
        gravity: The acceleration of gravity, m/s^2 (world).
        slope_deg: The floor's tilt about the world's y axis, degrees: the floor is the plane
            through the origin facing ``n = (-sin a, 0, cos a)``; it falls towards -x.
        steps: How many steps of ``dt``.
        margin: m. dt: s.
    """

    name: str
    shape: Any
    mass: float
    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    angular_velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    gravity: tuple[float, float, float] = (0.0, 0.0, -G)
    slope_deg: float = 0.0
    steps: int = STEPS
    margin: float = MARGIN
    dt: float = DT

    def __post_init__(self) -> None:
        where = f"Scene {self.name!r}"
        if not isinstance(self.shape, (Sphere, Box, Capsule)):
            raise invalid("shape", self.shape, "a Sphere, Box or Capsule", where=where)
        if isinstance(self.slope_deg, bool) or not isinstance(self.slope_deg, (int, float)) or not (
                -90.0 < self.slope_deg < 90.0):
            raise invalid("slope_deg", self.slope_deg, "degrees in (-90, 90)", where=where)
        for name in ("mass", "margin", "dt"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise invalid(name, value, "a finite number > 0", where=where)
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) or self.steps < 1:
            raise invalid("steps", self.steps, "a whole number of at least 1", where=where)
        for name in ("position", "velocity", "angular_velocity", "gravity"):
            object.__setattr__(self, name, _vector(getattr(self, name), name, where))
        object.__setattr__(self, "orientation", _unit_quaternion(self.orientation, where))

    @property
    def inertia(self) -> tuple[float, float, float]:
        """The principal moments both engines are given, kg m^2 (:func:`solid_inertia`)."""
        return solid_inertia(self.shape, self.mass)

    @property
    def normal(self) -> tuple[float, float, float]:
        """The floor's outward normal (world)."""
        a = math.radians(self.slope_deg)
        return (-math.sin(a), 0.0, math.cos(a))

    @property
    def downhill(self) -> tuple[float, float, float]:
        """The floor's direction of steepest descent in the world, along the floor and towards -x."""
        a = math.radians(self.slope_deg)
        return (-math.cos(a), 0.0, -math.sin(a))

    def replace(self, **changes: Any) -> "Scene":
        """This scene with ``changes`` (any of its fields)."""
        return replace(self, **changes)


@dataclass(frozen=True)
class Trajectory:
    """The state after each of a run's steps, ``(steps, ...)`` NumPy float64 arrays.

    ``flags`` holds MIME's contact flags per step (``touching``, ``unconverged``, ...); a
    MuJoCo run has ``contacts``, its count of active contacts at each step's start, instead.
    """

    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray
    flags: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def steps(self) -> int:
        return int(self.position.shape[0])


# ---------------------------------------------------------------------------------------
# MIME
# ---------------------------------------------------------------------------------------
def mime_floor(scene: Scene) -> Plane:
    """The scene's floor for MIME: the plane through the origin facing ``scene.normal``."""
    return Plane((0.0, 0.0, 0.0), scene.normal)


def mime_body(scene: Scene) -> RigidInertialNode:
    """The scene's body for MIME, its weight a constant force ``m g`` and no torque."""
    _scene(scene, "mime_body")
    weight = tuple(scene.mass * g for g in scene.gravity)
    return RigidInertialNode(
        Hull([scene.shape]), mass=scene.mass, inertia=scene.inertia, name=scene.name.replace(" ", "_"),
        position=scene.position, orientation=scene.orientation, velocity=scene.velocity,
        angular_velocity=scene.angular_velocity, force=ConstantLoad(weight), torque=ConstantLoad((0.0, 0.0, 0.0)),
    )


def mime_experiment(scene: Scene) -> tuple[Experiment, RigidInertialNode]:
    """The scene as a MIME experiment: its body held above the floor by ``Contact.Projection(margin=...)``,
    the margin written in millimetres as the seed writes it (``mm(0.1)``)."""
    _scene(scene, "mime_experiment")
    body = mime_body(scene)
    experiment = Experiment()
    margin = mm(scene.margin * 1e3)  # in millimetres, as the seed writes it (mm(0.1)); the same double in metres
    experiment.attach(Contact.Projection(margin=margin), body=body, surface=mime_floor(scene))
    return experiment, body


def run_mime(scene: Scene) -> Trajectory:
    """Run the scene with MIME (``Experiment.run``, the exploratory profile)."""
    _scene(scene, "run_mime")
    experiment, _ = mime_experiment(scene)
    record = experiment.run(dt=scene.dt, steps=scene.steps, profile="exploratory")
    s = record.states
    return Trajectory(s["position"], s["orientation"], s["velocity"], s["angular_velocity"], dict(record.flags))


# ---------------------------------------------------------------------------------------
# MuJoCo
# ---------------------------------------------------------------------------------------
def _f(x: float) -> str:
    return repr(float(x))  # shortest text that reads back to the same double


def _geom(shape: Any) -> str:
    if isinstance(shape, Sphere):
        return f'type="sphere" size="{_f(shape.radius)}"'
    if isinstance(shape, Box):
        return f'type="box" size="{_f(shape.x / 2)} {_f(shape.y / 2)} {_f(shape.z / 2)}"'
    return f'type="capsule" size="{_f(shape.radius)} {_f(shape.length / 2)}"'


def mjcf(scene: Scene, *, diagexact: bool = True) -> str:
    """The scene as MuJoCo's XML (MJCF): the floor, and the body on a free joint at the origin
    (its start is written into ``qpos`` and ``qvel`` by :func:`mujoco_start`). ``diagexact=False``
    leaves MuJoCo's body-based approximation of the constraint-space diagonal (MJX has no exact one)."""
    _scene(scene, "mjcf")
    tc = TIMECONST_STEPS * scene.dt
    d = IMPEDANCE
    inertia = " ".join(_f(i) for i in scene.inertia)
    if min(scene.inertia) <= 1e-15:  # MuJoCo's mjMINVAL: it refuses a smaller moment
        raise invalid("inertia", scene.inertia, "every principal moment above 1e-15 kg m^2, which MuJoCo needs "
                      "(rescale the units)", where=f"mjcf: scene {scene.name!r}")
    gravity = " ".join(_f(g) for g in scene.gravity)
    floor_quat = " ".join(_f(c) for c in _about_y(-scene.slope_deg))  # the floor's z axis to its normal
    return f"""<mujoco model="{scene.name}">
  <option timestep="{_f(scene.dt)}" gravity="{gravity}" integrator="Euler" solver="Newton"
          tolerance="{_f(SOLVER_TOLERANCE)}" iterations="100" ls_iterations="50">
    <flag diagexact="{'enable' if diagexact else 'disable'}"/>
  </option>
  <default>
    <geom condim="1" solref="{_f(tc)} {_f(DAMPRATIO)}" solimp="{_f(d)} {_f(d)} 0.001 0.5 2"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" quat="{floor_quat}"/>
    <body name="body">
      <freejoint/>
      <inertial pos="0 0 0" mass="{_f(scene.mass)}" diaginertia="{inertia}"/>
      <geom name="hull" {_geom(scene.shape)} margin="{_f(scene.margin)}"/>
    </body>
  </worldbody>
</mujoco>
"""


def mujoco_model(scene: Scene, *, diagexact: bool = True) -> Any:
    """The compiled ``mujoco.MjModel`` of :func:`mjcf`."""
    _scene(scene, "mujoco_model")
    import mujoco

    return mujoco.MjModel.from_xml_string(mjcf(scene, diagexact=diagexact))


def mujoco_start(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """The scene's start as MuJoCo's free-joint ``(qpos, qvel)``: position and quaternion
    (w, x, y, z); linear velocity (world) and angular velocity (body frame)."""
    qpos = np.concatenate([scene.position, scene.orientation])
    qvel = np.concatenate([scene.velocity, scene.angular_velocity])
    return qpos, qvel


def run_mujoco(scene: Scene, model: Any = None) -> Trajectory:
    """Run the scene with MuJoCo, one ``mj_step`` at a time (``model``: a compiled model of it, to reuse)."""
    _scene(scene, "run_mujoco")
    import mujoco

    model = mujoco_model(scene) if model is None else model
    data = mujoco.MjData(model)
    data.qpos[:], data.qvel[:] = mujoco_start(scene)
    qpos = np.empty((scene.steps, 7))
    qvel = np.empty((scene.steps, 6))
    contacts = np.empty(scene.steps, dtype=int)
    for k in range(scene.steps):
        mujoco.mj_step(model, data)
        qpos[k], qvel[k] = data.qpos, data.qvel
        contacts[k] = data.ncon  # found at this step's start
    return Trajectory(qpos[:, :3], qpos[:, 3:], qvel[:, :3], qvel[:, 3:], {"contacts": contacts})


# ---------------------------------------------------------------------------------------
# the scenes
# ---------------------------------------------------------------------------------------
BALL = Sphere(4e-4)
"""The ball of the drop, 0.4 mm in radius."""
BOX = Box(6e-4, 4e-4, 3e-4)
"""The box of the free flight and the incline."""
CAPSULE = Capsule(radius=2.5e-4, length=2.0e-3)
"""The capsule of the free flight and the impacts, 2.5 mm long in all."""
MASS = 1e-6
"""Every body's mass, kg (1 mg)."""
DROP_SPEED = 0.1
"""The speed the ball is dropped at and the capsule lands at, m/s."""
TILT_DEG = 30.0
"""The capsule's axis above the floor in the impacts, degrees."""
INSET = 1e-12
"""How far inside the margin a touching start puts the lowest point, in metres (1e-8 of the margin).

Exactly at the margin, rounding of the start's height decides whether MuJoCo's distance is below its
margin, and so whether it makes a contact at the first step."""


def _about_y(deg: float) -> tuple[float, float, float, float]:
    a = math.radians(deg) / 2
    return (math.cos(a), 0.0, math.sin(a), 0.0)


def _tilted_capsule() -> tuple[tuple[float, ...], float]:
    """The capsule's orientation (axis ``TILT_DEG`` above the floor, its lower end towards -x) and how far
    its lowest point lies below its centre, m."""
    q = _about_y(90.0 - TILT_DEG)  # body z (the axis) turned from vertical towards +x
    reach = CAPSULE.length / 2 * math.sin(math.radians(TILT_DEG)) + CAPSULE.radius
    return q, reach


def _floor_frame(slope_deg: float) -> np.ndarray:
    """The floor's frame in the world: columns ``(e1, e2, n)``, ``e1`` up the slope, ``n`` the normal."""
    return rotation_matrices(np.asarray(_about_y(-slope_deg)))


_HEIGHT = Number("a finite height > 0 (m), the centre above the floor", above=0.0)
"""The declared check of a scene's height above its floor."""
_ALONG = Vector("two finite numbers (m), a place along the floor", n=2)
"""The declared check of a scene's place along its floor."""
_SLOPE = Number("a finite angle in degrees")
"""The declared check of a floor's slope (the scene refuses one outside (-90, 90) degrees by name)."""


def on_floor(name: str, shape: Any, *, height: float, position: tuple[float, float] = (0.0, 0.0),
             orientation: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0), velocity: tuple[float, float, float] = (0.0, 0.0, 0.0),
             angular_velocity: tuple[float, float, float] = (0.0, 0.0, 0.0), gravity: bool = True,
             slope_deg: float = INCLINE_DEG) -> Scene:
    """A scene declared in the floor's frame (``x`` up the slope, ``z`` along the floor's normal), as the world sees it.

    ``height`` is the centre's distance from the floor (m), ``position`` its place along the floor,
    ``orientation`` and ``velocity`` are in the floor's frame, ``angular_velocity`` in the body's;
    ``gravity`` turns the world's ``(0, 0, -G)`` on or off. The mass is :data:`MASS`.
    """
    where = "on_floor"
    height = _HEIGHT.check(height, "height", where=where)
    position = _ALONG.check(position, "position", where=where)
    orientation = _unit_quaternion(orientation, where)
    velocity = _vector(velocity, "velocity", where)
    slope_deg = _SLOPE.check(slope_deg, "slope_deg", where=where)
    if not isinstance(gravity, bool):
        raise invalid("gravity", gravity, "True or False (a Python bool)", where=where)
    F = _floor_frame(slope_deg)
    x = F @ np.array([position[0], position[1], height])
    q = _compose(_about_y(-slope_deg), orientation)
    v = F @ np.asarray(velocity, dtype=float)
    return Scene(name, shape, MASS, position=tuple(x), orientation=q, velocity=tuple(v),
                 angular_velocity=angular_velocity, gravity=(0.0, 0.0, -G if gravity else 0.0), slope_deg=slope_deg)


def _compose(a: Any, b: Any) -> tuple[float, float, float, float]:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def in_floor_frame(scene: Scene, trajectory: Trajectory) -> Trajectory:
    """The trajectory seen from the floor: positions, velocities and orientations in the floor's frame
    (``x`` up the slope, ``z`` along the normal); angular velocities stay in the body's frame."""
    _scene(scene, "in_floor_frame")
    if not isinstance(trajectory, Trajectory):
        raise invalid("trajectory", trajectory, "a mime.peer.Trajectory", where="in_floor_frame")
    F = _floor_frame(scene.slope_deg)
    back = np.asarray(_about_y(scene.slope_deg))
    q = np.stack([_compose(back, qk) for qk in trajectory.orientation])
    return Trajectory(trajectory.position @ F, q, trajectory.velocity @ F, trajectory.angular_velocity,
                      dict(trajectory.flags))


def _scenes() -> dict[str, Scene]:
    q_cap, reach = _tilted_capsule()
    touching = MARGIN - INSET
    return {
        # a box thrown off the floor and tumbling, clear of it all the way
        "free box": on_floor("free box", BOX, height=0.02, velocity=(0.01, -0.02, 1.5),
                             angular_velocity=(30.0, -20.0, 50.0)),
        # the capsule thrown off the floor, spinning about an axis off its own: torque-free precession
        "free capsule": on_floor("free capsule", CAPSULE, height=0.02, orientation=q_cap, velocity=(0.01, -0.02, 1.5),
                                 angular_velocity=(20.0, 0.0, 60.0)),
        # the tilted capsule touching the floor at its lower end, moving into it and sliding; no gravity
        "impact": on_floor("impact", CAPSULE, height=reach + touching, orientation=q_cap,
                           velocity=(0.02, 0.01, -DROP_SPEED), gravity=False),
        # the ball dropped on to the floor at DROP_SPEED, spinning, from a height its fall closes in about ten steps
        "drop": on_floor("drop", BALL, height=BALL.radius + MARGIN + 10 * DROP_SPEED * DT, velocity=(0.0, 0.0, -DROP_SPEED),
                         angular_velocity=(3.0, -2.0, 5.0)),
        # the box lying on the floor, touching, sliding down from rest
        "incline box": on_floor("incline box", BOX, height=BOX.z / 2 + touching),
    }


SCENES: dict[str, Scene] = _scenes()
"""The chapter's scenes by name, each declared once for both engines, on one floor tilted by :data:`INCLINE_DEG`.

:meta hide-value:
"""


DROP_STEPS = 8
"""The step the dropped ball's free fall crosses the margin in (counted from 1)."""


def _phases(phases: Any, where: str) -> int:
    if isinstance(phases, bool) or not isinstance(phases, int) or phases < 1:
        raise invalid("phases", phases, "a whole number of at least 1", where=where)
    return phases


def drop_scenes(phases: int = 8) -> list[Scene]:
    """The drop at ``phases`` landing phases ``phi = (k + 1/2) / phases``.

    The ball starts at ``DROP_SPEED`` towards the floor, at the height from which its free fall (the
    semi-implicit Euler of both engines, under the weight's share along the normal ``g_n``) ends step
    :data:`DROP_STEPS` a share ``phi`` of that step's travel past the margin: the height above the
    margin is ``K h v0 + h^2 g_n K (K + 1) / 2 - phi h v_K``, with ``K = DROP_STEPS`` and
    ``v_K = v0 + K h g_n`` the speed the step ends with.
    """
    phases = _phases(phases, "drop_scenes")
    K, h = DROP_STEPS, DT
    g_n = G * math.cos(math.radians(INCLINE_DEG))
    v_K = DROP_SPEED + K * h * g_n
    out = []
    for k in range(phases):
        phi = (k + 0.5) / phases
        above = K * h * DROP_SPEED + h * h * g_n * K * (K + 1) / 2 - phi * h * v_K
        out.append(on_floor(f"drop {k}", BALL, height=BALL.radius + MARGIN + above, velocity=(0.0, 0.0, -DROP_SPEED),
                            angular_velocity=(3.0, -2.0, 5.0)))
    return out


def mid_step_scenes(phases: int = 8) -> list[Scene]:
    """The impact's capsule landing inside a step: it starts ``1 + (k + 1/2) / phases`` steps of its fall
    above the margin (no gravity), so its lower end reaches the margin a share ``(k + 1/2) / phases``
    into its second step."""
    phases = _phases(phases, "mid_step_scenes")
    q_cap, reach = _tilted_capsule()
    out = []
    for k in range(phases):
        lift = (1 + (k + 0.5) / phases) * DROP_SPEED * DT
        out.append(on_floor(f"mid-step {k}", CAPSULE, height=reach + MARGIN + lift, orientation=q_cap,
                            velocity=(0.02, 0.01, -DROP_SPEED), gravity=False))
    return out


# ---------------------------------------------------------------------------------------
# measures that read neither engine's code
# ---------------------------------------------------------------------------------------
def reach(shape: Any, direction: np.ndarray) -> np.ndarray:
    """How far the hull reaches from its centre along unit body-frame ``direction`` ``(..., 3)``, m:
    its support function in closed form (a ball ``r``; a box ``(x|d1| + y|d2| + z|d3|)/2``; a capsule
    ``r + L/2 |d3|``)."""
    _peer_shape(shape, "reach")
    d = np.asarray(direction, dtype=float)
    if isinstance(shape, Sphere):
        return np.full(d.shape[:-1], shape.radius)
    if isinstance(shape, Box):
        return 0.5 * (shape.x * np.abs(d[..., 0]) + shape.y * np.abs(d[..., 1]) + shape.z * np.abs(d[..., 2]))
    return shape.radius + shape.length / 2 * np.abs(d[..., 2])


def lowest_gap(scene: Scene, trajectory: Trajectory) -> np.ndarray:
    """Per step, how far the hull's lowest point lies beyond the margin, m (negative: past it), from the
    hull's closed-form reach towards the floor at each pose (:func:`reach`)."""
    _scene(scene, "lowest_gap")
    n = np.asarray(scene.normal)
    down = -np.einsum("kji,j->ki", rotation_matrices(trajectory.orientation), n)  # -R^T n, body frame
    return trajectory.position @ n - reach(scene.shape, down) - scene.margin


def lowest_point(shape: Any, down: np.ndarray) -> np.ndarray:
    """The hull's point farthest along the unit body-frame direction ``down``, m (body frame): its
    support point in closed form (a box's corner, a capsule's end ball's)."""
    _peer_shape(shape, "lowest_point")
    d = np.asarray(down, dtype=float)
    if isinstance(shape, Sphere):
        return shape.radius * d
    if isinstance(shape, Box):
        return 0.5 * np.array([shape.x, shape.y, shape.z]) * np.sign(d)
    return np.array([0.0, 0.0, shape.length / 2 * np.sign(d[2])]) + shape.radius * d


def inelastic_impact(scene: Scene, orientation: Any, velocity: Any, angular_velocity: Any,
                     normal_speed: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The twist just after a frictionless impact at the hull's lowest point, in closed form.

    The body, at ``orientation`` with ``velocity`` (m/s, world) and ``angular_velocity`` (rad/s,
    body frame), touches the floor at its lowest point ``p`` (lever ``r = R p`` from its centre,
    floor normal ``n``). One impulse ``P >= 0`` along ``n`` at that point leaves it moving along
    ``n`` at ``normal_speed`` (0: inelastic), and takes nothing along the floor:

        A = 1/m + (r x n) . I_w^-1 (r x n),   P = max(normal_speed - n . (v + w x r), 0) / A,
        v+ = v + P n / m,   w+ = w + I_w^-1 (r x n) P,   I_w^-1 = R diag(1/I) R^T.

    Returns ``(v+, w+)``, ``w+`` in the body frame.
    """
    where = "inelastic_impact"
    _scene(scene, where)
    orientation = _unit_quaternion(orientation, where)
    velocity = _vector(velocity, "velocity", where)
    angular_velocity = _vector(angular_velocity, "angular_velocity", where)
    normal_speed = _SPEED.check(normal_speed, "normal_speed", where=where)
    n = np.asarray(scene.normal)
    R = rotation_matrices(np.asarray(orientation, dtype=float))
    r = R @ lowest_point(scene.shape, -R.T @ n)
    inv_I = R @ np.diag(1.0 / np.asarray(scene.inertia)) @ R.T
    v = np.asarray(velocity, dtype=float)
    w = R @ np.asarray(angular_velocity, dtype=float)
    arm = np.cross(r, n)
    A = 1.0 / scene.mass + arm @ inv_I @ arm
    P = max(normal_speed - n @ (v + np.cross(w, r)), 0.0) / A
    return v + P * n / scene.mass, R.T @ (w + inv_I @ arm * P)


# ---------------------------------------------------------------------------------------
# the landing inside a step, and the box's spin on the incline
# ---------------------------------------------------------------------------------------
MID_STEP_PHASES = 8
"""How many landing phases the mid-step landing is run at."""
MID_STEP_COMPARE = 7
"""The step, counted from 0, whose twist is compared with the closed form.

Both engines have left the floor after the landing by then, and the capsule's other end has not
yet come down."""
KICK = 1e-3
"""A spin about an axis along the floor above this (rad/s) counts as a kick of the box on the incline."""


def mid_step_landing(run: Any, phases: int = MID_STEP_PHASES) -> dict[str, np.ndarray]:
    """The capsule landing inside a step at ``phases`` phases, run by ``run`` (:func:`run_mime` or
    :func:`run_mujoco`), against the closed form of its frictionless inelastic impact.

    The capsule falls without gravity and without spin, so it lands at the orientation it starts with,
    with its start's velocity, and flies free after: its twist after the impact is
    :func:`inelastic_impact` at the start, at every step until its other end comes down. Returns per
    phase: ``phase`` (the share of the step at which it reaches the margin), ``normal_speed_error``
    (``|v.n - v*.n| / |v*.n|``), ``spin_error`` (``|w - w*| / |w*|``), ``along_error`` (the largest change of
    the velocity along the floor, m/s) at step :data:`MID_STEP_COMPARE`; ``unconverged`` and
    ``touching`` (steps flagged up to it; MIME only, else zeros) and ``past`` (the deepest point past the
    margin over those steps, m; 0 if none).
    """
    if not callable(run):
        raise invalid("run", run, "a function of a scene (run_mime or run_mujoco)", where="mid_step_landing")
    rows: dict[str, list[float]] = {k: [] for k in ("phase", "normal_speed_error", "spin_error", "along_error",
                                                    "unconverged", "touching", "past")}
    k = MID_STEP_COMPARE
    for i, scene in enumerate(mid_step_scenes(phases)):
        n = np.asarray(scene.normal)
        v_star, w_star = inelastic_impact(scene, scene.orientation, scene.velocity, scene.angular_velocity)
        t = run(scene)
        dv = t.velocity[k] - v_star
        rows["phase"].append((i + 0.5) / phases)
        rows["normal_speed_error"].append(abs(dv @ n) / abs(v_star @ n))
        rows["spin_error"].append(float(np.linalg.norm(t.angular_velocity[k] - w_star) / np.linalg.norm(w_star)))
        rows["along_error"].append(float(np.abs(dv - (dv @ n) * n).max()))
        for flag in ("unconverged", "touching"):
            rows[flag].append(float(np.sum(t.flags.get(flag, np.zeros(k + 1))[: k + 1])))
        rows["past"].append(max(0.0, -float(lowest_gap(scene, t)[: k + 1].min())))
    return {key: np.asarray(v) for key, v in rows.items()}


def spin_kicks(trajectory: Trajectory, threshold: float = KICK) -> dict[str, float]:
    """The one-step spins of a body that should not spin (the box sliding on the frictionless incline).

    A kick starts at a step whose spin about an axis along the floor (the body's x and y, lying flat)
    passes ``threshold`` rad/s after a step that did not. Returns how many kicks, the largest such spin
    (rad/s), how many kicks start on a step flagged ``unconverged``, the largest kick on a step not
    flagged (rad/s), and the largest spin about the normal (rad/s).
    """
    if not isinstance(trajectory, Trajectory):
        raise invalid("trajectory", trajectory, "a mime.peer.Trajectory (run_mime's or run_mujoco's)",
                      where="spin_kicks")
    w = trajectory.angular_velocity
    tilt = np.hypot(w[:, 0], w[:, 1])
    above = tilt > threshold
    starts = above & ~np.concatenate([[False], above[:-1]])
    unconverged = np.asarray(trajectory.flags.get("unconverged", np.zeros(len(w), bool)), dtype=bool)
    flagged = starts & unconverged
    unflagged = starts & ~unconverged
    return {
        "kicks": float(starts.sum()),
        "largest_spin": float(tilt.max()),
        "kicks_flagged_unconverged": float(flagged.sum()),
        "largest_unflagged_kick": float(tilt[unflagged].max()) if unflagged.any() else 0.0,
        "largest_spin_about_normal": float(np.abs(w[:, 2]).max()),
    }
