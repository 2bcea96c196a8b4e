"""The handler pages inside a host page, in Chromium: a host stylesheet's element rules (the kind a
starter template or an app's base styles bring) leave the pages' look alone, the documented
variables still theme them, and on a phone the account page is compact and nothing is wider
than the window, whatever the length of a name or an address.

The fresh Vite app of the README (tests/browser/test_fresh_react_app.py) checks the same look
under Vite's own default stylesheet.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import ROOT
from .test_email_flows import MailService
from .test_page_quality import client_call, service  # noqa: F401  (a service with teams and deletion on)

pytestmark = pytest.mark.browser

SHOTS = ROOT / "build" / "screenshots" / "host-styles"

#: Element rules a host page may have, each against a property the pages style (written for this test).
HOST_STYLESHEET = """
:root { color-scheme: light dark; color: #d0d0d0; background: #202020; letter-spacing: 0.2px; font-weight: 300;
        line-height: 1.1; font-family: Georgia, serif; }
body { display: flex; place-items: center; text-align: center; }
#root { text-align: center; }
h1, h2 { font-size: 3.5em; font-weight: 300; color: #f0f; margin: 2em 0; letter-spacing: -2px; font-family: Georgia, serif;
         text-transform: uppercase; }
label { display: block; text-align: center; font-weight: 700; color: #0a0; text-transform: uppercase; font-size: 2em; }
a { color: #f60; font-weight: 700; text-decoration: inherit; }
a:hover { color: #0ff; }
button { background-color: #111; color: #fff; border: 3px solid transparent; border-radius: 0; padding: 1.2em 2em;
         font-size: 1.3em; font-family: Georgia, serif; letter-spacing: 2px; text-transform: uppercase; }
button:hover { border-color: #f0f; }
button:focus, button:focus-visible { outline: 4px auto red; }
input { background: #000; color: #fff; border: 5px dashed red; font-size: 2em; }
p { margin: 2em 0; color: #f00; }
"""

#: What a person sees of the sign-in page's title, labels, buttons and links.
LOOK = """(selectors) => {
  const root = parseFloat(getComputedStyle(document.documentElement).fontSize);
  // sizes in units of the root font size: the pages follow it on purpose (rem), as the user's setting
  const rem = (value) => value.split(" ").map((part) => part.endsWith("px") ? `${(parseFloat(part) / root).toFixed(3)}rem` : part).join(" ");
  const look = {};
  for (const [name, selector] of Object.entries(selectors)) {
    const element = document.querySelector(selector);
    if (!element) { look[name] = null; continue; }
    const s = getComputedStyle(element);
    look[name] = {
      color: s.color, background: s.backgroundColor, fontFamily: s.fontFamily, fontSize: rem(s.fontSize),
      fontWeight: s.fontWeight, lineHeight: rem(s.lineHeight), letterSpacing: rem(s.letterSpacing), textAlign: s.textAlign,
      textTransform: s.textTransform, textDecoration: s.textDecorationLine, padding: rem(s.padding), margin: rem(s.margin),
      border: `${s.borderTopWidth} ${s.borderTopStyle} ${s.borderTopColor}`, radius: s.borderTopLeftRadius,
      display: s.display, outline: s.outlineStyle, width: rem(`${element.getBoundingClientRect().width}px`),
    };
  }
  return look;
}"""

SIGN_IN_PARTS = {
    "title": ".authmw-page h1",
    "app name": ".authmw-page .authmw-app-name",
    "e-mail label": "[data-testid=sign-in-form] label",
    "e-mail field": "[data-testid=sign-in-form] input[type=email]",
    "submit button": "[data-testid=sign-in-form] button[type=submit]",
    "show-password button": "[data-testid=sign-in-form] .authmw-toggle",
    "forgot-password link": "[data-testid=sign-in-form] a",
    "sign-up link": ".authmw-card-footer a",
    "footer text": ".authmw-card-footer p",
}


def changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What differs between two looks, per part; sizes in rem within a rounding (and widths within
    0.02 rem: a 1 px border does not grow with the root font size)."""

    def same(a: str, b: str, slack: float) -> bool:
        if a == b:
            return True
        left, right = a.split(), b.split()
        if len(left) != len(right):
            return False
        for x, y in zip(left, right, strict=True):
            if x.endswith("rem") and y.endswith("rem"):
                if abs(float(x[:-3]) - float(y[:-3])) > slack + 0.002 * abs(float(x[:-3])):
                    return False
            elif x != y:
                return False
        return True

    return {
        name: {
            key: (value, after[name][key])
            for key, value in part.items()
            if not same(value, after[name][key], 0.02 if key == "width" else 0.002)
        }
        for name, part in before.items()
    }


def look(page: Any) -> dict[str, Any]:
    parts: dict[str, Any] = page.evaluate(LOOK, SIGN_IN_PARTS)
    assert None not in parts.values(), f"parts of the sign-in page not found: {parts}"
    return parts


def hovered_link_colour(page: Any) -> str:
    link = page.locator("[data-testid=sign-in-form] a").first
    link.hover()
    colour: str = link.evaluate("(a) => getComputedStyle(a).color")
    page.mouse.move(0, 0)
    return colour


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_host_stylesheet_leaves_the_sign_in_page_look_alone(
    scheme: str, service: MailService, example_app: Any, context: Any
) -> None:
    base = example_app(service.config)
    page = context.new_page()
    page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{base}/handler/sign-in")
    expect(page.get_by_test_id("sign-in-form")).to_be_visible()
    before, hovered = look(page), hovered_link_colour(page)

    page.add_style_tag(content=HOST_STYLESHEET)
    # The host's rules are in force on the page (the control): a host paragraph takes them.
    page.evaluate("() => document.body.insertAdjacentHTML('beforeend', '<p id=host-p>host</p><h1 id=host-h1>host</h1>')")
    assert page.evaluate("() => getComputedStyle(document.getElementById('host-p')).color") == "rgb(255, 0, 0)"
    assert page.evaluate("() => getComputedStyle(document.getElementById('host-h1')).textTransform") == "uppercase"
    page.evaluate("() => { document.getElementById('host-p').remove(); document.getElementById('host-h1').remove(); }")
    changed = changes(before, look(page))
    assert not any(changed.values()), f"the host's rules changed the page: {changed}"
    assert hovered_link_colour(page) == hovered
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"sign-in-under-host-{scheme}-1280.png"), full_page=True)

    # The app still themes the pages on purpose, through the documented variables.
    page.add_style_tag(content=".authmw-page { --authmw-accent: rgb(124, 58, 237); --authmw-radius: 14px; }")
    themed = look(page)
    assert themed["submit button"]["background"] == "rgb(124, 58, 237)"
    assert themed["submit button"]["radius"] == "14px"
    assert themed["forgot-password link"]["color"] == "rgb(124, 58, 237)"


def test_account_settings_on_a_phone_are_compact_and_fit_long_names_and_addresses(
    service: MailService, example_app: Any, context: Any
) -> None:
    base = example_app(service.config)
    email = service.sign_up()
    # A 60-character address and a long name without a break.
    long_address = f"a.very.long.mailbox.name.{uuid.uuid4().hex[:12]}@subdomain.example.com"
    long_address = long_address.rjust(60, "x")
    assert len(long_address) == 60
    service.update_me(email, display_name="Bartholomew-Maximilian-Featherstonehaugh-Cholmondeley")
    client_call(
        service, "POST", "/contact-channels", service.access_tokens[email],
        user_id="me", type="email", value=long_address, used_for_auth=False,
    )
    client_call(
        service, "POST", "/teams", service.access_tokens[email],
        display_name="The-Department-Of-Extraordinarily-Long-Team-Names-Worldwide", creator_user_id="me",
    )
    page = context.new_page()
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{base}/handler/sign-in")
    form = page.get_by_test_id("sign-in-form")
    form.get_by_label("E-mail").fill(email)
    form.get_by_label("Password", exact=True).fill("correct horse battery")
    form.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_test_id("user-email")).to_have_text(email)

    SHOTS.mkdir(parents=True, exist_ok=True)
    too_wide: list[str] = []
    for section in ("profile", "emails", "password", "teams", "danger-zone"):
        page.goto(f"{base}/handler/account-settings/{section}")
        content = page.get_by_test_id(f"settings-{section}")
        expect(content).to_be_visible()
        if section == "emails":
            expect(page.get_by_test_id("contact-channel")).to_have_count(2)
        if section == "teams":
            expect(page.get_by_test_id("team")).to_be_visible()
        # The sections' menu takes one line: the content starts within 100 px of the title.
        title = page.locator(".authmw-settings-main h1").bounding_box()
        top = content.bounding_box()
        assert title and top
        gap = top["y"] - (title["y"] + title["height"])
        assert gap <= 100, f"{section}: the section starts {gap:.0f} px below the title"
        # The current section is in view in the menu's row.
        current = page.locator(".authmw-settings-nav a[aria-current]").bounding_box()
        assert current and current["x"] >= 0 and current["x"] + current["width"] <= 375, (section, current)
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
            page.screenshot(path=str(SHOTS / f"account-{section}-{scheme}-375.png"), full_page=True)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > 375:
            too_wide.append(f"{section}: the page is {width} px wide")
        # Nothing sticks out of its section's card either.
        sticking = page.evaluate(
            """() => {
                const card = document.querySelector('.authmw-section').getBoundingClientRect();
                return [...document.querySelectorAll('.authmw-section *')]
                  .filter((e) => e.getBoundingClientRect().right > card.right + 0.5)
                  .map((e) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 40)}`);
            }"""
        )
        if sticking:
            too_wide.append(f"{section}: out of the card: {sticking}")
    assert not too_wide, "\n".join(too_wide)
