"""Reading and writing the session cookies (``stack-refresh-{project id}``, ``stack-access``). No I/O."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any, Literal, NamedTuple
from urllib.parse import quote, unquote, unquote_to_bytes

from authmw._jwt import MAX_TOKEN_LENGTH
from authmw.errors import ConfigurationError

#: Lifetime of the refresh-token cookie, in seconds (one year).
REFRESH_COOKIE_MAX_AGE = 31_536_000
#: Lifetime of the access-token cookie, in seconds (one day).
ACCESS_COOKIE_MAX_AGE = 86_400
#: The access cookie is shared by every project on the site; element 0 says whose it is.
ACCESS_COOKIE = "stack-access"
#: Read when the per-project refresh cookie is absent; deleted on every write.
LEGACY_REFRESH_COOKIE = "stack-refresh"
#: Set by the front end on HTTPS sites so that servers behind plain-HTTP proxies know.
IS_HTTPS_COOKIE = "stack-is-https"

_EXPIRED = "Thu, 01 Jan 1970 00:00:00 GMT"


#: ``hexclave-access``: the access cookie of the official SDK from 2.8.108 on (same value).
HEXCLAVE_ACCESS_COOKIE = "hexclave-access"
#: How authmw writes the refresh cookie: "2.7" (the raw ``stack-refresh-{projectId}``, read
#: by every SDK generation) or "2.8" (the structured ``stack-refresh-{projectId}--default``,
#: ``__Host-`` prefixed over https).
CookieFormat = Literal["2.7", "2.8"]
COOKIE_FORMATS: tuple[CookieFormat, ...] = ("2.7", "2.8")


def refresh_cookie_name(project_id: str) -> str:
    return f"stack-refresh-{project_id}"


def structured_refresh_cookie_name(project_id: str, *, secure: bool) -> str:
    """The name the official 2.8 SDK writes its own-host refresh cookie under."""
    return f"{'__Host-' if secure else ''}stack-refresh-{project_id}--default"


def redacted_repr(record: Any, secret: Collection[str]) -> str:
    """``Name(field=value, ...)`` of a NamedTuple with each field named in ``secret`` that
    holds something shown as ``'...'``: the request records that carry tokens and cookies
    never put them in a log line or a traceback's locals through their repr."""
    shown = ", ".join(
        f"{name}={'...' if name in secret and value else repr(value)}"
        for name, value in zip(record._fields, record, strict=True)
    )
    return f"{type(record).__name__}({shown})"


class StoredSession(NamedTuple):
    """The session a request's cookies hold, read the way every SDK generation writes it.

    ``refresh_cookies`` lists each recognised refresh cookie as (name, refresh token), so
    that a refused token's cookies can be deleted without touching other sessions. (A
    NamedTuple: made for every new Cookie value, it costs half of a frozen dataclass.)
    """

    refresh_token: str | None = None
    access_token: str | None = None
    https: bool = False
    refresh_cookies: tuple[tuple[str, str], ...] = ()

    def __repr__(self) -> str:
        return redacted_repr(self, ("refresh_token", "access_token", "refresh_cookies"))


class SessionCookieReader:
    """Reads one project's session from a ``Cookie`` header, every generation at once.

    Order of precedence (the newest official SDK's, so both sides pick the same session):
    1. the newest structured ``hexclave-refresh-{id}--*`` / ``__Host-hexclave-refresh-{id}--*``;
    2. the raw ``stack-refresh-{id}``, then the raw legacy ``stack-refresh``;
    3. the newest structured ``stack-refresh-{id}--*`` / ``__Host-stack-refresh-{id}--*``.
    A structured value is JSON ``{"refresh_token": str, "updated_at_millis": number|null}``
    (null is oldest); values that do not parse are skipped. The access token comes from
    ``stack-access`` or ``hexclave-access`` only when its refresh half is the chosen token.
    """

    def __init__(self, project_id: str) -> None:
        self.raw_name = refresh_cookie_name(project_id)
        self._hexclave = (f"hexclave-refresh-{project_id}--", f"__Host-hexclave-refresh-{project_id}--")
        self._stack = (f"stack-refresh-{project_id}--", f"__Host-stack-refresh-{project_id}--")
        self._structured = self._hexclave + self._stack
        self._exact = frozenset({self.raw_name, LEGACY_REFRESH_COOKIE})
        self._access = frozenset({ACCESS_COOKIE, HEXCLAVE_ACCESS_COOKIE})

    def read(self, header: str) -> StoredSession:
        exact: dict[str, str] = {}
        access_values: dict[str, str] = {}
        hexclave: list[tuple[float, str, str]] = []
        stack: list[tuple[float, str, str]] = []
        https = False
        for chunk in header.split(";"):
            name, sep, value = chunk.partition("=")
            name = name.strip()
            if not sep:
                continue
            if name in self._access:
                if name not in access_values:
                    access_values[name] = value  # decoded only when its refresh half is the chosen token
            elif name in self._exact:
                if name not in exact:
                    exact[name] = _cookie_value(value)
            elif name == IS_HTTPS_COOKIE:
                https = https or _cookie_value(value) == "true"
            elif name.startswith(self._structured):
                parsed = _structured(_cookie_value(value))
                if parsed is not None:
                    (hexclave if name.startswith(self._hexclave) else stack).append((parsed[1], name, parsed[0]))
        names = (self.raw_name, LEGACY_REFRESH_COOKIE)
        raw = [(n, t) for n in names if (t := usable_token(exact.get(n))) is not None]
        ranked = [*_newest_first(hexclave), *raw, *_newest_first(stack)] if hexclave or stack else raw
        if not ranked:
            return StoredSession(https=https)
        refresh = ranked[0][1]
        access = None
        for name in (ACCESS_COOKIE, HEXCLAVE_ACCESS_COOKIE):
            if name in access_values:
                access = usable_token(_access_of(access_values[name], refresh))
                if access is not None:
                    break
        return StoredSession(refresh, access, https, tuple(ranked))


def _unwrapped(value: str) -> str:
    """A cookie value without its surrounding blanks and double quotes, still percent-encoded."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return value


def _cookie_value(value: str) -> str:
    return _decoded(_unwrapped(value))


def _decoded(value: str) -> str:
    if "%" not in value:
        return value
    # unquote() first splits the text at its non-ASCII characters by a regular expression (half
    # the cost of reading a session cookie); for ASCII text, which cookies are, it is exactly this:
    return unquote_to_bytes(value).decode("utf-8", "replace") if value.isascii() else unquote(value)


#: The characters of the service's tokens (base64url, the dots of a JWT) and of refresh tokens.
_TOKEN_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
#: ``["`` ... ``","`` ... ``"]`` percent-encoded as every SDK writes the access cookie.
_PAIR_OPEN, _PAIR_COMMA, _PAIR_CLOSE = "%5B%22", "%22%2C%22", "%22%5D"


def _access_of(raw: str, refresh_token: str) -> str | None:
    """The access token of a raw (still percent-encoded) access cookie value, if it belongs
    to ``refresh_token``: exactly ``access_from_cookie(_cookie_value(raw), refresh_token)``.

    The value every SDK writes, ``encodeURIComponent(JSON.stringify([refresh, access]))``
    with two tokens of the alphabet above, is read by slicing: percent-decoding it and its
    JSON would give the two tokens back unchanged (no other escape, quote or backslash in
    them). Anything else takes the general way. tests/middleware/test_cookies.py compares
    the two on arbitrary values."""
    value = _unwrapped(raw)
    if value.startswith(_PAIR_OPEN) and value.endswith(_PAIR_CLOSE) and value.isascii():
        first, comma, second = value[6:-6].partition(_PAIR_COMMA)
        if comma and not (first + second).encode("ascii").translate(None, _TOKEN_ALPHABET):
            return second if first == refresh_token else None
    return access_from_cookie(_decoded(value), refresh_token)


def usable_token(value: object) -> str | None:
    """A token read from a cookie or a header, or None for what counts as absent: not a
    string, empty, the string "undefined" (which the browser SDK rejects too) or longer than
    any token (MAX_TOKEN_LENGTH). The one rule, for every place a token is read."""
    if not isinstance(value, str) or not value or value == "undefined" or len(value) > MAX_TOKEN_LENGTH:
        return None
    return value


def _structured(value: str) -> tuple[str, float] | None:
    """(refresh token, updated-at millis; -inf for null) of a structured cookie value."""
    if not value.startswith("{"):
        return None
    try:
        data = json.loads(value)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    token, updated = usable_token(data.get("refresh_token")), data.get("updated_at_millis")
    if token is None:
        return None
    if updated is None:
        return token, -math.inf
    if isinstance(updated, bool) or not isinstance(updated, (int, float)) or not math.isfinite(updated):
        return None
    return token, float(updated)


def _newest_first(found: list[tuple[float, str, str]]) -> list[tuple[str, str]]:
    # Stable: of equally new cookies the first in the header wins.
    return [(name, token) for _, name, token in sorted(found, key=lambda item: -item[0])]


def structured_refresh_value(refresh_token: str, updated_at_millis: int) -> str:
    return json.dumps({"refresh_token": refresh_token, "updated_at_millis": updated_at_millis}, separators=(",", ":"))


def cookie_domain(name: str) -> str | None:
    """The ``Domain`` a ``...--custom-{base32(domain)}`` cookie was written with, else None."""
    _, sep, encoded = name.rpartition("--custom-")
    if not sep or not encoded:
        return None
    try:
        domain = base64.b32decode(encoded.upper() + "=" * (-len(encoded) % 8)).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return None
    return domain if domain and all(ch.isalnum() or ch in ".-" for ch in domain) else None


def parse_cookie_header(header: str, wanted: frozenset[str]) -> dict[str, str]:
    """The percent-decoded values of the ``wanted`` cookies; the first occurrence wins."""
    found: dict[str, str] = {}
    for chunk in header.split(";"):
        name, sep, value = chunk.partition("=")
        name = name.strip()
        if not sep or name not in wanted or name in found:
            continue
        found[name] = _cookie_value(value)
    return found


def access_cookie_value(refresh_token: str, access_token: str) -> str:
    # Same text as the browser's JSON.stringify([refresh, access]).
    return json.dumps([refresh_token, access_token], separators=(",", ":"))


def access_from_cookie(value: str, refresh_token: str | None) -> str | None:
    """The access token of a ``stack-access`` value, if it belongs to ``refresh_token``."""
    if refresh_token is None or not value.startswith('["'):
        return None
    try:
        pair = json.loads(value)
    except (ValueError, RecursionError):  # deep nesting in a cookie is not an error of ours
        return None
    if isinstance(pair, list) and len(pair) == 2 and pair[0] == refresh_token and isinstance(pair[1], str):
        return pair[1]
    return None


@dataclass(frozen=True)
class CookieAttributes:
    """The attributes every session cookie is written with, besides ``Path=/`` and its expiry.

    ``same_site``: "Lax" (default: sent with top-level navigations from other sites, not
    with their forms, frames or scripts), "Strict", or "None" (sent with every cross-site
    request: only for a front end on another site, and only with ``secure=True``, since
    browsers drop ``SameSite=None`` cookies that are not ``Secure``). ``secure``: None
    (default) writes ``Secure`` when the request came over HTTPS; True always. Never
    ``HttpOnly``: the browser SDKs read the session cookies in the page. ``name`` gives a
    setting's name (``"COOKIE_SAME_SITE"`` -> ``cookie_same_site``) for configuration errors.
    """

    same_site: str = "Lax"
    secure: bool | None = None
    name: Callable[[str], str] = field(default=str.lower, repr=False, compare=False)

    def __post_init__(self) -> None:
        value = self.same_site.capitalize() if isinstance(self.same_site, str) else self.same_site
        same_site, secure = self.name("COOKIE_SAME_SITE"), self.name("COOKIE_SECURE")
        if value not in ("Lax", "Strict", "None"):
            raise ConfigurationError(f'{same_site} must be "Lax", "Strict" or "None", not {self.same_site!r}.')
        if self.secure not in (None, True):
            raise ConfigurationError(
                f"{secure} must be True (always Secure) or None (Secure when the request is HTTPS), "
                f"not {self.secure!r}."
            )
        if value == "None" and self.secure is not True:
            raise ConfigurationError(
                f'{same_site} "None" needs Secure cookies (browsers drop SameSite=None cookies without it): '
                f'set {secure} to True as well and serve the site over HTTPS, or use "Lax".'
            )
        object.__setattr__(self, "same_site", value)

    def suffix(self, https: bool) -> str:
        return f"; SameSite={self.same_site}" + ("; Secure" if https or self.secure else "")


#: SameSite=Lax, Secure over HTTPS.
DEFAULT_ATTRIBUTES = CookieAttributes()


def set_cookie(
    name: str, value: str, max_age: int, *, now: float, secure: bool, attributes: CookieAttributes = DEFAULT_ATTRIBUTES
) -> str:
    expires = formatdate(now + max_age, usegmt=True)
    return f"{name}={quote(value, safe='')}; Path=/; Max-Age={max_age}; Expires={expires}" + attributes.suffix(secure)


def delete_cookie(name: str, *, secure: bool, attributes: CookieAttributes = DEFAULT_ATTRIBUTES) -> str:
    header = f"{name}=; Path=/; Max-Age=0; Expires={_EXPIRED}"
    domain = cookie_domain(name)
    if domain is not None:
        header += f"; Domain={domain}"
    # A __Host- cookie is only replaced (here: expired) by a Secure one.
    return header + attributes.suffix(secure or name.startswith("__Host-"))


def session_cookie_values(
    project_id: str,
    refresh_token: str,
    access_token: str,
    *,
    now: float,
    secure: bool,
    cookie_format: CookieFormat = "2.7",
) -> dict[str, str]:
    """The session cookies' names and values, as the React package writes them in ``cookie_format``:
    the refresh cookie first, then the ``stack-access`` pair."""
    if cookie_format == "2.8":
        name = structured_refresh_cookie_name(project_id, secure=secure)
        value = structured_refresh_value(refresh_token, int(now * 1000))
    else:
        name, value = refresh_cookie_name(project_id), refresh_token
    return {name: value, ACCESS_COOKIE: access_cookie_value(refresh_token, access_token)}


def session_cookie_writes(
    project_id: str,
    refresh_token: str,
    access_token: str,
    *,
    now: float,
    secure: bool,
    cookie_format: CookieFormat = "2.7",
    stored: tuple[tuple[str, str], ...] = (),
    attributes: CookieAttributes = DEFAULT_ATTRIBUTES,
) -> tuple[str, ...]:
    """``Set-Cookie`` values that store a refreshed session read from ``stored`` cookies.

    The session is the one the request carried, so cookies of other generations holding
    another (possibly newer) session are left alone; the legacy ``stack-refresh`` is always
    retired, and in the "2.8" format the raw 2.7 cookie of this same session too.
    """
    values = session_cookie_values(
        project_id, refresh_token, access_token, now=now, secure=secure, cookie_format=cookie_format
    )
    retired = {LEGACY_REFRESH_COOKIE}
    if cookie_format == "2.8":
        retired |= {
            name for name, token in stored if name == refresh_cookie_name(project_id) and token == refresh_token
        }
    max_age = {ACCESS_COOKIE: ACCESS_COOKIE_MAX_AGE}
    writes = tuple(
        set_cookie(
            name, value, max_age.get(name, REFRESH_COOKIE_MAX_AGE), now=now, secure=secure, attributes=attributes
        )
        for name, value in values.items()
    )
    retire = (delete_cookie(name, secure=secure, attributes=attributes) for name in sorted(retired))
    return (*writes, *retire)


def session_cookie_deletions(
    project_id: str,
    refresh_token: str | None,
    *,
    secure: bool,
    stored: tuple[tuple[str, str], ...] = (),
    attributes: CookieAttributes = DEFAULT_ATTRIBUTES,
) -> tuple[str, ...]:
    """``Set-Cookie`` values that end a refused session: every cookie that held its refresh
    token (whatever its generation), both access cookies (``stack-access`` and the 2.8.108
    SDK's ``hexclave-access``: an unexpired token stays no longer than its session), and the
    2.7 names unless they hold another session."""
    other_sessions = {name for name, token in stored if token != refresh_token}
    names = {ACCESS_COOKIE, HEXCLAVE_ACCESS_COOKIE} | ({refresh_cookie_name(project_id), LEGACY_REFRESH_COOKIE} - other_sessions)
    names.update(name for name, token in stored if token == refresh_token)
    return tuple(delete_cookie(name, secure=secure, attributes=attributes) for name in sorted(names))


def with_session_cookies(headers: list[tuple[str, str]], cookies: tuple[str, ...]) -> list[tuple[str, str]]:
    """Response ``headers`` plus the session's ``Set-Cookie`` values.

    A cookie the app sets itself (a sign-out route deleting the session, say) wins over the
    middleware's. A response carrying session tokens must not be kept by shared caches, so
    its ``Cache-Control`` becomes ``no-store``.
    """
    taken = {_name(value) for key, value in headers if key.lower() == "set-cookie"}
    mine = [value for value in cookies if _name(value) not in taken]
    if not mine:
        return headers
    kept = [(key, value) for key, value in headers if key.lower() != "cache-control"]
    return [*kept, ("cache-control", "no-store"), *(("set-cookie", value) for value in mine)]


def _name(set_cookie: str) -> str:
    return set_cookie.split("=", 1)[0].strip()
