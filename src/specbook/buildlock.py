"""One build at a time in a tree: a second ``make book``, ``make page`` or ``make test`` waits.

Two builds of one tree at once would write the same notebook cache, site and ledger. The
Makefile runs each of those targets under this lock::

    python -m specbook.buildlock --for "make book" -- make book-now

The lock is ``_build/.specbook-build.lock``, taken with `filelock
<https://py-filelock.readthedocs.io>`_: the operating system releases it when its holder
ends, however it ends, so a build that was killed never leaves the next one waiting. A
build that finds the lock held says who holds it and waits::

    specbook: another build is running in this tree (make book, pid 4711, started 10:02:13);
      waiting for it to finish (at most 3600 s; SPECBOOK_LOCK_TIMEOUT sets how long)

and after ``SPECBOOK_LOCK_TIMEOUT`` seconds (default 3600) it gives up with a message
that says what to do, and exit status 75. A build that a locked build starts (``make test``
runs ``make book``) runs at once: the holder names its lock and process in the
environment of what it runs (``SPECBOOK_BUILD_LOCK``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from specbook import _atomic

__all__ = ["DEFAULT_WAIT", "ENVIRONMENT", "GAVE_UP", "LOCK_FILE", "LockTimeout", "build_lock", "main"]

LOCK_FILE = Path("_build") / ".specbook-build.lock"
"""The lock, relative to the book's root."""
ENVIRONMENT = "SPECBOOK_BUILD_LOCK"
"""The variable by which a lock's holder tells what it runs that the lock is already held (``<lock>:<pid>``)."""
GAVE_UP = 75
"""The exit status when the wait ran out (``EX_TEMPFAIL``, try again later)."""
DEFAULT_WAIT = 3600.0
"""How long, in seconds, a build waits for the lock when ``SPECBOOK_LOCK_TIMEOUT`` is not set."""


class LockTimeout(RuntimeError):
    """The other build still held the lock when the wait ran out; the message says what to do."""


def _info_path(lock: Path) -> Path:
    return lock.with_name(lock.name + ".json")


def _holder(lock: Path) -> str:
    """Who holds the lock, as the holder wrote it: ``make book, pid 4711, started 10:02:13``."""
    try:
        info = json.loads(_info_path(lock).read_text(encoding="utf-8"))
        return f"{info['what']}, pid {info['pid']}, started {info['started']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "it has not said what it is yet"


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _held_by_an_ancestor(lock: Path, environ: dict[str, str]) -> bool:
    """Whether the lock is held by a process this one descends from (``make test`` running ``make book``)."""
    path, _, pid_text = environ.get(ENVIRONMENT, "").rpartition(":")
    if not pid_text.isdigit() or Path(path) != lock:
        return False
    holder, pid = int(pid_text), os.getpid()
    if not Path("/proc/self/stat").exists():  # no process table to walk: trust a living holder
        with contextlib.suppress(OSError):
            os.kill(holder, 0)
            return True
        return False
    for _ in range(64):
        parent = _parent(pid)
        if parent is None or parent <= 1:
            return False
        if parent == holder:
            return True
        pid = parent
    return False


def _wait_limit(environ: dict[str, str]) -> float:
    text = environ.get("SPECBOOK_LOCK_TIMEOUT", "").strip()
    if not text:
        return DEFAULT_WAIT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise ValueError(f"SPECBOOK_LOCK_TIMEOUT = {text!r} is not allowed; expected a number of seconds, 0 or more")
    return value


@contextlib.contextmanager
def build_lock(root: str | os.PathLike[str], what: str, *, timeout: float | None = None,
               out: TextIO | Any | None = None, environ: dict[str, str] | None = None) -> Iterator[dict[str, str]]:
    """Hold the tree's build lock for the ``with`` block; yield the environment for what runs under it.

    ``what`` names the build in the messages (``"make book"``). ``timeout`` is the longest
    wait in seconds (default: ``SPECBOOK_LOCK_TIMEOUT``, else 3600); past it,
    :class:`LockTimeout` is raised with a message that says what to do. A lock already
    held by an ancestor process is not taken again.
    """
    from filelock import FileLock, Timeout

    environ = dict(os.environ if environ is None else environ)
    out = out or sys.stderr
    lock_path = (Path(root).resolve() / LOCK_FILE)
    if _held_by_an_ancestor(lock_path, environ):
        yield environ
        return
    limit = _wait_limit(environ) if timeout is None else timeout
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        began = time.monotonic()
        print(f"specbook: another build is running in this tree ({_holder(lock_path)}); waiting for it to finish "
              f"(at most {limit:g} s; SPECBOOK_LOCK_TIMEOUT sets how long)", file=out, flush=True)
        try:
            lock.acquire(timeout=limit, poll_interval=0.1)
        except Timeout:
            raise LockTimeout(
                f"specbook: gave up after waiting {limit:g} s: another build is still running in this tree "
                f"({_holder(lock_path)}). Let it finish or stop it, then run {what} again; "
                "SPECBOOK_LOCK_TIMEOUT=<seconds> waits longer.") from None
        print(f"specbook: the other build finished after {time.monotonic() - began:.0f} s; {what} starts now",
              file=out, flush=True)
    try:
        _atomic.write_text(_info_path(lock_path), json.dumps(
            {"what": what, "pid": os.getpid(), "started": time.strftime("%H:%M:%S")}) + "\n")
        yield {**environ, ENVIRONMENT: f"{lock_path}:{os.getpid()}"}
    finally:
        lock.release()


def _run(command: list[str], environ: dict[str, str]) -> int:
    """Run ``command`` to its end; Ctrl-C reaches it from the terminal, a SIGTERM or SIGHUP is passed on."""
    child = subprocess.Popen(command, env=environ)

    def pass_on(signum, frame) -> None:
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signum)

    previous = {sig: signal.signal(sig, handler) for sig, handler in (
        (signal.SIGINT, lambda signum, frame: None),  # the terminal sends it to the whole group
        (signal.SIGTERM, pass_on), (signal.SIGHUP, pass_on))}
    try:
        code = child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 - code if code < 0 else code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specbook.buildlock", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=".", help="the book's root folder")
    parser.add_argument("--for", dest="what", default=None, help="the build's name in messages (default: the command)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run under the lock")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given; expected: python -m specbook.buildlock [--for NAME] -- COMMAND ...")
    what = args.what or " ".join(command)
    try:
        with build_lock(args.root, what) as environ:
            return _run(command, environ)
    except LockTimeout as error:
        print(error, file=sys.stderr)
        return GAVE_UP
    except ValueError as error:
        parser.error(str(error))
    return 0  # pragma: no cover - unreachable


if __name__ == "__main__":
    sys.exit(main())
