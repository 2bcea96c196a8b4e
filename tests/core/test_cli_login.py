"""CLI sign-in (API 2.8): ``prompt_cli_login`` in the tool, ``confirm_cli_login`` in the
signed-in browser app, against a local service answering as 2.8; sync and async. The "browser"
is a second ClientApp; the waits between polls are the driver's sleep, which here stands for
the user confirming (no real waiting, nothing raced against the clock)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from authmw import AsyncClientApp, ClientApp
from authmw._ops import AsyncDriver, SyncDriver
from authmw.errors import CliAuthError, NotInServiceVersion

_numbers = itertools.count()


@pytest.fixture
def browser(service_28: Any) -> Iterator[ClientApp]:
    """The user signed in in the browser."""
    with ClientApp(service_28.config) as app:
        app.sign_up_with_password(f"cli-{next(_numbers)}@example.com", "correct horse")
        yield app


def test_the_tool_gets_the_browser_users_session(service_28: Any, browser: ClientApp) -> None:
    shown: list[tuple[str, str]] = []

    def prompt(url: str, login_code: str) -> None:
        shown.append((url, login_code))
        browser.confirm_cli_login(login_code)  # the user clicks "confirm" at once

    with ClientApp(service_28.config) as tool:
        refresh_token = tool.prompt_cli_login("https://app.example.com/", prompt=prompt)
        assert refresh_token == browser.session.refresh_token
        assert tool.get_user().id == browser.get_user().id  # the tool is signed in as that user
    ((url, code),) = shown
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "app.example.com", "/handler/cli-auth-confirm")
    assert parse_qs(parts.query)["login_code"] == [code]


def test_the_tool_polls_until_the_user_confirms(service_28: Any, browser: ClientApp) -> None:
    codes: list[str] = []
    waits: list[float] = []

    def sleep(seconds: float) -> None:  # each wait is a moment in which the user may act
        waits.append(seconds)
        if len(waits) == 2:
            browser.confirm_cli_login(codes[0])

    with ClientApp(service_28.config, driver=SyncDriver(sleep=sleep)) as tool:
        tool.prompt_cli_login("http://localhost:3000", prompt=lambda url, code: codes.append(code), poll_interval=0.5)
        assert tool.get_user().id == browser.get_user().id
    assert waits == [0.5, 0.5]


def test_nobody_confirms_and_a_code_serves_once(service_28: Any, browser: ClientApp) -> None:
    codes: list[str] = []
    with ClientApp(service_28.config, driver=SyncDriver(sleep=lambda seconds: None)) as tool:
        with pytest.raises(CliAuthError, match="after 3 polls"):
            tool.prompt_cli_login("http://localhost:3000", prompt=lambda url, code: codes.append(code), max_polls=3)
        assert not tool.session.is_signed_in
    # a confirmed code cannot be confirmed again, and a code nobody made is refused
    browser.confirm_cli_login(codes[0])
    for code in (codes[0], "not-a-code"):
        with pytest.raises(Exception, match="Invalid login code"):
            browser.confirm_cli_login(code)


def test_confirming_needs_a_signed_in_user(service_28: Any) -> None:
    with ClientApp(service_28.config) as nobody, pytest.raises(CliAuthError, match="Nobody is signed in"):
        nobody.confirm_cli_login("any")
    with ClientApp(service_28.config) as tool, pytest.raises(ValueError, match="app_url"):
        tool.prompt_cli_login("app.example.com")


def test_async(service_28: Any, browser: ClientApp) -> None:
    async def run() -> None:
        codes: list[str] = []

        async def sleep(seconds: float) -> None:
            browser.confirm_cli_login(codes[0])

        async with AsyncClientApp(service_28.config, driver=AsyncDriver(sleep=sleep)) as tool:
            token = await tool.prompt_cli_login("http://localhost:3000", prompt=lambda url, code: codes.append(code))
            assert token == browser.session.refresh_token
            assert (await tool.get_user()).id == browser.get_user().id

    asyncio.run(run())


def test_a_27_service_has_no_cli_sign_in(service_27: Any) -> None:
    with ClientApp(service_27.config) as tool, pytest.raises(NotInServiceVersion, match="API 2.8"):
        tool.prompt_cli_login("http://localhost:3000", prompt=lambda url, code: None)
