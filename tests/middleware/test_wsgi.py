"""WSGIAuthMiddleware: the same core as the ASGI middleware, through a minimal WSGI app."""

from __future__ import annotations

import json
import socket
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from authmw import AuthConfig
from authmw.errors import UserAuthenticationRequired
from authmw.middleware import AnonymousUser, AuthUser, Refusal, WSGIAuthMiddleware

from .support import CountingSyncTransport, cookie_header, cookie_value, set_cookies


def whoami(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    user = environ["authmw.user"]
    assert isinstance(user, (AuthUser, AnonymousUser))
    body = json.dumps({"id": user.id, "authenticated": user.is_authenticated}).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Set-Cookie", "app=1; Path=/")])
    return [body]


def client(config: AuthConfig, **options: Any) -> httpx.Client:
    app = WSGIAuthMiddleware(whoami, config, **options)
    return httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://testserver")


def get(config: AuthConfig, cookie: str | None = None, auth: Any = None, **options: Any) -> httpx.Response:
    headers = {}
    if cookie is not None:
        headers["cookie"] = cookie
    if auth is not None:
        headers["x-stack-auth"] = auth if isinstance(auth, str) else json.dumps(auth)
    with client(config, **options) as c:
        return c.get("/", headers=headers)


def test_anonymous_without_cookies(local_service) -> None:
    assert get(local_service.config).json() == {"id": None, "authenticated": False}


def test_valid_cookies(local_service) -> None:
    s = local_service.sign_up()
    r = get(local_service.config, cookie_header(local_service.project_id, s.refresh_token, s.access_token))
    assert r.json() == {"id": s.user_id, "authenticated": True}
    assert set(set_cookies(r)) == {"app"}


def test_valid_header(local_service) -> None:
    s = local_service.sign_up()
    r = get(local_service.config, auth={"accessToken": s.access_token, "refreshToken": s.refresh_token})
    assert r.json()["id"] == s.user_id


def test_invalid_header_is_a_400(local_service) -> None:
    r = get(local_service.config, auth="[1, 2]")
    assert r.status_code == 400
    assert r.json()["error"].startswith("Invalid x-stack-auth header: ")


def test_expiring_token_is_refreshed_and_cookies_added_to_the_apps_own(short_service, expiring) -> None:
    s = expiring
    pid = short_service.project_id
    r = get(short_service.config, cookie_header(pid, s.refresh_token, s.access_token))
    assert r.json()["id"] == s.user_id
    cookies = set_cookies(r)
    assert set(cookies) == {"app", f"stack-refresh-{pid}", "stack-access", "stack-refresh"}
    assert json.loads(cookie_value(cookies["stack-access"]))[0] == s.refresh_token


def test_revoked_refresh_token_clears_cookies(short_service, expiring) -> None:
    s = expiring
    short_service.sign_out(s)
    r = get(short_service.config, cookie_header(short_service.project_id, s.refresh_token, s.access_token))
    assert r.json()["authenticated"] is False
    assert all("Max-Age=0" in v for name, v in set_cookies(r).items() if name != "app")


@pytest.mark.parametrize("mode, status", [("anonymous", 200), ("error", 503)])
def test_service_unreachable(short_service, expiring, mode: str, status: int) -> None:
    s = expiring
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = short_service.config.with_(api_url=f"http://127.0.0.1:{port}")
    r = get(
        config, cookie_header(short_service.project_id, s.refresh_token, s.access_token), on_refresh_unavailable=mode
    )
    assert r.status_code == status
    assert set(set_cookies(r)) <= {"app"}


def test_concurrent_threads_share_one_refresh(short_service, expiring) -> None:
    s = expiring
    counting = CountingSyncTransport()
    app = WSGIAuthMiddleware(whoami, short_service.config, http=lambda: httpx.Client(transport=counting))
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)

    def one(_: int) -> str:
        with httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://testserver") as c:
            return c.get("/", headers={"cookie": cookie}).json()["id"]

    with ThreadPoolExecutor(max_workers=20) as pool:
        ids = list(pool.map(one, range(40)))
    assert ids == [s.user_id] * 40
    assert counting.refreshes == 1


def test_get_server_user_blocks_under_wsgi(local_service) -> None:
    def full(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        server_user = environ["authmw.user"].get_server_user()
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps({"email": server_user.primary_email}).encode()]

    s = local_service.sign_up()
    app = WSGIAuthMiddleware(full, local_service.config)
    with httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://testserver") as c:
        cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
        assert c.get("/", headers={"cookie": cookie}).json() == {"email": s.email}
    app.close()


def test_a_refusal_raised_by_the_app_is_answered(local_service) -> None:
    def guarded(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        raise Refusal.of(UserAuthenticationRequired())

    with httpx.Client(transport=httpx.WSGITransport(app=WSGIAuthMiddleware(guarded, local_service.config))) as c:
        r = c.get("http://testserver/")
    assert r.status_code == 401
    assert r.json()["code"] == "USER_AUTHENTICATION_REQUIRED"


def test_a_caller_that_leads_right_after_a_refresh_landed_reuses_it(short_service, expiring) -> None:
    from authmw._ops import Shared, SyncDriver
    from authmw._session import refresh_access_token
    from authmw.middleware._core import Authenticator

    calls = []

    def counting(config: AuthConfig, refresh_token: str) -> Any:
        calls.append(refresh_token)
        return (yield from refresh_access_token(config, refresh_token))

    s = expiring
    core = Authenticator(short_service.config, refresher=counting)
    tokens = core.read(
        cookie=cookie_header(short_service.project_id, s.refresh_token, s.access_token), auth_header=None, secure=False
    )
    driver = SyncDriver()
    late = core.settle(tokens)
    effect = next(late)  # found no fresh token and is about to lead a refresh flight...
    assert isinstance(effect, Shared)
    first = driver.run(core.settle(tokens))  # ...while another caller's refresh lands
    with pytest.raises(StopIteration) as done:
        late.send(driver.run(effect.make_op()))  # the late caller now leads its own flight
    assert done.value.value.access_token == first.access_token
    assert len(calls) == 1
    driver.close()
