"""Flask: sessions of a 2.8 and of a 2.7 service sign a user in by cookie, by bearer token and
by the 2.8 SDK's headers; an anonymous 2.8 session is not signed in unless the app opts in.
Real local services of both versions."""

from __future__ import annotations

from typing import Any

import pytest
from api_sessions import WAYS, expected_claims, session_headers, sign_up_anonymously
from flask import jsonify
from flask_testapp import make_app, with_cookies

from authmw.middleware._core import MALFORMED_AUTHORIZATION


def get(config: Any, path: str, headers: dict[str, str]) -> Any:
    """GET ``path`` with ``headers``; a Cookie header goes through the client's jar."""
    client = app_for(config)
    if "cookie" in headers:
        with_cookies(client, headers.pop("cookie"))
    return client.get(path, headers=headers)


def app_for(config: Any) -> Any:
    from authmw_flask import current_user

    app = make_app(config)

    @app.get("/whoami/kind")
    def kind() -> Any:
        return jsonify(id=current_user.id, anonymous=current_user.is_anonymous, restricted=current_user.is_restricted)

    @app.get("/whoami/claims")
    def claims() -> Any:
        user = current_user  # what the token says: no call to the service
        return jsonify(email=user.email, email_verified=user.email_verified, display_name=user.display_name)

    return app.test_client()


def test_the_token_claims_reach_current_user(service_each_api):
    service = service_each_api
    session = service.sign_up()
    r = get(service.config, "/whoami/claims", session_headers("cookie", service.project_id, session.access_token, session.refresh_token))
    assert r.json == expected_claims(service, session)


@pytest.mark.parametrize("way", WAYS)
def test_a_user_of_either_api_version_signs_in(service_each_api, way):
    service = service_each_api
    session = service.sign_up()
    headers = session_headers(way, service.project_id, session.access_token, session.refresh_token)
    r = get(service.config, "/whoami/kind", headers)
    assert r.json == {"id": session.user_id, "anonymous": False, "restricted": False}, service.api
    assert "Set-Cookie" not in r.headers


@pytest.mark.parametrize("way", ["stackauth_", "x-stack-auth"])
def test_a_header_session_is_refreshed_and_never_written_back_as_cookies(service_each_api, way):
    service = service_each_api
    session = service.sign_up()
    r = get(service.config, "/whoami", session_headers(way, service.project_id, None, session.refresh_token))
    assert r.json == {"id": session.user_id, "authenticated": True} and "Set-Cookie" not in r.headers


@pytest.mark.parametrize("way", ["cookie", "bearer", "stackauth_"])
def test_an_anonymous_2_8_session_is_signed_out_unless_the_app_opts_in(service_28, way):
    anonymous = sign_up_anonymously(service_28)
    headers = session_headers(way, service_28.project_id, anonymous["access_token"], anonymous["refresh_token"])
    r = get(service_28.config, "/whoami/kind", dict(headers))
    assert r.json == {"id": None, "anonymous": True, "restricted": False} and "Set-Cookie" not in r.headers
    r = get(service_28.config.with_(allow_anonymous=True), "/whoami/kind", dict(headers))
    assert r.json == {"id": anonymous["user_id"], "anonymous": True, "restricted": True}


def test_a_malformed_sdk_header_is_a_401_naming_the_expected_form(local_service):
    r = app_for(local_service.config).get("/whoami", headers={"authorization": "Bearer hexclave_"})
    assert r.status_code == 401 and r.json["error"] == MALFORMED_AUTHORIZATION
