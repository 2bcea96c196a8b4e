"""The six languages of @authmw/react/locales (issue 40) as a person on a phone sees them, in
Chromium against the local service: the example app in each language (`?lang=`) shows every
handler page (onboarding, team creation and the CLI sign-in confirmation among them), every account-settings section with each
row's form open, a team administrator's parts, and the header's components (team menu, user
menu) in that language, and nothing is wider than a 320 px window. Screenshots at 375 px go to
build/screenshots/locales/ (git-ignored): every language in light, German (the longest) and
Japanese in dark too, for a person to look at."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import deployment
import pytest
from playwright.sync_api import expect

from .conftest import ROOT
from .test_email_flows import PASSWORD, MailService
from .test_page_quality import invitation_link, password_reset_link, verification_link

pytestmark = pytest.mark.browser

JS = ROOT / "js"
SHOTS = ROOT / "build" / "screenshots" / "locales"
LANGUAGES = ("de", "es", "fr", "ja", "pt-BR", "zh-CN")
#: Screenshotted in dark as well as light.
BOTH_SCHEMES = ("de", "ja")

#: Every language's texts as the package's modules define them (functions left out), read with
#: esbuild from js/src/locales (the modules import types only).
READ_LOCALES = r"""
const { transformSync } = require("esbuild");
const { readFileSync } = require("node:fs");
const out = {};
for (const lang of process.argv.slice(1)) {
  const { code } = transformSync(readFileSync(`src/locales/${lang}.ts`, "utf8"), { loader: "ts", format: "cjs" });
  const module = { exports: {} };
  new Function("module", "exports", "require", code)(module, module.exports, require);
  out[lang] = module.exports.default;
}
process.stdout.write(JSON.stringify(out));
"""

#: The elements whose right edge is past the window's, the outermost first (what to fix).
STICKING_OUT = """(width) => {
    const out = [];
    for (const el of document.querySelectorAll("body *")) {
        const box = el.getBoundingClientRect();
        if (box.width && box.right > width + 0.5 && !out.some((o) => o.el.contains(el))) {
            const classes = typeof el.className === "string" ? el.className.trim().split(/\\s+/).filter(Boolean) : [];
            const name = el.tagName.toLowerCase() + classes.map((c) => `.${c}`).join("")
                + (el.dataset.testid ? `[data-testid=${el.dataset.testid}]` : "");
            const text = (el.textContent || "").trim().slice(0, 60);
            out.push({ el, text: `${name} (right edge ${Math.round(box.right)} px): ${text}` });
        }
    }
    return out.slice(0, 5).map((o) => o.text);
}"""


@pytest.fixture(scope="module")
def locales() -> dict[str, dict[str, Any]]:
    done = subprocess.run(["node", "-e", READ_LOCALES, *LANGUAGES], cwd=JS, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"reading js/src/locales failed (npm ci in js/?):\n{done.stderr[-2000:]}"
    found: dict[str, dict[str, Any]] = json.loads(done.stdout)
    return found


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    """API 2.8 (sessions and API-key sections), e-mail links, team creation and account deletion on."""
    from authmw.dev import LocalService

    running = LocalService(tmp_path_factory.mktemp("locales"), port=0, quiet=True, api="2.8").start()
    try:
        mail = MailService(running)
        mail.configure(
            magic_link_enabled=True,
            client_team_creation_enabled=True,
            client_user_deletion_enabled=True,
            allow_user_api_keys=True,
            allow_team_api_keys=True,
        )
        yield mail
    finally:
        running.stop()


@pytest.fixture(scope="module")
def gate_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    """API 2.8 with verified e-mails required: a new user is restricted and sent to onboarding."""
    from authmw.dev import LocalService

    running = LocalService(tmp_path_factory.mktemp("locales-gate"), port=0, quiet=True, api="2.8").start()
    try:
        gate = MailService(running)
        gate.configure(require_email_verification=True)
        yield gate
    finally:
        running.stop()


class Phone:
    """Checks that nothing is wider than a 320 px window and screenshots the page at 375 px."""

    def __init__(self, page: Any, lang: str) -> None:
        self.page = page
        self.lang = lang
        self.problems: list[str] = []
        self.shots = 0
        SHOTS.mkdir(parents=True, exist_ok=True)

    def check(self, name: str) -> None:
        page = self.page
        page.emulate_media(color_scheme="light", reduced_motion="reduce")
        page.set_viewport_size({"width": 320, "height": 700})
        # After the resize's rendering step (its resize events, which popovers place themselves on).
        width = page.evaluate(
            "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() =>"
            " done(document.documentElement.scrollWidth))))"
        )
        if width > 320:
            culprits = page.evaluate(STICKING_OUT, 320)
            self.problems.append(f"{self.lang} {name}: {width} px wide in a 320 px window; " + "; ".join(culprits))
        page.set_viewport_size({"width": 375, "height": 900})
        for scheme in ("light", "dark") if self.lang in BOTH_SCHEMES else ("light",):
            page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
            page.screenshot(path=str(SHOTS / f"{self.lang}-{name}-{scheme}-375.png"), full_page=True)
            self.shots += 1
        page.emulate_media(color_scheme="light", reduced_motion="reduce")


def sign_in(page: Any, m: dict[str, str], email: str) -> None:
    """Signs in through the sign-in form on the page, by its labels in the page's language."""
    form = page.get_by_test_id("sign-in-form")
    form.get_by_label(m["email"], exact=True).fill(email)
    form.get_by_label(m["password"], exact=True).fill(PASSWORD)
    form.get_by_role("button", name=m["signInButton"], exact=True).click()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_section_and_component_fits_a_phone(
    lang: str,
    service: MailService,
    gate_service: MailService,
    locales: dict[str, dict[str, Any]],
    example_app: Any,
    context: Any,
) -> None:
    m: dict[str, str] = locales[lang]["messages"]
    t: dict[str, str] = locales[lang]["texts"]
    base = example_app(service.config)
    page = context.new_page()
    phone = Phone(page, lang)

    def heading(key: str) -> Any:
        return page.get_by_role("heading", name=m[key], exact=True)

    # Signed out. `?lang=` picks the language for the tab (the example keeps it in sessionStorage).
    page.goto(f"{base}/handler/sign-in?lang={lang}")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(heading("signInTitle")).to_be_visible()
    expect(page.get_by_test_id("sign-in-form").get_by_label(m["password"], exact=True)).to_be_visible()
    phone.check("sign-in")
    page.get_by_test_id("sign-in-form").get_by_role("button", name=m["signInButton"], exact=True).click()
    expect(page.get_by_test_id("email-error")).to_have_text(m["emailRequired"])
    phone.check("sign-in-empty-submit")
    page.get_by_test_id("sign-in-tab-magic-link").click()
    expect(page.get_by_test_id("magic-link-form")).to_be_visible()
    phone.check("sign-in-email-link")

    page.goto(f"{base}/handler/sign-up")
    expect(heading("signUpTitle")).to_be_visible()
    phone.check("sign-up")

    page.goto(f"{base}/handler/forgot-password")
    expect(heading("forgotPasswordTitle")).to_be_visible()
    phone.check("forgot-password")

    # A password reset link (checked, not used, by the page) and a new user's verification link.
    owner = service.sign_up()
    page.goto(password_reset_link(service, base, owner))
    expect(heading("passwordResetTitle")).to_be_visible()
    expect(page.get_by_test_id("password-reset-form")).to_be_visible()
    phone.check("password-reset")

    # Link pages ask before they use the link's code.
    page.goto(verification_link(service, base))
    expect(heading("emailVerifyConfirmTitle")).to_be_visible()
    expect(page.get_by_test_id("confirm-link-text")).to_have_text(m["emailVerifyConfirmText"])
    phone.check("email-verification-confirm")
    page.get_by_role("button", name=m["verify"], exact=True).click()
    expect(page.get_by_test_id("email-verified")).to_contain_text(m["emailVerified"])
    phone.check("email-verification")

    # Pages of links and sign-ins that cannot be finished; a page that does not exist.
    page.goto(f"{base}/handler/magic-link-callback?code={'a' * 45}")
    expect(heading("magicLinkConfirmTitle")).to_be_visible()
    expect(page.get_by_test_id("confirm-link-text")).to_have_text(m["magicLinkConfirmText"])
    expect(page.get_by_role("link", name=m["cancel"], exact=True)).to_be_visible()
    phone.check("magic-link-callback-confirm")
    page.get_by_role("button", name=m["signIn"], exact=True).click()
    expect(heading("signInFailedTitle")).to_be_visible()
    phone.check("magic-link-callback-failed")
    page.goto(f"{base}/handler/oauth-callback?error=server_error")
    expect(page.get_by_role("alert")).to_have_text(m["oauthNotCompleted"])
    phone.check("oauth-callback-failed")
    page.goto(f"{base}/handler/error?errorCode=OAUTH_PROVIDER_ACCESS_DENIED")
    expect(page.get_by_role("alert")).to_have_text(m["oauthDenied"])
    phone.check("error")
    page.goto(f"{base}/handler/no-such-page")
    expect(heading("notFoundTitle")).to_be_visible()
    phone.check("not-found")

    # The two-factor prompt after a password sign-in of a user with TOTP on, and its empty submit.
    totp_user = service.sign_up()
    service.update_me(totp_user, totp_secret_base64=base64.b64encode(os.urandom(20)).decode())
    page.goto(f"{base}/handler/sign-in")
    sign_in(page, m, totp_user)
    prompt = page.get_by_test_id("mfa-prompt")
    expect(prompt).to_be_visible()
    expect(heading("mfaTitle")).to_be_visible()
    phone.check("mfa-prompt")
    prompt.get_by_role("button", name=m["verify"], exact=True).click()
    expect(prompt.get_by_text(m["totpRequired"], exact=True)).to_be_visible()
    phone.check("mfa-prompt-empty-submit")

    # A team invitation, opened signed out, then signed in through it (the sign-in page in the
    # language), accepted.
    me = service.sign_up()
    service.update_me(me, display_name="Maximiliane Mustermann-Schmidt")
    team = deployment.client_call(
        service.service,
        "POST",
        "/teams",
        service.access_tokens[owner],
        display_name="Forschung und Entwicklung",
        creator_user_id="me",
    )
    page.goto(invitation_link(service, base, owner, team["id"], me))
    expect(page.get_by_test_id("invitation-sign-in")).to_be_visible()
    phone.check("team-invitation-signed-out")
    page.get_by_test_id("invitation-sign-in-link").click()
    sign_in(page, m, me)
    expect(page.get_by_test_id("invitation-confirm")).to_be_visible()
    phone.check("team-invitation")
    page.get_by_test_id("invitation-accept").click()
    expect(page.get_by_test_id("invitation-joined")).to_be_visible()
    phone.check("team-invitation-joined")

    # Account settings: every section the navigation lists, then each row's form open. `me`
    # also created a team, so the parts for a team's administrators show.
    own_team = deployment.client_call(
        service.service,
        "POST",
        "/teams",
        service.access_tokens[me],
        display_name="Qualitätssicherung",
        creator_user_id="me",
    )
    page.goto(f"{base}/handler/account-settings")
    expect(heading("accountSettingsTitle")).to_be_visible()
    expect(page.locator(".authmw-page")).to_have_attribute("lang", lang)
    nav = page.get_by_role("navigation", name=m["settingsNavLabel"])
    expect(nav.get_by_test_id("settings-nav-sessions")).to_be_visible()  # once the service said it has sessions
    links = nav.get_by_role("link").all()
    sections = [(link.get_attribute("data-testid") or "").removeprefix("settings-nav-") for link in links]
    assert {"profile", "emails", "password", "sessions", "api-keys", "teams", "danger-zone"} <= set(sections), sections
    rows_opened: list[str] = []
    for section in sections:
        page.goto(f"{base}/handler/account-settings/{section}")
        shown = page.get_by_test_id(f"settings-{section}")
        expect(shown).to_be_visible()
        expect(shown.get_by_role("status").filter(has_text=m["loading"])).to_have_count(0)
        if section == "teams":
            expect(shown.get_by_test_id("team")).to_have_count(2)
            for loaded in ("team-api-keys-area", "member-name-row", "team-name-row", "create-team-row"):
                expect(shown.get_by_test_id(loaded).first).to_be_visible()
        phone.check(f"settings-{section}")
        for row in shown.locator(".authmw-action-row").all():
            name = (row.get_attribute("data-testid") or "").removesuffix("-row")
            row.get_by_test_id(f"{name}-open").click()
            expect(row.get_by_role("group", name=row.locator(".authmw-row-title").inner_text())).to_be_visible()
            phone.check(f"settings-{section}-{name}-open")
            rows_opened.append(name)
            row.get_by_test_id(f"{name}-cancel").click()
    expected_rows = {"profile", "password", "add-email", "create-team", "member-name", "team-name"}
    assert expected_rows <= set(rows_opened), rows_opened

    # The parts of a team's administrator: its members with their permissions, deleting it (the
    # typed name does not match).
    page.goto(f"{base}/handler/account-settings/teams")
    mine = page.locator("[data-testid=team][data-team-name='Qualitätssicherung']")
    expect(mine.get_by_test_id("team-member-list")).to_be_visible()
    mine.get_by_test_id("delete-team").click()
    typed = mine.get_by_test_id("delete-team-form").get_by_role("textbox")
    expect(typed).to_be_focused()
    typed.fill("Qualität")
    mine.get_by_test_id("delete-team-confirm").click()
    expect(mine.get_by_text(m["teamNameMismatch"], exact=True)).to_be_visible()
    phone.check("settings-teams-delete-team")

    # The team-creation page.
    page.goto(f"{base}/handler/team-creation")
    expect(heading("teamCreationTitle")).to_be_visible()
    page.get_by_test_id("team-creation-form").get_by_role("button").last.click()
    creation = page.get_by_test_id("team-creation-form")
    expect(creation.get_by_text(m["teamNameRequired"], exact=True)).to_be_visible()
    phone.check("team-creation")
    page.goto(f"{base}/handler/account-settings/danger-zone")
    page.get_by_test_id("delete-account").click()
    expect(page.get_by_test_id("delete-account-confirm")).to_have_text(m["confirmDeleteAccount"])
    phone.check("settings-danger-zone-confirm")
    page.keyboard.press("Escape")

    # The header's components: the team menu (its current team the user's own) and its new-team
    # form, the user menu.
    service.update_me(me, selected_team_id=own_team["id"])
    page.goto(base)
    switcher = page.get_by_test_id("team-switcher-trigger")
    expect(switcher).to_be_visible()
    expect(page.get_by_test_id("user-button-trigger")).to_be_visible()
    phone.check("header")
    switcher.click()
    team_menu = page.get_by_test_id("team-switcher-menu")
    expect(team_menu.get_by_role("menuitem", name=t["manageTeam"])).to_be_visible()
    phone.check("team-menu")
    team_menu.get_by_role("menuitem", name=t["createTeam"]).click()
    form = page.get_by_test_id("team-switcher-form")
    form.get_by_role("button", name=t["create"], exact=True).click()
    expect(form.get_by_role("alert")).to_have_text(t["teamNameRequired"])
    phone.check("team-switcher-create")
    page.keyboard.press("Escape")
    page.get_by_test_id("user-button-trigger").click()
    menu = page.get_by_test_id("user-button-menu")
    expect(menu.get_by_role("menuitem", name=t["accountSettings"])).to_be_visible()
    phone.check("user-menu")
    page.keyboard.press("Escape")

    # The CLI sign-in confirmation page: a command-line tool's link opened signed in (the question,
    # then cancelled), and a link without its login code.
    login_code = deployment.client_call(service.service, "POST", "/auth/cli")["login_code"]
    page.goto(f"{base}/handler/cli-auth-confirm?login_code={login_code}")
    expect(heading("cliAuthTitle")).to_be_visible()
    confirm = page.get_by_test_id("cli-auth-confirm")
    expect(confirm.get_by_text(m["cliAuthQuestion"], exact=True)).to_be_visible()
    expect(confirm.get_by_role("button", name=m["cliAuthConfirm"], exact=True)).to_be_visible()
    phone.check("cli-auth-confirm")
    confirm.get_by_role("button", name=m["cliAuthCancel"], exact=True).click()
    expect(page.get_by_role("status").filter(has_text=m["cliAuthCancelled"])).to_be_visible()
    phone.check("cli-auth-cancelled")
    page.goto(f"{base}/handler/cli-auth-confirm")
    expect(page.get_by_role("alert")).to_have_text(m["cliAuthLinkIncomplete"])
    phone.check("cli-auth-link-incomplete")

    # The sign-out page reached without the app's link asks first.
    page.goto(f"{base}/handler/sign-out")
    expect(page.get_by_test_id("sign-out-prompt")).to_be_visible()
    expect(heading("signOutTitle")).to_be_visible()
    phone.check("sign-out-prompt")

    # The onboarding page of a new user of a project that requires verified e-mails (another
    # origin, in a tab of its own: the language is chosen again; the cookies of the first go, as
    # they share a host).
    page.close()
    context.clear_cookies()
    page = phone.page = context.new_page()
    gate_base = example_app(gate_service.config)
    # Signed out, the CLI confirmation page asks to sign in first (a link of this service's).
    gate_code = deployment.client_call(gate_service.service, "POST", "/auth/cli")["login_code"]
    page.goto(f"{gate_base}/handler/cli-auth-confirm?login_code={gate_code}&lang={lang}")
    expect(page.get_by_test_id("cli-auth-sign-in")).to_contain_text(m["cliAuthSignIn"])
    expect(page.get_by_test_id("cli-auth-sign-in-link")).to_be_visible()
    phone.check("cli-auth-signed-out")
    page.goto(f"{gate_base}/handler/sign-up")
    form = page.get_by_test_id("sign-up-form")
    form.get_by_label(m["email"], exact=True).fill(f"gate-{uuid.uuid4().hex[:10]}@example.com")
    form.get_by_label(m["password"], exact=True).fill(PASSWORD)
    form.get_by_role("button", name=m["signUpButton"], exact=True).click()
    page.wait_for_url(f"{gate_base}/handler/onboarding?**")
    expect(heading("onboardingVerifyTitle")).to_be_visible()
    phone.check("onboarding")
    page.get_by_test_id("onboarding-check-again").click()
    expect(page.get_by_test_id("onboarding-status")).to_contain_text(m["onboardingNotVerifiedYet"])
    phone.check("onboarding-not-verified")
    # The verification notice is the onboarding page's to give here: the provider shows none.
    expect(page.get_by_test_id("verification-notice")).to_have_count(0)
    # Another address instead: the add-e-mail form (which a user without one gets first).
    page.get_by_role("button", name=m["useAnotherEmail"], exact=True).click()
    expect(heading("addEmailLabel")).to_be_visible()
    page.get_by_role("button", name=m["sendVerificationEmail"], exact=True).click()
    expect(page.get_by_test_id("email-error")).to_have_text(m["emailRequired"])
    phone.check("onboarding-add-email")

    # Where verification is not required, the notice after a sign-up, in the language (the
    # provider's `texts`), and after "Send again".
    page.close()
    context.clear_cookies()
    page = phone.page = context.new_page()
    email = f"notice-{uuid.uuid4().hex[:10]}@example.com"
    page.goto(f"{base}/handler/sign-up?lang={lang}")
    form = page.get_by_test_id("sign-up-form")
    form.get_by_label(m["email"], exact=True).fill(email)
    form.get_by_label(m["password"], exact=True).fill(PASSWORD)
    form.get_by_role("button", name=m["signUpButton"], exact=True).click()
    page.wait_for_url(f"{base}/")
    notice = page.get_by_role("region", name=t["verificationSentTitle"])
    expect(notice).to_contain_text(email)
    phone.check("verification-notice")
    notice.get_by_role("button", name=t["sendAgain"], exact=True).click()
    expect(notice.get_by_role("status")).to_contain_text(t["sentAgain"])
    phone.check("verification-notice-sent-again")

    assert phone.shots >= 34
    assert not phone.problems, "wider than a 320 px window:\n" + "\n".join(phone.problems)
