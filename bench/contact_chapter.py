"""How long the contact chapter takes from a cold JAX cache, and how many programs it compiles.

Usage::

    .venv/bin/python bench/contact_chapter.py            # cold, then warm (about a minute and a half)
    .venv/bin/python bench/contact_chapter.py --runs 2   # each twice, interleaved (the machine is shared)

The chapter's pages (:data:`CHAPTER`: the contact page and its sections, contact 0.1.0 and the MuJoCo
witness) run through ``python -m specbook.execute --force --workers 1``: one kernel at a time, longest
first as the build orders them, into a scratch notebook cache, with JAX's persistent compilation cache in
a scratch folder.

- **cold**: that folder starts empty, as in a fresh clone's first build. Issue 26's target: 15 s.
- **warm** (the baseline, in the same run): the same pages again over the folder the cold run filled,
  so every program is read from the cache. Cold minus warm is what compiling cost.

The runs hold the tree's build lock (``specbook.buildlock``: a ``make`` in the tree waits for them, and
they for it), and the pages' recorded times (``_build/page-seconds.json``, which orders the build's
pages) are put back as they were afterwards.

Printed: each wall time against the target, the ratio cold / warm, each page's time cold and warm with
its split from ``specbook.execute``'s report (kernel start; JAX's tracing, lowering, compiling and cache
reads; the rest of the page), and what the cold run compiled: how many programs in all, and how many
programs hold a body's steps (``run_scan``'s chunk and ``run_sweep``'s batch, counted together) for the
hull kinds the chapter holds (issue 26: one compiled program per hull kind or fewer).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from specbook.buildlock import build_lock
from specbook.execute import TIMES

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
CHAPTER = (
    "book/mime/contact.md",
    "book/mime/contact-support.md",
    "book/mime/contact-hold.md",
    "book/mime/contact-solver.md",
    "book/mime/contact-sweeps.md",
    "book/mime/contact-declarations.md",
    "book/mime/contact-0-1-0.md",
    "book/mime/mujoco.md",
)
"""The contact chapter: the contact page, its sections, 0.1.0 and the MuJoCo witness (each checked at
start to be a page of ``_toc.yml``)."""
TARGET_S = 15.0
"""Issue 26: the contact chapter from a cold JAX cache, at most this many seconds on the development machine."""
STEP_PROGRAMS = ("jit__scan_chunk", "jit__sweep")
"""Cache-entry prefixes of the programs that hold a body's steps: ``run_scan``'s chunk and ``run_sweep``'s batch."""
_VERDICT = re.compile(r"^(?:specbook: )?(\S+\.md): re-ran \(.*?\) in ([0-9.]+) s.*?\[(.*)\]\s*$", re.M)
_ENTRY = re.compile(r"^(.*)-[0-9a-f]{32,}-cache$")


def _check_chapter() -> None:
    toc = (ROOT / "_toc.yml").read_text()
    missing = [page for page in CHAPTER if f"file: {page[:-3]}\n" not in toc]
    if missing:
        raise SystemExit(f"bench/contact_chapter.py: not in _toc.yml: {', '.join(missing)}; update CHAPTER")


def run_chapter(jax_cache: Path, notebooks: Path, environ: dict[str, str]) -> tuple[float, str]:
    """Every page of the chapter forced, one kernel at a time; (wall seconds, specbook.execute's report)."""
    env = {**environ, "JAX_COMPILATION_CACHE_DIR": str(jax_cache), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
           "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1", "OPENBLAS_NUM_THREADS": "1"}
    start = time.perf_counter()
    done = subprocess.run([str(PYTHON), "-m", "specbook.execute", "--force", "--workers", "1", "--cache", str(notebooks),
                           *CHAPTER], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"specbook.execute failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return seconds, done.stdout + done.stderr


def programs(jax_cache: Path) -> collections.Counter:
    """The programs in JAX's cache folder, counted by name (``jit_<function>``)."""
    names = (_ENTRY.match(p.name) for p in jax_cache.iterdir())
    return collections.Counter(m.group(1) for m in names if m)


def hull_kinds() -> list[str]:
    """The hull kinds the chapter holds: those its margin sweeps run (``mime.sweep.sweep_kinds``)."""
    code = "from mime.sweep import sweep_kinds; print('\\n'.join(sweep_kinds()))"
    return subprocess.run([str(PYTHON), "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\n")[:-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="cold and warm runs, interleaved (default 1)")
    args = parser.parse_args(argv)
    _check_chapter()
    print(f"the contact chapter: {len(CHAPTER)} pages, one kernel at a time; load {os.getloadavg()[0]:.1f}", flush=True)
    cold, warm, compiled, pages = [], [], collections.Counter(), {}
    times = ROOT / TIMES
    kept = times.read_bytes() if times.exists() else None
    with tempfile.TemporaryDirectory(prefix="contact-chapter-") as tmp, \
            build_lock(ROOT, "bench/contact_chapter.py") as environ:
        try:
            for r in range(args.runs):
                jax_cache = Path(tmp) / f"jax{r}"
                jax_cache.mkdir()
                seconds, report = run_chapter(jax_cache, Path(tmp) / f"cold{r}", environ)
                cold.append(seconds)
                if r == 0:
                    compiled = programs(jax_cache)
                seconds, again = run_chapter(jax_cache, Path(tmp) / f"warm{r}", environ)
                warm.append(seconds)
                if r == 0:
                    for run, text in (("cold", report), ("warm", again)):
                        for page, page_s, split in _VERDICT.findall(text):
                            pages.setdefault(page, {})[run] = (float(page_s), split)
        finally:  # the build orders its pages by these times: not by this bench's forced, one-worker runs
            if kept is None:
                times.unlink(missing_ok=True)
            else:
                times.write_bytes(kept)
    print(f"  {'page':36s} {'cold':>6s} {'warm':>6s}  each run's split: kernel, JAX (tracing, lowering, compiling, "
          "cache reads), the page's own work")
    for page, runs in pages.items():
        (c, c_split), (w, w_split) = runs["cold"], runs["warm"]
        print(f"  {page:36s} {c:5.1f}s {w:5.1f}s  cold: {c_split}")
        print(f"  {'':36s} {'':6s} {'':6s}  warm: {w_split}")
    best_cold, best_warm = min(cold), min(warm)
    print(f"cold JAX cache: {', '.join(f'{s:.1f}' for s in cold)} s; target at most {TARGET_S:.0f} s: "
          f"{'met' if best_cold <= TARGET_S else 'missed'}")
    print(f"warm JAX cache (baseline): {', '.join(f'{s:.1f}' for s in warm)} s; cold / warm {best_cold / best_warm:.2f}, "
          f"compiling about {best_cold - best_warm:.1f} s")
    kinds = [k for k in hull_kinds() if k != "no hull"]
    steps = {name: compiled.get(name, 0) for name in STEP_PROGRAMS}
    total = sum(steps.values())
    print(f"programs compiled: {sum(compiled.values())} in all; holding a body's steps: "
          + ", ".join(f"{n} {name[4:]}" for name, n in steps.items())
          + f", {total} together, for {len(kinds)} hull kinds ({', '.join(kinds)}): "
          + ("one per kind or fewer" if total <= len(kinds) else "more than one per kind"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
