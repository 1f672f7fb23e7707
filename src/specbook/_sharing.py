"""Which pages compile the same JAX programs, so that they run one after the other.

Two pages that run at the same time on a cold JAX cache both compile every program they
share; run one after the other, the second reads the first one's programs from JAX's
persistent cache. On this book the anomalies page compiles most of what the contact
chapter compiles: after it, the anomalies page ran in 15 s instead of 50 s.

Each page's kernel records the names of the programs it read from or wrote to JAX's
persistent cache (``specbook._record``); the build keeps them with the page's record.
A page *follows* a longer page when at least :data:`SHARED` of its programs, weighed by
their size in the cache (a bigger executable took longer to compile), are programs the
longer page uses too. :func:`run_order` starts the pages that follow no other stale page
first, longest first, and the followers after them.

A fresh clone has no records, so the measured times and followers are kept in the
repository, in :data:`SCHEDULE` (as pytest-split keeps its ``.test_durations``):
``python -m specbook.execute --store-schedule`` rewrites it from the last runs. A file that
is out of date costs time, never correctness: every page still runs, and each run's
output is the same in any order.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from specbook import _atomic

SCHEDULE = Path("page-schedule.json")
"""The measured times and followers kept in the repository, relative to the book's root."""

SHARED = 0.5
"""The share of a page's programs (by size) a longer page must use too for the page to follow it."""


def followers(pages: Mapping[str, tuple[float, list[str]]], size: Callable[[str], int]) -> dict[str, list[str]]:
    """For each page, the longer pages it follows: ``pages`` maps a page to ``(seconds, programs)``.

    >>> sizes = {"scan": 90, "add": 1, "sweep": 50}.get
    >>> pages = {"contact": (80.0, ["scan", "add", "sweep"]), "anomalies": (50.0, ["scan", "add"]),
    ...          "ball": (30.0, ["add", "ode"])}
    >>> followers(pages, lambda name: sizes(name, 10))
    {'anomalies': ['contact']}
    """
    out: dict[str, list[str]] = {}
    for page, (seconds, programs) in pages.items():
        own = sum(size(p) for p in set(programs))
        if own <= 0:
            continue
        leaders = sorted(
            (other for other, (longer, theirs) in pages.items()
             if other != page and longer > seconds
             and sum(size(p) for p in set(programs) & set(theirs)) >= SHARED * own),
            key=lambda other: (-pages[other][0], other))
        if leaders:
            out[page] = leaders
    return out


def typical_time(names: list[str], times: Mapping[str, float]) -> float:
    """The time a page never timed counts as: the mean of ``names``' known times, else 1 s.

    >>> typical_time(["a", "b", "c"], {"a": 4.0, "b": 2.0}), typical_time(["a"], {})
    (3.0, 1.0)
    """
    known = [times[n] for n in names if n in times]
    return sum(known) / len(known) if known else 1.0


def run_order(names: list[str], times: Mapping[str, float], follows: Mapping[str, list[str]]) -> list[str]:
    """The order to start ``names`` in: pages following none of ``names`` first, then their followers.

    Within each rank, longest first (a page never timed counts as the mean of those that
    were); a page follows another only if both are in ``names``.

    >>> run_order(["a", "b", "c", "d"], {"a": 80, "b": 50, "c": 30, "d": 5}, {"b": ["a"]})
    ['a', 'c', 'd', 'b']
    """
    default = typical_time(names, times)
    present = set(names)
    rank: dict[str, int] = {}

    def depth(name: str, seen: frozenset[str] = frozenset()) -> int:
        if name not in rank:
            leaders = [n for n in follows.get(name, ()) if n in present and n not in seen]
            rank[name] = 1 + max((depth(n, seen | {name}) for n in leaders), default=-1)
        return rank[name]

    return sorted(names, key=lambda n: (depth(n), -times.get(n, default), names.index(n)))


def load(root: Path) -> tuple[dict[str, float], dict[str, list[str]]]:
    """The kept times and followers of ``root``'s :data:`SCHEDULE` (empty when there is none)."""
    try:
        data = json.loads((root / SCHEDULE).read_text(encoding="utf-8"))
        times = {str(k): float(v) for k, v in data.get("seconds", {}).items()}
        follows = {str(k): [str(x) for x in v] for k, v in data.get("follows", {}).items()}
    except (FileNotFoundError, ValueError, AttributeError, TypeError):
        return {}, {}
    return times, follows


def store(root: Path, records: Mapping[str, Mapping[str, Any]], jax_cache: Path | None) -> dict[str, Any]:
    """Write :data:`SCHEDULE` from each page's stored use record (``seconds``, ``programs``); return it.

    Programs are weighed by their file's size in ``jax_cache`` (1 byte when it is not there).
    """
    def size(name: str) -> int:
        if jax_cache is None:
            return 1
        try:
            return max(1, os.stat(jax_cache / f"{name}-cache").st_size)
        except OSError:
            return 1

    pages = {rel: (round(float(use.get("seconds") or 0.0), 1), list(use.get("programs") or []))
             for rel, use in sorted(records.items())}
    data = {
        "about": "written by python -m specbook.execute --store-schedule; it orders the pages' runs "
                 "(specbook._sharing) and balances CI shards; a stale file costs time, never correctness",
        "seconds": {rel: seconds for rel, (seconds, _) in pages.items()},
        "follows": followers(pages, size),
    }
    _atomic.write_text(root / SCHEDULE, json.dumps(data, indent=1) + "\n")
    return data
