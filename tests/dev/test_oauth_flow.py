"""OAuth sign-in with the local mock provider: service-api A5.4.6 and flow 6.5."""

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
    """A service of its own: configured OAuth providers can be disabled but never removed.
    It answers as API 2.7, whose authorize rules these tests check (2.8's:
    test_oauth_authorize_2_8.py)."""
    with LocalService(tmp_path_factory.mktemp("oauth"), quiet=True, api="2.7") as service:
        own = Api.of(service)
        response = own.call(
            "PATCH",
            own.admin_project_path,
            "admin",
            json={
                "config": {
                    "oauth_providers": [
                        {"id": "github", "type": "shared", "enabled": True},
                        # on in the local project from the start; off here for the "not enabled" cases
                        {"id": "google", "type": "shared", "enabled": False},
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


def through_mock_provider(flow: Flow, email: str, **form: str) -> httpx.Response:
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
    return submit_mock_page(flow.browser, authorize.headers["location"], email=email, **form)


def submit_mock_page(browser: httpx.Client, page_url: str, **form: str) -> httpx.Response:
    """Submit the mock provider's form (Authorize unless action=deny), then follow its redirect
    to the service's callback, as a browser does; the browser sends the inner cookie."""
    query = parse_qs(urlsplit(page_url).query)
    fields = {"state": query["state"][0], "redirect_uri": query["redirect_uri"][0], "action": "authorize", **form}
    posted = browser.post(urlsplit(page_url).path, data=fields)
    assert posted.status_code == 303, posted.text
    return browser.get(posted.headers["location"])


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


def sign_in(
    api: Api, email: str, provider: str = "github", *, form: dict[str, str] | None = None, **extra: str
) -> dict:
    flow = start(api, provider, **extra)
    back = through_mock_provider(flow, email, **(form or {}))
    assert back.status_code == (303 if api.version == "2.8" else 307), back.text  # 2.8: 303 when finished
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


def test_a_private_address_signs_up_a_user_without_an_e_mail(api: Api) -> None:
    """With "Keep my address private" (as GitHub's private addresses) the provider account is
    the address's, but the user gets no e-mail; signing in again reaches that user. The control:
    the same address shared is the same provider account, so the same user, still without one
    (an address is only taken at sign-up)."""
    email = unique_email()
    first = sign_in(api, email, form={"private_email": "on"})
    assert first["is_new_user"] is True
    me = api.call("GET", "/users/me", token=first["access_token"]).json()
    assert (me["primary_email"], me["primary_email_verified"]) == (None, False)
    assert [(p["id"], p.get("email")) for p in me["oauth_providers"]] == [("github", None)]
    channels = api.call("GET", "/contact-channels?user_id=me", token=first["access_token"]).json()["items"]
    assert channels == []
    again = sign_in(api, email)
    assert again["is_new_user"] is False
    after = api.call("GET", "/users/me", token=again["access_token"]).json()
    assert (after["id"], after["primary_email"]) == (me["id"], None)


def test_authorization_codes_are_single_use_and_bound_to_the_verifier(api: Api) -> None:
    flow = start(api)
    back = through_mock_provider(flow, unique_email())
    code = parse_qs(urlsplit(back.headers["location"]).query)["code"][0]
    assert_known_error(exchange(api, code, "not-the-verifier"), "INVALID_AUTHORIZATION_CODE", 400)
    assert_known_error(exchange(api, code, flow.verifier), "INVALID_AUTHORIZATION_CODE", 400)  # used up


def test_the_exchange_must_name_the_redirect_uri_the_flow_started_with(api: Api) -> None:
    """As the real service: another redirect_uri at the exchange is refused, even a trusted one
    (an app behind a proxy that finishes on its internal origin meets this)."""
    flow = start(api)
    code = parse_qs(urlsplit(through_mock_provider(flow, unique_email()).headers["location"]).query)["code"][0]
    other = "http://localhost:8000/handler/oauth-callback"  # trusted too (localhost is allowed)
    assert_known_error(exchange(api, code, flow.verifier, redirect_uri=other), "REDIRECT_URL_NOT_WHITELISTED", 400)
    flow = start(api)  # control: the same redirect_uri signs in
    code = parse_qs(urlsplit(through_mock_provider(flow, unique_email()).headers["location"]).query)["code"][0]
    assert exchange(api, code, flow.verifier).status_code == 200


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


# -- the mock provider's page -------------------------------------------------------------


def _page_url(flow: Flow) -> str:
    assert flow.authorize.status_code == 307, flow.authorize.text
    return flow.authorize.headers["location"]


def test_mock_page_names_the_provider_and_offers_authorize_and_deny(api: Api) -> None:
    flow = start(api)
    page = flow.browser.get(_page_url(flow))
    assert page.status_code == 200
    assert "<h1>Sign in to GitHub</h1>" in page.text
    assert 'type="email" name="email"' in page.text
    assert ">Authorize</button>" in page.text and ">Deny</button>" in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]


@pytest.mark.parametrize(
    "hostile",
    [
        "javascript:alert(document.domain)",
        "https://evil.example/api/v1/auth/oauth/callback/github",
        "http://evil.example\\@localhost/api/v1/auth/oauth/callback/github",
        "",
    ],
)
def test_mock_page_only_returns_to_the_registered_redirect_uri(api: Api, hostile: str) -> None:
    flow = start(api)
    registered = parse_qs(urlsplit(_page_url(flow)).query)["redirect_uri"][0]
    inner_state = parse_qs(urlsplit(_page_url(flow)).query)["state"][0]
    page = flow.browser.get("/dev/oauth/github", params={"state": inner_state, "redirect_uri": hostile})
    assert page.status_code == 400
    assert "<form" not in page.text and "not the one registered" in page.text
    if hostile:
        assert hostile not in page.text and "javascript:" not in page.text
    posted = flow.browser.post(
        "/dev/oauth/github",
        data={"state": inner_state, "redirect_uri": hostile, "email": "a@b.co", "action": "authorize"},
    )
    assert posted.status_code == 400 and "location" not in posted.headers
    # the registered one still works afterwards
    ok = flow.browser.post(
        "/dev/oauth/github",
        data={"state": inner_state, "redirect_uri": registered, "email": "a@b.co", "action": "authorize"},
    )
    assert ok.status_code == 303 and ok.headers["location"].startswith(registered + "?")


def test_mock_page_refuses_unknown_state_and_another_provider(api: Api) -> None:
    browser = httpx.Client(base_url=api.url)
    unknown = browser.get("/dev/oauth/github", params={"state": "0" * 45, "redirect_uri": "x"})
    assert unknown.status_code == 400 and "unknown or has expired" in unknown.text
    flow = start(api)
    query = parse_qs(urlsplit(_page_url(flow)).query)
    other = flow.browser.get("/dev/oauth/gitlab", params={k: v[0] for k, v in query.items()})
    assert other.status_code == 400 and "<form" not in other.text


def test_deny_returns_access_denied_to_the_error_url(api: Api) -> None:
    flow = start(api, error_redirect_url="http://localhost:3000/handler/error")
    back = submit_mock_page(flow.browser, _page_url(flow), action="deny")
    assert back.status_code == 307
    target = urlsplit(back.headers["location"])
    assert target.path == "/handler/error"
    assert parse_qs(target.query)["errorCode"] == ["OAUTH_PROVIDER_ACCESS_DENIED"]


def test_deny_sends_error_access_denied_to_the_callback(api: Api) -> None:
    flow = start(api)
    posted = flow.browser.post(
        "/dev/oauth/github",
        data={**{k: v[0] for k, v in parse_qs(urlsplit(_page_url(flow)).query).items()}, "action": "deny"},
    )
    assert posted.status_code == 303
    query = parse_qs(urlsplit(posted.headers["location"]).query)
    assert query["error"] == ["access_denied"] and "code" not in query


def test_a_bad_email_shows_the_form_again(api: Api) -> None:
    flow = start(api)
    query = {k: v[0] for k, v in parse_qs(urlsplit(_page_url(flow)).query).items()}
    posted = flow.browser.post("/dev/oauth/github", data={**query, "email": "not-an-address", "action": "authorize"})
    assert posted.status_code == 400 and "Enter a valid e-mail address." in posted.text and "<form" in posted.text


def test_provider_account_id_signs_the_same_person_in_under_another_address(api: Api) -> None:
    account = f"acct-{secrets.token_hex(6)}"
    first = sign_in(api, unique_email(), form={"account_id": account})
    assert first["is_new_user"] is True
    again = sign_in(api, unique_email(), form={"account_id": account})
    assert again["is_new_user"] is False
    me = api.call("GET", "/users/me", token=first["access_token"]).json()
    assert api.call("GET", "/users/me", token=again["access_token"]).json()["id"] == me["id"]
    assert [p["account_id"] for p in me["oauth_providers"]] == [account]


def test_a_provider_code_is_single_use_and_bound_to_its_flow(api: Api) -> None:
    flow = start(api)
    page = _page_url(flow)
    query = {k: v[0] for k, v in parse_qs(urlsplit(page).query).items()}
    posted = flow.browser.post("/dev/oauth/github", data={**query, "email": unique_email(), "action": "authorize"})
    callback = posted.headers["location"]
    assert flow.browser.get(callback).status_code == 307
    # a second flow cannot use the first flow's provider code
    other = start(api)
    other_state = parse_qs(urlsplit(_page_url(other)).query)["state"][0]
    code = parse_qs(urlsplit(callback).query)["code"][0]
    stolen = other.browser.get(urlsplit(callback).path, params={"state": other_state, "code": code})
    assert stolen.status_code == 400 and "invalid grant" in stolen.text
    made_up = start(api)
    made_up_state = parse_qs(urlsplit(_page_url(made_up)).query)["state"][0]
    forged = made_up.browser.get(urlsplit(callback).path, params={"state": made_up_state, "code": "a@b.co"})
    assert forged.status_code == 400 and "invalid grant" in forged.text


# -- linking: the account is attached by the app that holds the PKCE verifier (issue 26) --


def github_accounts(api: Api, access_token: str) -> list[str]:
    me = api.call("GET", "/users/me", token=access_token).json()
    return [p["account_id"] for p in me["oauth_providers"] if p["id"] == "github"]


def code_of(back: httpx.Response) -> str:
    assert back.status_code in (303, 307), back.text  # 2.8 303, 2.7 307 (checked in sign_in)
    return parse_qs(urlsplit(back.headers["location"]).query)["code"][0]


def test_a_link_url_built_by_an_attacker_attaches_nothing(api: Api) -> None:
    """Link CSRF: the attacker builds a link URL with their own access token, state and PKCE
    verifier and gets a victim to open it. The victim authorizes at the provider and lands on
    the app's callback page, which holds no verifier for the attacker's state. The victim's
    provider account must not land on the attacker's user."""
    attacker = api.sign_up()
    victim_account = f"victim-{secrets.token_hex(6)}"
    attack = start(api, type="link", token=attacker["access_token"])  # opened in the victim's browser
    code = code_of(through_mock_provider(attack, unique_email(), account_id=victim_account))
    assert github_accounts(api, attacker["access_token"]) == []
    # an app holding some other verifier (the victim's own app, a replaying script) gets nothing either
    assert_known_error(exchange(api, code, secrets.token_urlsafe(32)), "INVALID_AUTHORIZATION_CODE", 400)
    assert github_accounts(api, attacker["access_token"]) == []
    # the victim's next "Sign in with GitHub" is the victim's own new account
    victim = sign_in(api, unique_email(), form={"account_id": victim_account})
    assert victim["is_new_user"] is True
    assert tokens_user(api, victim) != attacker["user_id"]
    assert github_accounts(api, attacker["access_token"]) == []


def test_the_app_that_started_a_link_attaches_the_account_at_the_exchange(api: Api) -> None:
    user = api.sign_up()
    account = f"acct-{secrets.token_hex(6)}"
    flow = start(api, type="link", token=user["access_token"], after_callback_redirect_url="/settings")
    code = code_of(through_mock_provider(flow, unique_email(), account_id=account))
    assert github_accounts(api, user["access_token"]) == []  # not before the app exchanges the code
    response = exchange(api, code, flow.verifier)
    assert response.status_code == 200, response.text
    tokens = response.json()
    assert (tokens["is_new_user"], tokens["after_callback_redirect_url"]) == (False, "/settings")
    assert tokens_user(api, tokens) == user["user_id"]
    assert github_accounts(api, user["access_token"]) == [account]
    # and the provider account now signs that user in
    assert tokens_user(api, sign_in(api, unique_email(), form={"account_id": account})) == user["user_id"]


def test_a_link_is_checked_again_at_the_exchange(api: Api) -> None:
    """Two link flows for one provider account pass their callbacks; the first exchange wins."""
    account = f"acct-{secrets.token_hex(6)}"
    first_user, second_user = api.sign_up(), api.sign_up()
    first = start(api, type="link", token=first_user["access_token"])
    second = start(api, type="link", token=second_user["access_token"])
    first_code = code_of(through_mock_provider(first, unique_email(), account_id=account))
    second_code = code_of(through_mock_provider(second, unique_email(), account_id=account))
    assert exchange(api, first_code, first.verifier).status_code == 200
    late = exchange(api, second_code, second.verifier)
    assert_known_error(late, "OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER", 409)
    assert github_accounts(api, second_user["access_token"]) == []
    assert github_accounts(api, first_user["access_token"]) == [account]


def test_a_link_of_a_totp_user_stays_attached_while_the_second_factor_is_asked(api: Api) -> None:
    user = api.sign_up()
    secret = base64.b64encode(secrets.token_bytes(20)).decode()
    api.call("PATCH", "/users/me", token=user["access_token"], json={"totp_secret_base64": secret})
    account = f"acct-{secrets.token_hex(6)}"
    flow = start(api, type="link", token=user["access_token"])
    code = code_of(through_mock_provider(flow, unique_email(), account_id=account))
    body = assert_known_error(exchange(api, code, flow.verifier), "MULTI_FACTOR_AUTHENTICATION_REQUIRED", 400)
    assert len(body["details"]["attempt_code"]) == 45
    assert github_accounts(api, user["access_token"]) == [account]
