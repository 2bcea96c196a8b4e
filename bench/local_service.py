"""The local service's own throughput: password sign-ins and session refreshes over HTTP.

The service runs in a subprocess (uvicorn, one worker, as `authmw dev` runs it) on a fresh data
folder, with its database either as it is (one SQLite connection in WAL mode behind one lock:
every request's transaction runs alone; passwords are hashed and checked between two passes
of the request, outside any transaction) or, for comparison, with the passwords hashed inside
the transaction (as before), or with a connection per thread (SQLite's own locking: readers
run side by side, one writer at a time, `BEGIN IMMEDIATE` transactions wait up to the busy
timeout). A client with `--concurrency` requests in flight
sends a fixed number of each request; the figures are requests per second, latency and the
service's CPU per request. The variants alternate over `--rounds` rounds.

    .venv/bin/python bench/local_service.py [--requests 400] [--concurrency 16] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
from _common import HOST, PASSWORD, PYTHON, Server, _wait_for_port, free_port, heading, percentile, row

#: The service in a subprocess; with "per-thread", authmw_local.db.Database keeps a connection per thread.
SERVICE = r"""
import sys, threading
from contextlib import contextmanager
import sqlite3
import uvicorn
from authmw_local import app as app_module, db

data_dir, port, variant = sys.argv[1], int(sys.argv[2]), sys.argv[3]

class PerThreadDatabase(db.Database):
    def __init__(self, path):
        super().__init__(path)
        self._local = threading.local()

    def _connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.row_factory = sqlite3.Row
            for pragma in ("foreign_keys = ON", "synchronous = NORMAL", "busy_timeout = 5000"):
                conn.execute(f"PRAGMA {pragma}")
            self._local.conn = conn
        return conn

    @contextmanager
    def tx(self):
        if not hasattr(self, "_local"):  # migrations, from Database.__init__
            with super().tx() as c:
                yield c
            return
        conn = self._connection()
        if conn.in_transaction:
            yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

if variant == "per-thread":
    app_module.Database = PerThreadDatabase
if variant == "hash-inside":  # as before 71a27ab: scrypt inside the request's transaction
    from authmw_local import endpoint
    endpoint.RequestContext.outside = lambda self, key, work: work()
app = app_module.create_app(data_dir, api_url=f"http://127.0.0.1:{port}")
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
"""

VARIANTS = (
    "one connection (today)",
    "one connection, passwords hashed inside the transaction",
    "a connection per thread",
)


class Service:
    def __init__(self, variant: str) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="authmw-bench-service-")
        port = free_port()
        kind = "per-thread" if "per thread" in variant else "hash-inside" if "inside" in variant else "shared"
        self.proc = subprocess.Popen(
            [PYTHON, "-c", SERVICE, self._tmp.name, str(port), kind],
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            start_new_session=True,
        )
        _wait_for_port(port, self.proc, "the local service")
        self.server = Server(f"http://{HOST}:{port}", self.proc.pid)
        lines = Path(self._tmp.name, "project.env").read_text().splitlines()
        env = dict(line.split("=", 1) for line in lines if "=" in line)
        self.headers = {
            "x-stack-project-id": env["AUTHMW_PROJECT_ID"],
            "x-stack-access-type": "client",
            "x-stack-publishable-client-key": env["AUTHMW_PUBLISHABLE_CLIENT_KEY"],
            "content-type": "application/json",
        }

    def close(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(timeout=10)
        self._tmp.cleanup()


Result = tuple[float, list[float], float, int]
#: Requests that were answered 200, by their index (filled by drive).
answered: set[int] = set()


async def drive(service: Service, requests: list[tuple[str, dict[str, str], dict]], concurrency: int) -> Result:  # type: ignore[type-arg]
    """Sends every request, ``concurrency`` at a time: wall seconds, latencies (ms) of the
    answered ones, service CPU seconds, and the number of requests that failed."""
    queue = list(reversed(list(enumerate(requests))))
    answered.clear()
    latencies: list[float] = []
    failed = 0
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=service.server.url, timeout=60, limits=limits) as client:

        async def worker() -> None:
            nonlocal failed
            while queue:
                index, (path, headers, body) = queue.pop()
                start = time.perf_counter()
                r = await client.post(path, headers=headers, content=json.dumps(body))
                if r.status_code == 200:
                    latencies.append((time.perf_counter() - start) * 1e3)
                    answered.add(index)
                elif r.status_code >= 500:
                    failed += 1  # "database is locked": SQLite's busy timeout ran out
                else:
                    raise RuntimeError(f"{path}: {r.status_code} {r.text[:200]}")

        cpu = service.server.cpu_seconds()
        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - start, latencies, service.server.cpu_seconds() - cpu, failed


def measure(variant: str, count: int, concurrency: int) -> dict[str, Result]:
    service = Service(variant)
    try:
        emails = [f"bench-{i}-{os.urandom(4).hex()}@example.com" for i in range(count)]
        sign_ups = [
            (
                "/api/v1/auth/password/sign-up",
                service.headers,
                {"email": e, "password": PASSWORD, "verification_callback_url": "http://localhost/verify"},
            )
            for e in emails
        ]
        results = {"sign-up": asyncio.run(drive(service, sign_ups, concurrency))}
        emails = [email for index, email in enumerate(emails) if index in answered]  # signed up
        sign_ins = [
            ("/api/v1/auth/password/sign-in", service.headers, {"email": e, "password": PASSWORD}) for e in emails
        ]
        tokens: list[str] = []
        with httpx.Client(base_url=service.server.url, timeout=60) as client:  # refresh tokens for the next round
            for e in emails:
                r = client.post(
                    "/api/v1/auth/password/sign-in", headers=service.headers, json={"email": e, "password": PASSWORD}
                )
                if r.status_code == 200:  # those whose sign-up went through
                    tokens.append(r.json()["refresh_token"])
                if len(tokens) == max(1, count // 4):
                    break
        results["sign-in"] = asyncio.run(drive(service, sign_ins, concurrency))
        refreshes = [
            (
                "/api/v1/auth/sessions/current/refresh",
                {**service.headers, "x-stack-refresh-token": tokens[i % len(tokens)]},
                {},
            )
            for i in range(count)
        ]
        results["refresh"] = asyncio.run(drive(service, refreshes, concurrency))
        return results
    finally:
        service.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=400, help="requests of each kind per round (default 400)")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight (default 16)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, alternating the variants (default 2)")
    args = parser.parse_args()
    print(f"{args.requests} requests of each kind, {args.concurrency} in flight, {os.cpu_count()} CPUs")
    collected: dict[str, dict[str, list[Result]]] = {v: {} for v in VARIANTS}
    for _ in range(args.rounds):
        for variant in VARIANTS:
            for kind, result in measure(variant, args.requests, args.concurrency).items():
                collected[variant].setdefault(kind, []).append(result)
    for variant in VARIANTS:
        heading(f"Local service: {variant}")
        for kind, results in collected[variant].items():
            seconds = sum(r[0] for r in results)
            latencies = [ms for r in results for ms in r[1]]
            cpu = sum(r[2] for r in results)
            failed = sum(r[3] for r in results)
            row(
                f"{kind}: req/s, p50 / p99, service CPU per request",
                f"{len(latencies) / seconds:,.0f} req/s, {percentile(latencies, 50):.1f} / "
                f"{percentile(latencies, 99):.1f} ms, {cpu / max(1, len(latencies) + failed) * 1e3:.2f} ms"
                + (f"   ({failed} failed: database is locked)" if failed else ""),
            )


if __name__ == "__main__":
    main()
