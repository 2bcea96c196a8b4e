"""OAuth details of API 2.8 (backend 2.8.86) over HTTP: `client_id` with the branch, the public
client sentinel, the cross-domain handoff, the callback's answers, the refresh grant's fields,
and the OAuth records of config overrides (`auth.oauth.providers.<id>`,
`domains.trustedDomains.<id>`)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from authmw.dev import LocalService

from .conftest import Api, assert_known_error, unique_email
from .test_oauth_flow import REDIRECT_URI, start, submit_mock_page


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with LocalService(tmp_path_factory.mktemp("oauth-28"), quiet=True, api="2.8") as service:
        own = Api.of(service)
        own.set_config(oauth_providers=[{"id": "github", "type": "shared"}])
        yield own


def override(api: Api, level: str, value: dict[str, object]):
    return api.call(
        "PATCH", f"/internal/config/override/{level}", "admin", json={"config_override_string": json.dumps(value)}
    )


def test_client_id_with_the_branch_and_the_public_client_sentinel(api: Api) -> None:
    assert start(api, client_id=f"{api.project_id}#main").authorize.status_code == 307
    refused = start(api, client_id=f"{api.project_id}#other").authorize
    assert_known_error(refused, "INVALID_OAUTH_CLIENT_ID_OR_SECRET", 400)
    # the sentinel stands for "no key" only where the project does not require one
    required = start(api, client_secret="__stack_public_client__").authorize
    assert_known_error(required, "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", 401)
    assert override(api, "project", {"project.requirePublishableClientKey": False}).status_code == 200
    try:
        assert start(api, client_secret="__stack_public_client__").authorize.status_code == 307
    finally:
        assert override(api, "project", {"project.requirePublishableClientKey": True}).status_code == 200


def test_the_callback_answers_as_2_8(api: Api) -> None:
    flow = start(api)
    unknown = flow.browser.get("/api/v1/auth/oauth/callback/github", params={"state": "nope", "code": "x"})
    assert (unknown.status_code, unknown.text) == (400, "Invalid OAuth state. Please try signing in again.")
    inner_state = parse_qs(urlsplit(flow.authorize.headers["location"]).query)["state"][0]
    # another browser (no inner cookie): refused, and the cookie is deleted
    other = api.http.get("/api/v1/auth/oauth/callback/github", params={"state": inner_state, "code": "x"})
    assert other.status_code == 400 and other.text.startswith("Inner OAuth cookie not found.")
    assert other.headers["set-cookie"].startswith(f"stack-oauth-inner-{inner_state}=; Path=/; Expires=Thu, 01 Jan 1970")
    # a known error goes back to the app's callback, with the OAuth error pair and the code
    assert override(api, "branch", {"auth.allowSignUp": False}).status_code == 200
    try:
        back = submit_mock_page(flow.browser, flow.authorize.headers["location"], email=unique_email())
    finally:
        assert override(api, "branch", {"auth.allowSignUp": True}).status_code == 200
    assert back.status_code == 307
    target = urlsplit(back.headers["location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == REDIRECT_URI
    query = parse_qs(target.query)
    assert (query["error"], query["errorCode"]) == (["server_error"], ["SIGN_UP_NOT_ENABLED"])


def test_cross_domain_handoff_gives_the_same_session(api: Api) -> None:
    user = api.sign_up()
    verifier = secrets.token_urlsafe(40)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    body = {"redirect_uri": REDIRECT_URI, "state": "s1", "code_challenge": challenge, "code_challenge_method": "S256"}
    path = "/auth/oauth/cross-domain/authorize"
    without = api.call("POST", path, token=user["access_token"], json=body)
    assert (without.status_code, without.text) == (400, "Cross-domain auth handoff requires passing the current refresh token.")
    stolen = api.call("POST", path, token=user["access_token"], json=body, headers={"x-stack-refresh-token": "x" * 45})
    assert stolen.status_code == 401  # not this session's refresh token
    handed = api.call(
        "POST", path, token=user["access_token"], json=body, headers={"x-stack-refresh-token": user["refresh_token"]}
    )
    assert handed.status_code == 200, handed.text
    code = parse_qs(urlsplit(handed.json()["redirect_url"]).query)["code"][0]
    exchange = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT_URI,
        "client_id": api.project_id,
        "client_secret": api.keys.publishable_client_key,
    }
    wrong = api.http.post("/api/v1/auth/oauth/token", data={**exchange, "code_verifier": "not-it-" + verifier})
    assert_known_error(wrong, "INVALID_AUTHORIZATION_CODE", 400)
    # the code is single use: a new one for the control
    handed = api.call(
        "POST", path, token=user["access_token"], json=body, headers={"x-stack-refresh-token": user["refresh_token"]}
    )
    code = parse_qs(urlsplit(handed.json()["redirect_url"]).query)["code"][0]
    tokens = api.http.post("/api/v1/auth/oauth/token", data={**exchange, "code": code, "code_verifier": verifier})
    assert tokens.status_code == 200, tokens.text
    assert tokens.json()["refresh_token"] == user["refresh_token"]
    # the refresh grant answers the 2.8 fields too
    refreshed = api.http.post(
        "/api/v1/auth/oauth/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": user["refresh_token"],
            "client_id": api.project_id,
            "client_secret": api.keys.publishable_client_key,
        },
    )
    assert refreshed.status_code == 200 and refreshed.json()["after_callback_redirect_url"] is None


def test_oauth_records_of_config_overrides(api: Api) -> None:
    spotify = {"type": "spotify", "isShared": True, "allowSignIn": True, "allowConnectedAccounts": True}
    assert override(api, "environment", {"auth.oauth.providers.spotify": spotify}).status_code == 200
    assert start(api, provider="spotify").authorize.status_code == 307
    domain = {"domains.trustedDomains.app": {"baseUrl": "https://app.example.com", "handlerPath": "/auth"}}
    assert override(api, "environment", {**domain, "domains.allowLocalhost": False}).status_code == 200
    view = api.call("GET", "/internal/projects/current", "admin").json()["config"]
    assert view["domains"] == [{"domain": "https://app.example.com", "handler_path": "/auth"}]
    assert {p["id"] for p in view["oauth_providers"]} == {"github", "spotify"}
    rendered = json.loads(api.call("GET", "/internal/config", "admin").json()["config_string"])
    assert rendered["domains"]["trustedDomains"] == {"app": {"baseUrl": "https://app.example.com", "handlerPath": "/auth"}}
    assert rendered["auth"]["oauth"]["providers"]["spotify"]["isShared"] is True
    # removed by id
    assert override(api, "environment", {"domains.trustedDomains.app": None, "domains.allowLocalhost": True}).status_code == 200
    assert api.call("GET", "/internal/projects/current", "admin").json()["config"]["domains"] == []


def test_two_domain_records_may_name_one_domain(api: Api) -> None:
    """2.8.86 keeps trusted domains as records: two of them for one domain are both kept, each
    changed and removed by its own id, beside an entry set through the project's list."""
    api.set_config(domains=[{"domain": "https://listed.example.com", "handler_path": "/handler"}])
    records = {
        "domains.trustedDomains.first": {"baseUrl": "https://twice.example.com", "handlerPath": "/a"},
        "domains.trustedDomains.second": {"baseUrl": "https://twice.example.com", "handlerPath": "/b"},
    }
    try:
        assert override(api, "environment", records).status_code == 200
        assert override(api, "environment", {"domains.trustedDomains.first.handlerPath": "/c"}).status_code == 200
        view = api.call("GET", "/internal/projects/current", "admin").json()["config"]["domains"]
        assert view == [
            {"domain": "https://listed.example.com", "handler_path": "/handler"},
            {"domain": "https://twice.example.com", "handler_path": "/c"},
            {"domain": "https://twice.example.com", "handler_path": "/b"},
        ]
        rendered = json.loads(api.call("GET", "/internal/config", "admin").json()["config_string"])
        assert rendered["domains"]["trustedDomains"] == {
            "domain-0": {"baseUrl": "https://listed.example.com", "handlerPath": "/handler"},
            "first": {"baseUrl": "https://twice.example.com", "handlerPath": "/c"},
            "second": {"baseUrl": "https://twice.example.com", "handlerPath": "/b"},
        }
        assert override(api, "environment", {"domains.trustedDomains.second": None}).status_code == 200
        view = api.call("GET", "/internal/projects/current", "admin").json()["config"]["domains"]
        assert [d["handler_path"] for d in view] == ["/handler", "/c"]
    finally:
        api.set_config(domains=[])


def test_admin_view_round_trip_of_providers(api: Api) -> None:
    """The providers just read are accepted back (apple_bundle_ids too, which 2.8 lists only when set)."""
    read = api.call("GET", "/internal/projects/current", "admin").json()["config"]["oauth_providers"]
    assert all("apple_bundle_ids" not in p for p in read)
    back = [{k: v for k, v in p.items() if k != "provider_config_id"} | {"apple_bundle_ids": []} for p in read]
    written = api.call("PATCH", "/internal/projects/current", "admin", json={"config": {"oauth_providers": back}})
    assert written.status_code == 200, written.text


def test_native_apple_sign_in(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """The identity token is checked against the keys Apple publishes (here the test's own OIDC
    provider stands in for Apple: its keys, its issuer, its client id as the bundle id)."""
    from oidc_provider import OidcProvider

    from authmw_local.routes import oauth_apple_native

    path = "/auth/oauth/callback/apple/native"
    with OidcProvider(client_id="com.example.ios") as apple:
        monkeypatch.setattr(oauth_apple_native, "APPLE_KEYS_URL", f"{apple.issuer}/jwks")
        monkeypatch.setattr(oauth_apple_native, "APPLE_ISSUER", apple.issuer)
        assert_known_error(api.call("POST", path, json={"id_token": "x"}), "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED", 400)
        apple_setting = {"id": "apple", "type": "standard", "client_id": "web.id", "client_secret": "s"}
        api.set_config(oauth_providers=[{"id": "github", "type": "shared"}, apple_setting])
        assert_known_error(api.call("POST", path, json={"id_token": "x"}), "APPLE_BUNDLE_ID_NOT_CONFIGURED", 400)
        api.set_config(
            oauth_providers=[{"id": "github", "type": "shared"}, {**apple_setting, "apple_bundle_ids": ["com.example.ios"]}]
        )
        assert_known_error(api.call("POST", path, json={"id_token": "not-a-jwt"}), "INVALID_APPLE_CREDENTIALS", 400)
        email = unique_email()
        token = apple.id_token(_grant(email))  # an ID token as Apple's app sign-in gives one
        apple.forge_id_tokens = True
        forged = apple.id_token(_grant(email))
        apple.forge_id_tokens = False
        assert_known_error(api.call("POST", path, json={"id_token": forged}), "INVALID_APPLE_CREDENTIALS", 400)
        first = api.call("POST", path, json={"id_token": token})
        assert first.status_code == 200, first.text
        assert first.json()["is_new_user"] is True and set(first.json()) == {
            "access_token", "refresh_token", "user_id", "is_new_user"
        }  # fmt: skip
        again = api.call("POST", path, json={"id_token": token}).json()
        assert (again["is_new_user"], again["user_id"]) == (False, first.json()["user_id"])


def _grant(email: str) -> Any:
    from oidc_provider import Grant

    return Grant("apple-" + email, email, True, None, "openid email")


def test_a_providers_sign_in_and_connected_account_switches(api: Api) -> None:
    """2.8's `allowSignIn` / `allowConnectedAccounts` of a provider record are kept and rendered;
    sign-in off leaves the provider out of the project's views and refuses sign-in flows, while
    linking still works; connected accounts off refuses linking."""
    user = api.sign_up(unique_email())
    link = {"type": "link", "token": user["access_token"]}
    switches = {"allowSignIn": False, "allowConnectedAccounts": True}
    assert override(api, "environment", {"auth.oauth.providers.spotify": {"type": "spotify", "isShared": True, **switches}}).status_code == 200
    try:
        rendered = json.loads(api.call("GET", "/internal/config", "admin").json()["config_string"])
        assert rendered["auth"]["oauth"]["providers"]["spotify"] == {"type": "spotify", "isShared": True, **switches}
        admin = api.call("GET", "/internal/projects/current", "admin").json()["config"]
        assert "spotify" not in {p["id"] for p in admin["oauth_providers"]}
        assert {"id": "spotify"} not in admin["enabled_oauth_providers"]
        client = api.call("GET", "/projects/current").json()["config"]
        assert {"id": "spotify"} not in client["enabled_oauth_providers"]
        refused = start(api, provider="spotify").authorize
        assert_known_error(refused, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED", 400)
        assert start(api, provider="spotify", **link).authorize.status_code == 307

        # one field changed by a dotted key keeps the others
        assert override(api, "environment", {"auth.oauth.providers.spotify.allowConnectedAccounts": False}).status_code == 200
        spotify = json.loads(api.call("GET", "/internal/config", "admin").json()["config_string"])["auth"]["oauth"]["providers"]["spotify"]
        assert spotify == {"type": "spotify", "isShared": True, "allowSignIn": False, "allowConnectedAccounts": False}
        assert_known_error(start(api, provider="spotify", **link).authorize, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED", 400)
        token_path = f"/connected-accounts/{user['user_id']}/spotify/access-token"
        tokens_off = api.call("POST", token_path, "server", json={"scope": ""})
        assert_known_error(tokens_off, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED", 400)

        # the control: both on, the provider is listed and signs in again
        assert override(api, "environment", {"auth.oauth.providers.spotify.allowSignIn": True}).status_code == 200
        admin = api.call("GET", "/internal/projects/current", "admin").json()["config"]
        assert "spotify" in {p["id"] for p in admin["oauth_providers"]}
        assert all("allow_sign_in" not in p and "allow_connected_accounts" not in p for p in admin["oauth_providers"])
        assert start(api, provider="spotify").authorize.status_code == 307
        assert override(api, "environment", {"auth.oauth.providers.spotify.allowConnectedAccounts": True}).status_code == 200
        # (found now: the shared keys' own refusal, as without the switch)
        tokens_on = api.call("POST", token_path, "server", json={"scope": ""})
        assert_known_error(tokens_on, "OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS", 400)
    finally:
        assert override(api, "environment", {"auth.oauth.providers.spotify": None}).status_code == 200


def test_a_dotted_field_of_a_provider_that_does_not_exist_sets_nothing(api: Api) -> None:
    assert override(api, "environment", {"auth.oauth.providers.discord.clientId": "id-only"}).status_code == 200
    rendered = json.loads(api.call("GET", "/internal/config", "admin").json()["config_string"])
    assert "discord" not in rendered["auth"]["oauth"]["providers"]
    unknown = override(api, "environment", {"auth.oauth.providers.discord.colour": "blue"})
    assert unknown.status_code == 400 and "colour" in unknown.text


def test_a_provider_record_without_is_shared_uses_the_shared_keys(api: Api) -> None:
    """As 2.8.86's default: the branch level (which has no credentials) can add a provider."""
    record = {"type": "google", "allowSignIn": True, "allowConnectedAccounts": True}
    added = override(api, "branch", {"auth.oauth.providers.google": record})
    assert added.status_code == 200, added.text
    try:
        rendered = json.loads(api.call("GET", "/internal/config", "admin").json()["config_string"])
        assert rendered["auth"]["oauth"]["providers"]["google"] == {**record, "isShared": True}
        assert start(api, provider="google").authorize.status_code == 307
        # keys of its own need both of them, named in the override's terms
        own = {"type": "google", "isShared": False, "clientId": "id-only", "allowSignIn": True}
        refused = override(api, "environment", {"auth.oauth.providers.google": own})
        assert refused.status_code == 400 and "needs clientId and clientSecret" in refused.text
        assert "body.config" not in refused.text
        # the control: with both, the provider uses them
        complete = override(api, "environment", {"auth.oauth.providers.google": {**own, "clientSecret": "s"}})
        assert complete.status_code == 200, complete.text
        admin = api.call("GET", "/internal/projects/current", "admin").json()["config"]["oauth_providers"]
        assert {"id": "google", "type": "standard", "client_id": "id-only"}.items() <= next(p for p in admin if p["id"] == "google").items()
    finally:
        assert override(api, "environment", {"auth.oauth.providers.google": None}).status_code == 200
        assert override(api, "branch", {"auth.oauth.providers.google": None}).status_code == 200


def test_a_provider_record_may_be_named_other_than_its_type(api: Api) -> None:
    """2.8.86 names a provider by its config id (`auth.oauth.providers.<id>`), its `type` saying
    which provider it is: the authorize route and the user's accounts use the id, the project's
    views give the type as `id` and the config id as `provider_config_id`."""
    record = {"type": "spotify", "allowSignIn": True, "allowConnectedAccounts": True}
    assert override(api, "branch", {"auth.oauth.providers.my_music": record}).status_code == 200
    try:
        rendered = json.loads(api.call("GET", "/internal/config", "admin").json()["config_string"])
        assert rendered["auth"]["oauth"]["providers"]["my_music"] == {**record, "isShared": True}
        admin = api.call("GET", "/internal/projects/current", "admin").json()["config"]
        [mine] = [p for p in admin["oauth_providers"] if p["provider_config_id"] == "my_music"]
        assert (mine["id"], mine["type"]) == ("spotify", "shared") and "provider_type" not in mine
        assert {"id": "spotify"} in api.call("GET", "/projects/current").json()["config"]["enabled_oauth_providers"]

        email = unique_email()
        flow = start(api, provider="my_music")
        assert flow.authorize.status_code == 307, flow.authorize.text
        page = flow.browser.get(flow.authorize.headers["location"])
        assert "Sign in to Spotify" in page.text
        callback = submit_mock_page(flow.browser, flow.authorize.headers["location"], email=email)
        assert callback.status_code in (302, 303, 307), callback.text
        [user] = api.call("GET", "/users", "server", params={"query": email}).json()["items"]
        assert [(p["id"], p["email"]) for p in user["oauth_providers"]] == [("my_music", email)]
        # the control: the provider's type is not a config id of this project
        assert_known_error(start(api, provider="spotify").authorize, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED", 400)
        bad = override(api, "branch", {"auth.oauth.providers.My-Music": record})
        assert bad.status_code == 400 and "a provider's id is lower-case letters" in bad.text
    finally:
        assert override(api, "branch", {"auth.oauth.providers.my_music": None}).status_code == 200
