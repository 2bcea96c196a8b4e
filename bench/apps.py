"""The hello-world apps the benchmarks serve, bare and behind authmw's middleware.

Factories, so the servers import them by name: ``uvicorn apps:starlette_auth --factory``,
``gunicorn 'apps:flask_auth()'``. The middleware reads its settings from the ``AUTHMW_*``
environment variables. ``/`` is the measured endpoint, identical in both variants;
``/whoami`` tells a benchmark who the middleware says the caller is.
"""

from __future__ import annotations

from typing import Any

HELLO = b"hello, world"


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
        return JSONResponse({"id": getattr(user, "id", None)})

    middleware = []
    if auth:
        from authmw import AuthConfig
        from authmw.middleware import AuthMiddleware

        middleware.append(Middleware(AuthMiddleware, config=AuthConfig.from_env()))
    return Starlette(routes=[Route("/", hello), Route("/whoami", whoami)], middleware=middleware)


def starlette_bare() -> Any:
    return _starlette(auth=False)


def starlette_auth() -> Any:
    return _starlette(auth=True)


def _flask(auth: bool) -> Any:
    from flask import Flask, request

    app = Flask("bench")

    @app.get("/")
    def hello() -> Any:
        return HELLO, 200, {"content-type": "text/plain; charset=utf-8"}

    @app.get("/whoami")
    def whoami() -> Any:
        user = request.environ.get("authmw.user")
        return {"id": getattr(user, "id", None)}

    if auth:
        from authmw import AuthConfig
        from authmw.middleware import WSGIAuthMiddleware

        app.wsgi_app = WSGIAuthMiddleware(app.wsgi_app, AuthConfig.from_env())  # type: ignore[method-assign]
    return app


def flask_bare() -> Any:
    return _flask(auth=False)


def flask_auth() -> Any:
    return _flask(auth=True)
