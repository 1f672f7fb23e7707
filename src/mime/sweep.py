"""Many starts of one body against one surface, stepped together: the contact's guarantee at scale.

``run_sweep(built, starts, dt=..., steps=...)`` runs a body of a built
experiment (``Experiment.build``; the body a ``RigidInertialNode`` a contact
holds) from ``n`` starting states at once (``starts``: a
:class:`~mime.dynamics.RigidState`, or a mapping of its fields, each with a
leading batch axis: poses, orientations and speeds), ``steps`` steps each, under
one ``jax.jit`` of a ``vmap`` of the body's step rolled by ``lax.scan``. With
``mesh=`` (a ``jax.sharding.Mesh``) the batch axis is split over the mesh's
devices (``maddening.core.simulation.sharding.map_batch``): the results are
equal bit for bit to the unsharded run's, and a batch that does not divide by
the device count is padded and unpadded. Across hosts the call is the same
after ``jax.distributed.initialize()``, with a mesh over ``jax.devices()`` and
the starts as global ``jax.Array`` s.

Each run is reduced, step by step, to what the contact promises
(:class:`SweepResult`):

- *the margin*: after every step, the smallest ``distance - margin`` over the
  body's hull, measured without the contact's code. Against a flat surface of
  normal ``n`` the hull's deepest point lies ``h(-R^T n)`` below its centre,
  ``h`` the hull's support function, written here in closed form for each kind
  (``r`` for a ball; ``sqrt((a d_1)^2 + (b d_2)^2 + (c d_3)^2)`` for an ellipsoid;
  ``r |d_xy| + (L/2) |d_3|`` for a cylinder; ``r + (L/2) |d_3|`` for a capsule;
  ``(x |d_1| + y |d_2| + z |d_3|) / 2`` for a box; the largest ``v . d`` over a
  mesh's vertices or a point set's points). A screw has no closed form: it is
  measured at a dense sampling of its surface (``measure_spacing``), which can
  miss a violation smaller than that sampling's shortfall. Against a curved
  surface every kind is measured at the dense sampling.
- *held points stop moving in*: on every step the contact touches, the held
  point that started the step deepest (``contact_point``, with its gap
  ``contact_gap``) must leave it with an outward speed
  ``u = n . (v' + R (w' x p))`` of at least ``-max(gap, 0) / dt`` (it may close
  its gap within the step and no more); ``inward`` is by how much it falls short,
  m/s.

``margin_sweep(kind, n)`` is the sweep of the contact's page, of
``bench/contact_sweep.py`` and of ``tests/sharding``: every hull kind of
``sweep_kinds()`` pressed on to the floor from random starts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from maddening.core import check_timestep
from maddening.core.simulation.sharding import batch_size, check_mesh, map_batch
from mime._compile import jit
from mime._pytree import pytree, static
from mime.dynamics import RigidState
from mime.errors import Number, OneOf, ValidationError, Whole, invalid, is_traced, real_array
from mime.experiment import Experiment
from mime.geometry import Box, Capsule, Cylinder, Ellipsoid, Hull, Mesh, PointSet, Screw, Sphere, as_hull, rotation
from mime.nodes import RigidInertialNode
from mime.nodes.rigid import check_states, step
from mime.scene import shape_of

__all__ = ["SweepResult", "SweepTally", "run_sweep", "hull_depth", "random_starts", "margin_sweep", "sweep_kinds",
           "STATE_FIELDS"]

STATE_FIELDS = RigidState.FIELDS
"""The names of a start's fields, each an array with a leading batch axis; in order their units are m, a unit quaternion, m/s and rad/s (body frame)."""

Array = Any
_STEPS = Whole("a whole number of at least 1")
_SPACING = Number("a positive length in metres", above=0)


@pytree
class SweepTally:
    """What a sweep keeps of one start's run, step by step (the scan's carry beside the state).

    Attributes:
        worst_gap: ``()`` m, the smallest ``distance - margin`` over the hull after any step so far.
        worst_inward: ``()`` m/s, the most a held point's outward speed fell short on a touching step.
        touching, unconverged, held_by_samples, support_short: ``()`` int, the steps so flagged.
        start_gap: ``()`` m, the smallest ``distance - margin`` over the hull at the start.
    """

    worst_gap: Array
    worst_inward: Array
    touching: Array
    unconverged: Array
    held_by_samples: Array
    support_short: Array
    start_gap: Array


@dataclass(frozen=True)
class SweepResult:
    """What a sweep measured, one entry per start (NumPy arrays with the batch axis first).

    Attributes:
        final: The states after the last step, a :class:`~mime.dynamics.RigidState` of ``(n, ...)`` arrays.
        worst_gap: The smallest ``distance - margin`` over the hull after any step, m
            (negative: a point ended past the margin).
        worst_inward: The most a held point's outward speed fell short of
            ``-max(gap, 0) / dt`` on a touching step, m/s (0 where none did).
        touching: Steps on which the contact acted.
        unconverged: Steps flagged ``unconverged``.
        held_by_samples: Steps flagged ``held_by_samples``.
        support_short: Steps flagged ``support_short``.
        start_gap: The smallest ``distance - margin`` over the hull at the start, m.
    """

    final: RigidState
    worst_gap: np.ndarray
    worst_inward: np.ndarray
    touching: np.ndarray
    unconverged: np.ndarray
    held_by_samples: np.ndarray
    support_short: np.ndarray
    start_gap: np.ndarray

    @property
    def size(self) -> int:
        """How many starts."""
        return int(self.worst_gap.shape[0])


# ---------------------------------------------------------------------------------------
# the hull's depth below its centre, measured without the contact's code
# ---------------------------------------------------------------------------------------
_CLOSED = (Sphere, Ellipsoid, Cylinder, Capsule, Box)
"""The kinds whose depth is written in closed form, in the order of their index in a measure (a mesh's and
a point set's depth is the largest over their points, as is any other kind's over a dense sampling)."""


MEASURE_CHUNK = 256
"""Rows of a part's measured points that one pass of :func:`_kind_depth`'s loop reads."""
MEASURE_CAPACITY = 1 << 14
"""Rows of every part's measured points (more, a power of two, only for a kind whose dense sampling has
more): one size for every kind, so that the sweeps of all of them against one surface share one compiled
program whatever their points; the loop reads only the filled chunks."""
assert MEASURE_CAPACITY % MEASURE_CHUNK == 0  # every row count (a power of two, at least this) is whole chunks


def _kind_numbers(geometry: Any, measure_spacing: float) -> tuple[int, np.ndarray, np.ndarray, int]:
    """``(index, numbers, points, count)``: what :func:`_kind_depth` reads of a kind: its place in
    ``_CLOSED`` (``len(_CLOSED)`` for a depth over points), its lengths ``(3,)``, the points it is
    measured at (``(MEASURE_CAPACITY, 3)`` or more, repeating the last point past the ``count`` real
    ones; zeros, never read, for a closed form, whose count is 1) and their count."""
    g = geometry
    lengths = np.zeros(3)
    if isinstance(g, Sphere):
        lengths[:1] = (g.radius,)
    elif isinstance(g, Ellipsoid):
        lengths[:] = (g.a, g.b, g.c)
    elif isinstance(g, (Cylinder, Capsule)):
        lengths[:2] = (g.radius, 0.5 * g.length)
    elif isinstance(g, Box):
        lengths[:] = (g.x, g.y, g.z)
    if isinstance(g, _CLOSED):
        return _CLOSED.index(type(g)), lengths, np.zeros((MEASURE_CAPACITY, 3)), 1
    if isinstance(g, Mesh):
        points = np.asarray(g.vertices, dtype=np.float64)
    elif isinstance(g, PointSet):
        points = np.asarray(g.points, dtype=np.float64)
    else:  # the screw, and any kind with no closed form: dense samples
        points = np.asarray(g.sample(measure_spacing)[0], dtype=np.float64)
    rows = max(MEASURE_CAPACITY, 1 << math.ceil(math.log2(len(points))))
    return len(_CLOSED), lengths, np.concatenate([points, np.repeat(points[-1:], rows - len(points), axis=0)]), len(points)


def _depth_sphere(c: Array, P: Array, n: Array, d: Array) -> Array:
    return c[0]


def _depth_ellipsoid(c: Array, P: Array, n: Array, d: Array) -> Array:
    return jnp.sqrt((c[0] * d[0]) ** 2 + (c[1] * d[1]) ** 2 + (c[2] * d[2]) ** 2)


def _depth_cylinder(c: Array, P: Array, n: Array, d: Array) -> Array:
    return c[0] * jnp.sqrt(d[0] ** 2 + d[1] ** 2) + c[1] * jnp.abs(d[2])


def _depth_capsule(c: Array, P: Array, n: Array, d: Array) -> Array:
    return c[0] + c[1] * jnp.abs(d[2])


def _depth_box(c: Array, P: Array, n: Array, d: Array) -> Array:
    return 0.5 * (c[0] * jnp.abs(d[0]) + c[1] * jnp.abs(d[1]) + c[2] * jnp.abs(d[2]))


def _depth_over_points(c: Array, P: Array, n: Array, d: Array) -> Array:
    """A mesh's vertices, a point set's points, a kind's samples: the largest ``p . d`` over the first ``n``."""
    def chunk(i: Array, best: Array) -> Array:  # the rows past the count repeat the last point: no harm
        rows = jax.lax.dynamic_slice_in_dim(P, i * MEASURE_CHUNK, MEASURE_CHUNK)
        return jnp.maximum(best, jnp.max(rows @ d))

    chunks = (n + MEASURE_CHUNK - 1) // MEASURE_CHUNK
    return jax.lax.fori_loop(0, chunks, chunk, jnp.array(-jnp.inf, d.dtype))


_DEPTH_BRANCHES = (_depth_sphere, _depth_ellipsoid, _depth_cylinder, _depth_capsule, _depth_box, _depth_over_points)
""":func:`_kind_depth`'s formulas, in ``_CLOSED``'s order and then the depth over points; module-level
functions, so that ``lax.switch`` traces each once per operand types (JAX keeps a branch's trace by its
function object) however many parts and programs ask."""


def _kind_depth(kind: Array, numbers: Array, points: Array, count: Array, d: Array) -> Array:
    """``max_{p in kind} p . d`` for a unit part-frame direction ``d``, m, of the kind whose
    :func:`_kind_numbers` are ``(kind, numbers, points, count)`` (traceable; ``kind`` picks the formula)."""
    return jax.lax.switch(kind, _DEPTH_BRANCHES, jnp.asarray(numbers, d.dtype), jnp.asarray(points, d.dtype),
                          jnp.asarray(count, jnp.int32), d)


def _kind_depth_is_sampled(geometry: Any) -> bool:
    return not isinstance(geometry, _CLOSED + (Mesh, PointSet))


@pytree
class _Measure:
    """The gap measure of a hull against a surface (a pytree: every number traced).

    Attributes:
        surface: the surface's shape (``mime.scene.shape_of``).
        margin: ``()`` m.
        extent: ``()`` m, the reach of a body with no parts.
        kinds: ``(P,)`` int, each part's formula (:func:`_kind_numbers`).
        lengths: ``(P, 3)`` m, each part's lengths.
        points: per part, ``(MEASURE_CAPACITY, 3)`` m, the points its depth is the largest over (zeros for
            a closed form), the last repeated past its count.
        counts: ``(P,)`` int, how many of each part's points are its own.
        offsets: ``(P, 3)`` m, each part's position in the body's frame.
        turns: ``(P, 3, 3)`` each part's rotation into the body's frame.
        samples: ``(N, 3)`` m, a dense sampling of the hull (against a curved surface; else ``(1, 3)``).
        flat: whether the surface is flat or the body has no parts, measured in closed form (static).
    """

    surface: Any
    margin: Array
    extent: Array
    kinds: Array
    lengths: Array
    points: tuple
    counts: Array
    offsets: Array
    turns: Array
    samples: Array
    flat: bool = static(default=True)

    @classmethod
    def of(cls, hull: Hull, surface: Any, margin: float, measure_spacing: float) -> "_Measure":
        flat = bool(getattr(surface, "flat", False)) or not hull.has_hull
        parts = hull.parts
        numbers = [_kind_numbers(p.geometry, measure_spacing) for p in parts]
        samples = np.zeros((1, 3)) if flat else np.asarray(hull.sample(measure_spacing)[0], dtype=np.float64)
        return cls(
            surface=shape_of(surface),
            margin=np.float64(margin),
            extent=np.float64(hull.extent),
            kinds=np.array([k for k, _, _, _ in numbers], dtype=np.int32),
            lengths=np.array([c for _, c, _, _ in numbers], dtype=np.float64).reshape(-1, 3),
            points=tuple(P for _, _, P, _ in numbers),
            counts=np.array([n for _, _, _, n in numbers], dtype=np.int32),
            offsets=np.array([p.position for p in parts], dtype=np.float64).reshape(-1, 3),
            turns=np.array([np.asarray(rotation.matrix(np.asarray(p.orientation))) for p in parts],
                           dtype=np.float64).reshape(-1, 3, 3),
            samples=samples,
            flat=flat,
        )

    def depth(self, direction: Any) -> Any:
        """How far the hull reaches from the body's centre along the unit body-frame ``direction``, m."""
        d = jnp.asarray(direction)
        if not self.points:
            return jnp.asarray(self.extent, d.dtype)
        reaches = []
        for j in range(len(self.points)):
            Rp = jnp.asarray(self.turns[j], d.dtype)
            reaches.append(jnp.asarray(self.offsets[j], d.dtype) @ d
                           + _kind_depth(self.kinds[j], self.lengths[j], self.points[j], self.counts[j], Rp.T @ d))
        return reaches[0] if len(reaches) == 1 else jnp.max(jnp.stack(reaches))

    def gap(self, x: Any, q: Any) -> Any:
        """The smallest ``distance - margin`` over the hull at the pose ``(x, q)``, m."""
        surface = self.surface
        if self.flat:
            phi, n = surface.distance_and_normal(x)
            if not self.points and not surface.flat:
                return phi - self.extent - self.margin  # a ball of the extent: its centre's distance less it
            return phi - self.depth(-(rotation.matrix(q).T @ n)) - self.margin
        P = jnp.asarray(self.samples, x.dtype)
        phi, _ = surface.distance_and_normal(x + P @ rotation.matrix(q).T)
        return jnp.min(phi) - self.margin


def hull_depth(hull: Hull, direction: Any, measure_spacing: float) -> Any:
    """How far the hull reaches from the body's centre along the unit body-frame ``direction``, m.

    The support function ``h(d) = max_{p in hull} p . d``, over every part placed
    in the body frame, in closed form where the kind has one; a body with no
    parts reaches its declared extent.
    """
    from mime.scene import Plane

    where = "hull_depth"
    hull = as_hull(hull)
    measure_spacing = _SPACING.check(measure_spacing, "measure_spacing", where=where)
    if not is_traced(direction):
        unit = real_array(direction, "direction", _UNIT_TEXT, shape=(3,), where=where)
        if abs(float(np.linalg.norm(unit)) - 1.0) > 1e-9:
            raise invalid("direction", direction, _UNIT_TEXT, where=where)
    return _Measure.of(hull, Plane(), 0.0, measure_spacing).depth(direction)


_UNIT_TEXT = "a unit direction: three finite numbers of length 1 (within 1e-9)"


# ---------------------------------------------------------------------------------------
# the sweep
# ---------------------------------------------------------------------------------------
def _held(built: Any, body: Any, where: str) -> tuple[Any, Any]:
    """``(body, confinement)``: the body that a contact holds in a built experiment (or an experiment,
    built under its own profile)."""
    if isinstance(built, Experiment):
        built = built.build()
    things = getattr(built, "things", None)
    if things is None or not callable(getattr(built, "confinement", None)):
        raise invalid("built", built, "a built experiment (Experiment.build)", where=where)
    if body is None:
        bodies = [t for t in things.values() if isinstance(t, RigidInertialNode)]
        if len(bodies) != 1:
            raise invalid("body", body, f"one of the experiment's {len(bodies)} bodies (given by name or object)",
                          where=where)
        body = bodies[0]
    elif isinstance(body, str):
        if not isinstance(things.get(body), RigidInertialNode):
            raise invalid("body", body, "the name of one of the experiment's rigid bodies", where=where)
        body = things[body]
    confinement = built.confinement(body)
    if not isinstance(body, RigidInertialNode) or confinement is None:
        raise invalid("body", body, "a mime.nodes.RigidInertialNode of the experiment that a Contact holds",
                      where=where)
    return body, confinement


def _check_starts(starts: Any) -> RigidState:
    allowed = f"a RigidState or a mapping with exactly the fields {list(STATE_FIELDS)}, each with a leading batch axis"
    if isinstance(starts, RigidState):
        starts = starts.to_mapping()
    if not isinstance(starts, Mapping) or set(starts) != set(STATE_FIELDS):
        shown = sorted(starts) if isinstance(starts, Mapping) else starts
        raise invalid("starts", shown, allowed, where="run_sweep")
    out = {k: jnp.asarray(starts[k], dtype=jnp.float64) for k in STATE_FIELDS}
    batch_size(out, argument="starts", where="run_sweep", error=ValidationError)
    for k, width in zip(STATE_FIELDS, (3, 4, 3, 3)):
        if out[k].ndim != 2 or out[k].shape[1] != width:
            raise invalid(f"starts[{k!r}]", f"<an array of shape {out[k].shape}>", f"an array of shape (n, {width})",
                          where="run_sweep")
    states = RigidState.from_mapping(out)
    check_states(states, argument="starts", where="run_sweep")
    return states


def run_sweep(built: Any, starts: Any, *, dt: float, steps: int, body: Any = None, mesh: Any = None,
              measure_spacing: float | None = None) -> SweepResult:
    """Run a held body from every start for ``steps`` steps of ``dt`` s and measure the contact's guarantee.

    Args:
        built: A built experiment (``Experiment.build``), or an experiment (built under its
            profile), in which a ``Contact`` holds the body.
        starts: A :class:`~mime.dynamics.RigidState` (or a mapping of its fields, see
            ``STATE_FIELDS``), each ``(n, 3)`` or ``(n, 4)``, in float64.
        dt: The step, s (finite, > 0).
        steps: How many steps (an int >= 1).
        body: The body (object or name); ``None`` where the experiment has one.
        mesh: ``None`` (one device) or a ``jax.sharding.Mesh`` whose devices share the starts.
        measure_spacing: The dense sampling (m) of kinds measured at samples
            (default: a quarter of the margin).

    Returns:
        A :class:`SweepResult`, equal bit for bit with and without a mesh.

    Raises:
        mime.errors.ValidationError: naming the argument, the value and what is allowed.
    """
    where = "run_sweep"
    body, confinement = _held(built, body, where)
    built = built.build() if isinstance(built, Experiment) else built
    check_timestep(dt, where=where)
    steps = _STEPS.check(steps, "steps", where=where)
    check_mesh(mesh, where=where, error=ValidationError)
    margin = float(confinement.margin)
    spacing = _SPACING.check(margin / 4 if measure_spacing is None else measure_spacing, "measure_spacing",
                             where=where)
    with jax.enable_x64(True):
        states = _check_starts(starts)
        # NumPy leaves go to the compiled program as they are: its call converts them (to the same types)
        # without an eager JAX program per leaf
        inputs = built.step_inputs(body)
        measure = _Measure.of(body.hull, confinement.surface, margin, spacing)
        final, tally = _sweep(measure, inputs, states, jnp.asarray(float(dt)), jnp.asarray(steps, jnp.int32),
                              mesh=mesh)
        final, tally = jax.tree_util.tree_map(np.asarray, (final, tally))
    return SweepResult(final=final, **{name: getattr(tally, name) for name in tally.__pytree_data__})


@jit(static_argnames=("mesh",))
def _sweep(measure: _Measure, inputs: Any, states: RigidState, dt: Array, steps: Array, *, mesh: Any):
    """Every start's run of ``steps`` steps, reduced to its tally; one program per hull kind and surface
    kind (the numbers, the count of steps and of starts aside)."""
    gap_of = measure.gap
    surface = measure.surface

    def one(state: RigidState, inputs: Any, dt: Array, steps: Array) -> tuple[RigidState, SweepTally]:
        def advance(i: Array, carry: tuple[RigidState, SweepTally]) -> tuple[RigidState, SweepTally]:
            state, tally = carry
            k = i.astype(dt.dtype)
            new, report = step(inputs, state, k * dt, dt)
            gap = gap_of(new.position, new.orientation)
            # the held point that started the step deepest: its outward speed with the new twist
            p = report.contact_point
            R = rotation.matrix(state.orientation)
            _, n = surface.distance_and_normal(state.position + R @ p)
            u = n @ (new.velocity + R @ jnp.cross(new.angular_velocity, p))
            floor = -jnp.maximum(report.contact_gap, 0.0) / dt
            inward = jnp.where(report.touching & jnp.isfinite(report.contact_gap), jnp.maximum(floor - u, 0.0), 0.0)
            tally = SweepTally(
                worst_gap=jnp.minimum(tally.worst_gap, gap),
                worst_inward=jnp.maximum(tally.worst_inward, inward),
                touching=tally.touching + report.touching,
                unconverged=tally.unconverged + report.unconverged,
                held_by_samples=tally.held_by_samples + report.held_by_samples,
                support_short=tally.support_short + report.support_short,
                start_gap=tally.start_gap,
            )
            return new, tally

        x0 = state.position
        zero = jnp.zeros((), jnp.int32)
        tally0 = SweepTally(jnp.asarray(jnp.inf, x0.dtype), jnp.zeros((), x0.dtype), zero, zero, zero, zero,
                            gap_of(x0, state.orientation))
        return jax.lax.fori_loop(0, steps, advance, (state, tally0))

    def local(batch: RigidState, inputs: Any, dt: Array, steps: Array) -> tuple[RigidState, SweepTally]:
        return jax.vmap(one, in_axes=(0, None, None, None))(batch, inputs, dt, steps)

    return map_batch(local, states, inputs, dt, steps, mesh=mesh)


# ---------------------------------------------------------------------------------------
# random starts
# ---------------------------------------------------------------------------------------
_SEED = Whole("a whole number of at least 0 (NumPy's generator seed)", at_least=0, integral=True)
_CLEARANCE = Number("a finite distance >= 0 (m)", at_least=0.0)
_SPEED = Number("a finite speed >= 0 (m/s)", at_least=0.0)
_SPIN = Number("a finite angular speed >= 0 (rad/s)", at_least=0.0)


def random_starts(built: Any, n: int, *, seed: int, clearance: float, speed: float, spin: float,
                  body: Any = None) -> RigidState:
    """``n`` random admissible starts of a held ``body`` of ``built`` above its (flat) contact surface.

    Orientations are uniform on the rotations (normalised Gaussian quaternions);
    each pose is lifted so that the hull's deepest point lies between the margin
    and ``margin + clearance`` (m) from the surface (a kind measured at its samples,
    which reach short of its surface, is lifted by one more sampling spacing,
    ``margin / 4``); velocities are uniform in a
    ball of radius ``speed`` (m/s), angular velocities in a ball of ``spin`` (rad/s).
    Positions spread across the surface within a few hull sizes. The result is a
    :class:`~mime.dynamics.RigidState` of float64 NumPy arrays with a leading axis of ``n``.
    """
    where = "random_starts"
    body, confinement = _held(built, body, where)
    surface = confinement.surface
    if not getattr(surface, "flat", False):
        raise invalid("body's surface", surface, "a flat surface", where=where)
    n = Whole("a whole number of at least 1").check(n, "n", where=where)
    seed = _SEED.check(seed, "seed", where=where)
    clearance = _CLEARANCE.check(clearance, "clearance", where=where)
    speed = _SPEED.check(speed, "speed", where=where)
    spin = _SPIN.check(spin, "spin", where=where)
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)

    def ball(radius: float) -> np.ndarray:
        v = rng.normal(size=(n, 3))
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        return v * radius * rng.uniform(size=(n, 1)) ** (1.0 / 3.0)

    with jax.enable_x64(True):
        normal = np.asarray(surface.normal_vector)
        point = np.asarray(surface.point)
        spacing = confinement.margin / 4
        depth = np.asarray(jax.vmap(lambda qq: hull_depth(body.hull, -(rotation.matrix(qq).T @ jnp.asarray(normal)), spacing))(
            jnp.asarray(q)))
    if any(_kind_depth_is_sampled(p.geometry) for p in body.hull.parts):
        depth = depth + spacing  # a dense sampling reaches short of the surface: start clear of that
    size = body.hull.size if body.hull.has_hull else 2 * body.hull.extent
    along = rng.uniform(-2 * size, 2 * size, size=(n, 3))
    along -= (along @ normal)[:, None] * normal
    height = depth + confinement.margin + clearance * rng.uniform(size=n)
    position = point + along + height[:, None] * normal
    return RigidState(position, q, ball(speed), ball(spin))


# ---------------------------------------------------------------------------------------
# the margin sweep of the contact's page and bench: every hull kind on the floor
# ---------------------------------------------------------------------------------------
SWEEP_STEPS = 10
"""Steps of each start in the margin sweep (enough for a start at the margin's edge to land and be held)."""
SWEEP_CLEARANCE = 1e-4
"""How far above the margin a start's deepest point may begin, m (up to one margin)."""
SWEEP_SPEED = 0.1
"""The largest starting speed, m/s: a start this fast closes its clearance in one step."""
SWEEP_SPIN = 60.0
"""The largest starting spin, rad/s: about 3.4 degrees a step, so a millimetre hull's end moves about 0.06 mm."""
SWEEP_MASS = 1e-6
"""Each swept body's mass, kg (1 mg, the contact's demos' bodies)."""
SWEEP_PUSH = 2e-5
"""The steady push into the floor, N (twice the weight of the 1 mg bodies' drop in the contact's demos)."""


def sweep_kinds() -> dict[str, Any]:
    """The hull kinds of the sweep, by name: the contact page's shapes, each about a millimetre across."""
    from mime import demos

    return {
        "sphere": Sphere(4e-4),
        "ellipsoid": demos.ELLIPSOID,
        "cylinder": demos.SPIN_CYLINDER,
        "capsule": demos.LONG_CAPSULE,
        "screw": demos.SPIN_SCREW,
        "box": Box(6e-4, 4e-4, 3e-4),
        "mesh": demos.SPIN_MESH,
        "no hull": Hull(extent=4e-4),
    }


def margin_sweep(kind: str, n: int, *, seed: int = 0, steps: int = SWEEP_STEPS, mesh: Any = None) -> SweepResult:
    """The contact's guarantee over ``n`` random starts of one hull kind pressed on to the floor.

    A 1 mg body of the kind (``sweep_kinds()``), pushed into the floor by
    ``SWEEP_PUSH``, held by ``Contact.Projection(margin=mm(0.1))``, starts at
    random orientations, positions, speeds and spins (``random_starts`` with
    ``SWEEP_CLEARANCE``, ``SWEEP_SPEED``, ``SWEEP_SPIN``) and runs ``steps`` steps
    of the demos' ``DT``.
    """
    from mime import demos
    from mime.nodes import ConstantLoad

    kinds = sweep_kinds()
    OneOf(f"one of {sorted(kinds)}", choices=tuple(kinds)).check(kind, "kind", where="margin_sweep")
    body = demos.make_body(kinds[kind], mass=SWEEP_MASS, name=kind.replace(" ", "_"), force=ConstantLoad((0.0, 0.0, -SWEEP_PUSH)))
    built = demos.attach(body, demos.FLOOR.surface)
    starts = random_starts(built, n, seed=seed, clearance=SWEEP_CLEARANCE, speed=SWEEP_SPEED, spin=SWEEP_SPIN)
    return run_sweep(built, starts, dt=demos.DT, steps=steps, mesh=mesh)
