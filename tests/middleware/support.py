from __future__ import annotations

import json
from collections import Counter
from typing import Any
from urllib.parse import quote, unquote

import httpx
import pytest
from fastapi import FastAPI, Request

from authmw import AuthConfig
from authmw_fastapi import CurrentUser, OptionalUser, install

REFRESH_PATHS = ("/api/v1/auth/sessions/current/refresh", "/api/v1/auth/oauth/token")


def is_refresh(path: str) -> bool:
    return path.endswith(REFRESH_PATHS)


#: The environment variables the adapters read a project's settings from when their own lack them.
PROJECT_ENV_VARIABLES = (
    "AUTHMW_PROJECT_ID",
    "STACK_PROJECT_ID",
    "NEXT_PUBLIC_STACK_PROJECT_ID",
    "AUTHMW_ENV_FILE",
    "AUTHMW_SECRET_SERVER_KEY",
    "STACK_SECRET_SERVER_KEY",
    "AUTHMW_PUBLISHABLE_CLIENT_KEY",
    "STACK_PUBLISHABLE_CLIENT_KEY",
    "NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY",
)


def clear_project_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset PROJECT_ENV_VARIABLES for the test, so that only the app's own settings count."""
    for name in PROJECT_ENV_VARIABLES:
        monkeypatch.delenv(name, raising=False)


class TeamCallsFail(httpx.BaseTransport):
    """The real transport, except that team calls cannot connect."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith(("/teams", "/team-permissions")):
            raise httpx.ConnectError("connection refused", request=request)
        return self.inner.handle_request(request)


class TeamCallsNotNow(httpx.BaseTransport):
    """The real transport, except that team calls are answered ``status`` (429 rate limited,
    408 timed out at a proxy) every time."""

    def __init__(self, status: int) -> None:
        self.inner = httpx.HTTPTransport()
        self.status = status

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith(("/teams", "/team-permissions")):
            return httpx.Response(self.status, headers={"retry-after": "0"}, text="Not now")
        return self.inner.handle_request(request)


class CountingTransport(httpx.AsyncBaseTransport):
    """The real async transport, counting requests by path."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.paths: Counter[str] = Counter()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths[request.url.path] += 1
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()

    @property
    def refreshes(self) -> int:
        return sum(n for path, n in self.paths.items() if is_refresh(path))


class CountingSyncTransport(httpx.BaseTransport):
    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.paths: Counter[str] = Counter()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.paths[request.url.path] += 1
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()

    @property
    def refreshes(self) -> int:
        return sum(n for path, n in self.paths.items() if is_refresh(path))


def make_app(config: AuthConfig, **options: Any) -> FastAPI:
    app = FastAPI()
    install(app, config, **options)

    @app.get("/me")
    async def me(user: CurrentUser) -> dict[str, Any]:
        return {"id": user.id, "sub": user.claims.sub}

    @app.get("/maybe")
    async def maybe(user: OptionalUser, request: Request) -> dict[str, Any]:
        return {"id": user.id if user else None, "scopes": request.auth.scopes}

    return app


def cookie_header(project_id: str, refresh: str | None, access: str | None = None, *, legacy: bool = False) -> str:
    """Cookies as the browser store writes them (percent-encoded)."""
    parts = []
    if refresh is not None:
        name = "stack-refresh" if legacy else f"stack-refresh-{project_id}"
        parts.append(f"{name}={quote(refresh, safe='')}")
        if access is not None:
            parts.append("stack-access=" + quote(json.dumps([refresh, access], separators=(",", ":")), safe=""))
    return "; ".join(parts)


def set_cookies(response: httpx.Response) -> dict[str, str]:
    """name -> full Set-Cookie header value."""
    out = {}
    for value in response.headers.get_list("set-cookie"):
        out[value.split("=", 1)[0]] = value
    return out


def cookie_value(set_cookie: str) -> str:
    return unquote(set_cookie.split(";", 1)[0].split("=", 1)[1])
