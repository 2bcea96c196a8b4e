"""What a request carries that may prove who sent it, read without I/O: the session cookies,
``x-stack-auth``, the 2.8 SDK's ``Authorization: Bearer stackauth_...``, a bearer access token,
a user's or team's API key. :class:`CredentialReader` turns the headers into :class:`Tokens`
(one place to add a kind of credential: a field of :class:`Tokens` and a branch of
:meth:`CredentialReader.read`; ``Authenticator.settle`` then decides it); malformed values are
refused here (:class:`~authmw.middleware._refusal.Refusal`, 400 or 401).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import NamedTuple, TypeVar

from authmw._bounded import BoundedMap
from authmw._config import AuthConfig
from authmw._tokens import AUTHORIZATION_PREFIXES
from authmw.errors import ApiKeyNotAccepted, UnparsableAccessToken
from authmw.keyformat import ParsedApiKey

from ._api_keys import looks_like_api_key
from ._cookies import SessionCookieReader, StoredSession, redacted_repr, usable_token
from ._refusal import Refusal

__all__ = [
    "AUTHORIZATION_PREFIXES",
    "MALFORMED_AUTHORIZATION",
    "MEMO_MAX_KEY",
    "MEMO_SIZE",
    "CredentialReader",
    "Tokens",
    "bearer_token",
    "is_secure",
    "is_sdk_session",
]

T = TypeVar("T")

#: Cookie and x-stack-auth values remembered with what was read from them (a client sends
#: the same ones with every request); the oldest is dropped first when a map is full.
MEMO_SIZE = 1024
#: Longer values are read every time, which bounds the memory of each map (about 4 MiB).
MEMO_MAX_KEY = 4096
#: The fixed description of a malformed 2.8 SDK header (the value itself is never echoed).
MALFORMED_AUTHORIZATION = (
    "The Authorization header is not a session of the Stack Auth SDK: expected 'Bearer stackauth_' followed by "
    'the base64 of {"accessToken": string|null, "refreshToken": string|null}.'
)


class Tokens(NamedTuple):
    access_token: str | None = None
    refresh_token: str | None = None
    #: Cookies are rewritten only when they carried the session (not for x-stack-auth).
    from_cookies: bool = False
    secure: bool = False
    #: Every recognised refresh cookie of the request as (name, token), any generation.
    stored: tuple[tuple[str, str], ...] = ()
    #: An access token the caller sent as ``Authorization: Bearer`` or ``x-stack-access-token``:
    #: verified, never refreshed (the caller owns refresh), refused with 401 when not valid.
    bearer: bool = False
    #: The Cookie value the session was read from (its outcome is remembered under it).
    cookie: str | None = None
    #: The bearer value (``access_token``) is a user's or team's API key (API 2.8), not a JWT.
    api_key: ParsedApiKey | None = None

    def __repr__(self) -> str:
        return redacted_repr(self, ("access_token", "refresh_token", "stored", "cookie", "api_key"))


class CredentialReader:
    """Reads a request's credentials into :class:`Tokens`, remembering what it read from a
    Cookie or x-stack-auth value (two bounded maps, :data:`MEMO_SIZE` each)."""

    def __init__(self, config: AuthConfig) -> None:
        self.config = config
        self.cookies = SessionCookieReader(config.project_id)
        self.cookie_memo: BoundedMap[str, StoredSession] = BoundedMap(MEMO_SIZE, MEMO_MAX_KEY)
        self.header_memo: BoundedMap[str, Tokens] = BoundedMap(MEMO_SIZE, MEMO_MAX_KEY)

    def read(self, *, cookie: str | None, auth_header: str | None, secure: bool, bearer: str | None = None) -> Tokens:
        """The request's tokens: ``x-stack-auth`` wins over cookies, which win over a bearer
        token (see :func:`bearer_token`). Raises :class:`Refusal`."""
        if auth_header is not None:
            # No cookies are ever written for a header session, so ``secure`` is moot.
            return _remembered(self.header_memo, auth_header, _from_header)
        if bearer is not None and bearer.startswith(AUTHORIZATION_PREFIXES):
            # The 2.8 SDK's session header: as x-stack-auth (refreshed, never written back).
            return _remembered(self.header_memo, bearer, _from_authorization)
        if cookie:
            stored = _remembered(self.cookie_memo, cookie, self.cookies.read)
            refresh = usable_token(stored.refresh_token)
            if refresh is not None or bearer is None:
                access = usable_token(stored.access_token) if refresh is not None else None
                return Tokens(access, refresh, True, secure or stored.https, stored.refresh_cookies, cookie=cookie)
        if bearer is not None:
            parsed = looks_like_api_key(bearer)
            if parsed is not None:
                if not self.config.accept_api_keys:
                    raise Refusal.bearer(ApiKeyNotAccepted(details={"reason": "this app does not accept API keys"}))
                return Tokens(bearer, None, secure=secure, bearer=True, api_key=parsed)
            token = usable_token(bearer)
            if token is None:
                raise Refusal.bearer(UnparsableAccessToken())
            return Tokens(token, None, secure=secure, bearer=True)
        return Tokens(secure=secure)


def _remembered(memo: BoundedMap[str, T], key: str, read: Callable[[str], T]) -> T:
    found = memo.get(key)
    if found is None:
        found = read(key)  # a Refusal is not remembered
        memo.put(key, found)
    return found


def _from_header(value: str) -> Tokens:
    try:
        data = json.loads(value)
    except (ValueError, RecursionError):
        raise Refusal(400, "Invalid x-stack-auth header: not valid JSON") from None
    if not isinstance(data, dict):
        raise Refusal(400, "Invalid x-stack-auth header: expected a JSON object with accessToken and refreshToken")
    for key in ("accessToken", "refreshToken"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise Refusal(400, f"Invalid x-stack-auth header: {key} must be a string or null")
    return Tokens(usable_token(data.get("accessToken")), usable_token(data.get("refreshToken")))


def _from_authorization(value: str) -> Tokens:
    """The tokens of ``stackauth_<base64 of {"accessToken", "refreshToken"}>`` (the bearer
    value, prefix included). Raises a 401 :class:`Refusal` with a fixed description."""
    prefix = next(p for p in AUTHORIZATION_PREFIXES if value.startswith(p))
    payload = value[len(prefix) :].strip()
    try:
        if not payload:
            raise ValueError
        data = json.loads(base64.b64decode(payload + "=" * (-len(payload) % 4), validate=True))
    except (ValueError, RecursionError):  # (binascii.Error and UnicodeDecodeError are ValueErrors)
        raise _malformed_authorization() from None
    if not isinstance(data, dict) or not all(
        data.get(key) is None or isinstance(data[key], str) for key in ("accessToken", "refreshToken")
    ):
        raise _malformed_authorization()
    return Tokens(usable_token(data.get("accessToken")), usable_token(data.get("refreshToken")))


def _malformed_authorization() -> Refusal:
    challenge = f'Bearer realm="authmw", error="invalid_token", error_description="{MALFORMED_AUTHORIZATION}"'
    return Refusal(401, MALFORMED_AUTHORIZATION, www_authenticate=challenge)


def is_sdk_session(bearer: str) -> bool:
    """Whether a bearer value is the 2.8 SDK's session header rather than a raw JWT (which
    starts with ``eyJ``): told by its prefix alone, without any I/O."""
    return bearer.startswith(AUTHORIZATION_PREFIXES)


def bearer_token(authorization: str | None, access_token_header: str | None = None) -> str | None:
    """The access token of ``Authorization: Bearer <token>`` (scheme case-insensitive), else
    of the service's own ``x-stack-access-token`` header; None when neither is sent.

    Another ``Authorization`` scheme (Basic, say) is the app's business and gives None.
    """
    if authorization:
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() == "bearer":
            return token.strip()
    return access_token_header


def is_secure(scheme: str, forwarded_proto: str | None) -> bool:
    if scheme in ("https", "wss"):
        return True
    return forwarded_proto is not None and forwarded_proto.split(",")[0].strip().lower() == "https"
