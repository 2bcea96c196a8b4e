"""AuthMiddleware in a plain Starlette app and as a raw ASGI callable."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.authentication import requires
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket, WebSocketDisconnect

from authmw.errors import UserAuthenticationRequired
from authmw.middleware import AuthMiddleware, Refusal

from .support import cookie_header


@requires("authenticated", status_code=401)
async def private(request: Request) -> JSONResponse:
    return JSONResponse({"id": request.user.id})


async def guarded(request: Request) -> JSONResponse:
    if not request.user.is_authenticated:
        raise Refusal.of(UserAuthenticationRequired())
    return JSONResponse({"id": request.user.id})


async def ws(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.send_json({"id": websocket.user.id})
    await websocket.close()


def starlette_app(config: Any) -> Starlette:
    return Starlette(
        routes=[Route("/private", private), Route("/guarded", guarded), WebSocketRoute("/ws", ws)],
        middleware=[Middleware(AuthMiddleware, config=config)],
    )


def test_works_with_starlettes_requires_decorator(local_service) -> None:
    s = local_service.sign_up()
    with TestClient(starlette_app(local_service.config)) as client:
        assert client.get("/private").status_code == 401
        cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
        assert client.get("/private", headers={"cookie": cookie}).json() == {"id": s.user_id}


def test_a_refusal_raised_anywhere_inside_is_answered(local_service) -> None:
    with TestClient(starlette_app(local_service.config)) as client:
        r = client.get("/guarded")
    assert r.status_code == 401
    assert r.json()["code"] == "USER_AUTHENTICATION_REQUIRED"
    assert r.headers["x-stack-known-error"] == "USER_AUTHENTICATION_REQUIRED"


def test_websocket_gets_the_user(local_service) -> None:
    s = local_service.sign_up()
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    with TestClient(starlette_app(local_service.config)) as client:
        with client.websocket_connect("/ws", headers={"cookie": cookie}) as socket:
            assert socket.receive_json() == {"id": s.user_id}
        with client.websocket_connect("/ws") as socket:
            assert socket.receive_json() == {"id": None}


def test_websocket_with_invalid_header_is_closed(local_service) -> None:
    with TestClient(starlette_app(local_service.config)) as client, pytest.raises(WebSocketDisconnect) as caught:
        with client.websocket_connect("/ws", headers={"x-stack-auth": "nope"}):
            pass
    assert caught.value.code == 1008


async def test_other_scopes_pass_through_untouched(local_service) -> None:
    seen: list[dict[str, Any]] = []

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope)

    middleware = AuthMiddleware(inner, local_service.config)
    await middleware({"type": "custom"}, None, None)
    assert seen == [{"type": "custom"}]


async def test_raw_asgi_scope_gets_user_and_auth(local_service) -> None:
    s = local_service.sign_up()
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    seen: dict[str, Any] = {}

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.update(user=scope["user"], auth=scope["auth"])
        await PlainTextResponse("ok")(scope, receive, send)

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    middleware = AuthMiddleware(inner, local_service.config)
    scope = {"type": "http", "method": "GET", "path": "/", "headers": [(b"cookie", cookie.encode())], "scheme": "http"}
    await middleware(scope, None, send)
    await middleware.aclose()
    assert seen["user"].id == s.user_id and seen["user"].is_authenticated
    assert seen["auth"].scopes == ["authenticated"]
    assert repr(seen["user"]) == f"AuthUser(id={s.user_id!r})"
    assert s.access_token not in repr(seen["user"])
    assert sent[0]["status"] == 200


async def test_split_cookie_headers_are_read_together(local_service) -> None:
    s = local_service.sign_up()
    refresh_part, access_part = cookie_header(local_service.project_id, s.refresh_token, s.access_token).split("; ")
    seen: dict[str, Any] = {}

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen["user"] = scope["user"]
        await PlainTextResponse("ok")(scope, receive, send)

    async def send(message: dict[str, Any]) -> None:
        pass

    middleware = AuthMiddleware(inner, local_service.config)
    headers = [(b"cookie", refresh_part.encode()), (b"accept", b"*/*"), (b"cookie", access_part.encode())]
    await middleware({"type": "http", "method": "GET", "path": "/", "headers": headers, "scheme": "http"}, None, send)
    await middleware.aclose()
    assert seen["user"].id == s.user_id


def test_lifespan_shutdown_closes_the_middlewares_http_client(local_service) -> None:
    clients: list[httpx.AsyncClient] = []

    def http() -> httpx.AsyncClient:
        clients.append(httpx.AsyncClient())
        return clients[-1]

    s = local_service.sign_up()
    app = Starlette(
        routes=[Route("/private", private)],
        middleware=[Middleware(AuthMiddleware, config=local_service.config, http=http)],
    )
    with TestClient(app) as client:
        cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
        assert client.get("/private", headers={"cookie": cookie}).status_code == 200
        assert len(clients) == 1 and not clients[0].is_closed
    assert clients[0].is_closed


def test_https_requests_get_secure_cookies(short_service, expiring) -> None:
    s = expiring
    app = Starlette(
        routes=[Route("/private", private)], middleware=[Middleware(AuthMiddleware, config=short_service.config)]
    )
    with TestClient(app, base_url="https://testserver") as client:
        r = client.get(
            "/private", headers={"cookie": cookie_header(short_service.project_id, s.refresh_token, s.access_token)}
        )
    assert r.status_code == 200
    assert all(v.endswith("; Secure") for v in r.headers.get_list("set-cookie"))
