"""Where the time of a repeated-token request goes, step by step, plus a cProfile of it.

Times each step the ASGI middleware takes for a request carrying a session cookie whose
access token was verified before (best of several repeats, µs per call), then profiles
the whole call. Times are this thread's CPU time, so other load on the machine does not
count. The steps are the middleware's internals as of this writing; a step
whose function has since moved is shown as n/a rather than failing the run.

    .venv/bin/python bench/hot_path.py [--iterations 50000] [--profile-top 15]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import time
import timeit
from typing import Any

from _common import Stack, heading, row

from authmw.middleware import AuthMiddleware, _cookies as cookies_module, asgi as asgi_module


async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"hello, world"})


async def receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


async def send(message: dict[str, Any]) -> None:
    pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile-top", type=int, default=15)
    args = parser.parse_args()

    with Stack() as stack:
        session = stack.sign_up()
        cookie = stack.cookie(session)
        mw = AuthMiddleware(inner, config=stack.config)
        core = mw.core
        loop = asyncio.new_event_loop()
        headers = [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"bench"), (b"cookie", cookie.encode())]

        async def many(app: Any, n: int) -> None:
            for _ in range(n):
                await app({"type": "http", "scheme": "http", "path": "/", "headers": headers}, receive, send)

        loop.run_until_complete(many(mw, 10))  # key set fetched, token verified once
        tokens = core.read(cookie=cookie, auth_header=None, secure=False)
        outcome = core._without_io(tokens)
        env: dict[str, Any] = {
            "core": core,
            "cookie": cookie,
            "tokens": tokens,
            "outcome": outcome,
            "headers": headers,
            "c": cookies_module,
            "asgi": asgi_module,
            "mw": mw,
            "loop": loop,
        }

        def best(stmt: str, n: int | None = None) -> str:
            n = n or args.iterations
            try:
                seconds = min(timeit.repeat(stmt, globals=env, number=n, repeat=args.repeat, timer=time.thread_time))
            except (AttributeError, NameError, TypeError, KeyError) as exc:
                return f"    n/a ({type(exc).__name__}: {exc})"
            return f"{seconds / n * 1e6:7.2f} us"

        heading(f"Hot path of a repeated token (ASGI, session cookie of {len(cookie)} bytes)")
        steps = [
            ("whole middleware call minus the bare app", None),
            ("  _headers (scan the ASGI header list)", "asgi._headers(headers)"),
            (
                "  core.decide (a Cookie value decided before)",
                "core.decide(cookie, None)",
            ),
            ("  on a miss (a new Cookie value, or near expiry):", None),
            (
                "  core.read (cookies -> Tokens; memoized per Cookie value)",
                "core.read(cookie=cookie, auth_header=None, secure=False)",
            ),
            (
                "    on a miss: the session cookies read (split; the access pair by slicing)",
                "core.credentials.cookies.read(cookie)",
            ),
            ("  core._without_io (verified-token cache, Outcome)", "core._without_io(tokens)"),
            ("    verifier.verify_cached", "core.verifier.verify_cached(tokens.access_token)"),
            ("  _loop_side (driver of this event loop)", None),
            (
                "  AuthUser(...)",
                "asgi.AuthUser(outcome.claims, outcome.access_token, outcome.refresh_token, server=None)",
            ),
        ]
        n = args.iterations // 5
        whole = min(
            timeit.repeat(
                lambda: loop.run_until_complete(many(mw, n)), number=1, repeat=args.repeat, timer=time.thread_time
            )
        )
        bare = min(
            timeit.repeat(
                lambda: loop.run_until_complete(many(inner, n)), number=1, repeat=args.repeat, timer=time.thread_time
            )
        )
        results = {}
        for label, stmt in steps:
            if stmt is not None:
                results[label] = best(stmt)
        for label, _stmt in steps:
            if label.startswith("whole"):
                row(label, f"{(whole - bare) / n * 1e6:7.2f} us")
            elif label.strip().startswith("on a miss ("):
                row(label, "")
            elif label.strip().startswith("_loop_side"):

                async def bound_many() -> None:
                    for _ in range(n):
                        mw.handler._loop_side()

                try:
                    t = min(
                        timeit.repeat(
                            lambda: loop.run_until_complete(bound_many()),
                            number=1,
                            repeat=args.repeat,
                            timer=time.thread_time,
                        )
                    )
                    row(label, f"{t / n * 1e6:7.2f} us")
                except AttributeError as exc:
                    row(label, f"    n/a ({exc})")
            else:
                row(label, results[label])

        heading(f"cProfile of {n} repeated-token requests (top {args.profile_top} by own time)")
        profile = cProfile.Profile()
        profile.enable()
        loop.run_until_complete(many(mw, n))
        profile.disable()
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(args.profile_top)
        text = out.getvalue()
        body = text[text.find("   ncalls") :]
        for line in body.rstrip().splitlines():
            print("  " + line.replace(str(stack.data_dir), "").replace("/work/main/", ""))
        loop.run_until_complete(mw.aclose())
        loop.close()


if __name__ == "__main__":
    main()
