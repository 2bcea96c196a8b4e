"""OAuth with an outside OpenID Connect provider (outside_oauth.py): the local service as the
OAuth client of a real provider, here a small OIDC provider running in the test process
(tests/oidc_provider.py), in API 2.8 and 2.7; connected-account tokens and their refresh; the
checks of the provider's answers (ID token signature and issuer), with controls."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from oidc_provider import OidcProvider

from authmw.dev import LocalService

from . import test_oauth_flow as mock_flow
from .conftest import Api, assert_known_error, unique_email

REDIRECT_URI = "http://localhost:3000/handler/oauth-callback"
ERROR_URI = "http://localhost:3000/handler/oauth-error"


@pytest.fixture(scope="module")
def provider() -> Iterator[OidcProvider]:
    with OidcProvider() as running:
        yield running


@pytest.fixture(scope="module", params=["2.8", "2.7"])
def api(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, provider: OidcProvider) -> Iterator[Api]:
    """A service per version whose `google` provider is the test's OIDC provider."""
    with LocalService(tmp_path_factory.mktemp("outside-oauth"), quiet=True, api=request.param) as service:
        own = Api.of(service)
        response = own.call(
            "PATCH",
            own.admin_project_path,
            "admin",
            json={"config": {"oauth_providers": [provider_setting(provider), {"id": "github", "type": "shared", "enabled": True}]}},
        )
        assert response.status_code == 200, response.text
        yield own


def provider_setting(provider: OidcProvider, **extra: object) -> dict[str, object]:
    return {
        "id": "google",
        "type": "standard",
        "enabled": True,
        "client_id": provider.client_id,
        "client_secret": provider.client_secret,
        "oidc_issuer_url": provider.issuer,
        **extra,
    }


@dataclass
class Flow:
    browser: httpx.Client  # a cookie jar per flow, as a browser has
    verifier: str
    state: str
    location: str  # where the service sent the browser


def start(api: Api, **extra: str) -> Flow:
    """Open the authorize URL of the project's `google` (the test's provider) in a fresh "browser"."""
    flow = mock_flow.start(api, "google", **extra)
    assert flow.authorize.status_code == 307, flow.authorize.text
    return Flow(flow.browser, flow.verifier, flow.state, flow.authorize.headers["location"])


def provider_answer(flow: Flow, provider: OidcProvider, email: str, decision: str = "allow") -> str:
    """Sign in at the provider's page: the address it sends the browser back to."""
    assert flow.location.startswith(provider.issuer + "/authorize?")
    query = {k: v[0] for k, v in parse_qs(urlsplit(flow.location).query).items()}
    with httpx.Client() as outside:
        page = outside.get(flow.location)
        assert page.status_code == 200 and "<form" in page.text
        answer = outside.post(f"{provider.issuer}/authorize", data={**query, "login": email, "decision": decision})
    assert answer.status_code == 303
    return str(answer.headers["location"])


def at_provider(flow: Flow, provider: OidcProvider, email: str, decision: str = "allow") -> httpx.Response:
    """Sign in at the provider's page and follow its redirect back to the service's callback."""
    return flow.browser.get(provider_answer(flow, provider, email, decision))


def finished(api: Api) -> int:
    """The status of the callback's redirect to the app at the end of a flow: 2.8 303, 2.7 307."""
    return 303 if api.version == "2.8" else 307


def exchange(api: Api, code: str, verifier: str) -> httpx.Response:
    return api.http.post(
        "/api/v1/auth/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT_URI,
            "code_verifier": verifier,
            "client_id": api.project_id,
            "client_secret": api.keys.publishable_client_key,
        },
    )


def sign_in(api: Api, provider: OidcProvider, email: str, **extra: str) -> dict:
    flow = start(api, **extra)
    back = at_provider(flow, provider, email)
    assert back.status_code == finished(api), back.text
    target = urlsplit(back.headers["location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == REDIRECT_URI, back.headers["location"]
    query = parse_qs(target.query)
    assert query["state"] == [flow.state]
    response = exchange(api, query["code"][0], flow.verifier)
    assert response.status_code == 200, response.text
    return response.json()


def test_sign_in_through_the_outside_provider(api: Api, provider: OidcProvider) -> None:
    email = unique_email()
    flow = start(api, provider_scope="extra.read")
    asked = {k: v[0] for k, v in parse_qs(urlsplit(flow.location).query).items()}
    # the service is the provider's OAuth client: its callback, a fresh state, PKCE S256, the scopes
    assert asked["client_id"] == provider.client_id
    assert asked["redirect_uri"] == f"{api.url}/api/v1/auth/oauth/callback/google"
    assert asked["code_challenge_method"] == "S256" and len(asked["code_challenge"]) == 43
    assert asked["state"] != flow.state and len(asked["state"]) >= 32
    assert asked["scope"].split() == ["openid", "email", "profile", "extra.read"]
    back = at_provider(flow, provider, email)
    assert back.status_code == finished(api), back.text
    code = parse_qs(urlsplit(back.headers["location"]).query)["code"][0]
    # the code exchange at the provider carried the verifier the provider checked
    exchange_at_provider = provider.token_requests[-1]
    assert exchange_at_provider["grant_type"] == "authorization_code"
    challenge = base64.urlsafe_b64encode(hashlib.sha256(exchange_at_provider["code_verifier"].encode()).digest())
    assert challenge.rstrip(b"=").decode() == asked["code_challenge"]
    tokens = exchange(api, code, flow.verifier)
    assert tokens.status_code == 200, tokens.text
    assert tokens.json()["is_new_user"] is True
    me = api.call("GET", "/users/me", token=tokens.json()["access_token"]).json()
    assert me["primary_email"] == email and me["primary_email_verified"] is True
    assert me["display_name"] == email.split("@")[0].title()
    assert [(p["id"], p["email"]) for p in me["oauth_providers"]] == [("google", email)]
    # the same provider account signs the same user in again
    again = sign_in(api, provider, email)
    assert again["is_new_user"] is False
    assert api.call("GET", "/users/me", token=again["access_token"]).json()["id"] == me["id"]


def test_connected_account_tokens_are_the_providers_and_are_refreshed(api: Api, provider: OidcProvider) -> None:
    signed_in = sign_in(api, provider, unique_email(), provider_scope="extra.read")
    path = "/connected-accounts/me/google/access-token"
    first = api.call("POST", path, token=signed_in["access_token"], json={"scope": "openid extra.read"})
    assert first.status_code == 201, first.text
    token = first.json()["access_token"]
    assert httpx.get(f"{provider.issuer}/userinfo", headers={"authorization": f"Bearer {token}"}).status_code == 200
    # a scope the user never granted
    more = api.call("POST", path, token=signed_in["access_token"], json={"scope": "calendar"})
    assert_known_error(more, "OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE", 400)
    # revoked at the provider: a new one, got with the refresh token
    provider.revoke_access_token(token)
    second = api.call("POST", path, token=signed_in["access_token"], json={"scope": "openid"})
    assert second.status_code == 201, second.text
    renewed = second.json()["access_token"]
    assert renewed != token
    assert provider.token_requests[-1]["grant_type"] == "refresh_token"
    assert httpx.get(f"{provider.issuer}/userinfo", headers={"authorization": f"Bearer {renewed}"}).status_code == 200
    # a provider that is down keeps the refresh token (it works once the provider is back)
    provider.revoke_access_token(renewed)
    provider.fail_next_token("temporarily_unavailable", 503)
    down = api.call("POST", path, token=signed_in["access_token"], json={"scope": "openid"})
    assert_known_error(down, "OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE", 503)
    back = api.call("POST", path, token=signed_in["access_token"], json={"scope": "openid"})
    assert back.status_code == 201, back.text
    # the whole grant revoked: the user must authorize again
    provider.revoke_grant(back.json()["access_token"])
    gone = api.call("POST", path, token=signed_in["access_token"], json={"scope": "openid"})
    assert_known_error(gone, "OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE", 400)


def test_a_forged_or_foreign_id_token_is_refused(api: Api, provider: OidcProvider) -> None:
    for change in ({"forge_id_tokens": True}, {"claims_override": {"iss": "https://attacker.example"}},
                   {"claims_override": {"aud": "another-client"}}):  # fmt: skip
        email = unique_email()
        for name, value in change.items():
            setattr(provider, name, value)
        try:
            flow = start(api, error_redirect_uri=ERROR_URI)
            back = at_provider(flow, provider, email)
        finally:
            provider.forge_id_tokens, provider.claims_override = False, {}
        assert back.status_code == 400, (change, back.text)
        assert "refused the sign-in" in back.text and "ID token" in back.text
        assert "code=" not in back.headers.get("location", "")
    # control: the same flow with an honest provider signs in
    assert sign_in(api, provider, unique_email())["is_new_user"] is True


def redirected_error(api: Api, back: httpx.Response) -> tuple[str, dict[str, object]]:
    """The known error a callback sent the browser away with: 2.8 to the app's callback (it is
    trusted), 2.7 to the flow's error URL."""
    assert back.status_code == 307, back.text
    target = urlsplit(back.headers["location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == (REDIRECT_URI if api.version == "2.8" else ERROR_URI)
    query = parse_qs(target.query)
    return query["errorCode"][0], json.loads(query["details"][0])


def test_denied_at_the_provider(api: Api, provider: OidcProvider) -> None:
    flow = start(api, error_redirect_uri=ERROR_URI)
    back = at_provider(flow, provider, unique_email(), decision="deny")
    assert redirected_error(api, back)[0] == "OAUTH_PROVIDER_ACCESS_DENIED"


def test_a_provider_down_at_the_code_exchange(api: Api, provider: OidcProvider) -> None:
    flow = start(api, error_redirect_uri=ERROR_URI)
    provider.fail_next_token("server_error", 500)
    back = at_provider(flow, provider, unique_email())
    assert redirected_error(api, back)[0] == "OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE"


def test_unverified_address_at_the_provider_does_not_merge(api: Api, provider: OidcProvider) -> None:
    """An account with a verified sign-in address is not joined by a provider account whose
    provider did not verify the same address (service-api B10: link_method)."""
    if api.version == "2.7":
        pytest.skip("2.7 never merges OAuth sign-ups by e-mail (test_oauth_email_merge.py covers it)")
    email = unique_email()
    user = api.call(
        "POST", "/users", "server", json={"primary_email": email, "primary_email_verified": True, "primary_email_auth_enabled": True}
    )
    assert user.status_code == 201, user.text
    provider.email_verified = False
    try:
        flow = start(api, error_redirect_uri=ERROR_URI)
        back = at_provider(flow, provider, email)
    finally:
        provider.email_verified = True
    code, details = redirected_error(api, back)
    assert code == "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE"
    assert details == {"type": "email", "contact_channel_value": email, "would_work_if_email_was_verified": False}
    # control: a provider that verified the address joins the existing user
    joined = sign_in(api, provider, email)
    assert api.call("GET", "/users/me", token=joined["access_token"]).json()["id"] == user.json()["id"]


def test_settings_of_outside_providers_are_checked(api: Api, provider: OidcProvider) -> None:
    def update(*providers: dict[str, object]) -> httpx.Response:
        return api.call("PATCH", api.admin_project_path, "admin", json={"config": {"oauth_providers": list(providers)}})

    shared = update({"id": "google", "type": "shared", "enabled": True, "oidc_issuer_url": provider.issuer})
    assert_known_error(shared, "SCHEMA_ERROR", 400)
    assert "need type 'standard'" in shared.text
    own_keys = {k: v for k, v in provider_setting(provider).items() if k != "oidc_issuer_url"}
    unknown = update({**own_keys, "id": "x", "real_provider": True})
    assert unknown.status_code == 400 and "oidc_issuer_url" in unknown.text
    # control: the setting of the fixture is accepted, and read back
    assert update(provider_setting(provider), {"id": "github", "type": "shared", "enabled": True}).status_code == 200
    view = api.call("GET", api.admin_project_path, "admin").json()
    google = next(p for p in view["config"]["oauth_providers"] if p["id"] == "google")
    assert google["oidc_issuer_url"] == provider.issuer


def test_the_admin_tier_configures_an_outside_provider(api: Api, provider: OidcProvider) -> None:
    """authmw's AdminApp writes and reads the local settings of an outside provider."""
    from authmw import AdminApp, AuthConfig
    from authmw.models import AdminOAuthProvider

    assert api.running is not None
    with AdminApp(AuthConfig.from_env_file(api.running.env_file)) as admin:
        google = AdminOAuthProvider(
            id="google",
            type="standard",
            client_id=provider.client_id,
            client_secret=provider.client_secret,
            oidc_issuer_url=provider.issuer,
        )
        github = AdminOAuthProvider(id="github", type="shared")
        project = admin.update_project(config={"oauth_providers": [google, github]})
        read = next(p for p in project.config.oauth_providers if p.id == "google")
        assert (read.type, read.oidc_issuer_url, read.client_id) == ("standard", provider.issuer, provider.client_id)
    # and a sign-in goes to that provider
    assert sign_in(api, provider, unique_email())["is_new_user"] is True


def test_a_provider_named_other_than_its_type_comes_back_to_its_types_callback(tmp_path: Path) -> None:
    """An outside provider is given the callback address of its type, as 2.8.86 gives it (the
    address registered at the provider), whatever its config id: `work_google` of type google
    comes back to `.../callback/google`, and its flow finishes as `work_google`. (2.8.86 then
    looks the path's name up as a config id: a project without a `google` fails there.)"""
    with (
        OidcProvider(client_id="google", client_secret="MOCK-SERVER-SECRET") as shared,
        LocalService(tmp_path, quiet=True, api="2.8", shared_oauth_server=shared.issuer) as service,
    ):
        api = Api.of(service)
        record = {"type": "google", "allowSignIn": True, "allowConnectedAccounts": True}
        override = {"config_override_string": json.dumps({"auth.oauth.providers.work_google": record})}
        assert api.call("PATCH", "/internal/config/override/branch", "admin", json=override).status_code == 200

        def begin() -> Flow:
            started = mock_flow.start(api, "work_google")
            assert started.authorize.status_code == 307, started.authorize.text
            return Flow(started.browser, started.verifier, started.state, started.authorize.headers["location"])

        flow = begin()
        asked = parse_qs(urlsplit(flow.location).query)
        assert asked["redirect_uri"] == [f"{api.url}/api/v1/auth/oauth/callback/google"]
        assert asked["client_id"] == ["google"]
        back = flow.browser.get(provider_answer(flow, shared, unique_email()))
        assert back.status_code == 303, back.text
        tokens = exchange(api, parse_qs(urlsplit(back.headers["location"]).query)["code"][0], flow.verifier)
        assert tokens.status_code == 200, tokens.text
        token = tokens.json()["access_token"]
        me = api.call("GET", "/users/me", token=token).json()
        assert [p["id"] for p in me["oauth_providers"]] == ["work_google"]
        [link] = api.call("GET", "/oauth-providers", token=token, params={"user_id": "me"}).json()["items"]
        assert (link["provider_config_id"], link["type"]) == ("work_google", "google")
        # the control: the provider's answer brought to the callback of another name is refused
        stray = begin()
        answer = provider_answer(stray, shared, unique_email())
        elsewhere = stray.browser.get(answer.replace("/callback/google?", "/callback/work_google?"))
        assert (elsewhere.status_code, elsewhere.text) == (
            400,
            "Inner OAuth callback failed due to invalid grant. Please try again.",
        )
