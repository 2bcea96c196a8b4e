"""Owner endpoints: projects managed by a user of `internal` (5.8) and API key sets (5.9)."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..auth import INTERNAL_PROJECT_ID
from ..db import dump, load
from ..endpoint import ADMIN, ANY, EndpointGroup, NeedsUser, RequestContext
from ..errors import CatalogueError
from ..ids import now_millis
from ..projects import api_key_set_view, create_api_key_set, create_project, get_project, user_count
from ..responses import Created
from ..schema import Bool, Num, Obj, Str, Uuid
from .projects import apply_update, project_body

group = EndpointGroup()
#: Owner endpoints of `internal` without a signed-in owner.
NO_OWNER = NeedsUser("USER_AUTHENTICATION_REQUIRED")


def _owner(ctx: RequestContext) -> sqlite3.Row:
    if ctx.project.id != INTERNAL_PROJECT_ID:
        raise CatalogueError("EXPECTED_INTERNAL_PROJECT")
    return ctx.signed_in_user


def _managed_ids(owner: sqlite3.Row) -> list[str]:
    metadata = load(owner["server_metadata"])
    managed = metadata.get("managedProjectIds") if isinstance(metadata, dict) else None
    return [pid for pid in managed if isinstance(pid, str)] if isinstance(managed, list) else []


@group.get("/internal/projects", tiers=ANY, needs_user=NO_OWNER)
def list_owned_projects(ctx: RequestContext) -> dict[str, Any]:
    projects = [p for p in (get_project(ctx.sql, pid) for pid in _managed_ids(_owner(ctx))) if p is not None]
    projects.sort(key=lambda p: p.created_at_millis, reverse=True)
    return {"items": [p.owner_view(ctx.api, user_count(ctx.sql, p.id)) for p in projects], "is_paginated": False}


@group.post("/internal/projects", tiers=ANY, needs_user=NO_OWNER, body=project_body(creating=True))
def create_owned_project(ctx: RequestContext) -> Created:
    owner = _owner(ctx)
    project = apply_update(ctx, create_project(ctx.sql, ctx.body["display_name"]), ctx.body)
    metadata = load(owner["server_metadata"])
    metadata = metadata if isinstance(metadata, dict) else {}
    metadata["managedProjectIds"] = [*_managed_ids(owner), project.id]
    ctx.sql.execute(
        "UPDATE users SET server_metadata = ? WHERE project_id = ? AND id = ?",
        (dump(metadata), owner["project_id"], owner["id"]),
    )
    return Created(project.owner_view(ctx.api, 0))


API_KEY_PATH = Obj({"api_key_id": Uuid(required=True)})


@group.post(
    "/internal/api-keys",
    tiers=ADMIN,
    body=Obj(
        {
            "description": Str(required=True),
            "expires_at_millis": Num(required=True, integer=True),
            "has_publishable_client_key": Bool(required=True),
            "has_secret_server_key": Bool(required=True),
            "has_super_secret_admin_key": Bool(required=True),
        },
        required=True,
    ),
)
def create_api_keys(ctx: RequestContext) -> dict[str, Any]:
    body = ctx.body
    key_set = create_api_key_set(
        ctx.sql,
        ctx.project.id,
        body["description"],
        int(body["expires_at_millis"]),
        publishable=body["has_publishable_client_key"],
        secret=body["has_secret_server_key"],
        admin=body["has_super_secret_admin_key"],
    )
    return api_key_set_view(_key_set(ctx, key_set.id), full=True)  # the only time full keys are shown


@group.get("/internal/api-keys", tiers=ADMIN)
def list_api_keys(ctx: RequestContext) -> dict[str, Any]:
    rows = ctx.sql.execute(
        "SELECT * FROM api_key_sets WHERE project_id = ? ORDER BY created_at_millis DESC, rowid DESC",
        (ctx.project.id,),
    ).fetchall()
    return {"items": [api_key_set_view(row) for row in rows], "is_paginated": False}


@group.get("/internal/api-keys/{api_key_id}", tiers=ADMIN, params=API_KEY_PATH)
def get_api_keys(ctx: RequestContext) -> dict[str, Any]:
    return api_key_set_view(_key_set(ctx, ctx.params["api_key_id"]))


@group.patch(
    "/internal/api-keys/{api_key_id}",
    tiers=ADMIN,
    params=API_KEY_PATH,
    body=Obj({"description": Str(), "revoked": Bool(only=True)}, required=True),
)
def update_api_keys(ctx: RequestContext) -> dict[str, Any]:
    key_set = _key_set(ctx, ctx.params["api_key_id"])
    if "description" in ctx.body:
        ctx.sql.execute(
            "UPDATE api_key_sets SET description = ? WHERE project_id = ? AND id = ?",
            (ctx.body["description"], ctx.project.id, key_set["id"]),
        )
    if ctx.body.get("revoked") and key_set["manually_revoked_at_millis"] is None:
        ctx.sql.execute(
            "UPDATE api_key_sets SET manually_revoked_at_millis = ? WHERE project_id = ? AND id = ?",
            (now_millis(), ctx.project.id, key_set["id"]),
        )
    return api_key_set_view(_key_set(ctx, key_set["id"]))


def _key_set(ctx: RequestContext, key_set_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = ctx.sql.execute(
        "SELECT * FROM api_key_sets WHERE id = ? AND project_id = ?", (key_set_id, ctx.project.id)
    ).fetchone()
    if row is None:
        raise CatalogueError("API_KEY_NOT_FOUND")
    return row


routes = group.routes
