"""What jupyter_client starts as "the kernel" when pages run with a kernel server (``_forkserver.py``).

Run by path, never imported: ``python -I -S _forkclient.py SOCKET ARGS...``, where ``ARGS`` are
``ipykernel_launcher``'s (``-f CONNECTION_FILE ...``). It asks the server to fork a kernel with this
process's environment, working directory and standard streams, forwards the signals jupyter_client
sends it (an interrupt, a terminate), and exits with the kernel's exit code. When it is killed, the
server sees the connection close and kills the kernel. When the server cannot be reached or refuses
(a JAX or XLA setting other than the one it imported JAX under), this process becomes an ordinary
kernel instead: ``python -m ipykernel_launcher ARGS...``. Standard library only.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def _ordinary(args: list[str]) -> None:
    os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *args])


def main(path: str, args: list[str]) -> int:
    """Run one forked kernel through the server at ``path``; its exit code (or an ordinary kernel's)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        request = json.dumps({"argv": args, "env": dict(os.environ), "cwd": os.getcwd()}).encode() + b"\n"
        socket.send_fds(conn, [request], [0, 1, 2])
        reader = conn.makefile("rb")
        answer = json.loads(reader.readline() or b"{}")
    except (OSError, ValueError):
        answer = {}
    if "pid" not in answer:
        conn.close()
        _ordinary(args)

    def forward(number, _frame) -> None:
        try:
            conn.sendall(json.dumps({"signal": int(number)}).encode() + b"\n")
        except OSError:
            pass

    for number in _FORWARDED:
        signal.signal(number, forward)
    while True:
        try:
            line = reader.readline()
        except InterruptedError:  # pragma: no cover - retried by Python since 3.5
            continue
        if not line:
            return 1  # the server went away: it killed the kernel as it went
        message = json.loads(line)
        if "exit" in message:
            code = int(message["exit"])
            return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
