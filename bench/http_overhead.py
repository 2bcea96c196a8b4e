"""Overhead per request over real HTTP: bare hello-world vs the same endpoint behind authmw.

Starlette under uvicorn (AuthMiddleware) and Flask under gunicorn (WSGIAuthMiddleware),
each served by one worker in its own process, one server at a time, driven by wrk at the
same concurrency and duration. The bare app receives the same Cookie header as the
protected one, so only the middleware differs. Also: requests without any cookie
(anonymous) against both.

Server CPU time per request (from /proc, all of the server's processes) is printed too:
unlike requests per second it barely moves when other programs load the machine. Last, a
short run with timing layers around the middleware inside the server (bench/apps.py,
BENCH_PROBE=1) gives the middleware's own time per request under real traffic.

    .venv/bin/python bench/http_overhead.py [--duration 10] [--threads 2] [--connections 32] [--rounds 2] [--probe 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

from _common import Server, Stack, get, heading, row, served, wrk

FRAMEWORKS = {
    # name: (server, bare app, protected app)
    "starlette": ("uvicorn", "starlette_bare", "starlette_auth"),
    "flask": ("gunicorn", "flask_bare", "flask_auth"),
}


@dataclass(frozen=True)
class Run:
    rps: float
    #: CPU time the server process spent per request: insensitive to other load on the machine.
    cpu_us: float
    latency_ms: float
    errors: int


def load(server: Server, cookie: str | None, duration: float, args: argparse.Namespace) -> Run:
    before = server.cpu_seconds()
    result = wrk(
        server.url + "/",
        headers={"cookie": cookie} if cookie else None,
        threads=args.threads,
        connections=args.connections,
        duration=duration,
    )
    cpu = server.cpu_seconds() - before
    return Run(result.rps, 1e6 * cpu / max(result.requests, 1), result.latency_avg_ms, result.errors)


def measure(
    server: str, app: str, env: dict[str, str], cookie: str, args: argparse.Namespace, expect_id: str | None
) -> dict[str, Run]:
    """One server process: warm up, then wrk with the session cookie and without any cookie."""
    with served(server, app, env, threads=args.gthreads) as srv:
        if expect_id is not None:
            who = get(srv.url + "/whoami", {"cookie": cookie}).json()["id"]
            if who != expect_id:
                raise SystemExit(f"{app}: the middleware did not sign the session in (got {who!r})")
        load(srv, cookie, args.warmup, args)
        return {"cookie": load(srv, cookie, args.duration, args), "anonymous": load(srv, None, args.duration, args)}


def probe(
    server: str, app: str, env: dict[str, str], cookie: str, args: argparse.Namespace
) -> dict[str, dict[str, float]]:
    """The middleware's own time per request, measured inside the server (apps.py, BENCH_PROBE)."""
    with served(server, app, {**env, "BENCH_PROBE": "1"}, threads=args.gthreads) as srv:
        out = {}
        for case, headers in (("cookie", {"cookie": cookie}), ("anonymous", None)):
            wrk(srv.url + "/", headers=headers, threads=args.threads, connections=args.connections, duration=1)
            get(srv.url + "/__probe")
            wrk(srv.url + "/", headers=headers, threads=args.threads, connections=args.connections, duration=args.probe)
            out[case] = get(srv.url + "/__probe").json()
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of each wrk run (default 10)")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of wrk before measuring (default 1)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--connections", type=int, default=32, help="wrk connections (default 32)")
    parser.add_argument(
        "--rounds", type=int, default=2, help="bare/protected pairs per framework, order alternating (default 2)"
    )
    parser.add_argument(
        "--gthreads", type=int, default=8, help="gunicorn gthread threads of the one Flask worker (default 8)"
    )
    parser.add_argument(
        "--probe", type=float, default=3.0, help="seconds of load for the in-server timing; 0 skips it (default 3)"
    )
    parser.add_argument("--only", choices=sorted(FRAMEWORKS), help="one framework only")
    args = parser.parse_args()

    with Stack() as stack:
        session = stack.sign_up()
        cookie = stack.cookie(session)
        print(
            f"wrk -t{args.threads} -c{args.connections} -d{args.duration:g}s (after {args.warmup:g} s of warm-up), "
            f"{args.rounds} round(s); one server process at a time; cookie header {len(cookie)} bytes",
            flush=True,
        )
        for name, (server, bare_app, auth_app) in FRAMEWORKS.items():
            if args.only and name != args.only:
                continue
            runs: dict[str, list[dict[str, Run]]] = {"bare": [], "auth": []}
            stack.proxy.reset()
            for i in range(args.rounds):
                order = [("bare", bare_app, None), ("auth", auth_app, session.user_id)]
                for kind, app, expect in order if i % 2 == 0 else reversed(order):
                    runs[kind].append(measure(server, app, stack.env, cookie, args, expect))
            fetches = stack.proxy.jwks_fetches
            refreshes = stack.proxy.refreshes

            heading(
                f"HTTP overhead: {name} ({server}, 1 worker{f', gthread x{args.gthreads}' if server == 'gunicorn' else ''})"
            )
            for label, case, what in (
                ("signed in (valid session cookie)", "cookie", "authenticated"),
                ("anonymous (no cookie at all)", "anonymous", "anonymous"),
            ):
                bare = [r[case] for r in runs["bare"]]
                auth = [r[case] for r in runs["auth"]]
                bare_rps = statistics.median(r.rps for r in bare)
                auth_rps = statistics.median(r.rps for r in auth)
                bare_cpu = statistics.median(r.cpu_us for r in bare)
                auth_cpu = statistics.median(r.cpu_us for r in auth)
                errors = sum(r.errors for r in bare + auth)
                print(f"  -- {label}")
                row("bare req/s (median; each round)", f"{bare_rps:9.0f}   ({', '.join(f'{r.rps:.0f}' for r in bare)})")
                row(
                    "behind authmw req/s (median; each round)",
                    f"{auth_rps:9.0f}   ({', '.join(f'{r.rps:.0f}' for r in auth)})",
                )
                row(
                    f"throughput ratio {what}/bare",
                    f"{auth_rps / bare_rps:9.3f}   (overhead {100 * (1 - auth_rps / bare_rps):+.1f}%; target <= 5%)",
                )
                row("added per request, from 1/req/s", f"{1e6 / auth_rps - 1e6 / bare_rps:9.1f} us")
                row(
                    "server CPU per request bare / authmw",
                    f"{bare_cpu:9.1f} us / {auth_cpu:.1f} us   (each round: {', '.join(f'{r.cpu_us:.0f}' for r in bare)} / {', '.join(f'{r.cpu_us:.0f}' for r in auth)})",
                )
                row(
                    "added server CPU per request",
                    f"{auth_cpu - bare_cpu:9.1f} us   (overhead {100 * (1 - bare_cpu / auth_cpu):+.1f}% of throughput at full CPU)",
                )
                row(
                    "mean latency bare / authmw",
                    f"{statistics.median(r.latency_ms for r in bare):9.2f} ms / {statistics.median(r.latency_ms for r in auth):.2f} ms",
                )
                if errors:
                    row("errors (socket or non-2xx)", str(errors))
            if args.probe:
                bare_p = probe(server, bare_app, stack.env, cookie, args)
                auth_p = probe(server, auth_app, stack.env, cookie, args)
                print(
                    "  -- inside the server: time between timing layers around the middleware, minus the same without it"
                )
                for case, label in (("cookie", "signed in"), ("anonymous", "anonymous")):
                    b, a = bare_p[case], auth_p[case]
                    if not (a.get("n") and b.get("n")):
                        row(f"{label}: middleware time per request", "n/a (no samples)")
                        continue
                    row(
                        f"{label}: middleware time p50 / mean ({a['n']} requests)",
                        f"{a['total_p50_us'] - b['total_p50_us']:9.2f} us / {a['total_mean_us'] - b['total_mean_us']:.2f} us"
                        f"   (p50 = {100 * (a['total_p50_us'] - b['total_p50_us']) / statistics.median(r[case].cpu_us for r in runs['bare']):.1f}% of the bare CPU per request)",
                    )
                    row(
                        f"{label}: of which before the app runs (p50)",
                        f"{a['before_p50_us'] - b['before_p50_us']:9.2f} us",
                    )
            row(
                "key-set fetches by the protected servers", f"{fetches} (one per server process started: {args.rounds})"
            )
            row("refresh calls", str(refreshes))
            time.sleep(0.2)


if __name__ == "__main__":
    main()
