"""Chromium: the CLI sign-in confirmation page ({handler}/cli-auth-confirm) with a real tool.

The tool is ``ClientApp.prompt_cli_login`` in a thread; its waits between polls wait for the
test to say the person confirmed (an event, not a timer). The browser signs in, opens the
tool's link, confirms, and the tool ends up signed in as that person. Signed out, the page
sends the person to sign in and back; a bad link says so; cancelling signs nothing in. Each
state is checked with axe and screenshotted (light and dark, 375 and 1280 px)."""

from __future__ import annotations

import queue
import threading
from typing import Any

import pytest
from playwright.sync_api import expect

from authmw import ClientApp
from authmw._ops import SyncDriver

from .test_page_quality import Inspector, axe_source  # noqa: F401 - the fixture
from .test_signup_flow import sign_up, submit_password_form

pytestmark = pytest.mark.browser


class Tool:
    """A command-line tool signing in: runs prompt_cli_login in a thread."""

    def __init__(self, config: Any, app_url: str) -> None:
        self.links: queue.Queue[str] = queue.Queue()
        self.confirmed = threading.Event()
        self.result: list[Any] = []
        self.app = ClientApp(config, driver=SyncDriver(sleep=lambda seconds: self.confirmed.wait(60)))
        self.thread = threading.Thread(target=self._run, args=(app_url,), daemon=True)
        self.thread.start()

    def _run(self, app_url: str) -> None:
        try:
            self.result.append(self.app.prompt_cli_login(app_url, prompt=lambda url, code: self.links.put(url), max_polls=3))
        except Exception as error:  # handed to the test
            self.result.append(error)

    def link(self) -> str:
        return self.links.get(timeout=60)

    def finish(self) -> Any:
        self.confirmed.set()
        self.thread.join(60)
        return self.result[0]


def test_the_person_confirms_and_the_tool_is_signed_in_as_them(
    local_service: Any, example_app: Any, context: Any, axe_source: str  # noqa: F811
) -> None:
    base = example_app(local_service.config)
    page = context.new_page()
    inspect = Inspector(page, axe_source)
    tool = Tool(local_service.config, base)
    link = tool.link()
    assert link.startswith(f"{base}/handler/cli-auth-confirm?login_code=")

    # Signed out: sign in first, then back to the question.
    page.goto(link)
    expect(page.get_by_test_id("cli-auth-sign-in")).to_be_visible()
    inspect.check("cli-auth-signed-out")
    email = local_service.sign_up().email
    page.get_by_test_id("cli-auth-sign-in-link").click()
    submit_password_form(page, "sign-in-form", "Sign in", email)
    expect(page.get_by_test_id("cli-auth-confirm")).to_be_visible()
    expect(page.get_by_test_id("cli-auth-user")).to_have_text(email)
    inspect.check("cli-auth-confirm")

    page.get_by_test_id("cli-auth-accept").click()
    expect(page.get_by_test_id("cli-auth-done")).to_be_visible()
    inspect.check("cli-auth-done")
    refresh_token = tool.finish()
    assert isinstance(refresh_token, str), refresh_token
    assert tool.app.get_user().primary_email == email
    tool.app.close()
    assert not inspect.problems, "\n".join(inspect.problems)


def test_cancel_signs_nothing_in_and_a_bad_link_says_so(
    local_service: Any, example_app: Any, context: Any, axe_source: str  # noqa: F811
) -> None:
    base = example_app(local_service.config)
    page = context.new_page()
    inspect = Inspector(page, axe_source)
    sign_up(page, base)
    tool = Tool(local_service.config, base)
    link = tool.link()
    page.goto(link)
    page.get_by_test_id("cli-auth-cancel").click()
    expect(page.get_by_role("status")).to_have_text("The command-line tool is not signed in. You can close this page.")
    failure = tool.finish()  # three polls, nobody confirmed
    assert "after 3 polls" in str(failure)
    assert not tool.app.session.is_signed_in
    tool.app.close()

    # The same link later (the attempt still open but nobody may reuse a finished one), and a made-up code.
    page.goto(f"{base}/handler/cli-auth-confirm?login_code=made-up")
    expect(page.get_by_test_id("auth-error")).to_have_text(
        "This sign-in link expired or was already used. Start again in your terminal."
    )
    inspect.check("cli-auth-bad-link")
    page.goto(f"{base}/handler/cli-auth-confirm")
    expect(page.get_by_test_id("auth-error")).to_have_text(
        "This sign-in link is incomplete (no login code). Start again in your terminal."
    )
    assert not inspect.problems, "\n".join(inspect.problems)
