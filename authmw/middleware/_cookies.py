"""Reading and writing the session cookies of contract section 4.1. No I/O."""

from __future__ import annotations

import json
from email.utils import formatdate
from urllib.parse import quote, unquote

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


def refresh_cookie_name(project_id: str) -> str:
    return f"stack-refresh-{project_id}"


def parse_cookie_header(header: str, wanted: frozenset[str]) -> dict[str, str]:
    """The percent-decoded values of the ``wanted`` cookies; the first occurrence wins."""
    found: dict[str, str] = {}
    for chunk in header.split(";"):
        name, sep, value = chunk.partition("=")
        name = name.strip()
        if not sep or name not in wanted or name in found:
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        found[name] = unquote(value) if "%" in value else value
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


def set_cookie(name: str, value: str, max_age: int, *, now: float, secure: bool) -> str:
    header = (
        f"{name}={quote(value, safe='')}; Path=/; Max-Age={max_age}; Expires={formatdate(now + max_age, usegmt=True)}"
    )
    return header + "; Secure" if secure else header


def delete_cookie(name: str, *, secure: bool) -> str:
    header = f"{name}=; Path=/; Max-Age=0; Expires={_EXPIRED}"
    return header + "; Secure" if secure else header


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
