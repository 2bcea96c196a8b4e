"""Passkeys and TOTP through the React pages in Chromium (issue 11).

Passkeys use a CDP virtual authenticator (ctap2, internal transport, resident keys, user
verification) at http://localhost:PORT, the origin the local service allows. TOTP codes are
computed with pyotp from the secret the page shows, at the service's clock, which stands still
for the test: no test waits for a 30-second step."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator
from typing import Any

import deployment
import pyotp
import pytest
from playwright.sync_api import expect

from authmw import AuthConfig
from authmw.dev import Clock, LocalService

from .test_signup_flow import sign_out

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


class PasskeyService:
    """A local service of its own with passkeys on, and its clock."""

    def __init__(self, service: LocalService, clock: Clock) -> None:
        self.service = service
        self.clock = clock
        self.config = AuthConfig(
            project_id=service.project_id, api_url=service.url, publishable_client_key=service.publishable_client_key
        )
        deployment.set_project_config(service, passkey_enabled=True)


@pytest.fixture(scope="module")
def passkey_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PasskeyService]:
    clock = Clock()
    with LocalService(tmp_path_factory.mktemp("passkeys"), quiet=True, clock=clock) as service:
        yield PasskeyService(service, clock)


@pytest.fixture
def now(passkey_service: PasskeyService) -> Iterator[float]:
    """The service's clock stands still for the test."""
    try:
        yield passkey_service.clock.freeze()
    finally:
        passkey_service.clock.reset()


def virtual_authenticator(page: Any) -> tuple[Any, str]:
    """A platform authenticator that holds discoverable credentials and verifies the user."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    added = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return cdp, added["authenticatorId"]


def without_autofill(page: Any) -> None:
    """From the next page load on, the browser says it has no conditional UI (as some do not)."""
    page.add_init_script("PublicKeyCredential.isConditionalMediationAvailable = async () => false;")


def credentials(cdp: Any, authenticator_id: str) -> list[dict[str, Any]]:
    return cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator_id})["credentials"]


def sign_up(page: Any, base: str) -> str:
    email = f"mfa-{uuid.uuid4().hex[:12]}@example.com"
    page.goto(f"{base}/handler/sign-up")
    form = page.get_by_test_id("sign-up-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign up").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    return email


def test_add_a_passkey_sign_in_with_it_remove_it(passkey_service, example_app, context) -> None:
    base = example_app(passkey_service.config)
    assert base.startswith("http://localhost:")
    page = context.new_page()
    cdp, authenticator = virtual_authenticator(page)
    email = sign_up(page, base)

    page.goto(f"{base}/handler/account-settings/passkeys")
    section = page.get_by_test_id("settings-passkeys")
    expect(section.get_by_test_id("passkey-status")).to_have_attribute("data-registered", "false")
    section.get_by_test_id("add-passkey").click()
    expect(section.get_by_test_id("passkey-done")).to_have_text("Passkey added. You can now sign in with it.")
    expect(section.get_by_test_id("passkey-status")).to_have_attribute("data-registered", "true")
    stored = credentials(cdp, authenticator)
    assert len(stored) == 1 and stored[0]["isResidentCredential"] and stored[0]["rpId"] == "localhost"

    # Conditional UI: the sign-in page asks for a passkey through the e-mail field's autofill,
    # which the virtual authenticator answers at once.
    sign_out(page, base)
    page.goto(f"{base}/handler/sign-in")
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)

    # The button, in a browser without conditional UI (so no autofill request races the click).
    sign_out(page, base)
    without_autofill(page)
    page.goto(f"{base}/handler/sign-in")
    page.get_by_test_id("passkey-sign-in").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)

    page.goto(f"{base}/handler/account-settings/passkeys")
    section = page.get_by_test_id("settings-passkeys")
    section.get_by_test_id("remove-passkey").click()
    expect(section.get_by_test_id("passkey-done")).to_have_text("Passkey removed.")
    expect(section.get_by_test_id("passkey-status")).to_have_attribute("data-registered", "false")

    # The authenticator still holds the credential; the service no longer knows it.
    sign_out(page, base)
    page.goto(f"{base}/handler/sign-in")
    page.get_by_test_id("passkey-sign-in").click()
    expect(page.get_by_test_id("auth-error")).to_have_text(
        "This passkey is not registered for any account here. Sign in another way, then add it in your account settings."
    )
    assert page.url.startswith(f"{base}/handler/sign-in")
    page.goto(f"{base}/")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")


def test_turn_on_totp_from_the_qr_page_then_sign_in_with_the_code(passkey_service, example_app, context, now) -> None:
    base = example_app(passkey_service.config)
    page = context.new_page()
    email = sign_up(page, base)

    page.goto(f"{base}/handler/account-settings/two-factor")
    section = page.get_by_test_id("settings-two-factor")
    expect(section.get_by_test_id("two-factor-status")).to_have_attribute("data-enabled", "false")
    section.get_by_test_id("enable-totp").click()
    expect(section.get_by_role("img", name="QR code for your authenticator app")).to_be_visible()
    secret = section.get_by_test_id("totp-secret").input_value().replace(" ", "")
    totp = pyotp.TOTP(secret)
    assert len(base64.b32decode(secret + "=" * (-len(secret) % 8))) == 20

    code_field = section.get_by_label("Code from the app")
    code_field.fill("000000" if totp.now() != "000000" else "111111")
    section.get_by_test_id("confirm-totp").click()
    expect(section.get_by_test_id("code-error")).to_contain_text("The code is not correct")
    expect(section.get_by_test_id("two-factor-status")).to_have_count(0)  # still setting up, nothing saved

    code_field.fill(totp.now())  # the browser's clock: enrolment accepts one step either side
    section.get_by_test_id("confirm-totp").click()
    expect(section.get_by_test_id("two-factor-status")).to_have_attribute("data-enabled", "true")

    sign_out(page, base)
    page.goto(f"{base}/handler/sign-in")
    form = page.get_by_test_id("sign-in-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign in").click()
    prompt = page.get_by_test_id("mfa-prompt")
    expect(prompt).to_be_visible()

    code = totp.at(int(now))  # the service's clock
    prompt.get_by_label("Authentication code").fill("000000" if code != "000000" else "111111")
    prompt.get_by_role("button", name="Verify").click()
    expect(prompt.get_by_role("alert")).to_be_visible()
    prompt.get_by_label("Authentication code").fill(code)
    prompt.get_by_role("button", name="Verify").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)

    page.goto(f"{base}/handler/account-settings/two-factor")
    section = page.get_by_test_id("settings-two-factor")
    section.get_by_test_id("disable-totp").click()
    expect(section.get_by_test_id("two-factor-status")).to_have_attribute("data-enabled", "false")


def test_a_passkey_sign_in_of_a_totp_user_asks_for_the_code(passkey_service, example_app, context, now) -> None:
    base = example_app(passkey_service.config)
    page = context.new_page()
    virtual_authenticator(page)
    email = sign_up(page, base)
    page.goto(f"{base}/handler/account-settings/passkeys")
    page.get_by_test_id("settings-passkeys").get_by_test_id("add-passkey").click()
    expect(page.get_by_test_id("passkey-status")).to_have_attribute("data-registered", "true")
    page.get_by_test_id("settings-nav-two-factor").click()
    section = page.get_by_test_id("settings-two-factor")
    section.get_by_test_id("enable-totp").click()
    totp = pyotp.TOTP(section.get_by_test_id("totp-secret").input_value().replace(" ", ""))
    section.get_by_label("Code from the app").fill(totp.now())
    section.get_by_test_id("confirm-totp").click()
    expect(section.get_by_test_id("two-factor-status")).to_have_attribute("data-enabled", "true")

    sign_out(page, base)
    page.goto(f"{base}/handler/sign-in")  # the autofill request signs in, then the code is asked for
    prompt = page.get_by_test_id("mfa-prompt")
    prompt.get_by_label("Authentication code").fill(totp.at(int(now)))
    prompt.get_by_role("button", name="Verify").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_test_id("user-email")).to_have_text(email)
