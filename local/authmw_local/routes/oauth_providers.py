"""OAuth provider accounts of a user and the connected-account list (API 2.8 only, service-api
B10).

A row of `oauth_accounts` is one link between a user and a provider account. `allow_sign_in`
makes it a sign-in method (at most one sign-in link per provider account in the project, and
per provider per user); `allow_connected_accounts` lets the app ask for the provider's access
tokens through it.

"Provider" is the provider's config id throughout, as on 2.8.86 (its words say "provider type",
its queries compare `configOAuthProviderId`): two providers of one type under two config ids
(`github` and `github_work`) each allow a sign-in link per user.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from .. import oauth_config
from ..api_version import ApiVersion
from ..endpoint import ANY, SERVER_OR_ADMIN, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..ids import new_uuid, now_millis
from ..responses import Created
from ..schema import Bool, Obj, Spec, Str, Uuid
from ..users import get_user
from .connected_accounts import BODY, provider_access_token

group = EndpointGroup()

#: Provider types of API 2.8 (10.1); a link's `type` is its provider id when that names one.
PROVIDER_TYPES = frozenset(
    {
        "google",
        "github",
        "microsoft",
        "spotify",
        "facebook",
        "discord",
        "gitlab",
        "bitbucket",
        "linkedin",
        "apple",
        "x",
        "twitch",
    }
)
SAME_TYPE_SIGN_IN = "The same provider type with sign-in enabled already exists for this user."
SAME_ACCOUNT = "The same provider type with the same account ID already exists for this user."


def _has_provider_accounts(api: ApiVersion) -> bool:
    return api.oauth_provider_accounts


def _provider_type(ctx: RequestContext, provider_id: str) -> str | None:
    """The link's provider type, or None when the provider is neither configured nor a known
    type (such links are skipped, as the service skips them)."""
    configured = next((p for p in ctx.project.config["oauth_providers"] if p["id"] == provider_id), None)
    if configured is not None:
        return oauth_config.provider_kind(configured)
    return provider_id if provider_id in PROVIDER_TYPES else None


def _view(ctx: RequestContext, row: sqlite3.Row, provider_type: str) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": row["id"],
        "user_id": row["user_id"],
        "provider_config_id": row["provider_id"],
        "type": provider_type,
        "allow_sign_in": bool(row["allow_sign_in"]),
        "allow_connected_accounts": bool(row["allow_connected_accounts"]),
    }
    if row["email"]:
        view["email"] = row["email"]
    if ctx.tier != "client":
        view["account_id"] = row["account_id"]
    return view


def _own_user(ctx: RequestContext, user_id: str, verb: str) -> str:
    """`user_id` ("me" resolved), which a client may only name for itself; the user must exist."""
    if ctx.tier == "client":
        if ctx.user is None:
            raise CatalogueError("CANNOT_GET_OWN_USER_WITHOUT_USER")
        user_id = ctx.user_id_or_me(user_id)
        if user_id != ctx.user["id"]:
            raise PlainError(403, f"Client can only {verb} OAuth providers for their own user.")
    user_id = ctx.user_id_or_me(user_id)
    if get_user(ctx.sql, ctx.project.id, user_id) is None:
        raise CatalogueError("USER_NOT_FOUND")
    return user_id


def _link(ctx: RequestContext, user_id: str, link_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = ctx.sql.execute(
        "SELECT * FROM oauth_accounts WHERE project_id = ? AND user_id = ? AND id = ?",
        (ctx.project.id, user_id, link_id),
    ).fetchone()
    if row is None:
        raise PlainError(404, f"OAuth provider {link_id} for user {user_id} not found")
    return row


def _check_links(
    ctx: RequestContext,
    *,
    user_id: str,
    provider_id: str,
    allow_sign_in: bool | None,
    new_account_id: str | None,
    sign_in_account_id: str,
    exclude: str = "",
    moves_sign_in: bool = False,
) -> None:
    """The service's rules (10.2), in its order: one sign-in link per provider per user, one
    link per provider account per user, one sign-in link per account id.

    `allow_sign_in` / `new_account_id`: what the request sets (None: unchanged);
    `sign_in_account_id`: the account the link signs in with afterwards; `exclude`: the link
    being changed; `moves_sign_in`: a sign-in link gets another account id, the request not
    naming the flag."""

    def others(where: str, args: tuple[Any, ...]) -> bool:
        row = ctx.sql.execute(
            f"SELECT 1 FROM oauth_accounts WHERE project_id = ? AND {where} AND id != ?",
            (ctx.project.id, *args, exclude),
        ).fetchone()
        return row is not None

    signs_in = bool(allow_sign_in) or moves_sign_in
    mine = "provider_id = ? AND user_id = ?"
    if signs_in and others(mine + " AND allow_sign_in = 1", (provider_id, user_id)):
        raise PlainError(400, SAME_TYPE_SIGN_IN)
    if new_account_id is not None and others(mine + " AND account_id = ?", (provider_id, user_id, new_account_id)):
        raise PlainError(400, SAME_ACCOUNT)
    # Turning sign-in on, 2.8.86 looks for the account id among the sign-in links of every
    # provider of the project. A sign-in link only moving to another account id meets its
    # unique index of sign-in methods instead, which is per provider (answered here with the
    # same error rather than the index's failure).
    scope, args = ("", ()) if allow_sign_in else ("provider_id = ? AND ", (provider_id,))
    if signs_in and others(scope + "account_id = ? AND allow_sign_in = 1", (*args, sign_in_account_id)):
        raise CatalogueError("OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN")


LINK_PARAMS = Obj({"user_id": Uuid(required=True, allow_me=True), "provider_id": Uuid(required=True)})
LIST_QUERY = Obj({"user_id": Uuid(allow_me=True)})
CLIENT_UPDATE: dict[str, Spec] = {"allow_sign_in": Bool(), "allow_connected_accounts": Bool()}
SERVER_UPDATE = Obj({**CLIENT_UPDATE, "email": Str(), "account_id": Str()}, required=True)
CREATE_BODY = Obj(
    {
        "user_id": Uuid(required=True, allow_me=True),
        "provider_config_id": Str(required=True),
        "account_id": Str(required=True),
        "email": Str(),
        "allow_sign_in": Bool(required=True),
        "allow_connected_accounts": Bool(required=True),
    },
    required=True,
)


@group.get("/oauth-providers", tiers=ANY, query=LIST_QUERY, when=_has_provider_accounts)
def list_links(ctx: RequestContext) -> dict[str, Any]:
    user_id = ctx.query.get("user_id")
    if ctx.tier == "client" or user_id is not None:
        user_id = _own_user(ctx, user_id or "", "list")
    sql = "SELECT * FROM oauth_accounts WHERE project_id = ?"
    args: tuple[Any, ...] = (ctx.project.id,)
    if user_id is not None:
        sql, args = sql + " AND user_id = ?", (*args, user_id)
    rows = ctx.sql.execute(sql + " ORDER BY created_at_millis, rowid", args).fetchall()
    items = []
    for row in rows:
        provider_type = _provider_type(ctx, row["provider_id"])
        if provider_type is not None:
            items.append(_view(ctx, row, provider_type))
    return {"items": items, "is_paginated": False}


def _typed(ctx: RequestContext, row: sqlite3.Row) -> dict[str, Any]:
    provider_type = _provider_type(ctx, row["provider_id"])
    if provider_type is None:
        raise PlainError(404, f"OAuth provider {row['provider_id']} not found or not configured")
    return _view(ctx, row, provider_type)


@group.get("/oauth-providers/{user_id}/{provider_id}", tiers=ANY, params=LINK_PARAMS, when=_has_provider_accounts)
def read_link(ctx: RequestContext) -> dict[str, Any]:
    user_id = _own_user(ctx, ctx.params["user_id"], "read")
    return _typed(ctx, _link(ctx, user_id, ctx.params["provider_id"]))


@group.patch("/oauth-providers/{user_id}/{provider_id}", tiers=ANY, params=LINK_PARAMS, when=_has_provider_accounts)
def update_link(ctx: RequestContext) -> dict[str, Any]:
    # The client may change the two flags only; the server also the e-mail and account id.
    spec = Obj(CLIENT_UPDATE, required=True) if ctx.tier == "client" else SERVER_UPDATE
    data = ctx.validate(spec, ctx.raw_body)
    user_id = _own_user(ctx, ctx.params["user_id"], "update")
    row = _link(ctx, user_id, ctx.params["provider_id"])
    _check_links(
        ctx,
        user_id=user_id,
        provider_id=row["provider_id"],
        allow_sign_in=data.get("allow_sign_in"),
        new_account_id=data.get("account_id"),
        sign_in_account_id=data.get("account_id", row["account_id"]),
        exclude=row["id"],
        moves_sign_in="allow_sign_in" not in data and bool(row["allow_sign_in"]) and "account_id" in data,
    )
    columns = {
        "allow_sign_in": data.get("allow_sign_in"),
        "allow_connected_accounts": data.get("allow_connected_accounts"),
        "email": data.get("email"),
        "account_id": data.get("account_id"),
    }
    changed = {name: value for name, value in columns.items() if value is not None}
    if changed:
        assignments = ", ".join(f"{name} = ?" for name in changed)
        ctx.sql.execute(
            f"UPDATE oauth_accounts SET {assignments} WHERE project_id = ? AND id = ?",
            (*changed.values(), ctx.project.id, row["id"]),
        )
    return _typed(ctx, _link(ctx, user_id, row["id"]))


@group.delete(
    "/oauth-providers/{user_id}/{provider_id}", tiers=ANY, params=LINK_PARAMS, when=_has_provider_accounts
)
def delete_link(ctx: RequestContext) -> dict[str, Any]:
    user_id = _own_user(ctx, ctx.params["user_id"], "delete")
    row = _link(ctx, user_id, ctx.params["provider_id"])
    ctx.sql.execute("DELETE FROM oauth_accounts WHERE project_id = ? AND id = ?", (ctx.project.id, row["id"]))
    return {"success": True}


@group.post("/oauth-providers", tiers=SERVER_OR_ADMIN, body=CREATE_BODY, when=_has_provider_accounts)
def create_link(ctx: RequestContext) -> Created:
    data = ctx.body
    provider_id = data["provider_config_id"]
    if not any(p["id"] == provider_id for p in ctx.project.config["oauth_providers"]):
        raise PlainError(404, f"OAuth provider {provider_id} not found or not configured")
    user_id = _own_user(ctx, data["user_id"], "create")
    _check_links(
        ctx,
        user_id=user_id,
        provider_id=provider_id,
        allow_sign_in=data["allow_sign_in"],
        new_account_id=data["account_id"],
        sign_in_account_id=data["account_id"],
    )
    link_id = new_uuid()
    ctx.sql.execute(
        "INSERT INTO oauth_accounts (id, project_id, provider_id, account_id, user_id, email, created_at_millis,"
        " allow_sign_in, allow_connected_accounts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            link_id,
            ctx.project.id,
            provider_id,
            data["account_id"],
            user_id,
            data.get("email"),
            now_millis(),
            int(data["allow_sign_in"]),
            int(data["allow_connected_accounts"]),
        ),
    )
    return Created(_typed(ctx, _link(ctx, user_id, link_id)))


def _connected_user(
    ctx: RequestContext, user_id: str, refusal: str = "Client can only access its own connected accounts"
) -> str:
    user_id = ctx.user_id_or_me(user_id)
    if ctx.tier == "client" and (ctx.user is None or ctx.user["id"] != user_id):
        raise PlainError(403, refusal)
    if get_user(ctx.sql, ctx.project.id, user_id) is None:
        raise CatalogueError("USER_NOT_FOUND")
    return user_id


@group.get(
    "/connected-accounts/{user_id}",
    tiers=ANY,
    params=Obj({"user_id": Uuid(required=True, allow_me=True)}),
    when=_has_provider_accounts,
)
def list_connected_accounts(ctx: RequestContext) -> dict[str, Any]:
    user_id = _connected_user(ctx, ctx.params["user_id"], "Client can only list connected accounts for their own user.")
    rows = ctx.sql.execute(
        "SELECT * FROM oauth_accounts WHERE project_id = ? AND user_id = ? AND allow_connected_accounts = 1"
        " ORDER BY created_at_millis, rowid",
        (ctx.project.id, user_id),
    ).fetchall()
    items = [
        {"user_id": row["user_id"], "provider": row["provider_id"], "provider_account_id": row["account_id"]}
        for row in rows
        if _provider_type(ctx, row["provider_id"]) is not None
    ]
    return {"items": items, "is_paginated": False}


@group.post(
    "/connected-accounts/{user_id}/{provider_id}/{provider_account_id}/access-token",
    tiers=ANY,
    params=Obj(
        {
            "user_id": Uuid(required=True, allow_me=True),
            "provider_id": Str(required=True),
            "provider_account_id": Str(required=True),
        }
    ),
    body=BODY,
    when=_has_provider_accounts,
)
def account_access_token(ctx: RequestContext) -> Created:
    """The provider access token of one specific account of the user (10.3)."""
    user_id = _connected_user(ctx, ctx.params["user_id"])
    return provider_access_token(ctx, user_id, ctx.params["provider_id"], ctx.params["provider_account_id"])


routes = group.routes
