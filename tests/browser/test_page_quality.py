"""The handler pages as a person sees them, in Chromium: axe-core's WCAG 2 A/AA rules find no
serious or critical violation on any page in light or dark mode, and a screenshot of each page
in both modes at 375 px and 1280 px is written to build/screenshots/pages/ (git-ignored) for a
person to look at."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import deployment
import pytest
from playwright.sync_api import expect

from .conftest import ROOT
from .test_email_flows import PASSWORD, MailService

pytestmark = pytest.mark.browser

AXE = ROOT / "js" / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = ROOT / "build" / "screenshots" / "pages"
WIDTHS = (375, 1280)
SCHEMES = ("light", "dark")
#: axe-core rule tags of WCAG 2.0 and 2.1, levels A and AA.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailService]:
    """A local service of its own, with every sign-in method on (as the local project starts)
    plus team creation and account deletion, so every section of every page shows."""
    from authmw.dev import LocalService

    running = LocalService(tmp_path_factory.mktemp("page-quality"), port=0, quiet=True).start()
    try:
        mail = MailService(running)
        mail.configure(client_team_creation_enabled=True, client_user_deletion_enabled=True)
        yield mail
    finally:
        running.stop()


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `npm ci` in js/ (axe-core is a devDependency)")
    return AXE.read_text(encoding="utf-8")


class Inspector:
    """Runs axe and takes the screenshots of the page in every scheme and width."""

    def __init__(self, page: Any, axe_source: str, shots: Path = SHOTS, clip_height: int | None = None) -> None:
        """Screenshots go to `shots`: whole pages, or the top `clip_height` px of the window."""
        self.page = page
        self.axe_source = axe_source
        self.shots = shots
        self.clip_height = clip_height
        self.problems: list[str] = []
        shots.mkdir(parents=True, exist_ok=True)

    def check(self, name: str) -> None:
        page = self.page
        for scheme in SCHEMES:
            page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
            # The narrowest phone: nothing may stick out sideways.
            page.set_viewport_size({"width": 320, "height": 700})
            overflow = page.evaluate("() => document.documentElement.scrollWidth")
            if overflow > 320:
                self.problems.append(f"{name} ({scheme}): {overflow} px wide in a 320 px window")
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 900})
                path = str(self.shots / f"{name}-{scheme}-{width}.png")
                if self.clip_height is None:
                    page.screenshot(path=path, full_page=True)
                else:
                    page.screenshot(path=path, clip={"x": 0, "y": 0, "width": width, "height": self.clip_height})
                for violation in self.violations():
                    if violation["impact"] in ("serious", "critical"):
                        self.problems.append(f"{name} ({scheme}, {width} px): {violation['id']}: {violation['nodes']}")

    def violations(self) -> list[dict[str, Any]]:
        if not self.page.evaluate("() => typeof window.axe === 'object'"):
            self.page.add_script_tag(content=self.axe_source)
        return self.page.evaluate(
            """async (tags) => {
                const result = await axe.run(document, { runOnly: { type: "tag", values: tags } });
                return result.violations.map((v) => ({
                    id: v.id,
                    impact: v.impact,
                    nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary}`),
                }));
            }""",
            WCAG_TAGS,
        )


def client_call(service: MailService, method: str, path: str, token: str | None = None, **body: Any) -> Any:
    return deployment.client_call(service.service, method, path, token, **body)


def password_reset_link(service: MailService, base: str, email: str) -> str:
    """The link of a password reset e-mail sent now to `email`, for the example app at `base`."""
    started = time.time()
    client_call(
        service, "POST", "/auth/password/send-reset-code", email=email, callback_url=f"{base}/handler/password-reset"
    )
    return str(service.mail(email, "password_reset", after=started)["link"])


def verification_link(service: MailService, base: str) -> str:
    """The link of the verification e-mail of a user signing up now."""
    started = time.time()
    new_user = f"verify-{uuid.uuid4().hex[:10]}@example.com"
    client_call(
        service,
        "POST",
        "/auth/password/sign-up",
        email=new_user,
        password=PASSWORD,
        verification_callback_url=f"{base}/handler/email-verification",
    )
    return str(service.mail(new_user, "email_verification", after=started)["link"])


def invitation_link(service: MailService, base: str, owner: str, team_id: str, email: str) -> str:
    """The link of an invitation to `team_id` that `owner` sends now to `email`."""
    started = time.time()
    client_call(
        service,
        "POST",
        "/team-invitations/send-code",
        service.access_tokens[owner],
        email=email,
        team_id=team_id,
        callback_url=f"{base}/handler/team-invitation",
    )
    return str(service.mail(email, "team_invitation", after=started)["link"])


def test_pages_pass_axe_in_light_and_dark_and_are_screenshotted(
    service: MailService, example_app: Any, context: Any, axe_source: str
) -> None:
    base = example_app(service.config)
    page = context.new_page()
    inspect = Inspector(page, axe_source)

    # The check itself finds what it should: grey on white and an image without alt text.
    page.set_content(
        '<html lang="en"><body><main><p style="color:#bbb;background:#fff">faint</p><img src="x.png"></main></body></html>'
    )
    assert {(v["id"], v["impact"]) for v in inspect.violations()} >= {
        ("color-contrast", "serious"),
        ("image-alt", "critical"),
    }

    # Signed out: the sign-in methods, the same form after an empty submit, sign-up, forgot password.
    page.goto(f"{base}/handler/sign-in")
    expect(page.get_by_test_id("sign-in-form")).to_be_visible()
    expect(page.get_by_test_id("auth-brand")).to_contain_text("authmw local project")
    inspect.check("sign-in")
    page.get_by_test_id("sign-in-form").get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_test_id("email-error")).to_have_text("Enter your e-mail address.")
    expect(page.get_by_label("E-mail")).to_be_focused()
    inspect.check("sign-in-empty-submit")

    page.goto(f"{base}/handler/sign-up")
    expect(page.get_by_test_id("sign-up-form")).to_be_visible()
    inspect.check("sign-up")

    page.goto(f"{base}/handler/forgot-password")
    expect(page.get_by_test_id("forgot-password-form")).to_be_visible()
    inspect.check("forgot-password")

    # A magic link opened signed out asks before it uses the code.
    page.goto(f"{base}/handler/magic-link-callback?code={'k' * 45}")
    expect(page.get_by_test_id("confirm-link")).to_have_text("Sign in")
    inspect.check("magic-link-callback-confirm")

    # A password reset link (checked, not used, by the page).
    owner = service.sign_up()
    page.goto(password_reset_link(service, base, owner))
    expect(page.get_by_test_id("password-reset-form")).to_be_visible()
    inspect.check("password-reset")

    # An e-mail verification link of a new user: the page asks first, then verifies on the click.
    page.goto(verification_link(service, base))
    expect(page.get_by_role("heading", level=1)).to_have_text("Verify your e-mail address?")
    inspect.check("email-verification-confirm")
    page.get_by_test_id("confirm-link").click()
    expect(page.get_by_test_id("email-verified")).to_be_visible()
    inspect.check("email-verification")

    # A team invitation, opened signed out and then signed in.
    me = service.sign_up()
    team = client_call(
        service, "POST", "/teams", service.access_tokens[owner], display_name="Design team", creator_user_id="me"
    )
    page.goto(invitation_link(service, base, owner, team["id"], me))
    expect(page.get_by_test_id("invitation-sign-in")).to_be_visible()
    inspect.check("team-invitation-signed-out")

    page.get_by_test_id("invitation-sign-in-link").click()
    form = page.get_by_test_id("sign-in-form")
    form.get_by_label("E-mail").fill(me)
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_test_id("invitation-confirm")).to_be_visible()
    inspect.check("team-invitation")
    page.get_by_test_id("invitation-accept").click()
    expect(page.get_by_test_id("invitation-joined")).to_be_visible()

    # Account settings of a user in a team, with a second e-mail address.
    client_call(
        service,
        "POST",
        "/contact-channels",
        service.access_tokens[me],
        user_id="me",
        type="email",
        value=f"work-{uuid.uuid4().hex[:8]}@example.com",
        used_for_auth=False,
    )
    # One section at a time (its own URL): the e-mails, the teams, the danger zone.
    page.goto(f"{base}/handler/account-settings/emails")
    expect(page.get_by_test_id("contact-channel")).to_have_count(2)
    inspect.check("account-settings-emails")
    page.goto(f"{base}/handler/account-settings/teams")
    expect(page.get_by_test_id("team")).to_be_visible()
    inspect.check("account-settings-teams")
    page.goto(f"{base}/handler/account-settings/danger-zone")
    page.get_by_test_id("delete-account").click()
    expect(page.get_by_test_id("delete-account-confirm")).to_be_focused()
    inspect.check("account-settings-confirm-delete")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("delete-account")).to_be_focused()

    # Sign-out reached without the app's link asks first (issue 26); the error and callback
    # pages of a failed sign-in (attacker text in the URL is not shown).
    page.goto(f"{base}/handler/sign-out")
    expect(page.get_by_test_id("sign-out-prompt")).to_be_visible()
    inspect.check("sign-out-prompt")
    # A magic link opened while signed in leaves the session as it is.
    page.goto(f"{base}/handler/magic-link-callback?code={'k' * 45}")
    expect(page.get_by_test_id("already-signed-in")).to_be_visible()
    inspect.check("magic-link-callback-signed-in")
    page.goto(f"{base}/handler/error?errorCode=OAUTH_PROVIDER_ACCESS_DENIED&message=Call%20us")
    expect(page.get_by_role("alert")).to_have_text("The sign-in was denied at the provider. Please try again.")
    inspect.check("error")
    page.goto(f"{base}/handler/oauth-callback?error=server_error&error_description=Call%20us")
    expect(page.get_by_role("alert")).to_have_text("The sign-in could not be completed. Please try again.")
    inspect.check("oauth-callback-failed")

    assert not inspect.problems, "serious or critical axe-core violations, or overflow:\n" + "\n".join(inspect.problems)


def test_keyboard_only_sign_in(service: MailService, example_app: Any, context: Any) -> None:
    """Tab order follows the card top to bottom, every stop shows a focus ring, Enter submits."""
    base = example_app(service.config)
    email = service.sign_up()
    page = context.new_page()
    page.goto(f"{base}/handler/sign-in")
    expect(page.get_by_test_id("sign-in-form")).to_be_visible()

    stops: list[str] = []
    for _ in range(30):
        page.keyboard.press("Tab")
        stop = page.evaluate(
            """() => {
                const el = document.activeElement;
                if (!el || el === document.body || !el.closest('.authmw-page')) return null;
                const style = getComputedStyle(el);
                const ring = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
                const name = el.labels?.[0]?.textContent || el.querySelector('.authmw-sr-only')?.textContent || el.textContent;
                return `${name.trim()}${ring ? '' : ' (no focus ring)'}`;
            }"""
        )
        if stop is None:
            if stops:
                break
            continue
        stops.append(stop)
    expected = [
        "Password",
        "E-mail",
        "Password",
        "Show password",
        "Forgot your password?",
        "Sign in",
        "Create an account",
    ]
    found = iter(stops)
    assert all(name in found for name in expected), f"{expected} is not an ordered part of the tab order {stops}"
    assert not [stop for stop in stops if stop.endswith("(no focus ring)")], stops

    # Enter in the password field submits; the result is announced.
    form = page.get_by_test_id("sign-in-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill("not the password")
    form.get_by_label("Password", exact=True).press("Enter")
    expect(page.get_by_role("alert")).to_have_text("Wrong e-mail or password.")
    form.get_by_label("Password", exact=True).fill(PASSWORD)
    form.get_by_label("Password", exact=True).press("Enter")
    expect(page.get_by_test_id("user-email")).to_have_text(email)
