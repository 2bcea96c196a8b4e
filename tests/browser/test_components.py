"""The React components of issue 31 in the example app's header, in Chromium against a local
service: SignedIn / SignedOut, Protect (a team member without and with the permission),
SelectedTeamSwitcher (a menu of the teams with pictures: select, create, manage), UserButton (keyboard, team switch, sign-out in one step),
dark mode, axe-core's WCAG 2 A/AA rules, and screenshots of the header and the open menu in
light and dark at 375 and 1280 px, written to build/screenshots/components/ (git-ignored)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from .conftest import ROOT
from .test_email_flows import PASSWORD, MailService, sign_in
from .test_page_quality import Inspector

pytestmark = pytest.mark.browser

SHOTS = ROOT / "build" / "screenshots" / "components"
#: The dark palette's surface colour (--authmw-surface), as getComputedStyle gives it.
DARK_SURFACE = "rgb(23, 26, 32)"
LIGHT_SURFACE = "rgb(255, 255, 255)"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    """A local service of its own that lets users create teams."""
    from authmw.dev import LocalService

    running = LocalService(tmp_path_factory.mktemp("components"), port=0, quiet=True).start()
    try:
        mail = MailService(running)
        mail.configure(client_team_creation_enabled=True)
        yield mail
    finally:
        running.stop()


@pytest.fixture(scope="module")
def axe_source() -> str:
    axe = ROOT / "js" / "node_modules" / "axe-core" / "axe.min.js"
    if not axe.is_file():
        pytest.fail(f"{axe} is missing: run `npm ci` in js/ (axe-core is a devDependency)")
    return axe.read_text(encoding="utf-8")


def add_member(service: MailService, team_id: str, email: str) -> None:
    """Adds a user to a team over the server API: they get the members' default permissions."""
    user_id = httpx.get(
        f"{service.url}/api/v1/users/me",
        headers={**service._client_headers, "x-stack-access-token": service.access_tokens[email]},
    ).json()["id"]
    r = httpx.post(
        f"{service.url}/api/v1/team-memberships/{team_id}/{user_id}",
        headers={
            "x-stack-project-id": service.service.project_id,
            "x-stack-access-type": "server",
            "x-stack-secret-server-key": service.service.secret_server_key,
            "content-type": "application/json",
        },
        content=b"{}",
    )
    assert r.status_code < 300, r.text


def create_team(service: MailService, email: str, name: str) -> str:
    r = httpx.post(
        f"{service.url}/api/v1/teams",
        headers={**service._client_headers, "x-stack-access-token": service.access_tokens[email]},
        json={"display_name": name, "creator_user_id": "me"},
    )
    assert r.status_code < 300, r.text
    return str(r.json()["id"])


def pick_team(page: Any, name: str) -> None:
    """Selects a team in the switcher's menu: the menu closes, the switcher shows the team."""
    page.get_by_test_id("team-switcher-trigger").click()
    page.get_by_test_id("team-switcher-menu").get_by_role("menuitemradio", name=name).click()
    expect(page.get_by_test_id("team-switcher-menu")).to_have_count(0)
    expect(page.get_by_test_id("team-switcher-current")).to_have_text(name)


def test_signed_out_the_header_offers_sign_in_and_no_component_of_a_user(
    service: MailService, example_app: Any, context: Any
) -> None:
    base = example_app(service.config)
    page = context.new_page()
    page.goto(base)
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")
    expect(page.get_by_test_id("header-sign-in")).to_be_visible()
    expect(page.get_by_test_id("user-button")).to_have_count(0)
    expect(page.get_by_test_id("team-switcher")).to_have_count(0)
    expect(page.get_by_test_id("team-admin")).to_have_count(0)
    expect(page.get_by_test_id("team-admin-denied")).to_have_count(0)
    page.get_by_test_id("header-sign-in").click()
    expect(page.get_by_test_id("sign-in-form")).to_be_visible()


def test_a_member_without_the_permission_sees_the_fallback_and_an_admin_the_content(
    service: MailService, example_app: Any, context: Any
) -> None:
    base = example_app(service.config)
    owner = service.sign_up()
    member = service.sign_up()
    team = create_team(service, owner, "Design")
    add_member(service, team, member)
    page = context.new_page()

    # The member: SignedIn shows the header's components; Protect the fallback until and after
    # the team is selected (members hold $invite_members and $read_members, not $update_team).
    sign_in(page, base, member, PASSWORD)
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-in")
    expect(page.get_by_test_id("header-sign-in")).to_have_count(0)
    expect(page.get_by_test_id("team-admin-denied")).to_be_visible()
    switcher = page.get_by_test_id("team-switcher-trigger")
    expect(switcher).to_have_attribute("data-team-id", "")
    expect(switcher).to_have_accessible_name("Team menu, No team selected")
    pick_team(page, "Design")
    expect(switcher).to_have_attribute("data-team-id", team)
    expect(page.get_by_test_id("team-admin-denied")).to_be_visible()
    expect(page.get_by_test_id("team-admin")).to_have_count(0)
    # The team is selected on the service too: it stays selected after a reload.
    page.reload()
    expect(page.get_by_test_id("team-switcher-trigger")).to_have_attribute("data-team-id", team)

    # The owner (the team's creator holds $update_team) sees the content, once the team is selected.
    page.get_by_test_id("user-button-trigger").click()
    page.get_by_test_id("user-button-sign-out").click()
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")
    sign_in(page, base, owner, PASSWORD)
    expect(page.get_by_test_id("team-admin-denied")).to_be_visible()
    pick_team(page, "Design")
    expect(page.get_by_test_id("team-admin")).to_be_visible()
    expect(page.get_by_test_id("team-admin-denied")).to_have_count(0)


def test_the_switcher_creates_a_team_and_the_user_button_switches_by_keyboard_and_signs_out(
    service: MailService, example_app: Any, context: Any
) -> None:
    base = example_app(service.config)
    email = service.sign_up()
    page = context.new_page()
    sign_in(page, base, email, PASSWORD)
    expect(page.get_by_test_id("team-switcher-empty")).to_have_text("No teams yet")

    # Create two teams with the keyboard (the switcher's menu, End: its last item, "Create a
    # team"): the new team is selected each time, and the focus is back on the switcher.
    switcher = page.get_by_test_id("team-switcher-trigger")
    for name in ("Research", "Operations"):
        switcher.focus()
        page.keyboard.press("Enter")
        page.keyboard.press("End")
        expect(page.get_by_role("menuitem", name="Create a team")).to_be_focused()
        page.keyboard.press("Enter")
        field = page.get_by_role("textbox", name="Team name")
        expect(field).to_be_focused()
        field.fill(name)
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("team-switcher-current")).to_have_text(name)
        expect(switcher).to_be_focused()
    expect(page.get_by_test_id("team-admin")).to_be_visible()  # the creator of the selected team

    # The menu button: Enter opens on the first item; arrows move; the team items are radios.
    trigger = page.get_by_role("button", name=f"Account menu, {email}")
    expect(trigger).to_have_attribute("aria-expanded", "false")
    trigger.focus()
    page.keyboard.press("Enter")
    menu = page.get_by_role("menu")
    expect(trigger).to_have_attribute("aria-expanded", "true")
    expect(menu.get_by_role("menuitem", name="Account settings")).to_be_focused()
    expect(page.get_by_test_id("user-button-name")).to_have_text(email)
    expect(menu.get_by_role("menuitemradio", name="Operations")).to_have_attribute("aria-checked", "true")
    page.keyboard.press("ArrowDown")
    expect(menu.get_by_role("menuitemradio", name="Research")).to_be_focused()
    page.keyboard.press("Escape")
    expect(menu).to_have_count(0)
    expect(trigger).to_be_focused()
    # Space opens too; ArrowDown, Enter on "Research" selects it and closes the menu.
    page.keyboard.press("Space")
    expect(menu.get_by_role("menuitem", name="Account settings")).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(menu).to_have_count(0)
    expect(trigger).to_be_focused()
    expect(page.get_by_test_id("team-switcher-current")).to_have_text("Research")
    # ArrowUp opens on the last item, Sign out; Enter signs out at once (no "Sign out?" prompt).
    page.keyboard.press("ArrowUp")
    expect(menu.get_by_role("menuitem", name="Sign out")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")
    expect(page.get_by_test_id("sign-out-prompt")).to_have_count(0)
    expect(page.get_by_test_id("header-sign-in")).to_be_visible()


def test_account_settings_item_and_dark_mode(service: MailService, example_app: Any, context: Any) -> None:
    base = example_app(service.config)
    email = service.sign_up()
    service.update_me(email, display_name="Ada Lovelace")
    page = context.new_page()
    sign_in(page, base, email, PASSWORD)
    trigger = page.get_by_role("button", name="Account menu, Ada Lovelace")
    expect(trigger.locator(".authmw-avatar")).to_have_text("AL")

    page.emulate_media(color_scheme="light")
    trigger.click()
    popover = page.get_by_test_id("user-button-menu")
    expect(popover).to_contain_text(email)
    expect(popover).to_have_css("background-color", LIGHT_SURFACE)
    page.emulate_media(color_scheme="dark")
    expect(popover).to_be_visible()
    expect(popover).to_have_css("background-color", DARK_SURFACE)

    # A press outside closes the menu; the account-settings item opens the handler's page.
    page.get_by_role("heading", name="authmw example").click()
    expect(popover).to_have_count(0)
    trigger.click()
    page.get_by_role("menuitem", name="Account settings").click()
    expect(page).to_have_url(f"{base}/handler/account-settings")


def test_header_and_menu_pass_axe_and_are_screenshotted(
    service: MailService, example_app: Any, context: Any, axe_source: str
) -> None:
    base = example_app(service.config)
    email = service.sign_up()
    service.update_me(email, display_name="Grace Hopper")
    team = create_team(service, email, "Compiler team")
    create_team(service, email, "Navy")
    service.update_me(email, selected_team_id=team)
    page = context.new_page()
    # axe in light and dark at both widths, nothing wider than a 320 px window, and a screenshot
    # of the top of the page (the header and what opens below it).
    inspect = Inspector(page, axe_source, SHOTS, clip_height=480)

    page.goto(base)
    expect(page.get_by_test_id("header-sign-in")).to_be_visible()
    inspect.check("header-signed-out")

    sign_in(page, base, email, PASSWORD)
    expect(page.get_by_test_id("team-switcher-trigger")).to_have_attribute("data-team-id", team)
    expect(page.get_by_test_id("team-admin")).to_be_visible()
    inspect.check("header-signed-in")

    page.get_by_test_id("user-button-trigger").click()
    expect(page.get_by_role("menuitemradio", name="Compiler team")).to_have_attribute("aria-checked", "true")
    inspect.check("user-button-menu")
    page.keyboard.press("Escape")

    # The team switcher's menu: pictures, the current team checked, manage and create entries.
    page.get_by_test_id("team-switcher-trigger").click()
    menu = page.get_by_test_id("team-switcher-menu")
    expect(menu.get_by_role("menuitemradio", name="Compiler team")).to_have_attribute("aria-checked", "true")
    expect(menu.get_by_role("menuitemradio", name="Navy")).to_have_attribute("aria-checked", "false")
    expect(menu.get_by_role("menuitem", name="Manage teams")).to_have_attribute("href", "/handler/account-settings/teams")
    inspect.check("team-switcher-menu")
    menu.get_by_role("menuitem", name="Create a team").click()
    page.get_by_role("button", name="Create team").click()
    expect(page.get_by_role("alert")).to_have_text("Enter a name for the team.")
    inspect.check("team-switcher-create")

    assert not inspect.problems, "serious or critical axe-core violations, or overflow:\n" + "\n".join(inspect.problems)

