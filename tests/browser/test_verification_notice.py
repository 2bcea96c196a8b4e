"""The notice after a password sign-up (issue 41), in Chromium on the example app: where the
project does not require verified e-mails, the new user lands on the after-sign-up page and a
notice there (the header's UserButton shows it) names the address the verification e-mail went to; "Send again" sends a second one
(the local service's mailbox shows two); the notice stays on the tab's next pages until it is
dismissed or the address is verified, and never comes back after either. The sign-up building
block (<CredentialSignUp> on an app's own page) leaves the same notice. The notice passes axe
light and dark at 375 and 1280 px (screenshots in build/screenshots/verification-notice/)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from playwright.sync_api import expect

from .conftest import ROOT
from .test_email_flows import MailService
from .test_page_quality import AXE, Inspector
from .test_signup_flow import sign_out, submit_password_form

pytestmark = pytest.mark.browser

SHOTS = ROOT / "build" / "screenshots" / "verification-notice"
NOTE = "authmw-verification-sent"


@pytest.fixture(scope="module")
def notice_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    """A local service of its own, as a new project starts: verified e-mails are not required."""
    from authmw.dev import LocalService

    running = LocalService(tmp_path_factory.mktemp("notice-service"), port=0, quiet=True).start()
    try:
        yield MailService(running)
    finally:
        running.stop()


def sign_up(page: Any, base: str, email: str) -> None:
    """Signs up on the handler's sign-up page and waits for the after-sign-up page (home)."""
    page.goto(f"{base}/handler/sign-up")
    submit_password_form(page, "sign-up-form", "Sign up", email)
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)


def notice(page: Any) -> Any:
    return page.get_by_role("region", name="Check your inbox")


def note_removed(page: Any) -> None:
    """Waits until the notice has removed the sign-up's note (it does once it sees the user)."""
    page.wait_for_function("(key) => sessionStorage.getItem(key) === null", arg=NOTE)


def verification_mails(service: MailService, email: str) -> list[dict[str, Any]]:
    answer = httpx.get(f"{service.url}/dev/outbox", params={"to": email})
    assert answer.status_code == 200, answer.text
    return [item for item in answer.json()["items"] if item["kind"] == "email_verification"]


def test_the_notice_names_the_address_sends_again_and_goes_for_good_when_dismissed(
    notice_service: MailService, example_app: Any, context: Any
) -> None:
    base = example_app(notice_service.config)
    page = context.new_page()
    email = f"notice-{uuid.uuid4().hex[:10]}@example.com"
    sign_up(page, base, email)

    shown = notice(page)
    expect(shown).to_contain_text(f"We sent a verification link to {email}.")
    assert len(verification_mails(notice_service, email)) == 1
    # Not in the way: nothing took the focus, the page behind stays usable.
    assert page.evaluate("() => document.activeElement === document.body")

    started = time.time()
    shown.get_by_role("button", name="Send again").click()
    expect(shown.get_by_role("status")).to_contain_text("Sent again.")
    notice_service.mail(email, "email_verification", after=started)
    assert len(verification_mails(notice_service, email)) == 2
    # The mailbox page the README points to shows both.
    mailbox = context.new_page()
    mailbox.goto(f"{notice_service.url}/dev/mailbox?{urlencode({'to': email})}")
    expect(mailbox.locator("article")).to_have_count(2)
    mailbox.close()

    # The tab's next pages keep it (a reload, another page of the app) until it is dismissed.
    page.reload()
    expect(notice(page)).to_contain_text(email)
    page.goto(f"{base}/protected")
    expect(page.get_by_test_id("protected-email")).to_have_text(email)
    expect(notice(page)).to_be_visible()
    notice(page).get_by_role("button", name="Dismiss").click()
    expect(page.get_by_test_id("verification-notice")).to_have_count(0)
    page.goto(base)
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    expect(page.get_by_test_id("verification-notice")).to_have_count(0)
    assert page.evaluate("(key) => sessionStorage.getItem(key)", NOTE) is None


def test_the_notice_goes_for_good_once_the_address_is_verified(
    notice_service: MailService, example_app: Any, context: Any
) -> None:
    base = example_app(notice_service.config)
    page = context.new_page()
    email = f"notice-{uuid.uuid4().hex[:10]}@example.com"
    started = time.time()
    sign_up(page, base, email)
    expect(notice(page)).to_contain_text(email)

    # The e-mail's link, opened in this tab: the page asks, verifies, and the notice goes with it.
    page.goto(notice_service.mail(email, "email_verification", after=started)["link"])
    page.get_by_test_id("confirm-link").click()
    expect(page.get_by_test_id("email-verified")).to_be_visible()
    expect(page.get_by_test_id("verification-notice")).to_have_count(0)
    page.goto(base)
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    note_removed(page)  # the header's UserButton loaded the notice, which saw the verified address
    expect(page.get_by_test_id("verification-notice")).to_have_count(0)
    page.reload()
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    expect(page.get_by_test_id("verification-notice")).to_have_count(0)


def test_a_sign_up_with_the_building_block_leaves_the_notice_and_another_user_does_not_see_it(
    notice_service: MailService, example_app: Any, context: Any
) -> None:
    """<CredentialSignUp> on the example's own page; then a sign-out and someone else's sign-in
    in the same tab: the notice was the first user's only."""
    base = example_app(notice_service.config)
    page = context.new_page()
    email = f"block-{uuid.uuid4().hex[:10]}@example.com"
    page.goto(f"{base}/custom-sign-up")
    submit_password_form(page, "sign-up-form", "Sign up", email)
    page.wait_for_url(f"{base}/")
    expect(notice(page)).to_contain_text(email)

    other = notice_service.sign_up()
    sign_out(page, base)
    page.goto(f"{base}/handler/sign-in")
    submit_password_form(page, "sign-in-form", "Sign in", other)
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(other)
    note_removed(page)
    expect(page.get_by_test_id("verification-notice")).to_have_count(0)


def test_the_notice_passes_axe_and_is_screenshotted(notice_service: MailService, example_app: Any, context: Any) -> None:
    base = example_app(notice_service.config)
    page = context.new_page()
    email = f"notice-{uuid.uuid4().hex[:10]}-with-a-long-name@example.com"
    sign_up(page, base, email)
    expect(notice(page)).to_contain_text(email)
    inspector = Inspector(page, AXE.read_text(encoding="utf-8"), shots=SHOTS)
    inspector.check("home-with-notice")
    notice(page).get_by_role("button", name="Send again").click()
    expect(notice(page).get_by_role("status")).to_contain_text("Sent again.")
    inspector.check("home-with-notice-sent-again")
    assert not inspector.problems, "\n".join(inspector.problems)
