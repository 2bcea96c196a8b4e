"""The hello-world apps the benchmarks serve, bare and behind authmw's middleware.

Factories, so the servers import them by name: ``uvicorn apps:starlette_auth --factory``,
``gunicorn 'apps:flask_auth()'``. The middleware reads its settings from the ``AUTHMW_*``
environment variables. ``/`` is the measured endpoint, identical in both variants;
``/whoami`` tells a benchmark who the middleware says the caller is (and which worker process
answered).

With ``BENCH_PROBE=1`` two timing layers sit around the middleware's place (around
nothing in the bare app): the outer one notes when a request arrives, the inner one when
it reaches the app and how long the app took. Their difference is the time spent in the
middleware itself, inside the real server, and ``/__probe`` reports it (and resets it).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

HELLO = b"hello, world"
PROBE = os.environ.get("BENCH_PROBE") == "1"


class Probe:
    """Nanoseconds spent between the outer and the inner layer, per request of ``/``."""

    def __init__(self) -> None:
        self.before: list[int] = []  # arrival -> app called
        self.total: list[int] = []  # arrival -> app returned, minus the app's own time
        self.lock = threading.Lock()

    def add(self, before: int, total: int) -> None:
        with self.lock:
            if len(self.total) < 1_000_000:
                self.before.append(before)
                self.total.append(total)

    def report(self) -> dict[str, Any]:
        with self.lock:
            before, total = sorted(self.before), sorted(self.total)
            self.before, self.total = [], []
        n = len(total)
        if not n:
            return {"n": 0}
        return {
            "n": n,
            "before_p50_us": before[n // 2] / 1e3,
            "total_p50_us": total[n // 2] / 1e3,
            "total_p90_us": total[9 * n // 10] / 1e3,
            "total_mean_us": sum(total) / n / 1e3,
        }


PROBE_DATA = Probe()


class _AsgiOuter:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/":
            await self.app(scope, receive, send)
            return
        scope["bench.t0"] = t0 = time.perf_counter_ns()
        await self.app(scope, receive, send)
        end = time.perf_counter_ns()
        inner = scope.get("bench.inner")
        if inner is not None:
            PROBE_DATA.add(inner[0] - t0, end - t0 - inner[1])


class _AsgiInner:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if "bench.t0" not in scope:
            await self.app(scope, receive, send)
            return
        t1 = time.perf_counter_ns()
        try:
            await self.app(scope, receive, send)
        finally:
            scope["bench.inner"] = (t1, time.perf_counter_ns() - t1)


def _starlette(auth: bool) -> Any:
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse
    from starlette.routing import Route

    async def hello(request: Request) -> PlainTextResponse:
        return PlainTextResponse(HELLO)

    async def whoami(request: Request) -> JSONResponse:
        user = request.scope.get("user")
        return JSONResponse({"id": getattr(user, "id", None), "pid": os.getpid()})

    async def probe(request: Request) -> JSONResponse:
        return JSONResponse(PROBE_DATA.report())

    middleware = []
    if auth:
        from authmw import AuthConfig
        from authmw.middleware import AuthMiddleware

        middleware.append(Middleware(AuthMiddleware, config=AuthConfig.from_env()))
    if PROBE:
        middleware = [Middleware(_AsgiOuter), *middleware, Middleware(_AsgiInner)]
    routes = [Route("/", hello), Route("/whoami", whoami), Route("/__probe", probe)]
    return Starlette(routes=routes, middleware=middleware)


def starlette_bare() -> Any:
    return _starlette(auth=False)


class _Noop:
    """A pass-through ASGI middleware (bench/attribution.py)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


def starlette_noop() -> Any:
    from starlette.middleware import Middleware

    app = _starlette(auth=False)
    app.user_middleware.insert(0, Middleware(_Noop))
    return app


#: Kept alive by starlette_imported, never called.
_UNUSED: list[Any] = []


def starlette_imported() -> Any:
    from authmw import AuthConfig
    from authmw.middleware import AuthMiddleware

    app = _starlette(auth=False)
    _UNUSED.append(AuthMiddleware(app, config=AuthConfig.from_env()))
    return app


def starlette_auth() -> Any:
    return _starlette(auth=True)


def _wsgi_probe(app: Any, middleware: Any) -> Any:
    def inner(environ: dict[str, Any], start_response: Any) -> Any:
        t1 = time.perf_counter_ns()
        try:
            return app(environ, start_response)
        finally:
            environ["bench.inner"] = (t1, time.perf_counter_ns() - t1)

    wrapped = middleware(inner)

    def outer(environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("PATH_INFO") != "/":
            return wrapped(environ, start_response)
        t0 = time.perf_counter_ns()
        result = wrapped(environ, start_response)
        end = time.perf_counter_ns()
        measured = environ.get("bench.inner")
        if measured is not None:
            PROBE_DATA.add(measured[0] - t0, end - t0 - measured[1])
        return result

    return outer


def _flask(auth: bool) -> Any:
    from flask import Flask, request

    app = Flask("bench")

    @app.get("/")
    def hello() -> Any:
        return HELLO, 200, {"content-type": "text/plain; charset=utf-8"}

    @app.get("/whoami")
    def whoami() -> Any:
        user = request.environ.get("authmw.user")
        return {"id": getattr(user, "id", None), "pid": os.getpid()}

    @app.get("/__probe")
    def probe() -> Any:
        return PROBE_DATA.report()

    def middleware(inner: Any) -> Any:
        if not auth:
            return inner
        from authmw import AuthConfig
        from authmw.middleware import WSGIAuthMiddleware

        return WSGIAuthMiddleware(inner, AuthConfig.from_env())

    app.wsgi_app = _wsgi_probe(app.wsgi_app, middleware) if PROBE else middleware(app.wsgi_app)  # type: ignore[method-assign]
    return app


def flask_bare() -> Any:
    return _flask(auth=False)


def flask_auth() -> Any:
    return _flask(auth=True)
