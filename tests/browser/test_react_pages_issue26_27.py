"""Chromium, the React pages and provider against issues 26 and 27.

Issue 26: a page of another origin that navigates the browser to the handler's sign-out page
does not sign the user out (the page asks "Sign out?"), while the app's own sign-out link
still signs out in one step and the prompt's button does too; the error and OAuth callback
pages show their own sentences for an attacker's URL, never its text.

Issue 27: an anonymous session of API 2.8 (tokens in the shared cookies, as the 2.8 SDK
writes them) is signed out for the provider by default, without a refused call and with its
cookies kept; an app that opts in (allowAnonymous) shows the anonymous user and its calls
send x-stack-allow-anonymous-user.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest
from playwright.sync_api import expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from .conftest import serve
from .test_signup_flow import api_me, sign_out, sign_up

pytestmark = pytest.mark.browser

#: Text an attacker would like the app's own origin to show.
EVIL = "Your account is locked. Call +1-555-0100 and tell us your password"


def attacker_site(target: str) -> Starlette:
    """A page that sends the browser to `target` at once (a top-level navigation)."""

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(f"<p>Win a prize!</p><script>location.href = {json.dumps(target)}</script>")

    return Starlette(routes=[Route("/", page)])


@pytest.mark.parametrize("attacker_host", ["127.0.0.1", "localhost"], ids=["cross-site", "same-site-other-port"])
def test_another_origin_cannot_sign_the_user_out(attacker_host: str, local_service, example_app, context) -> None:
    base = example_app(local_service.config)
    page = context.new_page()
    email = sign_up(page, base)

    with serve(attacker_site(f"{base}/handler/sign-out")) as port:
        page.goto(f"http://{attacker_host}:{port}/")
        page.wait_for_url(f"{base}/handler/sign-out")
    expect(page.get_by_role("heading", name="Sign out?")).to_be_visible()
    expect(page.get_by_test_id("sign-out-prompt")).to_contain_text(email)
    assert api_me(context, base).status == 200
    page.goto(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)

    # Control: the app's own sign-out link signs out in one step.
    page.get_by_test_id("sign-out-link").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")
    assert api_me(context, base).status == 401


def test_the_prompt_signs_out_on_its_button(local_service, example_app, context) -> None:
    base = example_app(local_service.config)
    page = context.new_page()
    sign_up(page, base)
    sign_out(page, base)  # goes to {handler}/sign-out and presses "Sign out"
    assert api_me(context, base).status == 401


def test_a_used_sign_out_url_does_not_sign_out_again(local_service, example_app, context) -> None:
    """The one-time value of the app's link, replayed (from a log, or leaked), only asks."""
    base = example_app(local_service.config)
    page = context.new_page()
    sign_up(page, base)
    visited: list[str] = []
    page.on("framenavigated", lambda frame: visited.append(frame.url) if frame == page.main_frame else None)
    page.get_by_test_id("sign-out-link").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")
    used = [url for url in visited if "/handler/sign-out?intent=" in url]
    assert len(used) == 1, visited

    email = sign_up(page, base)
    page.goto(used[0])
    expect(page.get_by_test_id("sign-out-prompt")).to_contain_text(email)
    assert api_me(context, base).status == 200


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        (f"errorCode=SCHEMA_ERROR&message={quote(EVIL)}", "An unexpected error occurred."),
        (f"errorCode={quote(EVIL)}&message={quote(EVIL)}", "An unexpected error occurred."),
        (
            f"errorCode=PROJECT_NOT_FOUND&details={quote(json.dumps({'project_id': EVIL}))}",
            "Signing in is not set up correctly on this site.",
        ),
        (f"errorCode=OAUTH_PROVIDER_ACCESS_DENIED&message={quote(EVIL)}", "The sign-in was denied at the provider."),
    ],
)
def test_the_error_page_shows_no_text_of_an_attackers_url(query: str, shown: str, local_service, example_app, context) -> None:
    base = example_app(local_service.config)
    page = context.new_page()
    page.goto(f"{base}/handler/error?{query}")
    expect(page.get_by_role("alert")).to_contain_text(shown)
    card = page.locator(".authmw-page").inner_text()
    assert "+1-555-0100" not in card
    assert "SCHEMA_ERROR" not in card and "OAUTH_PROVIDER_ACCESS_DENIED" not in card


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        (f"error=access_denied&error_description={quote(EVIL)}", "The sign-in was denied at the provider."),
        (f"error={quote(EVIL)}&error_description={quote(EVIL)}", "The sign-in could not be completed."),
        (f"errorCode=SCHEMA_ERROR&message={quote(EVIL)}&state=x&code=y", "The sign-in could not be completed."),
    ],
)
def test_the_oauth_callback_shows_no_text_of_an_attackers_url(
    query: str, shown: str, local_service, example_app, context
) -> None:
    base = example_app(local_service.config)
    page = context.new_page()
    page.goto(f"{base}/handler/oauth-callback?{query}")
    expect(page.get_by_role("alert")).to_contain_text(shown)
    assert "+1-555-0100" not in page.locator(".authmw-page").inner_text()


def anonymous_session(service: Any) -> dict[str, str]:
    """An anonymous user, made the way the 2.8 SDK makes one on its own."""
    r = httpx.post(f"{service.url}/api/v1/auth/anonymous/sign-up", headers=service._headers(), json={})
    assert r.status_code == 200, r.text
    return {"refresh": r.json()["refresh_token"], "access": r.json()["access_token"]}


def put_in_cookies(context: Any, base: str, project_id: str, tokens: dict[str, str]) -> None:
    """The cookies the 2.8 SDK writes over http: the structured refresh cookie and stack-access."""
    structured = json.dumps({"refresh_token": tokens["refresh"], "updated_at_millis": int(time.time() * 1000)})
    context.add_cookies(
        [
            {"name": f"stack-refresh-{project_id}--default", "value": quote(structured, safe=""), "url": base},
            {"name": "stack-access", "value": quote(json.dumps([tokens["refresh"], tokens["access"]]), safe=""), "url": base},
        ]
    )


def service_calls(page: Any, service: Any) -> list[tuple[str, str | None]]:
    calls: list[tuple[str, str | None]] = []

    def seen(request: Any) -> None:
        if request.url.startswith(service.url) and request.method != "OPTIONS":
            calls.append((f"{request.method} {urlsplit(request.url).path}", request.headers.get("x-stack-allow-anonymous-user")))

    page.on("request", seen)
    return calls


def anonymous_page(service: Any, example_app: Any, context: Any) -> tuple[str, dict[str, str], Any]:
    """The example app's base URL, an anonymous session in the browser's cookies, and a page."""
    base = example_app(service.config)
    tokens = anonymous_session(service)
    put_in_cookies(context, base, service.project_id, tokens)
    return base, tokens, context.new_page()


def test_an_anonymous_session_of_the_2_8_sdk_is_signed_out_and_left_alone(service_28, example_app, context) -> None:
    local_service = service_28
    base, tokens, page = anonymous_page(local_service, example_app, context)
    calls = service_calls(page, local_service)
    page.goto(f"{base}/")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")
    expect(page.get_by_test_id("sign-in-link")).to_be_visible()
    assert not [call for call in calls if call[0].endswith("/users/me")], calls
    # The official SDK's session is kept as it was.
    cookies = {c["name"]: c["value"] for c in context.cookies()}
    assert tokens["refresh"] in cookies.get(f"stack-refresh-{local_service.project_id}--default", "")
    assert tokens["access"] in cookies.get("stack-access", "")


def test_an_app_that_allows_anonymous_users_shows_them(service_28, example_app, context) -> None:
    local_service = service_28
    base, _, page = anonymous_page(local_service, example_app, context)

    # The example app's config as its server injects it, plus allowAnonymous (the provider's prop).
    page.add_init_script(
        """Object.defineProperty(window, "__AUTHMW_CONFIG__", {
            set(value) { this.__optedIn = { ...value, allowAnonymous: true }; },
            get() { return this.__optedIn; },
        });"""
    )
    calls = service_calls(page, local_service)
    page.goto(f"{base}/")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-in")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-anonymous", "true")
    me = [call for call in calls if call[0].endswith("/users/me")]
    assert me and all(allow == "true" for _, allow in me), calls
