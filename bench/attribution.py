"""Where the server CPU added by AuthMiddleware goes: the middleware's own work, or merely
having authmw in the process and a middleware layer in the stack.

Four Starlette apps under uvicorn, each in its own process, all sent the same session
cookie by wrk at the same concurrency, rounds in rotating order; server CPU per request
(user + system, all the server's processes) for each:

- ``starlette_bare``: no middleware;
- ``starlette_imported``: no middleware, but authmw imported and an AuthMiddleware built
  (never called): what the bigger process alone costs;
- ``starlette_noop``: a pass-through ASGI middleware where AuthMiddleware sits;
- ``starlette_auth``: AuthMiddleware.

    .venv/bin/python bench/attribution.py [--duration 8] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics

from _common import Stack, heading, row, served
from http_overhead import load

VARIANTS = ("starlette_bare", "starlette_imported", "starlette_noop", "starlette_auth")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=8.0, help="seconds of each wrk run (default 8)")
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each app, order rotating (default 3)")
    args = parser.parse_args()

    with Stack() as stack:
        cookie = stack.cookie(stack.sign_up())
        cpu: dict[str, list[float]] = {v: [] for v in VARIANTS}
        for i in range(args.rounds):
            order = VARIANTS[i % len(VARIANTS) :] + VARIANTS[: i % len(VARIANTS)]
            for app in order:
                with served("uvicorn", app, stack.env) as srv:
                    load(srv, cookie, args.warmup, args)
                    cpu[app].append(load(srv, cookie, args.duration, args).cpu_us)
        heading(f"Server CPU per request, Starlette/uvicorn, session cookie, {args.rounds} rounds (median; each)")
        base = statistics.median(cpu["starlette_bare"])
        for app in VARIANTS:
            median = statistics.median(cpu[app])
            each = ", ".join(f"{c:.0f}" for c in cpu[app])
            row(app, f"{median:7.1f} us   (+{median - base:5.1f} us; {each})")


if __name__ == "__main__":
    main()
