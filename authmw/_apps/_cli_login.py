"""CLI sign-in (API 2.8): a command-line tool of the app signs its user in through the browser.

The tool calls :meth:`prompt_cli_login`: it gets a login link to the app's
``{handler}/cli-auth-confirm?login_code=...`` page, shows it, and polls until the user, signed
in in the browser, confirms there (the React handler pages have that page; a server-rendered
app calls :meth:`confirm_cli_login` with its signed-in session). The tool then holds a session
of its own user. Written once for sync and async: the waits between polls are ``Sleep`` effects.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from .._ops import Op, Sleep
from .._session import Session
from .._transport import parse_json
from ..errors import CliAuthError, CliAuthExpiredError, CliAuthUsedError, HttpStatusError, NotInServiceVersion
from ._base import _CommonOps
from ._binding import operation

__all__: list[str] = []

#: Seconds between two polls, as the official SDK waits.
POLL_INTERVAL_SECONDS = 2.0
CONFIRM_PAGE = "cli-auth-confirm"
NOT_IN_2_7 = (
    "The service has no /auth/cli: CLI sign-in came with API 2.8, and this service answers as API 2.7. "
    "Use a 2.8 service (`authmw dev --api 2.8`)."
)


def _default_prompt(url: str, login_code: str) -> None:
    print(f"Open this link to sign in: {url}")  # noqa: T201 - a CLI helper talks to its terminal


class _CliLogin(_CommonOps):
    session: Session

    def _cli_call(self, path: str, body: dict[str, Any]) -> Op[tuple[int, Any]]:
        try:
            response = yield from self._transport.call("POST", path, json=body)
        except HttpStatusError as exc:
            if exc.status == 404 and not isinstance(exc, NotInServiceVersion):
                raise NotInServiceVersion(NOT_IN_2_7, method="POST", url=exc.url) from None
            raise
        return response.status_code, parse_json(response, path)

    @operation
    def prompt_cli_login(
        self,
        app_url: str,
        *,
        prompt: Callable[[str, str], None] | None = None,
        expires_in_seconds: float | None = None,
        poll_interval: float = POLL_INTERVAL_SECONDS,
        max_polls: int | None = None,
        anonymous_refresh_token: str | None = None,
    ) -> Op[str]:
        """Sign this app's session in through the browser; returns the refresh token.

        ``prompt(url, login_code)`` shows the link (default: printed); ``app_url`` is where the
        app's handler pages are served (the link is ``{app_url}{handler_path}/cli-auth-confirm``).
        Polls every ``poll_interval`` seconds, at most ``max_polls`` times (``CliAuthError``
        after). ``CliAuthExpiredError`` when the link expired (``expires_in_seconds``, two hours by
        default), ``CliAuthUsedError`` when another poll took the session. A tool that already
        holds an anonymous user's session passes its refresh token as
        ``anonymous_refresh_token``: the browser may then upgrade that user in place.
        """
        if not app_url.startswith(("http://", "https://")):
            raise ValueError(f"app_url must be the http(s) URL your app is served at, not {app_url!r}")
        body: dict[str, Any] = {}
        if expires_in_seconds is not None:
            body["expires_in_millis"] = int(expires_in_seconds * 1000)
        if anonymous_refresh_token is not None:
            body["anon_refresh_token"] = anonymous_refresh_token
        _, started = yield from self._cli_call("/auth/cli", body)
        polling_code, login_code = started.get("polling_code"), started.get("login_code")
        if not isinstance(polling_code, str) or not isinstance(login_code, str):
            raise CliAuthError("The service's answer to /auth/cli has no polling or login code.")
        page = f"{app_url.rstrip('/')}{self.config.handler_path.rstrip('/')}/{CONFIRM_PAGE}"
        (prompt or _default_prompt)(f"{page}?login_code={quote(login_code, safe='')}", login_code)
        polls = 0
        while max_polls is None or polls < max_polls:
            polls += 1
            status, answer = yield from self._cli_call("/auth/cli/poll", {"polling_code": polling_code})
            state = answer.get("status") if isinstance(answer, dict) else None
            if state == "success" and status == 201 and isinstance(answer.get("refresh_token"), str):
                refresh_token: str = answer["refresh_token"]
                self.session.set_tokens(None, refresh_token)
                return refresh_token
            if state == "expired":
                raise CliAuthExpiredError()
            if state == "used":
                raise CliAuthUsedError()
            if state != "waiting":
                raise CliAuthError(f"Unexpected answer to the CLI sign-in poll: {state!r}")
            yield Sleep(poll_interval)
        raise CliAuthError(f"Nobody confirmed the CLI sign-in after {polls} polls.")

    @operation
    def confirm_cli_login(self, login_code: str) -> Op[None]:
        """Hand the signed-in user's session to the CLI sign-in of ``login_code`` (what the
        ``cli-auth-confirm`` page does when the user confirms). The tool then has this
        session; only call it after the user said yes on a page of your own."""
        refresh_token = self.session.refresh_token
        if refresh_token is None:
            raise CliAuthError("Nobody is signed in here: sign the user in before confirming a CLI sign-in.")
        yield from self._cli_call(
            "/auth/cli/complete", {"login_code": login_code, "mode": "complete", "refresh_token": refresh_token}
        )
