"""authmw_quart, the adapter written on the seam: Quart's own test client against the local
service. Signed-in users, refresh writing the cookies back, the cross-site check, the guard."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import pytest
from middleware.cross_site import TRUSTED, run_cases, run_header_sessions
from middleware.support import cookie_header
from quart import Quart, request
from werkzeug.datastructures import Headers

from authmw import AsyncServerApp, AuthConfig
from authmw.errors import ConfigurationError
from authmw_quart import AuthMW, current_user, user_required

METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "PURGE"]


@dataclass
class Answer:
    status_code: int
    headers: Headers
    content: bytes

    def json(self) -> Any:
        return json.loads(self.content)

    def set_cookies(self) -> dict[str, str]:
        """name -> full Set-Cookie value, for the session's cookies."""
        values = self.headers.getlist("Set-Cookie")
        return {v.split("=", 1)[0]: v for v in values if v.startswith("stack-")}


class Client:
    """Quart's test client, one request at a time on one event loop of this test."""

    def __init__(self, app: Quart, loop: asyncio.AbstractEventLoop) -> None:
        self.app, self.loop = app, loop

    def open(self, path: str, method: str = "GET", headers: dict[str, str] | None = None) -> Answer:
        async def send() -> Answer:
            r = await self.app.test_client().open(path, method=method, headers=headers or {})
            return Answer(r.status_code, r.headers, await r.get_data())

        return self.loop.run_until_complete(send())


def make_app(config: AuthConfig, actions: list[tuple[str, Any]] | None = None, **options: Any) -> Quart:
    app = Quart(__name__)
    AuthMW(app, config=config, **options)

    @app.get("/whoami")
    async def whoami() -> Any:
        return {"id": current_user.id, "authenticated": current_user.is_authenticated}

    @app.get("/server-email")
    async def server_email() -> Any:
        assert isinstance(current_user.server, AsyncServerApp)  # on the serving loop's driver
        return {"email": (await current_user.get_server_user()).primary_email}

    @app.route("/action", methods=METHODS)
    async def action() -> Any:
        (actions if actions is not None else []).append((request.method, current_user.id))
        return {"done": True}

    @app.get("/api/me")
    @user_required
    async def me() -> Any:
        return {"id": current_user.id}

    @app.get("/page")
    @user_required(api=False)
    async def page() -> str:
        return f"hello {current_user.id}"

    return app


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def client(app: Quart, loop: asyncio.AbstractEventLoop) -> Client:
    return Client(app, loop)


def test_anonymous_then_signed_in_from_the_cookies(local_service, loop) -> None:
    app = make_app(local_service.config)
    s = local_service.sign_up()
    assert client(app, loop).open("/whoami").json() == {"id": None, "authenticated": False}
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    r = client(app, loop).open("/whoami", headers={"cookie": cookie})
    assert r.json() == {"id": s.user_id, "authenticated": True}
    assert r.set_cookies() == {}  # a fresh token: nothing to write
    email = client(app, loop).open("/server-email", headers={"cookie": cookie}).json()["email"]
    assert email == s.email


def test_a_header_session_signs_in_and_a_malformed_one_is_a_400(local_service, loop) -> None:
    app = make_app(local_service.config)
    s = local_service.sign_up()
    pair = json.dumps({"accessToken": s.access_token, "refreshToken": s.refresh_token})
    assert client(app, loop).open("/whoami", headers={"x-stack-auth": pair}).json()["id"] == s.user_id
    r = client(app, loop).open("/whoami", headers={"x-stack-auth": "null"})
    assert r.status_code == 400 and r.json()["error"].startswith("Invalid x-stack-auth header: ")


def test_a_refresh_writes_both_cookies_back(short_service, expiring, loop) -> None:
    s, pid = expiring, short_service.project_id
    app = make_app(short_service.config)
    r = client(app, loop).open("/whoami", headers={"cookie": cookie_header(pid, s.refresh_token, s.access_token)})
    assert r.json() == {"id": s.user_id, "authenticated": True}
    cookies = r.set_cookies()
    assert set(cookies) == {f"stack-refresh-{pid}", "stack-access", "stack-refresh"}
    refresh, access = json.loads(unquote(cookies["stack-access"].split(";", 1)[0].split("=", 1)[1]))
    assert refresh == s.refresh_token and access != s.access_token
    assert "Max-Age=0" in cookies["stack-refresh"]  # the legacy cookie retired
    assert r.headers["Cache-Control"] == "no-store"


def test_a_revoked_session_is_anonymous_and_its_cookies_are_deleted(short_service, expiring, loop) -> None:
    s, pid = expiring, short_service.project_id
    short_service.sign_out(s)
    app = make_app(short_service.config)
    r = client(app, loop).open("/whoami", headers={"cookie": cookie_header(pid, s.refresh_token, s.access_token)})
    assert r.json() == {"id": None, "authenticated": False}
    assert all("Max-Age=0" in v for v in r.set_cookies().values()) and r.set_cookies()


def test_cross_site_requests_of_a_cookie_session_are_refused(local_service, loop) -> None:
    actions: list[tuple[str, Any]] = []
    app = make_app(local_service.config, actions, trusted_origins=TRUSTED)
    s = local_service.sign_up()
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)

    def send(method: str, headers: dict[str, str]) -> Answer:
        return client(app, loop).open("/action", method=method, headers=headers)

    run_cases(send, actions, cookie, s.user_id, own="http://localhost")  # attacks refused, controls pass
    run_header_sessions(send, actions, s)  # a session in a header is never checked


def test_the_guard_refuses_anonymous_users(local_service, loop) -> None:
    app = make_app(local_service.config)
    r = client(app, loop).open("/api/me")
    assert r.status_code == 401 and r.json()["code"] == "USER_AUTHENTICATION_REQUIRED"
    r = client(app, loop).open("/page?tab=2", headers={"accept": "text/html"})
    assert r.status_code == 303
    assert r.headers["location"] == "/handler/sign-in?after_auth_return_to=%2Fpage%3Ftab%3D2"
    assert client(app, loop).open("/api/me", method="OPTIONS").status_code != 401  # preflights pass
    s = local_service.sign_up()
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    assert client(app, loop).open("/api/me", headers={"cookie": cookie}).json() == {"id": s.user_id}
    assert client(app, loop).open("/page", headers={"cookie": cookie}).content == f"hello {s.user_id}".encode()


def test_settings_come_from_app_config_and_name_the_fix(local_service, loop) -> None:
    app = Quart(__name__)
    app.config["AUTHMW_API_PATHS"] = ["/v2/"]
    AuthMW(app, config=local_service.config)
    assert app.extensions["authmw"].options.api_paths == ("/v2/",)
    with pytest.raises(ConfigurationError, match="already set up"):
        AuthMW(app, config=local_service.config)
    other = Quart(__name__)
    other.config["AUTHMW_COOKIE_SAME_SITE"] = "sometimes"
    with pytest.raises(ConfigurationError, match=r'app.config\["AUTHMW_COOKIE_SAME_SITE"\]'):
        AuthMW(other, config=local_service.config)
    with pytest.raises(ConfigurationError, match="no setting cookie_secur; its settings are .*cookie_secure"):
        AuthMW(Quart(__name__), config=local_service.config, cookie_secur=True)  # type: ignore[call-arg]
