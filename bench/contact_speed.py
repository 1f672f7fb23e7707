"""Bench: MIME's contact step per body-step, for one body and for a batch, against MuJoCo and MJX.

Usage::

    .venv/bin/python bench/contact_speed.py                      # every scene, 1 and 1,000 bodies
    .venv/bin/python bench/contact_speed.py --bodies 1000,100000 --scenes ball_rest --repeat 3
    .venv/bin/python bench/contact_speed.py --no-peers           # MIME only (no MuJoCo installed)
    .venv/bin/python bench/contact_speed.py --no-peers --xla-defaults  # and MIME under XLA's defaults
    .venv/bin/python bench/contact_speed.py --small-loop-bytes 1000000000  # each run's loop one kernel

Each scene is declared once here and built for every engine from the same numbers (book scale:
a 1 mg body, sub-millimetre hulls, dt = 1 ms, g = 9.81 m/s^2, margin 0.1 mm, float64):

- ``ball_rest``: a ball of radius 0.4 mm resting on the floor, at the margin;
- ``ball_drop``: the ball dropped from 0.3 mm above the margin at 0.1 m/s, landing within the run;
- ``capsule_tilt``: a capsule (radius 0.25 mm, length 1 mm) tilted 30 degrees, landing on one end;
- ``box_incline``: a box (0.6 x 0.4 x 0.3 mm) sliding down a frictionless 20 degree incline.

A batch gives each body its own start (the scene's start moved along the floor by a random offset,
the same for every engine). Figures are microseconds per body-step, compile time excluded, the
best of ``--repeat`` timed runs (each ends with ``block_until_ready``), as MIME:

- **MIME, one body**: ``mime.nodes.rigid.step`` rolled by ``lax.scan`` under one ``jax.jit``
  (the public ``run_scan``, whose outputs are every state and report of every step);
- **MIME, batch**: ``mime.nodes.rigid.run_batch``, the steps rolled by a loop under one
  ``jax.jit`` of a ``vmap`` over the bodies, keeping the final states only (as the peers' batched
  runs do);
- with ``--xla-defaults``, MIME's same two programs compiled under XLA's default options as well
  (a caller's plain ``jax.jit``), the baseline of ``mime._compile``'s options, in the same run;

and the peers in the same run:

- **MuJoCo mj_step**: a Python loop of ``mujoco.mj_step`` on one body;
- **MuJoCo rollout**: ``mujoco.rollout.rollout`` (C, one thread) on the batch's initial states;
- **MJX**: ``mujoco.mjx.step`` rolled by ``lax.scan`` under ``jax.jit(jax.vmap(...))``, float64
  where JAX's x64 is enabled (as MIME runs). MJX is the project's ``bench`` extra, which neither
  ``make book`` nor ``make test`` installs:
  ``.venv/bin/uv pip install --python .venv/bin/python -e ".[bench]"``. Where it is missing,
  its column says so.

MuJoCo's settings are those of the MuJoCo witness (Newton solver, tolerance 1e-12, condim 1, the
margin on the body's geom only, its default contact softness); MuJoCo holds a contact softly and
MIME exactly, so the figures compare the cost of a step of each model on the same scene, not two
implementations of one model. The targets (issue 26) are printed beside the figures.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from _timing import best

DT = 1e-3
G = 9.81
MARGIN = 1e-4
MASS = 1e-6
RADIUS = 4e-4
TARGETS = {
    "batch": "at or below MJX's us per body-step (stretch: MuJoCo rollout's)",
    "one": "within 3x of MuJoCo rollout's us per step",
    "batch_vs_one": "batched us per body-step at or below one body's",
}


@dataclass(frozen=True)
class Scene:
    """One scene, declared once: what each engine is built from (SI units, world frame)."""

    name: str
    shape: str  # "sphere", "capsule" or "box"
    size: tuple[float, ...]  # sphere (r,), capsule (r, half length), box (half extents)
    position: tuple[float, float, float]
    velocity: tuple[float, float, float]
    orientation: tuple[float, float, float, float]
    floor_tilt_deg: float = 0.0


def _tilt(deg: float) -> tuple[float, float, float, float]:
    h = math.radians(deg) / 2
    return (math.cos(h), 0.0, math.sin(h), 0.0)


def _normal(deg: float) -> tuple[float, float, float]:
    """The outward normal of a floor tilted ``deg`` degrees about ``y`` (rising along ``-x``)."""
    t = math.radians(deg)
    return (-math.sin(t), 0.0, math.cos(t))


def _scenes() -> dict[str, Scene]:
    cap_r, cap_half = 2.5e-4, 5e-4
    tilt = math.radians(30.0)
    cap_z = cap_half * math.sin(tilt) + cap_r + MARGIN  # the low end's ball at the margin
    box = (3e-4, 2e-4, 1.5e-4)
    return {
        "ball_rest": Scene("ball_rest", "sphere", (RADIUS,), (0.0, 0.0, RADIUS + MARGIN), (0.0, 0.0, 0.0), (1.0, 0, 0, 0)),
        "ball_drop": Scene("ball_drop", "sphere", (RADIUS,), (0.0, 0.0, RADIUS + MARGIN + 3e-4), (0.0, 0.0, -0.1),
                           (1.0, 0, 0, 0)),
        "capsule_tilt": Scene("capsule_tilt", "capsule", (cap_r, cap_half), (0.0, 0.0, cap_z), (0.0, 0.0, -0.01),
                              _tilt(60.0)),
        "box_incline": Scene("box_incline", "box", box, tuple(float(c) * (box[2] + MARGIN) for c in _normal(20.0)),
                             (0.0, 0.0, 0.0), _tilt(-20.0), floor_tilt_deg=20.0),
    }


def _offsets(n: int, seed: int = 0) -> np.ndarray:
    """Each body's offset along the floor, m (the first body at the scene's own start)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 3))
    out[1:, :2] = rng.uniform(-2e-3, 2e-3, size=(n - 1, 2))
    return out



# ---------------------------------------------------------------------------------------
# MIME
# ---------------------------------------------------------------------------------------
def _mime_scene(scene: Scene):
    from mime import Contact, Experiment, mm
    from mime.demos import solid_inertia
    from mime.geometry import Box, Capsule, Sphere
    from mime.nodes import ConstantLoad, RigidInertialNode
    from mime.scene import Plane

    if scene.shape == "sphere":
        hull = Sphere(scene.size[0])
    elif scene.shape == "capsule":
        hull = Capsule(radius=scene.size[0], length=2 * scene.size[1])
    else:
        hull = Box(*(2 * h for h in scene.size))
    normal = _normal(scene.floor_tilt_deg)
    body = RigidInertialNode(hull, mass=MASS, inertia=solid_inertia(hull, MASS), position=scene.position,
                             velocity=scene.velocity, orientation=scene.orientation,
                             force=ConstantLoad((0.0, 0.0, -MASS * G)), name=scene.name)
    plane = Plane((0.0, 0.0, 0.0), normal)
    e = Experiment()
    e.attach(Contact.Projection(margin=mm(MARGIN * 1e3)), body=body, surface=plane)
    return body, e.build().step_inputs(body)


def mime_times(scene: Scene, n: int, steps: int, repeat: int, xla_defaults: bool = False) -> dict[str, float]:
    """MIME's µs per body-step on ``scene``: ``run_scan`` for one body, ``run_batch`` for ``n > 1``.

    With ``xla_defaults`` the same programs are compiled as a caller's plain ``jax.jit`` would
    compile them (XLA's default options, not ``mime._compile``'s): the baseline of MIME's options.
    """
    from mime.dynamics import RigidState
    from mime.nodes import rigid

    body, inputs = _mime_scene(scene)
    out: dict[str, float] = {}
    chunk, batch = rigid._scan_chunk_program, rigid._run_batch
    if xla_defaults:
        rigid._scan_chunk_program, rigid._run_batch = jax.jit(rigid._scan_chunk), jax.jit(rigid._batch)
    try:
        with jax.enable_x64(True):
            inputs = jax.tree_util.tree_map(jnp.asarray, inputs)
            start = jax.tree_util.tree_map(jnp.asarray, body.start)
            if n == 1:
                block = lambda: jax.block_until_ready(rigid.run_scan(inputs, start, DT, steps))  # noqa: E731
                unit = steps
            else:
                states = RigidState(jnp.asarray(np.asarray(body.start.position) + _offsets(n)),
                                    *(jnp.broadcast_to(jnp.asarray(getattr(body.start, k)),
                                                       (n, len(getattr(body.start, k))))
                                      for k in RigidState.FIELDS[1:]))
                block = lambda: jax.block_until_ready(rigid.run_batch(inputs, states, DT, steps))  # noqa: E731
                unit = steps * n
            t0 = time.perf_counter()
            block()
            out["compile_s"] = time.perf_counter() - t0
            out["us"] = best(block, repeat) / unit * 1e6
    finally:
        rigid._scan_chunk_program, rigid._run_batch = chunk, batch
    return out


# ---------------------------------------------------------------------------------------
# MuJoCo and MJX
# ---------------------------------------------------------------------------------------
def _mjcf(scene: Scene) -> str:
    from mime.demos import solid_inertia
    from mime.geometry import Box, Capsule, Sphere

    if scene.shape == "sphere":
        geom, hull = f'type="sphere" size="{scene.size[0]}"', Sphere(scene.size[0])
    elif scene.shape == "capsule":
        geom, hull = f'type="capsule" size="{scene.size[0]} {scene.size[1]}"', Capsule(scene.size[0], 2 * scene.size[1])
    else:
        geom, hull = 'type="box" size="{} {} {}"'.format(*scene.size), Box(*(2 * h for h in scene.size))
    inertia = " ".join(str(c) for c in solid_inertia(hull, MASS))
    t = scene.floor_tilt_deg / 2
    floor_quat = f"{math.cos(math.radians(t))} 0 {-math.sin(math.radians(t))} 0"
    pos = " ".join(str(c) for c in scene.position)
    quat = " ".join(str(c) for c in scene.orientation)
    return f"""
<mujoco>
  <option timestep="{DT}" gravity="0 0 {-G}" solver="Newton" tolerance="1e-12" cone="pyramidal"/>
  <worldbody>
    <geom type="plane" size="1 1 0.1" quat="{floor_quat}" condim="1"/>
    <body pos="{pos}" quat="{quat}">
      <freejoint/>
      <inertial pos="0 0 0" mass="{MASS}" diaginertia="{inertia}"/>
      <geom {geom} margin="{MARGIN}" condim="1" contype="1" conaffinity="1"/>
    </body>
  </worldbody>
</mujoco>"""


def mujoco_times(scene: Scene, n: int, steps: int, repeat: int, mjx: bool, rollout_max: int) -> dict[str, float]:
    import mujoco
    from mujoco import rollout

    model = mujoco.MjModel.from_xml_string(_mjcf(scene))
    data = mujoco.MjData(model)
    out: dict[str, float] = {}
    data.qvel[:3] = scene.velocity
    mujoco.mj_forward(model, data)
    if n == 1:
        def loop() -> None:
            d = mujoco.MjData(model)
            d.qvel[:3] = scene.velocity
            for _ in range(steps):
                mujoco.mj_step(model, d)

        out["mj_step_us"] = best(loop, repeat) / steps * 1e6
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    size = mujoco.mj_stateSize(model, spec)
    state0 = np.zeros(size)
    mujoco.mj_getState(model, data, state0, spec)
    states = np.repeat(state0[None], n, axis=0)
    states[:, 1:4] += _offsets(n)  # time, then qpos: position first
    if n <= rollout_max:
        with rollout.Rollout(nthread=0) as r:
            r.rollout(model, data, states, nstep=steps)  # warm
            out["rollout_us"] = best(lambda: r.rollout(model, data, states, nstep=steps), repeat) / (steps * n) * 1e6
    if mjx:
        try:
            out.update(_mjx_times(model, scene, n, steps, repeat))
        except Exception as exc:  # noqa: BLE001 - a peer that does not run is reported, not fatal
            out["mjx_error"] = f"{type(exc).__name__}: {exc}"[:120]  # type: ignore[assignment]
    return out


def _mjx_times(model: Any, scene: Scene, n: int, steps: int, repeat: int) -> dict[str, float]:
    from mujoco import mjx

    with jax.enable_x64(True):
        m = mjx.put_model(model)
        d0 = mjx.make_data(m)
        qpos = jnp.asarray(np.asarray(model.qpos0) + np.concatenate([[0.0, 0.0, 0.0], np.zeros(model.nq - 3)]))
        qpos = qpos.at[:3].set(jnp.asarray(scene.position)).at[3:7].set(jnp.asarray(scene.orientation))
        qvel = jnp.zeros(model.nv).at[:3].set(jnp.asarray(scene.velocity))
        offsets = jnp.asarray(_offsets(n))

        def one(offset: Any) -> Any:
            d = d0.replace(qpos=qpos.at[:3].add(offset), qvel=qvel)

            def body(d: Any, _: Any) -> tuple[Any, None]:
                return mjx.step(m, d), None

            return jax.lax.scan(body, d, None, length=steps)[0].qpos

        run = jax.jit(jax.vmap(one))
        block = lambda: jax.block_until_ready(run(offsets))  # noqa: E731
        block()
        return {"mjx_us": best(block, repeat) / (steps * n) * 1e6}


_SMALL_LOOPS = "xla_cpu_small_while_loop_byte_threshold"


def _small_loops(threshold: int) -> None:
    """Run this bench again in a process whose XLA compiles every loop reading and writing fewer than
    ``threshold`` bytes as one kernel (unless this process is that one already).

    XLA's CPU backend runs a program as a sequence of kernels (its thunks), one per fusion, copy,
    branch and loop turn, each with a fixed cost of dispatch. Its ``SmallWhileLoopHoistingPass``
    compiles a loop whose body reads and writes fewer than a threshold of bytes (XLA's cost
    analysis; 1024 by default) into a single kernel instead. A threshold past the size of
    ``run_scan``'s chunk makes the chunk's whole loop of 128 steps one kernel. The threshold is a key of
    XLA's ``xla_backend_extra_options`` map, which JAX's per-program ``compiler_options`` cannot
    set (they take fields of one value), so it is set here for the whole process through
    ``XLA_FLAGS``, read once when XLA starts: a bench's setting, not one MIME makes for its callers.
    """
    flag = f"--xla_backend_extra_options={_SMALL_LOOPS}={threshold}"
    flags = os.environ.get("XLA_FLAGS", "")
    if flag in flags.split():
        return
    if _SMALL_LOOPS in flags:
        raise SystemExit(f"XLA_FLAGS already sets {_SMALL_LOOPS} otherwise: {flags!r}")
    env = dict(os.environ, XLA_FLAGS=f"{flags} {flag}".strip())
    os.execve(sys.executable, [sys.executable, *sys.argv], env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", default="ball_rest,ball_drop,capsule_tilt,box_incline")
    parser.add_argument("--bodies", default="1,1000", help="batch sizes (1 is the single body)")
    parser.add_argument("--steps", type=int, default=1000, help="steps of a single body's run")
    parser.add_argument("--batch-steps", type=int, default=100, help="steps of a batch's run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-peers", action="store_true", help="MIME only")
    parser.add_argument("--no-mjx", action="store_true")
    parser.add_argument("--xla-defaults", action="store_true",
                        help="also MIME's programs under XLA's default options (the baseline of mime._compile's)")
    parser.add_argument("--rollout-max", type=int, default=10_000,
                        help="the largest batch MuJoCo's rollout runs (it runs on the host's CPU)")
    parser.add_argument("--small-loop-bytes", type=int, default=None, metavar="N",
                        help="run every program of this process (MIME's and the peers') with XLA's CPU backend "
                             "compiling each loop that reads and writes under N bytes as one kernel (default 1024)")
    options = parser.parse_args()
    if options.small_loop_bytes is not None:
        if options.small_loop_bytes < 0:
            parser.error(f"--small-loop-bytes = {options.small_loop_bytes} is not allowed; expected a whole number "
                         f"of bytes, at least 0")
        _small_loops(options.small_loop_bytes)
    scenes = _scenes()
    sizes = [int(s) for s in options.bodies.split(",")]
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; load {os.getloadavg()[0]:.1f}; "
          f"best of {options.repeat}; us per body-step, compile excluded")
    if options.small_loop_bytes is not None:
        print(f"  XLA's small-loop threshold: {options.small_loop_bytes} bytes, for the whole process (XLA_FLAGS)")
    for key, text in TARGETS.items():
        print(f"  target ({key}): {text}")
    for name in options.scenes.split(","):
        scene = scenes[name]
        for n in sizes:
            steps = options.steps if n == 1 else options.batch_steps
            mime = mime_times(scene, n, steps, options.repeat)
            line = f"{name:13s} n={n:<7d} MIME {mime['us']:9.3f} (compile {mime['compile_s']:.1f} s)"
            if options.xla_defaults:
                plain = mime_times(scene, n, steps, options.repeat, xla_defaults=True)
                line += f" | XLA defaults {plain['us']:9.3f}  MIME/defaults {mime['us'] / plain['us']:5.2f}"
            if not options.no_peers:
                peer = mujoco_times(scene, n, steps, options.repeat, mjx=not options.no_mjx and n > 1,
                                    rollout_max=options.rollout_max)
                if "rollout_us" in peer:
                    ro = peer["rollout_us"]
                    line += f" | MuJoCo rollout {ro:8.3f}  MIME/rollout {mime['us'] / ro:6.2f}"
                if "mj_step_us" in peer:
                    line += f" | mj_step loop {peer['mj_step_us']:8.3f}"
                if "mjx_us" in peer:
                    line += f" | MJX {peer['mjx_us']:8.3f}  MIME/MJX {mime['us'] / peer['mjx_us']:6.2f}"
                elif "mjx_error" in peer:
                    line += f" | MJX failed: {peer['mjx_error']}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
