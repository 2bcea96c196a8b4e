"""Server-rendered OAuth sign-in routes for FastAPI and Starlette (logic: authmw._oauth_flow)."""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from authmw import AuthConfig
from authmw.adapter import AsyncDriver, OAuthRoutes, Options, Reply, SessionResolver, is_secure

__all__ = ["oauth_routes"]


def oauth_routes(config: AuthConfig | None = None, **options: Any) -> list[Route]:
    """``GET {handler}/oauth/{provider}`` and ``GET|POST {handler}/oauth-callback`` (POST: the TOTP
    form of an account with two-factor authentication) as Starlette routes.

    ``app.router.routes.extend(oauth_routes(config, after_sign_in="/dashboard"))`` (FastAPI or
    Starlette). ``options``: ``after_sign_in``, ``after_sign_up``, ``base_url`` (see
    :class:`authmw._oauth_flow.OAuthRoutes`). Without ``config``, ``AUTHMW_*`` variables are read.
    """
    flow = OAuthRoutes(config or AuthConfig.from_env(), **options)
    # One driver (and HTTP client) per event loop: a client's connections belong to the loop
    # that opened them, and an app may be served by more than one (TestClient without `with`
    # runs each request on a loop of its own).
    drivers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncDriver] = weakref.WeakKeyDictionary()

    def driver() -> AsyncDriver:
        loop = asyncio.get_running_loop()
        if loop not in drivers:
            drivers[loop] = AsyncDriver()
        return drivers[loop]

    async def start(request: Request) -> Response:
        reply = flow.start(
            request.path_params["provider"], request_url=str(request.url), secure=_secure(request), options=_options(request)
        )
        return _response(reply)

    async def finish(request: Request) -> Response:
        op = flow.finish(
            request_url=str(request.url),
            cookie_header=request.headers.get("cookie"),
            secure=_secure(request),
            method=request.method,
            body=await request.body() if request.method == "POST" else b"",
            origin=request.headers.get("origin"),
            options=_options(request),
        )
        return _response(await driver().run(op))

    return [
        Route(flow.start_path("{provider}"), start, methods=["GET"], name="authmw_oauth_start"),
        Route(flow.callback_path, finish, methods=["GET", "POST"], name="authmw_oauth_callback"),
    ]


def _secure(request: Request) -> bool:
    return is_secure(request.url.scheme, request.headers.get("x-forwarded-proto"))


def _options(request: Request) -> Options | None:
    """The middleware's options (its cookie settings); None without it: the defaults."""
    resolver = request.scope.get("authmw.resolver")
    return resolver.options if isinstance(resolver, SessionResolver) else None


def _response(reply: Reply) -> Response:
    response = Response(reply.body or None, status_code=reply.status)
    for name, value in reply.headers:
        response.headers.append(name, value)
    return response
