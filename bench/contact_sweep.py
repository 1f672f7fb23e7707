"""The contact's margin guarantee over many random starts per hull kind, sharded over the devices.

Usage::

    .venv/bin/python bench/contact_sweep.py                 # 10,000 starts per hull kind
    .venv/bin/python bench/contact_sweep.py --n 500 --kinds sphere,box
    .venv/bin/python bench/contact_sweep.py --devices 2     # fake 2 host devices and shard over them

For every hull kind of ``mime.sweep.sweep_kinds()`` a 1 mg body pressed on to the
floor and held by ``Contact.Projection(margin=mm(0.1))`` starts from ``--n``
random poses, orientations, speeds and spins (``mime.sweep.margin_sweep``) and
runs ``mime.sweep.SWEEP_STEPS`` steps. Per kind the script prints

- the worst violation: how far past the margin any hull point ended after any
  step (measured without the contact's code, see ``mime.sweep``), against the
  tolerance (``mime.demos.KEEP_ATOL``; ``SWEPT_ATOL`` for a kind with steps
  flagged ``unconverged``);
- the worst inward speed a held point was left with after a touching step, and
  on how many starts it passed ``1e-9`` m/s;
- the share of starts touching, and the flags raised;
- the throughput, starts per second (each start ``SWEEP_STEPS`` steps), with the
  compile time measured apart (JAX's own compile-duration events) and left out.

The sweep is sharded over a mesh of every device (``mesh=``); on a CPU,
``--devices d`` fakes ``d`` host devices (the script re-executes itself with
``XLA_FLAGS=--xla_force_host_platform_device_count=d``). On GPUs the same run
uses ``jax.devices()`` unchanged (``--devices 0``: no faking).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

FLAG = "--xla_force_host_platform_device_count"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="starts per hull kind (default 10,000)")
    parser.add_argument("--kinds", default="", help="comma-separated kinds (default: every kind)")
    parser.add_argument("--devices", type=int, default=1, help="fake this many host devices (0: use the real ones)")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    if options.devices and FLAG not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {FLAG}={options.devices}".strip()
        os.execv(sys.executable, [sys.executable, *sys.argv])

    import jax
    import numpy as np

    from mime.demos import KEEP_ATOL, SWEPT_ATOL
    from mime.sweep import SWEEP_STEPS, margin_sweep, sweep_kinds

    compile_seconds = [0.0]

    def on_event(event: str, duration: float, **_: object) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            compile_seconds[0] += duration

    jax.monitoring.register_event_duration_secs_listener(on_event)
    mesh = jax.make_mesh((jax.device_count(),), ("batch",))
    print(f"jax {jax.__version__}; mesh over {jax.device_count()} devices {jax.devices()}; "
          f"{options.n} starts per kind, {SWEEP_STEPS} steps each; load {os.getloadavg()[0]:.1f}")
    kinds = options.kinds.split(",") if options.kinds else list(sweep_kinds())
    print(f"{'kind':10s} {'worst past margin (m)':>22s} {'tolerance (m)':>14s} {'ok':>3s} {'worst inward (m/s)':>19s} "
          f"{'starts > 1e-9 m/s':>17s} {'touching':>8s} {'unconv':>6s} {'by samples':>10s} {'short':>5s} "
          f"{'starts/s':>9s} {'compile s':>9s} {'load':>5s}")
    worst_all = 0.0
    for kind in kinds:
        compile_seconds[0] = 0.0
        start = time.perf_counter()
        r = margin_sweep(kind, options.n, seed=options.seed, mesh=mesh)
        wall = time.perf_counter() - start
        run = max(wall - compile_seconds[0], 1e-9)
        past = max(0.0, -float(r.worst_gap.min()))
        tolerance = SWEPT_ATOL if r.unconverged.any() else KEEP_ATOL
        worst_all = max(worst_all, past)
        print(f"{kind:10s} {past:22.3e} {tolerance:14.1e} {'yes' if past <= tolerance else 'NO':>3s} "
              f"{float(r.worst_inward.max()):19.3e} {int(np.sum(r.worst_inward > 1e-9)):17d} "
              f"{float(np.mean(r.touching > 0)):8.2f} {int(np.sum(r.unconverged > 0)):6d} "
              f"{int(np.sum(r.held_by_samples > 0)):10d} {int(np.sum(r.support_short > 0)):5d} "
              f"{r.size / run:9.0f} {compile_seconds[0]:9.1f} {os.getloadavg()[0]:5.1f}", flush=True)
    print(f"worst violation over every kind: {worst_all:.3e} m")


if __name__ == "__main__":
    main()
