"""Callback URLs of e-mailed links are judged as the browser that opens the link reads them
(service-api A7.3; issue 18): a URL that only looks like localhost or a trusted domain to a naive
parser is refused, and no e-mail carries a code to it."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Api, assert_known_error, unique_email

HOSTILE_LOCAL = [
    "http://evil.example\\@localhost/cb",
    "http://evil.example\\\\@localhost:3000/handler/x",
    "http://evil.example\t@localhost/cb",
    "http://evil.example/\\..\\@localhost",
    "http://localhost.evil.example/cb",
    "http://127.0.0.1.evil.example/cb",
]
HOSTILE_DOMAIN = [
    "https://evil.example\\@app.example.com/handler/x",
    "https://app.example.com.evil.example/handler/x",
    "https://app.example.com@evil.example/handler/x",
    "http://app.example.com/handler/x",  # another scheme
]


def outbox(api: Api, to: str) -> list[dict[str, Any]]:
    return api.http.get("/dev/outbox", params={"to": to}).json()["items"]


def each_flow(api: Api, user: dict[str, str], callback: str) -> dict[str, Any]:
    """Every call that e-mails a link to ``callback``: its response."""
    token = user["access_token"]
    team = api.call("POST", "/teams", "server", json={"display_name": "T", "creator_user_id": user["user_id"]})
    assert team.status_code == 201, team.text
    return {
        "password reset": api.call(
            "POST", "/auth/password/send-reset-code", json={"email": user["email"], "callback_url": callback}
        ),
        "magic link": api.call(
            "POST", "/auth/otp/send-sign-in-code", json={"email": user["email"], "callback_url": callback}
        ),
        "e-mail verification": api.call(
            "POST",
            "/contact-channels/send-verification-code",
            token=token,
            json={"email": user["email"], "callback_url": callback},
        ),
        "team invitation": api.call(
            "POST",
            "/team-invitations/send-code",
            "server",
            json={"team_id": team.json()["id"], "email": user["email"], "callback_url": callback},
        ),
    }


@pytest.mark.parametrize("callback", HOSTILE_LOCAL)
def test_urls_that_only_look_local_are_refused_by_every_flow(api: Api, project_config, callback: str) -> None:
    project_config(allow_localhost=True, magic_link_enabled=True)
    user = {**api.sign_up(email := unique_email()), "email": email}
    before = len(outbox(api, email))
    for flow, response in each_flow(api, user, callback).items():
        if response.status_code == 400 and response.headers.get("x-stack-known-error") == "SCHEMA_ERROR":
            continue  # not even a URL to the service: refused all the same
        assert response.headers.get("x-stack-known-error") == "REDIRECT_URL_NOT_WHITELISTED", (flow, response.text)
        assert_known_error(response, "REDIRECT_URL_NOT_WHITELISTED", 400)
    assert len(outbox(api, email)) == before  # no code went anywhere


@pytest.mark.parametrize("callback", HOSTILE_DOMAIN)
def test_urls_that_only_look_like_a_trusted_domain_are_refused(api: Api, project_config, callback: str) -> None:
    project_config(allow_localhost=True, magic_link_enabled=True)
    user = {**api.sign_up(email := unique_email()), "email": email}  # its verification link goes to localhost
    project_config(allow_localhost=False, domains=[{"domain": "https://app.example.com", "handler_path": "/handler"}])
    for flow, response in each_flow(api, user, callback).items():
        if response.status_code == 400 and response.headers.get("x-stack-known-error") == "SCHEMA_ERROR":
            continue
        assert response.headers.get("x-stack-known-error") == "REDIRECT_URL_NOT_WHITELISTED", (flow, response.text)


def test_trusted_callbacks_still_work_and_links_are_what_the_browser_reads(api: Api, project_config) -> None:
    project_config(allow_localhost=True, magic_link_enabled=True)
    email = unique_email()
    # WHATWG reads this as localhost with the path /@evil.example/cb: trusted, and the e-mailed
    # link is written in that reading, so no other parser can take it for evil.example.
    response = api.call(
        "POST",
        "/auth/otp/send-sign-in-code",
        json={"email": email, "callback_url": "http://localhost\\@evil.example/cb"},
    )
    assert response.status_code == 200, response.text
    (mail,) = [m for m in outbox(api, email) if m["kind"] == "magic_link"]
    assert mail["link"].startswith("http://localhost/@evil.example/cb?code=")


def test_another_port_of_a_trusted_domain_is_refused_by_every_flow_in_28(api: Api, project_config) -> None:
    """The attack: `https://app.example.com` is trusted, and a link to port 8443 of that host (a
    service someone else may run there) would carry the code away; 2.8 compares ports for every
    callback URL. The control: the domain's own port still gets its links."""
    assert api.version == "2.8"
    project_config(allow_localhost=True, magic_link_enabled=True)
    user = {**api.sign_up(email := unique_email()), "email": email}
    project_config(allow_localhost=False, domains=[{"domain": "https://app.example.com", "handler_path": "/handler"}])
    before = len(outbox(api, email))
    attack = "https://app.example.com:8443/handler/x"
    for flow, response in each_flow(api, user, attack).items():
        assert_known_error(response, "REDIRECT_URL_NOT_WHITELISTED", 400), flow
    sign_up = api.call(
        "POST",
        "/auth/password/sign-up",
        json={"email": unique_email(), "password": "correct horse", "verification_callback_url": attack},
    )
    assert_known_error(sign_up, "REDIRECT_URL_NOT_WHITELISTED", 400)
    assert len(outbox(api, email)) == before  # no code went anywhere

    for flow, response in each_flow(api, user, "https://app.example.com:443/handler/x").items():
        assert response.headers.get("x-stack-known-error") != "REDIRECT_URL_NOT_WHITELISTED", (flow, response.text)
    assert len(outbox(api, email)) > before


@pytest.mark.parametrize("version", ["2.8", "2.7"])
def test_a_url_with_spaces_gets_2_8s_extra_problem_line(api_27: Api, api_28: Api, version: str) -> None:
    """2.8.86's URL fields check "contains spaces" before "is not a valid URL" and name both;
    2.7.16 named only the second. A control: a valid URL passes both checks."""
    api = api_28 if version == "2.8" else api_27
    spaces = ["  - query.redirect_uri contains spaces"] if version == "2.8" else []
    query = {
        "client_id": api.project_id,
        "client_secret": api.keys.publishable_client_key,
        "scope": "legacy",
        "state": "s",
        "grant_type": "authorization_code",
        "code_challenge": "c" * 43,
        "code_challenge_method": "plain",
        "response_type": "code",
    }
    path = "/api/v1/auth/oauth/authorize/github"
    refused = api.http.get(path, params={**query, "redirect_uri": "this is an invalid URL string"})
    body = assert_known_error(refused, "SCHEMA_ERROR", 400)
    assert body["error"].splitlines() == [
        f"Request validation failed on GET {path}:",
        *spaces,
        "  - query.redirect_uri is not a valid URL",
    ]
    control = api.http.get(path, params={**query, "redirect_uri": "http://localhost:3000/handler/oauth-callback"})
    assert control.status_code == 307, control.text
    # Any URL field, not only OAuth's: the e-mail code's callback URL.
    sent = api.call(
        "POST", "/auth/otp/send-sign-in-code", json={"email": unique_email(), "callback_url": "http://a b/cb"}
    )
    problems = assert_known_error(sent, "SCHEMA_ERROR", 400)["error"].splitlines()[1:]
    assert problems == [line.replace("query.redirect_uri", "body.callback_url") for line in spaces] + [
        "  - body.callback_url is not a valid URL"
    ]
