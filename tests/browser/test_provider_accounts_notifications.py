"""OAuth provider accounts (in the connected-accounts section) and notification preferences (a
section of their own) of the React account settings, API 2.8 (issue 29), in Chromium against the
local service and its mock provider; each change is checked through the Python server app. axe
finds no serious or critical issue on either section, light and dark, 375 and 1280 px; the
screenshots go to build/screenshots/provider-accounts/ (git-ignored) for a person to look at."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import ROOT
from .test_oauth_flows import through_provider
from .test_page_quality import AXE, Inspector

pytestmark = pytest.mark.browser

SHOTS = ROOT / "build" / "screenshots" / "provider-accounts"
MARKETING = "4f6f8873-3d04-46bd-8bef-18338b1a1b4c"
TRANSACTIONAL = "7bb82d33-2f54-4a3d-9d23-82739e0d66ef"
LAST_METHOD = "This is your only way to sign in. Set a password or connect another account first."


def _github_user(oauth_service: Any, example_app: Any, context: Any, section: str) -> tuple[str, str, str, Any]:
    """A user signed up with the mock GitHub, on the account settings section `section`:
    (base URL, e-mail, user id, page)."""
    base = example_app(oauth_service.config)
    email = f"provider-{uuid.uuid4().hex[:10]}@example.com"
    page = context.new_page()
    page.goto(f"{base}/handler/sign-up?after_auth_return_to=%2Fhandler%2Faccount-settings%2F{section}")
    page.get_by_role("button", name="Continue with GitHub").click()
    through_provider(page, "GitHub", email)
    page.wait_for_url(f"{base}/handler/account-settings/{section}")
    me = page.request.get(f"{base}/api/me")
    assert me.status == 200, me.text()
    return base, email, me.json()["id"], page


def _accounts(oauth_service: Any, user_id: str) -> list[Any]:
    from authmw import ServerApp

    with ServerApp(oauth_service.config) as server:
        return list(server.provider_accounts.list(user_id))


def _marketing_enabled(oauth_service: Any, user_id: str) -> bool:
    from authmw import ServerApp

    with ServerApp(oauth_service.config) as server:
        found = [p for p in server.notification_preferences.list(user_id) if p.category_id == MARKETING]
    assert len(found) == 1
    return found[0].enabled


def test_provider_account_switches_and_removal(oauth_service: Any, example_app: Any, context: Any) -> None:
    base, email, user_id, page = _github_user(oauth_service, example_app, context, "connected-accounts")
    row = page.get_by_test_id("connected-github")
    expect(row).to_contain_text("GitHub account")
    expect(row).to_contain_text(email)
    sign_in = row.get_by_role("switch", name="Use to sign in")
    apps = row.get_by_role("switch", name="Let this app use the account")
    expect(sign_in).to_be_checked()
    expect(apps).to_be_checked()

    # GitHub is the user's only way to sign in: neither removing it nor turning its sign-in off
    # is allowed, and the page says why.
    row.get_by_role("button", name=f"Remove GitHub account {email}").click()
    expect(page.get_by_role("alert")).to_have_text(LAST_METHOD)
    expect(row.get_by_test_id("provider-remove-confirm")).to_have_count(0)
    sign_in.click()
    expect(page.get_by_role("alert")).to_have_text(LAST_METHOD)
    expect(sign_in).to_be_checked()
    [account] = _accounts(oauth_service, user_id)
    assert account.allow_sign_in and account.allow_connected_accounts

    # With a password as well, GitHub's sign-in can go off and on again.
    from authmw import ServerApp

    with ServerApp(oauth_service.config) as server:
        server.users.update(user_id, password="A-long-enough-password-1")
    page.reload()
    row = page.get_by_test_id("connected-github")
    sign_in = row.get_by_role("switch", name="Use to sign in")
    expect(sign_in).to_be_checked()
    sign_in.click()
    expect(page.get_by_test_id("provider-accounts-done")).to_have_text("You can no longer sign in with GitHub.")
    expect(sign_in).not_to_be_checked()
    [account] = _accounts(oauth_service, user_id)
    assert account.allow_sign_in is False

    # (Signing in with GitHub meanwhile still reaches this user: the service links the provider
    # account again by the verified e-mail address, its default merge strategy, service-api B10.)

    sign_in.click()
    expect(page.get_by_test_id("provider-accounts-done")).to_have_text("You can now sign in with GitHub.")
    expect(sign_in).to_be_checked()
    assert _accounts(oauth_service, user_id)[0].allow_sign_in is True

    # The connected-app use, off.
    apps = row.get_by_role("switch", name="Let this app use the account")
    apps.click()
    expect(page.get_by_test_id("provider-accounts-done")).to_have_text("Your change was saved.")
    expect(apps).not_to_be_checked()
    assert _accounts(oauth_service, user_id)[0].allow_connected_accounts is False

    # Remove, behind a confirmation that Escape cancels.
    row.get_by_role("button", name=f"Remove GitHub account {email}").click()
    expect(row.get_by_test_id("provider-remove-confirm")).to_be_focused()
    page.keyboard.press("Escape")
    expect(row.get_by_test_id("provider-remove-confirm")).to_have_count(0)
    assert len(_accounts(oauth_service, user_id)) == 1
    row.get_by_role("button", name=f"Remove GitHub account {email}").click()
    row.get_by_test_id("provider-remove-confirm").click()
    expect(page.get_by_test_id("provider-accounts-done")).to_have_text("The GitHub account was removed.")
    expect(page.get_by_test_id("connected-github")).to_have_count(0)
    expect(page.get_by_role("button", name="Connect GitHub")).to_be_visible()
    assert _accounts(oauth_service, user_id) == []


def test_notification_preferences(oauth_service: Any, example_app: Any, context: Any) -> None:
    base, _, user_id, page = _github_user(oauth_service, example_app, context, "notifications")
    transactional = page.get_by_role("switch", name="Account and security e-mails")
    marketing = page.get_by_role("switch", name="News and offers")
    expect(transactional).to_be_checked()
    expect(transactional).to_be_disabled()
    expect(page.locator(f"[data-category-id='{TRANSACTIONAL}']")).to_contain_text("Always on")
    expect(marketing).to_be_checked()
    assert _marketing_enabled(oauth_service, user_id) is True

    marketing.click()
    expect(page.get_by_test_id("notifications-done")).to_have_text("You will no longer receive news and offers.")
    expect(marketing).not_to_be_checked()
    assert _marketing_enabled(oauth_service, user_id) is False
    page.reload()
    expect(page.get_by_role("switch", name="News and offers")).not_to_be_checked()
    expect(page.get_by_role("switch", name="Account and security e-mails")).to_be_checked()

    # The keyboard turns it on again (a real checkbox: Space toggles it).
    page.get_by_role("switch", name="News and offers").focus()
    page.keyboard.press("Space")
    expect(page.get_by_test_id("notifications-done")).to_have_text("You will receive news and offers.")
    assert _marketing_enabled(oauth_service, user_id) is True


def test_both_sections_pass_axe_and_are_screenshotted(oauth_service: Any, example_app: Any, context: Any) -> None:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `npm ci` in js/")
    base, _, _, page = _github_user(oauth_service, example_app, context, "connected-accounts")
    inspect = Inspector(page, AXE.read_text(encoding="utf-8"), shots=SHOTS)
    for section in ("connected-accounts", "notifications"):
        page.goto(f"{base}/handler/account-settings/{section}")
        expect(page.get_by_test_id(f"settings-{section}")).to_be_visible()
        expect(page.get_by_test_id(f"settings-{section}").get_by_role("status").filter(has_text="Loading")).to_have_count(0)
        expect(page.get_by_test_id(f"settings-{section}").get_by_role("switch").first).to_be_visible()
        inspect.check(f"settings-{section}")
    assert not inspect.problems, "\n".join(inspect.problems)
