"""OAuth sign-in pieces without I/O: PKCE, the authorize URL, the outer cookie, callback checks.

Authorization code with PKCE, as the official front end does it. The browser package
(js/src/oauth.ts) follows the same rules:

- ``state`` and the PKCE ``code_verifier`` are random; ``code_challenge`` is
  BASE64URL(SHA-256(verifier)), method ``S256``;
- the verifier is kept in the cookie ``stack-oauth-outer-{state}`` (the official SDK's name;
  its newer releases write ``hexclave-oauth-outer-{state}``, which is read too);
- the authorize URL carries every parameter the official front end sends;
- a callback needs ``code`` and ``state``; ``state`` must be the one kept; an ``error``
  parameter (or the service's ``errorCode`` redirect) is raised; an ``iss`` parameter must
  be the service's URL; tokens in the URL (implicit or hybrid responses) are refused.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from ._config import AuthConfig
from .errors import KnownError, OAuthCallbackError

__all__ = [
    "OUTER_COOKIE_MAX_AGE",
    "OUTER_COOKIE_PREFIXES",
    "OAuthAuthorization",
    "callback_code",
    "callback_params",
    "code_challenge",
    "new_code_verifier",
    "new_state",
    "outer_cookie_name",
    "strip_code_and_state",
    "verifier_from_cookies",
]

#: Name prefixes of the cookie holding the PKCE verifier: written first, then also read.
OUTER_COOKIE_PREFIXES = ("stack-oauth-outer-", "hexclave-oauth-outer-")
#: Lifetime of the verifier cookie the browser package writes, in seconds (as the official SDK).
OUTER_COOKIE_MAX_AGE = 3600
#: Parameters that only an implicit or hybrid response would carry.
_IMPLICIT = ("access_token", "id_token", "token_type")


def new_code_verifier() -> str:
    """64 URL-safe random characters (RFC 7636 allows 43 to 128)."""
    return secrets.token_urlsafe(48)


def new_state() -> str:
    return secrets.token_urlsafe(24)


def code_challenge(verifier: str) -> str:
    """The S256 challenge of a verifier."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def outer_cookie_name(state: str) -> str:
    return OUTER_COOKIE_PREFIXES[0] + state


def verifier_from_cookies(cookies: Mapping[str, str], state: str) -> str | None:
    """The verifier kept for ``state`` under either name the official SDKs write, else None."""
    for prefix in OUTER_COOKIE_PREFIXES:
        value = cookies.get(prefix + state)
        if value:
            return value
    return None


#: Query parameters of an authorize URL that a repr shows as ``...``.
_SECRET_PARAMS = frozenset({"token", "code_verifier"})


def redacted_url(url: str) -> str:
    """``url`` with the values of its secret query parameters (the link flow's ``token``)
    replaced by ``...``, for reprs and messages."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, "..." if k in _SECRET_PARAMS else v) for k, v in pairs]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(kept, safe="."), parts.fragment))


def strip_code_and_state(url: str) -> str:
    """``url`` without its ``code`` and ``state`` query parameters and its fragment: the
    ``redirect_uri`` the service is given."""
    parts = urlsplit(url)
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in ("code", "state")]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(kept), ""))


@dataclass(frozen=True)
class OAuthAuthorization:
    """Where to send the browser, and what to keep until the callback.

    Keep ``code_verifier`` for ``state`` (the browser package uses the cookie
    ``cookie_name``) and pass both to ``sign_in_with_oauth_callback``.
    """

    url: str
    state: str
    code_verifier: str
    redirect_uri: str

    @property
    def cookie_name(self) -> str:
        return outer_cookie_name(self.state)

    def __repr__(self) -> str:
        """Neither the verifier nor the URL's secrets: a link flow's ``url`` carries the user's
        access token (``token``), which must not reach a log or an error report."""
        url = redacted_url(self.url)
        return f"OAuthAuthorization(url={url!r}, state={self.state!r}, redirect_uri={self.redirect_uri!r})"


def authorize_url(
    config: AuthConfig,
    provider: str,
    *,
    redirect_uri: str,
    error_redirect_url: str | None = None,
    after_callback_redirect_url: str | None = None,
    link_token: str | None = None,
    provider_scope: str | None = None,
    state: str | None = None,
    code_verifier: str | None = None,
) -> OAuthAuthorization:
    """The service's OAuth authorize URL (``type=link`` when ``link_token`` is given)."""
    if not config.publishable_client_key:
        raise ValueError("Signing in with OAuth needs the publishable client key (AUTHMW_PUBLISHABLE_CLIENT_KEY).")
    provider = provider.strip().lower()
    if not provider or not provider.isascii() or not provider.replace("_", "").isalnum():
        raise ValueError(f"OAuth provider must be an id such as 'github' or 'google', got {provider!r}.")
    if after_callback_redirect_url:
        # API 2.8 refuses an after-callback URL that is not absolute and trusted; a path names a
        # page of the app that receives the callback.
        after_callback_redirect_url = urljoin(redirect_uri, after_callback_redirect_url)
    for name, url in (
        ("redirect_uri", redirect_uri),
        ("error_redirect_url", error_redirect_url),
        ("after_callback_redirect_url", after_callback_redirect_url),
    ):
        if url is not None and (urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname):
            raise ValueError(f"{name} must be an absolute http(s) URL, got {url!r}.")
    redirect_uri = strip_code_and_state(redirect_uri)
    state = state or new_state()
    code_verifier = code_verifier or new_code_verifier()
    query: dict[str, str] = {
        "client_id": config.project_id,
        "client_secret": config.publishable_client_key,
        "redirect_uri": redirect_uri,
        "scope": "legacy",
        "state": state,
        "grant_type": "authorization_code",
        "code_challenge": code_challenge(code_verifier),
        "code_challenge_method": "S256",
        "response_type": "code",
        "type": "link" if link_token is not None else "authenticate",
    }
    if error_redirect_url:
        query["error_redirect_url"] = error_redirect_url
    if after_callback_redirect_url:
        query["after_callback_redirect_url"] = after_callback_redirect_url
    if link_token is not None:
        query["token"] = link_token
        if provider_scope:
            query["provider_scope"] = provider_scope
    url = f"{config.api_base}/auth/oauth/authorize/{provider}?{urlencode(query)}"
    return OAuthAuthorization(url, state, code_verifier, redirect_uri)


def callback_params(url_or_params: str | Mapping[str, Any] | Iterable[tuple[str, str]]) -> dict[str, str]:
    """The query of a callback URL (or the given parameters) as a dict; first value wins."""
    if isinstance(url_or_params, str):
        pairs: Iterable[tuple[str, Any]] = parse_qsl(urlsplit(url_or_params).query, keep_blank_values=True)
    elif isinstance(url_or_params, Mapping):
        pairs = url_or_params.items()
    else:
        pairs = url_or_params
    params: dict[str, str] = {}
    for key, value in pairs:
        if isinstance(value, (list, tuple)):
            value = value[0] if value else ""
        params.setdefault(str(key), str(value))
    return params


def callback_code(params: Mapping[str, str], *, expected_state: str | None, issuer: str) -> str:
    """The authorization code of a callback, after the checks of an OAuth
    authorization response (state, ``error``, ``iss``, no tokens in the URL).

    Raises :class:`OAuthCallbackError` (``reason`` says which check failed) or, when the
    service sent its known error back (``errorCode``), that error.
    """
    if params.get("errorCode"):
        raise _service_error(params)
    if params.get("error"):
        description = params.get("error_description") or ""
        raise OAuthCallbackError(
            "provider_error",
            f"The sign-in was not completed: {params['error']}" + (f" ({description})" if description else "") + ".",
            error=params["error"],
        )
    if any(params.get(name) for name in _IMPLICIT):
        raise OAuthCallbackError("implicit_response", "The callback carries tokens in the URL; only codes are accepted.")
    code, state = params.get("code"), params.get("state")
    if not code or not state:
        raise OAuthCallbackError("missing_parameters", "This is not an OAuth callback: code or state is missing.")
    if not expected_state or not hmac.compare_digest(state.encode(), expected_state.encode()):
        raise OAuthCallbackError("state_mismatch", "The callback's state is not the one this sign-in started with.")
    iss = params.get("iss")
    if iss is not None and iss.rstrip("/") != issuer.rstrip("/"):
        raise OAuthCallbackError("issuer_mismatch", f"The callback comes from issuer {iss!r}, not {issuer!r}.")
    return code


def _service_error(params: Mapping[str, str]) -> Exception:
    try:
        details = json.loads(params.get("details") or "{}")
    except (ValueError, RecursionError):  # the URL's, anyone's to write: deep nesting is not our error
        details = {}
    body = {"code": params["errorCode"], "error": params.get("message") or None, "details": details}
    return KnownError.from_body(body)
