"""Open redirects in Chromium: a hostile after_auth_return_to never takes the browser off the app
(issue 18), neither after signing in nor through the signed-in "Continue" link."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from playwright.sync_api import expect

from .test_signup_flow import PASSWORD, sign_out, sign_up

pytestmark = pytest.mark.browser

HOSTILE = ["/.//evil.example", "/./\\evil.example", "/a/..//evil.example", "/%2e//evil.example", "\t//evil.example"]


def stays_on(page: Any, base: str) -> None:
    page.wait_for_load_state()
    assert urlsplit(page.url).netloc == urlsplit(base).netloc, page.url


@pytest.mark.parametrize("hostile", HOSTILE)
def test_signing_in_with_a_hostile_return_path_stays_on_the_app(
    hostile: str, local_service, example_app, context
) -> None:
    base = example_app(local_service.config)
    evil: list[str] = []
    context.route(re.compile(r"^https?://evil\.example"), lambda route: (evil.append(route.request.url), route.abort()))
    page = context.new_page()
    email = sign_up(page, base)
    sign_out(page, base)

    page.goto(f"{base}/handler/sign-in?after_auth_return_to={quote(hostile, safe='')}")
    form = page.get_by_test_id("sign-in-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url(re.compile(re.escape(base) + r"/"))
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    stays_on(page, base)

    # Signed in, the sign-in page offers "Continue": it must not lead off the app either.
    page.goto(f"{base}/handler/sign-in?after_auth_return_to={quote(hostile, safe='')}")
    continue_link = page.get_by_role("link", name=re.compile("Continue", re.IGNORECASE))
    expect(continue_link).to_be_visible()
    href = continue_link.get_attribute("href") or ""
    assert not href.startswith(("//", "/\\")) and "evil.example" not in urlsplit(href).netloc, href
    continue_link.click()
    stays_on(page, base)
    assert evil == []
