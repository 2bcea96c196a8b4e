"""Server-rendered OAuth sign-in on FastAPI (and Starlette): authmw_fastapi.oauth_routes."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.applications import Starlette

from authmw_fastapi import CurrentUser, install, oauth_routes


def make_app(config: Any, **options: Any) -> FastAPI:
    app = FastAPI()
    install(app, config)
    app.router.routes.extend(oauth_routes(config, after_sign_in="/home", after_sign_up="/welcome", **options))

    @app.get("/whoami")
    async def whoami(user: CurrentUser) -> dict[str, Any]:
        return {"id": user.id}

    return app


def _path(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def test_sign_up_sign_in_again_and_return_to(oauth_service) -> None:  # type: ignore[no-untyped-def]
    email = f"fa-{uuid.uuid4().hex[:8]}@example.com"
    client = TestClient(make_app(oauth_service.config), follow_redirects=False)
    start = client.get("/handler/oauth/github")
    assert start.status_code == 303
    assert start.headers["location"].startswith(f"{oauth_service.url}/api/v1/auth/oauth/authorize/github?")
    cookie = start.headers["set-cookie"]
    assert cookie.startswith("stack-oauth-outer-") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Path=/handler/oauth-callback" in cookie and "Max-Age=3600" in cookie  # service-api C9
    assert client.get("/whoami").status_code == 401

    back = oauth_service.provider_round_trip(start.headers["location"], email)
    assert back.startswith("http://testserver/handler/oauth-callback?")
    done = client.get(_path(back))
    assert done.status_code == 303 and done.headers["location"] == "/welcome", done.text
    assert done.headers["cache-control"] == "no-store"
    assert f"stack-refresh-{oauth_service.project_id}" in client.cookies
    first = client.get("/whoami")
    assert first.status_code == 200
    # the verifier cookie is gone: the same callback again signs nobody in
    again = TestClient(make_app(oauth_service.config), follow_redirects=False)
    replay = again.get(_path(back))
    assert replay.status_code == 400 and "Nothing to sign in" in replay.text
    assert "stack-refresh" not in replay.headers.get("set-cookie", "")

    second = TestClient(make_app(oauth_service.config), follow_redirects=False)
    start = second.get("/handler/oauth/github", params={"after_auth_return_to": "/dashboard?tab=1"})
    done = second.get(_path(oauth_service.provider_round_trip(start.headers["location"], email)))
    assert done.status_code == 303 and done.headers["location"] == "/dashboard?tab=1"
    assert second.get("/whoami").json() == first.json()


def test_one_app_signs_in_on_each_event_loop_it_is_served_on(oauth_service) -> None:  # type: ignore[no-untyped-def]
    """TestClient without `with` runs each request on an event loop of its own: the routes' HTTP
    client of the first sign-in's loop is not used on the next one ("Event loop is closed")."""
    client = TestClient(make_app(oauth_service.config), follow_redirects=False)
    for _ in range(2):
        client.cookies.clear()
        start = client.get("/handler/oauth/github")
        back = oauth_service.provider_round_trip(start.headers["location"], f"el-{uuid.uuid4().hex[:8]}@example.com")
        done = client.get(_path(back))
        assert done.status_code == 303 and done.headers["location"] == "/welcome", done.text
        assert client.get("/whoami").status_code == 200


def test_offsite_return_to_is_ignored(oauth_service) -> None:  # type: ignore[no-untyped-def]
    client = TestClient(make_app(oauth_service.config), follow_redirects=False)
    start = client.get("/handler/oauth/github", params={"after_auth_return_to": "/\\evil.example"})
    back = oauth_service.provider_round_trip(start.headers["location"], f"fa-{uuid.uuid4().hex[:8]}@example.com")
    assert "after_auth_return_to" not in back
    # a return path added to the callback afterwards changes its redirect_uri: refused
    tampered = client.get(_path(back) + "&after_auth_return_to=%2F%2Fevil.example")
    assert tampered.status_code == 400 and "location" not in tampered.headers
    assert client.get("/whoami").status_code == 401


def test_deny_shows_the_error_and_signs_nobody_in(oauth_service) -> None:  # type: ignore[no-untyped-def]
    client = TestClient(make_app(oauth_service.config), follow_redirects=False)
    start = client.get("/handler/oauth/github")
    back = oauth_service.provider_round_trip(start.headers["location"], "x@example.com", action="deny")
    assert "errorCode=OAUTH_PROVIDER_ACCESS_DENIED" in back
    page = client.get(_path(back))
    assert page.status_code == 400 and "denied" in page.text
    assert client.get("/whoami").status_code == 401


def test_unknown_state_and_unknown_provider(oauth_service) -> None:  # type: ignore[no-untyped-def]
    client = TestClient(make_app(oauth_service.config), follow_redirects=False)
    page = client.get("/handler/oauth-callback", params={"code": "c", "state": "never-started"})
    assert page.status_code == 400 and "Nothing to sign in" in page.text
    assert client.get("/handler/oauth/not%20a%20provider").status_code == 404


def test_starlette_app(oauth_service) -> None:  # type: ignore[no-untyped-def]
    from authmw.middleware import AuthMiddleware

    app = Starlette(routes=oauth_routes(oauth_service.config))
    app.add_middleware(AuthMiddleware, config=oauth_service.config)
    client = TestClient(app, follow_redirects=False)
    start = client.get("/handler/oauth/gitlab")
    back = oauth_service.provider_round_trip(start.headers["location"], f"st-{uuid.uuid4().hex[:8]}@example.com")
    done = client.get(_path(back))
    assert done.status_code == 303 and done.headers["location"] == "/"
    assert f"stack-refresh-{oauth_service.project_id}" in client.cookies


def test_behind_a_proxy_the_flow_starts_and_finishes_on_the_public_origin(oauth_service) -> None:  # type: ignore[no-untyped-def]
    """The app answers at http://testserver; browsers know it as PUBLIC_ORIGIN (a proxy forwards
    path and query). The service compares the exchange's redirect_uri with the authorize call's."""
    public = oauth_service.PUBLIC_ORIGIN
    client = TestClient(make_app(oauth_service.config, base_url=public), follow_redirects=False)
    start = client.get("/handler/oauth/github", params={"after_auth_return_to": "/account"})
    redirect_uri = parse_qs(urlsplit(start.headers["location"]).query)["redirect_uri"][0]
    assert redirect_uri == f"{public}/handler/oauth-callback?after_auth_return_to=%2Faccount"
    back = oauth_service.provider_round_trip(start.headers["location"], f"px-{uuid.uuid4().hex[:8]}@example.com")
    assert back.startswith(f"{public}/handler/oauth-callback?")
    done = client.get(_path(back))  # what the proxy forwards
    assert done.status_code == 303 and done.headers["location"] == "/account", done.text
    assert client.get("/whoami").status_code == 200
    # control: the same flow without base_url names testserver, which the callback then matches
    plain = TestClient(make_app(oauth_service.config), follow_redirects=False)
    start = plain.get("/handler/oauth/github")
    assert parse_qs(urlsplit(start.headers["location"]).query)["redirect_uri"][0].startswith("http://testserver/")


def test_an_account_with_totp_is_asked_for_the_code_and_signed_in(oauth_service, oauth_clock_frozen) -> None:  # type: ignore[no-untyped-def]
    now = oauth_clock_frozen
    email = f"mfa-{uuid.uuid4().hex[:8]}@example.com"
    authenticator = oauth_service.totp_user(email)
    # one event loop per client for the whole test (the routes keep one driver), as a server has
    with TestClient(make_app(oauth_service.config), follow_redirects=False) as client:
        start = client.get("/handler/oauth/github", params={"after_auth_return_to": "/account"})
        form = client.get(_path(oauth_service.provider_round_trip(start.headers["location"], email)))
        assert form.status_code == 200 and "Two-factor authentication" in form.text, form.text
        assert 'action="/handler/oauth-callback?after_auth_return_to=%2Faccount"' in form.text
        assert 'name="totp"' in form.text and 'autocomplete="one-time-code"' in form.text
        kept = next(v for k, v in form.headers.multi_items() if k == "set-cookie" and v.startswith("stack-oauth-mfa="))
        assert "HttpOnly" in kept and "Path=/handler/oauth-callback" in kept and "Max-Age=300" in kept
        assert "SameSite=Lax" in kept
        assert client.get("/whoami").status_code == 401

        action = "/handler/oauth-callback?after_auth_return_to=%2Faccount"
        right = authenticator.at(int(now))
        wrong = "000000" if right != "000000" else "111111"
        again = client.post(action, data={"totp": wrong})
        assert again.status_code == 400 and "not the current one" in again.text and 'name="totp"' in again.text
        assert client.post(action, data={"totp": "12"}).status_code == 400
        assert client.get("/whoami").status_code == 401
        # attack: another site posts the right code into this browser (no Lax cookie goes with a
        # cross-site post; an Origin that is not the site's is refused even with it)
        refused = client.post(action, data={"totp": right}, headers={"origin": "https://evil.example"})
        assert refused.status_code == 403 and client.get("/whoami").status_code == 401
        stranger = TestClient(make_app(oauth_service.config), follow_redirects=False)
        assert "Nothing to sign in" in stranger.post(action, data={"totp": right}).text
        # the legitimate post, from the site's own page
        done = client.post(action, data={"totp": right}, headers={"origin": "http://testserver"})
        assert done.status_code == 303 and done.headers["location"] == "/account", done.text
        assert any(v.startswith("stack-oauth-mfa=;") for k, v in done.headers.multi_items() if k == "set-cookie")
        assert client.get("/whoami").status_code == 200
