"""AuthMiddleware (ASGI) through FastAPI, with real tokens from the local service."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from authmw import AuthConfig
from authmw._ops import SyncDriver
from authmw._tokens import TokenVerifier
from authmw.errors import ConfigurationError
from authmw_fastapi import CurrentUser, install

from .support import (
    CountingTransport,
    cookie_header,
    cookie_value,
    make_app,
    set_cookies,
)

EXPIRES = r"Expires=[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT"


def get(app: Any, path: str = "/me", *, cookie: str | None = None, auth: Any = None, **headers: str) -> httpx.Response:
    if cookie is not None:
        headers["cookie"] = cookie
    if auth is not None:
        headers["x-stack-auth"] = auth if isinstance(auth, str) else json.dumps(auth)
    with TestClient(app) as client:
        return client.get(path, headers=headers)


def verify(config: AuthConfig, token: str) -> str:
    driver = SyncDriver()
    try:
        return driver.run(TokenVerifier(config).verify(token)).sub
    finally:
        driver.close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def tampered(token: str) -> str:
    return token[:-6] + ("AAAAAA" if not token.endswith("AAAAAA") else "BBBBBB")


# -- signed in -------------------------------------------------------------------------


def test_valid_cookies_sign_the_user_in_without_writing_cookies(local_service) -> None:
    s = local_service.sign_up()
    r = get(
        make_app(local_service.config), cookie=cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    )
    assert r.status_code == 200, r.text
    assert r.json() == {"id": s.user_id, "sub": s.user_id}
    assert "set-cookie" not in r.headers


def test_raw_unencoded_cookie_values_are_accepted(local_service) -> None:
    s = local_service.sign_up()
    pid = local_service.project_id
    raw = f'stack-refresh-{pid}={s.refresh_token}; stack-access=["{s.refresh_token}","{s.access_token}"]'
    assert get(make_app(local_service.config), cookie=raw).json()["id"] == s.user_id


def test_valid_x_stack_auth_header(local_service) -> None:
    s = local_service.sign_up()
    r = get(make_app(local_service.config), auth={"accessToken": s.access_token, "refreshToken": s.refresh_token})
    assert r.json()["id"] == s.user_id


def test_header_with_access_token_only(local_service) -> None:
    s = local_service.sign_up()
    assert get(make_app(local_service.config), auth={"accessToken": s.access_token}).json()["id"] == s.user_id


def test_header_wins_over_cookies(local_service) -> None:
    a, b = local_service.sign_up(), local_service.sign_up()
    r = get(
        make_app(local_service.config),
        cookie=cookie_header(local_service.project_id, a.refresh_token, a.access_token),
        auth={"accessToken": b.access_token, "refreshToken": b.refresh_token},
    )
    assert r.json()["id"] == b.user_id


def test_scope_auth_lists_authenticated(local_service) -> None:
    s = local_service.sign_up()
    app = make_app(local_service.config)
    r = get(app, "/maybe", cookie=cookie_header(local_service.project_id, s.refresh_token, s.access_token))
    assert r.json() == {"id": s.user_id, "scopes": ["authenticated"]}
    assert get(app, "/maybe").json() == {"id": None, "scopes": []}


def test_repeated_token_is_verified_once(local_service, monkeypatch) -> None:
    import authmw._tokens as tokens

    calls = []
    real = tokens.verify_parsed
    monkeypatch.setattr(tokens, "verify_parsed", lambda *a, **k: calls.append(1) or real(*a, **k))
    s = local_service.sign_up()
    app = make_app(local_service.config)
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    with TestClient(app) as client:
        for _ in range(5):
            assert client.get("/me", headers={"cookie": cookie}).status_code == 200
    assert len(calls) == 1


# -- anonymous -------------------------------------------------------------------------


def test_no_cookie_is_anonymous_and_require_user_answers_401_json(local_service) -> None:
    app = make_app(local_service.config)
    r = get(app)
    assert r.status_code == 401
    assert r.json() == {
        "code": "USER_AUTHENTICATION_REQUIRED",
        "error": "User authentication required for this endpoint.",
    }
    assert r.headers["x-stack-known-error"] == "USER_AUTHENTICATION_REQUIRED"
    assert get(app, "/maybe").json()["id"] is None


@pytest.mark.parametrize(
    "cookie",
    [
        "stack-access=garbage",
        'stack-access=["x',
        "stack-refresh-{pid}=undefined; stack-access=undefined",
        "stack-refresh-{pid}=%ZZ; stack-access=%5B%22",
        "stack-refresh-{pid}=" + "x" * 10_000,
        "=; ;;stack-access",
        "stack-refresh-{pid}=r; stack-access=" + quote('["r",' + "[" * 20_000, safe=""),
    ],
)
def test_bad_cookies_never_fail_the_request(local_service, cookie: str) -> None:
    r = get(make_app(local_service.config), "/maybe", cookie=cookie.format(pid=local_service.project_id))
    assert r.status_code == 200
    assert r.json()["id"] is None


def test_invalid_x_stack_auth_header_is_a_400(local_service) -> None:
    r = get(make_app(local_service.config), auth="{not json")
    assert r.status_code == 400
    assert r.json() == {"error": "Invalid x-stack-auth header: not valid JSON"}
    r = get(make_app(local_service.config), auth="null")
    assert r.status_code == 400
    assert r.json()["error"].startswith("Invalid x-stack-auth header: ")


def test_expired_token_is_refused_despite_the_verifiers_clock_tolerance(local_service) -> None:
    s = local_service.sign_up()
    late = make_app(local_service.config, clock=lambda: time.time() + 610)  # 10 s past exp
    assert get(late, auth={"accessToken": s.access_token}).status_code == 401


def test_tampered_token_without_refresh_token_is_anonymous(local_service) -> None:
    s = local_service.sign_up()
    r = get(make_app(local_service.config), auth={"accessToken": tampered(s.access_token)})
    assert r.status_code == 401


def test_tampered_token_with_refresh_token_is_refreshed(local_service) -> None:
    s = local_service.sign_up()
    pid = local_service.project_id
    r = get(make_app(local_service.config), cookie=cookie_header(pid, s.refresh_token, tampered(s.access_token)))
    assert r.json()["id"] == s.user_id
    assert cookie_value(set_cookies(r)["stack-access"]) != json.dumps([s.refresh_token, tampered(s.access_token)])


def test_token_of_another_project_is_no_token(local_service, other_service) -> None:
    theirs = other_service.sign_up()
    app = make_app(local_service.config)
    assert get(app, auth={"accessToken": theirs.access_token}).status_code == 401
    # Their refresh token is unknown to our project too: a definitive refresh error.
    r = get(app, cookie=cookie_header(local_service.project_id, theirs.refresh_token, theirs.access_token))
    assert r.status_code == 401
    ended = {f"stack-refresh-{local_service.project_id}", "stack-access", "hexclave-access", "stack-refresh"}
    assert set(set_cookies(r)) == ended


# -- refresh ---------------------------------------------------------------------------


def test_expiring_access_token_is_refreshed_and_both_cookies_rewritten(short_service, expiring) -> None:
    s = expiring
    pid = short_service.project_id
    r = get(make_app(short_service.config), cookie=cookie_header(pid, s.refresh_token, s.access_token))
    assert r.json()["id"] == s.user_id

    cookies = set_cookies(r)
    assert set(cookies) == {f"stack-refresh-{pid}", "stack-access", "stack-refresh"}
    assert re.fullmatch(
        rf"stack-refresh-{pid}={quote(s.refresh_token, safe='')}; Path=/; Max-Age=31536000; {EXPIRES}; SameSite=Lax",
        cookies[f"stack-refresh-{pid}"],
    )
    access = cookies["stack-access"]
    assert re.fullmatch(rf"stack-access=%5B%22[^;]+%22%5D; Path=/; Max-Age=86400; {EXPIRES}; SameSite=Lax", access), (
        access
    )
    refresh_token, new_access = json.loads(cookie_value(access))
    assert refresh_token == s.refresh_token
    assert new_access != s.access_token
    assert verify(short_service.config, new_access) == s.user_id
    assert cookies["stack-refresh"] == (
        "stack-refresh=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax"
    )
    assert not any("HttpOnly" in v or "Secure" in v for v in cookies.values())


def test_requests_right_after_a_refresh_reuse_the_new_token(short_service, expiring) -> None:
    s = expiring
    counting = CountingTransport()
    app = make_app(short_service.config, http=lambda: httpx.AsyncClient(transport=counting))
    old = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    with TestClient(app) as client:
        first = client.get("/me", headers={"cookie": old})
        client.cookies.clear()
        second = client.get("/me", headers={"cookie": old})
    assert first.json()["id"] == second.json()["id"] == s.user_id
    assert counting.refreshes == 1
    assert set_cookies(second)["stack-access"].split(";")[0] == set_cookies(first)["stack-access"].split(";")[0]


def test_header_session_is_refreshed_without_writing_cookies(short_service, expiring) -> None:
    s = expiring
    r = get(make_app(short_service.config), auth={"accessToken": s.access_token, "refreshToken": s.refresh_token})
    assert r.json()["id"] == s.user_id
    assert "set-cookie" not in r.headers


def test_cookies_are_secure_behind_an_https_proxy(short_service, expiring) -> None:
    s = expiring
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    r = get(make_app(short_service.config), cookie=cookie, **{"x-forwarded-proto": "https"})
    assert all(v.endswith("; Secure") for v in set_cookies(r).values())


def test_legacy_refresh_cookie_is_read(local_service) -> None:
    s = local_service.sign_up()
    r = get(
        make_app(local_service.config),
        cookie=cookie_header(local_service.project_id, s.refresh_token, s.access_token, legacy=True),
    )
    assert r.json()["id"] == s.user_id
    assert "set-cookie" not in r.headers


def test_legacy_refresh_cookie_is_deleted_on_write(short_service, expiring) -> None:
    s = expiring
    pid = short_service.project_id
    r = get(make_app(short_service.config), cookie=cookie_header(pid, s.refresh_token, s.access_token, legacy=True))
    assert r.json()["id"] == s.user_id
    cookies = set_cookies(r)
    assert cookie_value(cookies[f"stack-refresh-{pid}"]) == s.refresh_token
    assert cookies["stack-refresh"].startswith("stack-refresh=; Path=/; Max-Age=0;")


def test_revoked_refresh_token_signs_out_and_clears_cookies(short_service, expiring) -> None:
    s = expiring
    pid = short_service.project_id
    short_service.sign_out(s)
    r = get(make_app(short_service.config), cookie=cookie_header(pid, s.refresh_token, s.access_token))
    assert r.status_code == 401
    cookies = set_cookies(r)
    assert set(cookies) == {f"stack-refresh-{pid}", "stack-access", "hexclave-access", "stack-refresh"}
    assert all("=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT" in v for v in cookies.values())


def test_service_unreachable_keeps_cookies_and_continues_anonymous(short_service, expiring) -> None:
    s = expiring
    config = short_service.config.with_(api_url=f"http://127.0.0.1:{closed_port()}")
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    r = get(make_app(config), "/maybe", cookie=cookie)
    assert r.status_code == 200
    assert r.json()["id"] is None
    assert "set-cookie" not in r.headers


def test_service_unreachable_answers_503_when_configured(short_service, expiring) -> None:
    s = expiring
    config = short_service.config.with_(api_url=f"http://127.0.0.1:{closed_port()}")
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    r = get(make_app(config, on_refresh_unavailable="error"), "/maybe", cookie=cookie)
    assert r.status_code == 503
    assert r.json() == {"error": "The authentication service is unavailable; try again shortly."}
    assert "set-cookie" not in r.headers


def failing_service(status: int, body: bytes = b"boom", headers: dict[str, str] | None = None):
    """An http factory whose every answer is ``status`` (faults the local service never makes)."""
    return lambda: httpx.AsyncClient(
        transport=httpx.MockTransport(lambda request: httpx.Response(status, content=body, headers=headers))
    )


@pytest.mark.parametrize("mode, status", [("anonymous", 200), ("error", 503)])
def test_service_5xx_during_refresh_is_transient(short_service, expiring, mode: str, status: int) -> None:
    s = expiring
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    app = make_app(short_service.config, http=failing_service(502), on_refresh_unavailable=mode)
    r = get(app, "/maybe", cookie=cookie)
    assert r.status_code == status
    assert "set-cookie" not in r.headers


def test_other_refusals_of_the_refresh_keep_cookies_and_are_not_a_503(short_service, expiring) -> None:
    s = expiring
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    body = b'{"code": "SCHEMA_ERROR", "error": "Request validation failed"}'
    app = make_app(
        short_service.config,
        http=failing_service(400, body, {"x-stack-known-error": "SCHEMA_ERROR", "content-type": "application/json"}),
        on_refresh_unavailable="error",
    )
    r = get(app, "/maybe", cookie=cookie)
    assert (r.status_code, r.json()["id"]) == (200, None)
    assert "set-cookie" not in r.headers


@pytest.mark.parametrize("mode, status", [("anonymous", 200), ("error", 503)])
def test_key_set_unreachable_means_the_token_cannot_be_checked(local_service, mode: str, status: int) -> None:
    s = local_service.sign_up()
    config = local_service.config.with_(api_url=f"http://127.0.0.1:{closed_port()}")
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    r = get(make_app(config, on_refresh_unavailable=mode), "/maybe", cookie=cookie)
    assert r.status_code == status
    assert "set-cookie" not in r.headers


def test_refresh_failure_keeps_a_still_valid_access_token(short_service, expiring) -> None:
    s = expiring
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    # A verifier that saw the token before (shared, e.g. with a ServerApp): it is under the
    # 20 s margin but not expired, so it still holds while the service fails.
    verifier = TokenVerifier(short_service.config)
    SyncDriver().run(verifier.verify(s.access_token))
    r = get(make_app(short_service.config, http=failing_service(503), verifier=verifier), "/maybe", cookie=cookie)
    assert r.json()["id"] == s.user_id
    assert "set-cookie" not in r.headers


def test_invalid_on_refresh_unavailable_is_refused(local_service) -> None:
    with pytest.raises(ValueError, match="on_refresh_unavailable"):
        get(make_app(local_service.config, on_refresh_unavailable="ignore"))


async def test_200_concurrent_requests_with_one_expiring_token_refresh_once(short_service, expiring) -> None:
    s = expiring
    counting = CountingTransport()
    app = make_app(short_service.config, http=lambda: httpx.AsyncClient(transport=counting))
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as client:
        responses = await asyncio.gather(*(client.get("/me", headers={"cookie": cookie}) for _ in range(200)))
    assert [r.json()["id"] for r in responses] == [s.user_id] * 200
    assert counting.refreshes == 1
    assert len({set_cookies(r)["stack-access"].split(";")[0] for r in responses}) == 1


# -- server tier -----------------------------------------------------------------------


def test_get_server_user_runs_on_the_middlewares_driver(local_service) -> None:
    app = FastAPI()
    install(app, local_service.config)

    @app.get("/full")
    async def full(user: CurrentUser) -> dict[str, Any]:
        server_user = await user.get_server_user()
        return {"id": server_user.id, "email": server_user.primary_email}

    s = local_service.sign_up()
    r = get(app, "/full", cookie=cookie_header(local_service.project_id, s.refresh_token, s.access_token))
    assert r.json() == {"id": s.user_id, "email": s.email}


def test_server_helpers_without_the_secret_key_explain_it(local_service) -> None:
    app = make_app(local_service.config.with_(secret_server_key=None))

    @app.get("/server-user")
    async def server_user(request: Request) -> dict[str, Any]:
        assert request.user.server is None
        with pytest.raises(ConfigurationError, match="AUTHMW_SECRET_SERVER_KEY"):
            request.user.get_server_user()
        return {"id": request.user.id}

    s = local_service.sign_up()
    r = get(app, "/server-user", cookie=cookie_header(local_service.project_id, s.refresh_token, s.access_token))
    assert r.json() == {"id": s.user_id}


def test_no_token_ever_reaches_the_logs(short_service, expiring, caplog) -> None:
    s = expiring
    caplog.set_level("DEBUG")
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    unreachable = short_service.config.with_(api_url=f"http://127.0.0.1:{closed_port()}")
    get(make_app(unreachable), "/maybe", cookie=cookie)
    get(make_app(short_service.config, http=failing_service(500, s.refresh_token.encode())), "/maybe", cookie=cookie)
    get(make_app(short_service.config), auth='{"accessToken": "' + s.access_token + '"')
    assert caplog.records, "the failures above are logged"
    for secret in (s.refresh_token, s.access_token, short_service.config.secret_server_key):
        assert secret not in caplog.text


def test_the_apps_own_session_cookies_win_and_refreshed_responses_are_not_cached(short_service, expiring) -> None:
    from fastapi.responses import JSONResponse

    pid = short_service.project_id
    app = make_app(short_service.config)

    @app.post("/sign-out")
    async def sign_out() -> JSONResponse:
        response = JSONResponse({"ok": True}, headers={"cache-control": "public, max-age=600"})
        response.delete_cookie(f"stack-refresh-{pid}")
        response.delete_cookie("stack-access")
        return response

    s = expiring
    with TestClient(app) as client:
        r = client.post("/sign-out", headers={"cookie": cookie_header(pid, s.refresh_token, s.access_token)})
    cookies = r.headers.get_list("set-cookie")
    assert [v.split("=")[0] for v in cookies] == [f"stack-refresh-{pid}", "stack-access", "stack-refresh"]
    assert all("Max-Age=0" in v or "max-age=0" in v for v in cookies)
    assert r.headers["cache-control"] == "no-store"


def test_without_the_secret_key_the_refresh_uses_the_oauth_grant(short_service, expiring) -> None:
    s = expiring
    counting = CountingTransport()
    config = short_service.config.with_(secret_server_key=None)
    app = make_app(config, http=lambda: httpx.AsyncClient(transport=counting))
    r = get(app, cookie=cookie_header(short_service.project_id, s.refresh_token, s.access_token))
    assert r.json()["id"] == s.user_id
    assert counting.paths["/api/v1/auth/oauth/token"] == 1
    assert json.loads(cookie_value(set_cookies(r)["stack-access"]))[0] == s.refresh_token


def test_a_repeated_cookie_is_decided_once_until_its_token_needs_refreshing(local_service, monkeypatch) -> None:
    from authmw.middleware._core import Authenticator

    reads = []
    real_read = Authenticator.read
    monkeypatch.setattr(Authenticator, "read", lambda self, **kw: reads.append(1) or real_read(self, **kw))
    now = [time.time()]
    counting = CountingTransport()
    app = make_app(local_service.config, clock=lambda: now[0], http=lambda: httpx.AsyncClient(transport=counting))
    s = local_service.sign_up()
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    with TestClient(app) as client:
        for _ in range(3):
            r = client.get("/me", headers={"cookie": cookie})
            assert r.json()["id"] == s.user_id and "set-cookie" not in r.headers
        assert len(reads) == 1
        now[0] += 585  # 15 s of validity left: the remembered decision no longer holds
        r = client.get("/me", headers={"cookie": cookie})
    assert r.json()["id"] == s.user_id
    assert "stack-access=" in r.headers["set-cookie"]
    assert (len(reads), counting.refreshes) == (2, 1)
