"""The cross-domain sign-in handoff of API 2.8 (`POST /auth/oauth/cross-domain/authorize`).

A signed-in app on one domain hands its session to the same project's app on another trusted
domain: it asks for a one-time authorization code bound to its PKCE challenge and to the current
session, sends the browser to the other domain's callback with it, and the other side exchanges
it at `/auth/oauth/token` with the verifier. The exchange answers the same session's refresh
token (no new session), so signing out on either side ends both.

The caller must prove it holds the session: the access token names the session and the request
carries that session's refresh token too (`x-stack-refresh-token`).
"""

from __future__ import annotations

import re
from typing import Any

from ..endpoint import ANY, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..oauth_flow import (
    AUTHORIZATION_CODE,
    AUTHORIZATION_CODE_LIFETIME_MILLIS,
    NATIVE_APP_SCHEME,
    PUBLIC_CLIENT_SENTINEL,
    speaks_2_8,
    trusted_redirect,
)
from ..projects import key_is_valid
from ..schema import Obj, Str
from ..tokens import find_refresh_session
from ..urls import with_query_param
from ..verification import create_code

group = EndpointGroup()

_CHALLENGE = re.compile(r"[A-Za-z0-9._~-]{43,128}")

BODY = Obj(
    {
        "redirect_uri": Str(required=True, url=True),
        "state": Str(required=True, min_length=1, max_length=512),
        "code_challenge": Str(required=True),
        "code_challenge_method": Str(one_of=("S256",)),
        "after_callback_redirect_url": Str(url=True),
    },
    required=True,
)


def _trusted(ctx: RequestContext, url: str) -> bool:
    return url.startswith(NATIVE_APP_SCHEME) or trusted_redirect(ctx.service, ctx.project, url)


@group.post("/auth/oauth/cross-domain/authorize", tiers=ANY, body=BODY, when=lambda api: api.oauth_28)
def cross_domain_authorize(ctx: RequestContext) -> dict[str, Any]:
    body = ctx.body
    if not _CHALLENGE.fullmatch(body["code_challenge"]):
        raise PlainError(400, "code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, '.', '_', '~', '-'.")
    user = ctx.user
    if user is None:
        raise CatalogueError("USER_AUTHENTICATION_REQUIRED")
    session_id = ctx.auth.session_id if ctx.auth is not None else None
    if session_id is None:
        raise PlainError(
            400, "Cross-domain auth handoff requires a refresh-token-bound session. Please sign in again."
        )
    refresh_token = ctx.request.headers.get("x-stack-refresh-token")
    if not refresh_token:
        raise PlainError(400, "Cross-domain auth handoff requires passing the current refresh token.")
    try:
        session = find_refresh_session(ctx.sql, ctx.project.id, refresh_token)
    except CatalogueError:
        session = None
    if session is None or session.id != session_id or session.user_id != user["id"]:
        raise PlainError(401, "Cross-domain auth handoff refresh token does not match the authenticated session.")
    key = ctx.request.headers.get("x-stack-publishable-client-key") or PUBLIC_CLIENT_SENTINEL
    if key == PUBLIC_CLIENT_SENTINEL:
        if ctx.project.config.get("require_publishable_client_key", True):
            raise CatalogueError("PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", project_id=ctx.project.id)
    elif not key_is_valid(ctx.sql, ctx.project.id, "client", key):
        raise CatalogueError("INVALID_PUBLISHABLE_CLIENT_KEY", project_id=ctx.project.id)
    after = body.get("after_callback_redirect_url")
    if not _trusted(ctx, body["redirect_uri"]) or (after and not _trusted(ctx, after)):
        raise CatalogueError("REDIRECT_URL_NOT_WHITELISTED")
    redirect_uri = body["redirect_uri"].split("#", 1)[0]
    code = create_code(
        ctx.sql,
        ctx.project.id,
        AUTHORIZATION_CODE,
        {
            "user_id": user["id"],
            "is_new_user": False,
            "redirect_uri": redirect_uri,
            "code_challenge": body["code_challenge"],
            "code_challenge_method": "S256",
            "after_callback_redirect_url": after,
            "pending_link": None,
            # the exchange answers this session's refresh token, not a new session
            "session_refresh_token": refresh_token,
        },
        AUTHORIZATION_CODE_LIFETIME_MILLIS,
    )
    location = with_query_param(with_query_param(redirect_uri, "code", code), "state", body["state"])
    assert speaks_2_8(ctx.service)
    return {"redirect_url": location}


routes = group.routes
