"""In-process cost of the middleware per request: no network, no server, no framework.

The ASGI middleware (and the WSGI one) is called directly with a minimal scope/environ and
an inner app that answers 200 at once; the same loop without the middleware is the
baseline, timed in alternation with it. Times are this thread's CPU time
(``time.thread_time``), so other load on the machine does not count; each figure is the
best of several repeats with the garbage collector paused, as timeit does, in
microseconds per request.

Cases: a repeated token (the steady state), a first-seen token (signature check over the
cached key set), no cookie at all, unrelated cookies only, and the x-stack-auth header.

    .venv/bin/python bench/inprocess.py [--iterations 20000] [--repeat 7] [--fresh 32]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import time
from collections.abc import Callable
from typing import Any

from _common import Stack, heading, percentile, row

from authmw._tokens import TokenVerifier
from authmw.middleware import AuthMiddleware, WSGIAuthMiddleware

UNRELATED = "_ga=GA1.1.1234567890.1700000000; theme=dark; csrftoken=6Jz1y3kq0bXwT1oYw2cQy0V3x9bM"


async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"hello, world"})


async def receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


async def send(message: dict[str, Any]) -> None:
    pass


async def _nothing(scope: dict[str, Any], receive: Any, send: Any) -> None:
    pass


def _nothing_wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
    return []


def inner_wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"hello, world"]


def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
    pass


def scope_headers(cookie: str | None = None, auth: str | None = None) -> list[tuple[bytes, bytes]]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"bench"), (b"accept", b"*/*")]
    if cookie is not None:
        headers.append((b"cookie", cookie.encode("latin-1")))
    if auth is not None:
        headers.append((b"x-stack-auth", auth.encode("latin-1")))
    return headers


def environ_for(cookie: str | None = None, auth: str | None = None) -> dict[str, Any]:
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": "/",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "wsgi.url_scheme": "http",
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_USER_AGENT": "bench",
        "HTTP_ACCEPT": "*/*",
    }
    if cookie is not None:
        environ["HTTP_COOKIE"] = cookie
    if auth is not None:
        environ["HTTP_X_STACK_AUTH"] = auth
    return environ


class Timer:
    def __init__(self, iterations: int, repeat: int) -> None:
        self.iterations = iterations
        self.repeat = repeat
        self.loop = asyncio.new_event_loop()

    def asgi(self, app: Any, header_sets: list[list[tuple[bytes, bytes]]], base: Any = inner) -> float:
        """Best µs per request added by ``app`` over ``base``; requests cycle through ``header_sets``.

        The two are timed in alternation, so a burst of other load on the machine hits both.
        """
        n, k = self.iterations, len(header_sets)

        async def many(target: Any) -> float:
            gc.disable()  # as timeit does: a collection of this process's big heap is not the middleware's
            try:
                start = time.thread_time()
                for i in range(n):
                    scope = {
                        "type": "http",
                        "method": "GET",
                        "scheme": "http",
                        "path": "/",
                        "headers": header_sets[i % k],
                    }
                    await target(scope, receive, send)
                return time.thread_time() - start
            finally:
                gc.enable()

        run = self.loop.run_until_complete
        run(many(app))  # warm-up: key set fetched, caches filled
        timed = [(run(many(base)), run(many(app))) for _ in range(self.repeat)]
        return (min(t for _, t in timed) - min(b for b, _ in timed)) / n * 1e6

    def bare_asgi(self) -> float:
        return self.asgi(inner, [scope_headers()], base=_nothing)

    def wsgi(self, app: Any, environs: list[dict[str, Any]], base: Any = inner_wsgi) -> float:
        n, k = self.iterations, len(environs)
        # A server decodes its header strings afresh for every request; a string object used
        # again would carry its cached hash and flatter every dictionary lookup keyed by it.
        raw = [
            {name: value.encode("latin-1") for name, value in e.items() if name.startswith("HTTP_")} for e in environs
        ]

        def many(target: Any) -> float:
            gc.disable()
            try:
                start = time.thread_time()
                for i in range(n):
                    environ = dict(environs[i % k])
                    for name, value in raw[i % k].items():
                        environ[name] = value.decode("latin-1")
                    target(environ, start_response)
                return time.thread_time() - start
            finally:
                gc.enable()

        many(app)
        timed = [(many(base), many(app)) for _ in range(self.repeat)]
        return (min(t for _, t in timed) - min(b for b, _ in timed)) / n * 1e6

    def first_seen_asgi(self, make: Callable[[], Any], header_sets: list[list[tuple[bytes, bytes]]]) -> list[float]:
        """µs of the first request of each token to a middleware whose key set is already cached."""
        app = make()
        times = []

        async def run() -> None:
            # A request without a session would not fetch the key set: warm it with a token
            # that is not measured.
            await app({"type": "http", "scheme": "http", "path": "/", "headers": header_sets[0]}, receive, send)
            for headers in header_sets[1:]:
                start = time.thread_time()
                await app({"type": "http", "scheme": "http", "path": "/", "headers": headers}, receive, send)
                times.append((time.thread_time() - start) * 1e6)

        self.loop.run_until_complete(run())
        return times

    def close(self) -> None:
        self.loop.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=20_000, help="requests per timed run (default 20000)")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per case; the best counts (default 7)")
    parser.add_argument("--fresh", type=int, default=32, help="users signed up for first-seen tokens (default 32)")
    args = parser.parse_args()
    timer = Timer(args.iterations, args.repeat)

    with Stack() as stack:
        config = stack.config
        sessions = [stack.sign_up() for _ in range(max(2, args.fresh) + 1)]
        first = sessions[0]
        cookie = stack.cookie(first)
        header = json.dumps({"accessToken": first.access_token, "refreshToken": first.refresh_token})

        # -- ASGI ---------------------------------------------------------------------
        mw = AuthMiddleware(inner, config=config)
        # A verifier that remembers one token: cycling two tokens makes every request a
        # signature check over the cached key set, the path of a first-seen token.
        forgetful = AuthMiddleware(inner, config=config, verifier=TokenVerifier(config, cache_size=1))
        cases = {
            "no cookie": [scope_headers()],
            "session cookie": [scope_headers(cookie)],
            "unrelated cookies only": [scope_headers(UNRELATED)],
            "unrelated cookies + session cookie": [scope_headers(UNRELATED + "; " + cookie)],
            "x-stack-auth header": [scope_headers(auth=header)],
        }
        heading(f"In-process cost, ASGI (AuthMiddleware): best of {args.repeat} x {args.iterations} requests")
        row("bare app alone (over an empty coroutine)", f"{timer.bare_asgi():7.2f} us per request")
        results = {name: timer.asgi(mw, hs) for name, hs in cases.items()}
        row("anonymous, no cookie: added", f"{results['no cookie']:7.2f} us")
        row("anonymous, unrelated cookies only: added", f"{results['unrelated cookies only']:7.2f} us")
        row("repeated token, session cookie: added", f"{results['session cookie']:7.2f} us   (target <= 10 us)")
        row("repeated token, + unrelated cookies: added", f"{results['unrelated cookies + session cookie']:7.2f} us")
        row("repeated token, x-stack-auth header: added", f"{results['x-stack-auth header']:7.2f} us")
        two = [scope_headers(stack.cookie(s)) for s in sessions[:2]]
        slow = max(200, args.iterations // 20)
        verify_timer = Timer(slow, args.repeat)
        verifying = verify_timer.asgi(forgetful, two)
        verify_timer.close()
        row(
            "token not in the verified cache (ES256 check): added",
            f"{verifying:7.2f} us   (verifier cache of 1, 2 tokens alternating)",
        )
        firsts = timer.first_seen_asgi(
            lambda: AuthMiddleware(inner, config=config), [scope_headers(stack.cookie(s)) for s in sessions]
        )
        row(
            f"first-seen token, {len(firsts)} users: median / p90",
            f"{percentile(firsts, 50):7.2f} us / {percentile(firsts, 90):.2f} us   (whole call, bare app included)",
        )

        # -- WSGI ---------------------------------------------------------------------
        wmw = WSGIAuthMiddleware(inner_wsgi, config)
        wforgetful = WSGIAuthMiddleware(inner_wsgi, config, verifier=TokenVerifier(config, cache_size=1))
        heading(f"In-process cost, WSGI (WSGIAuthMiddleware): best of {args.repeat} x {args.iterations} requests")
        wcases = {
            "no cookie": [environ_for()],
            "session cookie": [environ_for(cookie)],
            "unrelated cookies only": [environ_for(UNRELATED)],
            "x-stack-auth header": [environ_for(auth=header)],
        }
        row(
            "bare app alone (over an empty function)",
            f"{timer.wsgi(inner_wsgi, [environ_for()], base=_nothing_wsgi):7.2f} us per request",
        )
        for name, label in (
            ("no cookie", "anonymous, no cookie: added"),
            ("unrelated cookies only", "anonymous, unrelated cookies only: added"),
            ("session cookie", "repeated token, session cookie: added"),
            ("x-stack-auth header", "repeated token, x-stack-auth header: added"),
        ):
            extra = "   (target <= 10 us)" if name == "session cookie" else ""
            row(label, f"{timer.wsgi(wmw, wcases[name]):7.2f} us{extra}")
        wtwo = [environ_for(stack.cookie(s)) for s in sessions[:2]]
        wt = Timer(slow, args.repeat)
        row("token not in the verified cache (ES256 check): added", f"{wt.wsgi(wforgetful, wtwo):7.2f} us")
        wmw.close()
        wforgetful.close()
        timer.close()
        row(
            "key-set fetches / refresh calls, all of the above",
            f"{stack.proxy.jwks_fetches} (one per middleware: 5) / {stack.proxy.refreshes}",
        )


if __name__ == "__main__":
    main()
