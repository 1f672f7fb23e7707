"""Kernels forked from a process that has already imported the heavy libraries.

Starting a Jupyter kernel and importing JAX, SciPy and matplotlib in it costs more than a second
of CPU, every time, and the fault catalogue runs over a hundred pages. Forked from a process that
has done the imports, a run saves about 0.7 s of CPU (37 fault runs of four pages: 88 s of CPU
with kernels started afresh, 62 s forked). :class:`KernelServer` starts ``_forkserver.py`` once, which imports :data:`PRELOAD` and then
forks each kernel from itself; :func:`manager_class` gives nbclient a kernel manager whose kernel
command asks that server for a kernel (``_forkclient.py``) instead of starting Python afresh.

What stays the same as an ordinary kernel: the kernel is ipykernel's, started with the same
arguments, environment, working directory and ``PYTHONPATH`` (a fault's patched ``src/`` first),
and the page imports the project itself: the server imports no project code. What differs: the
preloaded libraries are in ``sys.modules`` before the first cell, so the recorder lists them among
the distributions the page used even when the page never imports them (a run keyed by one version
more than it needs: it can only run again when it need not, never be kept when it should not). That
is why the book's own page runs, whose keys decide what an author waits for, start their kernels
afresh: a SciPy upgrade must re-run only the pages that import SciPy. The fault catalogue's runs
and nbval's (the root ``conftest.py``) make no page key, and are forked.
A JAX or XLA setting other than the server's (JAX reads them when it is imported) gets an
ordinary kernel, as does any failure to reach the server.

Every kernel the book starts, forked or not (and nbval's, through the root ``conftest.py``), talks
to its client over Unix sockets of its own (:class:`OverUnixSockets`), not over TCP ports.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import Type

from specbook._ready import PromptShutdown

__all__ = ["FORK_ENV", "PRELOAD", "ForkedKernels", "KernelServer", "OverUnixSockets", "forking", "manager_class"]

FORK_ENV = "SPECBOOK_FORK_KERNELS"
"""Set to ``0``: every page's kernel is started afresh instead of forked (to compare, or to rule the fork out)."""


def forking() -> bool:
    """Whether pages run several at a time get forked kernels (unless ``SPECBOOK_FORK_KERNELS=0``)."""
    return os.environ.get(FORK_ENV) != "0"

_HERE = Path(__file__).resolve().parent
_SERVER = _HERE / "_forkserver.py"
_CLIENT = _HERE / "_forkclient.py"

PRELOAD = ("numpy", "scipy", "scipy.linalg", "scipy.optimize", "scipy.integrate", "scipy.spatial",
           "jax", "jax.numpy", "matplotlib", "matplotlib.pyplot", "IPython", "ipykernel.ipkernel", "nbformat")
"""What the server imports before it forks: the third-party libraries that most pages import.

Not ``ipykernel.kernelapp``: it reads the kernel's parent (``JPY_PARENT_PID``) from the environment
when it is imported, so each kernel imports it (a few milliseconds) after taking its own environment.
Not ``matplotlib_inline.backend_inline`` either: importing it hooks the figures' display into the
running IPython shell, and there is none in the server; a page's first figure imports it in the kernel.
"""


class KernelServer:
    """A running ``_forkserver.py``: ``with KernelServer() as server:`` then ``server.path`` (None: not running).

    It is started with this process's environment and stopped on exit; when it cannot start within
    ``wait`` seconds, ``path`` is None and pages get ordinary kernels (as with ``start=False``).
    """

    def __init__(self, modules: tuple[str, ...] = PRELOAD, *, wait: float = 60.0, start: bool = True) -> None:
        self.modules = tuple(modules)
        self.wait = wait
        self.start = start
        self.path: str | None = None
        self.why: str = ""
        self._process: subprocess.Popen | None = None
        self._folder: tempfile.TemporaryDirectory | None = None

    def __enter__(self) -> "KernelServer":
        if not self.start:
            self.why = "no kernel server was asked for"
            return self
        self._folder = tempfile.TemporaryDirectory(prefix="specbook-kernels-")
        path = os.path.join(self._folder.name, "server")
        self._process = subprocess.Popen([sys.executable, "-P", str(_SERVER), path, *self.modules],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        ready: list[str] = []
        reader = threading.Thread(target=lambda: ready.append(self._process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(self.wait)
        if ready and ready[0].strip() == "ready":
            self.path = path
        else:
            self.why = f"the kernel server did not start within {self.wait:.0f} s (exit code {self._process.poll()})"
            self._stop()
        return self

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs, else None."""
        return self._process.pid if self._process is not None else None

    def _stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:  # pragma: no cover - it ends on SIGTERM
                self._process.kill()
                self._process.wait()
            self._process = None

    def __exit__(self, *exc) -> None:
        self._stop()
        self.path = None
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


class OverUnixSockets:
    """A kernel manager mixin: the kernel's five channels are Unix sockets no other kernel uses.

    Over TCP, jupyter_client picks five free ports by binding port 0 and letting each go, and the
    kernel binds them when it has started, up to a second or two later. Another process starting a
    kernel in between can take one of them; the kernel then dies before it replies ("Address already
    in use"), which failed a page of ``make test`` once while the other pytest worker started kernels.
    Here the channels are the files ``<prefix>-1`` to ``<prefix>-5``, with a prefix drawn afresh for
    each manager in the temporary folder (jupyter_client's own ``ipc`` default, ``kernel-ipc`` in the
    working folder, is shared by every kernel started there). jupyter_client deletes them at shutdown.
    Where Unix sockets do not exist (Windows), the kernel keeps TCP.

    >>> from jupyter_client.manager import KernelManager
    >>> manager = type("Manager", (OverUnixSockets, KernelManager), {})()
    >>> manager.transport, manager.ip.startswith(tempfile.gettempdir()), manager.ip == type(manager)().ip
    ('ipc', True, False)
    """

    def __init__(self, **kwargs) -> None:
        if os.name == "posix":
            kwargs.setdefault("transport", "ipc")
            kwargs.setdefault("ip", os.path.join(tempfile.gettempdir(), f"specbook-kernel-{uuid.uuid4().hex[:12]}"))
        super().__init__(**kwargs)


class ForkedKernels:
    """A kernel manager mixin: the kernel is forked by the server at :attr:`fork_server` (a
    :class:`KernelServer`'s ``path``; None: started afresh).

    Only a kernel that ``python -m ipykernel_launcher`` with this interpreter would start is
    forked; any other kernel command is left as it is.
    """

    fork_server: str | None = None

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        cmd = super().format_kernel_cmd(extra_arguments)
        server = self.fork_server
        if (server is not None and len(cmd) >= 3 and cmd[1:3] == ["-m", "ipykernel_launcher"]
                and os.path.realpath(cmd[0]) == os.path.realpath(sys.executable)):
            return [sys.executable, "-I", "-S", str(_CLIENT), server, *cmd[3:]]
        return cmd


class _Manager(OverUnixSockets, ForkedKernels, PromptShutdown, AsyncKernelManager):
    """nbclient's kernel manager: over Unix sockets, forked where a server is given, its client ready
    as soon as the kernel has answered and its end seen at once (:mod:`specbook._ready`)."""

    client_factory = Type(klass="specbook._ready.ReadyAsyncClient")


def manager_class(server: str | None) -> type[AsyncKernelManager]:
    """nbclient's kernel manager for kernels forked by the server at ``server`` (None: ordinary kernels).

    Either way the kernel talks over Unix sockets (:class:`OverUnixSockets`); see
    :class:`ForkedKernels` for which kernels are forked.
    """
    if server is None:
        return _Manager
    return type("ForkedKernelManager", (_Manager,), {"fork_server": server})
