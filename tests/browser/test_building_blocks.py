"""The building blocks of an app's own sign-in page in Chromium (issue 40): the example's
/custom-sign-in is made of OAuthButtonGroup, CredentialSignIn, SignUpButton and UserAvatar. A
user signs in with a password there and comes back to the page (after_auth_return_to), or
through a provider; the page passes axe light and dark at 375 and 1280 px and fits 320 px
(screenshots custom-sign-in-*)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from authmw.dev import Clock

from .test_email_flows import PASSWORD, MailService
from .test_oauth_flows import through_provider
from .test_page_quality import AXE, Inspector

pytestmark = pytest.mark.browser

BACK_HERE = "/custom-sign-in?after_auth_return_to=" + quote("/custom-sign-in", safe="")


@pytest.fixture(scope="module")
def blocks_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    """A local service of its own with the mock GitHub on."""
    from authmw.dev import LocalService

    service = LocalService(tmp_path_factory.mktemp("blocks-service"), port=0, quiet=True, clock=Clock(), api="2.8").start()
    try:
        blocks = MailService(service)
        blocks.configure(oauth_providers=[{"id": "github", "type": "shared", "enabled": True}])  # type: ignore[arg-type]
        yield blocks
    finally:
        service.stop()


def test_signing_in_with_a_password_on_the_apps_own_page(blocks_service, example_app, context) -> None:
    base = example_app(blocks_service.config)
    email = blocks_service.sign_up()
    page = context.new_page()
    page.goto(base + BACK_HERE)
    expect(page.get_by_role("heading", name="Welcome back to the example")).to_be_visible()
    expect(page.get_by_role("button", name="Continue with GitHub")).to_be_visible()
    sign_up = page.get_by_role("link", name="Create an account")
    # the page's own after_auth_return_to travels on: the sign-up page comes back where this one would
    expect(sign_up).to_have_attribute("href", "/handler/sign-up?after_auth_return_to=" + quote("/custom-sign-in", safe=""))

    # A wrong password is refused where the form is, and nothing leaves the page.
    form = page.get_by_test_id("sign-in-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill("not the password")
    form.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_test_id("auth-error")).to_be_visible()
    expect(page.get_by_test_id("custom-sign-in")).to_be_visible()

    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url(f"{base}/custom-sign-in")
    expect(page.get_by_test_id("custom-signed-in-as")).to_have_text(email)
    expect(page.get_by_role("img", name=email)).to_be_visible()
    expect(page.get_by_test_id("sign-in-form")).to_have_count(0)


def test_signing_in_through_a_provider_from_the_group(blocks_service, example_app, context) -> None:
    base = example_app(blocks_service.config)
    page = context.new_page()
    page.goto(base + BACK_HERE)
    email = f"blocks-{uuid.uuid4().hex[:10]}@example.com"
    page.get_by_role("button", name="Continue with GitHub").click()
    through_provider(page, "GitHub", email)
    page.wait_for_url(f"{base}/custom-sign-in")
    expect(page.get_by_test_id("custom-signed-in-as")).to_have_text(email)


def test_the_custom_page_passes_axe_and_fits_a_phone(blocks_service, example_app, context) -> None:
    base = example_app(blocks_service.config)
    email = blocks_service.sign_up()
    page = context.new_page()
    inspect = Inspector(page, AXE.read_text(encoding="utf-8"))
    page.goto(base + BACK_HERE)
    expect(page.get_by_role("button", name="Continue with GitHub")).to_be_visible()
    inspect.check("custom-sign-in")
    form = page.get_by_test_id("sign-in-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url(f"{base}/custom-sign-in")
    expect(page.get_by_role("img", name=email)).to_be_visible()  # UserAvatar
    inspect.check("custom-sign-in-signed-in")
    assert not inspect.problems, "\n".join(inspect.problems)
