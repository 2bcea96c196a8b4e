"""Provider access tokens of connected accounts (service-api A5.4.7), minted by the mock provider."""

from __future__ import annotations

from typing import Any

from .. import oauth_config, outside_oauth
from ..endpoint import ANY, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..ids import random_code
from ..responses import Created
from ..schema import Obj, Str, Uuid

group = EndpointGroup()
BODY = Obj({"scope": Str()}, required=True)


def provider_access_token(
    ctx: RequestContext, user_id: str, provider_id: str, account_id: str | None = None
) -> Created:
    """A provider access token of the user's account of `provider_id` that allows connected-account
    use: the one with `account_id` (API 2.8's per-account route) or any of them."""
    provider = next(
        (
            p
            for p in ctx.project.config["oauth_providers"]
            if p["id"] == provider_id and p.get("enabled") and oauth_config.connects_accounts(p)
        ),
        None,
    )
    if provider is None:
        raise CatalogueError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED")
    outside = outside_oauth.outside_provider(ctx.service, provider)
    # The hosted service hands out no token of its shared OAuth apps (a development deployment
    # may: the local service does when a server stands in for them, outside_oauth.py).
    if provider.get("type") == "shared" and outside is None:
        raise CatalogueError("OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS")
    rows = ctx.sql.execute(
        "SELECT id, account_id, granted_scopes FROM oauth_accounts WHERE project_id = ? AND provider_id = ?"
        " AND user_id = ? AND allow_connected_accounts = 1 ORDER BY created_at_millis, rowid",
        (ctx.project.id, provider_id, user_id),
    ).fetchall()
    if account_id is not None:
        rows = [row for row in rows if row["account_id"] == account_id]
    if not rows:
        raise CatalogueError("OAUTH_CONNECTION_NOT_CONNECTED_TO_USER")
    scope = str((ctx.body or {}).get("scope", ""))
    if outside is not None:
        return Created({"access_token": outside_oauth.connected_access_token(ctx, outside, [r["id"] for r in rows], scope)})
    wanted = set(scope.split())
    if not any(wanted <= set(row["granted_scopes"].split()) for row in rows):
        raise CatalogueError("OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE")
    return Created({"access_token": f"mock_{provider_id}_{random_code()}"})


@group.post(
    "/connected-accounts/{user_id}/{provider_id}/access-token",
    tiers=ANY,
    params=Obj({"user_id": Uuid(required=True, allow_me=True), "provider_id": Str(required=True)}),
    body=BODY,
)
def access_token(ctx: RequestContext) -> Created:
    user_id = ctx.user_id_or_me(ctx.params["user_id"])
    if ctx.tier == "client" and (ctx.user is None or ctx.user["id"] != user_id):
        raise PlainError(403, "Client can only access its own connected accounts")
    return provider_access_token(ctx, user_id, ctx.params["provider_id"])


@group.post(
    "/auth/oauth/connected-accounts/{provider_id}/access-token",
    tiers=ANY,
    params=Obj({"provider_id": Str(required=True)}),
    body=BODY,
)
def deprecated_access_token(ctx: RequestContext) -> Any:
    """Deprecated alias of /connected-accounts/me/{provider_id}/access-token."""
    return provider_access_token(ctx, ctx.user_id_or_me("me"), ctx.params["provider_id"])


routes = group.routes
