"""The ways a request carries a session to an app's back end, for the adapter tests that run
against a local service of each API version (tests/*/test_*api_versions.py).

- ``cookie``: the browser SDK's cookies (``stack-refresh-{project}`` and ``stack-access``);
- ``bearer``: ``Authorization: Bearer <access token>``;
- ``stackauth_`` / ``hexclave_``: the 2.8 SDK's ``getAuthorizationHeader()``, ``Authorization:
  Bearer stackauth_<base64 of {"accessToken", "refreshToken"}>`` (service-api B12);
- ``x-stack-auth``: the same JSON, unprefixed, in its own header.
"""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote

import httpx

WAYS = ("cookie", "bearer", "stackauth_", "hexclave_", "x-stack-auth")


def sdk_authorization(access_token: str | None, refresh_token: str | None, prefix: str = "stackauth_") -> str:
    """The value of the 2.8 SDK's ``Authorization`` header for a session."""
    payload = json.dumps({"accessToken": access_token, "refreshToken": refresh_token}).encode()
    return f"Bearer {prefix}{base64.b64encode(payload).decode()}"


def session_headers(way: str, project_id: str, access_token: str | None, refresh_token: str | None) -> dict[str, str]:
    """The request headers that carry the session ``way``."""
    if way == "cookie":
        cookie = f"stack-refresh-{project_id}={quote(refresh_token or '', safe='')}"
        if access_token is not None:
            cookie += "; stack-access=" + quote(json.dumps([refresh_token, access_token], separators=(",", ":")), safe="")
        return {"cookie": cookie}
    if way == "bearer":
        return {"authorization": f"Bearer {access_token}"}
    if way == "x-stack-auth":
        return {"x-stack-auth": json.dumps({"accessToken": access_token, "refreshToken": refresh_token})}
    return {"authorization": sdk_authorization(access_token, refresh_token, way)}


def sign_up_anonymously(service: Any) -> dict[str, str]:
    """An anonymous user of a 2.8 service (``POST /auth/anonymous/sign-up``): its tokens and id."""
    r = httpx.post(f"{service.url}/api/v1/auth/anonymous/sign-up", headers=service._headers(), json={})
    assert r.status_code == 200, r.text
    body: dict[str, str] = r.json()
    return body


def expected_claims(service: Any, session: Any) -> dict[str, Any]:
    """What request.user tells of a user just signed up by password, without asking the service:
    a 2.8 token carries the e-mail (not yet verified) and the (absent) name; a 2.7 token
    carries none of them (service-api A3.1), so each is None."""
    if service.api == "2.7":
        return {"email": None, "email_verified": None, "display_name": None}
    return {"email": session.email, "email_verified": False, "display_name": None}
