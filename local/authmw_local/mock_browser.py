"""A browser's part of "Continue with GitHub" against the local service, for tests and scripts.

The local service stands in for every OAuth provider with a page of its own (mock_provider.py):
a form asking for an e-mail address. ``sign_in_at_mock_provider`` does what a person's browser
does between the app's authorize URL and the app's callback: it opens the URL (following
a redirect, or the ``location`` of API 2.8's ``stack_response_mode=json`` answer), fills in and
submits that page, follows the service's callback, and returns the URL the browser would be
sent back to: your ``redirect_uri`` with ``code`` and ``state``, or, when the service reports an
error (a denied sign-in), your ``error_redirect_url`` with ``errorCode``; without one, the
service's error is raised as :class:`MockProviderError`.
Hand that URL to ``ClientApp.sign_in_with_oauth_callback`` or request your callback route
with it.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import httpx

__all__ = ["MockProviderError", "sign_in_at_mock_provider"]


class MockProviderError(RuntimeError):
    """The authorize URL did not lead through the local service's mock provider page."""


def sign_in_at_mock_provider(
    authorize_url: str,
    *,
    email: str,
    account_id: str | None = None,
    deny: bool = False,
    share_email: bool = True,
    timeout: float = 30.0,
) -> str:
    """Sign in as ``email`` at the mock provider (``deny=True`` presses Deny instead); the URL the
    browser ends on, ready for the app's OAuth callback. ``account_id`` is the provider's id of
    the account (default: one derived from the e-mail, the same each time); ``share_email=False``
    keeps the address private, so the app's user has none."""
    with httpx.Client(timeout=timeout) as browser:  # a cookie jar of its own, like a browser
        authorize = browser.get(authorize_url)
        page = authorize.headers.get("location", "") if authorize.is_redirect else _json_location(authorize)
        if "/dev/oauth/" not in urlsplit(page).path:
            raise MockProviderError(
                f"{authorize_url} answered {authorize.status_code} without sending the browser to the local "
                f"service's mock provider: is it an authorize URL of the local service? {authorize.text[:300]}"
            )
        fields = dict(parse_qsl(urlsplit(page).query))
        fields["action"] = "deny" if deny else "authorize"
        fields["email"] = email
        if account_id is not None:
            fields["account_id"] = account_id
        if not share_email:
            fields["private_email"] = "on"
        submitted = browser.post(page.split("?", 1)[0], data=fields)
        if not submitted.is_redirect:
            raise MockProviderError(
                f"the mock provider refused the sign-in ({submitted.status_code}): {submitted.text[:300]}"
            )
        back = browser.get(submitted.headers["location"])
        if not back.is_redirect:
            raise MockProviderError(f"the service's OAuth callback answered {back.status_code}: {back.text[:300]}")
        return str(back.headers["location"])


def _json_location(response: httpx.Response) -> str:
    """The `location` of API 2.8's `stack_response_mode=json` answer, else ""."""
    try:
        body = response.json()
    except ValueError:
        return ""
    location = body.get("location") if response.status_code == 200 and isinstance(body, dict) else None
    return location if isinstance(location, str) else ""
