"""The server-rendered OAuth callback's error page never shows text from the URL.

The attack: anyone can send a victim a link to ``{handler}/oauth-callback`` with a query of
their choosing (``errorCode`` + ``message``/``details``, ``error`` + ``error_description``). The
page is on the app's own origin, so the words it shows must be the app's: the catalogue's own
message for a known code, a fixed sentence otherwise. Run on FastAPI and Flask here, Django in
tests/django/test_django_oauth.py; the logic is the shared ``authmw._oauth_flow``.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from authmw._oauth import outer_cookie_name
from authmw._oauth_flow import OAuthRoutes
from authmw.adapter import SyncDriver
from authmw_fastapi import install, oauth_routes

MARK = "PHISH-CALL-1-555-0100"
LURE = f"Your account is locked. Call {MARK} <b>now</b>"

#: (query, what the page must say instead)
HOSTILE: list[tuple[dict[str, str], str]] = [
    ({"errorCode": "INVALID_AUTHORIZATION_CODE", "message": LURE}, "The given authorization code is invalid."),
    ({"errorCode": "SCHEMA_ERROR", "message": LURE}, "The sign-in could not be completed."),  # "{message}"
    ({"errorCode": "TEAM_NOT_FOUND", "details": json.dumps({"team_id": LURE})}, "The sign-in could not be"),
    ({"errorCode": "MADE_UP_CODE", "message": LURE}, "The sign-in could not be completed."),
    ({"errorCode": "OAUTH_PROVIDER_ACCESS_DENIED", "message": LURE}, "The sign-in was denied at the provider."),
    ({"error": "server_error", "error_description": LURE}, "The sign-in was not completed at the provider."),
    ({"error": LURE}, "The sign-in was not completed at the provider."),
    ({"error": "access_denied", "error_description": LURE}, "You denied the sign-in request."),
    # details nested deeper than the JSON reader recurses (3,000 brackets fit a 4 KB request line):
    # a RecursionError, answered 500 by every framework
    ({"errorCode": "SCHEMA_ERROR", "details": "[" * 3000}, "The sign-in could not be completed."),
]


def check_page(status: int, body: str, expected: str) -> None:
    assert status == 400
    assert MARK not in body and "Call" not in body
    assert expected in body, body


def callback(query: dict[str, str]) -> str:
    return "/handler/oauth-callback?" + urlencode(query)


@pytest.mark.parametrize(("query", "expected"), HOSTILE)
def test_fastapi_and_flask_error_pages_show_only_their_own_words(
    oauth_service: Any, query: dict[str, str], expected: str
) -> None:
    from flask import Flask

    from authmw_flask import AuthMW, oauth_blueprint

    app = FastAPI()
    install(app, oauth_service.config)
    app.router.routes.extend(oauth_routes(oauth_service.config))
    page = TestClient(app, follow_redirects=False).get(callback(query))
    check_page(page.status_code, page.text, expected)

    flask = Flask(__name__)
    AuthMW(flask, config=oauth_service.config)
    flask.register_blueprint(oauth_blueprint())
    page = flask.test_client().get(callback(query))
    check_page(page.status_code, page.get_data(as_text=True), expected)


def test_a_foreign_issuer_is_not_named_on_the_page(oauth_service: Any) -> None:
    """``iss`` is checked before any call, so the pure flow shows it: fixed words only."""
    routes = OAuthRoutes(oauth_service.config)
    state = "s" * 32
    url = "http://testserver" + callback({"code": "c", "state": state, "iss": f"https://{MARK}.example"})
    reply = SyncDriver().run(
        routes.finish(request_url=url, cookie_header=f"{outer_cookie_name(state)}=verifier", secure=False)
    )
    check_page(reply.status, reply.body, "did not come from this site&#x27;s sign-in service")


def test_the_real_denial_still_explains_itself(oauth_service: Any) -> None:
    """The control: a user who presses Deny at the provider is told so."""
    app = FastAPI()
    install(app, oauth_service.config)
    app.router.routes.extend(oauth_routes(oauth_service.config))
    client = TestClient(app, follow_redirects=False)
    start = client.get("/handler/oauth/github")
    back = oauth_service.provider_round_trip(start.headers["location"], "x@example.com", action="deny")
    page = client.get(back.split("testserver", 1)[1])
    assert page.status_code == 400 and "The sign-in was denied at the provider." in page.text


#: ``state`` values of a crafted callback link that are no cookie name: each was written into
#: the Set-Cookie headers deleting the verifier cookie (``stack-oauth-outer-{state}=; ...``),
#: so a link could add attributes or header lines of its own, or make the app answer 500
#: (Werkzeug refuses a newline in a header value, Starlette a character beyond Latin-1).
HOSTILE_STATES = [
    "s\r\nLocation: https://evil.example/",
    "s; Domain=evil.example; Path=/",
    "s=planted; Max-Age=31536000; Path=/",
    "s\u20ac",
]
#: A state as every SDK writes it (base64url), with the cookie its flow would have kept.
LEGIT_STATE = "Ab-_" * 8


def check_state_page(status: int, body: str, set_cookies: list[str], state: str) -> None:
    assert status == 400 and "Nothing to sign in" in body, body
    if state == LEGIT_STATE:  # the control: the flow's own verifier cookies are deleted
        assert sorted(v.split("=", 1)[0] for v in set_cookies) == [
            f"hexclave-oauth-outer-{state}",
            f"stack-oauth-outer-{state}",
        ]
    else:  # nothing of the URL reaches a header
        assert set_cookies == [], set_cookies


@pytest.mark.parametrize("state", [*HOSTILE_STATES, LEGIT_STATE])
def test_a_callback_state_that_is_no_cookie_name_never_reaches_a_header(oauth_service: Any, state: str) -> None:
    from flask import Flask

    from authmw_flask import AuthMW, oauth_blueprint

    link = callback({"code": "c", "state": state})
    app = FastAPI()
    install(app, oauth_service.config)
    app.router.routes.extend(oauth_routes(oauth_service.config))
    page = TestClient(app, follow_redirects=False).get(link)
    check_state_page(page.status_code, page.text, page.headers.get_list("set-cookie"), state)

    flask = Flask(__name__)
    AuthMW(flask, config=oauth_service.config)
    flask.register_blueprint(oauth_blueprint())
    page = flask.test_client().get(link)
    check_state_page(page.status_code, page.get_data(as_text=True), page.headers.getlist("Set-Cookie"), state)

    routes = OAuthRoutes(oauth_service.config)
    reply = SyncDriver().run(routes.finish(request_url="http://testserver" + link, cookie_header=None, secure=False))
    check_state_page(reply.status, reply.body, list(reply.set_cookies), state)


#: Provider names of a crafted start link (``{handler}/oauth/{provider}``): the page said
#: "OAuth provider must be an id such as 'github' or 'google', got '...'" with the link's text.
HOSTILE_PROVIDERS = [f"Your account is locked. Call {MARK} now", f"{MARK} <script>"]


def check_provider_page(status: int, body: str) -> None:
    assert status == 404 and "This site offers no sign-in with that provider." in body, body
    assert MARK.lower() not in body.lower() and "call" not in body.lower() and "github" not in body


def test_the_start_route_never_repeats_the_provider_of_the_url(oauth_service: Any) -> None:
    from urllib.parse import quote

    from flask import Flask

    from authmw_flask import AuthMW, oauth_blueprint

    app = FastAPI()
    install(app, oauth_service.config)
    app.router.routes.extend(oauth_routes(oauth_service.config))
    fastapi = TestClient(app, follow_redirects=False)
    flask = Flask(__name__)
    AuthMW(flask, config=oauth_service.config)
    flask.register_blueprint(oauth_blueprint())
    for provider in HOSTILE_PROVIDERS:
        link = "/handler/oauth/" + quote(provider, safe="")
        page = fastapi.get(link)
        check_provider_page(page.status_code, page.text)
        page = flask.test_client().get(link)
        check_provider_page(page.status_code, page.get_data(as_text=True))
    # The control: a provider of the project starts its flow.
    assert fastapi.get("/handler/oauth/github").status_code == 303
    assert flask.test_client().get("/handler/oauth/github").status_code == 303


def test_a_missing_publishable_key_is_the_operators_error_not_the_pages(oauth_service: Any) -> None:
    """It was the start page's text (naming AUTHMW_PUBLISHABLE_CLIENT_KEY to the visitor)."""
    import dataclasses

    from authmw.errors import ConfigurationError

    routes = OAuthRoutes(dataclasses.replace(oauth_service.config, publishable_client_key=None))
    with pytest.raises(ConfigurationError, match="AUTHMW_PUBLISHABLE_CLIENT_KEY"):
        routes.start("github", request_url="http://testserver/handler/oauth/github", secure=False)


def _session_cookies(set_cookies: list[str]) -> dict[str, str]:
    """name -> Set-Cookie value of the session cookies a sign-in wrote (deletions left out)."""
    found = {}
    for value in set_cookies:
        name = value.split("=", 1)[0]
        if name.startswith("stack-") and "Max-Age=0" not in value and "oauth" not in name:
            found[name] = value
    return found


def check_session_cookie_attributes(set_cookies: list[str], strict_and_secure: bool) -> None:
    cookies = _session_cookies(set_cookies)
    assert any(name.startswith("stack-refresh-") for name in cookies) and "stack-access" in cookies, set_cookies
    for value in cookies.values():
        if strict_and_secure:
            assert "SameSite=Strict" in value and "; Secure" in value, value
        else:
            assert "SameSite=Lax" in value and "Secure" not in value, value


def _verifier_header(set_cookies: list[str]) -> dict[str, str]:
    """The verifier cookie sent back by hand: a client's jar keeps a Secure cookie off http."""
    verifier = next(v for v in set_cookies if v.startswith("stack-oauth-outer-"))
    return {"cookie": verifier.split(";", 1)[0]}


@pytest.mark.parametrize("configured", [True, False])
def test_the_oauth_sign_in_writes_the_session_cookies_with_the_apps_cookie_settings(
    oauth_service: Any, configured: bool
) -> None:
    """COOKIE_SAME_SITE and COOKIE_SECURE (here Strict, and Secure on a site answering plain
    http behind a proxy that says nothing): the middleware rewrites the session cookies with
    them, and the OAuth routes wrote the same cookies SameSite=Lax and without Secure. The
    control (``configured`` False): the defaults, Lax and Secure only over https."""
    import uuid

    from flask import Flask

    from authmw_flask import AuthMW, oauth_blueprint

    settings = {"cookie_same_site": "Strict", "cookie_secure": True} if configured else {}
    app = FastAPI()
    install(app, oauth_service.config, **settings)
    app.router.routes.extend(oauth_routes(oauth_service.config))
    client = TestClient(app, follow_redirects=False)
    start = client.get("/handler/oauth/github")
    verifier = start.headers.get_list("set-cookie")
    assert ("; Secure" in verifier[0]) is configured, verifier
    back = oauth_service.provider_round_trip(start.headers["location"], f"ca-{uuid.uuid4().hex[:8]}@example.com")
    done = client.get(back.split("testserver", 1)[1], headers=_verifier_header(verifier))
    assert done.status_code == 303, done.text
    check_session_cookie_attributes(done.headers.get_list("set-cookie"), configured)

    flask = Flask(__name__)
    AuthMW(flask, config=oauth_service.config, **settings)
    flask.register_blueprint(oauth_blueprint())
    browser = flask.test_client()
    start = browser.get("/handler/oauth/github")
    name, _, value = _verifier_header(start.headers.getlist("Set-Cookie"))["cookie"].partition("=")
    browser.set_cookie(name, value)  # (by hand, as above)
    back = oauth_service.provider_round_trip(start.headers["Location"], f"cb-{uuid.uuid4().hex[:8]}@example.com")
    done = browser.get(back.split("localhost", 1)[1])
    assert done.status_code == 303, done.data
    check_session_cookie_attributes(done.headers.getlist("Set-Cookie"), configured)
