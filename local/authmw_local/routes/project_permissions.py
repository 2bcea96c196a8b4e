"""Project permissions granted to users (API 2.8; service-api B9.2).

`GET /project-permissions` lists grants (the client tier only its own user's), `recursive=true`
with the permissions they contain; `POST` / `DELETE /project-permissions/{user_id}/{permission_id}`
(server, admin) grant and revoke, each announced by a `project_permission.*` webhook. A team
permission's id is WRONG_PERMISSION_SCOPE here. A 2.7 service has none of these routes (404).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from .. import webhooks
from ..api_version import ApiVersion
from ..endpoint import ANY, SERVER_OR_ADMIN, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..projects import system_permissions
from ..responses import Created
from ..schema import Obj, Str, Uuid
from ..teams import contained_permissions, expand
from ..users import get_user
from .permission_definitions import definition_scope

group = EndpointGroup()

OWN_USER_ONLY = (
    'Client can only list permissions for their own user. user_id must be either "me" or the ID of the current user'
)


def _permission_id(value: str) -> str | None:
    """`^\\$?[a-z0-9_:]+$`; a `$` id must name a (team) system permission."""
    body = value[1:] if value.startswith("$") else value
    if not body or any(ch not in "abcdefghijklmnopqrstuvwxyz0123456789_:" for ch in body):
        return 'must match the following: "^\\$?[a-z0-9_:]+$"'
    if value.startswith("$") and value not in system_permissions():
        return "Invalid system permission"
    return None


PATH = Obj({"user_id": Uuid(required=True, allow_me=True), "permission_id": Str(required=True, test=_permission_id)})
QUERY = Obj(
    {
        "user_id": Uuid(allow_me=True),
        "permission_id": Str(test=_permission_id),
        "recursive": Str(one_of=("true", "false")),
    }
)


def _has_project_permissions(api: ApiVersion) -> bool:
    return api.project_permissions


def held_permissions(c: sqlite3.Connection, project_id: str, user_id: str | None, *, recursive: bool) -> set[tuple[str, str]]:
    """(user id, permission id) of the grants (of one user, or of all), contained ones too when recursive."""
    sql = "SELECT user_id, permission_id FROM project_user_permissions WHERE project_id = ?"
    args: list[Any] = [project_id]
    if user_id is not None:
        sql += " AND user_id = ?"
        args.append(user_id)
    granted: dict[str, set[str]] = {}
    for row in c.execute(sql, args):
        granted.setdefault(row["user_id"], set()).add(row["permission_id"])
    if recursive:
        contains = contained_permissions(c, project_id, "project")
        granted = {uid: expand(ids, contains) for uid, ids in granted.items()}
    return {(uid, pid) for uid, ids in granted.items() for pid in ids}


@group.get("/project-permissions", tiers=ANY, query=QUERY, when=_has_project_permissions)
def list_permissions(ctx: RequestContext) -> dict[str, Any]:
    user_id = ctx.query.get("user_id")
    if user_id is not None:
        user_id = ctx.user_id_or_me(user_id)
    if ctx.tier == "client":
        if ctx.user is None:
            raise CatalogueError("CANNOT_GET_OWN_USER_WITHOUT_USER")
        if user_id != ctx.user["id"]:
            raise PlainError(403, OWN_USER_ONLY)
    held = held_permissions(ctx.sql, ctx.project.id, user_id, recursive=ctx.query.get("recursive") == "true")
    wanted = ctx.query.get("permission_id")
    items = [
        {"id": permission_id, "user_id": member_id}
        for member_id, permission_id in sorted(held)
        if wanted is None or permission_id == wanted
    ]
    return {"items": items, "is_paginated": False}


def _target(ctx: RequestContext) -> tuple[str, str]:
    user_id = ctx.user_id_or_me(ctx.params["user_id"])
    if get_user(ctx.sql, ctx.project.id, user_id) is None:
        raise CatalogueError("USER_NOT_FOUND")
    return user_id, ctx.params["permission_id"]


@group.post(
    "/project-permissions/{user_id}/{permission_id}",
    tiers=SERVER_OR_ADMIN,
    params=PATH,
    body=Obj({}, required=True),
    when=_has_project_permissions,
)
def grant(ctx: RequestContext) -> Created:
    user_id, permission_id = _target(ctx)
    scope = None if permission_id.startswith("$") else definition_scope(ctx.sql, ctx.project.id, permission_id)
    if scope is None:
        raise CatalogueError("PERMISSION_NOT_FOUND", permission_id=permission_id)
    if scope != "project":
        raise CatalogueError(
            "WRONG_PERMISSION_SCOPE", permission_id=permission_id, expected_scope="project", actual_scope=scope
        )
    ctx.sql.execute(
        "INSERT OR IGNORE INTO project_user_permissions (project_id, user_id, permission_id) VALUES (?, ?, ?)",
        (ctx.project.id, user_id, permission_id),
    )
    webhooks.project_permission_created(ctx.sql, ctx.project.id, user_id, permission_id)
    return Created({"id": permission_id, "user_id": user_id})


@group.delete(
    "/project-permissions/{user_id}/{permission_id}", tiers=SERVER_OR_ADMIN, params=PATH, when=_has_project_permissions
)
def revoke(ctx: RequestContext) -> dict[str, bool]:
    user_id, permission_id = _target(ctx)
    deleted = ctx.sql.execute(
        "DELETE FROM project_user_permissions WHERE project_id = ? AND user_id = ? AND permission_id = ?",
        (ctx.project.id, user_id, permission_id),
    ).rowcount
    if not deleted:
        raise CatalogueError("PERMISSION_NOT_FOUND", permission_id=permission_id)
    webhooks.project_permission_deleted(ctx.sql, ctx.project.id, user_id, permission_id)
    return {"success": True}


routes = group.routes
