"""The example end to end in Chromium: React pages, cookies, the middleware, /api/me."""

from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import quote, unquote

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


def submit_password_form(page: Any, test_id: str, button: str, email: str) -> None:
    """Fills the password form ``test_id`` (other methods are on the page too) with ``email`` and
    PASSWORD, and presses ``button``."""
    form = page.get_by_test_id(test_id)
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name=button, exact=True).click()


def sign_up(page: Any, base: str) -> str:
    email = f"browser-{uuid.uuid4().hex[:12]}@example.com"
    page.goto(f"{base}/handler/sign-up")
    submit_password_form(page, "sign-up-form", "Sign up", email)
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    return email


def sign_out(page: Any, base: str) -> None:
    """Opens {handler}/sign-out directly (not through the app's link), so the page asks first;
    presses "Sign out" and waits for the home page."""
    page.goto(f"{base}/handler/sign-out")
    page.get_by_test_id("sign-out-confirm").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")


def sign_in_through_the_guarded_page(page: Any, base: str, email: str) -> None:
    """Opens /account?tab=1 signed out, which sends the browser to sign-in; signs in with the
    password form and waits to be back on /account?tab=1."""
    page.goto(f"{base}/account?tab=1")
    page.wait_for_url(f"{base}/handler/sign-in?after_auth_return_to=%2Faccount%3Ftab%3D1")
    submit_password_form(page, "sign-in-form", "Sign in", email)
    page.wait_for_url(f"{base}/account?tab=1")


def calls_to_the_service_on_opening(
    context: Any, base: str, service_url: str, email: str
) -> list[tuple[str, str | None]]:
    """Opens the app's home page, waits for ``email`` and a 200 from /api/me on it; the URL and
    x-stack-access-token of each request the page sent to the service at ``service_url``."""
    seen: list[tuple[str, str | None]] = []
    page = context.new_page()
    page.on("request", lambda req: seen.append((req.url, req.headers.get("x-stack-access-token"))))
    page.goto(base)
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    expect(page.get_by_test_id("api-me")).to_have_attribute("data-status", "200")
    return [(url, token) for url, token in seen if url.startswith(service_url)]


def session_cookies(context: Any, project_id: str) -> tuple[str | None, list[str] | None]:
    jar = {c["name"]: unquote(c["value"]) for c in context.cookies()}
    access = jar.get("stack-access")
    return jar.get(f"stack-refresh-{project_id}"), json.loads(access) if access else None


def api_me(context: Any, base: str) -> Any:
    return context.request.get(f"{base}/api/me", headers={"accept": "application/json"})


def test_sign_up_see_the_user_server_side_then_sign_out(local_service, example_app, context) -> None:
    base = example_app(local_service.config)
    page = context.new_page()
    email = sign_up(page, base)

    page.reload()
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    expect(page.get_by_test_id("api-me")).to_have_attribute("data-status", "200")
    shown = page.get_by_test_id("api-me").inner_text()
    user_id = page.get_by_test_id("user-id").inner_text()
    assert user_id in shown

    r = api_me(context, base)
    assert r.status == 200
    body = r.json()
    assert body["id"] == user_id
    assert body == {"id": user_id, "primary_email": email, "display_name": None}

    sign_out(page, base)
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")
    expect(page.get_by_test_id("api-me")).to_have_attribute("data-status", "401")
    r = api_me(context, base)
    assert r.status == 401
    assert r.json()["code"] == "USER_AUTHENTICATION_REQUIRED"


def test_a_guarded_page_sends_the_browser_to_sign_in_and_back(local_service, example_app, context) -> None:
    base = example_app(local_service.config)
    page = context.new_page()
    email = sign_up(page, base)
    user_id = page.get_by_test_id("user-id").inner_text()
    page.goto(f"{base}/account")
    expect(page.get_by_test_id("account")).to_have_text(f"Signed in as {user_id}")

    sign_out(page, base)
    sign_in_through_the_guarded_page(page, base, email)
    # The handler pages leave with a full page load, so the server's own page renders at once.
    expect(page.get_by_test_id("account")).to_have_text(f"Signed in as {user_id}")


def test_react_uses_the_cookies_the_middleware_rewrote(local_service, example_app, context) -> None:
    """The middleware refreshes (the access cookie is gone) and writes both cookies; the
    React store then signs in with exactly that access token, without refreshing itself."""
    base = example_app(local_service.config)
    pid = local_service.project_id
    page = context.new_page()
    email = sign_up(page, base)
    refresh, _ = session_cookies(context, pid)
    page.close()

    context.clear_cookies(name="stack-access")
    r = api_me(context, base)
    assert r.status == 200
    assert "stack-access=" in r.headers.get("set-cookie", "")
    refresh_after, (owner, access) = session_cookies(context, pid)
    assert refresh_after == owner == refresh

    service_calls = calls_to_the_service_on_opening(context, base, local_service.url, email)
    assert service_calls, "the page made no call to the service"
    assert not [url for url, _ in service_calls if "/auth/oauth/token" in url or "/refresh" in url]
    assert all(token == access for _, token in service_calls if token is not None)
    assert session_cookies(context, pid) == (refresh, [refresh, access])


def test_react_accepts_cookies_rewritten_after_expiry(local_service, example_app, context, reissue) -> None:
    """Once the access token in the cookie needs refreshing, /api/me refreshes and rewrites
    the cookies; the page still shows the user with no new sign-in. The token that needs
    refreshing is made, not waited for: the cookie's token is re-signed with 19 s left."""
    base = example_app(local_service.config)
    pid = local_service.project_id
    page = context.new_page()
    email = sign_up(page, base)
    page.close()
    refresh, (_, signed_up) = session_cookies(context, pid)
    access = reissue(local_service, signed_up, 19)  # under the 20 s margin
    context.add_cookies([{"name": "stack-access", "value": quote(json.dumps([refresh, access]), safe=""), "url": base}])

    r = api_me(context, base)
    assert r.status == 200
    _, (owner, new_access) = session_cookies(context, pid)
    assert owner == refresh and new_access not in (access, signed_up)

    page = context.new_page()
    page.goto(base)
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    expect(page.get_by_test_id("api-me")).to_have_attribute("data-status", "200")
    assert session_cookies(context, pid)[0] == refresh
    assert page.get_by_test_id("sign-in-link").count() == 0
