"""Ports for tests that start servers or scripts: a free one, and one another program holds."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _AnswersEverything(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"id": "someone-else"}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def another_program_on_a_port() -> Iterator[int]:
    """Another program on a port of 127.0.0.1 (yielded): 200 and a user to any GET, /health and
    /api/... included. It stops when the block ends."""
    other = ThreadingHTTPServer(("127.0.0.1", 0), _AnswersEverything)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        yield other.server_address[1]
    finally:
        other.shutdown()
        other.server_close()
