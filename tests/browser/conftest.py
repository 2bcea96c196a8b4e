from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from example_apps import load_example
from playwright.sync_api import expect

from authmw import AuthConfig

ROOT = Path(__file__).resolve().parents[2]

# Playwright's expect() retries until its condition holds; its default bound (5 s) is a
# stopwatch on a busy machine, so it gets the same generous bound as every other wait.
expect.set_options(timeout=60_000)


@contextmanager
def serve(app: Any) -> Iterator[int]:
    """Serve an ASGI app with uvicorn in a thread on a free port of 127.0.0.1."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # generous: a loaded 2-core machine starts slowly
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the example app did not start"
        time.sleep(0.01)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture
def example_app(web_dist: Path) -> Callable[[AuthConfig], Any]:
    """Start the FastAPI example for a config; returns its base URL (http://localhost:PORT)."""
    module = load_example()
    stack: list[Any] = []

    def start(config: AuthConfig) -> str:
        cm = serve(module.create_app(config, web_dist=web_dist))
        port = cm.__enter__()
        stack.append(cm)
        return f"http://localhost:{port}"

    yield start
    for cm in reversed(stack):
        cm.__exit__(None, None, None)


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    # Waits end on events (an element, a response); the bound only has to be generous enough
    # for a loaded 2-core machine, never tight enough to time a page.
    context.set_default_timeout(60_000)
    try:
        yield context
    finally:
        context.close()
