"""OAuth authorize as API 2.8 answers it (service-api B, sections 14.2 and 14.3), beside 2.7."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from authmw.dev import LocalService, sign_in_at_mock_provider
from authmw_local.urls import trusted_redirect_2_8

from .conftest import Api, assert_known_error, unique_email
from .test_oauth_flow import (
    REDIRECT_URI,
    code_of,
    exchange,
    sign_in,
    start,
    submit_mock_page,
    through_mock_provider,
)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """A service answering as 2.8 (its local project has GitHub on)."""
    with LocalService(tmp_path_factory.mktemp("oauth-2-8"), quiet=True, api="2.8") as service:
        yield Api.of(service)


@pytest.fixture(scope="module")
def api_2_7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with LocalService(tmp_path_factory.mktemp("oauth-2-7"), quiet=True, api="2.7") as service:
        yield Api.of(service)


@contextmanager
def domains(api: Api, *entries: tuple[str, str]) -> Iterator[None]:
    """Only these trusted domains (no localhost) while the block runs."""
    api.set_config(allow_localhost=False, domains=[{"domain": d, "handler_path": h} for d, h in entries])
    try:
        yield
    finally:
        api.set_config(allow_localhost=True, domains=[])


def test_unknown_query_parameters_are_accepted_in_2_8_only(api: Api, api_2_7: Api) -> None:
    extra = {"bot_challenge_token": "t", "bot_challenge_phase": "invisible", "something_new": "1"}
    assert start(api, **extra).authorize.status_code == 307
    refused = assert_known_error(start(api_2_7, **extra).authorize, "SCHEMA_ERROR", 400)
    assert "query contains unknown properties: bot_challenge_token" in refused["error"]


def test_json_response_mode_answers_the_location_and_sets_no_cookie(api: Api) -> None:
    flow = start(api, stack_response_mode="json")
    assert flow.authorize.status_code == 200, flow.authorize.text
    assert set(flow.authorize.json()) == {"location"}
    assert "set-cookie" not in flow.authorize.headers
    location = flow.authorize.json()["location"]
    page = flow.browser.get(location)
    assert page.status_code == 200 and "<form" in page.text
    assert not flow.browser.cookies  # the callback below is reached without any inner cookie
    back = submit_mock_page(flow.browser, location, email=unique_email())
    target = urlsplit(back.headers["location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == REDIRECT_URI
    assert parse_qs(target.query)["state"] == [flow.state]
    response = exchange(api, code_of(back), flow.verifier)
    assert response.status_code == 200, response.text
    assert response.json()["is_new_user"] is True


def test_json_mode_codes_still_need_the_verifier(api: Api) -> None:
    flow = start(api, stack_response_mode="json")
    back = submit_mock_page(flow.browser, flow.authorize.json()["location"], email=unique_email())
    assert_known_error(exchange(api, code_of(back), "not-the-verifier"), "INVALID_AUTHORIZATION_CODE", 400)


def test_the_redirect_mode_of_2_8_still_needs_the_inner_cookie(api: Api) -> None:
    flow = start(api, stack_response_mode="redirect")
    assert flow.authorize.status_code == 307
    assert "stack-oauth-inner-" in flow.authorize.headers["set-cookie"]
    inner_state = parse_qs(urlsplit(flow.authorize.headers["location"]).query)["state"][0]
    other_browser = httpx.Client(base_url=api.url)
    response = other_browser.get("/api/v1/auth/oauth/callback/github", params={"state": inner_state, "code": "x"})
    assert response.status_code == 400 and response.text.startswith("Inner OAuth cookie not found.")  # 2.8 wording
    # its own browser completes it
    assert through_mock_provider(flow, unique_email()).status_code == 303  # 2.8: a finished flow


def test_response_modes_are_2_8_only(api: Api, api_2_7: Api) -> None:
    body = assert_known_error(start(api_2_7, stack_response_mode="json").authorize, "SCHEMA_ERROR", 400)
    assert "unknown properties: stack_response_mode" in body["error"]
    bad = assert_known_error(start(api, stack_response_mode="html").authorize, "SCHEMA_ERROR", 400)
    assert "query.stack_response_mode must be one of the following values: json, redirect" in bad["error"]


def test_after_callback_redirect_url_must_be_trusted_in_2_8(api: Api, api_2_7: Api) -> None:
    """After sign-in the app goes where `after_callback_redirect_url` says: 2.8 refuses one
    outside the trusted domains when the flow starts, so it cannot become an open redirect."""
    phishing = "https://evil.example/looks-like-the-app"
    assert_known_error(start(api, after_callback_redirect_url=phishing).authorize, "REDIRECT_URL_NOT_WHITELISTED", 400)
    # 2.7 returns any string; the client checks it (service-api A7.3, front end)
    assert start(api_2_7, after_callback_redirect_url=phishing).authorize.status_code == 307
    native = "stack-auth-mobile-oauth-url://signed-in"
    assert start(api, after_callback_redirect_url=native).authorize.status_code == 307
    trusted = "http://localhost:3000/dashboard"
    flow = start(api, after_callback_redirect_url=trusted)
    tokens = exchange(api, code_of(through_mock_provider(flow, unique_email())), flow.verifier).json()
    assert tokens["after_callback_redirect_url"] == trusted


@pytest.mark.parametrize(
    ("url", "trusted"),
    [
        ("https://app.example.com:8443/anywhere/else", True),  # the path is not compared in 2.8
        ("https://app.example.com/handler/x", False),  # another port: another server
        ("https://app.example.com:8444/handler/x", False),
        ("http://app.example.com:8443/handler/x", False),  # another scheme
        ("https://pr-12.preview.example.com/x", True),  # one label for *
        ("https://pr-12.preview.example.com:443/x", True),  # the default port, written out
        ("https://a.b.preview.example.com/x", False),  # * does not cross a dot
        ("https://pr-12.preview.example.com:8443/x", False),  # a pattern without a port: default only
        ("https://evil.example\\@app.example.com:8443/x", False),  # read as the browser reads it
        ("https://app.example.com:8443.evil.example/x", False),
        ("http://localhost:3000/x", False),  # localhost off
    ],
)
def test_2_8_trust_compares_ports_ignores_paths_and_knows_wildcards(api: Api, url: str, trusted: bool) -> None:
    with domains(api, ("https://app.example.com:8443", "/handler"), ("https://*.preview.example.com", "/handler")):
        response = start(api, after_callback_redirect_url=url).authorize
    if trusted:
        assert response.status_code == 307, response.text
    else:
        assert_known_error(response, "REDIRECT_URL_NOT_WHITELISTED", 400)


def test_a_code_goes_only_to_the_trusted_port_in_2_8(api: Api, api_2_7: Api) -> None:
    """Another service on the app's host (another port) must not receive the codes in 2.8;
    2.7 compares no ports and sends it there."""
    entry = ("https://app.example.com:8443", "/handler")
    other_port = {
        "redirect_uri": "https://app.example.com/handler/oauth-callback",
        "error_redirect_uri": "https://app.example.com:8443/handler/error",
    }
    with domains(api, entry):
        back = through_mock_provider(start(api, **other_port), unique_email())
        right_port = through_mock_provider(
            start(api, redirect_uri="https://app.example.com:8443/cb"), unique_email()
        )
    target = urlsplit(back.headers["location"])
    assert (target.netloc, target.path) == ("app.example.com:8443", "/handler/error")
    assert parse_qs(target.query)["errorCode"] == ["REDIRECT_URL_NOT_WHITELISTED"]
    assert "code" not in parse_qs(target.query)
    assert right_port.headers["location"].startswith("https://app.example.com:8443/cb?code=")
    with domains(api_2_7, entry):
        old = through_mock_provider(start(api_2_7, **other_port), unique_email())
    assert old.headers["location"].startswith("https://app.example.com/handler/oauth-callback?code=")


TABLE: list[tuple[str, list[dict[str, Any]], bool, bool]] = [
    ("https://x.example.com/a", [{"domain": "https://x.example.com/handler"}], False, True),
    ("https://x.example.com:443/a", [{"domain": "https://x.example.com"}], False, True),
    ("https://x.example.com/a", [{"domain": "https://x.example.com:443"}], False, True),
    ("http://x.example.com:80/", [{"domain": "http://x.example.com"}], False, True),
    ("https://x.example.com:8080/", [{"domain": "https://x.example.com"}], False, False),
    ("https://X.Example.COM/", [{"domain": "https://x.example.com"}], False, True),
    ("https://a.b.example.com/", [{"domain": "https://**.example.com"}], False, True),
    ("https://example.com/", [{"domain": "https://**.example.com"}], False, False),
    ("https://a.example.com:9000/", [{"domain": "https://*.example.com:9000"}], False, True),
    ("https://a.example.com/", [{"domain": "https://*.example.com:9000"}], False, False),
    ("https://a.example.com/", [{"domain": "https://*.example.com:443"}], False, True),
    ("https://api-1.example.com/", [{"domain": "https://api-*.example.com"}], False, True),
    ("https://web-1.example.com/", [{"domain": "https://api-*.example.com"}], False, False),
    ("https://a.example.com/", [{"domain": "http://*.example.com"}], False, False),
    ("http://localhost:1234/x", [], True, True),
    ("http://127.0.0.1:9/x", [], True, True),
    ("http://localhost:1234/x", [], False, False),
    ("javascript:alert(1)", [{"domain": "https://x.example.com"}], True, False),
    ("not a url", [{"domain": "https://x.example.com"}], True, False),
]


@pytest.mark.parametrize(("url", "entries", "allow_localhost", "expected"), TABLE)
def test_trusted_redirect_2_8_rules(
    url: str, entries: list[dict[str, Any]], allow_localhost: bool, expected: bool
) -> None:
    assert trusted_redirect_2_8(url, entries, allow_localhost=allow_localhost) is expected


def test_the_mock_browser_follows_the_json_mode_too(api: Api) -> None:
    flow = start(api, stack_response_mode="json")
    url = str(flow.authorize.request.url)
    back = sign_in_at_mock_provider(url, email=unique_email())
    code = parse_qs(urlsplit(back).query)["code"][0]
    assert exchange(api, code, flow.verifier).status_code == 200


# -- anonymous upgrade (service-api B7.3): at the code exchange, never at the callback ----


def anonymous(api: Api) -> dict[str, str]:
    response = api.call("POST", "/auth/anonymous/sign-up", json={})
    assert response.status_code == 200, response.text
    return response.json()


def me(api: Api, access_token: str) -> dict[str, Any]:
    response = api.call(
        "GET", "/users/me", token=access_token, headers={"x-stack-allow-anonymous-user": "true"}
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_an_oauth_sign_up_with_an_anonymous_token_upgrades_that_user(api: Api) -> None:
    anon = anonymous(api)
    email = unique_email()
    flow = start(api, token=anon["access_token"])
    response = exchange(api, code_of(through_mock_provider(flow, email)), flow.verifier)
    assert response.status_code == 200, response.text
    tokens = response.json()
    assert tokens["is_new_user"] is True
    user = me(api, tokens["access_token"])
    assert (user["id"], user["is_anonymous"], user["primary_email"]) == (anon["user_id"], False, email)
    assert [p["id"] for p in user["oauth_providers"]] == ["github"]


def test_an_attackers_anonymous_token_in_a_sign_in_url_takes_nothing_over(api: Api) -> None:
    """The attacker holds an anonymous session and sends a victim a "Sign in with GitHub" URL
    carrying its token. The victim signs up at the provider; the victim's app has no verifier
    for the attacker's state and never exchanges the code. The attacker's anonymous user must
    not become the victim's account."""
    attacker = anonymous(api)
    victim_account = f"victim-{secrets.token_hex(6)}"
    attack = start(api, token=attacker["access_token"])  # opened in the victim's browser
    assert code_of(through_mock_provider(attack, unique_email(), account_id=victim_account))
    still = me(api, attacker["access_token"])
    assert (still["is_anonymous"], still["primary_email"], still["oauth_providers"]) == (True, None, [])
    victim = sign_in(api, unique_email(), form={"account_id": victim_account})
    assert victim["is_new_user"] is True
    assert me(api, victim["access_token"])["id"] != attacker["user_id"]
    assert me(api, attacker["access_token"])["is_anonymous"] is True


def test_an_existing_provider_account_signs_in_and_leaves_the_anonymous_user(api: Api) -> None:
    account = f"acct-{secrets.token_hex(6)}"
    existing = sign_in(api, unique_email(), form={"account_id": account})
    anon = anonymous(api)
    again = sign_in(api, unique_email(), form={"account_id": account}, token=anon["access_token"])
    assert again["is_new_user"] is False
    assert me(api, again["access_token"])["id"] == me(api, existing["access_token"])["id"]
    assert me(api, anon["access_token"])["is_anonymous"] is True

