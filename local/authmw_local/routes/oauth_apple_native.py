"""Native Sign in with Apple (`POST /auth/oauth/callback/apple/native`, API 2.8): an iOS or
macOS app sends the identity token Apple gave it; the service checks it (signed by a key Apple
publishes, issued by Apple, for one of the project's Apple bundle ids, not expired) and signs the
Apple account in or up as an OAuth sign-in through the project's `apple` provider does.
"""

from __future__ import annotations

from typing import Any

import httpx
import jwt

from ..endpoint import ANY, EndpointGroup, RequestContext
from ..errors import CatalogueError
from ..schema import Obj, Str
from .oauth_authorize import _account_user, _enabled_provider

APPLE_ISSUER = "https://appleid.apple.com"
APPLE_KEYS_URL = "https://appleid.apple.com/auth/keys"

group = EndpointGroup()


def _apple_keys(url: str) -> dict[str, Any] | None:
    """Apple's published signing keys (None when Apple cannot be reached)."""
    try:
        with httpx.Client(timeout=15.0) as client:
            answer = client.get(url)
        keys = answer.json()
        return keys if answer.status_code == 200 and isinstance(keys, dict) else None
    except (httpx.HTTPError, ValueError):
        return None


def _verified(identity_token: str, keys: dict[str, Any], bundle_ids: list[str]) -> dict[str, Any]:
    try:
        header = jwt.get_unverified_header(identity_token)
        key = next(k for k in jwt.PyJWKSet.from_dict(keys).keys if k.key_id == header.get("kid"))
        claims: dict[str, Any] = jwt.decode(
            identity_token,
            key,
            algorithms=["RS256", "ES256"],
            audience=bundle_ids,
            issuer=APPLE_ISSUER,
            options={"require": ["iss", "sub", "aud", "exp"]},
        )
        return claims
    except (jwt.PyJWTError, StopIteration, ValueError):
        raise CatalogueError("INVALID_APPLE_CREDENTIALS") from None


@group.post(
    "/auth/oauth/callback/apple/native",
    tiers=ANY,
    body=Obj({"id_token": Str(required=True)}, required=True),
    when=lambda api: api.oauth_28,
)
def apple_native(ctx: RequestContext) -> dict[str, Any]:
    project = ctx.project
    provider = _enabled_provider(project, "apple", "authenticate")
    bundle_ids = [str(b) for b in provider.get("apple_bundle_ids") or [] if b]
    if not bundle_ids:
        raise CatalogueError("APPLE_BUNDLE_ID_NOT_CONFIGURED")
    token = ctx.body["id_token"]
    try:
        jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise CatalogueError("INVALID_APPLE_CREDENTIALS") from None  # not a JWT: no need to ask Apple
    keys = ctx.outside(("apple-keys", APPLE_KEYS_URL), lambda: _apple_keys(APPLE_KEYS_URL))
    if keys is None:
        raise CatalogueError("OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE")
    claims = _verified(token, keys, bundle_ids)
    email = claims.get("email") if isinstance(claims.get("email"), str) else None
    account = {
        "account_id": str(claims["sub"]),
        "email": email.strip().lower() if email else None,
        "email_verified": claims.get("email_verified") in (True, "true") and bool(email),
        "display_name": None,
        "profile_image_url": None,
    }
    user_id, is_new_user = _account_user(ctx, project, {"provider_id": "apple"}, account)
    tokens = ctx.service.new_session(ctx.sql, project.id, user_id)
    return {**tokens, "user_id": user_id, "is_new_user": is_new_user}


routes = group.routes
