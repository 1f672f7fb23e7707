"""Bench: MIME's contact against MuJoCo on the chapter's scenes, in microseconds per body-step.

The performance anchor of the contact engine. For each scene of ``mime.peer`` (the ball dropped on
to the incline, the capsule's impact, the box sliding down the incline), it times, in one run:

- **MIME, public scan**: ``Experiment.run`` of one body (one jitted ``lax.scan`` over the steps), and
  with ``one_kernel=True`` (each chunk of steps one kernel of XLA's CPU backend: ``mime._compile.one_kernel``);
- **MIME, batched sweep**: ``mime.sweep.run_sweep`` of 1 and of N starts (one jit of a ``vmap`` of
  the scan, with the sweep's per-step measure of the margin);
- **MuJoCo, mj_step**: a Python loop of ``mujoco.mj_step`` over one body (and over N bodies'
  ``MjData``, one after another);
- **MuJoCo, rollout**: ``mujoco.rollout.rollout`` of 1 and of N initial states, on one thread;
- **MJX**, where ``mujoco.mjx`` imports: ``jax.jit`` of a ``lax.scan`` of ``mjx.step`` (one body),
  and of its ``vmap`` over N bodies, on the same scene with MuJoCo's approximate diagonal (MJX has
  no ``diagexact``). MJX may pin a JAX that clashes with the project's; then the bench says so and
  skips it.

Figures are microseconds per body-step (wall time / (bodies x steps)), compile time excluded (each
program is run once before it is timed), the best of ``--repeat`` runs. Every line of the table
also gives its ratio to MuJoCo's ``rollout`` of the same scene and batch, measured in the same run.
The N starts are the scene's start moved along the floor (and, for the drop, lifted by up to one
step of its fall), so they take the same path at different places and landing phases.

Below the table, each of issue 26's targets (``TARGETS``; the one-body target is also asked of
``one_kernel=True``, a row the issue does not name) is printed beside its measured ratio, met
or missed.

``--small-loop-bytes N`` runs every program of the process with XLA's CPU backend compiling each loop
that reads and writes fewer than ``N`` bytes as one kernel (``contact_speed.py`` says why): with ``N`` past
the size of a run's chunk, one body's 128 steps are one kernel instead of hundreds per step, for MJX's
programs too. It is a setting of the whole process, which MIME does not make for its callers
(``one_kernel=True`` asks it of one program).

Run: ``.venv/bin/python bench/contact_peer.py`` (``--quick``: 100 bodies, fewer steps). MJX is not a
dependency of the project: ``pip install mujoco-mjx`` adds it (3.17 works beside ``mujoco`` 4.0 and the
project's JAX).
Only public names of ``mime`` are used (``mime.peer``, ``Experiment``, ``mime.sweep``), so the
bench keeps working while the contact's internals change. The machine is shared: quote figures
with the load they were taken under (printed at the top).
"""

from __future__ import annotations

import argparse
import os
import platform
from typing import Any

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)

from mime import peer, sweep  # noqa: E402
from _timing import best  # noqa: E402  (a sibling module: bench/ is first on sys.path)

SCENES = ("drop", "impact", "incline box")



def _starts(scene: peer.Scene, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """``n`` copies of the scene's start, each moved along the floor by up to 5 mm (and the drop lifted
    by up to one step of its fall), as ``{position, orientation, velocity, angular_velocity}``."""
    rng = np.random.default_rng(seed)
    normal, downhill = np.asarray(scene.normal), np.asarray(scene.downhill)
    across = np.cross(normal, downhill)
    shift = rng.uniform(-5e-3, 5e-3, (n, 2))
    position = np.asarray(scene.position) + shift[:, :1] * downhill + shift[:, 1:] * across
    if scene.name.startswith("drop"):
        position = position + rng.uniform(0.0, peer.DROP_SPEED * scene.dt, (n, 1)) * normal
    tile = lambda v: np.tile(np.asarray(v, dtype=float), (n, 1))  # noqa: E731
    return {"position": position, "orientation": tile(scene.orientation), "velocity": tile(scene.velocity),
            "angular_velocity": tile(scene.angular_velocity)}


# ---------------------------------------------------------------------------------------
# MIME
# ---------------------------------------------------------------------------------------
def mime_scan(scene: peer.Scene, repeat: int, one_kernel: bool = False) -> float:
    experiment, _ = peer.mime_experiment(scene)

    def go() -> None:  # reuses its build; returns NumPy
        experiment.run(dt=scene.dt, steps=scene.steps, profile="exploratory", one_kernel=one_kernel)

    go()
    return best(go, repeat) / scene.steps


def mime_sweep(scene: peer.Scene, n: int, repeat: int) -> float:
    experiment, body = peer.mime_experiment(scene)
    experiment.build("exploratory")
    starts = _starts(scene, n)

    def go() -> None:
        sweep.run_sweep(experiment, starts, dt=scene.dt, steps=scene.steps)  # returns NumPy: blocks

    go()
    return best(go, repeat) / (n * scene.steps)


# ---------------------------------------------------------------------------------------
# MuJoCo
# ---------------------------------------------------------------------------------------
def _mujoco_states(mujoco: Any, model: Any, scene: peer.Scene, starts: dict[str, np.ndarray]) -> np.ndarray:
    data = mujoco.MjData(model)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    out = np.empty((len(starts["position"]), mujoco.mj_stateSize(model, spec)))
    for i in range(len(out)):
        mujoco.mj_resetData(model, data)
        data.qpos[:] = np.concatenate([starts["position"][i], starts["orientation"][i]])
        data.qvel[:] = np.concatenate([starts["velocity"][i], starts["angular_velocity"][i]])
        mujoco.mj_getState(model, data, out[i], spec)
    return out


def mujoco_step(scene: peer.Scene, n: int, repeat: int) -> float:
    import mujoco

    model = peer.mujoco_model(scene)
    states = _mujoco_states(mujoco, model, scene, _starts(scene, n))
    datas = [mujoco.MjData(model) for _ in range(n)]
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS

    def go() -> None:
        for data, state in zip(datas, states):
            mujoco.mj_setState(model, data, state, spec)
            for _ in range(scene.steps):
                mujoco.mj_step(model, data)

    return best(go, repeat) / (n * scene.steps)


def mujoco_rollout(scene: peer.Scene, n: int, repeat: int) -> float:
    import mujoco
    from mujoco import rollout

    model = peer.mujoco_model(scene)
    states = _mujoco_states(mujoco, model, scene, _starts(scene, n))
    data = mujoco.MjData(model)  # one data: one thread

    def go() -> None:
        rollout.rollout(model, data, states, nstep=scene.steps)

    go()
    return best(go, repeat) / (n * scene.steps)


# ---------------------------------------------------------------------------------------
# MJX (optional)
# ---------------------------------------------------------------------------------------
def mjx_available() -> tuple[bool, str]:
    try:
        from mujoco import mjx  # noqa: F401
    except Exception as exc:  # an import error, or a JAX it cannot work with
        return False, f"{type(exc).__name__}: {exc}".splitlines()[0][:160]
    return True, ""


def mjx_scan(scene: peer.Scene, n: int, repeat: int) -> float:
    import mujoco
    from mujoco import mjx

    model = peer.mujoco_model(scene, diagexact=False)  # MJX has no exact diagonal
    mx = mjx.put_model(model)
    starts = _starts(scene, n)
    data = mujoco.MjData(model)
    dx0 = mjx.put_data(model, data)
    # float64 throughout (x64 is on): mjx.step returns int64 indices where put_data made int32 ones
    dx0 = jax.tree_util.tree_map(lambda a: a.astype(np.int64) if getattr(a, "dtype", None) == np.int32 else a, dx0)
    qpos = np.concatenate([starts["position"], starts["orientation"]], axis=1)
    qvel = np.concatenate([starts["velocity"], starts["angular_velocity"]], axis=1)

    def run_one(qp, qv):
        d = dx0.replace(qpos=qp, qvel=qv)

        def body(d, _):
            return mjx.step(mx, d), None

        d, _ = jax.lax.scan(body, d, None, length=scene.steps)
        return d.qpos

    f = jax.jit(jax.vmap(run_one)) if n > 1 else jax.jit(run_one)
    args = (jax.numpy.asarray(qpos), jax.numpy.asarray(qvel)) if n > 1 else (
        jax.numpy.asarray(qpos[0]), jax.numpy.asarray(qvel[0]))
    f(*args).block_until_ready()
    return best(lambda: f(*args).block_until_ready(), repeat) / (n * scene.steps)


US = 1e6
"""Seconds to microseconds."""


# ---------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 bodies, 100 steps")
    parser.add_argument("--bodies", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=peer.STEPS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scenes", nargs="*", default=list(SCENES), choices=list(peer.SCENES),
                        help="the scenes (default: the three of the chapter; the free flights too)")
    parser.add_argument("--small-loop-bytes", type=int, default=None, metavar="N",
                        help="run every program of this process (MIME's and MJX's) with XLA's CPU backend compiling "
                             "each loop that reads and writes under N bytes as one kernel (XLA's default: 1024); "
                             "a process-wide setting (XLA_FLAGS), see contact_speed.py")
    args = parser.parse_args()
    if args.small_loop_bytes is not None:
        if args.small_loop_bytes < 0:
            parser.error(f"--small-loop-bytes = {args.small_loop_bytes} is not allowed; expected a whole number "
                         f"of bytes, at least 0")
        from contact_speed import _small_loops  # a sibling module: bench/ is first on sys.path

        _small_loops(args.small_loop_bytes)  # runs this bench again under the setting, unless this is that run
    if args.quick:
        args.bodies, args.steps, args.repeat = 100, 100, 2
    import mujoco

    have_mjx, why = mjx_available()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# contact_peer: {platform.machine()} {os.cpu_count()} cores, load {load:.2f}; jax {jax.__version__}, "
          f"mujoco {mujoco.__version__}; {args.steps} steps of {peer.DT * 1e3:g} ms; N = {args.bodies}; "
          f"best of {args.repeat}; microseconds per body-step, compile excluded")
    if args.small_loop_bytes is not None:
        print(f"# XLA's small-loop threshold: {args.small_loop_bytes} bytes, for the whole process (XLA_FLAGS)")
    if not have_mjx:
        print(f"# MJX skipped: mujoco.mjx does not import here ({why})")
    rows = []
    for name in args.scenes:
        scene = peer.SCENES[name].replace(steps=args.steps)
        n = args.bodies
        lines = [
            ("MIME Experiment.run (scan)", mime_scan(scene, args.repeat), None),
            ("MIME Experiment.run (one kernel)", mime_scan(scene, args.repeat, one_kernel=True), None),
            ("MIME sweep.run_sweep", mime_sweep(scene, 1, args.repeat), mime_sweep(scene, n, args.repeat)),
            ("MuJoCo mj_step loop", mujoco_step(scene, 1, args.repeat), mujoco_step(scene, n, 1)),
            ("MuJoCo rollout", mujoco_rollout(scene, 1, args.repeat), mujoco_rollout(scene, n, args.repeat)),
        ]
        if have_mjx:
            try:
                lines.append(("MJX jit(scan(step)) / vmap", mjx_scan(scene, 1, args.repeat),
                              mjx_scan(scene, n, args.repeat)))
            except NotImplementedError as exc:
                print(f"# MJX skipped for {name}: {exc}")
        base1, baseN = lines[4][1], lines[4][2]  # MuJoCo's rollout
        for label, one, many in lines:
            rows.append((name, label, one * US, one / base1, None if many is None else many * US,
                         None if many is None else many / baseN))
    w = max(len(r[1]) for r in rows)
    print(f"\n| scene | engine{' ' * (w - 6)} | 1 body µs | / rollout | {args.bodies} bodies µs | / rollout |")
    print(f"|---|{'-' * (w + 2)}|---:|---:|---:|---:|")
    for name, label, one, r1, many, rN in rows:
        m = "" if many is None else f"{many:.3g}"
        r = "" if rN is None else f"{rN:.3g}"
        print(f"| {name} | {label:<{w}} | {one:.3g} | {r1:.3g} | {m} | {r} |")
    _targets(rows, args.bodies)


TARGETS = (
    ("one body: MIME Experiment.run / MuJoCo rollout", "MIME Experiment.run (scan)", 1, "MuJoCo rollout", 1, 3.0),
    ("one body, one_kernel=True: MIME Experiment.run / MuJoCo rollout", "MIME Experiment.run (one kernel)", 1,
     "MuJoCo rollout", 1, 3.0),
    ("N bodies: MIME sweep.run_sweep / MJX", "MIME sweep.run_sweep", "N", "MJX jit(scan(step)) / vmap", "N", 1.0),
    ("N bodies: MIME sweep.run_sweep / MuJoCo rollout (stretch)", "MIME sweep.run_sweep", "N", "MuJoCo rollout", "N", 1.0),
    ("batched per body-step / one body's (run_sweep)", "MIME sweep.run_sweep", "N", "MIME sweep.run_sweep", 1, 1.0),
)
"""Issue 26's targets as ratios of this table's figures: (what, engine, batch, baseline engine, batch, at most).
The second row asks the one-body target of ``one_kernel=True`` too; the issue names only the first."""


def _targets(rows: list[tuple[Any, ...]], bodies: int) -> None:
    """Print each of issue 26's targets beside the measured ratio, per scene: met or missed."""
    table = {(name, label): (one, many) for name, label, one, _, many, _ in rows}
    print(f"\n| scene | target (N = {bodies}) | measured | at most | |")
    print("|---|---|---:|---:|---|")
    for name in dict.fromkeys(r[0] for r in rows):
        for what, engine, batch, base, base_batch, limit in TARGETS:
            a, b = table.get((name, engine)), table.get((name, base))
            if a is None or b is None:
                print(f"| {name} | {what} | | {limit:g} | not measured |")
                continue
            ratio = (a[1] if batch == "N" else a[0]) / (b[1] if base_batch == "N" else b[0])
            print(f"| {name} | {what} | {ratio:.3g} | {limit:g} | {'met' if ratio <= limit else 'missed'} |")


if __name__ == "__main__":
    main()
