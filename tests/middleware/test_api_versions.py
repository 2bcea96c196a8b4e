"""Sessions of a 2.8 and of a 2.7 service sign a user in through the ASGI middleware (FastAPI)
and the WSGI middleware, by cookie, by bearer token and by the 2.8 SDK's headers; an anonymous
2.8 session is not signed in unless the app opts in. Real local services of both versions."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from api_sessions import WAYS, expected_claims, sdk_authorization, session_headers, sign_up_anonymously
from fastapi import FastAPI
from fastapi.testclient import TestClient

from authmw import AuthConfig
from authmw.middleware import WSGIAuthMiddleware
from authmw.middleware._core import MALFORMED_AUTHORIZATION
from authmw_fastapi import OptionalUser, install


def fastapi_app(config: AuthConfig) -> TestClient:
    app = FastAPI()
    install(app, config)

    @app.get("/whoami")
    async def whoami(user: OptionalUser) -> dict[str, Any]:
        if user is None:
            return {"id": None}
        return {"id": user.id, "anonymous": user.is_anonymous, "restricted": user.is_restricted}

    @app.get("/whoami/claims")
    async def claims(user: OptionalUser) -> dict[str, Any]:
        assert user is not None  # what the token says: no call to the service
        return {"email": user.email, "email_verified": user.email_verified, "display_name": user.display_name}

    return TestClient(app)


def wsgi_app(config: AuthConfig) -> httpx.Client:
    def whoami(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        user = environ["authmw.user"]
        start_response("200 OK", [("content-type", "application/json")])
        if environ["PATH_INFO"] == "/whoami/claims":
            body = {"email": user.email, "email_verified": user.email_verified, "display_name": user.display_name}
        else:
            body = {"id": user.id} if user.id is None else {"id": user.id, "anonymous": user.is_anonymous}
        return [httpx.Response(200, json=body).content]

    return httpx.Client(transport=httpx.WSGITransport(app=WSGIAuthMiddleware(whoami, config)), base_url="http://testserver")


APPS = {"fastapi": fastapi_app, "wsgi": wsgi_app}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("kind", list(APPS))
def test_a_user_of_either_api_version_signs_in(service_each_api, kind, way):
    service = service_each_api
    session = service.sign_up()
    client = APPS[kind](service.config)
    r = client.get("/whoami", headers=session_headers(way, service.project_id, session.access_token, session.refresh_token))
    assert r.status_code == 200 and r.json()["id"] == session.user_id, (service.api, r.text)
    assert r.json()["anonymous"] is False
    assert "set-cookie" not in r.headers


@pytest.mark.parametrize("kind", list(APPS))
def test_the_token_claims_reach_request_user(service_each_api, kind):
    """request.user.email and friends come from the token: a 2.8 token carries them, a 2.7
    token does not (None, not a guess)."""
    service = service_each_api
    session = service.sign_up()
    headers = session_headers("bearer", service.project_id, session.access_token, session.refresh_token)
    assert APPS[kind](service.config).get("/whoami/claims", headers=headers).json() == expected_claims(service, session)


@pytest.mark.parametrize("way", ["stackauth_", "hexclave_", "x-stack-auth"])
@pytest.mark.parametrize("kind", list(APPS))
def test_a_header_session_is_refreshed_and_never_written_back_as_cookies(service_each_api, kind, way):
    service = service_each_api
    session = service.sign_up()
    client = APPS[kind](service.config)
    r = client.get("/whoami", headers=session_headers(way, service.project_id, None, session.refresh_token))
    assert r.json()["id"] == session.user_id and "set-cookie" not in r.headers


@pytest.mark.parametrize("way", ["cookie", "bearer", "stackauth_"])
@pytest.mark.parametrize("kind", list(APPS))
def test_an_anonymous_2_8_session_is_signed_out_unless_the_app_opts_in(service_28, kind, way):
    anonymous = sign_up_anonymously(service_28)
    headers = session_headers(way, service_28.project_id, anonymous["access_token"], anonymous["refresh_token"])
    r = APPS[kind](service_28.config).get("/whoami", headers=headers)
    assert r.status_code == 200 and r.json() == {"id": None}
    assert "set-cookie" not in r.headers  # the browser SDK's session is left as it is

    r = APPS[kind](service_28.config.with_(allow_anonymous=True)).get("/whoami", headers=headers)
    assert r.json()["id"] == anonymous["user_id"] and r.json()["anonymous"] is True


def test_an_opted_in_app_reads_the_anonymous_user_from_the_service(service_28):
    """The allow header goes with the app's calls, so the service answers for the user."""
    anonymous = sign_up_anonymously(service_28)
    app = FastAPI()
    install(app, service_28.config.with_(allow_anonymous=True))

    @app.get("/profile")
    async def profile(user: OptionalUser) -> dict[str, Any]:
        assert user is not None
        server_user = await user.get_server_user()
        return {"anonymous": server_user.is_anonymous, "reason": server_user.restricted_reason}

    r = TestClient(app).get("/profile", headers={"authorization": "Bearer " + anonymous["access_token"]})
    assert r.json() == {"anonymous": True, "reason": "anonymous"}


@pytest.mark.parametrize(
    "value",
    ["Bearer stackauth_", "Bearer stackauth_%%%", "bearer hexclave_bm90IGpzb24=", sdk_authorization(None, None)[:-4] + "!!!!"],
)
@pytest.mark.parametrize("kind", list(APPS))
def test_a_malformed_sdk_header_is_a_401_naming_the_expected_form(local_service, kind, value):
    r = APPS[kind](local_service.config).get("/whoami", headers={"authorization": value})
    assert r.status_code == 401 and r.json()["error"] == MALFORMED_AUTHORIZATION
    assert 'error="invalid_token"' in r.headers["www-authenticate"]


def restricted_session(service: Any) -> tuple[str, dict[str, str]]:
    """A user of a 2.8 service an admin restricted, and a fresh session of it (server tier)."""
    session = service.sign_up()
    config = service.config
    headers = {
        "x-stack-project-id": config.project_id,
        "x-stack-access-type": "server",
        "x-stack-secret-server-key": config.secret_server_key or "",
    }
    base = f"{service.url}/api/v1"
    r = httpx.patch(
        f"{base}/users/{session.user_id}",
        headers=headers,
        json={"restricted_by_admin": True, "restricted_by_admin_reason": "Under review"},
    )
    assert r.status_code == 200, r.text
    r = httpx.post(f"{base}/auth/sessions", headers=headers, json={"user_id": session.user_id})
    assert r.status_code == 200, r.text
    return session.user_id, r.json()


@pytest.mark.parametrize("kind", list(APPS))
def test_a_restricted_2_8_user_is_signed_in_only_where_the_app_allows_it(service_28, kind):
    user_id, tokens = restricted_session(service_28)
    headers = session_headers("cookie", service_28.project_id, tokens["access_token"], tokens["refresh_token"])
    assert APPS[kind](service_28.config).get("/whoami", headers=headers).json() == {"id": None}
    for options in ({"allow_restricted": True}, {"allow_anonymous": True}):
        r = APPS[kind](service_28.config.with_(**options)).get("/whoami", headers=headers)
        assert r.json()["id"] == user_id and r.json()["anonymous"] is False
        if kind == "fastapi":
            assert r.json()["restricted"] is True
