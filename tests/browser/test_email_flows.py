"""E-mail flows of the React pages in Chromium, with links read from the local service's outbox:
forgot password then reset, magic-link sign-in (link and typed code), team invitation."""

from __future__ import annotations

import base64
import os
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

import deployment
import httpx
import pyotp
import pytest
from playwright.sync_api import expect

from authmw import AuthConfig
from authmw.dev import Clock

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a brand new password"


class MailService:
    """A local service of its own (magic link and client team creation on), with its outbox."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.url: str = service.url
        self.config = AuthConfig(
            project_id=service.project_id,
            api_url=service.url,
            publishable_client_key=service.publishable_client_key,
        )
        self.clock = Clock()  # the service's own, set by the fixture
        self.access_tokens: dict[str, str] = {}
        self.refresh_tokens: dict[str, str] = {}
        self._client_headers = deployment.client_headers(service)

    def configure(self, **config: bool) -> None:
        deployment.set_project_config(self.service, **config)

    def sign_up(self) -> str:
        email = f"mail-{uuid.uuid4().hex[:12]}@example.com"
        r = httpx.post(
            f"{self.url}/api/v1/auth/password/sign-up",
            headers=self._client_headers,
            json={
                "email": email,
                "password": PASSWORD,
                "verification_callback_url": "http://localhost/verify",
            },
        )
        assert r.status_code == 200, r.text
        self.access_tokens[email] = r.json()["access_token"]
        self.refresh_tokens[email] = r.json()["refresh_token"]
        return email

    def refresh_works(self, email: str) -> bool:
        r = httpx.post(
            f"{self.url}/api/v1/auth/sessions/current/refresh",
            headers={
                **self._client_headers,
                "x-stack-refresh-token": self.refresh_tokens[email],
            },
        )
        return r.status_code == 200

    def update_me(self, email: str, **fields: Any) -> None:
        r = httpx.patch(
            f"{self.url}/api/v1/users/me",
            headers={
                **self._client_headers,
                "x-stack-access-token": self.access_tokens[email],
            },
            json=fields,
        )
        assert r.status_code == 200, r.text

    def mail(self, to: str, kind: str, *, after: float = 0.0, timeout: float = 60.0) -> dict[str, Any]:
        """The newest e-mail of `kind` to `to` sent after `after` (epoch seconds), waiting for it."""
        deadline = time.monotonic() + timeout
        seen: list[Any] = []
        while time.monotonic() < deadline:
            r = httpx.get(f"{self.url}/dev/outbox", params={"to": to})
            assert r.status_code == 200, f"GET /dev/outbox answered {r.status_code}: {r.text[:300]}"
            seen = r.json()["items"]
            for item in seen:  # newest first
                if item["kind"] == kind and item["sent_at_millis"] >= after * 1000 - 1000:
                    assert item["link"], f"the {kind} e-mail to {to} has no link: {item}"
                    return item
            time.sleep(0.2)
        raise AssertionError(f"no {kind} e-mail to {to} in the outbox within {timeout} s; it holds {seen}")


@pytest.fixture(scope="module")
def mail_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    from authmw.dev import LocalService

    clock = Clock()
    service = LocalService(tmp_path_factory.mktemp("mail-service"), port=0, quiet=True, clock=clock).start()
    try:
        mail = MailService(service)
        mail.clock = clock
        mail.configure(magic_link_enabled=True, client_team_creation_enabled=True)
        yield mail
    finally:
        service.stop()


def sign_in(page: Any, base: str, email: str, password: str, *, from_page: bool = False) -> None:
    if not from_page:
        page.goto(f"{base}/handler/sign-in")
    form = page.get_by_test_id("sign-in-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(password)
    form.get_by_role("button", name="Sign in", exact=True).click()


def test_forgot_password_then_reset_through_the_mailbox_then_sign_in(mail_service, example_app, context) -> None:
    base = example_app(mail_service.config)
    email = mail_service.sign_up()
    page = context.new_page()

    page.goto(f"{base}/handler/sign-in")
    page.get_by_test_id("forgot-password-link").click()
    page.wait_for_url(f"{base}/handler/forgot-password")
    started = time.time()
    page.get_by_test_id("forgot-password-form").get_by_label("E-mail").fill(email)
    page.get_by_role("button", name="Send reset link").click()
    expect(page.get_by_test_id("forgot-password-sent")).to_contain_text(email)

    link = mail_service.mail(email, "password_reset", after=started)["link"]
    assert link.startswith(f"{base}/handler/password-reset?") and "code=" in link
    page.goto(link)
    form = page.get_by_test_id("password-reset-form")
    form.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    form.get_by_label("Repeat new password").fill(NEW_PASSWORD)
    form.get_by_role("button", name="Set new password").click()
    expect(page.get_by_test_id("password-reset-done")).to_be_visible()

    # The link is single use.
    page.goto(link)
    expect(page.get_by_test_id("auth-error")).to_have_text("This password reset link has already been used.")
    expect(page.get_by_test_id("request-new-link")).to_have_attribute("href", "/handler/forgot-password")

    sign_in(page, base, email, PASSWORD)
    expect(page.get_by_test_id("auth-error")).to_have_text("Wrong e-mail or password.")
    sign_in(page, base, email, NEW_PASSWORD, from_page=True)
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)


def ask_for_a_sign_in_link(page: Any, sign_in_url: str, email: str) -> float:
    """On the sign-in page at ``sign_in_url``, asks for an e-mailed sign-in link to ``email``;
    returns when it asked (epoch seconds, for ``MailService.mail(after=...)``)."""
    page.goto(sign_in_url)
    page.get_by_role("tab", name="E-mail link").click()
    started = time.time()
    page.get_by_test_id("magic-link-form").get_by_label("E-mail").fill(email)
    page.get_by_role("button", name="Send sign-in link").click()
    return started


def test_magic_link_sign_in_through_the_mailbox(mail_service, example_app, context) -> None:
    """A new address: the link from the e-mail signs the new user up and in."""
    base = example_app(mail_service.config)
    email = f"magic-{uuid.uuid4().hex[:12]}@example.com"
    page = context.new_page()

    started = ask_for_a_sign_in_link(page, f"{base}/handler/sign-in", email)
    expect(page.get_by_test_id("magic-link-sent")).to_contain_text("Check your inbox")

    link = mail_service.mail(email, "magic_link", after=started)["link"]
    assert link.startswith(f"{base}/handler/magic-link-callback?") and "code=" in link
    page.goto(link)
    page.get_by_test_id("confirm-link").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)

    # Opened again while signed in, it leaves the session as it is (as the sign-in page would).
    page.goto(link)
    expect(page.get_by_test_id("already-signed-in")).to_have_text(f"You are signed in as {email}.")
    # Used once: opened again signed out, it explains and leads back to sign-in.
    signed_out = context.browser.new_context().new_page()
    signed_out.goto(link)
    signed_out.get_by_test_id("confirm-link").click()
    expect(signed_out.get_by_test_id("auth-error")).to_have_text("This sign-in link has already been used.")
    signed_out.context.close()


def test_a_magic_link_opened_while_signed_in_does_not_swap_the_account(mail_service, example_app, context) -> None:
    """Attack (login CSRF): a page of another site sends a signed-in user to a magic link of
    the attacker's own account. The user stays who they were and the link stays unused: opened
    signed out (the control), the same link signs its own account in."""
    base = example_app(mail_service.config)
    victim = mail_service.sign_up()
    attacker = f"magic-{uuid.uuid4().hex[:12]}@example.com"
    page = context.new_page()
    started = ask_for_a_sign_in_link(page, f"{base}/handler/sign-in", attacker)
    expect(page.get_by_test_id("magic-link-sent")).to_be_visible()
    link = mail_service.mail(attacker, "magic_link", after=started)["link"]

    sign_in(page, base, victim, PASSWORD)
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(victim)
    page.goto(link)
    expect(page.get_by_test_id("already-signed-in")).to_have_text(f"You are signed in as {victim}.")
    page.get_by_role("link", name="Continue").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(victim)

    control = context.browser.new_context().new_page()
    control.goto(link)
    control.get_by_test_id("confirm-link").click()
    control.wait_for_url(f"{base}/")
    expect(control.get_by_test_id("user-email")).to_have_text(attacker)
    control.context.close()


def test_a_magic_link_opened_signed_out_signs_nobody_in_until_the_click(mail_service, example_app, context) -> None:
    """Attack (login CSRF; a mail scanner): another site sends a signed-out visitor to a magic
    link of the attacker's own account. Opening it only asks "Sign in with this link?": nobody
    is signed in, and the code stays unused. Control: the click on Sign in signs that account in."""
    base = example_app(mail_service.config)
    attacker = f"magic-{uuid.uuid4().hex[:12]}@example.com"
    page = context.new_page()
    started = ask_for_a_sign_in_link(page, f"{base}/handler/sign-in", attacker)
    expect(page.get_by_test_id("magic-link-sent")).to_be_visible()
    link = mail_service.mail(attacker, "magic_link", after=started)["link"]

    visitor = context.browser.new_context()
    try:
        victim = visitor.new_page()
        sign_ins: list[str] = []
        victim.on(
            "request", lambda request: sign_ins.append(request.url) if "/auth/otp/sign-in" in request.url else None
        )
        victim.goto(link)
        expect(victim.get_by_role("heading", level=1)).to_have_text("Sign in with this link?")
        expect(victim.get_by_test_id("confirm-link")).to_be_visible()
        # Cancel leaves for the app's home, signed out.
        victim.get_by_test_id("confirm-link-cancel").click()
        victim.wait_for_url(f"{base}/")
        expect(victim.get_by_text("You are signed out.")).to_be_visible()
        assert sign_ins == []

        # Control: the same link still works (so nothing used it), on the click.
        victim.goto(link)
        victim.get_by_test_id("confirm-link").click()
        victim.wait_for_url(f"{base}/")
        expect(victim.get_by_test_id("user-email")).to_have_text(attacker)
        assert len(sign_ins) == 1
    finally:
        visitor.close()


def test_magic_link_typed_code_through_the_mailbox(mail_service, example_app, context) -> None:
    """The 6-character code of the e-mail, typed on the sign-in page, signs in (and returns)."""
    base = example_app(mail_service.config)
    email = f"code-{uuid.uuid4().hex[:12]}@example.com"
    page = context.new_page()

    started = ask_for_a_sign_in_link(page, f"{base}/handler/sign-in?after_auth_return_to=%2F%3Ffrom%3Dcode", email)
    expect(page.get_by_test_id("magic-link-sent")).to_be_visible()

    mail = mail_service.mail(email, "magic_link", after=started)
    match = re.search(r"\b([A-Z0-9]{6})\b", mail["subject"])
    assert match, f"no 6-character code in the subject {mail['subject']!r}"
    page.get_by_test_id("magic-link-code-form").get_by_label("Code from the e-mail").fill(match.group(1))
    page.get_by_role("button", name="Sign in with code").click()
    page.wait_for_url(f"{base}/?from=code")
    expect(page.get_by_test_id("user-email")).to_have_text(email)


def test_magic_link_for_an_unverified_password_account_is_refused_clearly(mail_service, example_app, context) -> None:
    base = example_app(mail_service.config)
    email = mail_service.sign_up()  # password account, e-mail not verified
    page = context.new_page()
    ask_for_a_sign_in_link(page, f"{base}/handler/sign-in", email)
    expect(page.get_by_test_id("auth-error")).to_contain_text("sign in with your password")


def test_invite_a_second_user_who_accepts_through_the_mailbox_link(mail_service, example_app, browser) -> None:
    base = example_app(mail_service.config)
    owner, guest = mail_service.sign_up(), mail_service.sign_up()
    team_name = f"Team {uuid.uuid4().hex[:6]}"
    owner_context, guest_context = browser.new_context(), browser.new_context()
    try:
        for ctx in (owner_context, guest_context):
            ctx.set_default_timeout(60_000)

        # The owner creates a team and invites the guest from the account settings.
        page = owner_context.new_page()
        sign_in(page, base, owner, PASSWORD)
        page.wait_for_url(f"{base}/")
        page.get_by_test_id("account-settings-link").click()
        page.wait_for_url(f"{base}/handler/account-settings")
        page.get_by_test_id("settings-nav-teams").click()
        page.get_by_test_id("create-team-open").click()  # the row's action opens its form
        expect(page.get_by_label("Team name", exact=True)).to_be_focused()
        page.get_by_test_id("create-team-form").get_by_label("Team name", exact=True).fill(team_name)
        page.get_by_role("button", name="Create team").click()
        team = page.locator(f'[data-testid=team][data-team-name="{team_name}"]')
        expect(team).to_be_visible()
        started = time.time()
        team.get_by_test_id("invite-open").click()  # "Invite someone to <team>": a row that opens its form
        invite = team.get_by_test_id("invite-form")
        expect(invite.get_by_label("E-mail", exact=True)).to_be_focused()
        invite.get_by_label("E-mail", exact=True).fill(guest)
        invite.get_by_role("button", name="Send invitation").click()
        expect(team.get_by_test_id("invite-status")).to_have_text(f"Invitation sent to {guest}.")
        expect(invite).to_have_count(0)  # a success closes the form
        expect(team.locator(f'[data-testid=pending-invitation][data-email="{guest}"]')).to_be_visible()

        link = mail_service.mail(guest, "team_invitation", after=started)["link"]
        assert link.startswith(f"{base}/handler/team-invitation?") and "code=" in link

        # The guest opens the link signed out, signs in, comes back to it and joins.
        page = guest_context.new_page()
        page.goto(link)
        page.get_by_test_id("invitation-sign-in-link").click()
        page.wait_for_url(re.compile(r".*/handler/sign-in\?after_auth_return_to=.*"))
        sign_in(page, base, guest, PASSWORD, from_page=True)
        page.wait_for_url(link)
        expect(page.get_by_test_id("invitation-team")).to_have_text(team_name)
        page.get_by_test_id("invitation-accept").click()
        expect(page.get_by_test_id("invitation-joined")).to_have_text(f"You joined {team_name}.")

        page.goto(f"{base}/handler/account-settings/teams")
        team = page.locator(f'[data-testid=team][data-team-name="{team_name}"]')
        expect(team).to_be_visible()
        members = team.get_by_test_id("team-members")
        expect(members).to_contain_text("you")
        expect(members).to_contain_text("2 members:")  # the owner and the guest
    finally:
        owner_context.close()
        guest_context.close()


def test_add_an_email_in_account_settings_and_verify_it_through_the_mailbox(mail_service, example_app, context) -> None:
    base = example_app(mail_service.config)
    email = mail_service.sign_up()
    extra = f"extra-{uuid.uuid4().hex[:12]}@example.com"
    page = context.new_page()
    sign_in(page, base, email, PASSWORD)
    page.wait_for_url(f"{base}/")
    page.goto(f"{base}/handler/account-settings/emails")

    page.get_by_test_id("add-email-open").click()
    page.get_by_test_id("add-email-form").get_by_label("E-mail", exact=True).fill(extra)
    page.get_by_role("button", name="Add e-mail").click()
    # The form closes after adding; focus returns to the row's action.
    expect(page.get_by_test_id("add-email-form")).to_have_count(0)
    expect(page.get_by_test_id("add-email-open")).to_be_focused()
    row = page.locator(f'[data-testid=contact-channel][data-value="{extra}"]')
    expect(row.get_by_test_id("contact-channel-verified")).to_have_attribute("data-verified", "false")
    started = time.time()
    row.get_by_role("button", name="Send verification e-mail").click()
    expect(page.get_by_test_id("emails-status")).to_have_text(f"We sent a verification e-mail to {extra}.")

    link = mail_service.mail(extra, "email_verification", after=started)["link"]
    assert link.startswith(f"{base}/handler/email-verification?") and "code=" in link
    page.goto(link)
    expect(page.get_by_role("heading", level=1)).to_have_text("Verify your e-mail address?")
    page.get_by_role("button", name="Verify", exact=True).click()
    expect(page.get_by_test_id("email-verified")).to_be_visible()
    page.goto(f"{base}/handler/account-settings/emails")
    expect(row.get_by_test_id("contact-channel-verified")).to_have_attribute("data-verified", "true")


@pytest.fixture
def frozen_clock(mail_service: MailService) -> Iterator[float]:
    """The service's clock stands still for the test (its TOTP step stays the one a code is for)."""
    try:
        yield mail_service.clock.freeze()
    finally:
        mail_service.clock.reset()


def test_password_sign_in_with_totp_asks_for_the_code(mail_service, example_app, context, frozen_clock) -> None:
    base = example_app(mail_service.config)
    email = mail_service.sign_up()
    secret = os.urandom(20)
    mail_service.update_me(email, totp_secret_base64=base64.b64encode(secret).decode())
    page = context.new_page()
    sign_in(page, base, email, PASSWORD)
    prompt = page.get_by_test_id("mfa-prompt")
    expect(prompt).to_be_visible()

    code = pyotp.TOTP(base64.b32encode(secret).decode()).at(int(frozen_clock))
    prompt.get_by_label("Authentication code").fill("000000" if code != "000000" else "111111")
    prompt.get_by_role("button", name="Verify").click()
    expect(prompt.get_by_role("alert")).to_have_text(
        "The code is not correct. Check your authenticator app and try again."
    )

    prompt.get_by_label("Authentication code").fill(code)
    prompt.get_by_role("button", name="Verify").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)


def test_changing_the_password_keeps_this_session_and_ends_the_others(mail_service, example_app, context) -> None:
    base = example_app(mail_service.config)
    email = mail_service.sign_up()  # a first session, outside the browser
    assert mail_service.refresh_works(email)
    page = context.new_page()
    sign_in(page, base, email, PASSWORD)
    page.wait_for_url(f"{base}/")
    page.goto(f"{base}/handler/account-settings/password")

    # Closed until asked for: the row's "Change" opens it, Cancel (or Escape) closes it again.
    expect(page.get_by_test_id("password-form")).to_have_count(0)
    page.get_by_test_id("password-open").click()
    expect(page.get_by_label("Current password")).to_be_focused()
    page.get_by_test_id("password-cancel").click()
    expect(page.get_by_test_id("password-form")).to_have_count(0)
    expect(page.get_by_test_id("password-open")).to_be_focused()
    page.get_by_test_id("password-open").click()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("password-form")).to_have_count(0)
    page.get_by_test_id("password-open").click()

    form = page.get_by_test_id("password-form")
    form.get_by_label("Current password").fill(PASSWORD)
    form.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    form.get_by_label("Repeat new password").fill(NEW_PASSWORD)
    form.get_by_role("button", name="Change password").click()
    expect(page.get_by_test_id("password-done")).to_contain_text("Your password has been changed")
    expect(page.get_by_test_id("password-form")).to_have_count(0)

    assert not mail_service.refresh_works(email), "the other session should have ended"
    context.clear_cookies(name="stack-access")  # force a refresh with this session's refresh token
    page.goto(base)
    expect(page.get_by_test_id("user-email")).to_have_text(email)
