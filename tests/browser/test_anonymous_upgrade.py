"""Anonymous users in Chromium (API 2.8, issue 29): the example's /guest page asks for
``useUser({ or: "anonymous" })``, which makes one anonymous user; the guest saves a note (client
metadata), then becomes a real account by signing up with a password, by an e-mail link, or
through an OAuth provider. Each keeps the user id and the note, and the app's back end (the
middleware, with ``allow_anonymous``) sees the same user before and after. An app that does not
opt in makes no anonymous user."""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from authmw.dev import Clock

from .test_email_flows import PASSWORD, MailService
from .test_oauth_flows import through_provider
from .test_page_quality import AXE, Inspector

pytestmark = pytest.mark.browser

SIGN_UP_PATH = "/api/v1/auth/anonymous/sign-up"


@pytest.fixture(scope="module")
def guest_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    """A 2.8 local service of its own with e-mail links and the mock GitHub on, and its outbox."""
    from authmw.dev import LocalService

    service = LocalService(tmp_path_factory.mktemp("guest-service"), port=0, quiet=True, clock=Clock(), api="2.8").start()
    try:
        guest = MailService(service)
        guest.configure(magic_link_enabled=True, oauth_providers=[{"id": "github", "type": "shared", "enabled": True}])  # type: ignore[arg-type]
        yield guest
    finally:
        service.stop()


def anonymous_sign_ups(page: Any, service_url: str) -> list[str]:
    """Every anonymous sign-up the page sends to the service, as it happens."""
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url) if r.method == "POST" and urlsplit(r.url).path == SIGN_UP_PATH else None)
    return seen


def as_guest(page: Any, base: str, service_url: str) -> tuple[str, list[str]]:
    """Opens /guest, waits for the anonymous user, saves a note; its id and the sign-ups seen."""
    sign_ups = anonymous_sign_ups(page, service_url)
    page.goto(f"{base}/guest")
    status = page.get_by_test_id("guest-status")
    expect(status).to_have_attribute("data-anonymous", "true")
    user_id = page.get_by_test_id("guest-id").inner_text()
    page.get_by_label("Your note").fill("bring the blue notebook")
    page.get_by_role("button", name="Save note").click()
    expect(page.get_by_test_id("guest-note-status")).to_have_text("Saved.")
    return user_id, sign_ups


def server_sees(page: Any, base: str) -> dict[str, Any]:
    answer = page.request.get(f"{base}/api/me", headers={"accept": "application/json"})
    assert answer.status == 200, answer.text()
    body: dict[str, Any] = answer.json()
    return body


def kept_after_upgrade(page: Any, base: str, user_id: str, email: str) -> None:
    """Back on /guest: a real account, the same id, the note kept; the back end agrees."""
    page.wait_for_url(f"{base}/guest")
    expect(page.get_by_test_id("guest-status")).to_have_attribute("data-anonymous", "false")
    expect(page.get_by_test_id("guest-email")).to_have_text(email)
    expect(page.get_by_test_id("guest-id")).to_have_text(user_id)
    expect(page.get_by_label("Your note")).to_have_value("bring the blue notebook")
    me = server_sees(page, base)
    assert me["id"] == user_id and me["primary_email"] == email


@pytest.fixture
def guest_app(guest_service: MailService, example_app: Any) -> str:
    """The example app on the guest service, signing anonymous users in (both tiers)."""
    base: str = example_app(dataclasses.replace(guest_service.config, allow_anonymous=True))
    return base


def test_one_anonymous_user_however_many_renders(guest_service, guest_app, context) -> None:
    page = context.new_page()
    user_id, sign_ups = as_guest(page, guest_app, guest_service.url)
    # StrictMode renders and runs effects twice; the header and the page both render the user.
    assert len(sign_ups) == 1, sign_ups
    # The app's back end (allow_anonymous) sees the anonymous user of the cookies.
    assert server_sees(page, guest_app)["id"] == user_id
    # A reload keeps the guest (no second user).
    page.reload()
    expect(page.get_by_test_id("guest-id")).to_have_text(user_id)
    assert len(sign_ups) == 1, sign_ups
    expect(page.get_by_label("Your note")).to_have_value("bring the blue notebook")


def test_the_guest_page_fits_a_narrow_phone_with_the_menu_open(guest_service, guest_app, context) -> None:
    """The /guest page with the guest's menu (Sign up / Sign in) open: nothing wider than a 320 px
    window, axe light and dark at 375 and 1280 px, screenshots (guest-menu-open-*)."""
    page = context.new_page()
    page.set_viewport_size({"width": 320, "height": 700})
    as_guest(page, guest_app, guest_service.url)
    page.get_by_test_id("user-button-trigger").click()
    menu = page.get_by_test_id("user-button-menu")
    expect(menu.get_by_test_id("user-button-sign-up")).to_be_visible()
    inspect = Inspector(page, AXE.read_text(encoding="utf-8"))
    inspect.check("guest-menu-open")
    expect(menu).to_be_visible()  # still open after the resizes: the check saw it
    assert not inspect.problems, "\n".join(inspect.problems)


def test_signing_up_with_a_password_keeps_the_id_and_the_note(guest_service, guest_app, context) -> None:
    page = context.new_page()
    user_id, _ = as_guest(page, guest_app, guest_service.url)
    page.get_by_test_id("guest-sign-up").click()
    # An anonymous user is not "signed in" for the pages: the forms are shown.
    form = page.get_by_test_id("sign-up-form")
    email = f"guest-{uuid.uuid4().hex[:10]}@example.com"
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign up", exact=True).click()
    kept_after_upgrade(page, guest_app, user_id, email)


def test_signing_in_by_e_mail_link_keeps_the_id_and_the_note(guest_service, guest_app, context) -> None:
    page = context.new_page()
    user_id, _ = as_guest(page, guest_app, guest_service.url)
    page.get_by_test_id("guest-sign-in").click()
    page.get_by_role("tab", name="E-mail link").click()
    email = f"guest-{uuid.uuid4().hex[:10]}@example.com"
    started = time.time()
    page.get_by_test_id("magic-link-form").get_by_label("E-mail").fill(email)
    page.get_by_role("button", name="Send sign-in link").click()
    expect(page.get_by_test_id("magic-link-sent")).to_be_visible()
    page.goto(guest_service.mail(email, "magic_link", after=started)["link"])
    page.get_by_test_id("confirm-link").click()  # a guest is asked, as a signed-out visitor is
    kept_after_upgrade(page, guest_app, user_id, email)


def test_signing_in_through_a_provider_keeps_the_id_and_the_note(guest_service, guest_app, context) -> None:
    page = context.new_page()
    user_id, _ = as_guest(page, guest_app, guest_service.url)
    page.get_by_test_id("guest-sign-in").click()
    email = f"guest-{uuid.uuid4().hex[:10]}@example.com"
    page.get_by_role("button", name="Continue with GitHub").click()
    through_provider(page, "GitHub", email)
    kept_after_upgrade(page, guest_app, user_id, email)


def test_an_existing_account_signs_in_and_the_guest_is_left(guest_service, guest_app, browser) -> None:
    """Signing into an account that exists is not an upgrade: that account's id, not the guest's."""
    owner = browser.new_context()
    page = owner.new_page()
    page.goto(f"{guest_app}/handler/sign-up")
    email = f"owner-{uuid.uuid4().hex[:10]}@example.com"
    form = page.get_by_test_id("sign-up-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign up", exact=True).click()
    page.wait_for_url(f"{guest_app}/")
    owner_id = server_sees(page, guest_app)["id"]
    owner.close()

    guest = browser.new_context()
    page = guest.new_page()
    user_id, _ = as_guest(page, guest_app, guest_service.url)
    page.get_by_test_id("guest-sign-in").click()
    form = page.get_by_test_id("sign-in-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url(f"{guest_app}/guest")
    expect(page.get_by_test_id("guest-id")).to_have_text(owner_id)
    assert owner_id != user_id
    guest.close()


def test_an_app_that_does_not_opt_in_makes_no_anonymous_user(guest_service, example_app, context) -> None:
    base = example_app(guest_service.config)  # allow_anonymous off
    page = context.new_page()
    sign_ups = anonymous_sign_ups(page, guest_service.url)
    page.goto(f"{base}/guest")
    expect(page.get_by_test_id("guest-off")).to_be_visible()
    page.goto(f"{base}/")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")
    assert sign_ups == []
