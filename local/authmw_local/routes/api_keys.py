"""User and team API keys (API 2.8; service-api B8).

`POST /user-api-keys` / `/team-api-keys` make a key (its value shown this once),
`GET` lists a user's or team's keys (newest first, revoked and expired ones included),
`GET /{id}` reads one, `PATCH /{id}` changes the description or revokes it (only `true`; a
second revoke keeps the first time), and `POST .../check` (server and admin) tells the owner of
a value. Every route answers the plain 400 "... API keys are not enabled for this project."
unless the project's `allow_user_api_keys` / `allow_team_api_keys` is on; a 2.7 service has
none of them (404).

The client tier manages its own user's keys (another user's: plain 403) and the keys of teams
where it holds `$manage_api_keys` (otherwise API_KEY_NOT_FOUND, so a team's existence is not
revealed). Values are stored as their SHA-256 with their last four characters; the check
looks a value up by that hash within the project.
"""

from __future__ import annotations

import secrets
import sqlite3
from typing import Any

from authmw.keyformat import ALPHABET, MARKER, SECRET_LENGTH, KeyType, checksum

from ..api_version import ApiVersion
from ..endpoint import ANY, SERVER_OR_ADMIN, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..ids import new_uuid, now_millis, sha256_hex
from ..projects import update_key_record
from ..schema import Bool, Num, Obj, Str, Uuid
from ..teams import get_team, has_permission
from ..users import get_user


def make_api_key(key_id: str, key_type: KeyType, *, is_public: bool = False, self_hosted: bool = True) -> str:
    """A new key for the key with uuid ``key_id``, in the format :mod:`authmw.keyformat` reads."""
    prefix = "pk" if is_public else "sk"
    secret = "".join(secrets.choice(ALPHABET) for _ in range(SECRET_LENGTH))
    flag = ALPHABET[(1 if self_hosted else 0) + (2 if is_public else 0)]
    body = f"{prefix}_{secret}{key_id.replace('-', '')}{key_type}{flag}{MARKER}"
    return body + checksum(body)


group = EndpointGroup()

MANAGE_API_KEYS = "$manage_api_keys"
NOT_YOURS = "Client can only manage their own api keys"


def _has_api_keys(api: ApiVersion) -> bool:
    return api.api_keys


def _view(row: sqlite3.Row, value: str | None = None) -> dict[str, Any]:
    """The key object (service-api B8.3): the full value on creation only, else its last four."""
    view: dict[str, Any] = {
        "created_at_millis": row["created_at_millis"],
        "description": row["description"],
    }
    if row["expires_at_millis"] is not None:
        view["expires_at_millis"] = row["expires_at_millis"]
    view["id"] = row["id"]
    view["is_public"] = bool(row["is_public"])
    if row["manually_revoked_at_millis"] is not None:
        view["manually_revoked_at_millis"] = row["manually_revoked_at_millis"]
    owner = "user_id" if row["type"] == "user" else "team_id"
    view[owner] = row[owner]
    view["type"] = row["type"]
    view["value"] = value if value is not None else {"last_four": row["last_four"]}
    return view


def _require_enabled(ctx: RequestContext, key_type: KeyType) -> None:
    if not ctx.project.config[f"allow_{key_type}_api_keys"]:
        raise PlainError(400, f"{key_type.capitalize()} API keys are not enabled for this project.")


def _may_manage(ctx: RequestContext, *, user_id: str | None = None, team_id: str | None = None) -> None:
    """Client tier: only its own user's keys, and a team's with `$manage_api_keys`."""
    if ctx.tier != "client":
        return
    if ctx.user is None:
        raise CatalogueError("USER_AUTHENTICATION_REQUIRED")
    if user_id is not None and user_id != ctx.user["id"]:
        raise PlainError(403, NOT_YOURS)
    if team_id is not None and not has_permission(ctx.sql, ctx.project.id, team_id, ctx.user["id"], MANAGE_API_KEYS):
        raise CatalogueError("API_KEY_NOT_FOUND")


def _owner_of(key_type: KeyType, owner_id: str) -> dict[str, str]:
    return {"user_id": owner_id} if key_type == "user" else {"team_id": owner_id}


def _by_id(ctx: RequestContext, key_id: str) -> sqlite3.Row:
    row: sqlite3.Row = ctx.sql.execute(
        "SELECT * FROM project_api_keys WHERE project_id = ? AND id = ?", (ctx.project.id, key_id)
    ).fetchone()
    return row


def _stored(ctx: RequestContext, key_type: KeyType, api_key_id: str) -> sqlite3.Row:
    """The project's key of this kind with this id (API_KEY_NOT_FOUND otherwise), after the
    client tier's ownership check."""
    row: sqlite3.Row | None = ctx.sql.execute(
        "SELECT * FROM project_api_keys WHERE project_id = ? AND id = ? AND type = ?",
        (ctx.project.id, api_key_id, key_type),
    ).fetchone()
    if row is None:
        raise CatalogueError("API_KEY_NOT_FOUND")
    _may_manage(ctx, **_owner_of(key_type, row[f"{key_type}_id"]))
    return row


def _create(ctx: RequestContext, key_type: KeyType) -> dict[str, Any]:
    _require_enabled(ctx, key_type)
    if key_type == "user":
        owner_id = ctx.user_id_or_me(ctx.body["user_id"])
    else:
        owner_id = ctx.body["team_id"]
    _may_manage(ctx, **_owner_of(key_type, owner_id))
    if key_type == "user" and get_user(ctx.sql, ctx.project.id, owner_id) is None:
        raise CatalogueError("USER_NOT_FOUND")
    if key_type == "team" and get_team(ctx.sql, ctx.project.id, owner_id) is None:
        raise CatalogueError("TEAM_NOT_FOUND", team_id=owner_id)
    key_id = new_uuid()
    is_public = bool(ctx.body.get("is_public", False))
    value = make_api_key(key_id, key_type, is_public=is_public)
    expires = ctx.body["expires_at_millis"]
    ctx.sql.execute(
        "INSERT INTO project_api_keys (id, project_id, type, user_id, team_id, description, is_public, value_sha256,"
        " last_four, created_at_millis, expires_at_millis) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            key_id,
            ctx.project.id,
            key_type,
            owner_id if key_type == "user" else None,
            owner_id if key_type == "team" else None,
            ctx.body["description"],
            int(is_public),
            sha256_hex(value),
            value[-4:],
            now_millis(),
            int(expires) if expires else None,
        ),
    )
    return _view(_by_id(ctx, key_id), value)


def _list(ctx: RequestContext, key_type: KeyType) -> dict[str, Any]:
    _require_enabled(ctx, key_type)
    column = f"{key_type}_id"
    if column not in ctx.query:
        raise CatalogueError("SCHEMA_ERROR", message=f"{column} is required for {key_type} API keys")
    owner_id = ctx.user_id_or_me(ctx.query[column]) if key_type == "user" else ctx.query[column]
    _may_manage(ctx, **_owner_of(key_type, owner_id))
    rows = ctx.sql.execute(
        f"SELECT * FROM project_api_keys WHERE project_id = ? AND type = ? AND {column} = ?"
        " ORDER BY created_at_millis DESC, rowid DESC",
        (ctx.project.id, key_type, owner_id),
    ).fetchall()
    return {"is_paginated": False, "items": [_view(row) for row in rows]}


def _read(ctx: RequestContext, key_type: KeyType) -> dict[str, Any]:
    _require_enabled(ctx, key_type)
    return _view(_stored(ctx, key_type, ctx.params["api_key_id"]))


def _update(ctx: RequestContext, key_type: KeyType) -> dict[str, Any]:
    _require_enabled(ctx, key_type)
    row = _stored(ctx, key_type, ctx.params["api_key_id"])
    update_key_record(ctx.sql, "project_api_keys", ctx.project.id, row, ctx.body)
    return _view(_by_id(ctx, row["id"]))


def _check(ctx: RequestContext, key_type: KeyType) -> dict[str, Any]:
    """Not found, then the other kind, then revoked, then expired (service-api B8.4)."""
    _require_enabled(ctx, key_type)
    row = ctx.sql.execute(
        "SELECT * FROM project_api_keys WHERE project_id = ? AND value_sha256 = ?",
        (ctx.project.id, sha256_hex(ctx.body["api_key"])),
    ).fetchone()
    if row is None:
        raise CatalogueError("API_KEY_NOT_FOUND")
    if row["type"] != key_type:
        raise CatalogueError("WRONG_API_KEY_TYPE", expected_type=key_type, actual_type=row["type"])
    if row["manually_revoked_at_millis"] is not None:
        raise CatalogueError("API_KEY_REVOKED")
    if row["expires_at_millis"] is not None and row["expires_at_millis"] < now_millis():
        raise CatalogueError("API_KEY_EXPIRED")
    return _view(row)


def _register(key_type: KeyType) -> None:
    base = f"/{key_type}-api-keys"
    one = base + "/{api_key_id}"
    owner = Uuid(required=True, allow_me=True) if key_type == "user" else Str(required=True)
    create_body = Obj(
        {
            "description": Str(required=True),
            "expires_at_millis": Num(required=True, nullable=True),
            "is_public": Bool(),
            f"{key_type}_id": owner,
        },
        required=True,
    )
    # The query of the team routes requires team_id on every operation (service-api B8.4).
    query = Obj({"user_id": Uuid(allow_me=True)}) if key_type == "user" else Obj({"team_id": Uuid(required=True)})
    params = Obj({"api_key_id": Uuid(required=True)})
    update_body = Obj({"description": Str(), "revoked": Bool(only=True)}, required=True)
    options: dict[str, Any] = {"when": _has_api_keys}

    def create(ctx: RequestContext) -> dict[str, Any]:
        return _create(ctx, key_type)

    def list_keys(ctx: RequestContext) -> dict[str, Any]:
        return _list(ctx, key_type)

    def check(ctx: RequestContext) -> dict[str, Any]:
        return _check(ctx, key_type)

    def read(ctx: RequestContext) -> dict[str, Any]:
        return _read(ctx, key_type)

    def update(ctx: RequestContext) -> dict[str, Any]:
        return _update(ctx, key_type)

    for handler in (create, list_keys, check, read, update):
        handler.__name__ = f"{handler.__name__}_{key_type}_api_key"
    group.post(base, tiers=ANY, body=create_body, **options)(create)
    group.get(base, tiers=ANY, query=query, **options)(list_keys)
    check_body = Obj({"api_key": Str(required=True)}, required=True)
    group.post(base + "/check", tiers=SERVER_OR_ADMIN, body=check_body, **options)(check)
    group.get(one, tiers=ANY, params=params, query=query, **options)(read)
    group.patch(one, tiers=ANY, params=params, query=query, body=update_body, **options)(update)


_register("user")
_register("team")

routes = group.routes
