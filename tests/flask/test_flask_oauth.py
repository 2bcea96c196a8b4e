"""Server-rendered OAuth sign-in on Flask: authmw_flask.oauth_blueprint, with Flask's test client."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

from flask_testapp import make_app

from authmw_flask import oauth_blueprint


def _path(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def test_sign_up_then_sign_in_again(oauth_service: Any) -> None:
    email = f"fl-{uuid.uuid4().hex[:8]}@example.com"
    app = make_app(oauth_service.config)
    app.register_blueprint(oauth_blueprint(after_sign_up="/welcome"))
    client = app.test_client()
    start = client.get("/handler/oauth/github?after_auth_return_to=/account")
    assert start.status_code == 303
    assert start.headers["Location"].startswith(f"{oauth_service.url}/api/v1/auth/oauth/authorize/github?")
    assert any(v.startswith("stack-oauth-outer-") and "HttpOnly" in v for v in start.headers.getlist("Set-Cookie"))
    assert client.get("/whoami").get_json()["authenticated"] is False

    back = oauth_service.provider_round_trip(start.headers["Location"], email)
    assert back.startswith("http://localhost/handler/oauth-callback?")
    done = client.get(_path(back))
    assert done.status_code == 303 and done.headers["Location"] == "/account"
    me = client.get("/whoami").get_json()
    assert me["authenticated"] is True

    other = app.test_client()
    start = other.get("/handler/oauth/github")
    done = other.get(_path(oauth_service.provider_round_trip(start.headers["Location"], email)))
    assert done.status_code == 303 and done.headers["Location"] == "/"  # not new: after-sign-in
    assert other.get("/whoami").get_json()["id"] == me["id"]


def test_unknown_state_and_deny(oauth_service: Any) -> None:
    app = make_app(oauth_service.config)
    app.register_blueprint(oauth_blueprint())
    client = app.test_client()
    page = client.get("/handler/oauth-callback?code=c&state=never-started")
    assert page.status_code == 400 and b"Nothing to sign in" in page.data
    start = client.get("/handler/oauth/github")
    back = oauth_service.provider_round_trip(start.headers["Location"], "x@example.com", action="deny")
    denied = client.get(_path(back))
    assert denied.status_code == 400 and b"denied" in denied.data
    assert client.get("/whoami").get_json()["authenticated"] is False


def test_behind_a_proxy_the_flow_starts_and_finishes_on_the_public_origin(oauth_service: Any) -> None:
    """The app answers at http://localhost; browsers know it as PUBLIC_ORIGIN (a proxy forwards
    path and query). The service compares the exchange's redirect_uri with the authorize call's."""
    public = oauth_service.PUBLIC_ORIGIN
    app = make_app(oauth_service.config)
    app.register_blueprint(oauth_blueprint(base_url=public))
    client = app.test_client()
    start = client.get("/handler/oauth/github?after_auth_return_to=/account")
    redirect_uri = parse_qs(urlsplit(start.headers["Location"]).query)["redirect_uri"][0]
    assert redirect_uri == f"{public}/handler/oauth-callback?after_auth_return_to=%2Faccount"
    back = oauth_service.provider_round_trip(start.headers["Location"], f"pxf-{uuid.uuid4().hex[:8]}@example.com")
    assert back.startswith(f"{public}/handler/oauth-callback?")
    done = client.get(_path(back))
    assert done.status_code == 303 and done.headers["Location"] == "/account", done.data
    assert client.get("/whoami").get_json()["authenticated"] is True


def test_an_account_with_totp_is_asked_for_the_code_and_signed_in(
    oauth_service: Any, oauth_clock_frozen: float
) -> None:
    email = f"mfaf-{uuid.uuid4().hex[:8]}@example.com"
    authenticator = oauth_service.totp_user(email)
    app = make_app(oauth_service.config)
    app.register_blueprint(oauth_blueprint())
    client = app.test_client()
    start = client.get("/handler/oauth/github")
    form = client.get(_path(oauth_service.provider_round_trip(start.headers["Location"], email)))
    assert form.status_code == 200 and b'name="totp"' in form.data
    right = authenticator.at(int(oauth_clock_frozen))
    refused = client.post("/handler/oauth-callback", data={"totp": right}, headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403 and client.get("/whoami").get_json()["authenticated"] is False
    done = client.post("/handler/oauth-callback", data={"totp": right}, headers={"Origin": "http://localhost"})
    assert done.status_code == 303 and done.headers["Location"] == "/", done.data
    assert client.get("/whoami").get_json()["authenticated"] is True
