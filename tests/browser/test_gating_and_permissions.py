"""Route gating and project permissions in React (issue 40), in Chromium against a local service:
`useUser({ or: "redirect" })` on the example's members-only page sends a signed-out visitor to
sign-in and back to the very page (query and hash kept); `<Protect permission project>` shows
and hides by a project permission the server tier grants and revokes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.sync_api import expect

from tests import deployment

from .test_email_flows import PASSWORD, MailService, sign_in

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    from authmw.dev import LocalService

    running = LocalService(tmp_path_factory.mktemp("gating"), port=0, quiet=True).start()
    try:
        yield MailService(running)
    finally:
        running.stop()


def test_a_signed_out_visit_to_a_protected_page_signs_in_and_returns_to_it(
    service: MailService, example_app: Any, context: Any
) -> None:
    base = example_app(service.config)
    email = service.sign_up()
    page = context.new_page()
    page.goto(f"{base}/protected?tab=2#notes")
    form = page.get_by_test_id("sign-in-form")
    expect(form).to_be_visible()
    url = urlsplit(page.url)
    assert url.path == "/handler/sign-in"
    assert parse_qs(url.query)["after_auth_return_to"] == ["/protected?tab=2#notes"]
    sign_in(page, base, email, PASSWORD, from_page=True)
    expect(page.get_by_test_id("protected-email")).to_have_text(email)
    assert page.url == f"{base}/protected?tab=2#notes"
    # Signed in, the page shows at once.
    page.reload()
    expect(page.get_by_test_id("protected-content")).to_be_visible()


def documents_of(page: Any) -> list[str]:
    """The paths of the documents `page` loads from now on; each new document also gets
    `window.authmwDocument` (its path) and `window.authmwHistory` (the history's length then)."""
    page.add_init_script("window.authmwDocument = location.pathname; window.authmwHistory = history.length")
    documents: list[str] = []

    def note(request: Any) -> None:
        if request.resource_type == "document":
            documents.append(urlsplit(request.url).path)

    page.on("request", note)
    return documents


def test_with_a_router_the_redirect_to_sign_in_and_back_loads_no_page(
    service: MailService, example_app: Any, context: Any
) -> None:
    """<AuthProvider redirectMethod="router"> (the example's `?redirect=router`): the members-only
    page sends a signed-out visitor to sign-in with a react-router navigation, and the sign-in
    brings them back the same way, so the document loaded for /protected is the one they end on
    (a marker an init script writes into every new document). The default, "window", loads the
    sign-in page (the control)."""
    base = example_app(service.config)
    email = service.sign_up()
    page = context.new_page()
    documents = documents_of(page)
    page.goto(f"{base}/protected?redirect=router&tab=2#notes")
    expect(page.get_by_test_id("sign-in-form")).to_be_visible()
    url = urlsplit(page.url)
    assert url.path == "/handler/sign-in"
    assert parse_qs(url.query)["after_auth_return_to"] == ["/protected?redirect=router&tab=2#notes"]
    assert page.evaluate("window.authmwDocument") == "/protected"
    # replaced, not pushed: the protected page is not in the history to go back to
    assert page.evaluate("history.length == window.authmwHistory")
    sign_in(page, base, email, PASSWORD, from_page=True)
    expect(page.get_by_test_id("protected-email")).to_have_text(email)
    assert page.url == f"{base}/protected?redirect=router&tab=2#notes"
    assert page.evaluate("window.authmwDocument") == "/protected"
    assert documents == ["/protected"]

    # The control: signed out again, without ?redirect=router.
    page.close()
    context.clear_cookies()
    control = context.new_page()
    loaded = documents_of(control)
    control.goto(f"{base}/protected?tab=2")
    expect(control.get_by_test_id("sign-in-form")).to_be_visible()
    assert parse_qs(urlsplit(control.url).query)["after_auth_return_to"] == ["/protected?tab=2"]
    assert control.evaluate("window.authmwDocument") == "/handler/sign-in"
    assert loaded == ["/protected", "/handler/sign-in"]


def test_a_foreign_return_path_is_not_followed(service: MailService, example_app: Any, context: Any) -> None:
    """The control of the return path: the sign-in page follows only a path on the app's own origin."""
    base = example_app(service.config)
    email = service.sign_up()
    page = context.new_page()
    page.goto(f"{base}/handler/sign-in?after_auth_return_to=//evil.example/protected")
    sign_in(page, base, email, PASSWORD, from_page=True)
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-in")
    assert urlsplit(page.url).netloc == urlsplit(base).netloc


def server_call(service: MailService, method: str, path: str) -> httpx.Response:
    running = service.service
    return httpx.request(
        method,
        f"{running.url}/api/v1{path}",
        headers={
            "x-stack-project-id": running.project_id,
            "x-stack-access-type": "server",
            "x-stack-secret-server-key": running.secret_server_key,
        },
        json={} if method == "POST" else None,
    )


def test_protect_shows_and_hides_by_a_project_permission_the_server_grants_and_revokes(
    service: MailService, example_app: Any, context: Any
) -> None:
    created = deployment.admin_call(service.service, "POST", "/project-permission-definitions", {"id": "view_reports"})
    assert created.status_code in (200, 201), created.text
    base = example_app(service.config)
    email = service.sign_up()
    user_id = httpx.get(
        f"{service.url}/api/v1/users/me",
        headers={**service._client_headers, "x-stack-access-token": service.access_tokens[email]},
    ).json()["id"]
    page = context.new_page()
    sign_in(page, base, email, PASSWORD)
    expect(page.get_by_test_id("reports-denied")).to_be_visible()
    expect(page.get_by_test_id("reports")).to_have_count(0)

    granted = server_call(service, "POST", f"/project-permissions/{user_id}/view_reports")
    assert granted.status_code == 201, granted.text
    page.reload()
    expect(page.get_by_test_id("reports")).to_be_visible()
    expect(page.get_by_test_id("reports-denied")).to_have_count(0)

    revoked = server_call(service, "DELETE", f"/project-permissions/{user_id}/view_reports")
    assert revoked.status_code == 200, revoked.text
    page.reload()
    expect(page.get_by_test_id("reports-denied")).to_be_visible()
    expect(page.get_by_test_id("reports")).to_have_count(0)


@pytest.mark.parametrize("method", ["router", "window"])
def test_under_a_router_basename_both_redirect_methods_end_at_the_configured_urls(
    service: MailService, example_app: Any, context: Any, method: str
) -> None:
    """The example opened under /app/ runs with `<BrowserRouter basename="/app">` and handlerPath
    "/app/handler": configured URLs are the browser's. "router" and "window" (the control, page
    loads) send a signed-out visitor to the same /app/handler/sign-in, coming back to the same
    /app/protected; "router" loads no other document (before, the router put its basename in
    front a second time: /app/app/handler/sign-in, a page not found)."""
    base = example_app(service.config)
    email = service.sign_up()
    page = context.new_page()
    documents = documents_of(page)
    back = f"/app/protected?{'redirect=router&' if method == 'router' else ''}tab=2#notes"
    page.goto(base + back)
    expect(page.get_by_test_id("sign-in-form")).to_be_visible()
    url = urlsplit(page.url)
    assert url.path == "/app/handler/sign-in"
    assert parse_qs(url.query)["after_auth_return_to"] == [back]
    sign_in(page, base, email, PASSWORD, from_page=True)
    expect(page.get_by_test_id("protected-email")).to_have_text(email)
    assert page.url == base + back
    routed = method == "router"
    assert documents == (["/app/protected"] if routed else ["/app/protected", "/app/handler/sign-in", "/app/protected"])


def test_under_a_router_basename_the_pages_links_and_the_way_back_to_sign_in_stay_under_it(
    service: MailService, example_app: Any, context: Any
) -> None:
    """The handler pages' links go to the configured URLs with the router (no page load), and a
    failed sign-in's error page goes back to /app/handler/sign-in with its message, which travels
    in the history entry's state, not in the URL."""
    base = example_app(service.config)
    page = context.new_page()
    documents = documents_of(page)
    page.goto(f"{base}/app/handler/sign-in")
    page.get_by_test_id("forgot-password-link").click()
    page.wait_for_url(f"{base}/app/handler/forgot-password")
    page.get_by_role("link", name="Back to sign in").click()
    page.wait_for_url(f"{base}/app/handler/sign-in")
    expect(page.get_by_test_id("sign-in-form")).to_be_visible()
    assert documents == ["/app/handler/sign-in"]

    page.goto(f"{base}/app/handler/error?errorCode=OAUTH_PROVIDER_ACCESS_DENIED")
    expect(page.get_by_role("alert")).to_have_text("The sign-in was denied at the provider. Please try again.")
    assert page.url == f"{base}/app/handler/sign-in"
    expect(page.get_by_test_id("sign-in-form")).to_be_visible()
    assert documents == ["/app/handler/sign-in", "/app/handler/error"]
