"""OAuth sign-in with the local mock provider: contract 5.4.6 and flow 6.5."""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from authmw.dev import LocalService

from .conftest import Api, assert_known_error, unique_email

REDIRECT_URI = "http://localhost:3000/handler/oauth-callback"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """A service of its own: configured OAuth providers can be disabled but never removed."""
    with LocalService(tmp_path_factory.mktemp("oauth"), quiet=True) as service:
        own = Api.of(service)
        response = own.call(
            "PATCH",
            "/projects/current",
            "admin",
            json={
                "config": {
                    "oauth_providers": [
                        {"id": "github", "type": "shared", "enabled": True},
                        {"id": "gitlab", "type": "standard", "enabled": True, "client_id": "id", "client_secret": "s"},
                    ]
                }
            },
        )
        assert response.status_code == 200, response.text
        yield own


@dataclass
class Flow:
    browser: httpx.Client  # its own cookie jar, like a browser
    authorize: httpx.Response
    verifier: str
    state: str


def start(api: Api, provider: str = "github", **extra: str) -> Flow:
    """Open the authorize URL in a fresh "browser"."""
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    state = secrets.token_urlsafe(8)
    params = {
        "client_id": api.project_id,
        "client_secret": api.keys.publishable_client_key,
        "redirect_uri": REDIRECT_URI + "#fragment",
        "scope": "legacy",
        "state": state,
        "grant_type": "authorization_code",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "response_type": "code",
        "type": "authenticate",
        **extra,
    }
    browser = httpx.Client(base_url=api.url)
    response = browser.get(f"/api/v1/auth/oauth/authorize/{provider}", params=params)
    return Flow(browser, response, verifier, state)


def through_mock_provider(flow: Flow, email: str) -> httpx.Response:
    authorize = flow.authorize
    assert authorize.status_code == 307, authorize.text
    mock_page = urlsplit(authorize.headers["location"])
    assert mock_page.path.startswith("/dev/oauth/")
    query = parse_qs(mock_page.query)
    inner_state = query["state"][0]
    assert f"stack-oauth-inner-{inner_state}" in authorize.headers["set-cookie"]
    assert "HttpOnly" in authorize.headers["set-cookie"]
    page = flow.browser.get(authorize.headers["location"])
    assert page.status_code == 200 and "<form" in page.text
    # what submitting the mock provider's form does; the browser sends the inner cookie
    return flow.browser.get(query["redirect_uri"][0], params={"state": inner_state, "code": email})


def exchange(api: Api, code: str, verifier: str, redirect_uri: str = REDIRECT_URI) -> httpx.Response:
    return api.http.post(
        "/api/v1/auth/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": verifier,
            "client_id": api.project_id,
            "client_secret": api.keys.publishable_client_key,
        },
    )


def sign_in(api: Api, email: str, provider: str = "github", **extra: str) -> dict:
    flow = start(api, provider, **extra)
    back = through_mock_provider(flow, email)
    assert back.status_code == 307, back.text
    target = urlsplit(back.headers["location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == REDIRECT_URI
    query = parse_qs(target.query)
    assert query["state"] == [flow.state]
    response = exchange(api, query["code"][0], flow.verifier)
    assert response.status_code == 200, response.text
    return response.json()


def test_first_sign_in_creates_the_user_then_signs_in_again(api: Api) -> None:
    email = unique_email()
    first = sign_in(api, email)
    assert set(first) == {
        "access_token", "token_type", "expires_in", "refresh_token", "scope", "is_new_user", "newUser",
        "after_callback_redirect_url", "afterCallbackRedirectUrl",
    }  # fmt: skip
    assert (first["is_new_user"], first["newUser"], first["token_type"], first["scope"]) == (
        True,
        True,
        "Bearer",
        "legacy",
    )
    me = api.call("GET", "/users/me", token=first["access_token"]).json()
    assert me["primary_email"] == email and me["primary_email_verified"] is True
    assert [p["id"] for p in me["oauth_providers"]] == ["github"]
    second = sign_in(api, email)
    assert second["is_new_user"] is False
    assert api.call("GET", "/users/me", token=second["access_token"]).json()["id"] == me["id"]


def test_authorization_codes_are_single_use_and_bound_to_the_verifier(api: Api) -> None:
    flow = start(api)
    back = through_mock_provider(flow, unique_email())
    code = parse_qs(urlsplit(back.headers["location"]).query)["code"][0]
    assert_known_error(exchange(api, code, "not-the-verifier"), "INVALID_AUTHORIZATION_CODE", 400)
    assert_known_error(exchange(api, code, flow.verifier), "INVALID_AUTHORIZATION_CODE", 400)  # used up


def test_callback_without_the_inner_cookie_is_refused(api: Api) -> None:
    flow = start(api)
    inner_state = parse_qs(urlsplit(flow.authorize.headers["location"]).query)["state"][0]
    other_browser = httpx.Client(base_url=api.url)
    response = other_browser.get("/api/v1/auth/oauth/callback/github", params={"state": inner_state, "code": "a@b.co"})
    assert response.status_code == 400
    assert response.text.startswith("OAuth cookie not found.")


def test_authorize_errors(api: Api) -> None:
    disabled = start(api, provider="google").authorize
    assert_known_error(disabled, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED", 400)
    wrong_key = start(api, client_secret="pck_wrong").authorize
    assert_known_error(wrong_key, "INVALID_PUBLISHABLE_CLIENT_KEY", 401)
    unknown = start(api, client_id="no-such-project").authorize
    assert_known_error(unknown, "INVALID_OAUTH_CLIENT_ID_OR_SECRET", 400)
    extra = start(api, unexpected="1").authorize
    assert "query contains unknown properties: unexpected" in assert_known_error(extra, "SCHEMA_ERROR", 400)["error"]


def test_callback_errors_go_to_a_trusted_error_url(api: Api) -> None:
    flow = start(
        api, redirect_uri="https://untrusted.example/cb", error_redirect_uri="http://localhost:3000/handler/error"
    )
    back = through_mock_provider(flow, unique_email())
    assert back.status_code == 307
    target = urlsplit(back.headers["location"])
    assert target.path == "/handler/error"
    query = parse_qs(target.query)
    assert query["errorCode"] == ["REDIRECT_URL_NOT_WHITELISTED"] and query["details"] == ["{}"]


def test_connected_account_tokens_need_own_keys_and_granted_scopes(api: Api) -> None:
    email = unique_email()
    tokens = sign_in(api, email, "gitlab")

    def connected(provider: str, scope: str = ""):
        return api.call(
            "POST",
            f"/connected-accounts/me/{provider}/access-token",
            token=tokens["access_token"],
            json={"scope": scope} if scope else {},
        )

    first = connected("gitlab")
    assert first.status_code == 201 and first.json()["access_token"].startswith("mock_gitlab_")
    assert_known_error(connected("gitlab", "read_repository"), "OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE", 400)
    assert_known_error(connected("github"), "OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS", 400)
    assert_known_error(connected("google"), "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED", 400)

    # the link flow asks the provider for more scopes
    sign_in(api, email, "gitlab", type="link", token=tokens["access_token"], provider_scope="read_repository")
    assert connected("gitlab", "read_repository").status_code == 201

    other = api.sign_up()
    not_connected = api.call("POST", "/connected-accounts/me/gitlab/access-token", token=other["access_token"], json={})
    assert_known_error(not_connected, "OAUTH_CONNECTION_NOT_CONNECTED_TO_USER", 400)
    someone_else = api.call(
        "POST",
        f"/connected-accounts/{tokens_user(api, tokens)}/gitlab/access-token",
        token=other["access_token"],
        json={},
    )
    assert (someone_else.status_code, someone_else.text) == (403, "Client can only access its own connected accounts")


def tokens_user(api: Api, tokens: dict) -> str:
    return api.call("GET", "/users/me", token=tokens["access_token"]).json()["id"]
