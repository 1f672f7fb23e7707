"""Kernel clients that are ready as soon as the kernel has answered, with no quiet period to wait out.

jupyter_client's ``wait_for_ready`` asks the kernel for its ``kernel_info``, takes one message on
IOPub as proof that IOPub is connected, and then reads IOPub until it has been silent for 0.2 s.
That silence is idle time on every kernel start: about a quarter of a second of the 0.6 s a forked
kernel took to be ready, over a hundred times in ``make test`` (the fault catalogue's page runs,
nbval's and the build's), with a core left idle each time.

The clients here end the wait on a message instead of a silence. ipykernel brackets its handling of
every shell request with a ``status`` message on IOPub, ``busy`` before and ``idle`` after its
reply. So the wait is over when the ``idle`` of the answered ``kernel_info`` request arrives: IOPub
is connected, and nothing the kernel published for the request is left unread. When IOPub is not
connected yet (ZeroMQ drops what is published before a subscriber joins), that ``idle`` never comes;
after 0.2 s the request is sent again, as jupyter_client does. Messages published later belong to no
cell's request, and nbclient and nbval read only those of the request they sent.

At the other end, a kernel manager waits for a killed kernel to be gone by looking every 0.1 s; a
killed kernel is gone within milliseconds, so :class:`PromptShutdown` looks every 10 ms. Together: a
forked kernel that runs one trivial cell, from start to shutdown, 0.54 -> 0.26 s (median of 8); over the 21
fault runs of two light pages, one at a time, 0.15 s a run.
"""

from __future__ import annotations

import time
from queue import Empty
from typing import Any

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_core.utils import ensure_async, run_sync

__all__ = ["PromptShutdown", "ReadyAsyncClient", "ReadyBlockingClient"]

_IOPUB_PROOF_S = 0.2
"""How long the ``idle`` of an answered ``kernel_info`` may take on IOPub before the request is sent again."""


async def _wait_for_ready(client: Any, timeout: float | None = None) -> None:
    """Ask for ``kernel_info`` until the kernel answers on the shell channel and its ``idle`` arrives on IOPub."""
    deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
    while True:
        client.kernel_info()
        try:
            reply = await ensure_async(client.shell_channel.get_msg(timeout=1))
        except Empty:
            reply = None
        if reply is not None and reply["msg_type"] == "kernel_info_reply":
            request = reply["parent_header"].get("msg_id")
            try:
                while True:
                    msg = await ensure_async(client.iopub_channel.get_msg(timeout=_IOPUB_PROOF_S))
                    if (msg["msg_type"] == "status" and msg["content"].get("execution_state") == "idle"
                            and msg["parent_header"].get("msg_id") == request):
                        client._handle_kernel_info_reply(reply)
                        return
            except Empty:
                pass  # IOPub missed it (not connected yet): ask again
        if not await client._async_is_alive():
            raise RuntimeError("Kernel died before replying to kernel_info")
        if time.monotonic() > deadline:
            raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")


class ReadyAsyncClient(AsyncKernelClient):
    """nbclient's client (asynchronous), ready when the kernel's ``kernel_info`` round trip has ended."""

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        await _wait_for_ready(self, timeout)


class ReadyBlockingClient(BlockingKernelClient):
    """nbval's client (blocking), ready when the kernel's ``kernel_info`` round trip has ended."""

    def wait_for_ready(self, timeout: float | None = None) -> None:
        run_sync(_wait_for_ready)(self, timeout)


class PromptShutdown:
    """A kernel manager mixin: wait for a dying kernel by looking every 10 ms, not every 100."""

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        await super()._async_wait(pollinterval=min(pollinterval, 0.01))  # type: ignore[misc]
