"""Team management in account settings and the team-creation page (issue 40), in Chromium
against a local service: an admin renames a team, sets its picture (a file, cut to a square and
made small in the browser), removes a member (confirmed) and deletes a team (confirmed by typing
its name); a member without those permissions sees none of the controls; a user sets their own
picture from a file; {handler}/team-creation makes a team and selects it. Every new part passes
axe in light and dark at 375 and 1280 px and fits 320 px; screenshots go to
build/screenshots/teams/ (git-ignored)."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from .conftest import ROOT
from .test_components import add_member, create_team
from .test_email_flows import PASSWORD, MailService, sign_in
from .test_page_quality import AXE, Inspector

pytestmark = pytest.mark.browser

SHOTS = ROOT / "build" / "screenshots" / "teams"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    from authmw.dev import LocalService

    running = LocalService(tmp_path_factory.mktemp("team-management"), port=0, quiet=True).start()
    try:
        mail = MailService(running)
        mail.configure(client_team_creation_enabled=True)
        yield mail
    finally:
        running.stop()


def png(width: int, height: int) -> bytes:
    """A width x height RGB PNG: a horizontal gradient (left dark, right light)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = bytes(channel for x in range(width) for channel in (x * 255 // width, 80, 160))
    raw = b"".join(b"\x00" + row for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def server_get(service: MailService, path: str) -> Any:
    running = service.service
    r = httpx.get(
        f"{running.url}/api/v1{path}",
        headers={
            "x-stack-project-id": running.project_id,
            "x-stack-access-type": "server",
            "x-stack-secret-server-key": running.secret_server_key,
        },
    )
    assert r.status_code == 200, r.text
    return r.json()


def user_id(service: MailService, email: str) -> str:
    r = httpx.get(
        f"{service.url}/api/v1/users/me",
        headers={**service._client_headers, "x-stack-access-token": service.access_tokens[email]},
    )
    return str(r.json()["id"])


def choose_picture(page: Any, test_id: str, tmp: Path) -> None:
    """Opens the picture row, chooses a 600x400 PNG, zooms and moves the square, saves."""
    file = tmp / "picture.png"
    file.write_bytes(png(600, 400))
    page.get_by_test_id(f"{test_id}-open").click()
    page.get_by_test_id(f"{test_id}-file").set_input_files(str(file))
    expect(page.get_by_test_id(f"{test_id}-preview")).to_be_visible()
    page.get_by_label("Zoom").fill("1.5")
    page.get_by_label("Left and right").fill("100")


def test_an_admin_manages_a_team_and_a_member_sees_none_of_the_controls(
    service: MailService, example_app: Any, browser: Any, tmp_path: Path
) -> None:
    base = example_app(service.config)
    admin, member, leaver = service.sign_up(), service.sign_up(), service.sign_up()
    service.update_me(leaver, display_name="Lee Leaver")
    team = create_team(service, admin, "Apollo")
    scratch = create_team(service, admin, "Scratch")
    add_member(service, team, member)
    add_member(service, team, leaver)

    context = browser.new_context()
    context.set_default_timeout(60_000)
    page = context.new_page()
    sign_in(page, base, admin, PASSWORD)
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-in")
    page.goto(f"{base}/handler/account-settings/teams")
    apollo = page.locator(f"[data-testid=team][data-team-id='{team}']")

    # Rename.
    apollo.get_by_test_id("team-name-open").click()
    field = apollo.get_by_role("textbox", name="Display name")
    expect(field).to_be_focused()
    field.fill("Apollo Program")
    apollo.get_by_role("button", name="Save team name").click()
    expect(apollo).to_have_attribute("data-team-name", "Apollo Program")
    assert server_get(service, f"/teams/{team}")["display_name"] == "Apollo Program"

    # The picture: a 600x400 file becomes a 256x256 JPEG, the crop the sliders chose.
    choose_picture(apollo, "team-picture", tmp_path)
    inspect = Inspector(page, AXE.read_text(encoding="utf-8"), shots=SHOTS)
    inspect.check("team-picture-chooser")
    apollo.get_by_role("button", name="Save picture").click()
    expect(apollo.get_by_test_id("team-picture-status")).to_have_text("Picture saved.")
    image = apollo.get_by_role("img", name="Picture of Apollo Program")
    expect(image).to_be_visible()
    assert image.evaluate("(img) => [img.naturalWidth, img.naturalHeight]") == [256, 256]
    # The right edge was chosen: the gradient's light end (red channel high) is in the picture.
    red = image.evaluate(
        """(img) => { const c = document.createElement('canvas'); c.width = c.height = 256;
        const g = c.getContext('2d'); g.drawImage(img, 0, 0); return g.getImageData(128, 128, 1, 1).data[0]; }"""
    )
    assert red > 170, red
    stored = server_get(service, f"/teams/{team}")["profile_image_url"]
    assert stored.startswith("data:image/jpeg;base64,") and len(stored) < 140_000

    # The members, with names, pictures, and the admin's own permissions.
    apollo.get_by_text("Members of Apollo Program").click()
    members = apollo.get_by_test_id("team-member")
    expect(members).to_have_count(3)
    expect(apollo.get_by_test_id("my-permissions")).to_contain_text("Delete the team")
    inspect.check("team-admin")

    # Remove a member: asked first; Cancel keeps them.
    remove = apollo.get_by_role("button", name="Remove Lee Leaver from the team")
    remove.click()
    expect(apollo.get_by_test_id("remove-member-confirm")).to_be_focused()
    inspect.check("team-remove-member")
    page.keyboard.press("Escape")
    expect(members).to_have_count(3)
    remove.click()
    apollo.get_by_test_id("remove-member-confirm").click()
    expect(apollo.get_by_test_id("member-removed")).to_have_text("Lee Leaver is no longer a member.")
    expect(members).to_have_count(2)
    listed = server_get(service, f"/users?team_id={team}")["items"]
    assert user_id(service, leaver) not in {u["id"] for u in listed}

    # Delete a team: the typed name must match.
    other = page.locator(f"[data-testid=team][data-team-id='{scratch}']")
    other.get_by_test_id("delete-team").click()
    name = other.get_by_role("textbox", name="Type the team's name, Scratch, to confirm")
    expect(name).to_be_focused()
    name.fill("Scratc")
    other.get_by_test_id("delete-team-confirm").click()
    expect(other.get_by_text("The name does not match the team's name.")).to_be_visible()
    inspect.check("team-delete")
    name.fill("Scratch")
    other.get_by_test_id("delete-team-confirm").click()
    expect(page.get_by_test_id("team-deleted")).to_have_text("Scratch has been deleted.")
    expect(other).to_have_count(0)
    assert scratch not in {t["id"] for t in server_get(service, "/teams")["items"]}
    assert not inspect.problems, "\n".join(inspect.problems)
    context.close()

    # The member: the row and what members may do (invite, see the members) show; nothing that
    # needs $update_team, $remove_members or $delete_team does.
    context = browser.new_context()
    context.set_default_timeout(60_000)
    page = context.new_page()
    sign_in(page, base, member, PASSWORD)
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-in")
    page.goto(f"{base}/handler/account-settings/teams")
    apollo = page.locator(f"[data-testid=team][data-team-id='{team}']")
    expect(apollo.get_by_test_id("invite-row")).to_be_visible()
    apollo.get_by_text("Members of Apollo Program").click()
    expect(apollo.get_by_test_id("team-member")).to_have_count(2)
    expect(apollo.get_by_test_id("my-permissions")).to_contain_text("Invite members")
    for control in ("team-name-row", "team-picture-row", "remove-member", "delete-team-area", "delete-team"):
        expect(apollo.get_by_test_id(control)).to_have_count(0)
    context.close()


def test_own_picture_from_a_file_and_the_team_creation_page(
    service: MailService, example_app: Any, context: Any, tmp_path: Path
) -> None:
    base = example_app(service.config)
    email = service.sign_up()
    page = context.new_page()

    # Signed out, the page offers sign-in and comes back.
    page.goto(f"{base}/handler/team-creation")
    expect(page.get_by_test_id("team-creation-sign-in")).to_be_visible()
    page.get_by_role("link", name="Sign in").click()
    sign_in(page, base, email, PASSWORD, from_page=True)
    form = page.get_by_test_id("team-creation-form")
    expect(form).to_be_visible()
    inspect = Inspector(page, AXE.read_text(encoding="utf-8"), shots=SHOTS)
    inspect.check("team-creation")
    form.get_by_role("button", name="Create team").click()
    expect(form.get_by_text("Enter a name for the team.")).to_be_visible()
    form.get_by_role("textbox", name="Team name").fill("Orbit")
    form.get_by_role("button", name="Create team").click()
    expect(page.get_by_test_id("team-created")).to_have_text("Orbit has been created and is now your current team.")
    inspect.check("team-created")
    me = httpx.get(
        f"{service.url}/api/v1/users/me",
        headers={**service._client_headers, "x-stack-access-token": service.access_tokens[email]},
    ).json()
    assert me["selected_team"]["display_name"] == "Orbit"

    # The user's own picture from a file.
    page.goto(f"{base}/handler/account-settings/profile")
    choose_picture(page, "profile-picture", tmp_path)
    inspect.check("profile-picture-chooser")
    page.get_by_role("button", name="Save picture").click()
    expect(page.get_by_test_id("profile-picture-status")).to_have_text("Picture saved.")
    avatar = page.get_by_role("img", name="Your profile image")
    expect(avatar).to_be_visible()
    assert avatar.evaluate("(img) => [img.naturalWidth, img.naturalHeight]") == [256, 256]
    inspect.check("profile-picture")
    # And removed again.
    page.get_by_test_id("profile-picture-open").click()
    page.get_by_test_id("profile-picture-remove").click()
    expect(page.get_by_test_id("profile-picture-status")).to_have_text("Picture removed.")
    expect(page.get_by_role("img", name="Your profile image")).to_have_count(0)
    assert not inspect.problems, "\n".join(inspect.problems)
