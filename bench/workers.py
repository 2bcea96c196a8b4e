"""1 to 16 worker processes behind one port: what each worker's own caches cost.

A worker keeps its key set, verified tokens and refreshed sessions in its own memory. So N
workers fetch the key set up to N times, and one expired session whose requests arrive
together (a page starting several API calls before the first response's Set-Cookie reaches
the browser) may be refreshed once by every worker that receives one of them. For N = 1, 2,
4, 8 and 16, under uvicorn (Starlette) and gunicorn (Flask, gthread), this prints:
- the key-set fetches once every worker has served a signed-in request;
- throughput of a signed-in request (wrk, one session), and the memory of all processes;
- bursts of concurrent requests with one expired session each: the refresh calls that reached
  the service, and how many workers answered.

    .venv/bin/python bench/workers.py [--workers 1,2,4,8,16] [--burst 64] [--storms 2] [--seconds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path

from _common import Session, Stack, heading, row, served, wrk
from refresh_storm import _refreshed, storm

SERVERS = {"asgi": ("uvicorn", "starlette_auth"), "wsgi": ("gunicorn", "flask_auth")}
#: uvicorn --workers N leaves TCP_NODELAY off (uvicorn issue #3149): every keep-alive response
#: then waits ~40 ms for a delayed ACK. Its workers run with nodelay/sitecustomize.py, which
#: sets it, so the figures show authmw rather than that; the shipped behaviour is printed once.
NODELAY = str(Path(__file__).resolve().parent / "nodelay")


def signed_in_rps(url: str, cookie: str, seconds: float) -> float:
    return wrk(url + "/whoami", headers={"cookie": cookie}, threads=2, connections=16, duration=seconds).rps


def answered_by(replies: list) -> set[int]:  # type: ignore[type-arg]
    return {json.loads(r.body)["pid"] for r in replies if r.status == 200}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", default="1,2,4,8,16", help="worker counts (default 1,2,4,8,16)")
    parser.add_argument("--burst", type=int, default=64, help="concurrent requests per expired session (default 64)")
    parser.add_argument("--storms", type=int, default=2, help="expired sessions per worker count (default 2)")
    parser.add_argument("--seconds", type=float, default=3.0, help="wrk duration per worker count (default 3)")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]

    with Stack(access_token_ttl=1) as stack:
        warm = stack.sign_up()
        expired = {(kind, n): [stack.sign_up() for _ in range(args.storms)] for kind in SERVERS for n in counts}
        stack.restart(access_token_ttl=600)
        warm = Session(warm.user_id, *_refreshed(stack, warm))
        time.sleep(1.1)  # the one-second tokens signed up above have expired (a benchmark, not a test)
        print(
            f"{args.burst} concurrent requests per expired session, {args.storms} sessions per worker count; "
            f"wrk {args.seconds:g} s, 2 threads, 16 connections; {os.cpu_count()} CPUs"
        )
        for kind, (server, app) in SERVERS.items():
            heading(f"Workers behind one port: {kind} ({server})")
            env = {**stack.env, "PYTHONPATH": NODELAY} if server == "uvicorn" else stack.env
            if server == "uvicorn" and max(counts) > 1:
                with served(server, app, stack.env, workers=2) as srv:
                    shipped = signed_in_rps(srv.url, stack.cookie(warm), args.seconds)
                row(
                    "2 workers as uvicorn ships (TCP_NODELAY off, #3149)",
                    f"{shipped:,.0f} req/s; below: with it on",
                )
            for n in counts:
                with served(server, app, env, threads=8, workers=n) as srv:
                    port = int(srv.url.rsplit(":", 1)[1])
                    stack.proxy.reset()
                    # Enough signed-in requests on fresh connections that every worker gets some.
                    seen: set[int] = set()
                    for _ in range(8):
                        seen |= answered_by(asyncio.run(storm(port, stack.cookie(warm), 4 * n)))
                        if len(seen) == n:
                            break
                    fetches = stack.proxy.jwks_fetches
                    rps = signed_in_rps(srv.url, stack.cookie(warm), args.seconds)
                    memory = srv.memory_mib()
                    refreshes = []
                    workers_hit = []
                    for session in expired[(kind, n)]:
                        stack.proxy.reset()
                        replies = asyncio.run(storm(port, stack.cookie(session), args.burst))
                        signed_in = sum(
                            1 for r in replies if r.status == 200 and json.loads(r.body)["id"] == session.user_id
                        )
                        if signed_in != len(replies):
                            print(f"  !! {len(replies) - signed_in} of {len(replies)} requests were not signed in")
                        refreshes.append(stack.proxy.refreshes)
                        workers_hit.append(len(answered_by(replies)))
                    row(
                        f"{n:>2} worker{'s' if n > 1 else ' '}: key-set fetches, workers seen",
                        f"{fetches} for {len(seen)} workers",
                    )
                    row(
                        f"{n:>2} worker{'s' if n > 1 else ' '}: signed-in req/s, memory of all processes",
                        f"{rps:,.0f} req/s, {memory:.0f} MiB",
                    )
                    row(
                        f"{n:>2} worker{'s' if n > 1 else ' '}: refresh calls per expired session (workers hit)",
                        ", ".join(f"{r} ({w})" for r, w in zip(refreshes, workers_hit, strict=True)),
                    )


if __name__ == "__main__":
    main()
