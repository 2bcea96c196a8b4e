"""Who sent the request being served: its base URL, the end user's IP and (best effort) location.

Set per request by `EndUserMiddleware` (like the clock), read anywhere with `current()`:
sign-up stores `country_code` from it and every access-token issuance records the session's
last IP and location (service-api B4.1 and B6.1).

The local service trusts no proxy, as the backend does without `STACK_TRUSTED_PROXY`: the IP is
the first of `x-real-ip`, `x-forwarded-for`, `x-vercel-forwarded-for`, `cf-connecting-ip`, else
the peer address; the location comes from the `x-vercel-ip-*` headers (country also from
`cf-ipcountry`). As in the backend, all of it is only read from requests whose user agent
claims to be a browser; a request without one has no known end user.
"""

from __future__ import annotations

import ipaddress
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

BROWSER_MARKERS = ("Mozilla", "Chrome", "Safari")


@dataclass(frozen=True)
class EndUser:
    ip: str
    location: dict[str, Any] = field(default_factory=dict)

    @property
    def country_code(self) -> str | None:
        code = self.location.get("countryCode")
        return code if isinstance(code, str) else None

    def ip_info(self) -> dict[str, Any]:
        """The session's `last_used_at_end_user_ip_info` (6.1)."""
        keys = ("countryCode", "regionCode", "cityName", "tzIdentifier", "latitude", "longitude")
        return {"ip": self.ip, **{key: self.location.get(key) for key in keys}}


@dataclass(frozen=True)
class RequestInfo:
    base_url: str
    end_user: EndUser | None


_current: ContextVar[RequestInfo | None] = ContextVar("authmw_dev_request", default=None)


def current() -> RequestInfo | None:
    return _current.get()


def _country(value: str | None) -> str | None:
    code = (value or "").strip().upper()
    return code if len(code) == 2 and code.isascii() and code.isalpha() else None


def _number(value: str | None) -> float | None:
    try:
        number = float(value) if value else None
    except ValueError:
        return None
    return number if number is not None and abs(number) != float("inf") and number == number else None


def end_user_of(headers: Headers, peer: str | None) -> EndUser | None:
    agent = headers.get("user-agent", "")
    if not any(marker in agent for marker in BROWSER_MARKERS):
        return None
    forwarded = headers.get("x-forwarded-for", "").split(",")[0].strip()
    candidates = [
        headers.get("x-real-ip"),
        forwarded,
        headers.get("x-vercel-forwarded-for"),
        headers.get("cf-connecting-ip"),
        peer,
    ]
    ip = next((value.strip() for value in candidates if value and value.strip()), None)
    try:
        ipaddress.ip_address(ip or "")
    except ValueError:
        return None
    assert ip is not None
    location: dict[str, Any] = {
        "countryCode": _country(headers.get("x-vercel-ip-country") or headers.get("cf-ipcountry")),
        "regionCode": headers.get("x-vercel-ip-country-region") or None,
        "cityName": headers.get("x-vercel-ip-city") or None,
        "latitude": _number(headers.get("x-vercel-ip-latitude")),
        "longitude": _number(headers.get("x-vercel-ip-longitude")),
        "tzIdentifier": headers.get("x-vercel-ip-timezone") or None,
    }
    return EndUser(ip=ip, location=location)


class EndUserMiddleware:
    """Makes `current()` describe the request being served."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host") or "localhost"
        client = scope.get("client")
        info = RequestInfo(
            base_url=f"{scope.get('scheme', 'http')}://{host}",
            end_user=end_user_of(headers, client[0] if client else None),
        )
        token = _current.set(info)
        try:
            await self.app(scope, receive, send)
        finally:
            _current.reset(token)
