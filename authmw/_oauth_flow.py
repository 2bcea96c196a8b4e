"""OAuth sign-in for server-rendered apps: the logic of two routes, without a web framework.

- ``GET {handler}/oauth/{provider}[?after_auth_return_to=/page]`` (:meth:`OAuthRoutes.start`):
  makes a state and a PKCE verifier, keeps the verifier in the short-lived HttpOnly cookie
  ``stack-oauth-outer-{state}`` (Path = the callback, an hour, SameSite=Lax) and redirects
  to the service's authorize URL.
- ``GET {handler}/oauth-callback?code=...&state=...`` (:meth:`OAuthRoutes.finish`): reads and
  deletes that cookie, runs the checks of ``ClientApp.sign_in_with_oauth_callback`` and the
  code exchange, sets the session cookies the authmw middleware reads, and redirects to
  ``after_auth_return_to`` (same-site paths only), else the after-sign-up page for a new
  user and the after-sign-in page otherwise. A callback without ``code``/``state`` or without
  a cookie for its state signs nobody in (it was not
  meant for this app) and shows a short page.
- An account with TOTP: the exchange answers MULTI_FACTOR_AUTHENTICATION_REQUIRED; the
  callback keeps the attempt code in the HttpOnly cookie ``stack-oauth-mfa`` (Path = the
  callback, 5 minutes: the attempt code's own lifetime, SameSite=Lax) and shows a form asking
  for the 6-digit code, which posts to the callback (``POST {handler}/oauth-callback``,
  :meth:`OAuthRoutes.finish` with ``method="POST"``). A right code finishes the sign-in as
  above; a wrong one shows the form again. The code is all the form sends: a cross-site post
  carries no SameSite=Lax cookie, and one with another ``Origin`` is refused.

Each adapter (authmw_fastapi, authmw_django, authmw_flask) only turns a request into the
arguments below and a :class:`Reply` into its response, and runs :meth:`finish` (an
operation) with its driver.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit

from ._apps._mfa import _ClientMfa
from ._apps._oauth import _ClientOAuth
from ._config import AuthConfig
from ._oauth import (
    OUTER_COOKIE_PREFIXES,
    OAuthAuthorization,
    authorize_url,
    callback_params,
    outer_cookie_name,
    verifier_from_cookies,
)
from ._ops import Op
from ._session import Session
from ._transport import Transport
from ._urls import same_origin_path
from .errors import (
    AuthmwError,
    ConfigurationError,
    HttpStatusError,
    InvalidTotpCode,
    KnownError,
    MultiFactorAuthenticationRequired,
    OAuthCallbackError,
    UnsupportedError,
)
from .middleware import _cookies as c
from .middleware._settings import Options
from .models import SignInResult

__all__ = ["MFA_COOKIE", "MFA_COOKIE_MAX_AGE", "START_COOKIE_MAX_AGE", "OAuthRoutes", "Reply", "safe_return_path"]

#: Lifetime of the verifier cookie of a server-rendered flow (the OAuth state
#: cookie lives 3600 s, as the official SDK's ``stack-oauth-outer-*``).
START_COOKIE_MAX_AGE = 3600
RETURN_TO_PARAM = "after_auth_return_to"
#: Keeps the attempt code of a sign-in that waits for the TOTP (HttpOnly, Path = the callback).
MFA_COOKIE = "stack-oauth-mfa"
#: The attempt code is valid 5 minutes at the service; the cookie no longer.
MFA_COOKIE_MAX_AGE = 300
_SIX_DIGITS = re.compile(r"[0-9]{6}")
#: A state that can name the verifier cookie: every SDK's states are base64url or base32 text.
#: Anything else (``;``, ``=``, CR/LF, non-ASCII: all from a URL anyone can write) names no
#: cookie, so it never reaches a ``Set-Cookie`` header.
_COOKIE_STATE = re.compile(r"[A-Za-z0-9_.~-]{1,256}")


@dataclass(frozen=True)
class Reply:
    """What a route answers: status, headers (``set-cookie`` may repeat) and an HTML body."""

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: str = ""

    @property
    def location(self) -> str | None:
        return next((v for k, v in self.headers if k == "location"), None)

    @property
    def set_cookies(self) -> tuple[str, ...]:
        return tuple(v for k, v in self.headers if k == "set-cookie")


def safe_return_path(value: str | None) -> str | None:
    """``value`` as a same-site path (path, query, fragment), or None when it could leave the
    site: :func:`authmw._urls.same_origin_path`, judged as a browser reads the URL."""
    return same_origin_path(value)


class _Exchange(_ClientOAuth, _ClientMfa):
    """The client-tier calls of one callback, with a session of its own."""

    def __init__(self, config: AuthConfig) -> None:
        self.config = config
        self._transport = Transport(config, "client")
        self.session = Session(config)
        self._session = self.session


@dataclass
class OAuthRoutes:
    """The two routes of a server-rendered OAuth sign-in for one project.

    ``after_sign_in`` / ``after_sign_up`` are where users land without ``after_auth_return_to``
    (default ``/``; after-sign-up defaults to after-sign-in). ``base_url``
    is the public origin of your site (``https://app.example.com``) when the app runs behind
    a proxy that hides it; by default the request's own URL is used. Both routes build the
    callback URL on that one origin: the code exchange must name the start's ``redirect_uri``.
    """

    config: AuthConfig
    after_sign_in: str = "/"
    after_sign_up: str | None = None
    base_url: str | None = None
    clock: Callable[[], float] = field(default=time.time, repr=False)

    @property
    def callback_path(self) -> str:
        return f"{self.config.handler_path.rstrip('/')}/oauth-callback"

    def start_path(self, provider: str) -> str:
        """The start route's path for ``provider`` (or a framework's placeholder such as ``{provider}``)."""
        return f"{self.config.handler_path.rstrip('/')}/oauth/{provider}"

    # -- start ----------------------------------------------------------------------------

    def start(self, provider: str, *, request_url: str, secure: bool, options: Options | None = None) -> Reply:
        """Redirect to the service's authorize URL, keeping the verifier in a cookie.

        ``options``: the middleware's (its cookie settings); ``COOKIE_SECURE`` makes the
        verifier cookie ``Secure`` too (it stays ``SameSite=Lax``: the provider sends the
        browser back with a cross-site navigation)."""
        secure = _secure(secure, _attributes(options))
        origin = self._origin(request_url)
        return_to = safe_return_path(dict(parse_qsl(urlsplit(request_url).query)).get(RETURN_TO_PARAM))
        callback = origin + self.callback_path
        redirect_uri = callback + ("?" + urlencode({RETURN_TO_PARAM: return_to}) if return_to else "")
        if not self.config.publishable_client_key:  # the operator's to fix, never the page's to say
            raise ConfigurationError(
                "The OAuth sign-in routes need the publishable client key (AUTHMW_PUBLISHABLE_CLIENT_KEY)."
            )
        try:
            flow: OAuthAuthorization = authorize_url(
                self.config, provider, redirect_uri=redirect_uri, error_redirect_url=callback
            )
        except ValueError:
            # The provider is the URL's, anyone's to write: the page says fixed words only.
            return self._page(404, "Unknown sign-in provider", _UNKNOWN_PROVIDER)
        cookie = c.set_cookie(
            outer_cookie_name(flow.state), flow.code_verifier, START_COOKIE_MAX_AGE, now=self.clock(), secure=secure
        ).replace("; Path=/;", f"; Path={self.callback_path};")
        headers = (
            ("location", flow.url),
            ("cache-control", "no-store"),
            ("set-cookie", cookie + "; HttpOnly; SameSite=Lax"),
        )
        return Reply(303, headers)

    # -- finish ---------------------------------------------------------------------------

    def finish(
        self,
        *,
        request_url: str,
        cookie_header: str | None,
        secure: bool,
        method: str = "GET",
        body: bytes = b"",
        origin: str | None = None,
        options: Options | None = None,
    ) -> Op[Reply]:
        """Check the callback, exchange its code and sign the browser in (an operation).

        ``method="POST"`` is the TOTP form of an account with two-factor authentication:
        ``body`` is the form (``totp=123456``), ``origin`` the request's ``Origin`` header.
        ``options``: the middleware's; the session cookies are written with its cookie
        settings (``COOKIE_SAME_SITE``, ``COOKIE_SECURE``), as the middleware rewrites them.
        """
        attributes = _attributes(options)
        if method.upper() == "POST":
            return (yield from self._finish_mfa(request_url, cookie_header, secure, body, origin, attributes))
        params = callback_params(request_url)
        state = params.get("state") or ""
        named = _COOKIE_STATE.fullmatch(state) is not None
        names = frozenset(prefix + state for prefix in OUTER_COOKIE_PREFIXES) if named else frozenset()
        verifier = verifier_from_cookies(c.parse_cookie_header(cookie_header or "", names), state) if named else None
        forget = tuple(("set-cookie", self._delete(name, secure)) for name in sorted(names))
        if not params.get("errorCode") and not params.get("error") and (not params.get("code") or not verifier):
            return self._page(
                400,
                "Nothing to sign in",
                _NOTHING_STARTED,
                forget,
            )
        exchange = _Exchange(self.config)
        try:
            # the callback URL as the browser saw it: the code exchange must name the redirect_uri
            # the flow started with, which has the public origin behind a proxy
            result = yield from _ClientOAuth.sign_in_with_oauth_callback.op(
                exchange, self._public_url(request_url), state=state or None, code_verifier=verifier
            )
        except MultiFactorAuthenticationRequired as needed:
            if not needed.attempt_code:
                return self._page(400, "Sign-in failed", _SIGN_IN_FAILED, forget)
            keep = c.set_cookie(
                MFA_COOKIE, needed.attempt_code, MFA_COOKIE_MAX_AGE, now=self.clock(), secure=_secure(secure, attributes)
            )
            keep = keep.replace("; Path=/;", f"; Path={self.callback_path};") + "; HttpOnly"
            return self._totp_form(params.get(RETURN_TO_PARAM), None, (*forget, ("set-cookie", keep)))
        except (OAuthCallbackError, KnownError) as exc:
            return self._page(400, "Sign-in failed", _describe(exc), forget)
        except HttpStatusError as exc:
            if not 400 <= exc.status < 500:
                raise
            # the service refused the exchange without a known error (API 2.8 answers a changed
            # redirect_uri this way): the sign-in failed, and its text is not for the page
            return self._page(400, "Sign-in failed", _SIGN_IN_FAILED, forget)
        return self._signed_in(result, params.get(RETURN_TO_PARAM), cookie_header, secure, forget, attributes)

    def _finish_mfa(
        self,
        request_url: str,
        cookie_header: str | None,
        secure: bool,
        body: bytes,
        origin: str | None,
        attributes: c.CookieAttributes,
    ) -> Op[Reply]:
        """The TOTP form's post: finish the sign-in that waits for the second factor."""
        return_to = callback_params(request_url).get(RETURN_TO_PARAM)
        attempt = c.parse_cookie_header(cookie_header or "", frozenset({MFA_COOKIE})).get(MFA_COOKIE)
        forget = (("set-cookie", self._delete(MFA_COOKIE, secure)),)
        if origin is not None and origin != self._origin(request_url):  # another site's form
            return self._page(403, "Nothing to sign in", _NOTHING_STARTED)
        if not attempt:
            return self._page(400, "Nothing to sign in", _NOTHING_STARTED, forget)
        totp = dict(parse_qsl(body.decode("utf-8", "replace"))).get("totp", "").strip()
        if not _SIX_DIGITS.fullmatch(totp):
            return self._totp_form(return_to, "Enter the 6-digit code your authenticator app shows.")
        exchange = _Exchange(self.config)
        try:
            result = yield from _ClientMfa.sign_in_with_mfa.op(exchange, attempt_code=attempt, totp=totp)
        except InvalidTotpCode:
            return self._totp_form(return_to, "That code is not the current one. Enter the code your app shows now.")
        except KnownError:  # the attempt expired, was used, or too many tries
            return self._page(400, "Sign-in failed", _MFA_EXPIRED, forget)
        return self._signed_in(result, return_to, cookie_header, secure, forget, attributes)

    def _signed_in(
        self,
        result: SignInResult,
        return_param: str | None,
        cookie_header: str | None,
        secure: bool,
        forget: tuple[tuple[str, str], ...],
        attributes: c.CookieAttributes,
    ) -> Reply:
        """Store the new session in cookies and send the browser on: the
        after-sign-up page for a new user, else the after-sign-in page."""
        return_to = safe_return_path(return_param)
        target = return_to or (self.after_sign_up or self.after_sign_in if result.is_new_user else self.after_sign_in)
        session = c.session_cookie_writes(
            self.config.project_id,
            result.refresh_token,
            result.access_token,
            now=self.clock(),
            secure=secure,
            cookie_format=self.config.cookie_format,  # type: ignore[arg-type]
            attributes=attributes,
        )
        # a new sign-in retires refresh cookies of other sessions, of every SDK generation
        written = {value.split("=", 1)[0] for value in session}
        stored = c.SessionCookieReader(self.config.project_id).read(cookie_header or "").refresh_cookies
        session += tuple(
            c.delete_cookie(name, secure=secure, attributes=attributes) for name, _ in stored if name not in written
        )
        headers = (
            ("location", target),
            ("cache-control", "no-store"),
            *forget,
            *(("set-cookie", value) for value in session),
        )
        return Reply(303, headers)

    def _totp_form(
        self, return_param: str | None, problem: str | None, headers: tuple[tuple[str, str], ...] = ()
    ) -> Reply:
        """The page asking for the 6-digit code; it posts to the callback (the return path kept)."""
        return_to = safe_return_path(return_param)
        action = self.callback_path + ("?" + urlencode({RETURN_TO_PARAM: return_to}) if return_to else "")
        e = html.escape
        alert = f'<p role="alert">{e(problem)}</p>' if problem else ""
        body = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            "<title>Two-factor authentication</title></head><body><main>"
            "<h1>Two-factor authentication</h1>"
            "<p>Enter the 6-digit code your authenticator app shows for this account.</p>"
            f'{alert}<form method="post" action="{e(action)}">'
            '<label for="totp">Code</label> '
            '<input id="totp" name="totp" required autofocus inputmode="numeric" pattern="[0-9]{6}" '
            'maxlength="6" autocomplete="one-time-code"> '
            '<button type="submit">Sign in</button></form></main></body></html>'
        )
        content = (("content-type", "text/html; charset=utf-8"), ("cache-control", "no-store"), *headers)
        return Reply(400 if problem else 200, content, body)

    # -- helpers --------------------------------------------------------------------------

    def _origin(self, request_url: str) -> str:
        """The site's public origin: ``base_url``'s, else the request's (both routes use this)."""
        parts = urlsplit(self.base_url or request_url)
        return f"{parts.scheme}://{parts.netloc}"

    def _public_url(self, request_url: str) -> str:
        """``request_url`` on the public origin (path and query kept)."""
        parts = urlsplit(request_url)
        return self._origin(request_url) + parts.path + (f"?{parts.query}" if parts.query else "")

    def _delete(self, name: str, secure: bool) -> str:
        return c.delete_cookie(name, secure=secure).replace("; Path=/;", f"; Path={self.callback_path};")

    def _page(self, status: int, title: str, message: str, headers: tuple[tuple[str, str], ...] = ()) -> Reply:
        sign_in = f"{self.config.handler_path.rstrip('/')}/sign-in"
        e = html.escape
        body = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{e(title)}</title></head><body><main>"
            f'<h1>{e(title)}</h1><p role="alert">{e(message)}</p>'
            f'<p><a href="{e(sign_in)}">Sign in</a></p></main></body></html>'
        )
        return Reply(
            status,
            (("content-type", "text/html; charset=utf-8"), ("cache-control", "no-store"), *headers),
            body,
        )


_UNKNOWN_PROVIDER = "This site offers no sign-in with that provider. Please sign in again."


def _attributes(options: Options | None) -> c.CookieAttributes:
    return c.DEFAULT_ATTRIBUTES if options is None else options.cookie_attributes


def _secure(secure: bool, attributes: c.CookieAttributes) -> bool:
    """Whether the flow's own cookies are ``Secure``: over HTTPS, or always with ``COOKIE_SECURE``."""
    return secure or attributes.secure is True


_NOTHING_STARTED = "This page finishes a sign-in started in this browser, and none was found. Please sign in again."
#: What the error page says for each failed check of a callback (OAuthCallbackError.reason).
_CALLBACK_FAILURES = {
    "provider_error": "The sign-in was not completed at the provider. Please sign in again.",
    "implicit_response": "This sign-in answer is not one this site accepts. Please sign in again.",
    "missing_parameters": _NOTHING_STARTED,
    "no_stored_state": _NOTHING_STARTED,
    "state_mismatch": "This sign-in was not started in this browser. Please sign in again.",
    "issuer_mismatch": "This sign-in answer did not come from this site's sign-in service. Please sign in again.",
}
_SIGN_IN_FAILED = "The sign-in could not be completed. Please sign in again."
_MFA_EXPIRED = "This sign-in waited too long for the code or was already finished. Please sign in again."


def _describe(exc: AuthmwError) -> str:
    """The page's sentence for a failed callback: fixed text or the catalogue's own message.

    Never the error's message: a callback URL is anyone's to write, so its ``message``,
    ``details``, ``error_description`` or ``iss`` must not speak on this site's origin.
    """
    if isinstance(exc, OAuthCallbackError):
        if exc.error == "access_denied":
            return "You denied the sign-in request. Please sign in again."
        return _CALLBACK_FAILURES.get(exc.reason, _SIGN_IN_FAILED)
    if isinstance(exc, KnownError) and exc.code == "OAUTH_PROVIDER_ACCESS_DENIED":
        return "The sign-in was denied at the provider. Please sign in again."
    if isinstance(exc, KnownError) and not isinstance(exc, UnsupportedError):
        template = type(exc).message_template
        if template and "{" not in template:  # a template would be filled from the URL's details
            return template
    return _SIGN_IN_FAILED
