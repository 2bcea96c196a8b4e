"""Refresh storm: many concurrent requests carrying the same expired access token and the
same refresh token. Target: exactly one refresh call reaches the service per storm.

The local service first issues one-second access tokens, so the sessions signed up are
expired by the time of the storm; it is then restarted on the same data folder with the
usual lifetime, so the refreshed tokens stay valid. Requests go over real HTTP to the
protected app in its own process: Starlette under uvicorn (one event loop, asyncio
concurrency) and Flask under gunicorn (one gthread worker with as many threads as there
are concurrent requests). The service is reached through a counting proxy. All
connections are opened first, then every request is written at once.

    .venv/bin/python bench/refresh_storm.py [--concurrency 200] [--storms 3] [--late 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from dataclasses import dataclass

from _common import HOST, Session, Stack, get, heading, percentile, row, served

SERVERS = {"asgi": ("uvicorn", "starlette_auth"), "wsgi": ("gunicorn", "flask_auth")}
#: Longest a storm may take before it is abandoned.
STORM_TIMEOUT = 60.0


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    set_cookies: int
    seconds: float


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes, go: asyncio.Event
) -> Reply:
    await go.wait()
    start = time.perf_counter()
    writer.write(request)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    cookies = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "content-length":
            length = int(value)
        elif name.lower() == "set-cookie":
            cookies += 1
    body = await reader.readexactly(length)
    seconds = time.perf_counter() - start
    writer.close()
    return Reply(status, body, cookies, seconds)


async def storm(port: int, cookie: str, concurrency: int) -> list[Reply]:
    """Open ``concurrency`` connections, then send one request on each at the same moment."""
    request = (f"GET /whoami HTTP/1.1\r\nHost: {HOST}:{port}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n").encode(
        "latin-1"
    )
    connections = [await asyncio.open_connection(HOST, port) for _ in range(concurrency)]
    go = asyncio.Event()
    tasks = [asyncio.create_task(_exchange(r, w, request, go)) for r, w in connections]
    await asyncio.sleep(0.05)
    go.set()
    return await asyncio.wait_for(asyncio.gather(*tasks), STORM_TIMEOUT)


def summarize(replies: list[Reply], session: Session) -> tuple[int, int, list[float]]:
    signed_in = sum(1 for r in replies if r.status == 200 and json.loads(r.body).get("id") == session.user_id)
    with_cookies = sum(1 for r in replies if r.set_cookies)
    return signed_in, with_cookies, [r.seconds * 1e3 for r in replies]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, default=200, help="concurrent requests per storm (default 200)")
    parser.add_argument(
        "--storms", type=int, default=3, help="storms per server, each with its own session (default 3)"
    )
    parser.add_argument(
        "--late", type=int, default=50, help="requests still carrying the old cookies after each storm (default 50)"
    )
    args = parser.parse_args()

    with Stack(access_token_ttl=1) as stack:
        warm = stack.sign_up()
        sessions = {kind: [stack.sign_up() for _ in range(args.storms)] for kind in SERVERS}
        stack.restart(access_token_ttl=600)
        warm = Session(warm.user_id, *_refreshed(stack, warm))  # a valid token to warm each server with
        time.sleep(1.1)  # every one-second token signed up above has now expired
        print(
            f"{args.concurrency} concurrent requests per storm, {args.storms} storms per server, each with its own session"
        )

        for kind, (server, app) in SERVERS.items():
            threads = args.concurrency if server == "gunicorn" else 8
            with served(server, app, stack.env, threads=threads) as srv:
                port = int(srv.url.rsplit(":", 1)[1])
                get(srv.url + "/whoami", {"cookie": stack.cookie(warm)})  # key set fetched, client pooled
                heading(
                    f"Refresh storm: {kind} ({server}{f', 1 gthread worker x{threads}' if server == 'gunicorn' else ', 1 worker'})"
                )
                # The same burst with a valid token: what the queueing alone costs.
                base = asyncio.run(storm(port, stack.cookie(warm), args.concurrency))
                base_in, _, base_lat = summarize(base, warm)
                row(
                    f"baseline: {args.concurrency} concurrent, valid token: p50 / p99",
                    f"{percentile(base_lat, 50):.1f} / {percentile(base_lat, 99):.1f} ms   (signed in {base_in}/{len(base)})",
                )
                all_latencies: list[float] = []
                for i, session in enumerate(sessions[kind], 1):
                    cookie = stack.cookie(session)
                    stack.proxy.reset()
                    replies = asyncio.run(storm(port, cookie, args.concurrency))
                    refreshes = stack.proxy.refreshes
                    refresh_ms = list(stack.proxy.refresh_ms)
                    signed_in, with_cookies, latencies = summarize(replies, session)
                    all_latencies += latencies
                    late = asyncio.run(storm(port, cookie, args.late)) if args.late else []
                    late_refreshes = stack.proxy.refreshes - refreshes
                    late_in, _, _ = summarize(late, session)
                    row(
                        f"storm {i}: refresh calls that reached the service",
                        f"{refreshes}   (target 1){'' if refreshes == 1 else '  <-- MISSED'}",
                    )
                    if refresh_ms:
                        row(
                            f"storm {i}: the refresh call itself (at the service)",
                            " / ".join(f"{ms:.1f} ms" for ms in refresh_ms),
                        )
                    row(
                        f"storm {i}: signed in / with Set-Cookie",
                        f"{signed_in}/{len(replies)} / {with_cookies}/{len(replies)}",
                    )
                    row(
                        f"storm {i}: latency p50 / p99 / max",
                        f"{percentile(latencies, 50):.1f} / {percentile(latencies, 99):.1f} / {max(latencies):.1f} ms",
                    )
                    if args.late:
                        row(
                            f"storm {i}: {args.late} late requests, old cookies: refreshes, signed in",
                            f"{late_refreshes}, {late_in}/{len(late)}",
                        )
                    row(f"storm {i}: key-set fetches", str(stack.proxy.jwks_fetches))
                row(
                    "all storms: latency p50 / p99",
                    f"{percentile(all_latencies, 50):.1f} / {percentile(all_latencies, 99):.1f} ms",
                )


def _refreshed(stack: Stack, session: Session) -> tuple[str, str]:
    r = stack._http.post(
        f"{stack.service.url}/api/v1/auth/sessions/current/refresh",
        headers={**stack._headers(), "x-stack-refresh-token": session.refresh_token},
    )
    r.raise_for_status()
    return r.json()["access_token"], session.refresh_token


if __name__ == "__main__":
    main()
