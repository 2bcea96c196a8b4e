"""Chromium: pages of other origins cannot make the signed-in user's browser act on the app.

The example app runs on http://localhost:P; the attacker's pages on a second server, reached
as http://127.0.0.1:Q (another site: SameSite=Lax keeps the cookies home) and as
http://localhost:Q (the same site on another port: the cookies go along, and the middleware's
origin check refuses). Each submits a form POST and a credentialed fetch to the app's
POST /api/actions while the user is signed in; the action must not happen. The app's own
page then does the same POST and it counts, so the endpoint itself works.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from .conftest import serve
from .test_signup_flow import api_me, sign_up

pytestmark = pytest.mark.browser


def attacker_site(target: str) -> Starlette:
    async def form(request: Request) -> HTMLResponse:
        return HTMLResponse(
            f'<form method="post" action="{target}"><input name="note" value="pwned"></form>'
            "<script>document.forms[0].submit()</script>"
        )

    async def fetch(request: Request) -> HTMLResponse:
        return HTMLResponse(
            f"""<p id="state">sending</p><script>
            fetch({target!r}, {{method: "POST", credentials: "include", mode: "no-cors", body: "note=pwned",
                   headers: {{"content-type": "application/x-www-form-urlencoded"}}}})
              .then(() => "sent", (e) => "failed: " + e)
              .then((state) => {{ document.getElementById("state").textContent = state; }});
            </script>"""
        )

    return Starlette(routes=[Route("/form", form), Route("/fetch", fetch)])


def cookie_attributes(context: Any, project_id: str) -> dict[str, tuple[Any, ...]]:
    wanted = {f"stack-refresh-{project_id}", "stack-access"}
    return {
        c["name"]: (c["sameSite"], c["path"], c["httpOnly"], c["secure"])
        for c in context.cookies()
        if c["name"] in wanted
    }


def count(page: Any) -> int:
    return page.evaluate("fetch('/api/actions').then((r) => r.json()).then((b) => b.count)")  # type: ignore[no-any-return]


def test_other_origins_cannot_act_for_the_signed_in_user(local_service, example_app, context) -> None:
    pid = local_service.project_id
    base = example_app(local_service.config)
    page = context.new_page()
    sign_up(page, base)

    # The React package wrote the cookies: SameSite=Lax, Path=/, readable by pages, not Secure on http.
    lax = ("Lax", "/", False, False)
    assert cookie_attributes(context, pid) == {f"stack-refresh-{pid}": lax, "stack-access": lax}
    # The middleware rewrites them after a refresh with the same attributes.
    context.clear_cookies(name="stack-access")
    assert api_me(context, base).status == 200
    assert cookie_attributes(context, pid) == {f"stack-refresh-{pid}": lax, "stack-access": lax}
    assert count(page) == 0

    target = f"{base}/api/actions"
    with serve(attacker_site(target)) as port:
        for attacker, answer in [
            (f"http://127.0.0.1:{port}", "USER_AUTHENTICATION_REQUIRED"),  # another site: no cookies sent
            (f"http://localhost:{port}", "CROSS_SITE_REQUEST_REFUSED"),  # same site, other origin: refused
        ]:
            evil = context.new_page()
            evil.goto(f"{attacker}/form")
            evil.wait_for_url(target)
            assert answer in evil.content(), (attacker, evil.content())
            evil.goto(f"{attacker}/fetch")
            expect(evil.locator("#state")).to_have_text("sent")
            evil.close()
            assert count(page) == 0, attacker

    # The app's own page may: the endpoint works, and the user is still signed in.
    assert page.evaluate("fetch('/api/actions', {method: 'POST'}).then((r) => r.status)") == 200
    assert count(page) == 1
    assert api_me(context, base).status == 200
