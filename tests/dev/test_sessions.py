"""Refresh, sign-out and server-minted sessions: service-api A3.4-A3.6 and 5.4.5."""

from __future__ import annotations

import base64

import httpx
import jwt
import pytest

from authmw_local.api_version import DEFAULT_API

from .conftest import Api, assert_known_error, unique_email


def oauth_refresh(api: Api, token: str | None, **overrides: str | None) -> httpx.Response:
    form = {
        "grant_type": "refresh_token",
        "refresh_token": token,
        "client_id": api.project_id,
        "client_secret": api.keys.publishable_client_key,
        **overrides,
    }
    return api.http.post(
        "/api/v1/auth/oauth/token",
        data={k: v for k, v in form.items() if v is not None},
        headers={"accept": "application/json"},
    )


def test_oauth_refresh_grant_returns_a_new_access_token_only(api: Api, user: dict) -> None:
    response = oauth_refresh(api, user["refresh_token"])
    assert response.status_code == 200
    body = response.json()
    # 2.8 adds the flow's after-callback URL (none for a password session), in both spellings
    assert set(body) == {"access_token", "token_type", "expires_in", "scope"} | (
        {"after_callback_redirect_url", "afterCallbackRedirectUrl"} if DEFAULT_API == "2.8" else set()
    )
    assert body.get("after_callback_redirect_url") is None  # no refresh token in the answer, above all
    assert (body["token_type"], body["expires_in"], body["scope"]) == ("Bearer", 3599, "legacy")
    assert response.headers["pragma"] == "no-cache"
    assert jwt.decode(body["access_token"], options={"verify_signature": False})["sub"] == user["user_id"]
    assert api.call("GET", "/users/me", token=body["access_token"]).status_code == 200


def test_oauth_refresh_accepts_json_and_basic_auth(api: Api, user: dict) -> None:
    as_json = api.http.post(
        "/api/v1/auth/oauth/token",
        json={
            "grant_type": "refresh_token",
            "refresh_token": user["refresh_token"],
            "client_id": api.project_id,
            "client_secret": api.keys.publishable_client_key,
        },
    )
    assert as_json.status_code == 200, as_json.text
    basic = base64.b64encode(f"{api.project_id}:{api.keys.publishable_client_key}".encode()).decode()
    with_basic = api.http.post(
        "/api/v1/auth/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": user["refresh_token"]},
        headers={"authorization": f"Basic {basic}"},
    )
    assert with_basic.status_code == 200, with_basic.text


@pytest.mark.parametrize("credentials", ["\u00e9\u00e9", "not base64!", "bm8gY29sb24="])
def test_a_malformed_basic_header_is_an_rfc6749_error(api: Api, user: dict, credentials: str) -> None:
    # The attack: a Basic header that is not even ASCII ("Basic \u00e9\u00e9") was a 500.
    response = api.http.post(
        "/api/v1/auth/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": user["refresh_token"]},
        headers={"authorization": f"Basic {credentials}".encode("latin-1")},
    )
    assert response.status_code == 400, response.text
    assert response.json() == {"error": "invalid_request", "error_description": "Invalid authorization header"}


def test_oauth_refresh_with_an_unknown_token_is_not_found_or_expired(api: Api) -> None:
    response = oauth_refresh(api, "0" * 45)
    assert_known_error(response, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401)


def test_oauth_refresh_with_bad_client_credentials(api: Api, user: dict) -> None:
    wrong_secret = oauth_refresh(api, user["refresh_token"], client_secret="pck_" + "0" * 45)
    body = assert_known_error(wrong_secret, "INVALID_OAUTH_CLIENT_ID_OR_SECRET", 400)
    assert body["details"] == {"client_id": api.project_id}
    unknown_project = oauth_refresh(api, user["refresh_token"], client_id="no-such-project")
    body = assert_known_error(unknown_project, "INVALID_OAUTH_CLIENT_ID_OR_SECRET", 400)
    assert body["details"] == {"client_id": "no-such-project"}
    server_key = oauth_refresh(api, user["refresh_token"], client_secret=api.keys.secret_server_key)
    assert_known_error(server_key, "INVALID_OAUTH_CLIENT_ID_OR_SECRET", 400)


def test_oauth_missing_parameters_are_rfc6749_errors(api: Api, api_27: Api) -> None:
    for service, names in ((api, ("refresh_token", "client_id")), (api_27, ("refresh_token", "client_id", "client_secret"))):
        for missing in names:
            response = oauth_refresh(service, "0" * 45, **{missing: None})
            assert response.status_code == 400
            assert "x-stack-known-error" not in response.headers
            assert response.json() == {
                "error": "invalid_request",
                "error_description": f"Missing parameter: `{missing}`",
            }
    # 2.8: the secret may be left out only where the project does not require its publishable key
    assert_known_error(oauth_refresh(api, "0" * 45, client_secret=None), "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", 401)


def test_oauth_unknown_grant_type_is_a_schema_error(api: Api) -> None:
    response = oauth_refresh(api, "0" * 45, grant_type="password")
    body = assert_known_error(response, "SCHEMA_ERROR", 400)
    assert "body.grant_type must be one of the following values: authorization_code, refresh_token" in body["error"]


def test_oauth_authorization_code_grant_rejects_unknown_codes(api: Api) -> None:
    response = oauth_refresh(
        api, None, grant_type="authorization_code", code="abc", redirect_uri="http://localhost/cb", code_verifier="v"
    )
    assert_known_error(response, "INVALID_AUTHORIZATION_CODE", 400)


def test_refresh_endpoint_returns_an_access_token(api: Api, user: dict) -> None:
    for tier in ("client", "server", "admin"):
        response = api.call(
            "POST", "/auth/sessions/current/refresh", tier, headers={"x-stack-refresh-token": user["refresh_token"]}
        )
        assert response.status_code == 200
        assert set(response.json()) == {"access_token"}


def test_refresh_endpoint_errors(api: Api) -> None:
    unknown = api.call("POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": "0" * 45})
    assert_known_error(unknown, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401)
    missing = api.call("POST", "/auth/sessions/current/refresh")
    body = assert_known_error(missing, "SCHEMA_ERROR", 400)
    assert body["error"].endswith("\n  - headers.x-stack-refresh-token must be defined")


def test_a_refresh_token_only_works_for_its_own_project(api: Api, internal_api: Api) -> None:
    other = internal_api.sign_up()
    response = api.call(
        "POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": other["refresh_token"]}
    )
    assert_known_error(response, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401)


@pytest.fixture
def user_27(api_27: Api) -> dict:
    email = unique_email()
    return {**api_27.sign_up(email), "email": email, "password": "correct horse"}


# Sign-out by the refresh token is API 2.7's (2.8 ends the access token's session:
# test_api_28_users.py).


def test_sign_out_deletes_the_refresh_token(api_27: Api, user_27: dict) -> None:
    api, user = api_27, user_27
    headers = {"x-stack-refresh-token": user["refresh_token"], "content-type": "application/json"}
    response = api.call("DELETE", "/auth/sessions/current", headers=headers, content=b"{}")
    assert response.status_code == 200
    assert response.json() == {"success": True}
    assert_known_error(oauth_refresh(api, user["refresh_token"]), "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401)
    refresh = api.call("POST", "/auth/sessions/current/refresh", headers=headers)
    assert_known_error(refresh, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401)
    again = api.call("DELETE", "/auth/sessions/current", headers=headers)
    assert_known_error(again, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401)


def test_sign_out_only_ends_that_session(api_27: Api, user_27: dict) -> None:
    api, user = api_27, user_27
    second = api.call(
        "POST", "/auth/password/sign-in", json={"email": user["email"], "password": user["password"]}
    ).json()
    ended = api.call("DELETE", "/auth/sessions/current", headers={"x-stack-refresh-token": user["refresh_token"]})
    assert ended.status_code == 200
    assert oauth_refresh(api, second["refresh_token"]).status_code == 200
    assert oauth_refresh(api, user["refresh_token"]).status_code == 401


def test_sign_out_without_refresh_token_is_a_schema_error(api_27: Api, user_27: dict) -> None:
    api, user = api_27, user_27
    response = api.call("DELETE", "/auth/sessions/current", token=user["access_token"])
    assert_known_error(response, "SCHEMA_ERROR", 400)


def test_server_mints_sessions_for_a_user(api: Api, user: dict) -> None:
    response = api.call("POST", "/auth/sessions", "server", json={"user_id": user["user_id"]})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"access_token", "refresh_token"}
    assert api.call("GET", "/users/me", token=body["access_token"]).json()["id"] == user["user_id"]
    assert oauth_refresh(api, body["refresh_token"]).status_code == 200


def test_server_session_accepts_me_and_an_expiry(api: Api, user: dict) -> None:
    response = api.call(
        "POST",
        "/auth/sessions",
        "admin",
        token=user["access_token"],
        json={"user_id": "me", "expires_in_millis": 60_000},
    )
    assert response.status_code == 200, response.text
    no_user = api.call("POST", "/auth/sessions", "server", json={"user_id": "me"})
    assert_known_error(no_user, "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)


def test_server_session_errors(api: Api) -> None:
    unknown_id = "00000000-0000-4000-8000-000000000000"
    unknown = api.call("POST", "/auth/sessions", "server", json={"user_id": unknown_id})
    body = assert_known_error(unknown, "USER_ID_DOES_NOT_EXIST", 400)
    assert body["details"] == {"user_id": unknown_id}
    too_long = api.call(
        "POST", "/auth/sessions", "server", json={"user_id": unknown_id, "expires_in_millis": 31_708_800_001}
    )
    body = assert_known_error(too_long, "SCHEMA_ERROR", 400)
    assert "body.expires_in_millis must be less than or equal to 31708800000" in body["error"]
    not_uuid = api.call("POST", "/auth/sessions", "server", json={"user_id": "bob"})
    assert "body.user_id must be a valid UUID" in assert_known_error(not_uuid, "SCHEMA_ERROR", 400)["error"]


def test_issuing_tokens_records_last_activity(api: Api, user: dict) -> None:
    before = api.call("GET", f"/users/{user['user_id']}", "server").json()["last_active_at_millis"]
    api.call("POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": user["refresh_token"]})
    after = api.call("GET", f"/users/{user['user_id']}", "server").json()["last_active_at_millis"]
    assert after >= before
