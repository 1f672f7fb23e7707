"""A process that imports the heavy libraries once and forks a Jupyter kernel from itself on request.

Run by path, never imported: ``python -P src/specbook/_forkserver.py SOCKET MODULE ...``. It imports
``MODULE ...`` (third-party libraries only: JAX, NumPy, SciPy, matplotlib, ipykernel), prints
``ready`` and serves ``SOCKET``, a Unix socket. Each connection is one kernel:

1. the client (``_forkclient.py``, the command jupyter_client starts as "the kernel") sends one
   JSON line, ``{"argv": [...], "env": {...}, "cwd": "..."}``, with its standard input, output
   and error passed along as file descriptors;
2. the server forks. The child takes the client's descriptors, environment, working directory
   and ``PYTHONPATH`` (so a fault's patched ``src/`` comes first, exactly as in a kernel started
   from scratch), then runs ``ipykernel``'s application with ``argv``;
3. the server answers ``{"pid": N}``, forwards each ``{"signal": S}`` the client sends (an
   interrupt) a moment later unless the client is gone by then, answers ``{"exit": CODE}`` when the child ends, and kills the child when the
   client is gone (jupyter_client ended "the kernel").

A kernel forked here starts in a fraction of a second instead of about two: the imports are done.
The child refuses (``{"refused": why}``, and the client starts an ordinary kernel instead) when the
environment asks for a different JAX or XLA setting than the one the libraries were imported under:
JAX reads its ``JAX_*`` settings when it is imported. Nothing of the project is imported here, so a
page imports the project's code (or a fault's copy of it) itself, as it always does.

The server and every child die with their parent (``PR_SET_PDEATHSIG``): a killed run leaves no
kernel behind. This file is standard library only, besides the modules it is asked to import.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import selectors
import signal
import socket
import sys
import time
import traceback
import warnings

_PR_SET_PDEATHSIG = 1
_INTERRUPT_GRACE = 0.1
"""Seconds a signal from the client waits before it is passed on. jupyter_client interrupts a kernel
just before it kills it; the kill ends the client at once, and a signal still waiting then is dropped
(an ordinary kernel would get both back to back), so a kernel that is ending logs no interrupt."""
_PINNED = ("JAX_", "XLA_", "MPLBACKEND")  # what the imported libraries read at import time


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # pragma: no cover - not Linux: the server still kills its children
        pass


_INLINE = "module://matplotlib_inline.backend_inline"  # what ipykernel sets when MPLBACKEND is unset or empty


def _pinned(env: dict[str, str]) -> dict[str, str]:
    """The settings the imported libraries read at import: a kernel given others cannot be forked from here."""
    pinned = {k: v for k, v in env.items() if k.startswith(_PINNED)}
    pinned["MPLBACKEND"] = pinned.get("MPLBACKEND") or _INLINE
    return pinned


def _send(conn: socket.socket, message: dict) -> None:
    try:
        conn.sendall(json.dumps(message).encode() + b"\n")
    except OSError:
        pass


def _sys_path(cwd: str, env: dict[str, str], base: list[str]) -> list[str]:
    """``sys.path`` as ``python -m ipykernel_launcher`` started in ``cwd`` with ``env`` would have it."""
    extra = [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    return [cwd, *extra, *[p for p in base if p not in extra]]


def _child(request: dict, fds: list[int], base_path: list[str]) -> None:
    """In the forked child: become the kernel the request describes; never returns."""
    code = 1
    try:
        _die_with_parent()
        for sig in (signal.SIGTERM, signal.SIGCHLD, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in zip((0, 1, 2), fds):
            os.dup2(fd, target)
            os.close(fd)
        env, cwd = request["env"], request["cwd"]
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        sys.path[:] = _sys_path(cwd, env, base_path)
        importlib.invalidate_caches()
        sys.argv = ["ipykernel_launcher", *request["argv"]]
        from ipykernel.kernelapp import IPKernelApp

        try:
            IPKernelApp.launch_instance(argv=request["argv"])
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        import atexit

        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - the child must end here, whatever happened
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def serve(path: str, modules: list[str]) -> None:
    """Import ``modules``, say ``ready`` on standard output, then fork a kernel for each connection to ``path``."""
    _die_with_parent()
    warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
    os.environ["MPLBACKEND"] = os.environ.get("MPLBACKEND") or _INLINE  # as ipykernel does, before matplotlib
    for name in modules:
        importlib.import_module(name)
    pinned = _pinned(dict(os.environ))
    base_path = [p for p in sys.path if p]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    children: dict[int, socket.socket | None] = {}  # pid -> the client's connection (None: it is gone)
    owners: dict[socket.socket, int] = {}
    stop = []
    later: list[tuple[float, int, int]] = []  # (when, pid, signal): the signals waiting to be passed on
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    print("ready", flush=True)

    def end(conn: socket.socket) -> None:
        pid = owners.pop(conn, None)
        if pid is not None and pid in children:
            children[pid] = None  # still reaped below, with no one left to tell
            try:
                os.kill(pid, signal.SIGKILL)  # the client is gone: so is the kernel
            except ProcessLookupError:
                pass
        selector.unregister(conn)
        conn.close()

    try:
        while not stop:
            for key, _ in selector.select(timeout=0.05):
                if key.fileobj is listener:
                    conn, _ = listener.accept()
                    try:
                        line, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
                        request = json.loads(line.decode())
                    except (OSError, ValueError) as error:
                        _send(conn, {"refused": f"unreadable request: {error}"})
                        conn.close()
                        continue
                    differs = sorted(set(_pinned(request.get("env", {})).items()) ^ set(pinned.items()))
                    if len(fds) != 3 or differs:
                        for fd in fds:
                            os.close(fd)
                        why = (f"settings read at import differ: {sorted({k for k, _ in differs})}"
                               if differs else "expected 3 descriptors")
                        _send(conn, {"refused": why})
                        conn.close()
                        continue
                    pid = os.fork()
                    if pid == 0:  # the kernel keeps none of the server's sockets
                        for held in (listener, conn, *owners):
                            held.close()
                        selector.close()
                        _child(request, fds, base_path)
                    for fd in fds:
                        os.close(fd)
                    children[pid] = conn
                    owners[conn] = pid
                    selector.register(conn, selectors.EVENT_READ)
                    _send(conn, {"pid": pid})
                else:
                    conn = key.fileobj
                    try:
                        data = conn.recv(4096)
                    except OSError:
                        data = b""
                    if not data:
                        end(conn)
                        continue
                    pid = owners.get(conn)
                    for line in data.splitlines():
                        try:
                            number = int(json.loads(line).get("signal"))
                        except (ValueError, TypeError, AttributeError):
                            continue
                        if pid is not None:
                            later.append((time.monotonic() + _INTERRUPT_GRACE, pid, number))
            now = time.monotonic()
            for item in [item for item in later if item[0] <= now]:
                later.remove(item)
                if item[1] in children and children[item[1]] is not None:  # the client is still there
                    try:
                        os.kill(item[1], item[2])
                    except ProcessLookupError:
                        pass
            while children:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                conn = children.pop(pid, None)
                if conn is not None:
                    _send(conn, {"exit": os.waitstatus_to_exitcode(status)})
                    owners.pop(conn, None)
                    selector.unregister(conn)
                    conn.close()
    finally:
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        listener.close()


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2:])
