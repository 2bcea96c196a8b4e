"""Cross-site requests with the session cookies: ASGI (FastAPI, Starlette, WebSockets) and WSGI,
through each framework's test client, with real sessions of the local service."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from authmw.errors import ConfigurationError
from authmw.middleware import AuthMiddleware, WSGIAuthMiddleware

from .cross_site import EVIL, TRUSTED, header_sessions, run_cases, run_header_sessions
from .support import cookie_header

METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "PURGE"]


def fastapi_app(config: Any, actions: list, **options: Any) -> FastAPI:
    app = FastAPI()
    app.add_middleware(AuthMiddleware, config=config, **options)

    @app.api_route("/action", methods=METHODS)
    async def action(request: Request) -> dict[str, bool]:
        actions.append((request.method, request.user.id))
        return {"done": True}

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_json({"id": websocket.user.id})
        await websocket.close()

    return app


def starlette_app(config: Any, actions: list, **options: Any) -> Starlette:
    async def action(request: Any) -> JSONResponse:
        actions.append((request.method, request.user.id))
        return JSONResponse({"done": True})

    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_json({"id": websocket.user.id})
        await websocket.close()

    return Starlette(
        routes=[Route("/action", action, methods=METHODS), WebSocketRoute("/ws", ws)],
        middleware=[Middleware(AuthMiddleware, config=config, **options)],
    )


def wsgi_app(config: Any, actions: list, **options: Any) -> WSGIAuthMiddleware:
    def action(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        actions.append((environ["REQUEST_METHOD"], environ["authmw.user"].id))
        start_response("200 OK", [("Content-Type", "application/json")])
        return [b'{"done": true}']

    return WSGIAuthMiddleware(action, config, **options)


def session(service: Any) -> tuple[str, Any, str]:
    s = service.sign_up()
    return cookie_header(service.project_id, s.refresh_token, s.access_token), s, s.user_id


@pytest.mark.parametrize("make", [fastapi_app, starlette_app], ids=["fastapi", "starlette"])
def test_asgi_cookie_sessions_are_checked(local_service, make) -> None:
    cookie, header, user_id = session(local_service)
    actions: list = []
    with TestClient(make(local_service.config, actions, trusted_origins=TRUSTED)) as client:

        def send(method: str, headers: dict[str, str]) -> httpx.Response:
            return client.request(method, "/action", headers=headers)

        run_cases(send, actions, cookie, user_id, own="http://testserver")
        run_header_sessions(send, actions, header)
        # Not signed out: the same cookies still work from the app's own pages.
        assert send("POST", {"cookie": cookie, "origin": "http://testserver"}).status_code == 200


def test_wsgi_cookie_sessions_are_checked(local_service) -> None:
    cookie, header, user_id = session(local_service)
    actions: list = []
    app = wsgi_app(local_service.config, actions, trusted_origins=TRUSTED)
    with httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://testserver") as client:

        def send(method: str, headers: dict[str, str]) -> httpx.Response:
            return client.request(method, "/action", headers=headers)

        run_cases(send, actions, cookie, user_id, own="http://testserver")
        run_header_sessions(send, actions, header)


def test_the_refusal_is_a_known_error_naming_the_check(local_service) -> None:
    cookie, _, _ = session(local_service)
    actions: list = []
    with TestClient(fastapi_app(local_service.config, actions)) as client:
        r = client.post("/action", headers={"cookie": cookie, "origin": EVIL})
        by_referer = client.post("/action", headers={"cookie": cookie, "referer": EVIL + "/a"})
        by_fetch = client.post("/action", headers={"cookie": cookie, "sec-fetch-site": "cross-site"})
    assert r.status_code == 403 and r.headers["x-stack-known-error"] == "CROSS_SITE_REQUEST_REFUSED"
    assert r.json() == {
        "code": "CROSS_SITE_REQUEST_REFUSED",
        "error": "Refused a cross-site request made with the session cookies (failed the origin check). "
        "Send it from the app's own pages, or list its origin among the trusted origins.",
        "details": {"check": "origin", "origin": EVIL},
    }
    assert by_referer.json()["details"] == {"check": "referer", "origin": EVIL}
    assert by_fetch.json()["details"] == {"check": "sec-fetch-site", "origin": None}
    assert actions == []


def test_anonymous_and_signed_out_cookies_are_not_checked(local_service) -> None:
    actions: list = []
    with TestClient(fastapi_app(local_service.config, actions)) as client:
        r = client.post("/action", headers={"cookie": "unrelated=1", "origin": EVIL})
        bad = client.post(
            "/action", headers={"cookie": cookie_header(local_service.project_id, "nope"), "origin": EVIL}
        )
    assert (r.status_code, bad.status_code) == (200, 200)
    assert actions == [("POST", None), ("POST", None)]


def test_the_check_can_be_turned_off(local_service) -> None:
    cookie, _, user_id = session(local_service)
    actions: list = []
    with TestClient(fastapi_app(local_service.config, actions, csrf_check=False)) as client:
        assert client.post("/action", headers={"cookie": cookie, "origin": EVIL}).status_code == 200
    assert actions == [("POST", user_id)]


def test_https_behind_a_proxy_is_the_own_origin(local_service) -> None:
    cookie, _, user_id = session(local_service)
    actions: list = []
    with TestClient(fastapi_app(local_service.config, actions)) as client:
        headers = {"cookie": cookie, "origin": "https://testserver"}
        assert client.post("/action", headers=headers).status_code == 403
        assert client.post("/action", headers={**headers, "x-forwarded-proto": "https"}).status_code == 200
    assert actions == [("POST", user_id)]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"trusted_origins": "https://a.example"}, "trusted_origins must be a list"),
        ({"trusted_origins": ["a.example"]}, r'trusted_origins lists origins such as "https://app.example.com"'),
        ({"trusted_origins": ["https://a.example/path"]}, "no path"),
        ({"csrf_check": "no"}, "csrf_check must be True or False"),
        ({"websocket_cross_site": "close"}, 'websocket_cross_site must be "refuse" or "anonymous"'),
        ({"cookie_same_site": "None"}, 'cookie_same_site "None" needs Secure cookies'),
    ],
)
def test_bad_settings_are_explained(local_service, options, message) -> None:
    with pytest.raises(ConfigurationError, match=message):
        AuthMiddleware(fastapi_app, local_service.config, **options)


def test_a_misspelt_setting_is_refused_not_left_out(local_service) -> None:
    with pytest.raises(ConfigurationError, match="no setting csrf_chek; its settings are .*csrf_check"):
        AuthMiddleware(fastapi_app, local_service.config, csrf_chek=False)  # type: ignore[call-arg]
    AuthMiddleware(fastapi_app, local_service.config, csrf_check=False)  # the control: spelt right


# -- cookies the middleware writes -----------------------------------------------------


def test_same_site_none_cookies_are_secure(local_service) -> None:
    s = local_service.sign_up()
    app = fastapi_app(local_service.config, [], cookie_same_site="none", cookie_secure=True)
    with TestClient(app) as client:
        # Only the refresh token: the middleware refreshes and writes both cookies.
        r = client.get("/action", headers={"cookie": cookie_header(local_service.project_id, s.refresh_token)})
    written = r.headers.get_list("set-cookie")
    assert len(written) == 3 and all(v.endswith("; SameSite=None; Secure") for v in written), written


# -- WebSockets ------------------------------------------------------------------------


@pytest.mark.parametrize("make", [fastapi_app, starlette_app], ids=["fastapi", "starlette"])
def test_websocket_from_another_site_is_refused(local_service, make) -> None:
    cookie, header, user_id = session(local_service)
    with TestClient(make(local_service.config, [], trusted_origins=TRUSTED)) as client:
        for foreign in ({"origin": EVIL}, {"origin": EVIL, "sec-fetch-site": "cross-site"}, {"origin": "null"}):
            with (
                pytest.raises(WebSocketDisconnect) as caught,
                client.websocket_connect("/ws", headers={"cookie": cookie, **foreign}),
            ):
                pass
            assert caught.value.code == 1008, foreign
        for fine in ({"origin": "http://testserver"}, {"origin": "https://front.example"}, {}):
            with client.websocket_connect("/ws", headers={"cookie": cookie, **fine}) as socket:
                assert socket.receive_json() == {"id": user_id}, fine
        # A header session is not the browser's cookies: any origin.
        for auth in header_sessions(header):
            with client.websocket_connect("/ws", headers={**auth, "origin": EVIL}) as socket:
                assert socket.receive_json() == {"id": user_id}, auth


def test_websocket_from_another_site_can_run_anonymous(local_service) -> None:
    cookie, _, user_id = session(local_service)
    app = fastapi_app(local_service.config, [], websocket_cross_site="anonymous")
    with TestClient(app) as client:
        with client.websocket_connect("/ws", headers={"cookie": cookie, "origin": EVIL}) as socket:
            assert socket.receive_json() == {"id": None}
        with client.websocket_connect("/ws", headers={"cookie": cookie, "origin": "http://testserver"}) as socket:
            assert socket.receive_json() == {"id": user_id}


@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_refused_requests_keep_the_refreshed_cookies(local_service, kind: str) -> None:
    s = local_service.sign_up()
    pid = local_service.project_id
    actions: list = []
    # Only the refresh token: the session is refreshed, then the request refused; the user is
    # not signed out, and the refreshed cookies are written as for any refusal.
    headers = {"cookie": cookie_header(pid, s.refresh_token), "origin": EVIL}
    if kind == "asgi":
        with TestClient(fastapi_app(local_service.config, actions)) as client:
            r = client.post("/action", headers=headers)
    else:
        app = wsgi_app(local_service.config, actions)
        with httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://testserver") as client:
            r = client.post("/action", headers=headers)
    assert r.status_code == 403 and r.json()["code"] == "CROSS_SITE_REQUEST_REFUSED" and actions == []
    written = {v.split("=", 1)[0]: v for v in r.headers.get_list("set-cookie")}
    assert set(written) == {f"stack-refresh-{pid}", "stack-access", "stack-refresh"}
    assert "Max-Age=0" not in written[f"stack-refresh-{pid}"] and "Max-Age=0" not in written["stack-access"]
