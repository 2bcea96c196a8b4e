"""Put on PYTHONPATH by bench/workers.py for `uvicorn --workers N`: uvicorn binds the shared socket
with `socket.socket(family)` (protocol number 0), and asyncio sets TCP_NODELAY only on sockets
whose protocol is IPPROTO_TCP, so every response of a multi-worker uvicorn waits for the
client's delayed ACK (about 40 ms on Linux). This sets TCP_NODELAY on every TCP socket asyncio
accepts, as a single-worker uvicorn (whose sockets come from getaddrinfo) has it."""

import asyncio.base_events
import socket


def _set_nodelay(sock: socket.socket) -> None:
    if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


asyncio.base_events._set_nodelay = _set_nodelay  # type: ignore[attr-defined]
