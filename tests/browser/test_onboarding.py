"""The e-mail verification gate in Chromium (API 2.8, issue 40): with the project requiring
verified e-mails, a new user is restricted; the example app (whose <AuthProvider> does not
accept restricted users) sends them to {handler}/onboarding, where they have the e-mail sent
again, paste the code from the local service's mailbox, and continue to the page they wanted,
signed in. A user without an e-mail address (an OAuth sign-up whose provider shared none: the
mock provider's private address) adds one there first, or replaces a mistyped one; the errors
(an address another account signs in with, a malformed one, the network failing midway) keep
what was typed and say what to do. A user an administrator restricted reads the administrator's
reason there. The page passes axe light and dark at 375 and 1280 px and fits 320 px
(screenshots onboarding-*)."""

from __future__ import annotations

import dataclasses
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import deployment
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

    service = LocalService(
        tmp_path_factory.mktemp("gate-service"), port=0, quiet=True, clock=Clock(), api="2.8"
    ).start()
    try:
        gate = MailService(service)
        gate.configure(require_email_verification=True)
        # GitHub through the local mock provider, for the users who come without an e-mail.
        deployment.set_project_config(service, oauth_providers=[{"id": "github", "type": "shared", "enabled": True}])
        yield gate
    finally:
        service.stop()


def server_app(gate: MailService) -> ServerApp:
    running = gate.service
    return ServerApp(
        AuthConfig(project_id=running.project_id, api_url=running.url, secret_server_key=running.secret_server_key)
    )


def sign_up(page: Any, base: str, email: str) -> None:
    """Signs up on the example's sign-up page (a restricted user: the e-mail is not verified)."""
    page.goto(f"{base}/handler/sign-up")
    form = page.get_by_test_id("sign-up-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign up", exact=True).click()


def code_of(mail: dict[str, Any]) -> str:
    return parse_qs(urlsplit(mail["link"]).query)["code"][0]


def github_without_email(page: Any) -> None:
    """Continue with GitHub (the local mock provider), keeping the address private: the user
    has no e-mail, so is restricted where the project requires a verified one."""
    page.get_by_role("button", name="Continue with GitHub").click()
    expect(page.get_by_role("heading", name="Sign in to GitHub")).to_be_visible()
    page.get_by_label("E-mail address").fill(f"private-{uuid.uuid4().hex[:10]}@example.com")
    page.get_by_text("More options").click()
    page.get_by_label(re.compile("Keep my address private")).check()
    page.get_by_role("button", name="Authorize").click()


def sign_up_without_email(page: Any, base: str) -> None:
    page.goto(f"{base}/handler/sign-up")
    github_without_email(page)


def add_email(page: Any, email: str) -> None:
    page.get_by_label("E-mail", exact=True).fill(email)
    page.get_by_role("button", name="Send verification e-mail").click()


def verify_and_continue(page: Any, code_or_link: str, to: str) -> None:
    """Pastes the code (or link) of the verification e-mail, then Continue, to the page `to`."""
    page.get_by_label("Code or link from the e-mail").fill(code_or_link)
    page.get_by_role("button", name="Verify", exact=True).click()
    expect(page.get_by_test_id("onboarding-done")).to_be_visible()
    page.get_by_test_id("onboarding-continue").click()
    page.wait_for_url(to)


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
    expect(page.get_by_test_id("onboarding-status")).to_have_text(
        "We sent a new verification e-mail. Check your inbox."
    )
    again = gate_service.mail(email, "email_verification", after=resent_at)
    assert code_of(again) != code_of(first)
    verify_and_continue(page, code_of(again), f"{base}/")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-in")
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    with server_app(gate_service) as server:
        user = next(iter(server.users.list(query=email).items))
        assert user.primary_email_verified and not user.is_restricted
    # and nothing sends them to onboarding any more
    page.reload()
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-in")
    assert urlsplit(page.url).path == "/"


def test_a_protected_page_sends_a_restricted_user_to_onboarding_not_to_sign_in(
    gate_service, example_app, context
) -> None:
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
    link = gate_service.mail(email, "email_verification", after=started)["link"]
    verify_and_continue(page, link, f"{base}/protected?tab=2")
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
    page.on(
        "request",
        lambda request: documents.append(urlsplit(request.url).path) if request.resource_type == "document" else None,
    )

    page.goto(f"{base}/?redirect=router")
    page.wait_for_url(f"{base}/handler/onboarding?after_auth_return_to={quote('/?redirect=router', safe='')}")
    expect(page.get_by_role("heading", name="Verify your e-mail")).to_be_visible()
    assert documents == ["/"]

    documents.clear()
    page.goto(f"{base}/")
    page.wait_for_url(f"{base}/handler/onboarding?after_auth_return_to={quote('/', safe='')}")
    expect(page.get_by_role("heading", name="Verify your e-mail")).to_be_visible()
    assert documents == ["/", "/handler/onboarding"]


def test_a_user_without_an_e_mail_adds_one_verifies_it_and_continues(gate_service, example_app, context) -> None:
    """Signed up with GitHub, no address shared: the home page sends the user to onboarding,
    which asks for an address. A malformed one and one another account signs in with are refused
    on the field, with the page's own sentences; the network failing after the address was saved
    loses nothing (sending again reuses it). The code of the e-mail then verifies it, and the user
    continues to the home page, signed in with that address (used for signing in)."""
    base = example_app(gate_service.config)
    page = context.new_page()
    sign_up_without_email(page, base)
    page.wait_for_url(f"{base}/handler/onboarding?after_auth_return_to={quote('/', safe='')}")
    expect(page.get_by_role("heading", name="Add an e-mail address")).to_be_visible()
    expect(page.get_by_text("Your account has no e-mail address yet.")).to_be_visible()
    field = page.get_by_label("E-mail", exact=True)

    add_email(page, "ada@example")  # the browser's check, before any call
    expect(page.get_by_test_id("email-error")).to_have_text("Enter an e-mail address such as name@example.com.")
    expect(field).to_be_focused()

    taken = gate_service.sign_up()  # another account signs in with this address
    add_email(page, taken)
    expect(page.get_by_test_id("email-error")).to_have_text(
        "Another account already signs in with this e-mail address."
    )
    expect(field).to_have_value(taken)
    card = page.locator(".authmw-page").inner_text()
    assert "CONTACT_CHANNEL" not in card and "already used for authentication" not in card

    # The address is saved, then sending its e-mail fails (the network drops that call): the
    # page says so, keeps the address, and sending again reuses it rather than failing on it.
    email = f"added-{uuid.uuid4().hex[:10]}@example.com"
    send_code = re.compile(r".*/api/v1/contact-channels/me/[^/]+/send-verification-code.*")
    page.route(send_code, lambda route: route.abort())
    add_email(page, email)
    expect(page.get_by_test_id("auth-error")).to_have_text(
        "Could not reach the authentication service. Please try again."
    )
    expect(field).to_have_value(email)
    page.unroute(send_code)
    started = time.time()
    page.get_by_role("button", name="Send verification e-mail").click()
    expect(page.get_by_role("heading", name="Verify your e-mail")).to_be_visible()
    expect(page.get_by_test_id("onboarding-status")).to_have_text(f"We sent a verification e-mail to {email}.")

    verify_and_continue(page, code_of(gate_service.mail(email, "email_verification", after=started)), f"{base}/")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-in")
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    with server_app(gate_service) as server:
        user = next(iter(server.users.list(query=email).items))
        assert (user.primary_email, user.primary_email_verified, user.is_restricted) == (email, True, False)
        assert user.primary_email_auth_enabled
        assert [p.id for p in user.oauth_providers] == ["github"]


def test_a_guest_upgraded_without_an_e_mail_adds_one_and_keeps_the_account(gate_service, example_app, context) -> None:
    """A guest (the example's /guest page: an anonymous user with a note) signs in with GitHub,
    keeping the address private: the same user, now restricted for lack of a verified e-mail,
    goes to onboarding, adds and verifies an address, and is back on /guest with its id and note."""
    from .test_anonymous_upgrade import as_guest

    base = example_app(dataclasses.replace(gate_service.config, allow_anonymous=True))
    page = context.new_page()
    user_id, _ = as_guest(page, base, gate_service.url)
    page.get_by_test_id("guest-sign-in").click()
    github_without_email(page)
    page.wait_for_url(f"{base}/handler/onboarding?after_auth_return_to={quote('/guest', safe='')}")
    expect(page.get_by_role("heading", name="Add an e-mail address")).to_be_visible()
    email = f"guest-{uuid.uuid4().hex[:10]}@example.com"
    started = time.time()
    add_email(page, email)
    verify_and_continue(page, code_of(gate_service.mail(email, "email_verification", after=started)), f"{base}/guest")
    expect(page.get_by_test_id("guest-status")).to_have_attribute("data-anonymous", "false")
    expect(page.get_by_test_id("guest-id")).to_have_text(user_id)
    expect(page.get_by_test_id("guest-email")).to_have_text(email)
    expect(page.get_by_label("Your note")).to_have_value("bring the blue notebook")


def test_a_user_replaces_a_mistyped_address_on_the_onboarding_page(gate_service, example_app, context) -> None:
    """Signed up with a mistyped address: "Use another e-mail address" takes a new one (Cancel
    goes back), whose e-mail verifies the account; the mistyped one is no longer primary."""
    base = example_app(gate_service.config)
    page = context.new_page()
    mistyped = f"gate-{uuid.uuid4().hex[:10]}@exmaple.com"
    sign_up(page, base, mistyped)
    page.wait_for_url(f"{base}/handler/onboarding?**")
    page.get_by_role("button", name="Use another e-mail address").click()
    expect(page.get_by_role("heading", name="Add an e-mail address")).to_be_visible()
    expect(page.get_by_label("E-mail", exact=True)).to_be_focused()
    page.get_by_role("button", name="Cancel").click()
    expect(page.get_by_text(f"verify {mistyped}")).to_be_visible()

    page.get_by_role("button", name="Use another e-mail address").click()
    email = f"gate-{uuid.uuid4().hex[:10]}@example.com"
    started = time.time()
    add_email(page, email)
    expect(page.get_by_text(f"verify {email}")).to_be_visible()
    verify_and_continue(page, gate_service.mail(email, "email_verification", after=started)["link"], f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    with server_app(gate_service) as server:
        user = next(iter(server.users.list(query=email).items))
        channels = {c.value: (c.is_primary, c.is_verified) for c in server.contact_channels.list(user_id=user.id)}
        assert channels == {email: (True, True), mistyped: (False, False)}


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
    expect(page.get_by_test_id("onboarding-admin-reason")).to_contain_text(
        "Your account is under review until we hear from you."
    )
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


def test_the_add_email_states_pass_axe_and_fit_a_phone(gate_service, example_app, context) -> None:
    """The states of a user without an e-mail (the empty form refused, an address another account
    signs in with, the address added and its e-mail sent, replacing it): axe light and dark at 375
    and 1280 px, nothing wider than 320 px, screenshots onboarding-add-email-*."""
    base = example_app(gate_service.config)
    page = context.new_page()
    inspect = Inspector(page, AXE.read_text(encoding="utf-8"))
    sign_up_without_email(page, base)
    page.wait_for_url(f"{base}/handler/onboarding?**")
    page.get_by_role("button", name="Send verification e-mail").click()  # empty: the field's own message
    expect(page.get_by_test_id("email-error")).to_have_text("Enter your e-mail address.")
    inspect.check("onboarding-add-email")

    add_email(page, gate_service.sign_up())
    expect(page.get_by_test_id("email-error")).to_have_text(
        "Another account already signs in with this e-mail address."
    )
    inspect.check("onboarding-add-email-taken")

    add_email(page, f"added-{uuid.uuid4().hex[:10]}@example.com")
    expect(page.get_by_test_id("onboarding-status")).to_be_visible()
    inspect.check("onboarding-add-email-sent")

    page.get_by_role("button", name="Use another e-mail address").click()
    expect(page.get_by_role("button", name="Cancel")).to_be_visible()
    inspect.check("onboarding-add-email-replace")
    assert not inspect.problems, "\n".join(inspect.problems)
