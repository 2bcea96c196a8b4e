"""Account settings one section at a time (issue 31) and the API 2.8 sessions and API-key sections (issue 29),
in Chromium against the local service: every section has its own URL (a deep link opens it, the
browser's back returns to the previous one), the sessions section lists this browser's session
and another, ends the other (whose refresh token then stops working); a 2.7 service has no such
section. A key made in the API-keys section (shown once) calls a FastAPI route that accepts keys,
until it is revoked there; a team's keys are managed by members holding `$manage_api_keys`
only. axe finds no serious or critical issue on any section, light and dark, 375 and 1280 px;
the screenshots go to build/screenshots/account-settings/ (git-ignored) for a person to look at."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import Depends, FastAPI
from playwright.sync_api import expect
from starlette.testclient import TestClient

from authmw import AuthConfig
from authmw_fastapi import Guard, install, require_team_member

from .conftest import ROOT
from .test_email_flows import PASSWORD, MailService, sign_in
from .test_page_quality import AXE, Inspector

pytestmark = pytest.mark.browser

SHOTS = ROOT / "build" / "screenshots" / "account-settings"


def _service(tmp_path_factory: pytest.TempPathFactory, api: str) -> Iterator[MailService]:
    from authmw.dev import LocalService

    running = LocalService(tmp_path_factory.mktemp(f"sections-{api}"), port=0, quiet=True, api=api).start()
    try:
        mail = MailService(running)
        mail.configure(client_team_creation_enabled=True, client_user_deletion_enabled=True)
        if api == "2.8":
            mail.configure(allow_user_api_keys=True, allow_team_api_keys=True)
        yield mail
    finally:
        running.stop()


@pytest.fixture(scope="module")
def service28(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    yield from _service(tmp_path_factory, "2.8")


@pytest.fixture(scope="module")
def service27(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    yield from _service(tmp_path_factory, "2.7")


def _signed_in(service: MailService, example_app: Any, context: Any) -> tuple[str, str, Any]:
    base = example_app(service.config)
    email = service.sign_up()  # a session of its own (the "other device")
    page = context.new_page()
    sign_in(page, base, email, PASSWORD)
    page.wait_for_url(f"{base}/")
    return base, email, page


def test_each_section_has_its_url_deep_links_and_back_work(service28: MailService, example_app: Any, context: Any) -> None:
    base, _, page = _signed_in(service28, example_app, context)
    settings = f"{base}/handler/account-settings"

    # Without a section: the first one (the profile), marked in the navigation.
    page.goto(settings)
    expect(page.get_by_test_id("settings-profile")).to_be_visible()
    expect(page.get_by_test_id("settings-nav-profile")).to_have_attribute("aria-current", "page")
    expect(page.get_by_test_id("settings-emails")).to_have_count(0)  # one section at a time

    # The navigation changes the URL; back and forward walk through the sections.
    page.get_by_test_id("settings-nav-emails").click()
    page.wait_for_url(f"{settings}/emails")
    expect(page.get_by_test_id("settings-emails")).to_be_visible()
    expect(page.get_by_test_id("settings-profile")).to_have_count(0)
    expect(page.get_by_role("heading", level=2, name="E-mail addresses")).to_be_focused()
    page.get_by_test_id("settings-nav-teams").click()
    page.wait_for_url(f"{settings}/teams")
    page.go_back()
    page.wait_for_url(f"{settings}/emails")
    expect(page.get_by_test_id("settings-emails")).to_be_visible()
    page.go_back()
    page.wait_for_url(settings)
    expect(page.get_by_test_id("settings-profile")).to_be_visible()
    page.go_forward()
    expect(page.get_by_test_id("settings-emails")).to_be_visible()

    # A deep link opens its section at once, after a reload too.
    page.goto(f"{settings}/two-factor")
    expect(page.get_by_test_id("settings-two-factor")).to_be_visible()
    expect(page.get_by_test_id("settings-nav-two-factor")).to_have_attribute("aria-current", "page")
    page.reload()
    expect(page.get_by_test_id("settings-two-factor")).to_be_visible()

    # A section that does not exist says so and offers the first one (no text from the URL).
    page.goto(f"{settings}/%3Cscript%3Enope")
    expect(page.get_by_test_id("settings-not-found")).to_be_visible()
    assert "nope" not in page.locator(".authmw-page").inner_text()


def test_sessions_lists_this_browser_and_ends_another(service28: MailService, example_app: Any, context: Any) -> None:
    base, email, page = _signed_in(service28, example_app, context)
    assert service28.refresh_works(email)
    page.goto(f"{base}/handler/account-settings/sessions")
    sessions = page.get_by_test_id("session")
    expect(sessions).to_have_count(2)
    current = page.locator("[data-testid=session][data-current=true]")
    expect(current).to_have_count(1)
    expect(current).to_contain_text("This browser")
    expect(current).to_contain_text("Last used")
    expect(current.get_by_test_id("revoke-session")).to_have_count(0)  # sign out instead

    other = page.locator("[data-testid=session][data-current=false]")
    other.get_by_test_id("revoke-session").click()
    expect(page.get_by_test_id("sessions-done")).to_have_text("The session has ended.")
    expect(sessions).to_have_count(1)
    # The ended session's refresh token no longer works; this browser stays signed in.
    assert not service28.refresh_works(email)
    page.reload()
    expect(page.locator("[data-testid=session][data-current=true]")).to_have_count(1)


def _key_app(service: MailService) -> TestClient:
    """A FastAPI app whose /export takes a user's key and /teams/{id}/sync a team's (or a member's session)."""
    running = service.service
    config = AuthConfig(
        project_id=running.project_id,
        api_url=running.url,
        publishable_client_key=running.publishable_client_key,
        secret_server_key=running.secret_server_key,
        accept_api_keys=True,
    )
    app = FastAPI()
    install(app, config)

    @app.get("/export")
    async def export(user: Any = Depends(Guard(api_keys=True))) -> dict[str, Any]:  # noqa: B008
        return {"id": user.id, "via": user.via}

    @app.get("/teams/{team_id}/sync")
    async def sync(team_id: str, user: Any = Depends(require_team_member(api_keys=True))) -> dict[str, Any]:  # noqa: B008
        return {"team": team_id, "via": user.via}

    return TestClient(app)


def _make_key(page: Any, area: str, description: str) -> str:
    """Opens and fills the key form of `area` (api-keys / team-api-keys); the value shown once."""
    page.get_by_test_id(f"{area}-new-open").click()
    form = page.get_by_test_id(f"{area}-form")
    expect(form.get_by_label("What is it for?")).to_be_focused()
    form.get_by_label("What is it for?").fill(description)
    form.get_by_label("Expires").select_option(label="Never")
    page.get_by_test_id(f"{area}-create").click()
    created = page.get_by_test_id(f"{area}-created")
    expect(created).to_be_visible()
    expect(created).to_be_focused()
    value = page.get_by_test_id(f"{area}-value").inner_text()
    assert value.startswith("sk_") and len(value) == 102, value
    return value


def test_a_key_made_in_the_section_calls_the_app_until_revoked(service28: MailService, example_app: Any, context: Any) -> None:
    base, email, page = _signed_in(service28, example_app, context)
    page.goto(f"{base}/handler/account-settings/api-keys")
    expect(page.get_by_test_id("api-keys")).to_contain_text("No API keys yet.")
    value = _make_key(page, "api-keys", "Deploy script")
    key = page.get_by_test_id("api-keys-key")
    expect(key).to_have_count(1)
    expect(key).to_contain_text("Deploy script")
    expect(key).to_contain_text(f"ends in …{value[-4:]}")
    expect(key).to_contain_text("never expires")

    with _key_app(service28) as web:
        answer = web.get("/export", headers={"authorization": f"Bearer {value}"})
        assert answer.status_code == 200, answer.text
        assert answer.json()["via"] == "user_api_key"

        # Shown once: gone after a reload, only its last four remain.
        page.reload()
        expect(page.get_by_test_id("api-keys-key")).to_have_count(1)
        expect(page.get_by_test_id("api-keys-created")).to_have_count(0)
        assert value not in page.content()

        # Revoked in the page: the app refuses it at once (the service says so on the next lookup).
        page.get_by_test_id("api-keys-revoke").click()
        expect(page.get_by_role("group", name="Revoke the API key Deploy script")).to_contain_text("stops working at once")
        page.get_by_test_id("api-keys-revoke-confirm").click()
        expect(page.get_by_test_id("api-keys-status")).to_have_text("The key has been revoked.")
        expect(page.get_by_test_id("api-keys-key")).to_have_attribute("data-state", "revoked")
        expect(page.get_by_test_id("api-keys-revoke")).to_have_count(0)
    with _key_app(service28) as fresh:  # a new app: no cached answer for the key
        assert fresh.get("/export", headers={"authorization": f"Bearer {value}"}).status_code == 401


def test_team_keys_are_for_members_who_may_manage_them(service28: MailService, example_app: Any, context: Any) -> None:
    from authmw import ServerApp

    base, email, page = _signed_in(service28, example_app, context)
    user_id = httpx.get(
        f"{service28.url}/api/v1/users/me",
        headers={**service28._client_headers, "x-stack-access-token": service28.access_tokens[email]},
    ).json()["id"]
    server_config = AuthConfig(project_id=service28.service.project_id, api_url=service28.url, secret_server_key=service28.service.secret_server_key)
    with ServerApp(server_config) as server:
        team = server.teams.create("Robots")
        server.teams.add_member(team.id, user_id)  # a plain member: no $manage_api_keys
        page.goto(f"{base}/handler/account-settings/teams")
        robots = page.locator(f"[data-testid=team][data-team-id='{team.id}']")
        expect(robots).to_be_visible()
        expect(robots.get_by_test_id("team-members")).to_be_visible()  # its permissions have loaded
        expect(robots.get_by_test_id("team-api-keys-area")).to_have_count(0)

        server.team_permissions.grant(team.id, user_id, "$manage_api_keys")
        page.reload()
        expect(robots.get_by_test_id("team-api-keys-area")).to_be_visible()
        value = _make_key(robots, "team-api-keys", "Nightly sync")
        with _key_app(service28) as web:
            answer = web.get(f"/teams/{team.id}/sync", headers={"authorization": f"Bearer {value}"})
            assert answer.status_code == 200, answer.text
            robots.get_by_test_id("team-api-keys-revoke").click()
            robots.get_by_test_id("team-api-keys-revoke-confirm").click()
            expect(robots.get_by_test_id("team-api-keys-key")).to_have_attribute("data-state", "revoked")
        with _key_app(service28) as fresh:
            assert fresh.get(f"/teams/{team.id}/sync", headers={"authorization": f"Bearer {value}"}).status_code == 401


def test_a_27_service_has_no_sessions_section(service27: MailService, example_app: Any, context: Any) -> None:
    base, _, page = _signed_in(service27, example_app, context)
    page.goto(f"{base}/handler/account-settings")
    expect(page.get_by_test_id("settings-nav-teams")).to_be_visible()
    expect(page.get_by_test_id("settings-nav-sessions")).to_have_count(0)
    expect(page.get_by_test_id("settings-nav-api-keys")).to_have_count(0)
    page.goto(f"{base}/handler/account-settings/sessions")
    expect(page.get_by_test_id("settings-not-found")).to_be_visible()
    expect(page.get_by_role("alert")).to_have_count(0)


def _settings_with_lists(service: MailService, example_app: Any, context: Any) -> tuple[str, Any, list[str]]:
    """Signed in, with a team (so the team rows show); the page and the ids of the sections."""
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `npm ci` in js/")
    base, email, page = _signed_in(service, example_app, context)
    # A team with a second member and a second e-mail address, so the lists are not empty.
    token = service.access_tokens[email]
    headers = {**service._client_headers, "x-stack-access-token": token}
    r = httpx.post(f"{service.url}/api/v1/teams", headers=headers, json={"display_name": "Acme", "creator_user_id": "me"})
    assert r.status_code < 300, r.text
    page.goto(f"{base}/handler/account-settings")
    expect(page.get_by_test_id("settings-nav-sessions")).to_be_visible()  # once the service said it has sessions
    ids = [
        (link.get_attribute("data-testid") or "").removeprefix("settings-nav-")
        for link in page.get_by_role("navigation", name="Account settings sections").get_by_role("link").all()
    ]
    assert {"profile", "emails", "sessions", "api-keys", "teams", "danger-zone"} <= set(ids), ids
    return base, page, ids


def _open_section(page: Any, base: str, section: str) -> Any:
    page.goto(f"{base}/handler/account-settings/{section}")
    shown = page.get_by_test_id(f"settings-{section}")
    expect(shown).to_be_visible()
    expect(shown.get_by_role("status").filter(has_text="Loading")).to_have_count(0)
    return shown


def test_every_section_passes_axe_and_is_screenshotted(service28: MailService, example_app: Any, context: Any) -> None:
    base, page, ids = _settings_with_lists(service28, example_app, context)
    inspect = Inspector(page, AXE.read_text(encoding="utf-8"), shots=SHOTS)
    for section in ids:
        _open_section(page, base, section)
        inspect.check(f"settings-{section}")
    assert not inspect.problems, "\n".join(inspect.problems)


#: The labels of the fields of an open row form, each with the row's title.
FIELD_LABELS = """(row) => {
    const title = row.querySelector(".authmw-row-title").textContent.trim();
    const fields = [...row.querySelectorAll(".authmw-action-form input, .authmw-action-form select, .authmw-action-form textarea")];
    return { title, labels: fields.map((f) => [...(f.labels ?? [])].map((l) => l.textContent.trim()).join(" ")) };
}"""


def test_every_row_form_open_passes_axe_and_is_screenshotted(service28: MailService, example_app: Any, context: Any) -> None:
    """Each row's form, open: axe light and dark at 375 and 1280 px, nothing wider than a 320 px
    window, screenshots (account-<row>-open-*), and fields labelled by their own name, not the row's title."""
    base, page, ids = _settings_with_lists(service28, example_app, context)
    inspect = Inspector(page, AXE.read_text(encoding="utf-8"), shots=SHOTS)
    seen: dict[str, dict[str, Any]] = {}
    for section in ids:
        shown = _open_section(page, base, section)
        if section == "teams":
            # The rows come as what they depend on loads (the team's profiles and permissions, the
            # project's settings): the list below is taken once, so wait for every one of them.
            for loaded in ("team-api-keys-area", "member-name-row", "invite-row", "create-team-row"):
                expect(shown.get_by_test_id(loaded)).to_be_visible()
        for row in shown.locator(".authmw-action-row").all():
            name = (row.get_attribute("data-testid") or "").removesuffix("-row")
            row.get_by_test_id(f"{name}-open").click()
            form = row.get_by_role("group", name=row.locator(".authmw-row-title").inner_text())
            expect(form).to_be_visible()  # the open part is named by the row's title
            expect(form.locator("input, select").first).to_be_focused()
            seen[name] = row.evaluate(FIELD_LABELS)
            inspect.check(f"account-{name}-open")
            row.get_by_test_id(f"{name}-cancel").click()
            expect(row.get_by_test_id(f"{name}-open")).to_be_focused()
    assert {"profile", "password", "add-email", "create-team", "api-keys-new", "team-api-keys-new", "member-name", "invite"} <= set(seen), seen
    for name, fields in seen.items():
        assert fields["labels"] and all(fields["labels"]), (name, fields)  # every field has a visible label
        assert fields["title"] not in fields["labels"], (name, fields)  # ... of its own
    assert seen["add-email"] == {"title": "Add an e-mail address", "labels": ["E-mail"]}
    assert seen["create-team"] == {"title": "Create a team", "labels": ["Team name"]}
    assert not inspect.problems, "\n".join(inspect.problems)
