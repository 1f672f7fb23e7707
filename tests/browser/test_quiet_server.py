"""The browser tests' server stays quiet when a reader hangs up in the middle of an answer."""

from __future__ import annotations

import functools
import http.server
import socket
import struct
import threading
import time

from browser_visit import QuietHandler


class _Recording(http.server.ThreadingHTTPServer):
    """A server that records the errors it would print, instead of printing them."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.errors: list[str] = []
        self.answered = threading.Event()

    def handle_error(self, request, client_address):
        import sys

        self.errors.append(repr(sys.exc_info()[1]))

    def shutdown_request(self, request):
        super().shutdown_request(request)
        self.answered.set()


def _hang_up_mid_answer(handler_class, tmp_path) -> list[str]:
    (tmp_path / "big.bin").write_bytes(b"\0" * (32 << 20))  # far more than the socket buffers hold
    server = _Recording(("127.0.0.1", 0), functools.partial(handler_class, directory=str(tmp_path)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        client = socket.create_connection(server.server_address)
        client.sendall(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        client.recv(4096)  # the answer has begun
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # a reset, as a browser leaving the page sends
        assert server.answered.wait(10), "the server never finished the request"
        time.sleep(0.1)
        return server.errors
    finally:
        server.shutdown()
        server.server_close()


def test_a_reader_hanging_up_mid_answer_prints_nothing(tmp_path):
    assert _hang_up_mid_answer(QuietHandler, tmp_path) == []


def test_the_plain_handler_reports_that_hang_up(tmp_path):
    """The case above is real: the standard handler lets the reset reach the server's error report."""
    errors = _hang_up_mid_answer(http.server.SimpleHTTPRequestHandler, tmp_path)
    assert errors and any("Reset" in e or "BrokenPipe" in e for e in errors), errors
