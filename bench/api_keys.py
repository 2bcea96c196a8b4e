"""API keys of machine clients (API 2.8) through the ASGI middleware, called in process.

Figures: calls reaching the service (through the counting proxy) for 1,000 requests with one
repeated user key, for a flood of made-up keys (right shape and checksum: anyone can compute
one) sent three times each, and for values that only look like keys; and µs per request of a
repeated key against a repeated bearer access token (the steady state of each), this
thread's CPU time, best of several repeats.

    .venv/bin/python bench/api_keys.py [--iterations 20000] [--repeat 5] [--flood 500]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
import uuid
from typing import Any

from _common import Stack, heading, row

from authmw import AdminApp, ServerApp
from authmw.middleware import AuthMiddleware
from authmw_local.routes.api_keys import make_api_key

CHECKS = ("/api/v1/user-api-keys/check", "/api/v1/team-api-keys/check")


async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


async def receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


class Sink:
    status = 0

    async def __call__(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]


def scope_with(bearer: str) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"authorization", f"Bearer {bearer}".encode())]
    return {"type": "http", "scheme": "http", "method": "GET", "path": "/", "headers": headers}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--flood", type=int, default=500)
    args = parser.parse_args()

    with Stack() as stack:
        # (tokens carry the service's own URL in iss; the app reaches it through the proxy)
        config = stack.config.with_(accept_api_keys=True, public_api_url=stack.service.url)
        with AdminApp(config.with_(super_secret_admin_key=stack.service.super_secret_admin_key)) as admin:
            admin.update_project(config={"allow_user_api_keys": True})
        session = stack.sign_up()
        with ServerApp(config) as server:
            key = server.user_api_keys.create(session.user_id, description="bench").api_key
        mw = AuthMiddleware(inner, config=config)
        loop = asyncio.new_event_loop()
        sink = Sink()

        async def many(bearer: str, n: int) -> int:
            scope = scope_with(bearer)
            for _ in range(n):
                await mw(dict(scope), receive, sink)
            return sink.status

        def checks() -> int:
            return sum(stack.proxy.paths[path] for path in CHECKS)

        heading("calls reaching the service")
        stack.proxy.reset()
        status = loop.run_until_complete(many(key, 1000))
        row("1,000 requests, one repeated user key", f"{checks()} check call(s), last status {status}")
        stack.proxy.reset()
        made_up = [make_api_key(str(uuid.uuid4()), "user") for _ in range(args.flood)]
        for _ in range(3):
            for value in made_up:
                loop.run_until_complete(many(value, 1))
        row(f"{args.flood} made-up keys, each sent 3 times", f"{checks()} check calls (status {sink.status})")
        stack.proxy.reset()
        lookalikes = [value[:-1] + ("0" if value[-1] != "0" else "1") for value in made_up[:100]]
        for value in lookalikes:
            loop.run_until_complete(many(value, 1))
        row("100 values shaped like keys, wrong checksum", f"{checks()} check calls, {sum(stack.proxy.paths.values())} calls in all")

        heading("µs per request in the steady state (CPU time of this thread)")
        loop.run_until_complete(many(session.access_token, 10))

        def best(bearer: str) -> float:
            times = []
            gc.disable()
            try:
                for _ in range(args.repeat):
                    start = time.thread_time()
                    loop.run_until_complete(many(bearer, args.iterations))
                    times.append(time.thread_time() - start)
            finally:
                gc.enable()
            return min(times) / args.iterations * 1e6

        token_us, key_us = best(session.access_token), best(key)
        row("repeated bearer access token", f"{token_us:.1f} µs")
        row("repeated user API key", f"{key_us:.1f} µs")
        loop.close()


if __name__ == "__main__":
    main()
