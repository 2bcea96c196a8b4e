"""The e-mail verification gate in Chromium (API 2.8, issue 40): with the project requiring
verified e-mails, a new user is restricted; the example app (whose <AuthProvider> does not
accept restricted users) sends them to {handler}/onboarding, where they have the e-mail sent
again, paste the code from the local service's mailbox, and continue to the page they wanted,
signed in. A user an administrator restricted reads the administrator's reason there. The page
passes axe light and dark at 375 and 1280 px and fits 320 px (screenshots onboarding-*)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from playwright.sync_api import expect

from authmw import AuthConfig, ServerApp
from authmw.dev import Clock

from .test_email_flows import PASSWORD, MailService
from .test_page_quality import AXE, Inspector

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def gate_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    """A 2.8 local service of its own whose project requires verified e-mails."""
    from authmw.dev import LocalService

    service = LocalService(tmp_path_factory.mktemp("gate-service"), port=0, quiet=True, clock=Clock(), api="2.8").start()
    try:
        gate = MailService(service)
        gate.configure(require_email_verification=True)
        yield gate
    finally:
        service.stop()


def server_app(gate: MailService) -> ServerApp:
    running = gate.service
    return ServerApp(AuthConfig(project_id=running.project_id, api_url=running.url, secret_server_key=running.secret_server_key))


def sign_up(page: Any, base: str, email: str) -> None:
    """Signs up on the example's sign-up page (a restricted user: the e-mail is not verified)."""
    page.goto(f"{base}/handler/sign-up")
    form = page.get_by_test_id("sign-up-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign up", exact=True).click()


def code_of(mail: dict[str, Any]) -> str:
    return parse_qs(urlsplit(mail["link"]).query)["code"][0]


def test_a_new_user_verifies_on_the_onboarding_page_and_continues(gate_service, example_app, context) -> None:
    base = example_app(gate_service.config)
    page = context.new_page()
    email = f"gate-{uuid.uuid4().hex[:10]}@example.com"
    started = time.time()
    sign_up(page, base, email)

    # Signed up, but restricted: the home page sends the user on, and back to it afterwards.
    page.wait_for_url(f"{base}/handler/onboarding?after_auth_return_to={quote('/', safe='')}")
    expect(page.get_by_role("heading", name="Verify your e-mail")).to_be_visible()
    expect(page.get_by_text(email)).to_be_visible()
    first = gate_service.mail(email, "email_verification", after=started)

    # A wrong code is refused on the field; the user stays restricted.
    page.get_by_label("Code or link from the e-mail").fill("x" * 45)
    page.get_by_role("button", name="Verify", exact=True).click()
    expect(page.get_by_test_id("code-error")).to_be_visible()
    page.get_by_role("button", name="I opened the link").click()
    expect(page.get_by_test_id("onboarding-status")).to_contain_text("not verified yet")

    # The e-mail again: a new one arrives, and its code is the one pasted.
    resent_at = time.time()
    page.get_by_role("button", name="Send the e-mail again").click()
    expect(page.get_by_test_id("onboarding-status")).to_have_text("We sent a new verification e-mail. Check your inbox.")
    again = gate_service.mail(email, "email_verification", after=resent_at)
    assert code_of(again) != code_of(first)
    page.get_by_label("Code or link from the e-mail").fill(code_of(again))
    page.get_by_role("button", name="Verify", exact=True).click()
    expect(page.get_by_test_id("onboarding-done")).to_be_visible()

    page.get_by_test_id("onboarding-continue").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-in")
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    with server_app(gate_service) as server:
        user = next(iter(server.users.list(query=email).items))
        assert user.primary_email_verified and not user.is_restricted
    # and nothing sends them to onboarding any more
    page.reload()
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-in")
    assert urlsplit(page.url).path == "/"


def test_a_protected_page_sends_a_restricted_user_to_onboarding_not_to_sign_in(gate_service, example_app, context) -> None:
    """/protected (`useUser({ or: "redirect" })`): a restricted user goes to onboarding, not to
    sign-in, pastes the whole link instead of the code, and comes back to /protected."""
    base = example_app(gate_service.config)
    page = context.new_page()
    email = f"gate-{uuid.uuid4().hex[:10]}@example.com"
    started = time.time()
    sign_up(page, base, email)
    page.wait_for_url(f"{base}/handler/onboarding?**")
    page.goto(f"{base}/protected?tab=2")
    page.wait_for_url(f"{base}/handler/onboarding?after_auth_return_to={quote('/protected?tab=2', safe='')}")
    page.get_by_label("Code or link from the e-mail").fill(gate_service.mail(email, "email_verification", after=started)["link"])
    page.get_by_role("button", name="Verify", exact=True).click()
    page.get_by_test_id("onboarding-continue").click()
    page.wait_for_url(f"{base}/protected?tab=2")
    expect(page.get_by_test_id("protected-email")).to_have_text(email)


def test_the_restricted_redirect_follows_the_providers_redirect_method(gate_service, example_app, context) -> None:
    """<AuthProvider redirectMethod="router"> (the example's `?redirect=router`) sends a restricted
    user to onboarding with a react-router navigation: the browser loads no second document. The
    default, "window", loads the onboarding page (the control)."""
    base = example_app(gate_service.config)
    page = context.new_page()
    sign_up(page, base, f"gate-{uuid.uuid4().hex[:10]}@example.com")
    page.wait_for_url(f"{base}/handler/onboarding?**")
    documents: list[str] = []
    page.on("request", lambda request: documents.append(urlsplit(request.url).path) if request.resource_type == "document" else None)

    page.goto(f"{base}/?redirect=router")
    page.wait_for_url(f"{base}/handler/onboarding?after_auth_return_to={quote('/?redirect=router', safe='')}")
    expect(page.get_by_role("heading", name="Verify your e-mail")).to_be_visible()
    assert documents == ["/"]

    documents.clear()
    page.goto(f"{base}/")
    page.wait_for_url(f"{base}/handler/onboarding?after_auth_return_to={quote('/', safe='')}")
    expect(page.get_by_role("heading", name="Verify your e-mail")).to_be_visible()
    assert documents == ["/", "/handler/onboarding"]


def test_a_user_restricted_by_an_administrator_reads_the_reason(gate_service, example_app, context) -> None:
    base = example_app(gate_service.config)
    email = f"held-{uuid.uuid4().hex[:10]}@example.com"
    with server_app(gate_service) as server:
        server.users.create(
            primary_email=email,
            primary_email_verified=True,
            primary_email_auth_enabled=True,
            password=PASSWORD,
            restricted_by_admin=True,
            restricted_by_admin_reason="Your account is under review until we hear from you.",
            restricted_by_admin_private_details="never shown to the user",
        )
    page = context.new_page()
    page.goto(f"{base}/handler/sign-in")
    form = page.get_by_test_id("sign-in-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url(f"{base}/handler/onboarding?**")
    expect(page.get_by_role("heading", name="Your account is restricted")).to_be_visible()
    expect(page.get_by_test_id("onboarding-admin-reason")).to_contain_text("Your account is under review until we hear from you.")
    expect(page.get_by_text("never shown to the user")).to_have_count(0)
    expect(page.get_by_test_id("onboarding-code-form")).to_have_count(0)
    # The way out: signing out ends the restricted session, and nothing sends them back.
    page.get_by_test_id("onboarding-sign-out").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")
    page.reload()
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")
    assert urlsplit(page.url).path == "/"


def test_the_onboarding_page_passes_axe_and_fits_a_phone(gate_service, example_app, context) -> None:
    """Both states of the page (verify the e-mail; restricted by an administrator): axe light and
    dark at 375 and 1280 px, nothing wider than 320 px, screenshots onboarding-*."""
    base = example_app(gate_service.config)
    page = context.new_page()
    inspect = Inspector(page, AXE.read_text(encoding="utf-8"))
    email = f"gate-{uuid.uuid4().hex[:10]}@example.com"
    sign_up(page, base, email)
    page.wait_for_url(f"{base}/handler/onboarding?**")
    page.get_by_role("button", name="Verify", exact=True).click()  # empty: the field's own message
    expect(page.get_by_test_id("code-error")).to_be_visible()
    inspect.check("onboarding-verify")

    with server_app(gate_service) as server:
        user = next(iter(server.users.list(query=email, include_restricted=True).items))
        server.users.update(  # verified, so the administrator's restriction is the reason
            user.id,
            primary_email_verified=True,
            restricted_by_admin=True,
            restricted_by_admin_reason="Payment failed on 2026-11-28. Update your card to continue using the workspace.",
        )
    page.reload()
    expect(page.get_by_test_id("onboarding-admin-reason")).to_be_visible()
    inspect.check("onboarding-restricted")
    assert not inspect.problems, "\n".join(inspect.problems)
